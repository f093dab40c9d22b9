#include "report.h"

#include <stdio.h>

void report_vmsg(struct report *r, enum report_level level, const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (r && r->print)
        r->print(r->ctx, level, text);
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
