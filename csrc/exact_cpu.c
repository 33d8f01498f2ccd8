/* exact_cpu.c: V10's exact sum on the CPU. Every element's significand is added, as an integer,
 * into a bin of its exponent, and the bins go into the state of exact.h: integer additions only, no
 * rounding anywhere, so the result is the GPU's bit for bit (there is only one correct answer).
 * Short rows along axes first go through float64 sums whose every addition TwoSum checks for a
 * lost bit (row_in_double): where none was lost, the float64 holds the exact sum, rounded once;
 * short float32 and float64 rows that lost one go into the state's limbs directly (row_in_limbs). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "faults.h"
#include "half.h"
#include "pool.h"

/* Elements between carries: a bin or a limb takes one value below 2^32 an element at most, so an
 * int64 cannot overflow before a carry. */
#define NORMALIZE_EVERY ((int64_t)1 << 30)

/* A term into the limbs: its three pieces. */
static inline void add_term(int64_t *limb, cured_exact_term term) {
    int64_t piece[3];
    const int first = cured_exact_pieces(term, piece);
    limb[first] += piece[0];
    limb[first + 1] += piece[1];
    if (first + 2 < CURED_EXACT_LIMBS) limb[first + 2] += piece[2];
}

/* The format loops below must be compiled once a format, with its constants folded in. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Element i of `in` as bits of an unsigned integer `bytes` wide. */
static ALWAYS_INLINE uint64_t bits_at(const void *in, int64_t i, int bytes) {
    const char *p = (const char *)in + i * bytes;
    if (bytes == 2) { uint16_t v; memcpy(&v, p, sizeof v); return v; }
    if (bytes == 4) { uint32_t v; memcpy(&v, p, sizeof v); return v; }
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* float64's significand is added in two halves, the low one SPLIT_BITS wide, so that each is below
 * 2^31 like float16's and float32's whole significands. */
#define SPLIT_BITS 27

/* An IEEE format (`width` bits, `mantissa` fraction bits): one int64 a value of the exponent field,
 * to which each element adds its signed significand (float64's halves each to a bin of its own).
 * An element is a decode and one or two adds, with no shifts and no carries, and consecutive
 * elements rarely wait on one another; the bins go into the limbs every NORMALIZE_EVERY elements.
 * On one core of the development machine (2026-11-22) this took float32 from 0.85 GB/s (each
 * element's pieces added to the limbs directly) to 4.1 GB/s. */
static ALWAYS_INLINE void add_ieee(int64_t *limb, const void *in, int64_t n, int width, int mantissa, unsigned *flags) {
    int64_t bins[2][2048]; /* [0]: the significands, or their low halves; [1]: high halves (32 KiB of stack) */
    const int exponent_bits = width - 1 - mantissa, bias = (1 << (exponent_bits - 1)) - 1;
    const int split = mantissa + 1 > 31;
    const uint64_t all_ones = ((uint64_t)1 << exponent_bits) - 1, fraction_mask = ((uint64_t)1 << mantissa) - 1;
    for (int64_t start = 0; start < n; start += NORMALIZE_EVERY) {
        const int64_t end = n - start < NORMALIZE_EVERY ? n : start + NORMALIZE_EVERY;
        uint64_t sign_and = 1;
        for (int half = 0; half <= split; ++half) memset(bins[half], 0, (size_t)all_ones * sizeof bins[half][0]);
        for (int64_t i = start; i < end; ++i) {
            const uint64_t bits = bits_at(in, i, width / 8);
            const uint64_t exponent = (bits >> mantissa) & all_ones, sign = bits >> (width - 1);
            const int64_t magnitude = (int64_t)((bits & fraction_mask) | (exponent != 0 ? fraction_mask + 1 : 0));
            const int64_t significand = (magnitude ^ -(int64_t)sign) + (int64_t)sign; /* no branch on the sign */
            sign_and &= sign;
            if (exponent == all_ones) { /* NaN or an infinity: the flags only */
                cured_exact_term unused;
                (void)cured_exact_decode_ieee(bits, width, mantissa, &unused, flags);
                continue;
            }
            if (split) {
                const int64_t high = significand >> SPLIT_BITS; /* significand = high x 2^27 + low */
                bins[0][exponent] += significand - high * ((int64_t)1 << SPLIT_BITS);
                bins[1][exponent] += high;
            } else {
                bins[0][exponent] += significand;
            }
        }
        if (!sign_and) *flags |= CURED_EXACT_SIGN_CLEAR;
        for (int half = 0; half <= split; ++half) {
            for (uint64_t e = 0; e < all_ones; ++e) {
                const int64_t v = bins[half][e];
                if (v == 0) continue;
                const cured_exact_term term = {v < 0, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v,
                                               (e != 0 ? (int)e : 1) - bias - mantissa - CURED_EXACT_UNIT_EXP +
                                                   half * SPLIT_BITS};
                add_term(limb, term);
            }
        }
        cured_exact_normalize(limb, 0, CURED_EXACT_LIMBS - 1);
    }
}

/* Integers: their value at position 1074 (units of 2^-1074), sign apart; |x| without overflow for
 * the most negative value (negated in uint64). The sign is read as the sign bit, since `x < 0` on
 * the unsigned types draws -Wtype-limits. */
#define ADD_INTEGER(type, is_signed)                                                               \
    for (int64_t i = 0; i < n; ++i) {                                                             \
        type x;                                                                                    \
        memcpy(&x, (const char *)in + i * (int64_t)sizeof x, sizeof x);                            \
        const int negative = (is_signed) && (uint64_t)(int64_t)x >> 63; /* the sign bit */        \
        const cured_exact_term term = {negative, negative ? (uint64_t)0 - (uint64_t)(int64_t)x : (uint64_t)x, \
                                       -CURED_EXACT_UNIT_EXP};                                     \
        add_term(state->limb, term);                                                               \
        if ((i + 1) % NORMALIZE_EVERY == 0) cured_exact_normalize(state->limb, 0, CURED_EXACT_LIMBS - 1); \
    }

void cured_exact_add(cured_exact_state *state, cured_dtype dtype, const void *in, int64_t n) {
    unsigned flags = (unsigned)state->flags;
    if (n > 0) flags |= CURED_EXACT_NONEMPTY;
    if (!cured_dtype_is_float(dtype) && n > 0) flags |= CURED_EXACT_SIGN_CLEAR;
    switch (dtype) {
    case CURED_FLOAT16: add_ieee(state->limb, in, n, 16, 10, &flags); break;
    case CURED_FLOAT32: add_ieee(state->limb, in, n, 32, 23, &flags); break;
    case CURED_FLOAT64: add_ieee(state->limb, in, n, 64, 52, &flags); break;
    case CURED_BOOL: { /* NumPy's bool is true when non-zero */
        uint64_t trues = 0;
        for (int64_t i = 0; i < n; ++i) trues += ((const uint8_t *)in)[i] != 0;
        const cured_exact_term term = {0, trues, -CURED_EXACT_UNIT_EXP};
        add_term(state->limb, term);
        break;
    }
    case CURED_INT8: ADD_INTEGER(int8_t, 1) break;
    case CURED_INT16: ADD_INTEGER(int16_t, 1) break;
    case CURED_INT32: ADD_INTEGER(int32_t, 1) break;
    case CURED_INT64: ADD_INTEGER(int64_t, 1) break;
    case CURED_UINT8: ADD_INTEGER(uint8_t, 0) break;
    case CURED_UINT16: ADD_INTEGER(uint16_t, 0) break;
    case CURED_UINT32: ADD_INTEGER(uint32_t, 0) break;
    case CURED_UINT64: ADD_INTEGER(uint64_t, 0) break;
    case CURED_NUM_DTYPES: break;
    }
    state->flags = flags;
    cured_exact_normalize(state->limb, 0, CURED_EXACT_LIMBS - 1);
}

void cured_exact_result(const cured_exact_state *state, cured_acc acc, cured_dtype round_to, void *result) {
    if (round_to == CURED_EXACT_STATE) {
        memcpy(result, state, sizeof *state);
    } else if (acc == CURED_ACC_INT64 || acc == CURED_ACC_UINT64) {
        /* An integer sum wraps modulo 2^64, as NumPy's: the low 64 bits of the exact integer, which
         * the normalized limbs hold in two's complement. */
        uint32_t words[CURED_EXACT_LIMBS];
        for (int k = 0; k < CURED_EXACT_LIMBS; ++k) words[k] = (uint32_t)state->limb[k];
        const uint64_t low = cured_exact_bits(words, 0, CURED_EXACT_LIMBS - 1, -CURED_EXACT_UNIT_EXP);
        memcpy(result, &low, sizeof low);
    } else if (acc == CURED_ACC_FLOAT32) {
        /* exact: the rounded value has float32's precision or less */
        const float value = (float)cured_exact_round(state->limb, 0, CURED_EXACT_LIMBS - 1, state->flags, round_to);
        memcpy(result, &value, sizeof value);
    } else {
        const double value = cured_exact_round(state->limb, 0, CURED_EXACT_LIMBS - 1, state->flags, round_to);
        memcpy(result, &value, sizeof value);
    }
}

/* ---- on the CPU's threads ---------------------------------------------------------------------- */

/* A byte costs V10 about sixteen times what it costs V9 on one core (on the H200's host, 2026-11-23,
 * scripts/probes/v10_host_place.py: float32 1.1 to 2.6 GB/s against 24 to 28, float64 4.6 against
 * 49), and cured_cpu_threads_for sizes the pool for V9's bytes: V10's work counts sixteen times. */
#define EXACT_COST_A_BYTE 16

static int exact_threads_for(int64_t bytes) {
    return cured_cpu_threads_for(bytes > INT64_MAX / EXACT_COST_A_BYTE ? INT64_MAX : bytes * EXACT_COST_A_BYTE);
}

/* Two normalized states add limb by limb (then carry) and OR their flags: the state of the two
 * pieces together, whatever the split (exact.h). */
static void add_state(cured_exact_state *state, const cured_exact_state *piece) {
    for (int k = 0; k < CURED_EXACT_LIMBS; ++k) state->limb[k] += piece->limb[k];
    state->flags |= piece->flags;
    cured_exact_normalize(state->limb, 0, CURED_EXACT_LIMBS - 1);
}

/* Task k: piece k of the input into a state of its own. */
typedef struct {
    cured_dtype dtype;
    const char *in;
    int64_t n, piece;
    int item;
    cured_exact_state *states;
} pieces_job;

static void piece_task(void *context, int64_t k) {
    const pieces_job *job = (const pieces_job *)context;
    const int64_t first = k * job->piece, count = job->n - first < job->piece ? job->n - first : job->piece;
    memset(&job->states[k], 0, sizeof job->states[k]);
    cured_exact_add(&job->states[k], job->dtype, job->in + first * job->item, count);
}

void cured_exact_add_threads(cured_exact_state *state, cured_dtype dtype, const void *in, int64_t n) {
    const int item = cured_dtype_size(dtype);
    const int threads = exact_threads_for(n * item);
    const int64_t tasks = threads > 1 && n > 1 ? (4 * (int64_t)threads < n ? 4 * (int64_t)threads : n) : 1;
    cured_exact_state *const states =
        tasks > 1 ? (cured_exact_state *)cured_host_malloc((size_t)tasks * sizeof *states) : NULL;
    if (states == NULL) { /* one thread, or no memory for the pieces' states: one state, the same sum */
        cured_exact_add(state, dtype, in, n);
        return;
    }
    pieces_job job = {dtype, (const char *)in, n, (n + tasks - 1) / tasks, item, states};
    const int64_t pieces = (n + job.piece - 1) / job.piece;
    cured_pool_run(pieces, threads, piece_task, &job);
    for (int64_t k = 0; k < pieces; ++k) add_state(state, &states[k]);
    free(states);
}

/* ---- rows in float64, while that is exact ------------------------------------------------------ */

/* A value that a double holds exactly, rounded once into `to` by the exact state's rounding
 * (float16 and float32; a float64 result is the double itself, as is a zero). */
static double round_double(double value, cured_dtype to) {
    cured_exact_term term;
    unsigned unused = 0;
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    if (to == CURED_FLOAT64 || !cured_exact_decode_ieee(bits, 64, 52, &term, &unused) || term.magnitude == 0)
        return value;
    const int negative = term.negative;
    term.negative = 0;
    int64_t word[3]; /* the magnitude's words first .. first + 2 */
    const int first = cured_exact_pieces(term, word);
    const int top = word[2] != 0 ? 2 : word[1] != 0 ? 1 : 0;
    return cured_exact_round_top(negative, first + top, (uint32_t)word[top], top >= 1 ? (uint32_t)word[top - 1] : 0u,
                                 top >= 2 ? (uint32_t)word[top - 2] : 0u,
                                 term.position + cured_lowest_bit(term.magnitude), to);
}

/* Rows of up to this many elements go first through float64 (row_in_double). On the development
 * machine (2 cores, wall time of cured.fsum(x, axis=1, device="cpu"), standard-normal rows,
 * 2026-11-26) against the exponent bins alone: float32 rows of 3, 16, 64, 256, 512 elements 0.98,
 * 2.64, 2.89, 3.18, 3.23 GB/s against 0.10, 0.49, 1.40, 2.47, 2.85, and of 1024 3.18 against 3.50;
 * float64 3.14, 3.02, 3.17, 3.20, 3.20 against 0.04, 0.19, 0.66, 1.72, 2.55, of 4096 3.30 against
 * 4.77; float16 0.33, 1.02, 1.57, 1.91, 1.99 against 0.07, 0.31, 0.92, 1.71, 2.10 (its conversion
 * to float, bit by bit, costs it more). */
#define DOUBLE_ROW_MAX 512

/* Elements between the loop's looks at whether a bit was lost. */
#define LOST_CHECK_EVERY 64

/* A row of an IEEE format (`width` bits) summed in float64 while every addition is exact, as
 * kernels/v10_axis.cu's thread_row sums short rows on the GPU: TwoSum finds each addition's error,
 * and float64 rows keep their errors' sum (`low`), exact while its own errors are zero. 1 with
 * *value the row's exact sum rounded once into round_to; 0 where a bit was lost, or an element is a
 * NaN or an infinity (which make an error NaN), for the exponent bins to sum. `sum` starts at -0.0,
 * so that it is -0.0 only where every element is, IEEE's rule. Rows of finite float16 elements
 * always stay exact; standard-normal float32 and float64 rows all but always. */
static ALWAYS_INLINE int row_in_double(const void *row, int64_t length, int width, cured_dtype round_to,
                                       double *value) {
    double sum = -0.0, low = -0.0;
    int lost = 0;
    for (int64_t start = 0; start < length && !lost; start += LOST_CHECK_EVERY) {
        const int64_t end = length - start < LOST_CHECK_EVERY ? length : start + LOST_CHECK_EVERY;
        for (int64_t i = start; i < end; ++i) {
            const uint64_t bits = bits_at(row, i, width / 8);
            double x, error;
            if (width == 16) {
                x = cured_half_to_float((uint16_t)bits);
            } else if (width == 32) {
                float f;
                const uint32_t b32 = (uint32_t)bits;
                memcpy(&f, &b32, sizeof f);
                x = f;
            } else {
                memcpy(&x, &bits, sizeof x);
            }
            sum = cured_two_sum(sum, x, &error);
            if (width == 64) {
                double low_error;
                low = cured_two_sum(low, error, &low_error);
                lost |= low_error != 0.0; /* true for a NaN too */
            } else {
                lost |= error != 0.0;
            }
        }
    }
    if (lost) return 0;
    *value = width == 64 ? (low == 0.0 ? sum : sum + low) : round_double(sum, round_to);
    return 1;
}

/* A row of an IEEE format (`width` bits, `mantissa` fraction bits) that row_in_double could not sum,
 * added straight into limbs [low, high] of a state and rounded once into round_to: the row clears
 * and reads those limbs alone, where the exponent bins (add_ieee) clear and read 255 int64s a
 * float32 row and 4094 a float64 one. Rows of up to DOUBLE_ROW_MAX elements keep every limb below
 * 2^41 before the carries; NaN, infinities and signed zeros as the state's flags say. On the
 * development machine (2 cores, wall time of cured.fsum(x, axis=1, device="cpu"), rows over the
 * whole exponent range, 2026-11-27), against the bins: float32 rows of 3, 16, 64, 256 elements
 * 0.39, 0.90, 1.09, 1.39 GB/s against 0.09, 0.29, 0.50, 0.99, of 512 1.46 against 1.73 (hence
 * FLOAT32_LIMB_ROW_MAX); float64 rows of 3, 16, 64, 256, 512 0.38, 1.21, 1.77, 2.47, 2.63 against
 * 0.017, 0.08, 0.23, 0.44, 0.61. */
#define FLOAT32_LIMB_ROW_MAX 256
#define FLOAT32_LOW_LIMB 28  /* float32's elements lie in limbs 28 to 38 (bits 925 to 1201 of the units), */
#define FLOAT32_HIGH_LIMB 41 /* their carries reach 39, and normalizing wants two limbs above */
static ALWAYS_INLINE double row_in_limbs(const void *row, int64_t length, int width, int mantissa, int low, int high,
                                         cured_dtype round_to) {
    int64_t limb[CURED_EXACT_LIMBS];
    memset(limb + low, 0, (size_t)(high - low + 1) * sizeof limb[0]);
    unsigned flags = CURED_EXACT_NONEMPTY;
    for (int64_t i = 0; i < length; ++i) {
        cured_exact_term term;
        if (cured_exact_decode_ieee(bits_at(row, i, width / 8), width, mantissa, &term, &flags)) add_term(limb, term);
    }
    cured_exact_normalize(limb, low, high);
    return cured_exact_round(limb, low, high, flags, round_to);
}

/* One row summed exactly, on the pool's threads or on this one, and rounded once into round_to:
 * rows of up to DOUBLE_ROW_MAX floats first in float64 (row_in_double), where the exponent bins
 * cost a row more than its elements (clearing 255 or 2047 bins, then reading them all). A float64
 * row goes so only into a float64 result (sum + low rounds once into float64 alone); and only
 * where doubles round to double (FLT_EVAL_METHOD 0: SSE2, not x87's wider registers). Float32
 * rows of up to FLOAT32_LIMB_ROW_MAX and float64 rows of up to DOUBLE_ROW_MAX that it could not
 * sum go straight into a state's limbs (row_in_limbs), the rest into the bins. */
static double rounded_row(cured_dtype dtype, const char *row, int64_t length, cured_dtype round_to, int threaded) {
    double value;
    if (FLT_EVAL_METHOD == 0 && !threaded && length > 0 && length <= DOUBLE_ROW_MAX &&
        ((dtype == CURED_FLOAT16 && row_in_double(row, length, 16, round_to, &value)) ||
         (dtype == CURED_FLOAT32 && row_in_double(row, length, 32, round_to, &value)) ||
         (dtype == CURED_FLOAT64 && round_to == CURED_FLOAT64 && row_in_double(row, length, 64, round_to, &value))))
        return value;
    if (!threaded && length > 0 && dtype == CURED_FLOAT32 && length <= FLOAT32_LIMB_ROW_MAX)
        return row_in_limbs(row, length, 32, 23, FLOAT32_LOW_LIMB, FLOAT32_HIGH_LIMB, round_to);
    if (!threaded && length > 0 && dtype == CURED_FLOAT64 && length <= DOUBLE_ROW_MAX)
        return row_in_limbs(row, length, 64, 52, 0, CURED_EXACT_LIMBS - 1, round_to);
    cured_exact_state state;
    memset(&state, 0, sizeof state);
    if (threaded) cured_exact_add_threads(&state, dtype, row, length);
    else cured_exact_add(&state, dtype, row, length);
    return cured_exact_round(state.limb, 0, CURED_EXACT_LIMBS - 1, state.flags, round_to);
}

/* Task k: rows [k * per_task, ...) of an exact_rows job. */
typedef struct {
    cured_dtype dtype, round_to;
    const char *in;
    int64_t rows, length, per_task;
    double *sums;
} rows_job;

static void rows_task(void *context, int64_t k) {
    const rows_job *job = (const rows_job *)context;
    const int64_t row_bytes = job->length * cured_dtype_size(job->dtype);
    const int64_t end = (k + 1) * job->per_task < job->rows ? (k + 1) * job->per_task : job->rows;
    for (int64_t i = k * job->per_task; i < end; ++i)
        job->sums[i] = rounded_row(job->dtype, job->in + i * row_bytes, job->length, job->round_to, 0);
}

void cured_exact_rows_cpu(cured_dtype dtype, const void *in, int64_t rows, int64_t length, cured_dtype round_to,
                          double *sums) {
    const int threads = exact_threads_for(rows * length * cured_dtype_size(dtype));
    if (rows < threads) { /* few long rows: each on every thread */
        const int64_t row_bytes = length * cured_dtype_size(dtype);
        for (int64_t i = 0; i < rows; ++i)
            sums[i] = rounded_row(dtype, (const char *)in + i * row_bytes, length, round_to, 1);
        return;
    }
    const int64_t tasks = rows < 8 * (int64_t)threads ? rows : 8 * (int64_t)threads;
    rows_job job = {dtype, round_to, (const char *)in, rows, length, (rows + tasks - 1) / tasks, sums};
    cured_pool_run((rows + job.per_task - 1) / job.per_task, threads, rows_task, &job);
}
