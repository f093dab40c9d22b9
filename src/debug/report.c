#include "report.h"

#include <stdio.h>
#include <stdlib.h>

/* Most messages fit the stack buffer; a longer one (--rawdump's text of a
 * whole tensor) is formatted again into the heap rather than cut short. */
void report_vmsg(struct report *r, enum report_level level, const char *fmt, va_list ap)
{
    if (!r || !r->print)
        return;
    char text[1024];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    char *whole = n >= (int)sizeof text ? malloc((size_t)n + 1) : NULL;
    if (whole)
        vsnprintf(whole, (size_t)n + 1, fmt, again);
    va_end(again);
    r->print(r->ctx, level, whole ? whole : text);
    free(whole);
}

void report_msg(struct report *r, enum report_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_vmsg(r, level, fmt, ap);
    va_end(ap);
}

int report_exit_status(const struct report *r)
{
    if (r->input_errors)
        return 2;
    if (r->checks_failed || r->dumps_failed)
        return 1;
    return 0;
}
