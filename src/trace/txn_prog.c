/* Parsing input.txn into packed commands (txn_prog.h). */
#include "txn_prog.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "util/textfile.h"

/* A command as kept: arg is a write's or until's value, a read's index in
 * masked[], a memory command's index in files[]. */
struct packed {
    uint32_t arg;
    uint16_t word; /* CSB word address, its 0xffff upper half dropped */
    uint8_t op;
};
_Static_assert(sizeof(struct packed) == 8, "a packed command grew past 8 bytes");

struct masked {
    uint32_t value, mask;
};

struct mem_file {
    uint64_t mem_addr, size;
    char *name;
};

/* Commands from `first` on sit on consecutive lines from `line`. */
struct line_run {
    size_t first;
    unsigned line;
};

struct txn_prog {
    const char *path; /* for messages while parsing */
    size_t n, cap;
    struct packed *cmd;
    size_t n_masked, cap_masked;
    struct masked *masked;
    size_t n_files, cap_files;
    struct mem_file *files;
    size_t n_runs, cap_runs;
    struct line_run *runs;
    size_t name_bytes; /* of the file names */
};

struct operand_spec {
    const char *name;
    int count;
    const char *usage;
};

static const struct operand_spec specs[TXN_OP_COUNT] = {
    [TXN_WRITE] = {"write_reg", 2, "write_reg ADDR DATA"},
    [TXN_READ] = {"read_reg", 3, "read_reg ADDR MASK EXPECTED"},
    [TXN_WAIT] = {"wait", 0, "wait"},
    [TXN_UNTIL] = {"until", 2, "until ADDR VALUE"},
    [TXN_LOAD] = {"load_mem", 3, "load_mem ADDR SIZE FILE"},
    [TXN_DUMP] = {"dump_mem", 3, "dump_mem ADDR SIZE FILE"},
};

const char *txn_op_name(enum txn_op op)
{
    return op < TXN_OP_COUNT ? specs[op].name : "?";
}

/* Room for one more element of *v (n of cap, each size bytes), grown by half
 * at a time; false when there is no memory. */
static bool reserve(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap + *cap / 2 : 64;
    void *g = realloc(*v, c * size);
    if (!g)
        return false;
    *v = g;
    *cap = c;
    return true;
}

/* A parsed trace holds no spare room (a million layers' trace would keep a
 * third of its commands' memory idle). */
static void shrink(void **v, size_t n, size_t *cap, size_t size)
{
    if (n == *cap || n == 0)
        return;
    void *g = realloc(*v, n * size);
    if (g) {
        *v = g;
        *cap = n;
    }
}

static bool note_line(struct txn_prog *p, unsigned line)
{
    if (p->n_runs) {
        const struct line_run *r = &p->runs[p->n_runs - 1];
        if (r->line + (p->n - r->first) == line)
            return true;
    }
    if (!reserve((void **)&p->runs, p->n_runs, &p->cap_runs, sizeof *p->runs))
        return false;
    p->runs[p->n_runs++] = (struct line_run){.first = p->n, .line = line};
    return true;
}

static int fail(const struct txn_prog *p, unsigned line, char *err, size_t errlen,
                const struct operand_spec *sp, const char *what)
{
    snprintf(err, errlen, "%s:%u: expected \"%s\"%s", p->path, line, sp->usage, what);
    return -1;
}

/* The operands of a register command: its word address and arg. */
static int reg_operands(struct txn_prog *p, enum txn_op op, char **tok, unsigned line,
                        struct packed *c, char *err, size_t errlen)
{
    const struct operand_spec *sp = &specs[op];
    uint32_t word, a, b = 0;
    bool ok = trace_parse_u32(tok[0], &word) && trace_parse_u32(tok[1], &a) &&
              (op != TXN_READ || trace_parse_u32(tok[2], &b));
    if (!ok)
        return fail(p, line, err, errlen, sp, " with 0x-hex or decimal numbers");
    /* the traceplayer's register addresses are 0xffffNNNN: other upper
     * bits would be dropped by the conversion, so they are an error */
    if (word >> 16 != 0xffffu) {
        snprintf(err, errlen, "%s:%u: expected a CSB word address 0xffffNNNN in \"%s\", found 0x%08x",
                 p->path, line, sp->usage, word);
        return -1;
    }
    c->word = (uint16_t)word;
    c->arg = a;
    if (op == TXN_READ) {
        if (!reserve((void **)&p->masked, p->n_masked, &p->cap_masked, sizeof *p->masked)) {
            snprintf(err, errlen, "%s: out of memory", p->path);
            return -1;
        }
        p->masked[p->n_masked] = (struct masked){.mask = a, .value = b};
        c->arg = (uint32_t)p->n_masked++;
    }
    return 0;
}

static int mem_operands(struct txn_prog *p, enum txn_op op, char **tok, unsigned line,
                        struct packed *c, char *err, size_t errlen)
{
    struct mem_file f = {0};
    bool ok = trace_parse_u64(tok[0], &f.mem_addr) && trace_parse_u64(tok[1], &f.size) &&
              f.size > 0 && f.size <= (1ull << 32);
    if (!ok)
        return fail(p, line, err, errlen, &specs[op], " with 0x-hex or decimal numbers");
    if (!reserve((void **)&p->files, p->n_files, &p->cap_files, sizeof *p->files) ||
        !(f.name = strdup(tok[2]))) {
        snprintf(err, errlen, "%s: out of memory", p->path);
        return -1;
    }
    p->name_bytes += strlen(f.name) + 1;
    p->files[p->n_files] = f;
    c->arg = (uint32_t)p->n_files++;
    return 0;
}

/* What a byte of a line is to split_words. */
enum byte_kind { IN_WORD, BLANK, LINE_END };

static enum byte_kind byte_kind(char c)
{
    static const uint8_t kinds[256] = {[0] = LINE_END, ['#'] = LINE_END, [' '] = BLANK,
                                       ['\t'] = BLANK, ['\r'] = BLANK,   ['\n'] = BLANK};
    return (enum byte_kind)kinds[(unsigned char)c];
}

/* The line's words (a '#' starts a comment), at most max of them. */
static int split_words(char *line, char **tok, int max)
{
    int n = 0;
    for (char *s = line;;) {
        while (byte_kind(*s) == BLANK)
            s++;
        if (byte_kind(*s) == LINE_END)
            return n;
        char *w = s;
        while (byte_kind(*s) == IN_WORD)
            s++;
        bool more = byte_kind(*s) == BLANK;
        *s = 0;
        if (n < max)
            tok[n++] = w;
        if (!more)
            return n;
        s++;
    }
}

/* The command a word names, TXN_OP_COUNT for none (specs' names differ in
 * their first letter or two, so strcmp runs about once). */
static enum txn_op op_named(const char *word)
{
    for (int k = 0; k < TXN_OP_COUNT; k++)
        if (specs[k].name[0] == word[0] && strcmp(word, specs[k].name) == 0)
            return (enum txn_op)k;
    return TXN_OP_COUNT;
}

static int append(struct txn_prog *p, unsigned lineno, struct packed c, char *err, size_t errlen)
{
    if (!reserve((void **)&p->cmd, p->n, &p->cap, sizeof *p->cmd) || !note_line(p, lineno)) {
        snprintf(err, errlen, "%s: out of memory", p->path);
        return -1;
    }
    p->cmd[p->n++] = c;
    return 0;
}

/* s begins with word (a NUL in s is a mismatch: no byte past it is read). */
static bool begins_with(const char *s, const char *word)
{
    for (; *word; s++, word++)
        if (*s != *word)
            return false;
    return true;
}

static const char *skip_blanks(const char *s)
{
    while (byte_kind(*s) == BLANK)
        s++;
    return s;
}

/* The two shapes nearly every line of a trace has, "write_reg 0xADDR
 * 0xVALUE" and "wait", read in place, without splitting the line into words
 * first (the parse was a seventh of a run of a million one-line layers).
 * False for anything else (a comment, a decimal number, extra words, a
 * mistake): the general reading takes it, and words the messages. */
static bool parse_plain(const char *line, struct packed *c)
{
    const char *s = line;
    if (begins_with(s, "wait") && byte_kind(s[4]) != IN_WORD) {
        if (*skip_blanks(s + 4))
            return false;
        *c = (struct packed){.op = TXN_WAIT};
        return true;
    }
    uint64_t word, value;
    if (!begins_with(s, "write_reg") || byte_kind(s[9]) != BLANK)
        return false;
    s = skip_blanks(s + 9);
    if (!trace_scan_hex(&s, &word) || byte_kind(*s) != BLANK)
        return false;
    s = skip_blanks(s);
    if (!trace_scan_hex(&s, &value) || *skip_blanks(s))
        return false;
    if (word >> 16 != 0xffffu || value > 0xffffffffu)
        return false;
    *c = (struct packed){.op = TXN_WRITE, .word = (uint16_t)word, .arg = (uint32_t)value};
    return true;
}

static int parse_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct txn_prog *p = ctx;
    struct packed plain;
    if (parse_plain(line, &plain))
        return append(p, lineno, plain, err, errlen);
    char *tok[8];
    int n = split_words(line, tok, 8);
    if (n == 0)
        return 0;
    enum txn_op op = op_named(tok[0]);
    if (op == TXN_OP_COUNT) {
        snprintf(err, errlen,
                 "%s:%u: unknown command \"%s\" (expected write_reg, read_reg, wait, until, "
                 "load_mem or dump_mem)",
                 p->path, lineno, tok[0]);
        return -1;
    }
    const struct operand_spec *sp = &specs[op];
    int operands = n - 1;
    /* the traces append "misc bits" to write_reg; extra tokens are tolerated only there */
    if (operands < sp->count || (operands > sp->count && op != TXN_WRITE && op != TXN_LOAD)) {
        snprintf(err, errlen, "%s:%u: expected \"%s\" (%d operand%s), found %d", p->path, lineno,
                 sp->usage, sp->count, sp->count == 1 ? "" : "s", operands);
        return -1;
    }
    struct packed c = {.op = (uint8_t)op};
    int rc = 0;
    if (op == TXN_LOAD || op == TXN_DUMP)
        rc = mem_operands(p, op, tok + 1, lineno, &c, err, errlen);
    else if (op != TXN_WAIT)
        rc = reg_operands(p, op, tok + 1, lineno, &c, err, errlen);
    return rc == 0 ? append(p, lineno, c, err, errlen) : rc;
}

static _Atomic unsigned long long parses;

unsigned long long txn_prog_parses(void)
{
    return atomic_load_explicit(&parses, memory_order_relaxed);
}

struct txn_prog *txn_prog_parse(const char *path, char *err, size_t errlen)
{
    atomic_fetch_add_explicit(&parses, 1, memory_order_relaxed);
    struct txn_prog *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    p->path = path;
    if (textfile_each_line(path, parse_line, p, err, errlen) != 0) {
        txn_prog_free(p);
        return NULL;
    }
    p->path = NULL;
    shrink((void **)&p->cmd, p->n, &p->cap, sizeof *p->cmd);
    shrink((void **)&p->masked, p->n_masked, &p->cap_masked, sizeof *p->masked);
    shrink((void **)&p->files, p->n_files, &p->cap_files, sizeof *p->files);
    shrink((void **)&p->runs, p->n_runs, &p->cap_runs, sizeof *p->runs);
    return p;
}

void txn_prog_free(struct txn_prog *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_files; i++)
        free(p->files[i].name);
    free(p->files);
    free(p->masked);
    free(p->runs);
    free(p->cmd);
    free(p);
}

size_t txn_prog_count(const struct txn_prog *p)
{
    return p->n;
}

/* The line of command i: its run found by bisection. */
static unsigned line_of(const struct txn_prog *p, size_t i)
{
    size_t lo = 0, hi = p->n_runs; /* runs[lo].first <= i < runs[hi].first */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->runs[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return p->runs[lo].line + (unsigned)(i - p->runs[lo].first);
}

void txn_prog_get(const struct txn_prog *p, size_t i, struct txn_cmd *c)
{
    const struct packed *k = &p->cmd[i];
    *c = (struct txn_cmd){.op = (enum txn_op)k->op, .line = line_of(p, i)};
    switch (c->op) {
    case TXN_WRITE:
    case TXN_UNTIL:
        c->addr = (uint32_t)k->word << 2;
        c->value = k->arg;
        c->mask = 0xffffffffu;
        break;
    case TXN_READ:
        c->addr = (uint32_t)k->word << 2;
        c->value = p->masked[k->arg].value;
        c->mask = p->masked[k->arg].mask;
        break;
    case TXN_LOAD:
    case TXN_DUMP:
        c->mem_addr = p->files[k->arg].mem_addr;
        c->size = p->files[k->arg].size;
        c->file = p->files[k->arg].name;
        break;
    default:
        break;
    }
}

size_t txn_prog_bytes(const struct txn_prog *p)
{
    return sizeof *p + p->cap * sizeof *p->cmd + p->cap_masked * sizeof *p->masked +
           p->cap_files * sizeof *p->files + p->cap_runs * sizeof *p->runs + p->name_bytes;
}
