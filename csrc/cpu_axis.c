/* cpu_axis.c: a sum along axes on the CPU at speed, with the bits of the order model
 * (cpu_model_axis.h) and so of the GPU's kernels (kernels/v9_axis.cu).
 *
 * The model reads each element through a switch on its dtype and walks columns one at a time, a
 * stride of a row between loads: 0.9 to 3.2 GB/s on this repository's 2-CPU build machine, where
 * numpy.sum read the same arrays at 2.2 to 38 GB/s (wall time, 2026-11-23). The order leaves free
 * what this file uses (cpu_axis_step.h): the columns of a column step are independent chains, so a
 * row is added into a block of columns' sums at once (contiguous loads, the compiler's vector adds,
 * each column's order unchanged); a row step's lanes take their chunks from contiguous rounds; the
 * input is converted to the accumulator a run at a time, or read in place where it is of that type
 * already; and the step's segments and blocks of columns, whose sums are independent, go to the
 * pool's threads (pool.h) as the whole-array CPU sum sizes them (cured_cpu_threads_for).
 *
 * Evidence (scripts/probes/axis_host.py, wall time, the H200 machine's 16-CPU host, 2026-11-23 18:39
 * UTC, float32 and float64): 27 to 218 GB/s from 1024 x 1024 up, 2.0 to 32 times numpy.sum, 2.2 to 14
 * times the GPU path (a pageable copy, the axis kernels, the results back), the GPU's bits every
 * time; rows of 16 were the slowest (27 and 46 GB/s, where the same arrays' columns read 97 and 118:
 * each row paid its setup and its lanes' tree, which the short rows' loop below removes); at 64 x
 * 64, 4.4 to 6.2 us against numpy's 4.2 to 4.7 (the Python layer's cost, not this file's:
 * module_numpy_sum.c's axes_route took it out, 2.6 to 5.5 us on the H100's host on 2026-11-27). On the
 * 2-CPU build machine: 2.9 to 22 GB/s from 1024 x 1024 up, 0.6 to 6.1 times numpy.sum (before the
 * rows' SSE2, below). On two H100 machines' 16-CPU hosts, 2026-11-27 13:23 and 13:39 UTC, with the
 * loops below: 26 to 177 GB/s from 1024 x 1024 up, 2.6 to 27 times numpy.sum; over 500 small and
 * middling cases of ten dtypes (scripts/probes/axis_cpu_shapes.py) the median 2.2 times numpy.sum,
 * 3 cases slower at 13:39 (0.79 to 0.98: an int64 sum of 2 MiB that wakes the threads, two within
 * 5%). With the AVX2 rows, F16C and the pool's ranges (below; pool.c), H100 hosts at 15:08 and 15:34
 * UTC: 47 to 131 GB/s from 1024 x 1024 up, 2.9 to 28 times numpy.sum; the median case 2.6 and 2.8
 * times numpy.sum, 2 of 500 slower each time (0.95 to 0.98). */
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "half.h"
#include "faults.h"
#include "pool.h"

/* Columns a column step's work item adds at once: their sums stay in L1 (8 KiB of doubles). */
#define COLUMN_BLOCK 1024
/* The strands' sums of a step with P > 1 strands: P x columns <= 32 x V <= 512 (axis.h). */
#define STRAND_SUMS (32 * CURED_VECTOR_BYTES)
_Static_assert(STRAND_SUMS <= COLUMN_BLOCK, "a column step with several strands fits one block of columns");

/* cpu_axis_step.h's loops over an input run: RUN(T, EXPR) for `dtype`, the element p[k] of type T
 * converted as the model's loads convert it (C's conversions) by EXPR. (Float accumulators take
 * float16 through axis_halves_f32/f64 instead, eight at a time.) */
#define AXIS_EACH_DTYPE(dtype, RUN)                                      \
    switch (dtype) {                                                     \
    case CURED_BOOL: RUN(uint8_t, p[k] != 0); break;                     \
    case CURED_INT8: RUN(int8_t, p[k]); break;                           \
    case CURED_INT16: RUN(int16_t, p[k]); break;                         \
    case CURED_INT32: RUN(int32_t, p[k]); break;                         \
    case CURED_INT64: RUN(int64_t, p[k]); break;                         \
    case CURED_UINT8: RUN(uint8_t, p[k]); break;                         \
    case CURED_UINT16: RUN(uint16_t, p[k]); break;                       \
    case CURED_UINT32: RUN(uint32_t, p[k]); break;                       \
    case CURED_UINT64: RUN(uint64_t, p[k]); break;                       \
    case CURED_FLOAT16: RUN(uint16_t, cured_half_to_float(p[k])); break; \
    case CURED_FLOAT32: RUN(float, p[k]); break;                         \
    case CURED_FLOAT64: RUN(double, p[k]); break;                        \
    case CURED_NUM_DTYPES: break;                                        \
    }

/* ---- a row step's whole rounds, read in place ---------------------------------------------------
 * axis_rounds_simd_T(part, src, G, V, rounds) adds part[g] += src[(r G + g) V + j] for r < rounds,
 * each lane's j in order, and returns 1, or returns 0 for cpu_axis_step.h's scalar loop. */

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Floats, the model's order: lane g's chain adds its chunk's V elements one after another. A lane is
 * one element of a 16-byte register, so a register carries the chains of 16 / sizeof(T) lanes (4
 * float32, 2 float64) once their chunks are transposed: the same additions in the same order,
 * several at a time (SSE2's adds round as scalar ones do; no fused multiply-add, no flush to zero).
 * `groups` registers of lanes, a compile-time constant so that they stay in registers; rounds are
 * `stride` elements apart. On this repository's build machine, one thread, rows of 16 to 2^20
 * elements (wall time, 2026-11-23, numpy.sum's in brackets): float32 from 2.2 to 7.9 GB/s one
 * element at a time to 3.9 to 11.6 (2.3 to 11.0), float64 from 1.9 to 8.0 to 5.4 to 10.0 (4.1 to
 * 13.4). */
#if defined(__SSE2__)
#include <emmintrin.h>

/* Lanes 4q .. 4q + 3's chains, float32, continued from acc: chunk g's V elements (V a multiple of 4)
 * at src + V g, each lane's in order, four lanes at a time once transposed. */
static ALWAYS_INLINE __m128 add_chunks_f32(__m128 acc, const float *src, int q, const int V) {
    const float *chunk = src + 4 * V * q;
    for (int j = 0; j < V; j += 4) {
        __m128 e0 = _mm_loadu_ps(chunk + j), e1 = _mm_loadu_ps(chunk + V + j);
        __m128 e2 = _mm_loadu_ps(chunk + 2 * V + j), e3 = _mm_loadu_ps(chunk + 3 * V + j);
        _MM_TRANSPOSE4_PS(e0, e1, e2, e3); /* ek: element j + k of the four lanes' chunks */
        acc = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_add_ps(acc, e0), e1), e2), e3);
    }
    return acc;
}

/* Lanes 2q and 2q + 1's chains, float64, continued from acc: chunk g's V elements (V even) at src + V g. */
static ALWAYS_INLINE __m128d add_chunks_f64(__m128d acc, const double *src, int q, const int V) {
    const double *chunk = src + 2 * V * q;
    for (int j = 0; j < V; j += 2) {
        const __m128d a = _mm_loadu_pd(chunk + j), b = _mm_loadu_pd(chunk + V + j);
        acc = _mm_add_pd(_mm_add_pd(acc, _mm_unpacklo_pd(a, b)), _mm_unpackhi_pd(a, b));
    }
    return acc;
}

/* The same lanes' chains from +0. */
static ALWAYS_INLINE __m128 chains_f32(const float *src, int q, const int V) {
    return add_chunks_f32(_mm_setzero_ps(), src, q, V);
}

static ALWAYS_INLINE __m128d chains_f64(const double *src, int q, const int V) {
    return add_chunks_f64(_mm_setzero_pd(), src, q, V);
}

static ALWAYS_INLINE void rounds_f32(float *part, const float *src, int64_t rounds, int64_t stride, const int groups) {
    __m128 acc[CURED_AXIS_ROW_LANES / 4];
    for (int q = 0; q < groups; ++q) acc[q] = _mm_loadu_ps(part + 4 * q);
    for (int64_t r = 0; r < rounds; ++r, src += stride)
        for (int q = 0; q < groups; ++q) acc[q] = add_chunks_f32(acc[q], src, q, 4);
    for (int q = 0; q < groups; ++q) _mm_storeu_ps(part + 4 * q, acc[q]);
}

static ALWAYS_INLINE void rounds_f64(double *part, const double *src, int64_t rounds, int64_t stride,
                                     const int groups) {
    __m128d acc[CURED_AXIS_ROW_LANES / 2];
    for (int q = 0; q < groups; ++q) acc[q] = _mm_loadu_pd(part + 2 * q);
    for (int64_t r = 0; r < rounds; ++r, src += stride)
        for (int q = 0; q < groups; ++q) acc[q] = add_chunks_f64(acc[q], src, q, 2);
    for (int q = 0; q < groups; ++q) _mm_storeu_pd(part + 2 * q, acc[q]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CURED_AXIS_AVX2 1
#include <immintrin.h>
/* Rows of 32 lanes and more where the CPU has AVX2: 8 float32 or 4 float64 lanes a register, one
 * round after another, the lanes' sums in part[] (in L1) between rounds, so that the input is read
 * in order. Meanwhile part[] holds each register's lanes in the order that in-lane unpacks of
 * 32-byte loads give them: (0, 2, 4, 6, 1, 3, 5, 7) for float32 (as cpu_tiles.c's kernel), (0, 2,
 * 1, 3) for float64. The SSE2 passes (rounds_f32/f64) read a block row's segment 8 (float32) or 16
 * times (float64), 512 or 256 bytes every 4 KiB, which the prefetchers follow poorly. One thread of
 * the build machine, wall time of cured.sum(axis=1, device="cpu"), in turns in one process, SSE2
 * passes -> these (numpy.sum in brackets): float64 (2026-11-27 14:52 UTC) (2, 65536) 29.4 -> 21.6
 * us (24.8), (1, 2^18) 56.9 -> 35.4 (46.4), (64, 4096) 53.8 -> 42.9 (47.4), (128, 512) 14.0 -> 10.3
 * (16.1), (32, 2000) 12.9 -> 8.9 (14.3), (512, 128) 18.9 -> 18.8 (22.3); float32 (14:57 UTC) (2,
 * 65536) 15.0 -> 8.5 (22.5), (1, 2^18) 31.1 -> 18.3 (43.6), (64, 4096) 30.8 -> 23.1 (44.6), (128,
 * 512) 9.4 -> 6.6 (15.0), (256, 256) 11.4 -> 9.2 (16.7), (1000, 1000) 128 -> 98 (168). */
__attribute__((target("avx2"))) static void order_lanes_f32(float *part, int64_t G, __m256i index) {
    for (int64_t g = 0; g < G; g += 8)
        _mm256_storeu_ps(part + g, _mm256_permutevar8x32_ps(_mm256_loadu_ps(part + g), index));
}

__attribute__((target("avx2"))) static void rounds_f32_avx2(float *part, const float *src, int64_t G,
                                                            int64_t rounds) {
    order_lanes_f32(part, G, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    for (int64_t r = 0; r < rounds; ++r, src += 4 * G)
        for (int64_t g = 0; g < G; g += 8) {
            const float *p = src + 4 * g;
            const __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + 8);
            const __m256 r2 = _mm256_loadu_ps(p + 16), r3 = _mm256_loadu_ps(p + 24);
            const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
            const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
            __m256 a = _mm256_loadu_ps(part + g);
            a = _mm256_add_ps(a, _mm256_shuffle_ps(t0, t2, 0x44)); /* element 0 of the 8 lanes' chunks */
            a = _mm256_add_ps(a, _mm256_shuffle_ps(t0, t2, 0xEE)); /* element 1 */
            a = _mm256_add_ps(a, _mm256_shuffle_ps(t1, t3, 0x44)); /* element 2 */
            a = _mm256_add_ps(a, _mm256_shuffle_ps(t1, t3, 0xEE)); /* element 3 */
            _mm256_storeu_ps(part + g, a);
        }
    order_lanes_f32(part, G, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* Lanes 1 and 2 of each register swapped: (0, 1, 2, 3) <-> (0, 2, 1, 3). */
__attribute__((target("avx2"))) static void swap_middle_lanes(double *part, int64_t G) {
    for (int64_t g = 0; g < G; g += 4)
        _mm256_storeu_pd(part + g, _mm256_permute4x64_pd(_mm256_loadu_pd(part + g), 0xD8));
}

__attribute__((target("avx2"))) static void rounds_f64_avx2(double *part, const double *src, int64_t G,
                                                            int64_t rounds) {
    swap_middle_lanes(part, G);
    for (int64_t r = 0; r < rounds; ++r, src += 2 * G)
        for (int64_t g = 0; g < G; g += 4) {
            const __m256d a = _mm256_loadu_pd(src + 2 * g), b = _mm256_loadu_pd(src + 2 * g + 4);
            __m256d acc = _mm256_loadu_pd(part + g);
            acc = _mm256_add_pd(acc, _mm256_unpacklo_pd(a, b)); /* element 0 of the 4 lanes' chunks */
            acc = _mm256_add_pd(acc, _mm256_unpackhi_pd(a, b)); /* element 1 */
            _mm256_storeu_pd(part + g, acc);
        }
    swap_middle_lanes(part, G);
}
#endif

static int axis_rounds_simd_f32(float *part, const float *src, int64_t G, int64_t V, int64_t rounds) {
    if (V != 4) return 0;
#ifdef CURED_AXIS_AVX2
    if (G >= 32 && __builtin_cpu_supports("avx2")) {
        rounds_f32_avx2(part, src, G, rounds);
        return 1;
    }
#endif
    switch (G) {
    case 4: rounds_f32(part, src, rounds, 16, 1); return 1;
    case 8: rounds_f32(part, src, rounds, 32, 2); return 1;
    case 16: rounds_f32(part, src, rounds, 64, 4); return 1;
    default: /* 32 lanes a pass (8 registers), each pass over all the rounds: a warp's row, a block's */
        if (G % 32 != 0) return 0;
        for (int64_t pass = 0; pass < G / 32; ++pass) rounds_f32(part + 32 * pass, src + 128 * pass, rounds, 4 * G, 8);
        return 1;
    }
}

static int axis_rounds_simd_f64(double *part, const double *src, int64_t G, int64_t V, int64_t rounds) {
    if (V != 2) return 0;
#ifdef CURED_AXIS_AVX2
    if (G >= 32 && __builtin_cpu_supports("avx2")) {
        rounds_f64_avx2(part, src, G, rounds);
        return 1;
    }
#endif
    switch (G) {
    case 2: rounds_f64(part, src, rounds, 4, 1); return 1;
    case 4: rounds_f64(part, src, rounds, 8, 2); return 1;
    case 8: rounds_f64(part, src, rounds, 16, 4); return 1;
    default: /* 16 lanes a pass: 16 accumulators and their loads would not fit 16 registers */
        if (G % 16 != 0) return 0;
        for (int64_t pass = 0; pass < G / 16; ++pass) rounds_f64(part + 16 * pass, src + 32 * pass, rounds, 2 * G, 8);
        return 1;
    }
}

/* ---- a row segment's lanes' tree ---------------------------------------------------------------
 * axis_lanes_tree_T(part, G, &sum): the SEQUENTIAL tree over lanes part[0 .. G) (lane l adds lane
 * l + offset, offsets G/2, ..., 1), in registers, into sum; returns 0 for cpu_axis_step.h's TREE.
 * TREE's levels store the lanes and load them back at the next, and the compiler's vector stores
 * followed by scalar loads of their halves stalled store-to-load forwarding: in `perf annotate`
 * the tree took about 40% of a float64 row segment's time at rows of 128 (build machine,
 * 2026-11-27). Lanes as in rounds_f32/f64: lane l is element l % w of register l / w. With it and
 * ROW_ITEM clearing G lanes instead of 256 (which had taken 21% in `rep stos`), one thread of the
 * build machine, wall time of the call, two runs of each build (12:02 UTC; numpy.sum in
 * brackets): float64 rows of 128 (512 rows) 31.2 to 31.4 -> 18.0 to 18.3 us (21.2 to 21.3), of
 * 256 21.5 to 21.6 -> 14.6 to 15.2 (16.6 to 17.1), of 512 16.4 to 16.6 -> 13.0 to 13.4 (15.1 to
 * 15.2); float32 rows of 256 13.7 -> 9.8 to 9.9 (16.0 to 16.1), of 512 10.3 -> 8.3 to 8.4. */
/* The tree's levels within one register, lane 0's sum: float32 lanes 0 + 2 and 1 + 3, then 0 + 1;
 * float64 lanes 0 + 1. */
static ALWAYS_INLINE float tree_within_f32(__m128 r) {
    const __m128 pairs = _mm_add_ps(r, _mm_movehl_ps(r, r));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}

static ALWAYS_INLINE double tree_within_f64(__m128d r) { return _mm_cvtsd_f64(_mm_add_sd(r, _mm_unpackhi_pd(r, r))); }

static ALWAYS_INLINE float lanes_tree_f32(const float *part, const int registers) {
    __m128 r[CURED_AXIS_ROW_LANES / 4];
    for (int q = 0; q < registers; ++q) r[q] = _mm_loadu_ps(part + 4 * q);
    for (int half = registers / 2; half > 0; half /= 2)
        for (int q = 0; q < half; ++q) r[q] = _mm_add_ps(r[q], r[q + half]);
    return tree_within_f32(r[0]);
}

static ALWAYS_INLINE double lanes_tree_f64(const double *part, const int registers) {
    __m128d r[CURED_AXIS_ROW_LANES / 2];
    for (int q = 0; q < registers; ++q) r[q] = _mm_loadu_pd(part + 2 * q);
    for (int half = registers / 2; half > 0; half /= 2)
        for (int q = 0; q < half; ++q) r[q] = _mm_add_pd(r[q], r[q + half]);
    return tree_within_f64(r[0]);
}

static int axis_lanes_tree_f32(const float *part, int64_t G, float *sum) {
    switch (G) {
    case 4: *sum = lanes_tree_f32(part, 1); return 1;
    case 8: *sum = lanes_tree_f32(part, 2); return 1;
    case 16: *sum = lanes_tree_f32(part, 4); return 1;
    case 32: *sum = lanes_tree_f32(part, 8); return 1;
    default: return 0;
    }
}

static int axis_lanes_tree_f64(const double *part, int64_t G, double *sum) {
    switch (G) {
    case 2: *sum = lanes_tree_f64(part, 1); return 1;
    case 4: *sum = lanes_tree_f64(part, 2); return 1;
    case 8: *sum = lanes_tree_f64(part, 4); return 1;
    case 16: *sum = lanes_tree_f64(part, 8); return 1;
    case 32: *sum = lanes_tree_f64(part, 16); return 1;
    default: return 0;
    }
}

/* ---- short rows: one round a row ------------------------------------------------------------------
 * axis_short_rows_T(out, src, rows, G, V): `rows` consecutive rows of exactly G chunks of V elements
 * (one round each) of the accumulator's type into out[0 .. rows): each row's lanes' chains, then
 * the lanes' SEQUENTIAL tree (offsets G/2, ..., 1: lane l adds lane l + offset), all in registers,
 * where axis_short_rows_fit_T(G, V) says there is such a loop (G <= 32 and V a multiple of a
 * register's lanes, w = 4 float32, 2 float64). cpu_axis_step.h reads rows of whole rounds in place,
 * and gives the others (shorter, or of another dtype) as copies in whole rounds. A row through the
 * general path (ROW_ITEM) pays for clearing its lanes, a division and a modulo, a call a round,
 * stores that its vector loads wait for, and the tree before its 16 or so additions. Lane l is
 * element l % w of register l / w: the tree's offsets of w and more add whole registers, the rest
 * add within one, each pair's lower lane first as in the model.
 * One thread on this repository's build machine, wall time, 2026-11-23 (before -> after; numpy.sum
 * along the same axis 2.5 to 12.6): float32 rows of 16 2.6 -> 12.7 GB/s, of 32 4.4 -> 13.8, of 64
 * 7.3 -> 14.0, of 128 9.1 -> 11.4; float64 rows of 8 2.2 -> 11.9, of 16 3.9 -> 13.6, of 32 5.6 ->
 * 14.8, of 64 8.5 -> 13.4. */
/* Declares acc[] and leaves in acc[0] the lanes' sums after the tree's levels over whole registers,
 * for the row at src. The first level is made as the upper half's chains are computed, so that only
 * half the registers of sums are live at once (32 float64 lanes: 8 of the 16). */
#define SHORT_ROWS_BODY(T, acc, chains, add, src, groups, V)                                        \
    T acc[CURED_AXIS_ROW_LANES / 4];                                                               \
    const int first_half = (groups) > 1 ? (groups) / 2 : 1;                                        \
    for (int q = 0; q < first_half; ++q) acc[q] = chains(src, q, V);                               \
    if ((groups) > 1)                                                                              \
        for (int q = 0; q < first_half; ++q) acc[q] = add(acc[q], chains(src, q + first_half, V)); \
    for (int half = (groups) / 4; half > 0; half /= 2)                                             \
        for (int q = 0; q < half; ++q) acc[q] = add(acc[q], acc[q + half]);

static ALWAYS_INLINE void short_rows_f32(float *out, const float *src, int64_t rows, const int groups, const int V) {
    for (int64_t r = 0; r < rows; ++r, src += 4 * groups * V) {
        SHORT_ROWS_BODY(__m128, acc, chains_f32, _mm_add_ps, src, groups, V)
        out[r] = tree_within_f32(acc[0]);
    }
}

static ALWAYS_INLINE void short_rows_f64(double *out, const double *src, int64_t rows, const int groups, const int V) {
    for (int64_t r = 0; r < rows; ++r, src += 2 * groups * V) {
        SHORT_ROWS_BODY(__m128d, acc, chains_f64, _mm_add_pd, src, groups, V)
        out[r] = tree_within_f64(acc[0]);
    }
}
#undef SHORT_ROWS_BODY

/* Rows of one chunk (G = 1) are their lane's chain alone, so chains_f32's four lanes can be four
 * consecutive rows, and chains_f64's two; rows of two chunks (G = 2, float32) are two lanes each,
 * added by the tree's one level (lane 0 + lane 1). A row the registers do not fill is added alone,
 * in the chain's order from +0. One thread on this repository's build machine (sum_axes after
 * _set_cpu_tiles(1, False), wall time, median of 15, 2026-11-27; before -> after, numpy.sum in
 * brackets): float32 rows of 4 0.65 -> 21.5 to 22.3 GB/s (1.00), of 8 1.27 -> 21.0 to 21.8 (1.80);
 * float64 rows of 2 0.53 -> 9.9 to 12.1 (1.04). They took the general path (ROW_ITEM) before. */
/* One chunk's chain from +0: a row's lane, alone. */
static ALWAYS_INLINE float chain_f32(const float *chunk, const int V) {
    float sum = 0.0f;
    for (int j = 0; j < V; ++j) sum += chunk[j];
    return sum;
}

static ALWAYS_INLINE double chain_f64(const double *chunk, const int V) {
    double sum = 0.0;
    for (int j = 0; j < V; ++j) sum += chunk[j];
    return sum;
}

static ALWAYS_INLINE void one_chunk_rows_f32(float *out, const float *src, int64_t rows, const int V) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) _mm_storeu_ps(out + r, chains_f32(src + V * r, 0, V));
    for (; r < rows; ++r) out[r] = chain_f32(src + V * r, V);
}

static ALWAYS_INLINE void one_chunk_rows_f64(double *out, const double *src, int64_t rows, const int V) {
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2) _mm_storeu_pd(out + r, chains_f64(src + V * r, 0, V));
    for (; r < rows; ++r) out[r] = chain_f64(src + V * r, V);
}

static ALWAYS_INLINE void two_chunk_rows_f32(float *out, const float *src, int64_t rows, const int V) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        /* rows r, r + 1 and r + 2, r + 3: lanes 0 and 1 of each */
        const __m128 a = chains_f32(src + 2 * V * r, 0, V), b = chains_f32(src + 2 * V * r + 4 * V, 0, V);
        const __m128 lane0 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        const __m128 lane1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        _mm_storeu_ps(out + r, _mm_add_ps(lane0, lane1));
    }
    for (; r < rows; ++r) out[r] = chain_f32(src + 2 * V * r, V) + chain_f32(src + 2 * V * r + V, V);
}

static ALWAYS_INLINE void short_rows_of_f32(float *out, const float *src, int64_t rows, int64_t G, const int V) {
    switch (G) {
    case 1: one_chunk_rows_f32(out, src, rows, V); break;
    case 2: two_chunk_rows_f32(out, src, rows, V); break;
    case 4: short_rows_f32(out, src, rows, 1, V); break;
    case 8: short_rows_f32(out, src, rows, 2, V); break;
    case 16: short_rows_f32(out, src, rows, 4, V); break;
    default: short_rows_f32(out, src, rows, 8, V); break; /* 32 */
    }
}

static ALWAYS_INLINE void short_rows_of_f64(double *out, const double *src, int64_t rows, int64_t G, const int V) {
    switch (G) {
    case 1: one_chunk_rows_f64(out, src, rows, V); break;
    case 2: short_rows_f64(out, src, rows, 1, V); break;
    case 4: short_rows_f64(out, src, rows, 2, V); break;
    case 8: short_rows_f64(out, src, rows, 4, V); break;
    case 16: short_rows_f64(out, src, rows, 8, V); break;
    default: short_rows_f64(out, src, rows, 16, V); break; /* 32 */
    }
}

static int axis_short_rows_fit_f32(int64_t G, int64_t V) {
    return G <= CURED_AXIS_ROW_LANES && (V == 4 || V == 8 || V == 16);
}

static int axis_short_rows_fit_f64(int64_t G, int64_t V) {
    return G <= CURED_AXIS_ROW_LANES && (V == 2 || V == 4 || V == 8 || V == 16);
}

/* A chunk of V elements: float32's V is 4 (float32 or 32-bit integer input), 8 (16-bit) or 16 (8-bit). */
static void axis_short_rows_f32(float *out, const float *src, int64_t rows, int64_t G, int64_t V) {
    switch (V) {
    case 4: short_rows_of_f32(out, src, rows, G, 4); break;
    case 8: short_rows_of_f32(out, src, rows, G, 8); break;
    default: short_rows_of_f32(out, src, rows, G, 16); break;
    }
}

static void axis_short_rows_f64(double *out, const double *src, int64_t rows, int64_t G, int64_t V) {
    switch (V) {
    case 2: short_rows_of_f64(out, src, rows, G, 2); break;
    case 4: short_rows_of_f64(out, src, rows, G, 4); break;
    case 8: short_rows_of_f64(out, src, rows, G, 8); break;
    default: short_rows_of_f64(out, src, rows, G, 16); break;
    }
}
#else
static int axis_short_rows_fit_f32(int64_t G, int64_t V) {
    (void)G, (void)V;
    return 0;
}
static int axis_short_rows_fit_f64(int64_t G, int64_t V) {
    (void)G, (void)V;
    return 0;
}
static void axis_short_rows_f32(float *out, const float *src, int64_t rows, int64_t G, int64_t V) {
    (void)out, (void)src, (void)rows, (void)G, (void)V;
}
static void axis_short_rows_f64(double *out, const double *src, int64_t rows, int64_t G, int64_t V) {
    (void)out, (void)src, (void)rows, (void)G, (void)V;
}
static int axis_rounds_simd_f32(float *part, const float *src, int64_t G, int64_t V, int64_t rounds) {
    (void)part, (void)src, (void)G, (void)V, (void)rounds;
    return 0;
}
static int axis_rounds_simd_f64(double *part, const double *src, int64_t G, int64_t V, int64_t rounds) {
    (void)part, (void)src, (void)G, (void)V, (void)rounds;
    return 0;
}
static int axis_lanes_tree_f32(const float *part, int64_t G, float *sum) {
    (void)part, (void)G, (void)sum;
    return 0;
}
static int axis_lanes_tree_f64(const double *part, int64_t G, double *sum) {
    (void)part, (void)G, (void)sum;
    return 0;
}
#endif

/* ---- float16 inputs into float accumulators -----------------------------------------------------
 * axis_halves_T(p, count, out): out[k] = p[k] (half bits) exactly, as cured_half_to_float, eight at a
 * time by F16C's vcvtph2ps where the CPU has it. Element by element, float16 rows along an axis on the
 * build machine ran at 1.3 to 1.5 times numpy.sum's speed where whole float16 sums (cpu_tiles.c's
 * F16C) ran at 17. Wall time there, 2026-11-27 15:12 / 15:16 UTC, one by one -> F16C (numpy.sum in
 * brackets): (1024, 1024) along 1 1506 -> 257 us (1912), (2, 65536) along 1 184 -> 29 (239), (64,
 * 64, 64) along (1, 2) 374 -> 59 (474); the median of axis_cpu_shapes.py's 50 float16 cases 2.7 ->
 * 5.4 times numpy.sum's speed. */
#ifdef CURED_AXIS_AVX2
__attribute__((target("avx,f16c"))) static void halves_f16c(const uint16_t *p, int64_t count, float *out) {
    int64_t k = 0;
    for (; k + 8 <= count; k += 8)
        _mm256_storeu_ps(out + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + k))));
    for (; k < count; ++k) out[k] = cured_half_to_float(p[k]);
}
#endif

static void axis_halves_f32(const uint16_t *p, int64_t count, float *out) {
#ifdef CURED_AXIS_AVX2
    if (__builtin_cpu_supports("f16c")) {
        halves_f16c(p, count, out);
        return;
    }
#endif
    for (int64_t k = 0; k < count; ++k) out[k] = cured_half_to_float(p[k]);
}

static void axis_halves_f64(const uint16_t *p, int64_t count, double *out) {
    float floats[256];
    for (int64_t first = 0; first < count; first += 256) {
        const int64_t n = count - first < 256 ? count - first : 256;
        axis_halves_f32(p + first, n, floats);
        for (int64_t k = 0; k < n; ++k) out[first + k] = floats[k]; /* every float is a double */
    }
}

/* cpu_axis_step.h's ADD_ROWS (a column step's rows into its columns' sums: the compiler's vector
 * loop) built for AVX2 too, the CPU's picked when the library loads: twice the columns an add. One
 * thread of the build machine, wall time, 2026-11-27 15:54 UTC, SSE2 -> both (numpy.sum in
 * brackets): float32 (1024, 1024) along 0 67 to 70 -> 54.6 to 54.9 us (69 to 75), int32 (256, 256)
 * along 0 17.5 -> 16.3 (24), int16 (64, 64, 64) along (0, 1) 68 -> 57 to 60 (120). Cloning CONVERT
 * as well made each row's conversion a call through the loader's choice, which cost more than it
 * gave where rows are narrow (bool (100, 100, 10) along 1 74 -> 104 us); clones of COLUMN_ITEM or
 * ITEMS, whose callees were not inlined into them, gained nothing. */
#ifdef CURED_AXIS_AVX2
#define AXIS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AXIS_CLONES
#endif
#define ACC_T uint64_t
#define ACC_NAME u64
#define ACC_WRAPS 1
#include "cpu_axis_step.h"
#undef ACC_T
#undef ACC_NAME
#undef ACC_WRAPS
#define ACC_T float
#define ACC_NAME f32
#define ACC_WRAPS 0
#include "cpu_axis_step.h"
#undef ACC_T
#undef ACC_NAME
#undef ACC_WRAPS
#define ACC_T double
#define ACC_NAME f64
#define ACC_WRAPS 0
#include "cpu_axis_step.h"
#undef ACC_T
#undef ACC_NAME
#undef ACC_WRAPS

typedef void (*items_fn)(const cured_axis_step *, const void *, cured_dtype, int, void *, int64_t, int64_t);

/* One step, its work items cut into tasks for the pool. */
typedef struct {
    const cured_axis_step *step;
    const void *in;
    cured_dtype dtype;
    int direct; /* `in` is of the accumulator's type: read in place */
    void *out;
    items_fn items;
    int64_t count, tasks;
} step_job;

static void step_task(void *context, int64_t task) {
    const step_job *job = (const step_job *)context;
    const int64_t begin = job->count * task / job->tasks, end = job->count * (task + 1) / job->tasks;
    job->items(job->step, job->in, job->dtype, job->direct, job->out, begin, end);
}

int cured_cpu_axis_sum_fast(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *in,
                            void *out) {
    const cured_dtype acc_dtype = cured_acc_dtype(acc);
    const int acc_size = cured_dtype_size(acc_dtype);
    const items_fn items = acc == CURED_ACC_FLOAT32 ? axis_items_f32 : acc == CURED_ACC_FLOAT64 ? axis_items_f64
                                                                                                   : axis_items_u64;
    cured_axis_step launches[CURED_AXIS_MAX_LAUNCHES];
    const int count = cured_axis_launches_of(fold, cured_dtype_size(in_dtype), acc_size, launches);
    const void *src = in;
    void *held = NULL; /* the intermediate sums src points to, if any */
    for (int i = 0; i < count; ++i) {
        const cured_axis_step *step = &launches[i];
        const int last = i == count - 1;
        const cured_dtype dtype = i == 0 ? in_dtype : acc_dtype;
        void *dst = out;
        const size_t held_bytes = (size_t)(step->outer * step->segments * step->inner) * (size_t)acc_size;
        if (!last && (dst = cured_host_malloc(held_bytes)) == NULL) {
            free(held);
            return -1;
        }
        /* int64 and uint64 add to the same bits: either reads in place into the 64-bit accumulator. */
        const int direct = dtype == acc_dtype || (acc == CURED_ACC_INT64 && dtype == CURED_UINT64) ||
                           (acc == CURED_ACC_UINT64 && dtype == CURED_INT64);
        const int64_t per_unit = step->inner == 1 ? 1 : (step->inner + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
        step_job job = {step, src, dtype, direct, dst, items, step->outer * step->segments * per_unit, 1};
        const int threads = cured_cpu_threads_for(
            cured_cpu_work_bytes(step->outer * step->reduced * step->inner, cured_dtype_size(dtype)));
        job.tasks = job.count < 8 * (int64_t)threads ? job.count : 8 * (int64_t)threads;
        if (job.tasks > 0) cured_pool_run(job.tasks, threads, step_task, &job);
        free(held);
        held = last ? NULL : dst;
        src = dst;
    }
    free(held);
    return 0;
}

/* ---- rows read across: a transposed array's rows, in place ---------------------------------------- */

/* A row step of one segment (fewer than CURED_AXIS_BLOCK_ROW_CHUNKS chunks a row) whose rows lie one
 * element apart and whose elements lie `along` bytes apart: a transposed or Fortran-order array
 * summed along its last axis, which the sum would otherwise copy into C order first (cpu_gather.c)
 * and read again. Here each lane's chain of a row adds the row's elements in the model's order,
 * many rows at once (64 float32 or 32 float64 chains side by side, which the compiler's vector
 * loop advances together), then each row's lanes go through the SEQUENTIAL tree: the model's
 * additions, so its bits.
 *
 * Rows a pass of the chains: 256 bytes of each of the rows' elements, in 4 KiB of chains (32 lanes).
 * Build machine, in turns with numpy.sum (2026-11-27 18:45 UTC, float32 transposed along 1), 64 ->
 * 256 bytes: (256, 256) 11.7 -> 8.7 us (numpy.sum 11.7), (2048, 1024) 490 -> 308 (214); 512 and
 * 1024 bytes were slower than 256 at (2048, 1024) and (512, 512) float64. */
#define ACROSS_BYTES 256
#define DEFINE_ROWS_ACROSS(T, SUFFIX)                                                              \
    static void rows_across_##SUFFIX(const cured_axis_step *s, const char *in, int64_t along, int64_t first,   \
                                     int64_t end, T *out) {                                        \
        enum { W = ACROSS_BYTES / sizeof(T) };                                                     \
        T lanes[CURED_AXIS_ROW_LANES][W];                                                          \
        const int64_t R = s->reduced, V = s->vector;                                               \
        for (int64_t r0 = first; r0 < end; r0 += W) {                                              \
            const int64_t w = end - r0 < W ? end - r0 : W;                                         \
            for (int g = 0; g < s->lanes; ++g)                                                     \
                for (int r = 0; r < W; ++r) lanes[g][r] = (T)0;                                    \
            /* Chunk after chunk, so that the elements are read in memory order; each lane still   \
             * adds its chunks g, g + G, ... in order. */                                          \
            for (int64_t c = 0; c < s->chunks; ++c) {                                              \
                T *lane = lanes[c % s->lanes];                                                     \
                for (int64_t j = 0; j < V && c * V + j < R; ++j) {                                 \
                    const T *row = (const T *)(in + (c * V + j) * along) + r0;                     \
                    if (w == W)                                                                    \
                        for (int r = 0; r < W; ++r) lane[r] += row[r];                             \
                    else                                                                           \
                        for (int r = 0; r < w; ++r) lane[r] += row[r];                             \
                }                                                                                  \
            }                                                                                      \
            for (int offset = s->lanes / 2; offset > 0; offset /= 2)                               \
                for (int l = 0; l < offset; ++l)                                                   \
                    for (int r = 0; r < W; ++r) lanes[l][r] += lanes[l + offset][r];               \
            for (int r = 0; r < w; ++r) out[r0 + r] = lanes[0][r];                                 \
        }                                                                                          \
    }
DEFINE_ROWS_ACROSS(float, f32)
DEFINE_ROWS_ACROSS(double, f64)

typedef struct {
    cured_axis_step step;
    const char *in;
    int64_t along, per_task;
    int is_double;
    void *out;
} across_job;

static void across_task(void *context, int64_t task) {
    const across_job *job = (const across_job *)context;
    const int64_t first = task * job->per_task;
    const int64_t end = first + job->per_task < job->step.outer ? first + job->per_task : job->step.outer;
    if (first >= end) return;
    if (job->is_double) rows_across_f64(&job->step, job->in, job->along, first, end, (double *)job->out);
    else rows_across_f32(&job->step, job->in, job->along, first, end, (float *)job->out);
}

void cured_cpu_rows_across(cured_dtype dtype, const void *in, int64_t rows, int64_t length, int64_t along, void *out) {
    const int item = cured_dtype_size(dtype);
    const cured_axis_step step = cured_axis_step_of(rows, length, 1, item);
    const int threads = cured_cpu_threads_for(rows * length * item);
    const int64_t passes = (rows * item + ACROSS_BYTES - 1) / ACROSS_BYTES; /* tasks take whole passes */
    const int64_t tasks = threads > 1 ? (passes < 8 * (int64_t)threads ? passes : 8 * (int64_t)threads) : 1;
    across_job job = {step, (const char *)in, along, (passes + tasks - 1) / tasks * (ACROSS_BYTES / item),
                      dtype == CURED_FLOAT64, out};
    cured_pool_run(tasks, threads, across_task, &job);
}
