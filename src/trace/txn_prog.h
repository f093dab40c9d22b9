/* An input.txn trace parsed: its commands, packed.
 *
 * A trace of a million one-line layers holds fourteen million commands, so a
 * command is kept in 8 bytes (its op, CSB word address and one 32-bit
 * operand); what few commands need more (a read's mask, a memory command's
 * address, size and file) sits in side tables, and line numbers are kept as
 * runs of consecutive lines.  The one parse serves configuration detection
 * (config_detect_txn_prog) and the replay (trace_txn_open_prog): the file is
 * read once (issue 36). */
#ifndef DLADBG_TXN_PROG_H
#define DLADBG_TXN_PROG_H

#include <stddef.h>
#include <stdint.h>

enum txn_op { TXN_WRITE, TXN_READ, TXN_WAIT, TXN_UNTIL, TXN_LOAD, TXN_DUMP, TXN_OP_COUNT };

/* One command, unpacked. */
struct txn_cmd {
    enum txn_op op;
    unsigned line;
    uint32_t addr; /* CSB byte address (write, read, until) */
    uint32_t value, mask;
    uint64_t mem_addr, size; /* load_mem, dump_mem */
    const char *file;        /* load/dump file name as written in the trace */
};

struct txn_prog;

/* The whole file parsed; NULL with "FILE:LINE: what was expected" in err. */
struct txn_prog *txn_prog_parse(const char *path, char *err, size_t errlen);
void txn_prog_free(struct txn_prog *p);

size_t txn_prog_count(const struct txn_prog *p);
/* Command i (< count) into *c; c->file lives as long as p. */
void txn_prog_get(const struct txn_prog *p, size_t i, struct txn_cmd *c);
/* The command's name as the trace writes it ("write_reg"). */
const char *txn_op_name(enum txn_op op);
/* The memory the parse holds, everything counted. */
size_t txn_prog_bytes(const struct txn_prog *p);
/* For tests: the files txn_prog_parse has read so far. */
unsigned long long txn_prog_parses(void);

#endif
