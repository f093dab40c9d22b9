/* A strict JSON reader for the compiler's calibration table. */
#include "calib_json.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/textfile.h"

#define MAX_DEPTH 64 /* nesting of skipped members: deeper is refused, not recursed into */

struct parser {
    const char *name, *s;
    size_t len, pos;
    char *err;
    size_t errlen;
    bool failed;
};

/* The first failure names the place: "calib.json:3:14 (byte 52): expected ...". */
static bool fail(struct parser *p, const char *fmt, const char *what)
{
    if (p->failed)
        return false;
    p->failed = true;
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what);
    const char *found = p->pos >= p->len ? "the end of the file" : NULL;
    char ch[32];
    if (!found) {
        unsigned char c = (unsigned char)p->s[p->pos];
        snprintf(ch, sizeof ch, isprint(c) ? "'%c'" : "byte 0x%02x", c);
        found = ch;
    }
    snprintf(p->err, p->errlen, "%s:%u:%u (byte %zu): %s, found %s", p->name, line, col, p->pos,
             msg, found);
    return false;
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

static bool peek_is(struct parser *p, char c)
{
    skip_ws(p);
    return p->pos < p->len && p->s[p->pos] == c;
}

static bool expect(struct parser *p, char c, const char *what)
{
    if (!peek_is(p, c))
        return fail(p, "expected %s", what);
    p->pos++;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One escape after the backslash; non-ASCII \u escapes are kept as '?':
 * blob names are compared byte for byte and Caffe's are ASCII. */
static bool string_escape(struct parser *p, char *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = p->pos < p->len ? p->s[p->pos] : 0;
    const char *at = c ? strchr(from, c) : NULL;
    if (at) {
        *out = to[at - from];
        p->pos++;
        return true;
    }
    if (c != 'u')
        return fail(p, "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)%s", "");
    unsigned v = 0;
    for (int i = 1; i <= 4; i++) {
        int h = p->pos + (size_t)i < p->len ? hex_digit(p->s[p->pos + (size_t)i]) : -1;
        if (h < 0) {
            p->pos += (size_t)i;
            return fail(p, "expected four hex digits after \\u%s", "");
        }
        v = v * 16 + (unsigned)h;
    }
    p->pos += 5;
    *out = v > 0 && v < 0x80 ? (char)v : '?';
    return true;
}

/* A string into buf (cut to cap - 1 bytes; *too_long set then). */
static bool parse_string(struct parser *p, char *buf, size_t cap, bool *too_long)
{
    if (!expect(p, '"', "a string (\"...\")"))
        return false;
    size_t n = 0;
    *too_long = false;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, "expected the closing '\"' of a string%s", "");
        char c = p->s[p->pos];
        if ((unsigned char)c < 0x20)
            return fail(p, "expected no control characters inside a string%s", "");
        p->pos++;
        if (c == '"')
            break;
        if (c == '\\' && !string_escape(p, &c))
            return false;
        if (n + 1 < cap)
            buf[n++] = c;
        else
            *too_long = true;
    }
    buf[n] = 0;
    return true;
}

/* JSON's number grammar exactly (no leading '+', no hex, no NaN). */
static bool parse_number(struct parser *p, double *v)
{
    skip_ws(p);
    size_t start = p->pos, i = p->pos;
    const char *s = p->s;
    if (i < p->len && s[i] == '-')
        i++;
    if (i < p->len && s[i] == '0') {
        i++;
    } else if (i < p->len && s[i] >= '1' && s[i] <= '9') {
        while (i < p->len && isdigit((unsigned char)s[i]))
            i++;
    } else {
        p->pos = i;
        return fail(p, "expected a number%s", "");
    }
    if (i < p->len && s[i] == '.') {
        if (++i >= p->len || !isdigit((unsigned char)s[i])) {
            p->pos = i;
            return fail(p, "expected a digit after the decimal point%s", "");
        }
        while (i < p->len && isdigit((unsigned char)s[i]))
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || !isdigit((unsigned char)s[i])) {
            p->pos = i;
            return fail(p, "expected the exponent's digits%s", "");
        }
        while (i < p->len && isdigit((unsigned char)s[i]))
            i++;
    }
    char num[64];
    if (i - start >= sizeof num)
        return fail(p, "expected a number of fewer than 64 characters%s", "");
    memcpy(num, s + start, i - start);
    num[i - start] = 0;
    *v = strtod(num, NULL);
    p->pos = i;
    if (!isfinite(*v)) {
        p->pos = start;
        return fail(p, "expected a number within the range of a double%s", "");
    }
    return true;
}

static bool skip_value(struct parser *p, int depth);

static bool skip_literal(struct parser *p)
{
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (p->len - p->pos >= n && !memcmp(p->s + p->pos, words[i], n)) {
            p->pos += n;
            return true;
        }
    }
    double v;
    return parse_number(p, &v);
}

/* The elements of an array or the members of an object after its opening bracket. */
static bool skip_container(struct parser *p, char close, int depth)
{
    if (peek_is(p, close)) {
        p->pos++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            char key[8];
            bool long_key;
            if (!parse_string(p, key, sizeof key, &long_key) ||
                !expect(p, ':', "':' after a member name"))
                return false;
        }
        if (!skip_value(p, depth + 1))
            return false;
        if (peek_is(p, close)) {
            p->pos++;
            return true;
        }
        if (!expect(p, ',',
                    close == '}' ? "',' or '}' after a member" : "',' or ']' after an element"))
            return false;
    }
}

static bool skip_value(struct parser *p, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, "expected values nested at most 64 deep%s", "");
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, "expected a value%s", "");
    char c = p->s[p->pos];
    if (c == '"') {
        char tmp[8];
        bool long_str;
        return parse_string(p, tmp, sizeof tmp, &long_str);
    }
    if (c == '{' || c == '[') {
        p->pos++;
        return skip_container(p, c == '{' ? '}' : ']', depth);
    }
    return skip_literal(p);
}

static bool add_entry(struct calib_table *t, size_t *cap, const struct calib_entry *e)
{
    if (t->n == *cap) {
        size_t grown = *cap ? *cap * 2 : 32;
        struct calib_entry *n = realloc(t->e, grown * sizeof *n);
        if (!n)
            return false;
        t->e = n;
        *cap = grown;
    }
    t->e[t->n++] = *e;
    return true;
}

/* One member's value: { "scale": N, ... }. */
static bool parse_entry(struct parser *p, struct calib_entry *e)
{
    size_t open = p->pos;
    if (!expect(p, '{', "an object of numbers ({\"scale\": ...}) as a blob's value"))
        return false;
    bool have_scale = false;
    while (!peek_is(p, '}')) {
        char key[32];
        bool long_key;
        if (!parse_string(p, key, sizeof key, &long_key) ||
            !expect(p, ':', "':' after a member name"))
            return false;
        double *slot = NULL;
        if (!long_key && !strcmp(key, "scale"))
            slot = &e->scale;
        else if (!long_key && !strcmp(key, "min"))
            slot = &e->min;
        else if (!long_key && !strcmp(key, "max"))
            slot = &e->max;
        else if (!long_key && !strcmp(key, "offset"))
            slot = &e->offset;
        if (slot) {
            size_t at = p->pos;
            if (!parse_number(p, slot))
                return false;
            if (slot == &e->scale) {
                have_scale = true;
                if (!(*slot > 0)) {
                    p->pos = at;
                    skip_ws(p);
                    return fail(p, "expected a scale greater than 0%s", "");
                }
            }
        } else if (!skip_value(p, 1)) {
            return false;
        }
        if (peek_is(p, '}'))
            break;
        if (!expect(p, ',', "',' or '}' after a member"))
            return false;
        if (peek_is(p, '}'))
            return fail(p, "expected another member after ','%s", "");
    }
    p->pos++;
    if (!have_scale) {
        p->pos = open;
        skip_ws(p);
        return fail(p, "expected a \"scale\" member in the object of \"%s\"", e->name);
    }
    return true;
}

bool calib_parse(const char *name, const char *text, size_t len, struct calib_table *t, char *err,
                 size_t errlen)
{
    struct parser p = {.name = name, .s = text, .len = len, .err = err, .errlen = errlen};
    size_t cap = 0;
    t->e = NULL;
    t->n = 0;
    bool ok = expect(&p, '{', "a JSON object ({\"blob\": {\"scale\": ...}, ...})");
    if (ok && peek_is(&p, '}')) {
        p.pos++;
    } else {
        while (ok) {
            struct calib_entry e = {.scale = 0};
            bool long_name;
            size_t at = p.pos;
            ok = parse_string(&p, e.name, sizeof e.name, &long_name);
            if (ok && long_name) {
                p.pos = at;
                skip_ws(&p);
                ok = fail(&p, "expected a blob name of fewer than 128 bytes%s", "");
            }
            if (ok && calib_find(t, e.name)) {
                p.pos = at;
                skip_ws(&p);
                ok = fail(&p, "expected each blob once; \"%s\" is there already", e.name);
            }
            ok = ok && expect(&p, ':', "':' after a blob name") && parse_entry(&p, &e);
            if (ok && !add_entry(t, &cap, &e)) {
                snprintf(err, errlen, "%s: out of memory", name);
                ok = false;
            }
            if (!ok || peek_is(&p, '}')) {
                p.pos++;
                break;
            }
            ok = expect(&p, ',', "',' or '}' after a blob's object");
        }
    }
    if (ok) {
        skip_ws(&p);
        if (p.pos < p.len)
            ok = fail(&p, "expected nothing after the table's closing '}'%s", "");
    }
    if (!ok)
        calib_free(t);
    return ok;
}

bool calib_read(const char *path, struct calib_table *t, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    t->e = NULL;
    t->n = 0;
    if (!file_read_all(path, CALIB_MAX_FILE, &buf, &len, err, errlen))
        return false;
    bool ok = calib_parse(path, (const char *)buf, len, t, err, errlen);
    free(buf);
    return ok;
}

void calib_free(struct calib_table *t)
{
    free(t->e);
    t->e = NULL;
    t->n = 0;
}

const struct calib_entry *calib_find(const struct calib_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].name, name))
            return &t->e[i];
    return NULL;
}
