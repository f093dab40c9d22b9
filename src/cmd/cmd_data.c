/* Looking at and changing data: reg (show, poke), x (memory), dump, print (tensor:
 * cmd_tensor.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "util/afile.h"
#include "cmd_priv.h"
#include "debug/mem_regions.h"
#include "format.h"
#include "util/le_bytes.h"

#define X_MAX_BYTES 65536u

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    size_t k = 0;
    while (isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, strlen(s + k) + 1);
}

/* "NAME@G": the group suffix cut off into *group (-1 when absent).  Only
 * the D_ registers have groups, 0 and 1: any other suffix fails naming
 * what there is rather than showing some other copy. */
static bool take_group(struct dbg *d, struct cmd_args *a, char *name, int *group)
{
    *group = -1;
    char *at = strchr(name, '@');
    if (!at)
        return true;
    *at = 0;
    const char *g = at + 1;
    struct regdb_ref ref;
    if (!cmd_resolve_reg(d, a, name, &ref))
        return false;
    if (!ref.reg->dual) {
        cmd_fail(d, a, "%s.%s has no register groups (only D_ registers have groups 0 and 1)",
                 ref.unit->name, ref.reg->name);
        return false;
    }
    if ((g[0] != '0' && g[0] != '1') || g[1]) {
        cmd_fail(d, a, "no group \"%s\": %s has groups 0 and 1", g, ref.unit->name);
        return false;
    }
    *group = g[0] - '0';
    return true;
}

static void show_reg(struct dbg *d, const struct regdb_ref *ref, int group)
{
    struct dla *dla = session_dla(d->session);
    enum dla_unit u = dla_unit_of(dla, ref->unit);
    int g = ref->reg->dual ? (group >= 0 ? group : dla_producer_group(dla, u)) : 0;
    uint32_t v = dla_reg_value(dla, u, g, ref->reg->offset);
    char where[48] = "";
    if (ref->reg->dual)
        snprintf(where, sizeof where, " (group %d)", g);
    if (ref->field) {
        char line[256];
        format_field_line(ref->field, v, line, sizeof line);
        cmd_print(d, "%s.%s%s:", ref->unit->name, ref->reg->name, where);
        cmd_print(d, "%s", line);
        return;
    }
    cmd_print(d, "%s.%s%s at 0x%05x = 0x%08x (%u) [%s]", ref->unit->name, ref->reg->name, where,
              regdb_addr(ref->unit, ref->reg), v, v, format_access(ref->reg->access));
    for (uint16_t i = 0; i < ref->reg->n_fields; i++) {
        char line[256];
        format_field_line(&ref->reg->fields[i], v, line, sizeof line);
        cmd_print(d, "%s", line);
    }
}

static uint64_t total_hits(struct dbg *d)
{
    uint64_t n = 0;
    for (size_t i = 0; i < bps_count(d->bps); i++)
        n += bps_get(d->bps, i)->hits;
    return n;
}

/* What a poke of a D_ register did to the layer accounting: a write to a
 * group whose layer has finished programs a new hardware layer (the hardware
 * cannot tell a debugger from the driver); it becomes a layer of the run
 * only when its operation is enabled. */
static void poke_layer_note(struct dbg *d, enum dla_unit u, int group, size_t layers_before)
{
    struct dla *dla = session_dla(d->session);
    const struct dla_layer *l = dla_layer_current(dla, dla_unit_proc(u), group);
    if (!l)
        return;
    char what[96];
    if (dla_layer_count(dla) > layers_before) {
        format_layer_event((int)l->index, (enum dla_proc)l->proc, l->group, "", what, sizeof what);
        cmd_print(d,
                  "This write starts %sprogramming: it counts as a layer of the run only once its "
                  "operation is enabled%s.",
                  what,
                  session_finished(d->session) ? " (the run is over: until then it shows as never "
                                                 "enabled)"
                                               : "");
    } else if (l->state == DLA_LAYER_PROGRAMMING) {
        format_layer_event((int)l->index, (enum dla_proc)l->proc, l->group, "programming", what,
                           sizeof what);
        cmd_print(d, "Part of %s.", what);
        /* the driver has not finished this layer: a later write of its own
         * to the same register would silently undo the poke */
        if (!session_finished(d->session))
            cmd_print(d,
                      "The driver is still programming layer %u: if it writes this register "
                      "again before the layer is enabled, its value replaces the poke (to keep "
                      "a poke, make it at \"break layer %u enabled\").",
                      l->index, l->index);
    }
}

/* A poke is a CSB write, so it is traced, checked and seen by breakpoints. */
static enum cmd_status poke(struct dbg *d, struct cmd_args *a, const struct regdb_ref *ref,
                            int group, const char *value_text)
{
    struct dla *dla = session_dla(d->session);
    enum dla_unit u = dla_unit_of(dla, ref->unit);
    int producer = ref->reg->dual ? dla_producer_group(dla, u) : 0;
    if (ref->reg->dual && group >= 0 && group != producer)
        return cmd_fail(d, a,
                        "CSB writes reach group %d of %s (S_POINTER.PRODUCER); group %d cannot be "
                        "written now",
                        producer, ref->unit->name, group);
    uint32_t v;
    if (!cmd_reg_value(d, a, ref, value_text, &v))
        return CMD_ERROR;
    uint32_t addr = regdb_addr(ref->unit, ref->reg);
    uint32_t word = v;
    if (ref->field) {
        /* W1C: the other fields' ones would clear their bits too, so they are written 0 */
        uint32_t cur = ref->reg->access == REGDB_W1C ? 0 : dla_reg_value(dla, u, producer, ref->reg->offset);
        word = regdb_field_set(ref->field, cur, v);
    }
    uint64_t hits = total_hits(d);
    size_t layers_before = dla_layer_count(dla);
    uint32_t before = dla_reg_value(dla, u, producer, ref->reg->offset);
    dla_csb_write(dla, addr, word);
    char effect[384];
    format_write_effect(ref->reg, ref->field, word, before,
                        dla_reg_value(dla, u, producer, ref->reg->offset), effect, sizeof effect);
    cmd_print(d, "%s.%s%s%s: %s", ref->unit->name, ref->reg->name, ref->field ? "." : "",
              ref->field ? ref->field->name : "", effect);
    show_reg(d, &(struct regdb_ref){ref->unit, ref->reg, NULL}, producer);
    if (ref->reg->dual)
        poke_layer_note(d, u, producer, layers_before);
    if (total_hits(d) != hits) /* the poke itself hit a breakpoint: say so now */
        cmd_out(d, DBG_OUT_STOP, "%s", session_stop_message(d->session));
    return CMD_OK;
}

enum cmd_status cmd_reg(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    char text[512];
    snprintf(text, sizeof text, "%s", cmd_rest(a, 0));
    char *eq = strchr(text, '=');
    if (eq && eq[1] == '=')
        return cmd_fail(d, a, "\"==\" compares; to write use \"reg NAME = VALUE\"");
    if (eq)
        *eq = 0;
    trim(text);
    if (!text[0])
        return cmd_fail(d, a, "expected UNIT.REG[.FIELD][@GROUP] [= VALUE]");
    int group;
    struct regdb_ref ref;
    if (!take_group(d, a, text, &group) || !cmd_resolve_reg(d, a, text, &ref))
        return CMD_ERROR;
    if (!eq) {
        show_reg(d, &ref, group);
        return CMD_OK;
    }
    char value[256];
    snprintf(value, sizeof value, "%s", eq + 1);
    trim(value);
    if (!value[0])
        return cmd_fail(d, a, "expected a value after \"=\"");
    return poke(d, a, &ref, group, value);
}

/* ---------------------------------------------------------------- memory */

/* "dram:ADDR", "cvsram:ADDR" or ADDR (bit 31 set: DRAM, else CV-SRAM when present). */
bool cmd_parse_address(struct dbg *d, struct cmd_args *a, const char *text, enum dla_space *space,
                       uint64_t *addr)
{
    struct dla *dla = session_dla(d->session);
    int forced = -1;
    if (!strncasecmp(text, "dram:", 5)) {
        forced = DLA_DRAM;
        text += 5;
    } else if (!strncasecmp(text, "cvsram:", 7)) {
        forced = DLA_CVSRAM;
        text += 7;
    }
    int64_t v;
    if (!cmd_number(d, a, text, &v))
        return false;
    *addr = (uint64_t)v;
    if (forced >= 0)
        *space = (enum dla_space)forced;
    else
        *space = dla_cfg(dla)->cvsram && !(*addr & 0x80000000u) ? DLA_CVSRAM : DLA_DRAM;
    if (*space == DLA_CVSRAM && !dla_cfg(dla)->cvsram) {
        cmd_fail(d, a, "configuration %s has no CV-SRAM", dla_cfg(dla)->name);
        return false;
    }
    return true;
}

bool cmd_mem_accessible(struct dbg *d, struct cmd_args *a, enum dla_space space, uint64_t addr,
                        uint64_t len, const char *what)
{
    uint64_t outside;
    char msg[512];
    if (mem_accessible(d->session, space, addr, len, what, &outside, msg, sizeof msg))
        return true;
    cmd_fail(d, a, "%s", msg);
    return false;
}

/* gdb's x/NFU: a count, a format letter (x d u o t c f; a as x) and a size
 * letter (b h w g), in any order.  Without a size: 4 bytes, a character 1
 * and a float 8 (gdb's double); "x/8fh" shows fp16 values. */
static bool parse_x_format(const char *suffix, uint64_t *count, unsigned *size, char *how)
{
    *count = 1;
    *size = 0;
    *how = 'x';
    if (!suffix[0])
        suffix = "/";
    const char *p = suffix + 1; /* after '/' */
    if (isdigit((unsigned char)*p))
        *count = strtoull(p, (char **)&p, 10);
    for (; *p; p++) {
        const char *sizes = "bhwg";
        const char *at = strchr(sizes, *p);
        if (at)
            *size = 1u << (at - sizes);
        else if (strchr("xduotcfa", *p))
            *how = *p == 'a' ? 'x' : *p;
        else
            return false;
    }
    if (!*size)
        *size = *how == 'c' ? 1 : *how == 'f' ? 8 : 4;
    return *count >= 1 && !(*how == 'f' && *size == 1);
}

static uint64_t load_le(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = size; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static enum cmd_status do_x(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    uint64_t count;
    unsigned size;
    char how;
    if (!parse_x_format(a->suffix, &count, &size, &how))
        return cmd_fail(d, a, "expected x/N[xduotcf][bhwg] ADDR (f: h fp16, w float, g double), "
                              "not x%s",
                        a->suffix);
    if (!cmd_arg(a, 0))
        return cmd_fail(d, a, "expected an address");
    if (count > X_MAX_BYTES / size)
        return cmd_fail(d, a, "at most %u bytes at a time", X_MAX_BYTES);
    enum dla_space space;
    uint64_t addr;
    if (!cmd_parse_address(d, a, cmd_rest(a, 0), &space, &addr))
        return CMD_ERROR;
    size_t len = (size_t)(count * size);
    /* as gdb's x: the units before the first byte that is no memory are
     * shown, then the error */
    uint64_t outside;
    char refused[512] = "";
    if (!mem_accessible(d->session, space, addr, len, NULL, &outside, refused, sizeof refused)) {
        count = (outside - addr) / size;
        len = (size_t)(count * size);
        if (!count)
            return cmd_fail(d, a, "%s", refused);
    }
    uint8_t *buf = malloc(len);
    if (!buf)
        return cmd_fail(d, a, "out of memory");
    enum mem_status st = dla_mem_read(session_dla(d->session), space, addr, buf, len);
    if (st != MEM_OK) {
        free(buf);
        return cmd_fail(d, a, "%s 0x%llx+%zu: %s", dla_space_name(space), (unsigned long long)addr,
                        len, mem_status_str(st));
    }
    /* gdb's widths: 16 bytes of hex a line; 8 units of the wider formats */
    unsigned per_line = how == 't' ? (size > 2 ? 1 : 8 / size) : how == 'x' ? 16 / size : 8;
    if (per_line == 0)
        per_line = 1;
    for (size_t i = 0; i < count; i += per_line) {
        char line[256];
        int n = snprintf(line, sizeof line, "%s:0x%llx:", dla_space_name(space),
                         (unsigned long long)(addr + i * size));
        for (size_t k = i; k < count && k < i + per_line && n > 0 && (size_t)n < sizeof line; k++) {
            char unit[80];
            format_number(how, load_le(buf + k * size, size), size, true, unit, sizeof unit);
            n += snprintf(line + n, sizeof line - (size_t)n, " %s", unit);
        }
        cmd_print(d, "%s", line);
    }
    free(buf);
    return refused[0] ? cmd_fail(d, a, "%s", refused) : CMD_OK;
}

/* ---------------------------------------------------------------- dump */

/* A dump is bounded (what a bad END would otherwise make is a file the size
 * of the address space); larger regions take several commands. */
#define DUMP_MAX_BYTES (256u << 20)

/* "END" or "+LENGTH" after START, as a byte count. */
static bool parse_dump_length(struct dbg *d, struct cmd_args *a, const char *text, uint64_t start,
                              uint64_t *len)
{
    bool relative = text[0] == '+';
    int64_t v;
    if (!cmd_number(d, a, relative ? text + 1 : text, &v))
        return false;
    if (relative ? v <= 0 : (uint64_t)v <= start) {
        cmd_fail(d, a,
                 relative ? "expected a positive length after '+'"
                          : "END 0x%llx is not past START 0x%llx (END is exclusive, as in gdb)",
                 (unsigned long long)v, (unsigned long long)start);
        return false;
    }
    *len = relative ? (uint64_t)v : (uint64_t)v - start;
    if (*len > DUMP_MAX_BYTES) {
        cmd_fail(d, a, "%llu bytes: at most %u MiB a dump", (unsigned long long)*len,
                 DUMP_MAX_BYTES >> 20);
        return false;
    }
    return true;
}

/* Copy len bytes of simulated memory to the open file; false with a message. */
static bool copy_memory(struct dbg *d, struct cmd_args *a, struct afile *af, enum dla_space space,
                        uint64_t addr, uint64_t len)
{
    uint8_t buf[65536];
    for (uint64_t off = 0; off < len; off += sizeof buf) {
        size_t n = len - off < sizeof buf ? (size_t)(len - off) : sizeof buf;
        enum mem_status st = dla_mem_read(session_dla(d->session), space, addr + off, buf, n);
        if (st != MEM_OK) {
            cmd_fail(d, a, "%s 0x%llx+%zu: %s", dla_space_name(space),
                     (unsigned long long)(addr + off), n, mem_status_str(st));
            return false;
        }
        if (fwrite(buf, 1, n, af->fp) != n) {
            cmd_fail(d, a, "%s: write failed: %s", af->path, strerror(errno));
            return false;
        }
    }
    return true;
}

/* dump memory FILE START END|+LEN: the bytes as they are, like gdb's. */
static enum cmd_status do_dump_memory(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_need_session(d, a))
        return CMD_ERROR;
    if (cmd_nargs(a) != 3)
        return cmd_fail(d, a, "expected FILE START END (or START +LENGTH)");
    enum dla_space space;
    uint64_t addr, len;
    if (!cmd_parse_address(d, a, cmd_arg(a, 1), &space, &addr) ||
        !parse_dump_length(d, a, cmd_arg(a, 2), addr, &len) ||
        !cmd_mem_accessible(d, a, space, addr, len, "the dump"))
        return CMD_ERROR;
    struct afile af;
    char err[1024];
    if (!afile_open(&af, cmd_arg(a, 0), err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    if (!copy_memory(d, a, &af, space, addr, len)) {
        afile_abort(&af);
        return CMD_ERROR;
    }
    if (!afile_commit(&af, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    cmd_print(d, "Wrote %llu bytes of %s 0x%llx..0x%llx to %s.", (unsigned long long)len,
              dla_space_name(space), (unsigned long long)addr, (unsigned long long)(addr + len),
              cmd_arg(a, 0));
    return CMD_OK;
}

/* gdb's spelling "dump binary memory ...": the format is the only one. */
static enum cmd_status do_dump_binary(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_arg(a, 0) || strcasecmp(cmd_arg(a, 0), "memory") != 0)
        return cmd_fail(d, a, "expected \"dump binary memory FILE START END\"");
    a->first++; /* the arguments after "memory" */
    return do_dump_memory(d, a);
}

/* ---------------------------------------------------------------- print */

static enum cmd_status do_print(struct dbg *d, struct cmd_args *a)
{
    const char *text = cmd_rest(a, 0);
    if (!text[0])
        return cmd_fail(d, a, "expected an expression");
    char how = a->suffix[0] == '/' ? a->suffix[1] : 0;
    if (a->suffix[0] && (!how || a->suffix[2] || !strchr("xduotcf", how)))
        return cmd_fail(d, a, "unknown format \"%s\" (expected /x, /d, /u, /o, /t, /c or /f)",
                        a->suffix);
    int64_t v;
    if (!cmd_number(d, a, text, &v))
        return CMD_ERROR;
    char shown[80];
    if (!how) /* both: a register is read in hex as often as in decimal */
        cmd_print(d, "= %lld (0x%llx)", (long long)v, (unsigned long long)v);
    else if (how == 'f') /* gdb's p/f of an integer: its value as a number */
        cmd_print(d, "= %.17g", (double)v);
    else if (format_number(how, (uint64_t)v, 8, false, shown, sizeof shown))
        cmd_print(d, "= %s", shown);
    return CMD_OK;
}

static const struct cmd_entry dump_subs[] = {
    {"memory", NULL, "FILE ADDR ADDR", "dump memory FILE START END|+LENGTH",
     "Write the bytes START..END (exclusive) or START..START+LENGTH of simulated memory to\n"
     "FILE (whole or not at all).  START takes a dram: or cvsram: prefix as x does; at most\n"
     "256 MiB a dump, all of it memory as \"help x\" says.",
     do_dump_memory, NULL, false},
    {"binary", NULL, "memory FILE ADDR ADDR", "dump binary memory FILE START END|+LENGTH",
     "The same (gdb's spelling; raw bytes are the only format).", do_dump_binary, NULL, false},
    {"tensors", NULL, "DIR", "dump tensors DIR",
     "Run the network from its start to the end (breakpoints suspended) and write every\n"
     "hardware layer's output (layerN_unit.npy, its raw element type: int8, fp16...), the\n"
     "input and the CPU tasks' outputs (named after their tensors) and order.txt listing\n"
     "them in execution order: a reference folder for \"compare DIR\" of another run.",
     cmd_dump_tensors, NULL, false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_data_entries[] = {
    {"reg", NULL, "REG", "reg UNIT.REG[.FIELD][@GROUP] [= VALUE]",
     "Show a register with every field decoded by name and enum (D_ registers: the producer\n"
     "group, or @0/@1).  With \"= VALUE\", write it: a CSB write, traced and seen by\n"
     "breakpoints; a field write keeps the other fields.  VALUE may be an enum name.\n"
     "A register of a unit the configuration lacks (nv_small: BDMA, RBK) is refused.",
     cmd_reg, NULL, false},
    {"x", NULL, "ADDR", "x/N[xduotcf][bhwg] [dram:|cvsram:]ADDR",
     "Examine N units of memory (b=1, h=2, w=4, g=8 bytes; default 1 word) in hex, or as\n"
     "gdb's format letters say: d u o t c, and f (h: fp16, w: float, g: double; \"x/8fh\").\n"
     "DRAM when address bit 31 is set, else CV-SRAM, unless a prefix says.  Memory is\n"
     "what the file binds (\"info mem\" lists the regions) and the 64 KiB pages the run\n"
     "has written; bytes there that nothing wrote read as zeros, as the simulated DRAM\n"
     "holds them after power-on.  Anywhere else: \"Cannot access memory at address\",\n"
     "with the nearest regions (exit 2 in batch mode), after the units before it, as in\n"
     "gdb.  dump memory and tensor ask the same of every byte: a dump running out of\n"
     "memory writes nothing, a tensor whose extent does is refused, the extent named.",
     do_x, NULL, false},
    {"dump", NULL, NULL, "dump [binary] memory FILE START END|+LENGTH | dump tensors DIR",
     "Write simulated memory to a file as raw bytes, as gdb's dump does; \"dump tensors\"\n"
     "writes every layer's output as .npy files.", NULL, dump_subs, false},
    {"print", "p", "EXPR", "print[/x|/d|/u|/o|/t|/c|/f] EXPR",
     "Evaluate an expression: numbers (0x.., 0b..), registers and fields (UNIT.REG[.FIELD]\n"
     "[@GROUP]), enum names compared with a field, $cycle $layers $writes $bpnum, C operators.\n"
     "Shown in decimal and hex; with a format letter, as gdb's print/FMT shows it alone.\n"
     "A register of a unit the configuration lacks (nv_small: BDMA, RBK) is refused.",
     do_print, NULL, false},
    END_OF_TABLE,
};
