/* Expressions of the command language ("print", breakpoint conditions):
 * 64-bit integers in C syntax (0x.., 0b.., decimal), register and field
 * references by name (CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH), enum names of the
 * field compared against (SDP.D_FEATURE_MODE_CFG.FLYING_MODE == ON_FLYING),
 * the variables $cycle $layers $writes, and the C operators
 *   ( ) ! ~ - * / % + - << >> < <= > >= == != & ^ | && ||
 * with C precedence.  Registers are read without side effects. */
#ifndef DLADBG_EXPR_H
#define DLADBG_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

struct expr_env {
    struct dla *dla;         /* NULL: register references are errors */
    int group;               /* register group for D_ registers, -1: the producer group */
    uint64_t layers, writes; /* $layers, $writes */
    int64_t bpnum;           /* $bpnum: the last breakpoint set, 0: none yet */
};

/* Evaluate text; false with a message in err ("unknown register FOO.BAR"). */
bool expr_eval(const char *text, const struct expr_env *env, int64_t *out, char *err,
               size_t errlen);

#endif
