/* regdb_gen: turn the register database text files (share/regdb/<map>.regs) into
 * the C tables behind sim/core/regdb.h.
 *
 *     regdb_gen OUT.c FILE.regs...
 *
 * The .regs format is documented at the top of every .regs file.  Parsing is
 * strict on purpose: the files are the single source of truth for every
 * register the simulator models, so a typo must stop the build (exit status 2,
 * "file:line: what was expected") rather than silently produce a wrong mask.
 * Besides syntax the generator checks that the facts are consistent with each
 * other (aligned, unique offsets; fields that neither overlap nor exceed 32
 * bits; resets and enum values that fit their fields; register resets equal to
 * their fields' resets) and derives what the simulator needs at run time:
 * CSB write and read masks, the dual (ping-pong) flag, sorted tables.
 *
 * Standalone C11, no dependencies; memory is never freed because the process
 * only lives for one build step.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_SIZE 0x1000u /* every unit decodes a 4 KiB window */
#define MAX_LINE    4096
#define MAX_TOKENS  16

/* Exit statuses: 2 for anything wrong in the input, 1 for the environment. */
#define EXIT_BAD_INPUT 2
#define EXIT_IO        1

enum access { ACC_RW, ACC_RO, ACC_WO, ACC_W1C, ACC_COUNT };

static const char *const access_token[ACC_COUNT] = {"rw", "ro", "wo", "w1c"};
static const char *const access_enumerator[ACC_COUNT] = {"REGDB_RW", "REGDB_RO", "REGDB_WO",
                                                         "REGDB_W1C"};

struct enum_value {
    char *name;
    uint32_t value;
};

struct field {
    char *name;
    unsigned msb, lsb;
    enum access access;
    uint32_t reset;
    struct enum_value *enums;
    size_t n_enums;
};

struct reg {
    char *name;
    uint32_t offset;
    enum access access;
    uint32_t reset;
    struct field *fields;
    size_t n_fields, cap_fields;
    unsigned line; /* where the reg statement is, for consistency errors */
};

struct unit {
    char *name;
    char *alias; /* NULL when none */
    uint32_t base;
    bool has_op_enable;
    uint32_t op_enable;
    struct reg *regs;
    size_t n_regs, cap_regs;
    unsigned line;
};

struct map {
    char *name;
    const char *file;
    unsigned line;
    struct unit *units;
    size_t n_units, cap_units;
};

static struct map *maps;
static size_t n_maps, cap_maps;

/* ------------------------------------------------------------------ errors */

static _Noreturn void fail_at(const char *file, unsigned line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%u: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(EXIT_BAD_INPUT);
}

static _Noreturn void fail_io(const char *what, const char *path)
{
    fprintf(stderr, "regdb_gen: cannot %s %s\n", what, path);
    exit(EXIT_IO);
}

/* ----------------------------------------------------------------- helpers */

static void *grow(void *array, size_t *cap, size_t needed, size_t elem_size)
{
    if (needed <= *cap)
        return array;
    size_t new_cap = *cap ? *cap * 2 : 16;
    while (new_cap < needed)
        new_cap *= 2;
    void *p = realloc(array, new_cap * elem_size);
    if (!p) {
        fputs("regdb_gen: out of memory\n", stderr);
        exit(EXIT_IO);
    }
    *cap = new_cap;
    return p;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) {
        fputs("regdb_gen: out of memory\n", stderr);
        exit(EXIT_IO);
    }
    return memcpy(p, s, n);
}

static int lower_ascii(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Lookups at run time ignore case, so uniqueness is checked the same way. */
static bool same_name(const char *a, const char *b)
{
    while (*a && lower_ascii((unsigned char)*a) == lower_ascii((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

static bool is_identifier(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    }
    return true;
}

static int digit_value(char c, unsigned base)
{
    int v = -1;
    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
    return (v >= 0 && (unsigned)v < base) ? v : -1;
}

/* Decimal or 0x-hex, nothing else: no sign, no octal, no trailing junk, and
 * no silent wrap-around above 32 bits (strtoul would allow all of those). */
static bool parse_u32(const char *s, uint32_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (*s == '\0')
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int d = digit_value(*s, base);
        if (d < 0)
            return false;
        v = v * base + (unsigned)d;
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

static bool parse_access(const char *s, enum access *out)
{
    for (int a = 0; a < ACC_COUNT; a++) {
        if (strcmp(s, access_token[a]) == 0) {
            *out = (enum access)a;
            return true;
        }
    }
    return false;
}

static uint32_t field_mask(unsigned msb, unsigned lsb)
{
    unsigned width = msb - lsb + 1;
    uint32_t low = width >= 32 ? UINT32_MAX : ((UINT32_C(1) << width) - 1);
    return low << lsb;
}

static bool fits_width(uint32_t value, unsigned msb, unsigned lsb)
{
    return (value & ~(field_mask(msb, lsb) >> lsb)) == 0;
}

/* ------------------------------------------------------------------ parser */

struct parser {
    const char *file;
    unsigned line;
    struct map *map; /* NULL until the file's map statement */
};

/* A "key=value" option token: returns the value when tok starts with key=. */
static char *option_value(char *tok, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(tok, key, n) == 0 && tok[n] == '=')
        return tok + n + 1;
    return NULL;
}

static struct unit *current_unit(struct parser *p)
{
    return p->map && p->map->n_units ? &p->map->units[p->map->n_units - 1] : NULL;
}

static struct reg *current_reg(struct parser *p)
{
    struct unit *u = current_unit(p);
    return u && u->n_regs ? &u->regs[u->n_regs - 1] : NULL;
}

static void expect_identifier(struct parser *p, const char *tok, const char *what)
{
    if (!is_identifier(tok))
        fail_at(p->file, p->line, "expected %s (a C identifier), found '%s'", what, tok);
}

static uint32_t expect_number(struct parser *p, const char *tok, const char *what)
{
    uint32_t v;
    if (!parse_u32(tok, &v))
        fail_at(p->file, p->line, "expected %s (decimal or 0x hex, 32 bits), found '%s'", what,
                tok);
    return v;
}

static enum access expect_access(struct parser *p, const char *tok)
{
    enum access a;
    if (!parse_access(tok, &a))
        fail_at(p->file, p->line, "expected an access (rw, ro, wo or w1c), found '%s'", tok);
    return a;
}

/* reset=VALUE as the one mandatory option of reg and field statements. */
static uint32_t expect_reset(struct parser *p, char *tok)
{
    const char *v = option_value(tok, "reset");
    if (!v)
        fail_at(p->file, p->line, "expected reset=VALUE, found '%s'", tok);
    return expect_number(p, v, "a reset value");
}

static void parse_map(struct parser *p, char **tok, int n_tok)
{
    if (p->map)
        fail_at(p->file, p->line, "a second map statement; one file describes one map");
    if (n_tok != 2)
        fail_at(p->file, p->line, "expected 'map NAME'");
    expect_identifier(p, tok[1], "a map name");
    for (size_t i = 0; i < n_maps; i++) {
        if (same_name(maps[i].name, tok[1]))
            fail_at(p->file, p->line, "map %s is already defined by %s", tok[1], maps[i].file);
    }
    maps = grow(maps, &cap_maps, n_maps + 1, sizeof *maps);
    p->map = &maps[n_maps++];
    *p->map = (struct map){.name = copy_string(tok[1]), .file = p->file, .line = p->line};
}

static void parse_unit(struct parser *p, char **tok, int n_tok)
{
    if (n_tok < 3)
        fail_at(p->file, p->line, "expected 'unit NAME BASE [opena=OFFSET] [alias=NAME]'");
    struct unit u = {.line = p->line};
    expect_identifier(p, tok[1], "a unit name");
    u.name = copy_string(tok[1]);
    u.base = expect_number(p, tok[2], "a unit base address");
    if (u.base % WINDOW_SIZE)
        fail_at(p->file, p->line, "expected a unit base aligned to 4 KiB, found 0x%x", u.base);
    for (int i = 3; i < n_tok; i++) {
        const char *v;
        if ((v = option_value(tok[i], "opena")) != NULL && !u.has_op_enable) {
            u.op_enable = expect_number(p, v, "the offset of D_OP_ENABLE");
            if (u.op_enable % 4 || u.op_enable >= WINDOW_SIZE)
                fail_at(p->file, p->line,
                        "expected opena to be a 4-aligned offset below 0x1000, found 0x%x",
                        u.op_enable);
            u.has_op_enable = true;
        } else if ((v = option_value(tok[i], "alias")) != NULL && !u.alias) {
            expect_identifier(p, v, "a unit alias");
            u.alias = copy_string(v);
        } else {
            fail_at(p->file, p->line, "expected opena=OFFSET or alias=NAME (each once), found '%s'",
                    tok[i]);
        }
    }
    p->map->units = grow(p->map->units, &p->map->cap_units, p->map->n_units + 1, sizeof u);
    p->map->units[p->map->n_units++] = u;
}

static void parse_reg(struct parser *p, char **tok, int n_tok)
{
    struct unit *u = current_unit(p);
    if (!u)
        fail_at(p->file, p->line, "a reg statement before any unit statement");
    if (n_tok != 5)
        fail_at(p->file, p->line, "expected 'reg OFFSET NAME ACCESS reset=VALUE'");
    struct reg r = {.line = p->line};
    r.offset = expect_number(p, tok[1], "a register offset");
    if (r.offset % 4 || r.offset >= WINDOW_SIZE)
        fail_at(p->file, p->line,
                "expected a 4-aligned register offset below 0x1000 (the unit window), found 0x%x",
                r.offset);
    expect_identifier(p, tok[2], "a register name");
    r.name = copy_string(tok[2]);
    r.access = expect_access(p, tok[3]);
    r.reset = expect_reset(p, tok[4]);
    for (size_t i = 0; i < u->n_regs; i++) {
        if (u->regs[i].offset == r.offset)
            fail_at(p->file, p->line, "offset 0x%03x of %s is already used by %s in unit %s",
                    r.offset, r.name, u->regs[i].name, u->name);
        if (same_name(u->regs[i].name, r.name))
            fail_at(p->file, p->line, "register %s appears twice in unit %s", r.name, u->name);
    }
    u->regs = grow(u->regs, &u->cap_regs, u->n_regs + 1, sizeof r);
    u->regs[u->n_regs++] = r;
}

static void parse_range(struct parser *p, const char *tok, unsigned *msb, unsigned *lsb)
{
    char buf[32];
    const char *colon = strchr(tok, ':');
    uint32_t hi, lo;
    if (!colon || (size_t)(colon - tok) >= sizeof buf)
        fail_at(p->file, p->line, "expected a bit range MSB:LSB, found '%s'", tok);
    memcpy(buf, tok, (size_t)(colon - tok));
    buf[colon - tok] = '\0';
    if (!parse_u32(buf, &hi) || !parse_u32(colon + 1, &lo) || hi > 31 || lo > hi)
        fail_at(p->file, p->line, "expected a bit range MSB:LSB with 31 >= MSB >= LSB, found '%s'",
                tok);
    *msb = hi;
    *lsb = lo;
}

/* enum=NAME:VALUE,NAME:VALUE,... ; the list is parsed in place. */
static void parse_enums(struct parser *p, char *list, struct field *f)
{
    size_t cap = 0;
    char *item = list;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        char *colon = strchr(item, ':');
        if (!colon)
            fail_at(p->file, p->line, "expected NAME:VALUE in the enum list, found '%s'", item);
        *colon = '\0';
        expect_identifier(p, item, "an enum value name");
        uint32_t value = expect_number(p, colon + 1, "an enum value");
        if (!fits_width(value, f->msb, f->lsb))
            fail_at(p->file, p->line, "enum %s=%u does not fit field %s (%u:%u)", item, value,
                    f->name, f->msb, f->lsb);
        for (size_t i = 0; i < f->n_enums; i++) {
            if (same_name(f->enums[i].name, item))
                fail_at(p->file, p->line, "enum name %s appears twice in field %s", item, f->name);
        }
        f->enums = grow(f->enums, &cap, f->n_enums + 1, sizeof *f->enums);
        f->enums[f->n_enums++] = (struct enum_value){copy_string(item), value};
        if (!comma)
            break;
        item = comma + 1;
    }
}

static void parse_field(struct parser *p, char **tok, int n_tok)
{
    struct reg *r = current_reg(p);
    if (!r)
        fail_at(p->file, p->line, "a field statement before any reg statement of its unit");
    if (n_tok != 5 && n_tok != 6)
        fail_at(p->file, p->line,
                "expected 'field NAME MSB:LSB ACCESS reset=VALUE [enum=NAME:VALUE,...]'");
    struct field f = {0};
    expect_identifier(p, tok[1], "a field name");
    f.name = copy_string(tok[1]);
    parse_range(p, tok[2], &f.msb, &f.lsb);
    f.access = expect_access(p, tok[3]);
    f.reset = expect_reset(p, tok[4]);
    if (!fits_width(f.reset, f.msb, f.lsb))
        fail_at(p->file, p->line, "reset 0x%x does not fit field %s (%u:%u)", f.reset, f.name,
                f.msb, f.lsb);
    if (n_tok == 6) {
        char *list = option_value(tok[5], "enum");
        if (!list)
            fail_at(p->file, p->line, "expected enum=NAME:VALUE,..., found '%s'", tok[5]);
        parse_enums(p, list, &f);
    }
    uint32_t mask = field_mask(f.msb, f.lsb);
    for (size_t i = 0; i < r->n_fields; i++) {
        const struct field *g = &r->fields[i];
        if (same_name(g->name, f.name))
            fail_at(p->file, p->line, "field %s appears twice in register %s", f.name, r->name);
        if (field_mask(g->msb, g->lsb) & mask)
            fail_at(p->file, p->line, "field %s (%u:%u) overlaps field %s (%u:%u) of %s", f.name,
                    f.msb, f.lsb, g->name, g->msb, g->lsb, r->name);
    }
    r->fields = grow(r->fields, &r->cap_fields, r->n_fields + 1, sizeof f);
    r->fields[r->n_fields++] = f;
}

/* Split at spaces and tabs after cutting the comment; tokens point into line. */
static int tokenize(struct parser *p, char *line, char **tok)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            break;
        if (n == MAX_TOKENS)
            fail_at(p->file, p->line, "too many tokens on one line (at most %d)", MAX_TOKENS);
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
    return n;
}

static void check_printable(struct parser *p, const char *line)
{
    for (const char *s = line; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c != '\t' && (c < 0x20 || c > 0x7e))
            fail_at(p->file, p->line, "unexpected byte 0x%02x (only printable ASCII is allowed)",
                    c);
    }
}

static void parse_statement(struct parser *p, char **tok, int n_tok)
{
    if (strcmp(tok[0], "map") == 0) {
        parse_map(p, tok, n_tok);
        return;
    }
    if (!p->map)
        fail_at(p->file, p->line, "expected 'map NAME' before any other statement, found '%s'",
                tok[0]);
    if (strcmp(tok[0], "unit") == 0)
        parse_unit(p, tok, n_tok);
    else if (strcmp(tok[0], "reg") == 0)
        parse_reg(p, tok, n_tok);
    else if (strcmp(tok[0], "field") == 0)
        parse_field(p, tok, n_tok);
    else
        fail_at(p->file, p->line, "expected map, unit, reg or field, found '%s'", tok[0]);
}

static void parse_file(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in)
        fail_io("read", path);
    struct parser p = {.file = path};
    char line[MAX_LINE];
    while (fgets(line, sizeof line, in)) {
        p.line++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(in))
            fail_at(path, p.line, "line longer than %d characters", MAX_LINE - 2);
        if (len && line[len - 1] == '\r') /* tolerate files saved with CRLF */
            line[--len] = '\0';
        check_printable(&p, line);
        char *tok[MAX_TOKENS];
        int n_tok = tokenize(&p, line, tok);
        if (n_tok)
            parse_statement(&p, tok, n_tok);
    }
    if (ferror(in))
        fail_io("read", path);
    fclose(in);
    if (!p.map)
        fail_at(path, p.line ? p.line : 1, "expected a 'map NAME' statement; the file has none");
}

/* ------------------------------------------------------- consistency rules */

/* The register access the fields imply (see the format notes in .regs). */
static enum access summary_access(const struct reg *r)
{
    bool all_ro = true, all_wo = true;
    for (size_t i = 0; i < r->n_fields; i++) {
        if (r->fields[i].access == ACC_W1C)
            return ACC_W1C;
        all_ro = all_ro && r->fields[i].access == ACC_RO;
        all_wo = all_wo && r->fields[i].access == ACC_WO;
    }
    return all_ro ? ACC_RO : all_wo ? ACC_WO : ACC_RW;
}

static uint32_t composed_reset(const struct reg *r)
{
    uint32_t v = 0;
    for (size_t i = 0; i < r->n_fields; i++)
        v |= r->fields[i].reset << r->fields[i].lsb;
    return v;
}

static uint32_t mask_of_fields(const struct reg *r, bool (*wanted)(enum access))
{
    uint32_t m = 0;
    for (size_t i = 0; i < r->n_fields; i++) {
        if (wanted(r->fields[i].access))
            m |= field_mask(r->fields[i].msb, r->fields[i].lsb);
    }
    return m;
}

static bool is_writable(enum access a)
{
    return a != ACC_RO;
}

static bool is_readable(enum access a)
{
    return a != ACC_WO;
}

static bool is_any(enum access a)
{
    (void)a;
    return true;
}

static void check_reg(const struct map *m, const struct unit *u, const struct reg *r)
{
    if (r->n_fields == 0)
        fail_at(m->file, r->line, "register %s.%s has no field lines", u->name, r->name);
    uint32_t all = mask_of_fields(r, is_any);
    if (r->reset & ~all)
        fail_at(m->file, r->line, "reset 0x%08x of %s.%s has bits outside its fields (0x%08x)",
                r->reset, u->name, r->name, all);
    uint32_t fields_reset = composed_reset(r);
    if (r->reset != fields_reset)
        fail_at(m->file, r->line, "reset 0x%08x of %s.%s differs from its fields' resets (0x%08x)",
                r->reset, u->name, r->name, fields_reset);
    enum access implied = summary_access(r);
    if (r->access != implied)
        fail_at(m->file, r->line, "access %s of %s.%s contradicts its fields, which make it %s",
                access_token[r->access], u->name, r->name, access_token[implied]);
}

static void check_unit(const struct map *m, const struct unit *u)
{
    if (u->n_regs == 0)
        fail_at(m->file, u->line, "unit %s has no registers", u->name);
    for (size_t i = 0; i < u->n_regs; i++)
        check_reg(m, u, &u->regs[i]);
    if (!u->has_op_enable)
        return;
    for (size_t i = 0; i < u->n_regs; i++) {
        if (u->regs[i].offset == u->op_enable) {
            if (strcmp(u->regs[i].name, "D_OP_ENABLE") != 0)
                fail_at(m->file, u->line, "opena=0x%03x of unit %s names %s, not D_OP_ENABLE",
                        u->op_enable, u->name, u->regs[i].name);
            return;
        }
    }
    fail_at(m->file, u->line, "opena=0x%03x of unit %s is not the offset of any register",
            u->op_enable, u->name);
}

/* Unit names and aliases share one namespace, and windows must not overlap. */
static void check_map(const struct map *m)
{
    if (m->n_units == 0)
        fail_at(m->file, m->line, "map %s has no units", m->name);
    for (size_t i = 0; i < m->n_units; i++) {
        const struct unit *u = &m->units[i];
        check_unit(m, u);
        for (size_t j = 0; j < i; j++) {
            const struct unit *v = &m->units[j];
            if (u->base == v->base)
                fail_at(m->file, u->line, "unit %s has the same base 0x%05x as unit %s", u->name,
                        u->base, v->name);
            const char *u_names[2] = {u->name, u->alias};
            const char *v_names[2] = {v->name, v->alias};
            for (int a = 0; a < 2; a++) {
                for (int b = 0; b < 2; b++) {
                    if (u_names[a] && v_names[b] && same_name(u_names[a], v_names[b]))
                        fail_at(m->file, u->line, "unit name %s is already used by unit %s",
                                u_names[a], v->name);
                }
            }
        }
    }
}

/* ----------------------------------------------------------------- sorting */

static int by_offset(const void *a, const void *b)
{
    const struct reg *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static int by_base(const void *a, const void *b)
{
    const struct unit *x = a, *y = b;
    return (x->base > y->base) - (x->base < y->base);
}

static int by_lsb(const void *a, const void *b)
{
    const struct field *x = a, *y = b;
    return (x->lsb > y->lsb) - (x->lsb < y->lsb);
}

/* Lookups binary-search units by base and registers by offset; fields are
 * listed from bit 0 up so that printed registers read naturally. */
static void sort_map(struct map *m)
{
    qsort(m->units, m->n_units, sizeof *m->units, by_base);
    for (size_t i = 0; i < m->n_units; i++) {
        struct unit *u = &m->units[i];
        qsort(u->regs, u->n_regs, sizeof *u->regs, by_offset);
        for (size_t j = 0; j < u->n_regs; j++)
            qsort(u->regs[j].fields, u->regs[j].n_fields, sizeof *u->regs[j].fields, by_lsb);
    }
}

/* ------------------------------------------------------------------ output */

/* Table names are positional (map, unit, register, field indexes) so that no
 * combination of register names can collide; a comment names each table. */
static void emit_enums(FILE *out, size_t mi, size_t ui, size_t ri, size_t fi, const struct field *f)
{
    fprintf(out, "static const struct regdb_enum enums_%zu_%zu_%zu_%zu[] = {\n", mi, ui, ri, fi);
    for (size_t i = 0; i < f->n_enums; i++)
        fprintf(out, "    {.name = \"%s\", .value = %" PRIu32 "u},\n", f->enums[i].name,
                f->enums[i].value);
    fputs("};\n", out);
}

static void emit_fields(FILE *out, size_t mi, size_t ui, size_t ri, const struct map *m,
                        const struct unit *u, const struct reg *r)
{
    for (size_t fi = 0; fi < r->n_fields; fi++) {
        if (r->fields[fi].n_enums)
            emit_enums(out, mi, ui, ri, fi, &r->fields[fi]);
    }
    fprintf(out, "/* %s %s.%s */\n", m->name, u->name, r->name);
    fprintf(out, "static const struct regdb_field fields_%zu_%zu_%zu[] = {\n", mi, ui, ri);
    for (size_t fi = 0; fi < r->n_fields; fi++) {
        const struct field *f = &r->fields[fi];
        fprintf(out,
                "    {.name = \"%s\", .lsb = %u, .msb = %u, .access = %s, .reset = 0x%" PRIx32
                "u, .n_enums = %zu, ",
                f->name, f->lsb, f->msb, access_enumerator[f->access], f->reset, f->n_enums);
        if (f->n_enums)
            fprintf(out, ".enums = enums_%zu_%zu_%zu_%zu},\n", mi, ui, ri, fi);
        else
            fputs(".enums = NULL},\n", out);
    }
    fputs("};\n", out);
}

static void emit_regs(FILE *out, size_t mi, size_t ui, const struct map *m, const struct unit *u)
{
    for (size_t ri = 0; ri < u->n_regs; ri++)
        emit_fields(out, mi, ui, ri, m, u, &u->regs[ri]);
    fprintf(out, "/* %s %s */\n", m->name, u->name);
    fprintf(out, "static const struct regdb_reg regs_%zu_%zu[] = {\n", mi, ui);
    for (size_t ri = 0; ri < u->n_regs; ri++) {
        const struct reg *r = &u->regs[ri];
        bool dual = u->has_op_enable && r->offset >= u->op_enable;
        fprintf(out,
                "    {.name = \"%s\", .offset = 0x%03" PRIx32 ", .access = %s, .dual = %s, "
                ".reset = 0x%08" PRIx32 "u, .write_mask = 0x%08" PRIx32
                "u, .read_mask = 0x%08" PRIx32
                "u, .n_fields = %zu, .fields = fields_%zu_%zu_%zu},\n",
                r->name, r->offset, access_enumerator[r->access], dual ? "true" : "false", r->reset,
                mask_of_fields(r, is_writable), mask_of_fields(r, is_readable), r->n_fields, mi, ui,
                ri);
    }
    fputs("};\n\n", out);
}

static void emit_map(FILE *out, size_t mi, const struct map *m)
{
    for (size_t ui = 0; ui < m->n_units; ui++)
        emit_regs(out, mi, ui, m, &m->units[ui]);
    fprintf(out, "/* map %s (%s) */\n", m->name, m->file);
    fprintf(out, "static const struct regdb_unit units_%zu[] = {\n", mi);
    for (size_t ui = 0; ui < m->n_units; ui++) {
        const struct unit *u = &m->units[ui];
        fprintf(out, "    {.name = \"%s\", .alias = ", u->name);
        if (u->alias)
            fprintf(out, "\"%s\"", u->alias);
        else
            fputs("NULL", out);
        fprintf(out,
                ", .base = 0x%05" PRIx32 "u, .op_enable = 0x%04" PRIx32
                ", .n_regs = %zu, .regs = regs_%zu_%zu},\n",
                u->base, u->has_op_enable ? u->op_enable : UINT32_C(0xffff), u->n_regs, mi, ui);
    }
    fputs("};\n\n", out);
}

static void emit(FILE *out, char **files, int n_files)
{
    fputs("/* Generated by sim/gen/regdb_gen.c from", out);
    for (int i = 0; i < n_files; i++)
        fprintf(out, " %s", files[i]);
    fputs(".\n * Do not edit: change the .regs files instead. */\n", out);
    fputs("#include \"core/regdb_tables.h\"\n\n", out);
    for (size_t mi = 0; mi < n_maps; mi++)
        emit_map(out, mi, &maps[mi]);
    fputs("const struct regdb_map regdb_maps[] = {\n", out);
    for (size_t mi = 0; mi < n_maps; mi++)
        fprintf(out, "    {.name = \"%s\", .n_units = %zu, .units = units_%zu},\n", maps[mi].name,
                maps[mi].n_units, mi);
    fputs("};\n", out);
    fprintf(out, "const size_t regdb_n_maps = %zu;\n", n_maps);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: regdb_gen OUT.c FILE.regs...\n", stderr);
        return EXIT_BAD_INPUT;
    }
    for (int i = 2; i < argc; i++)
        parse_file(argv[i]);
    for (size_t i = 0; i < n_maps; i++) {
        check_map(&maps[i]);
        sort_map(&maps[i]);
    }
    FILE *out = fopen(argv[1], "w");
    if (!out)
        fail_io("write", argv[1]);
    emit(out, argv + 2, argc - 2);
    if (fflush(out) != 0 || ferror(out) || fclose(out) != 0)
        fail_io("write", argv[1]);
    return 0;
}
