/* EMU tasks: the operations NVIDIA's runtime runs on the CPU (its emulator):
 * POWER y = (shift + scale * x) ^ power, and SOFTMAX over the channels; and
 * the one ONNC added to its runtime (ONNC/onnc nvdla/sw.diff, the "CPU
 * Fallback" lab of onnc-tutorial): LOG y = logf(x), on fp16 surfaces.
 *
 * Arithmetic follows the emulator exactly: single-precision float math with
 * the C library's powf/expf, fp16 results rounded the way the half library
 * it uses rounds by default (to nearest, ties away from zero), int8 results
 * clamped to [-128, 127] and truncated toward zero.
 *
 * Two descriptor layouts exist and both are tagged EMU version 0.0.1 by
 * NVIDIA's compilers (ONNC tags the old one 1.2.0), so the version cannot
 * tell them apart:
 *   legacy  (nvdla/sw before int8 support, NN_L0_0, ONNC): 16-byte operation
 *           containers with packed fields, no scale factors, buffer
 *           descriptors without addressIndexOffset, FF16 coded 2;
 *   current (emu_interface.h since int8 support, today's nvdla_compiler):
 *           24-byte containers with input/output scale factors, buffers
 *           with addressIndexOffset, FF16 coded 3, INT8_8 for 8-byte atoms.
 * emu.c picks the layout from the size of the operation list (16 or 24
 * bytes per operation), then from the blob's sub-interface tag.
 *
 * The legacy emulators (NVIDIA's until int8 support, ONNC's built on it)
 * run only the first operation of a task, whatever num_operations says, and
 * so does emu.c in that layout; the current one runs them all.  LOG exists
 * only in the legacy layout (NVIDIA's current emulator has no type 2). */
#ifndef DLADBG_EMU_H
#define DLADBG_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"
#include "runtime.h"

enum emu_op_type { EMU_OP_POWER = 0, EMU_OP_SOFTMAX = 1, EMU_OP_LOG = 2 };

/* Whether an EMU task's descriptor blobs may carry version v: NVIDIA's
 * emulator interface is 0.0.1 (untagged 0.0.0 too), ONNC tags its own 1.2.0
 * (1.3.0 in its v1.2.0 release). */
bool emu_version_known(struct ld_version v);
/* The versions emu_version_known accepts, for messages. */
const char *emu_versions_known(void);

/* Run the operations of EMU task `task` (every one, or the first in the
 * legacy layout); false with a message when a descriptor is invalid (the
 * task's outputs are then not written).  On success msg is empty, or holds a
 * note for the user: operations the legacy emulators leave out. */
bool emu_run_task(struct dla *d, const struct runtime *rt, uint32_t task, char *msg, size_t len);

/* fp32 -> fp16 as the emulator's half type converts (ties away from zero). */
uint16_t emu_half_from_float(float f);

/* The emulator's float -> int8 store: clamp, then truncate toward zero
 * (NaN stores 0). */
int8_t emu_int8_from_float(float y);

#endif
