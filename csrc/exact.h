/* exact.h: the exact sum's state and its one rounding, shared by the CPU implementation
 * (exact_cpu.c) and V10's kernels (kernels/v10_exact.cu). C11 and CUDA C++ at once.
 *
 * The state is a fixed-point integer wide enough for any sum of any dtype cured reads: limb k holds
 * bits [32k, 32k + 32) of the sum in units of 2^-1074 (float64's smallest subnormal, so every
 * float16, float32, float64 and integer is a whole number of units), in an int64 that leaves 31
 * bits of headroom for carries not yet propagated. 68 limbs are 2176 bits: float64's largest
 * finite value is below 2^(1024 + 1074) units, and a sum of up to 2^64 of them is below 2^2162, so
 * nothing a sum of fewer than 2^64 elements holds can overflow the state (the supported length).
 * Beside the integer, flags say what the integer cannot: a NaN, an infinity of each sign, and
 * whether some element had its sign bit clear (a sum whose elements are all -0.0 is -0.0, IEEE's
 * rule, and the only sum whose zero is negative).
 *
 * Every element adds its value into the integer exactly, in any order, so the state after a set of
 * elements is the same however they were split, ordered or grouped, and two states add limb by
 * limb: the sum is rounded once, at the end, by cured_exact_round. */
#ifndef CURED_EXACT_H
#define CURED_EXACT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "cured.h"

#ifdef __CUDACC__
#define CURED_HD __host__ __device__ __forceinline__
#else
#define CURED_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CURED_EXACT_LIMBS 68
#define CURED_EXACT_LIMB_BITS 32
#define CURED_EXACT_UNIT_EXP (-1074) /* bit 0 of limb 0 is 2^-1074 */

/* Flags, OR-ed over elements (and over states when states add). */
#define CURED_EXACT_NAN 1u          /* some element is a NaN */
#define CURED_EXACT_POS_INF 2u      /* some element is +inf */
#define CURED_EXACT_NEG_INF 4u      /* some element is -inf */
#define CURED_EXACT_SIGN_CLEAR 8u   /* some element's sign bit is clear (every integer counts as such) */
#define CURED_EXACT_NONEMPTY 16u    /* some element was added at all */

/* The state: what cured.fsum's partials hold, 552 bytes. `limb` as the module reads and writes
 * it is normalized (cured_exact_normalize). */
typedef struct {
    int64_t limb[CURED_EXACT_LIMBS];
    uint64_t flags;
} cured_exact_state;

/* The result written in place of a rounded sum when a plan's result is CURED_EXACT_STATE: the
 * normalized state itself, for partial sums that add exactly elsewhere. */
#define CURED_EXACT_STATE ((cured_dtype)CURED_NUM_DTYPES)

/* One finite element, decoded: the value is (-1)^negative x magnitude x 2^(position - 1074).
 * Floats: the significand and the bit position of its lowest bit; integers: their absolute value at
 * position 1074. */
typedef struct {
    int negative;
    uint64_t magnitude;
    int position;
} cured_exact_term;

/* IEEE binary formats: `bits` wide with `mantissa` stored fraction bits. Sets *flags for a NaN or
 * an infinity and returns 0 for them; 1 with *term set otherwise. */
CURED_HD int cured_exact_decode_ieee(uint64_t bits, int width, int mantissa, cured_exact_term *term, unsigned *flags) {
    const int exponent_bits = width - 1 - mantissa;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const uint64_t fraction = bits & ((UINT64_C(1) << mantissa) - 1);
    const int exponent = (int)((bits >> mantissa) & ((UINT64_C(1) << exponent_bits) - 1));
    const int negative = (int)(bits >> (width - 1));
    if (!negative) *flags |= CURED_EXACT_SIGN_CLEAR;
    if (exponent == (1 << exponent_bits) - 1) {
        *flags |= fraction != 0 ? CURED_EXACT_NAN : negative ? CURED_EXACT_NEG_INF : CURED_EXACT_POS_INF;
        return 0;
    }
    /* A normal number is (2^mantissa + fraction) x 2^(exponent - bias - mantissa); a subnormal is
     * fraction x 2^(1 - bias - mantissa). */
    term->negative = negative;
    term->magnitude = exponent != 0 ? fraction | (UINT64_C(1) << mantissa) : fraction;
    term->position = (exponent != 0 ? exponent : 1) - bias - mantissa + 1074;
    return 1;
}

/* The term's value as three signed 32-bit pieces for limbs first, first + 1, first + 2. */
CURED_HD int cured_exact_pieces(cured_exact_term term, int64_t piece[3]) {
    const int shift = term.position & 31;
    const uint64_t low = term.magnitude << shift;
    const uint64_t high = shift != 0 ? term.magnitude >> (64 - shift) : 0;
    piece[0] = (int64_t)(low & 0xffffffffu);
    piece[1] = (int64_t)(low >> 32);
    piece[2] = (int64_t)high;
    if (term.negative)
        for (int k = 0; k < 3; ++k) piece[k] = -piece[k];
    return term.position >> 5;
}

/* Carries every limb's bits above 32 into the next, over limbs [low, high], which must hold the
 * whole sum (limbs outside it zero): limbs low .. high - 1 end in [0, 2^32), limb high holds the
 * sign (two's complement over the whole, every limb above high its sign extension). Two limbs above
 * the highest non-zero one are always enough room: that one's carry is below 2^31 in magnitude. */
CURED_HD void cured_exact_normalize(int64_t *limb, int low, int high) {
    int64_t carry = 0;
    for (int k = low; k < high; ++k) {
        const int64_t v = limb[k] + carry;
        limb[k] = v & 0xffffffff;
        carry = v >> 32; /* arithmetic: a negative limb borrows */
    }
    limb[high] += carry;
}

/* a + b = s + *error exactly, for finite a and b whose sum does not overflow (Knuth's TwoSum): the
 * rounding error of one float64 addition, found by five more. A NaN or an infinity makes the error
 * NaN. Needs doubles that round to double (on the host, FLT_EVAL_METHOD 0). */
CURED_HD double cured_two_sum(double a, double b, double *error) {
    const double s = a + b, b_part = s - a;
    *error = (a - (s - b_part)) + (b - b_part);
    return s;
}

/* The index of the highest set bit of x, which is not 0: one instruction where there is one. */
CURED_HD int cured_highest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return 63 - __clzll((long long)x);
#elif defined(__GNUC__)
    return 63 - __builtin_clzll(x);
#else
    int i = 63;
    while (!((x >> i) & 1)) --i;
    return i;
#endif
}

/* Bits [low, low + 64) of the magnitude held in 32-bit words mag[first, last]; words outside are 0. */
CURED_HD uint64_t cured_exact_bits(const uint32_t *mag, int first, int last, int low) {
    uint64_t out = 0;
    for (int k = 0; k < 3; ++k) {
        const int word = (low >> 5) + k;
        if (word < first || word > last) continue;
        const int at = 32 * k - (low & 31); /* where the word's bit 0 lands in out */
        const uint64_t w = mag[word];
        if (at >= 0) out |= at < 64 ? w << at : 0;
        else out |= w >> -at;
    }
    return out;
}

/* The index of the lowest set bit of x, which is not 0. */
CURED_HD int cured_lowest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return __ffsll((long long)x) - 1;
#elif defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int i = 0;
    while (!((x >> i) & 1)) ++i;
    return i;
#endif
}

/* Word k of the magnitude of the two's-complement integer in limbs (normalized: words of 32 bits),
 * read in place: negating leaves the words below the lowest non-zero one zero, adds one to the
 * complement of that one, and complements those above. */
CURED_HD uint32_t cured_exact_magnitude_word(const int64_t *limb, int k, int negative, int lowest_nonzero) {
    const uint32_t w = (uint32_t)limb[k];
    if (!negative) return w;
    return k < lowest_nonzero ? 0u : k == lowest_nonzero ? ~w + 1u : ~w;
}

/* What the flags alone decide: 1 with *value set for a NaN (any NaN, or +inf with -inf) or an
 * infinity, else 0. */
CURED_HD int cured_exact_special(uint64_t flags, double *value) {
    if ((flags & CURED_EXACT_NAN) || ((flags & CURED_EXACT_POS_INF) && (flags & CURED_EXACT_NEG_INF))) *value = NAN;
    else if (flags & CURED_EXACT_POS_INF) *value = INFINITY;
    else if (flags & CURED_EXACT_NEG_INF) *value = -INFINITY;
    else return 0;
    return 1;
}

/* An integer sum of exactly zero: -0.0 only when every element was -0.0 (IEEE's rule). */
CURED_HD double cured_exact_zero(uint64_t flags) {
    return (flags & CURED_EXACT_NONEMPTY) && !(flags & CURED_EXACT_SIGN_CLEAR) ? -0.0 : 0.0;
}

/* The rounding itself, from what it reads of the magnitude m > 0 (the integer, or its negation):
 * its 32-bit words top, top - 1 and top - 2 (0 where below word 0), top the highest non-zero one,
 * and `lowest`, the index of m's lowest set bit. (-1)^negative x m x 2^-1074 rounded once, to
 * nearest with ties to even, to the precision and exponent range of `to` (float16, float32 or
 * float64), as a double that holds that value exactly (an infinity where it is beyond the range).
 * Three words hold every bit it keeps and the one below: the last place is at most 52 bits below
 * the highest set bit, which lies in word top. */
CURED_HD double cured_exact_round_top(int negative, int top, uint32_t word_top, uint32_t word_1, uint32_t word_2,
                                      int lowest, cured_dtype to) {
    const int precision = to == CURED_FLOAT16 ? 11 : to == CURED_FLOAT32 ? 24 : 53;
    const int max_exponent = to == CURED_FLOAT16 ? 15 : to == CURED_FLOAT32 ? 127 : 1023;
    const int min_exponent = 2 - (max_exponent + 1); /* of the normal numbers: -14, -126, -1022 */
    const int highest = 32 * top + cured_highest_bit(word_top);

    /* The result's last place: `precision` bits below the highest, but never below the smallest
     * subnormal's. Then round half to even on the bits below it. */
    const int subnormal_ulp = min_exponent - (precision - 1) - CURED_EXACT_UNIT_EXP;
    int ulp = highest - (precision - 1);
    if (ulp < subnormal_ulp) ulp = subnormal_ulp;
    /* The three words as 96 bits from word top - 2's bit 0: the last place is `shift` bits up, at
     * least 12 (ulp >= highest - 52 >= 32 (top - 2) + 12); q is bits [ulp, highest]. */
    const uint64_t upper = (uint64_t)word_top << 32 | word_1;
    const int shift = ulp - 32 * (top - 2);
    uint64_t q;
    if (shift >= 96) q = 0;
    else if (shift >= 32) q = upper >> (shift - 32);
    else q = upper << (32 - shift) | word_2 >> shift;
    const int below = shift - 1; /* the round bit's place in the 96 bits */
    const int round_bit = below >= 96 ? 0 : below >= 32 ? (int)((upper >> (below - 32)) & 1) : (int)((word_2 >> below) & 1);
    const int sticky = lowest < ulp - 1;
    if (round_bit && (sticky || (q & 1))) ++q;
    /* The rounded value is q x 2^(ulp - 1074), q <= 2^precision: beyond the largest finite value it
     * is an infinity. */
    const int q_highest = q != 0 ? cured_highest_bit(q) : 0;
    double value;
    if (q != 0 && q_highest + ulp + CURED_EXACT_UNIT_EXP > max_exponent) value = INFINITY;
    else value = ldexp((double)q, ulp + CURED_EXACT_UNIT_EXP);
    return negative ? -value : value;
}

/* The state normalized over limbs [low, high] (cured_exact_normalize) rounded once, to nearest
 * with ties to even, to the precision and exponent range of `to` (float16, float32 or float64), as
 * a double that holds that value exactly (an infinity where the rounded value is beyond the range,
 * a NaN where IEEE gives one). No copy, and no loop but two over [low, high]. */
CURED_HD double cured_exact_round(const int64_t *limb, int low, int high, uint64_t flags, cured_dtype to) {
    double special;
    if (cured_exact_special(flags, &special)) return special;

    /* Sign, and the lowest and highest non-zero words of the magnitude (negating keeps the lowest). */
    const int negative = limb[high] < 0;
    int lowest_nonzero = -1;
    for (int k = low; k <= high && lowest_nonzero < 0; ++k)
        if ((uint32_t)limb[k] != 0) lowest_nonzero = k;
    if (lowest_nonzero < 0) return cured_exact_zero(flags);
#define CURED_MAGNITUDE(k) ((k) < lowest_nonzero ? 0u : cured_exact_magnitude_word(limb, (k), negative, lowest_nonzero))
    int top = high;
    while (CURED_MAGNITUDE(top) == 0) --top;
    const int lowest = 32 * lowest_nonzero + cured_lowest_bit(CURED_MAGNITUDE(lowest_nonzero));
    const double value = cured_exact_round_top(negative, top, CURED_MAGNITUDE(top), CURED_MAGNITUDE(top - 1),
                                               CURED_MAGNITUDE(top - 2), lowest, to);
#undef CURED_MAGNITUDE
    return value;
}

/* The bytes a plan's result takes: one accumulator, or the state. */
static inline size_t cured_plan_result_bytes(const cured_plan *plan) {
    return plan->result == CURED_EXACT_STATE ? sizeof(cured_exact_state)
                                             : (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
}

/* exact_cpu.c. Adds elements [0, n) of `in` (of `dtype`) into *state exactly and normalizes it. */
void cured_exact_add(cured_exact_state *state, cured_dtype dtype, const void *in, int64_t n);

/* exact_cpu.c. cured_exact_add on the pool's threads (pool.h), as many as the input's size warrants
 * (cured_cpu_threads_for): a state a piece, the pieces' states added; the same state. */
void cured_exact_add_threads(cured_exact_state *state, cured_dtype dtype, const void *in, int64_t n);

/* exact_cpu.c. Each of `rows` rows of `length` consecutive elements at `in` summed exactly and
 * rounded once into round_to (float16, float32 or float64), into sums[row] as a double (which holds
 * it exactly): rows on the pool's threads, or each row on all of them where rows are fewer. */
void cured_exact_rows_cpu(cured_dtype dtype, const void *in, int64_t rows, int64_t length, cured_dtype round_to,
                          double *sums);

/* Writes the state's sum into *result as a plan with accumulator `acc` and result `round_to` has
 * it (cured_plan_result_bytes): the state itself for CURED_EXACT_STATE; for an integer
 * accumulator the integer modulo 2^64, as NumPy's wrap-around; otherwise the value rounded once to
 * round_to's precision, stored in the accumulator's type (exactly). */
void cured_exact_result(const cured_exact_state *state, cured_acc acc, cured_dtype round_to, void *result);

#ifdef __cplusplus
}
#endif
#endif
