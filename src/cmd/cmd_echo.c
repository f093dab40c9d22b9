/* gdb's output commands for scripts and command lists: echo TEXT, printf
 * "FORMAT", ARGS... and output EXPR.  All three write a stream, as gdb's do:
 * nothing ends the line but a "\n" (cmd_out_stream), so that
 *     echo layers done:\040
 *     output $layers
 *     echo \n
 * prints one line.  Values are the command language's 64-bit integers. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "format.h"

/* The longest printf result: a line of a script, not a report. */
#define PRINTF_MAX 4096

/* A C escape after its backslash (p points past it): its byte in *c and the
 * characters read.  gdb's set: \n \t \r \a \b \f \v \e, \\ \" \' and any
 * other character as itself, up to three octal digits. */
static size_t escape_byte(const char *p, char *c)
{
    static const char from[] = "ntrabfve";
    static const char to[] = "\n\t\r\a\b\f\v\033";
    const char *hit = *p ? strchr(from, *p) : NULL;
    if (hit) {
        *c = to[hit - from];
        return 1;
    }
    if (*p >= '0' && *p <= '7') {
        unsigned v = 0;
        size_t n = 0;
        while (n < 3 && p[n] >= '0' && p[n] <= '7')
            v = v * 8 + (unsigned)(p[n++] - '0');
        *c = (char)(v & 0xff);
        return n;
    }
    *c = *p;
    return *p ? 1 : 0;
}

/* ---------------------------------------------------------------- echo */

static enum cmd_status do_echo(struct dbg *d, struct cmd_args *a)
{
    const char *text = cmd_rest(a, 0);
    char buf[1024];
    size_t n = 0;
    for (const char *p = text; *p;) {
        char c = *p++;
        if (c == '\\') {
            if (!*p) /* gdb: a backslash that ends the line prints nothing */
                break;
            p += escape_byte(p, &c);
        }
        buf[n++] = c;
        if (n == sizeof buf) {
            cmd_out_stream(d, buf, n);
            n = 0;
        }
    }
    cmd_out_stream(d, buf, n);
    return CMD_OK;
}

/* ---------------------------------------------------------------- printf */

/* The format string between double quotes at *p, its escapes resolved, into
 * fmt, and as typed (for messages) into raw; *p left after the closing quote. */
static bool read_format(struct dbg *d, struct cmd_args *a, const char **p, char *fmt, size_t len,
                        char *raw, size_t rawlen)
{
    const char *s = *p;
    while (isspace((unsigned char)*s))
        s++;
    const char *open = s;
    if (*s != '"') {
        cmd_fail(d, a, "expected a format string in double quotes: printf \"FORMAT\", EXPR...");
        return false;
    }
    s++;
    size_t n = 0;
    while (*s && *s != '"') {
        char c = *s++;
        if (c == '\\' && *s)
            s += escape_byte(s, &c);
        if (n + 1 == len) {
            cmd_fail(d, a, "format string longer than %zu bytes", len - 1);
            return false;
        }
        fmt[n++] = c;
    }
    if (*s != '"') {
        cmd_fail(d, a, "format string without its closing '\"'");
        return false;
    }
    fmt[n] = 0;
    snprintf(raw, rawlen, "%.*s", (int)(s + 1 - open), open);
    *p = s + 1;
    return true;
}

/* The next argument's text after a comma at *p (commas inside parentheses
 * belong to it), into buf; false at the end of the line. */
static bool next_arg(const char **p, char *buf, size_t len)
{
    const char *s = *p;
    while (isspace((unsigned char)*s))
        s++;
    if (*s != ',')
        return false;
    s++;
    size_t n = 0;
    int depth = 0;
    for (; *s && (depth > 0 || *s != ','); s++) {
        depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
        if (n + 1 < len)
            buf[n++] = *s;
    }
    buf[n] = 0;
    *p = s;
    return true;
}

/* One conversion of fmt at *f ("%-08llx"): its C form (length modifiers
 * replaced by ll) in spec, its letter in *conv; false with why. */
static bool read_conversion(const char **f, char *spec, size_t len, char *conv, const char **why)
{
    const char *s = *f + 1;
    size_t n = 0;
    spec[n++] = '%';
    while (*s && strchr("-+ #0", *s) && n + 4 < len)
        spec[n++] = *s++;
    while ((isdigit((unsigned char)*s) || *s == '.') && n + 4 < len)
        spec[n++] = *s++;
    if (*s == '*') {
        *why = "a '*' width or precision (gdb takes none)";
        return false;
    }
    while (*s && strchr("hlLqjzt", *s))
        s++;
    if (!*s || !strchr("diouxXcfFeEgGaAp%", *s)) {
        *why = *s == 's' ? "%s: dladbg's values are integers (a register, a field, $cycle ...)"
                         : "a conversion other than d i u o x X c f e g a p %";
        return false;
    }
    *conv = *s;
    if (strchr("diouxX", *s)) {
        spec[n++] = 'l';
        spec[n++] = 'l';
    }
    spec[n++] = *s;
    spec[n] = 0;
    *f = s + 1;
    return true;
}

/* Format one value by spec into out (at most room bytes). */
static int format_value(char *out, size_t room, const char *spec, char conv, int64_t v)
{
    switch (conv) {
    case 'd':
    case 'i':
        return snprintf(out, room, spec, (long long)v);
    case 'c':
        return snprintf(out, room, spec, (int)(unsigned char)v);
    case 'p':
        return snprintf(out, room, "0x%llx", (unsigned long long)v);
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        return snprintf(out, room, spec, (double)v);
    default:
        return snprintf(out, room, spec, (unsigned long long)v);
    }
}

static enum cmd_status junk_after(struct dbg *d, struct cmd_args *a, const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return cmd_fail(d, a, "expected \",\" before \"%s\" (printf \"FORMAT\", EXPR, EXPR...)", p);
}

static enum cmd_status do_printf(struct dbg *d, struct cmd_args *a)
{
    const char *p = cmd_rest(a, 0);
    char fmt[1024], raw[1100];
    if (!read_format(d, a, &p, fmt, sizeof fmt, raw, sizeof raw))
        return CMD_ERROR;
    char *out = malloc(PRINTF_MAX);
    if (!out)
        return cmd_fail(d, a, "out of memory");
    size_t n = 0;
    enum cmd_status st = CMD_OK;
    int used = 0;
    for (const char *f = fmt; *f && st == CMD_OK;) {
        if (*f != '%') {
            if (n + 1 < PRINTF_MAX)
                out[n++] = *f;
            f++;
            continue;
        }
        char spec[32], conv, text[512];
        const char *why = NULL;
        int64_t v = 0;
        if (!read_conversion(&f, spec, sizeof spec, &conv, &why))
            st = cmd_fail(d, a, "format %s: %s", raw, why);
        else if (conv == '%') {
            if (n + 1 < PRINTF_MAX)
                out[n++] = '%';
        }
        else if (!next_arg(&p, text, sizeof text))
            st = *p && strspn(p, " \t") != strlen(p) ? junk_after(d, a, p)
                                                     : cmd_fail(d, a, "format %s takes more "
                                                                "arguments than the %d given",
                                                                raw, used);
        else if (!cmd_number(d, a, text, &v))
            st = CMD_ERROR;
        else {
            used++;
            int w = format_value(out + n, PRINTF_MAX - n, spec, conv, v);
            n += w > 0 ? (size_t)w : 0;
            if (n >= PRINTF_MAX)
                n = PRINTF_MAX - 1;
        }
    }
    char extra[512];
    if (st == CMD_OK && next_arg(&p, extra, sizeof extra))
        st = cmd_fail(d, a, "format %s takes %d argument%s; more were given", raw, used,
                      used == 1 ? "" : "s");
    else if (st == CMD_OK && *p && strspn(p, " \t") != strlen(p))
        st = junk_after(d, a, p);
    if (st == CMD_OK) /* nothing of a failed printf is printed, as gdb */
        cmd_out_stream(d, out, n);
    free(out);
    return st;
}

/* ---------------------------------------------------------------- output */

static enum cmd_status do_output(struct dbg *d, struct cmd_args *a)
{
    const char *text = cmd_rest(a, 0);
    if (!text[0])
        return cmd_fail(d, a, "expected an expression");
    char how = a->suffix[0] == '/' ? a->suffix[1] : 'd';
    if (!how || !strchr("xduotc", how) || (a->suffix[0] && a->suffix[2]))
        return cmd_fail(d, a, "unknown format \"%s\" (expected /x, /d, /u, /o, /t or /c)",
                        a->suffix);
    int64_t v;
    if (!cmd_number(d, a, text, &v))
        return CMD_ERROR;
    char buf[80];
    format_number(how, (uint64_t)v, 8, false, buf, sizeof buf);
    cmd_out_stream(d, buf, strlen(buf));
    return CMD_OK;
}

const struct cmd_entry cmd_echo_entries[] = {
    {"echo", NULL, "TEXT", "echo TEXT",
     "Print TEXT as gdb does: C escapes (\\n \\t \\\\ \\\" \\NNN ...) are resolved, and no\n"
     "newline is added: \"echo done\\n\" prints a line.  What echo, printf and output leave\n"
     "open is ended by other output and by the end of the line typed or the script.",
     do_echo, NULL, false},
    {"printf", NULL, "TEXT", "printf \"FORMAT\", EXPR...",
     "Print the EXPRs (expressions, as print takes them) by a C format: %d %i %u %o %x %X %c\n"
     "%p, %f %e %g of the integer, flags, width and precision, %%; no newline but the\n"
     "format's \\n.  A count of arguments that does not match the format fails.",
     do_printf, NULL, false},
    {"output", NULL, "EXPR", "output[/x|/d|/u|/o|/t|/c] EXPR",
     "Print EXPR's value alone, no \"= \" and no newline (gdb's output): for\n"
     "\"echo ...\" \"output ...\" \"echo \\n\" lines in command lists.",
     do_output, NULL, false},
    END_OF_TABLE,
};
