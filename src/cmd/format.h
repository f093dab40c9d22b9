/* Register and field decoding for display: names, bit ranges, values and
 * enum names, as "reg", watchpoints, the regs decoder and the TUI show them. */
#ifndef DLADBG_FORMAT_H
#define DLADBG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"
#include "core/regdb.h"

/* "DATAIN_WIDTH=7 DATAIN_HEIGHT=7" (enum names where the field has them:
 * "PROC_PRECISION=INT16"); every field of the register. */
void format_fields_inline(const struct regdb_reg *reg, uint32_t value, char *buf, size_t len);

/* A field's bits: "[12:0]", or "[5]" for a one-bit field (the register
 * listing of "reg" and the TUI's register pane write them alike). */
void format_field_bits(const struct regdb_field *f, char *buf, size_t len);

/* One field: "  DATAIN_WIDTH        [12:0]  = 7 (0x7)" or "= 1 (INT16)". */
void format_field_line(const struct regdb_field *f, uint32_t value, char *buf, size_t len);

/* "UNIT.REG" of a CSB byte address, or "0x%05x" when it is no register. */
void format_reg_name(const struct regdb_map *map, uint32_t addr, char *buf, size_t len);

/* " SDP_DONE_STATUS0 BDMA_DONE_STATUS1": the named GLB interrupt status bits
 * set in bits, each after a blank ("" when none). */
void format_intr_bits(uint32_t bits, char *buf, size_t len);

/* " SDP_DONE_MASK0 BDMA_DONE_MASK1": the fields of register reg
 * ("GLB.S_INTR_MASK") with a bit set in bits, by the names the register
 * itself gives them, each after a blank ("" when none or when map has no
 * such register). */
void format_reg_bits(const struct regdb_map *map, const char *reg, uint32_t bits, char *buf,
                     size_t len);

/* A layer event: "layer 1 (SDP, group 0) programmed", or "layer 3 (BDMA)
 * programmed" while the layer has no group yet (group > 1). */
void format_layer_event(int layer, enum dla_proc proc, unsigned group, const char *verb, char *buf,
                        size_t len);

/* One name per layer state, everywhere: "programming", "enabled", "running",
 * "done", and "never enabled" for a layer still being programmed when the run
 * is over (run_over: the driver has finished): registers written (a poke
 * after the end, a trace that never launches) but no operation enabled. */
const char *format_layer_state(const struct dla_layer *l, bool run_over);
bool format_layer_never_enabled(const struct dla_layer *l, bool run_over);
/* The layers of the run: every layer but the never-enabled ones. */
size_t format_layers_of_run(const struct dla *d, bool run_over);

/* What dla_layer.macs counts for a processor: "MACs" (CONV), "bytes" (BDMA),
 * "elements" (SDP, RUBIK), "pool reads" (PDP: output elements times the
 * kernel window), "LRN terms" (CDP: elements times the normalisation window). */
const char *format_work_unit(enum dla_proc p);
/* "calibrated against RTL" or "estimated": where a unit's cycle figures come from. */
const char *format_cycles_basis(const struct dla_config *cfg, enum dla_proc p);
/* The same for a whole configuration, one phrase: "BDMA, PDP calibrated
 * against RTL, the others estimated" (share/timing-model.md). */
void format_timing_basis(const struct dla_config *cfg, char *buf, size_t len);
/* The hardware's part of a run: the cycles from the first layer's launch to
 * the last layer's completion, and whether that figure is "calibrated
 * against RTL" or "estimated"; false when no layer has finished. */
bool format_run_cycles(const struct dla *d, uint64_t *cycles);
const char *format_run_basis(const struct dla_config *cfg);

/* What a CSB write of written did to reg, in the hardware's terms, from the
 * stored value before and after it: "ignored: read-only (still 0x00303031)",
 * "cleared bits SDP_DONE_STATUS0: 0x00000011 -> 0x00000010", "no bit cleared
 * (bits written were not set): 0x00000000", "0x00000007 -> 0x00000009" (field
 * writes pass field, else NULL).  The reg command and the TUI's edits (which
 * run it) both say this. */
void format_write_effect(const struct regdb_reg *reg, const struct regdb_field *field,
                         uint32_t written, uint32_t before, uint32_t after, char *buf, size_t len);

/* A write to reg (field: to that field) cannot change anything: it is read-only. */
bool format_is_read_only(const struct regdb_reg *reg, const struct regdb_field *field);
/* A unit of the register map the configuration lacks (nv_small: BDMA, RBK):
 * "BDMA is not in this configuration (nv_small)" in buf and true; false when
 * it has the unit.  No CSB access reaches such a unit's registers, so print,
 * display, conditions, reg, break reg and info regs UNIT refuse them with
 * this, rather than showing a value the hardware cannot have. */
bool format_unit_absent(const struct dla *dla, const struct regdb_unit *unit, char *buf,
                        size_t len);

/* Access kind as the register database spells it: "rw", "ro", "wo", "w1c". */
const char *format_access(enum regdb_access a);

/* A value of `bytes` bytes (1, 2, 4, 8; its bits in the low end of bits) as
 * gdb's format letter `how` shows it: x hex, d signed, u unsigned, o octal,
 * t binary, c a character (its code and the character), f a floating-point
 * number (2 bytes: fp16, 4: float, 8: double).  pad: x and t zero-padded to
 * the width (x's memory columns).  false for a letter it does not know or a
 * float of 1 byte. */
bool format_number(char how, uint64_t bits, unsigned bytes, bool pad, char *buf, size_t len);

#endif
