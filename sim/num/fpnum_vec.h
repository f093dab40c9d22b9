/* The commonest cases of fpnum_inline.h's fixed-format functions four
 * lanes at a time (GCC and clang vector extensions: SSE2 on x86-64), for
 * the per-row loops of SDP and CDP.  Each function gives in every lane what
 * its scalar counterpart gives, or sets the lane in *slow (all ones) for the
 * caller to redo with the scalar function; the reasoning for each fast path
 * is at the scalar one.  The unit test compares every lane with the scalar
 * functions. */
#ifndef DLA_FPNUM_VEC_H
#define DLA_FPNUM_VEC_H

#include <string.h>

#include "fpnum_inline.h"

#define FPV_LANES 4
typedef uint32_t fpv_u32 __attribute__((vector_size(16)));
typedef int32_t fpv_i32 __attribute__((vector_size(16)));
typedef float fpv_f32 __attribute__((vector_size(16)));

#define FPV_INLINE static inline __attribute__((always_inline))

FPV_INLINE fpv_u32 fpv_load(const uint32_t *p)
{
    fpv_u32 v;
    memcpy(&v, p, sizeof v);
    return v;
}

FPV_INLINE void fpv_store(uint32_t *p, fpv_u32 v)
{
    memcpy(p, &v, sizeof v);
}

FPV_INLINE fpv_u32 fpv_splat(uint32_t x)
{
    return (fpv_u32){x, x, x, x};
}

/* Lanes of a where mask is all ones, of b elsewhere. */
FPV_INLINE fpv_u32 fpv_select(fpv_i32 mask, fpv_u32 a, fpv_u32 b)
{
    return ((fpv_u32)mask & a) | (~(fpv_u32)mask & b);
}

/* fp32_add (fpi_add32_machine's cases: both operands normal and finite,
 * exponents at most 24 apart, or zeros; exponents 26 or more apart). */
FPV_INLINE fpv_u32 fpv_add32(fpv_u32 a, fpv_u32 b, fpv_i32 *slow)
{
    fpv_u32 abs_a = a & 0x7fffffffu, abs_b = b & 0x7fffffffu;
    fpv_i32 a_larger = abs_a >= abs_b;
    fpv_u32 hi = fpv_select(a_larger, abs_a, abs_b), lo = fpv_select(a_larger, abs_b, abs_a);
    fpv_u32 e_hi = hi >> 23, e_lo = lo >> 23;
    fpv_i32 hi_normal = e_hi - 1u < 254u;
    fpv_i32 far = hi_normal & (e_hi - e_lo >= 26u);
    *slow = ~((hi_normal & (((e_lo - 1u < 254u) & (e_hi - e_lo <= 24u)) | (lo == 0u))) |
              (hi == 0u) | far);
    fpv_u32 r = (fpv_u32)((fpv_f32)a + (fpv_f32)b);
    fpv_u32 e_r = (r >> 23) & 0xffu;
    fpv_u32 larger_sign = fpv_select(a_larger, a, b) & 0x80000000u;
    r = fpv_select(e_r == 0u, larger_sign, r);
    r = fpv_select(e_r == 0xffu, (r & 0x80000000u) | 0x7f7fffffu, r);
    return fpv_select(far, fpv_select(a_larger, a, b), r);
}

/* fp32_relu: no lane is slow. */
FPV_INLINE fpv_u32 fpv_relu32(fpv_u32 a)
{
    fpv_i32 keep = ((a >> 31) == 0u) | ((a & 0x7fffffffu) > 0x7f800000u);
    return a & (fpv_u32)keep;
}

/* fp32_to_fp16 (the fp16-normal and zero cases), in the low 16 bits. */
FPV_INLINE fpv_u32 fpv_fp32_to_fp16(fpv_u32 f, fpv_i32 *slow)
{
    fpv_u32 abs = f & 0x7fffffffu, sign = (f >> 16) & 0x8000u;
    fpv_i32 normal = ((abs >> 23) - 113u) < 30u;
    *slow = ~normal & (abs != 0u);
    fpv_u32 r = abs + 0xfffu + ((abs >> 13) & 1u);
    fpv_u32 expo = (r >> 23) - 112u;
    fpv_u32 bits = fpv_select(expo >= 31u, fpv_splat(0x7bffu), expo << 10 | ((r >> 13) & 0x3ffu));
    return sign | (bits & (fpv_u32)normal);
}

/* fp16_to_fp32 of fp16 bits in the low 16 bits of each lane (the normal
 * case and zeros). */
FPV_INLINE fpv_u32 fpv_fp16_to_fp32(fpv_u32 h, fpv_i32 *slow)
{
    fpv_u32 e = (h >> 10) & 31u, abs = h & 0x7fffu;
    fpv_i32 normal = e - 1u < 30u;
    *slow = ~normal & (abs != 0u);
    fpv_u32 sign = (h & 0x8000u) << 16;
    return sign | (((abs << 13) + (112u << 23)) & (fpv_u32)normal);
}

/* fp17_mul (fpi_mul17_machine's cases: non-zero, non-NaN operands below
 * the top exponent, and a zero times one of those or a zero). */
FPV_INLINE fpv_u32 fpv_mul17(fpv_u32 a, fpv_u32 b, fpv_i32 *slow)
{
    fpv_u32 zero = ((a ^ b) >> 16 & 1u) << 16;
    fpv_i32 a_zero = (a & 0xffffu) == 0u, b_zero = (b & 0xffffu) == 0u;
    fpv_i32 a_number = ~a_zero & ((a & 0xfc00u) != 0xfc00u);
    fpv_i32 b_number = ~b_zero & ((b & 0xfc00u) != 0xfc00u);
    fpv_i32 zero_case = (a_zero & (b_number | b_zero)) | (b_zero & a_number);
    *slow = ~(zero_case | (a_number & b_number));
    fpv_u32 fa = (a >> 16 & 1u) << 31 | (((a >> 10) & 63u) + 96u) << 23 | (a & 0x3ffu) << 13;
    fpv_u32 fb = (b >> 16 & 1u) << 31 | (((b >> 10) & 63u) + 96u) << 23 | (b & 0x3ffu) << 13;
    fpv_u32 r = (fpv_u32)((fpv_f32)fa * (fpv_f32)fb);
    fpv_u32 sign = (r >> 31) << 16;
    r += 0xfffu + ((r >> 13) & 1u);
    fpv_i32 expo = (fpv_i32)((r >> 23) & 0xffu) - 96;
    fpv_u32 p = fpv_select(expo >= 63, sign | 62u << 10 | 0x3ffu,
                           sign | (fpv_u32)expo << 10 | ((r >> 13) & 0x3ffu));
    p = fpv_select(expo <= 0, zero, p);
    return fpv_select(zero_case, zero, p);
}

/* A binary32 result to fp17 (fpi_float_to_fp17_rounded, every lane). */
FPV_INLINE fpv_u32 fpv_float_to_fp17_rounded(fpv_u32 r, fpv_u32 if_zero)
{
    fpv_u32 sign = (r >> 31) << 16;
    r += 0xfffu + ((r >> 13) & 1u);
    fpv_i32 expo = (fpv_i32)((r >> 23) & 0xffu) - 96;
    fpv_u32 v = fpv_select(expo >= 63, sign | 62u << 10 | 0x3ffu,
                           sign | (fpv_u32)expo << 10 | ((r >> 13) & 0x3ffu));
    return fpv_select(expo <= 0, if_zero, v);
}

FPV_INLINE fpv_u32 fpv_fp17_as_float_bits(fpv_u32 h)
{
    return (h >> 16 & 1u) << 31 | (((h >> 10) & 63u) + 96u) << 23 | (h & 0x3ffu) << 13;
}

/* fp17_add (fpi_add17_machine's cases: non-zero, non-NaN operands below
 * the top exponent at most 11 apart; a zero plus a normal or a zero). */
FPV_INLINE fpv_u32 fpv_add17(fpv_u32 a, fpv_u32 b, fpv_i32 *slow)
{
    fpv_u32 abs_a = a & 0xffffu, abs_b = b & 0xffffu;
    fpv_i32 a_larger = abs_a >= abs_b;
    fpv_u32 hi = fpv_select(a_larger, abs_a, abs_b), lo = fpv_select(a_larger, abs_b, abs_a);
    fpv_u32 larger = fpv_select(a_larger, a, b);
    fpv_i32 zero_case = (lo == 0u) & ((hi == 0u) | ((hi >> 10) - 1u < 62u));
    fpv_i32 a_number = (abs_a != 0u) & ((a & 0xfc00u) != 0xfc00u);
    fpv_i32 b_number = (abs_b != 0u) & ((b & 0xfc00u) != 0xfc00u);
    *slow = ~(zero_case | (a_number & b_number & ((hi >> 10) - (lo >> 10) <= 11u)));
    fpv_u32 larger_sign = larger & 0x10000u;
    fpv_u32 r = (fpv_u32)((fpv_f32)fpv_fp17_as_float_bits(a) + (fpv_f32)fpv_fp17_as_float_bits(b));
    fpv_u32 v = fpv_float_to_fp17_rounded(r, larger_sign);
    v = fpv_select((fpv_i32)((r >> 23) & 0xffu) - 96 <= 0, larger_sign, v);
    return fpv_select(zero_case, fpv_select(hi == 0u, a, larger), v);
}

/* fp32_to_fp17 (a value above fp17's subnormal range, not a NaN or
 * infinity; a zero). */
FPV_INLINE fpv_u32 fpv_fp32_to_fp17(fpv_u32 f, fpv_i32 *slow)
{
    fpv_u32 e = (f >> 23) & 0xffu;
    fpv_i32 zero = (f & 0x7fffffffu) == 0u, in_range = e - 97u < 158u;
    *slow = ~(zero | in_range);
    return fpv_select(zero, (f >> 31) << 16, fpv_float_to_fp17_rounded(f, fpv_splat(0)));
}

/* fp17_to_fp16 (an fp17 in fp16's normal range: the same mantissa, the
 * exponent rebased; a zero). */
FPV_INLINE fpv_u32 fpv_fp17_to_fp16(fpv_u32 h, fpv_i32 *slow)
{
    fpv_u32 expo = (h >> 10) & 63u;
    fpv_i32 normal = expo - 17u < 30u;
    *slow = ~(normal | ((h & 0xffffu) == 0u));
    fpv_u32 sign = (h >> 16 & 1u) << 15;
    return sign | ((((expo - 16u) << 10) | (h & 0x3ffu)) & (fpv_u32)normal);
}

/* Lanes set in a mask: any, all. */
FPV_INLINE bool fpv_any(fpv_i32 mask)
{
    return (mask[0] | mask[1] | mask[2] | mask[3]) != 0;
}

FPV_INLINE bool fpv_all(fpv_i32 mask)
{
    return (mask[0] & mask[1] & mask[2] & mask[3]) != 0;
}

#endif
