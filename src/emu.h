/* EMU tasks: the operations NVIDIA's runtime runs on the CPU (its emulator):
 * POWER y = (shift + scale * x) ^ power, and SOFTMAX over the channels.
 *
 * Arithmetic follows the emulator exactly: single-precision float math with
 * the C library's powf/expf, and fp16 results rounded the way the half
 * library it uses rounds by default (to nearest, ties away from zero).
 *
 * Two descriptor layouts exist.  The one in compiled networks of the 0.11
 * era (EMU blob version 0.0.x, as in NN_L0_0) has no scale factors in the
 * common op descriptor and no addressIndexOffset in buffer descriptors; the
 * later one (emu_interface.h) has both.  See emu.c for offsets. */
#ifndef DLADBG_EMU_H
#define DLADBG_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dla.h"
#include "runtime.h"

enum emu_op_type { EMU_OP_POWER = 0, EMU_OP_SOFTMAX = 1 };

/* Run every operation of EMU task `task`; false with a message when a
 * descriptor is invalid (the task's outputs are then not written). */
bool emu_run_task(struct dla *d, const struct runtime *rt, uint32_t task, char *msg, size_t len);

/* fp32 -> fp16 as the emulator's half type converts (ties away from zero). */
uint16_t emu_half_from_float(float f);

#endif
