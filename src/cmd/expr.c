/* A recursive-descent evaluator for the command language's expressions. */
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reg_suggest.h"

struct parser {
    const char *p;
    const struct expr_env *env;
    const struct regdb_field *enum_field; /* field whose enum names are in scope */
    char *err;
    size_t errlen;
    bool failed;
    unsigned depth; /* parentheses and unary operators open now */
};

/* Deeper nesting than any expression a person writes; without a bound,
 * 15,000 "(" or 400,000 "~" overflow the stack of this recursive parser. */
#define EXPR_MAX_DEPTH 256

static void fail(struct parser *ps, const char *fmt, const char *what)
{
    if (!ps->failed)
        snprintf(ps->err, ps->errlen, fmt, what);
    ps->failed = true;
}

static void skip_space(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static bool accept(struct parser *ps, const char *op)
{
    skip_space(ps);
    size_t n = strlen(op);
    if (strncmp(ps->p, op, n) != 0)
        return false;
    /* "<" must not swallow "<<" or "<=", "&" not "&&", "|" not "||", "!" not "!=" */
    char next = ps->p[n];
    if (n == 1 && strchr("<>&|!=", op[0]) && (next == op[0] || next == '=') &&
        !(op[0] == '=' && next == '='))
        return false;
    ps->p += n;
    return true;
}

static int64_t parse_expr(struct parser *ps);

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '@';
}

static int64_t number(struct parser *ps)
{
    const char *s = ps->p;
    char *end;
    errno = 0;
    unsigned long long v;
    if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        v = strtoull(s + 2, &end, 2);
    else
        v = strtoull(s, &end, 0);
    if (errno || end == s || is_name_char(*end)) {
        fail(ps, "bad number near \"%.20s\"", s);
        return 0;
    }
    ps->p = end;
    return (int64_t)v;
}

static int64_t variable(struct parser *ps)
{
    char name[32];
    size_t n = 0;
    ps->p++;
    while (is_name_char(*ps->p) && n + 1 < sizeof name)
        name[n++] = *ps->p++;
    name[n] = 0;
    const struct expr_env *e = ps->env;
    if (!strcmp(name, "cycle"))
        return e->dla ? (int64_t)dla_now(e->dla) : 0;
    if (!strcmp(name, "layers"))
        return (int64_t)e->layers;
    if (!strcmp(name, "writes"))
        return (int64_t)e->writes;
    if (!strcmp(name, "bpnum")) {
        if (e->bpnum <= 0)
            fail(ps, "$%s: no breakpoint has been set", name);
        return e->bpnum;
    }
    fail(ps, "unknown variable $%s (known: $cycle $layers $writes $bpnum)", name);
    return 0;
}

/* UNIT.REG[.FIELD][@GROUP], or an enum name of the field in scope. */
static int64_t name_ref(struct parser *ps)
{
    char name[160];
    size_t n = 0;
    while (is_name_char(*ps->p) && n + 1 < sizeof name)
        name[n++] = *ps->p++;
    name[n] = 0;
    int group = ps->env->group;
    char *at = strchr(name, '@');
    if (at) {
        *at = 0;
        if ((at[1] != '0' && at[1] != '1') || at[2]) {
            fail(ps, "no group \"%s\": register groups are 0 and 1", at + 1);
            return 0;
        }
        group = at[1] - '0';
    }
    if (!strchr(name, '.')) {
        uint32_t v;
        if (ps->enum_field && regdb_enum_value(ps->enum_field, name, &v))
            return v;
        fail(ps,
             ps->enum_field ? "\"%s\" is not a value of the field compared against"
                            : "unknown name \"%s\" (registers are UNIT.REG[.FIELD])",
             name);
        return 0;
    }
    if (!ps->env->dla) {
        fail(ps, "no session: cannot read %s", name);
        return 0;
    }
    struct regdb_ref ref;
    if (!regdb_resolve(dla_regmap(ps->env->dla), name, &ref)) {
        char hint[160], msg[400];
        reg_suggest(dla_regmap(ps->env->dla), name, hint, sizeof hint);
        snprintf(msg, sizeof msg, "unknown register or field \"%s\"%s", name, hint);
        fail(ps, "%s", msg);
        return 0;
    }
    if (at && !ref.reg->dual) {
        fail(ps, "%s has no register groups (only D_ registers have groups 0 and 1)", name);
        return 0;
    }
    char absent[160], msg[400];
    if (format_unit_absent(ps->env->dla, ref.unit, absent, sizeof absent)) {
        snprintf(msg, sizeof msg, "%s: %s", name, absent); /* it would read 0: no value it has */
        fail(ps, "%s", msg);
        return 0;
    }
    enum dla_unit u = dla_unit_of(ps->env->dla, ref.unit);
    if (group < 0)
        group = ref.reg->dual ? dla_producer_group(ps->env->dla, u) : 0;
    uint32_t v = dla_reg_value(ps->env->dla, u, group, ref.reg->offset);
    if (ref.field) {
        ps->enum_field = ref.field;
        return regdb_field_get(ref.field, v);
    }
    return v;
}

/* One level deeper; false (with the message) past EXPR_MAX_DEPTH. */
static bool descend(struct parser *ps)
{
    if (ps->depth >= EXPR_MAX_DEPTH) {
        char what[64];
        snprintf(what, sizeof what, "%d", EXPR_MAX_DEPTH);
        fail(ps, "expression nested too deep (at most %s levels of parentheses and unary operators)",
             what);
        return false;
    }
    ps->depth++;
    return true;
}

static int64_t primary(struct parser *ps)
{
    skip_space(ps);
    char c = *ps->p;
    if (accept(ps, "(")) {
        if (!descend(ps))
            return 0;
        int64_t v = parse_expr(ps);
        ps->depth--;
        if (!accept(ps, ")"))
            fail(ps, "missing \")\"%s", "");
        return v;
    }
    if (isdigit((unsigned char)c))
        return number(ps);
    if (c == '$')
        return variable(ps);
    if (isalpha((unsigned char)c) || c == '_')
        return name_ref(ps);
    fail(ps, c ? "unexpected \"%.10s\"" : "expression ends too early%s", ps->p);
    return 0;
}

static int64_t unary(struct parser *ps);

/* The operand of a unary operator, one level deeper. */
static int64_t unary_operand(struct parser *ps)
{
    if (!descend(ps))
        return 0;
    int64_t v = unary(ps);
    ps->depth--;
    return v;
}

static int64_t unary(struct parser *ps)
{
    if (ps->failed)
        return 0;
    if (accept(ps, "-"))
        return (int64_t)(0 - (uint64_t)unary_operand(ps));
    if (accept(ps, "~"))
        return ~unary_operand(ps);
    if (accept(ps, "!"))
        return !unary_operand(ps);
    if (accept(ps, "+"))
        return unary_operand(ps);
    return primary(ps);
}

static int64_t multiplicative(struct parser *ps)
{
    int64_t v = unary(ps);
    for (;;) {
        if (accept(ps, "*")) {
            v = (int64_t)((uint64_t)v * (uint64_t)unary(ps));
        } else if (accept(ps, "/") || accept(ps, "%")) {
            bool mod = ps->p[-1] == '%';
            int64_t r = unary(ps);
            if (r == 0) {
                fail(ps, "division by zero%s", "");
                return 0;
            }
            if (r == -1)
                v = mod ? 0 : (int64_t)(0 - (uint64_t)v); /* INT64_MIN / -1 overflows */
            else
                v = mod ? v % r : v / r;
        } else {
            return v;
        }
    }
}

static int64_t additive(struct parser *ps)
{
    int64_t v = multiplicative(ps);
    for (;;) {
        if (accept(ps, "+"))
            v = (int64_t)((uint64_t)v + (uint64_t)multiplicative(ps));
        else if (accept(ps, "-"))
            v = (int64_t)((uint64_t)v - (uint64_t)multiplicative(ps));
        else
            return v;
    }
}

static int64_t shift(struct parser *ps)
{
    int64_t v = additive(ps);
    for (;;) {
        bool left = accept(ps, "<<");
        if (!left && !accept(ps, ">>"))
            return v;
        int64_t n = additive(ps);
        if (n < 0 || n > 63)
            v = 0;
        else
            v = left ? (int64_t)((uint64_t)v << n) : (int64_t)((uint64_t)v >> n);
    }
}

static int64_t relational(struct parser *ps)
{
    int64_t v = shift(ps);
    for (;;) {
        if (accept(ps, "<="))
            v = v <= shift(ps);
        else if (accept(ps, ">="))
            v = v >= shift(ps);
        else if (accept(ps, "<"))
            v = v < shift(ps);
        else if (accept(ps, ">"))
            v = v > shift(ps);
        else
            return v;
    }
}

static int64_t equality(struct parser *ps)
{
    ps->enum_field = NULL;
    int64_t v = relational(ps);
    for (;;) {
        if (accept(ps, "=="))
            v = v == relational(ps);
        else if (accept(ps, "!="))
            v = v != relational(ps);
        else
            return v;
    }
}

static int64_t bit_and(struct parser *ps)
{
    int64_t v = equality(ps);
    while (accept(ps, "&"))
        v &= equality(ps);
    return v;
}

static int64_t bit_xor(struct parser *ps)
{
    int64_t v = bit_and(ps);
    while (accept(ps, "^"))
        v ^= bit_and(ps);
    return v;
}

static int64_t bit_or(struct parser *ps)
{
    int64_t v = bit_xor(ps);
    while (accept(ps, "|"))
        v |= bit_xor(ps);
    return v;
}

static int64_t logical_and(struct parser *ps)
{
    int64_t v = bit_or(ps);
    while (accept(ps, "&&")) {
        int64_t r = bit_or(ps); /* always parsed: errors are found whatever the value */
        v = v && r;
    }
    return v;
}

static int64_t parse_expr(struct parser *ps)
{
    int64_t v = logical_and(ps);
    while (accept(ps, "||")) {
        int64_t r = logical_and(ps);
        v = v || r;
    }
    return v;
}

bool expr_eval(const char *text, const struct expr_env *env, int64_t *out, char *err, size_t errlen)
{
    struct parser ps = {.p = text, .env = env, .err = err, .errlen = errlen};
    int64_t v = parse_expr(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p)
        fail(&ps, "unexpected \"%.20s\"", ps.p);
    if (ps.failed)
        return false;
    *out = v;
    return true;
}
