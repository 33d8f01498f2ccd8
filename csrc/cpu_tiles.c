/* cpu_tiles.c: V9's order on the CPU, at the host memory's speed: the same bits as the V9 kernel and
 * as its scalar order model (cpu_model_pass.h), from every CPU thread the machine has.
 *
 * What the order fixes, and what is free. In a V9 tile, thread i of 256 adds, from 0 and in order,
 * its elements of each step: vector u * 256 + i of the step for u = 0..7, each vector's elements in
 * order; then the block's WARPS tree; then the tiles' partials combine in a fixed tree (cured.h). So
 * the 256 threads' sums are 256 independent chains, and the tiles are independent of each other:
 *  - SIMD across threads: 8 (float) or 4 (double) threads' chains advance in one AVX2 register.
 *    Thread i's elements of a vector are consecutive in memory, so each load of 8 threads' vectors
 *    is transposed in registers (AoS to SoA) first; then element j of every thread is added in
 *    order j = 0, 1, ...: each chain sees exactly the model's additions. No reassociation, no
 *    fused multiply-add (there is no multiply), no flush to zero: IEEE adds in the accumulator's
 *    type, as on the GPU. Without AVX2 (or off x86-64), the same chains in plain C.
 *  - Threads across tiles: the pool's threads (pool.h) take tiles; the partials are combined
 *    afterwards in the model's order.
 *  - Past the end of the input the kernel adds zeros; adding +0 to a chain that starts from +0
 *    never changes it, so whole vectors past the end are skipped and the one vector that the end
 *    cuts is padded with zeros.
 *  - A strided host array (cured_cpu_tiles_sum_strided) is gathered a range of its C order at a
 *    time (cpu_gather.c) into a buffer each thread keeps, whose blocks feed the same chains: the
 *    array is read once, where a C-order copy first was written whole and read again. A 1-D view
 *    (once dimensions merge) reversed or of every other element, float32 or float64, is not even
 *    gathered: its blocks are read where they lie, by loads that leave its C order in the
 *    registers (in_place); nor is a transposed float32 matrix of 32 to 1024 rows or a float64 one
 *    of 16 to 1024, a power of two, whose chains each read four or two of its rows (in each block)
 *    (transposed_chains_f32, _f64).
 *
 * How the work is cut among the pool's threads, and a strided input's ranges: cpu_work.c. Integer
 * accumulators, whose order is free, are summed in cpu_integers.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_work.h"
#include "faults.h"
#include "half.h"
#include "pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CURED_AVX2 1
#endif

#define THREADS 256 /* V9's block */
#define VECTORS 8   /* V9's vectors a thread a step */
#define TALL_MOST_BLOCKS 2 /* transposed_chains_f64: a column's blocks at most (rows up to 1024) */

/* ---- one vector of every thread: lanes[i] += element j of thread i's vector, j in order ------ */

typedef void (*add_block_fn)(void *lanes, const void *block);

/* Several blocks at once: lanes[i] += every element of thread i's vector of blocks[0], ...,
 * blocks[count - 1], in that order, so that a kernel can keep the chains in registers across the
 * blocks instead of loading and storing lanes[] for each one. */
typedef void (*add_blocks_fn)(void *lanes, const char *const *blocks, int count);

/* A kernel may keep the chains in lanes[] in an order of its own (the AVX2 ones keep the order their
 * in-lane transposes leave, which saves the cross-lane shuffles); `to_thread_order`, where not
 * NULL, puts them back in thread order before the block's tree. A kernel has `add_blocks`, or else
 * `add`, which is called block by block. */
typedef struct {
    add_block_fn add;
    void (*to_thread_order)(void *lanes);
    add_blocks_fn add_blocks;
} block_adder;

#define CONVERT_VALUE(ACC_T, x) ((ACC_T)(x))
#define CONVERT_BOOL(ACC_T, x) ((ACC_T)((x) != 0))
#define CONVERT_HALF(ACC_T, x) ((ACC_T)cured_half_to_float(x))

#define DEFINE_ADD_BLOCK(NAME, IN_T, ACC_T, CONVERT)                                               \
    static void NAME(void *lanes_, const void *block_) {                                           \
        enum { V = 16 / sizeof(IN_T) };                                                            \
        ACC_T *lanes = (ACC_T *)lanes_;                                                            \
        const IN_T *block = (const IN_T *)block_;                                                  \
        for (int i = 0; i < THREADS; ++i) {                                                        \
            ACC_T a = lanes[i];                                                                    \
            for (int j = 0; j < V; ++j) a += CONVERT(ACC_T, block[i * V + j]);                     \
            lanes[i] = a;                                                                          \
        }                                                                                          \
    }

/* Every input dtype into float and into double, in the order of CURED_DTYPES. */
#define FOR_EACH_INPUT(X, ACC_T, SUFFIX)                                                           \
    X(add_bool_##SUFFIX, uint8_t, ACC_T, CONVERT_BOOL)                                             \
    X(add_i8_##SUFFIX, int8_t, ACC_T, CONVERT_VALUE)                                               \
    X(add_i16_##SUFFIX, int16_t, ACC_T, CONVERT_VALUE)                                             \
    X(add_i32_##SUFFIX, int32_t, ACC_T, CONVERT_VALUE)                                             \
    X(add_i64_##SUFFIX, int64_t, ACC_T, CONVERT_VALUE)                                             \
    X(add_u8_##SUFFIX, uint8_t, ACC_T, CONVERT_VALUE)                                              \
    X(add_u16_##SUFFIX, uint16_t, ACC_T, CONVERT_VALUE)                                            \
    X(add_u32_##SUFFIX, uint32_t, ACC_T, CONVERT_VALUE)                                            \
    X(add_u64_##SUFFIX, uint64_t, ACC_T, CONVERT_VALUE)                                            \
    X(add_f16_##SUFFIX, uint16_t, ACC_T, CONVERT_HALF)                                             \
    X(add_f32_##SUFFIX, float, ACC_T, CONVERT_VALUE)                                               \
    X(add_f64_##SUFFIX, double, ACC_T, CONVERT_VALUE)
FOR_EACH_INPUT(DEFINE_ADD_BLOCK, float, f32)
FOR_EACH_INPUT(DEFINE_ADD_BLOCK, double, f64)

/* The plain C chains, by input dtype and accumulator (float, double); `fast` starts as a copy and
 * takes the SIMD functions the CPU can run. */
#define PAIR(d) {{add_##d##_f32, NULL, NULL}, {add_##d##_f64, NULL, NULL}}
static const block_adder plain[CURED_NUM_DTYPES][2] = {PAIR(bool), PAIR(i8),  PAIR(i16), PAIR(i32),
                                                         PAIR(i64),  PAIR(u8),  PAIR(u16), PAIR(u32),
                                                         PAIR(u64),  PAIR(f16), PAIR(f32), PAIR(f64)};
#undef PAIR
static block_adder fast[CURED_NUM_DTYPES][2];

/* float32 into float [0] and float64 into double [1], from blocks read where they lie in a 1-D view
 * reversed or of every other element (the loaders below; with AVX2 only, else zeroed: such views
 * are then gathered). Their lanes are in the contiguous kernels' order, so a gathered block (the
 * one the end cuts) may follow them in a tile. */
enum { READ_REVERSED, READ_EVERY_OTHER, IN_PLACE_READS };
static block_adder in_place[IN_PLACE_READS][2];

/* A transposed float32 [0] or float64 [1] matrix's tiles from its columns where they lie:
 * transposed_task_f32 and _f64 where the CPU has AVX2, else NULL (transposed_in_place). */
static void (*transposed_task[2])(void *context, int64_t task);

#ifdef CURED_AVX2
static void transposed_task_f32(void *context, int64_t task);
static void transposed_task_f64(void *context, int64_t task);

/* Loaders: the 8 floats (4 doubles) of a block's C order from element `at` of a block whose element
 * 0 is at p. A contiguous block's are its memory; a 1-D view's blocks are also read where they lie,
 * reversed (p its highest address) or every other element, so that V9's chains get the same
 * registers as from its gathered copy, without the copy (float_tiles_sum, in_place_step). Neither
 * reads outside the elements asked for: a reversed load ends at element `at`, and every other
 * element's second load starts one element early so as to end at the last one it keeps.
 * One thread of the build machine (2026-11-28 14:02 UTC against 13:40, scripts/probes/
 * strided_threads.py, wall time in turns with numpy.sum): float64 (256, 128) [::-1, ::-1] 8.0 ->
 * 4.5 us (numpy.sum 6.1), (256, 256) [::-1, ::-1] 15.3 -> 7.6 (10.7), (256, 256)[:, ::2] 7.5 -> 6.8
 * (7.1), (256, 512)[:, ::2] 19.6 -> 14.0 (13.6); float32 (256, 256) [::-1, ::-1] 7.7 -> 4.2 (10.1),
 * (256, 512)[:, ::2] 8.7 -> 5.0 (10.2). Every other element reads twice its bytes, as numpy.sum's
 * strided loop does. */
__attribute__((target("avx2"))) static inline __m256 f32_in_order(const float *p, int at) { return _mm256_loadu_ps(p + at); }

__attribute__((target("avx2"))) static inline __m256 f32_reversed(const float *p, int at) {
    return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p - at - 7), _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}

__attribute__((target("avx2"))) static inline __m256 f32_every_other(const float *p, int at) {
    const __m256 x = _mm256_loadu_ps(p + 2 * at), y = _mm256_loadu_ps(p + 2 * at + 7); /* q0..q7, q7..q14 */
    const __m256 pairs = _mm256_shuffle_ps(x, y, 0xD8);                                /* q0 q2 q8 q10 | q4 q6 q12 q14 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xD8));
}

__attribute__((target("avx2"))) static inline __m256d f64_in_order(const double *p, int at) { return _mm256_loadu_pd(p + at); }

__attribute__((target("avx2"))) static inline __m256d f64_reversed(const double *p, int at) {
    return _mm256_permute4x64_pd(_mm256_loadu_pd(p - at - 3), 0x1B);
}

__attribute__((target("avx2"))) static inline __m256d f64_every_other(const double *p, int at) {
    const __m256d x = _mm256_loadu_pd(p + 2 * at), y = _mm256_loadu_pd(p + 2 * at + 3); /* q0..q3, q3..q6 */
    return _mm256_permute4x64_pd(_mm256_shuffle_pd(x, y, 0xA), 0xD8);                   /* q0 q4 q2 q6 -> in order */
}

/* float32 into float: 8 threads a register. Whole 32-byte loads hold two threads' vectors, one in
 * each 128-bit half, and in-lane 4x4 transposes (4 unpacks, 4 shuffles) give element j of threads
 * i+0, 2, 4, 6 | 1, 3, 5, 7: lanes keep that order (restored by f32_to_thread_order). Loading
 * threads i..i+3 into the low halves instead cost 4 more shuffle-port inserts; 15% faster without
 * them (2026-11-22, EPYC, L2-resident input). */
/* The in-lane 4x4 transpose: element[k] holds element k of r0 .. r3's low halves, then of their
 * high halves. */
__attribute__((target("avx2"))) static inline void f32_transpose_in_lanes(__m256 r0, __m256 r1, __m256 r2, __m256 r3,
                                                                          __m256 element[4]) {
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    element[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    element[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    element[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    element[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

#define DEFINE_ADD_F32_F32(NAME, LOAD)                                                             \
    __attribute__((target("avx2"))) static void NAME(void *lanes_, const void *block_) {           \
        float *lanes = (float *)lanes_;                                                            \
        const float *block = (const float *)block_;                                                \
        for (int i = 0; i < THREADS; i += 8) {                                                     \
            __m256 element[4];                                                                     \
            f32_transpose_in_lanes(LOAD(block, i * 4), LOAD(block, i * 4 + 8), LOAD(block, i * 4 + 16), \
                                   LOAD(block, i * 4 + 24), element);                              \
            __m256 a = _mm256_loadu_ps(lanes + i);                                                 \
            for (int j = 0; j < 4; ++j) a = _mm256_add_ps(a, element[j]); /* elements in order */  \
            _mm256_storeu_ps(lanes + i, a);                                                        \
        }                                                                                          \
    }
DEFINE_ADD_F32_F32(add_f32_f32_avx2, f32_in_order)
DEFINE_ADD_F32_F32(add_f32_f32_reversed_avx2, f32_reversed)
DEFINE_ADD_F32_F32(add_f32_f32_every_other_avx2, f32_every_other)

static void f32_to_thread_order(void *lanes_) {
    float *lanes = (float *)lanes_, kept[8];
    for (int i = 0; i < THREADS; i += 8) {
        memcpy(kept, lanes + i, sizeof kept);
        for (int k = 0; k < 4; ++k) lanes[i + 2 * k] = kept[k], lanes[i + 2 * k + 1] = kept[4 + k];
    }
}

/* float64 into double: 4 threads a register; whole 32-byte loads and in-lane unpacks give threads
 * i+0, 2 | 1, 3 (restored by f64_to_thread_order), 20% faster than inserting halves. Several blocks
 * at once: 32 threads' chains stay in 8 registers over the blocks (8 independent chains cover the
 * adds' latency), where a kernel of one block at a time loaded and stored lanes[] for every 64 bytes
 * of input; float64 2^14 and 2^16 ran 10 to 15% faster so (2026-11-23, EPYC, one thread, A/B in one
 * process). */
#define DEFINE_ADD_F64_F64_BLOCKS(NAME, LOAD)                                                      \
    __attribute__((target("avx2"))) static void NAME(void *lanes_, const char *const *blocks, int count) { \
        double *lanes = (double *)lanes_;                                                          \
        for (int i = 0; i < THREADS; i += 32) {                                                    \
            __m256d a[8];                                                                          \
            for (int k = 0; k < 8; ++k) a[k] = _mm256_loadu_pd(lanes + i + 4 * k);                 \
            for (int b = 0; b < count; ++b) {                                                      \
                const double *p = (const double *)blocks[b];                                       \
                for (int k = 0; k < 8; ++k) {                                                      \
                    const __m256d r0 = LOAD(p, i * 2 + 8 * k), r1 = LOAD(p, i * 2 + 8 * k + 4);    \
                    a[k] = _mm256_add_pd(a[k], _mm256_unpacklo_pd(r0, r1));                        \
                    a[k] = _mm256_add_pd(a[k], _mm256_unpackhi_pd(r0, r1));                        \
                }                                                                                  \
            }                                                                                      \
            for (int k = 0; k < 8; ++k) _mm256_storeu_pd(lanes + i + 4 * k, a[k]);                 \
        }                                                                                          \
    }
DEFINE_ADD_F64_F64_BLOCKS(add_f64_f64_blocks_avx2, f64_in_order)
DEFINE_ADD_F64_F64_BLOCKS(add_f64_f64_reversed_blocks_avx2, f64_reversed)
DEFINE_ADD_F64_F64_BLOCKS(add_f64_f64_every_other_blocks_avx2, f64_every_other)

static void f64_to_thread_order(void *lanes_) {
    double *lanes = (double *)lanes_;
    for (int i = 0; i < THREADS; i += 4) {
        const double kept = lanes[i + 1];
        lanes[i + 1] = lanes[i + 2];
        lanes[i + 2] = kept;
    }
}

/* a (4 threads' chains) += elements 0, 1, 2, 3 of each thread, rk holding thread k's 4 elements,
 * in that order: a 4x4 transpose of doubles. */
__attribute__((target("avx2"))) static inline __m256d add_4x4_f64(__m256d a, __m256d r0, __m256d r1, __m256d r2,
                                                                   __m256d r3) {
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    a = _mm256_add_pd(a, _mm256_permute2f128_pd(t0, t2, 0x20)); /* element 0 */
    a = _mm256_add_pd(a, _mm256_permute2f128_pd(t1, t3, 0x20)); /* element 1 */
    a = _mm256_add_pd(a, _mm256_permute2f128_pd(t0, t2, 0x31)); /* element 2 */
    return _mm256_add_pd(a, _mm256_permute2f128_pd(t1, t3, 0x31)); /* element 3 */
}

/* float32 into double (dtype=float64): each thread's 4 floats widen exactly to 4 doubles, then a
 * 4x4 transpose of 4 threads. */
__attribute__((target("avx2"))) static void add_f32_f64_avx2(void *lanes_, const void *block_) {
    double *lanes = (double *)lanes_;
    const float *block = (const float *)block_;
    for (int i = 0; i < THREADS; i += 4) {
        const float *p = block + i * 4;
        const __m256d r0 = _mm256_cvtps_pd(_mm_loadu_ps(p)), r1 = _mm256_cvtps_pd(_mm_loadu_ps(p + 4));
        const __m256d r2 = _mm256_cvtps_pd(_mm_loadu_ps(p + 8)), r3 = _mm256_cvtps_pd(_mm_loadu_ps(p + 12));
        _mm256_storeu_pd(lanes + i, add_4x4_f64(_mm256_loadu_pd(lanes + i), r0, r1, r2, r3));
    }
}

/* Inputs of 2-byte words (float16, int16, uint16), each thread's vector 8 elements that WIDEN makes
 * 8 floats, exactly (F16C's conversion; an int16 or uint16 is an integer below 2^24):
 *  - into double: elements 0 to 3 of 4 threads and then 4 to 7, widened again, as float32's;
 *  - into float: an 8x8 transpose of 8 threads' words, then each element row widened and added.
 * float16 element by element (the plain chains): 2^16 into float64 took 81.3 us on one thread of
 * the build machine where numpy.sum(x, dtype=np.float64) took 68.8; now 15.2 (2026-11-27 15:20
 * UTC; 2^20 688 -> 136 to 220, numpy.sum 1072). int16 and uint16 into float32 and float64 ran at
 * 0.92 to 1.03 of numpy.sum's speed at 2^16 and 2^18 element by element, 1.45 to 2.7 times it so
 * (build machine, one process, 2026-11-27 17:10 and 17:14 UTC). */
#define DEFINE_WORDS_ADDERS(SUFFIX, WIDEN, TARGET)                                                 \
    __attribute__((target(TARGET))) static void add_##SUFFIX##_f64_avx2(void *lanes_, const void *block_) { \
        double *lanes = (double *)lanes_;                                                          \
        const __m128i *block = (const __m128i *)block_;                                            \
        for (int i = 0; i < THREADS; i += 4) {                                                     \
            __m256 f[4];                                                                           \
            for (int k = 0; k < 4; ++k) f[k] = WIDEN(_mm_loadu_si128(block + i + k));             \
            __m256d a = _mm256_loadu_pd(lanes + i);                                                \
            __m256d lo[4], hi[4]; /* elements 0 to 3, 4 to 7 */                                    \
            for (int k = 0; k < 4; ++k) {                                                          \
                lo[k] = _mm256_cvtps_pd(_mm256_castps256_ps128(f[k]));                             \
                hi[k] = _mm256_cvtps_pd(_mm256_extractf128_ps(f[k], 1));                           \
            }                                                                                      \
            a = add_4x4_f64(a, lo[0], lo[1], lo[2], lo[3]);                                        \
            a = add_4x4_f64(a, hi[0], hi[1], hi[2], hi[3]);                                        \
            _mm256_storeu_pd(lanes + i, a);                                                        \
        }                                                                                          \
    }                                                                                              \
    __attribute__((target(TARGET))) static void add_##SUFFIX##_f32_avx2(void *lanes_, const void *block_) { \
        float *lanes = (float *)lanes_;                                                            \
        const __m128i *block = (const __m128i *)block_;                                            \
        for (int i = 0; i < THREADS; i += 8) {                                                     \
            __m128i r[8], s[8], t[8];                                                              \
            for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(block + i + k);                     \
            for (int k = 0; k < 4; ++k) {                                                          \
                s[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);                             \
                s[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);                         \
            }                                                                                      \
            for (int k = 0; k < 2; ++k)                                                            \
                for (int h = 0; h < 2; ++h) {                                                      \
                    t[4 * k + 2 * h] = _mm_unpacklo_epi32(s[4 * k + h], s[4 * k + h + 2]);         \
                    t[4 * k + 2 * h + 1] = _mm_unpackhi_epi32(s[4 * k + h], s[4 * k + h + 2]);     \
                }                                                                                  \
            /* t[0]: elements 0,1 of threads 0..3; t[1]: 2,3; t[2]: 4,5; t[3]: 6,7; t[4..7]: threads 4..7. */ \
            __m256 a = _mm256_loadu_ps(lanes + i);                                                 \
            for (int k = 0; k < 4; ++k) {                                                          \
                a = _mm256_add_ps(a, WIDEN(_mm_unpacklo_epi64(t[k], t[k + 4])));                  \
                a = _mm256_add_ps(a, WIDEN(_mm_unpackhi_epi64(t[k], t[k + 4])));                  \
            }                                                                                      \
            _mm256_storeu_ps(lanes + i, a);                                                        \
        }                                                                                          \
    }
#define WIDEN_F16(v) _mm256_cvtph_ps(v)
#define WIDEN_I16(v) _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(v))
#define WIDEN_U16(v) _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(v))
DEFINE_WORDS_ADDERS(f16, WIDEN_F16, "avx2,f16c")
DEFINE_WORDS_ADDERS(i16, WIDEN_I16, "avx2")
DEFINE_WORDS_ADDERS(u16, WIDEN_U16, "avx2")

/* A transposed float64 matrix's chains where they lie, without its gather: v = a.T (v's C order
 * runs down a's columns) of a matrix a of `rows` R, a power of two from 16 to 1024, whose columns are
 * consecutive doubles and whose rows lie `pitch` bytes apart. A block (512 doubles) then holds P =
 * 512 / R whole columns of a, and thread i's chain reads, in column b * P + floor(2i / R) of each
 * block b of its tile, rows 2i mod R and the next: the same two rows in every P-th column, in
 * block order. So two rows' 16-byte loads of columns c and c + 1, unpacked in lanes, are 4 chains' next
 * element of column c and of column c + 1: with P >= 2 column c + 1 belongs to the chains of
 * floor(2i / R) + 1 (the same rows), with P = 1 to the same chains' next block. With R = 1024 a
 * column is two blocks, whose rows 2i, 2i + 1, then 512 + 2i, 513 + 2i are chain i's: column c + 1's
 * elements wait in later[] until column c's second block is added. (2048 and 4096 rows, a tile of
 * two columns or one, read 16 or 8 bytes of a row a tile, and lost to the gather on one thread of the
 * build machine: (2048, 64) .T 82.0 us against 69.1, (4096, 10) .T 26.7 against 24.6; 1024 rows
 * won there, (1024, 40) .T 13.3 against 20.8, (1024, 128) .T 64.9 against 85.7, and on an H200's
 * host (2026-11-29 07:22 UTC, strided_threads.py's forced gather in the same turns): (1024, 16) .T
 * 7.9 against 9.9, (1024, 64) .T 28.0 against 31.1, (1024, 128) .T 52.7 against 65.8; that host's
 * numpy.sum took 5.6, 17.2, 35.5.) Each chain adds its
 * elements in the model's order; a column past the matrix's end is not read, its lanes added as +0,
 * which leaves a chain begun at +0 as it was (as the kernel's zeros past the end do). lanes[] gets
 * the tile's 256 chains in thread order; `columns` are those of the tile that exist (all of its
 * length's R-th part but at the matrix's end), from column 0 at `src`.
 * Where the gather wrote a range of the C order into a buffer before the chains read it, this
 * reads the matrix once. H200's 16-CPU host, strided_threads.py, wall time in turns with
 * numpy.sum, one thread (2026-11-29 02:28 / 02:31 UTC, two hosts' speeds): float64 (256, 128) .T
 * 14.1 / 9.1 us against 18.0 / 10.3, (256, 256) .T 26.9 / 17.0 against 31.7 / 18.4; gathered, on
 * the same kind of host the day before (12:16 UTC), (256, 128) .T took 20.8 us against 12.5. */
__attribute__((target("avx2"))) static inline __m256d two_rows_f64(const char *low, const char *high, int pair) {
    const __m128d l = pair ? _mm_loadu_pd((const double *)low) : _mm_load_sd((const double *)low);
    const __m128d h = pair ? _mm_loadu_pd((const double *)high) : _mm_load_sd((const double *)high);
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(l), h, 1);
}

__attribute__((target("avx2"))) static void transposed_chains_f64(const char *src, int64_t pitch, int64_t rows,
                                                                    int64_t columns, double *lanes) {
    const int64_t per_block = rows < 512 ? 512 / rows : 1, column_step = per_block > 1 ? per_block : 2;
    const int64_t halves = rows > 512 ? rows / 512 : 1, chain_rows = rows < 512 ? rows : 512;
    for (int64_t q = 0; q < (per_block > 1 ? per_block : 1); q += 2)
        for (int64_t r = 0; r < chain_rows; r += 16) { /* rows r..r+15: chains q*R/2 + r/2 .. +7 (and of q + 1) */
            __m256d even[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
            __m256d odd[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
            for (int64_t c = q; c < columns; c += column_step) {
                const int pair = c + 1 < columns;
                __m256d later[TALL_MOST_BLOCKS][2][2]; /* P = 1: column c + 1's, after column c's blocks */
                for (int64_t j = 0; j < halves; ++j)
                    for (int h = 0; h < 2; ++h) { /* rows 512j + r + 8h .. + 7: chains + 4h */
                        const char *row = src + (512 * j + r + 8 * h) * pitch + c * (int64_t)sizeof(double);
                        /* lanes: rows +0, +4, +2, +6 (element 0) and +1, +5, +3, +7 (element 1) */
                        const __m256d a0 = two_rows_f64(row, row + 2 * pitch, pair);
                        const __m256d b0 = two_rows_f64(row + 4 * pitch, row + 6 * pitch, pair);
                        const __m256d a1 = two_rows_f64(row + pitch, row + 3 * pitch, pair);
                        const __m256d b1 = two_rows_f64(row + 5 * pitch, row + 7 * pitch, pair);
                        even[h] = _mm256_add_pd(even[h], _mm256_unpacklo_pd(a0, b0));
                        even[h] = _mm256_add_pd(even[h], _mm256_unpacklo_pd(a1, b1));
                        if (per_block > 1) {
                            odd[h] = _mm256_add_pd(odd[h], _mm256_unpackhi_pd(a0, b0));
                            odd[h] = _mm256_add_pd(odd[h], _mm256_unpackhi_pd(a1, b1));
                        } else {
                            later[j][h][0] = _mm256_unpackhi_pd(a0, b0);
                            later[j][h][1] = _mm256_unpackhi_pd(a1, b1);
                        }
                    }
                if (per_block == 1)
                    for (int64_t j = 0; j < halves; ++j)
                        for (int h = 0; h < 2; ++h) {
                            even[h] = _mm256_add_pd(even[h], later[j][h][0]);
                            even[h] = _mm256_add_pd(even[h], later[j][h][1]);
                        }
            }
            double *chains = lanes + q * rows / 2 + r / 2;
            for (int h = 0; h < 2; ++h) { /* lanes (0, 2, 1, 3) into thread order */
                _mm256_storeu_pd(chains + 4 * h, _mm256_permute4x64_pd(even[h], 0xD8));
                if (per_block > 1) _mm256_storeu_pd(chains + rows / 2 + 4 * h, _mm256_permute4x64_pd(odd[h], 0xD8));
            }
        }
}

/* A transposed float32 matrix's chains where they lie, as transposed_chains_f64's: a of `rows` R, a
 * power of two from 32 to 1024, so that a block (1024 floats) holds P = 1024 / R whole columns and
 * thread i's chain reads, in column b * P + floor(4i / R) of each block b, rows 4i mod R to + 3.
 * Rows r .. r + 31 (chains r/4 .. r/4 + 7 of a column) are loaded 16 bytes a row: four columns,
 * c .. c + 3, of every row, two rows a register (rows r + 4m + j and r + 16 + 4m + j in its halves),
 * and an in-lane 4x4 transpose of the four registers of one j gives, for each column, element j of
 * the 8 chains, in thread order. The four columns are chain groups x mod P4 (P4 = min(P, 4)): with
 * P >= 4 four groups, with P = 2 two (columns c + 2, c + 3 their next block), with P = 1 one. Each
 * chain adds its columns in order and its elements j in order, as the model does; a column past the
 * matrix's end is not read (a masked load), its lanes added as +0.
 * H200's 16-CPU host, strided_threads.py, wall time in turns with numpy.sum, two runs (2026-11-29
 * 04:15 UTC), against the gather (03:50 UTC, another host of that kind): float32 (256, 128) .T 6.4 /
 * 6.5 us against numpy.sum's 9.2 / 9.7 (gathered 12.1 against 11.3), (256, 256) .T 11.4 / 11.5
 * against 17.6 / 17.8 (24.5 against 27.7), (512, 256) .T 23.6 / 23.2 against 33.0 / 31.5 (44.5
 * against 37.6), one thread each; (512, 512) .T 48.4 / 47.2 against 61.0 / 59.3 (one thread; 4
 * threads took 34 to 40); 1024 rows on 8 to 16 threads: (1024, 512) .T 62.9 / 53.3 against 181.8 /
 * 115.1 (71.7 against 169.4). */
__attribute__((target("avx2"))) static inline __m256 two_rows_f32(const char *low, const char *high, int full,
                                                                  __m128i mask) {
    const __m128 l = full ? _mm_loadu_ps((const float *)low) : _mm_maskload_ps((const float *)low, mask);
    const __m128 h = full ? _mm_loadu_ps((const float *)high) : _mm_maskload_ps((const float *)high, mask);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(l), h, 1);
}

/* Columns c .. c + 3 of rows r .. r + 31 (at `row`, rows `pitch` apart) added to acc[x mod groups]
 * in column order, each column's elements j = 0 .. 3 in order; `live` of the columns exist. */
__attribute__((target("avx2"))) static inline void add_four_columns_f32(const char *row, int64_t pitch, int64_t live,
                                                                         int groups, __m256 *acc) {
    const int full = live >= 4;
    const __m128i mask = _mm_cmpgt_epi32(_mm_set1_epi32((int)(live < 4 ? live : 4)), _mm_setr_epi32(0, 1, 2, 3));
    __m256 column[4][4]; /* [x][j]: element j of the 8 chains in column c + x */
    for (int j = 0; j < 4; ++j) {
        __m256 r[4], element[4]; /* element[x]: column c + x */
        for (int m = 0; m < 4; ++m)
            r[m] = two_rows_f32(row + (4 * m + j) * pitch, row + (16 + 4 * m + j) * pitch, full, mask);
        f32_transpose_in_lanes(r[0], r[1], r[2], r[3], element);
        for (int x = 0; x < 4; ++x) column[x][j] = element[x];
    }
    for (int x = 0; x < 4; ++x)
        for (int j = 0; j < 4; ++j) acc[x % groups] = _mm256_add_ps(acc[x % groups], column[x][j]);
}

/* The chains of groups q .. q + groups - 1, rows r .. r + 31; `groups` a constant once inlined. */
__attribute__((target("avx2"))) static inline void transposed_rows_f32(const char *src, int64_t pitch, int64_t rows,
                                                                        int64_t columns, int64_t q, int64_t r,
                                                                        int groups, float *lanes) {
    const int64_t per_block = 1024 / rows, column_step = per_block >= 4 ? per_block : 4;
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t c = q; c < columns; c += column_step)
        add_four_columns_f32(src + r * pitch + c * (int64_t)sizeof(float), pitch, columns - c, groups, acc);
    for (int g = 0; g < groups; ++g) _mm256_storeu_ps(lanes + (q + g) * rows / 4 + r / 4, acc[g]);
}

__attribute__((target("avx2"))) static void transposed_chains_f32(const char *src, int64_t pitch, int64_t rows,
                                                                    int64_t columns, float *lanes) {
    const int64_t per_block = 1024 / rows;
    for (int64_t q = 0; q < (per_block >= 4 ? per_block : 1); q += 4)
        for (int64_t r = 0; r < rows; r += 32) {
            if (per_block >= 4) transposed_rows_f32(src, pitch, rows, columns, q, r, 4, lanes);
            else if (per_block == 2) transposed_rows_f32(src, pitch, rows, columns, q, r, 2, lanes);
            else transposed_rows_f32(src, pitch, rows, columns, q, r, 1, lanes);
        }
}
static void choose_fast(void) {
    memcpy(fast, plain, sizeof fast);
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return;
    transposed_task[0] = transposed_task_f32;
    transposed_task[1] = transposed_task_f64;
    fast[CURED_FLOAT32][0] = (block_adder){add_f32_f32_avx2, f32_to_thread_order, NULL};
    fast[CURED_FLOAT64][1] = (block_adder){NULL, f64_to_thread_order, add_f64_f64_blocks_avx2};
    fast[CURED_FLOAT32][1] = (block_adder){add_f32_f64_avx2, NULL, NULL};
    in_place[READ_REVERSED][0] = (block_adder){add_f32_f32_reversed_avx2, f32_to_thread_order, NULL};
    in_place[READ_EVERY_OTHER][0] = (block_adder){add_f32_f32_every_other_avx2, f32_to_thread_order, NULL};
    in_place[READ_REVERSED][1] = (block_adder){NULL, f64_to_thread_order, add_f64_f64_reversed_blocks_avx2};
    in_place[READ_EVERY_OTHER][1] = (block_adder){NULL, f64_to_thread_order, add_f64_f64_every_other_blocks_avx2};
    fast[CURED_INT16][0] = (block_adder){add_i16_f32_avx2, NULL, NULL};
    fast[CURED_INT16][1] = (block_adder){add_i16_f64_avx2, NULL, NULL};
    fast[CURED_UINT16][0] = (block_adder){add_u16_f32_avx2, NULL, NULL};
    fast[CURED_UINT16][1] = (block_adder){add_u16_f64_avx2, NULL, NULL};
    if (!__builtin_cpu_supports("f16c")) return;
    fast[CURED_FLOAT16][0] = (block_adder){add_f16_f32_avx2, NULL, NULL};
    fast[CURED_FLOAT16][1] = (block_adder){add_f16_f64_avx2, NULL, NULL};
}
#else
static void choose_fast(void) { memcpy(fast, plain, sizeof fast); }
#endif
static pthread_once_t fast_once = PTHREAD_ONCE_INIT;

/* ---- tiles, their partials and the combine, per accumulator ---------------------------------- */

typedef struct {
    const char *in;   /* where element 0 of the C order lies */
    int64_t step;     /* bytes from an element of `in` to the next: the item, or a 1-D view's stride */
    cured_dtype dtype;
    int64_t n;
    cured_tiles t;
    block_adder adder;  /* blocks in C order, contiguous */
    block_adder reader; /* whole blocks at `in`: `adder`, or in_place's for the view's step */
    void *partials;     /* t.tiles accumulators */
    int64_t tiles_a_task;
    int blocks_at_once; /* BLOCKS_AT_ONCE, or 1 */
    /* A strided input (cured_cpu_tiles_sum_strided): in is NULL; ranges of `range` elements are
     * gathered, a task taking units_a_task units of max(range, tile) elements. */
    const cured_strided *strided;
    int64_t range, units_a_task;
    _Atomic int *failed;
} tiles_job;

/* The most blocks (a vector of each of the THREADS threads) a tile's chains are given at once: a
 * tile has VECTORS of them a step, and more steps as the input grows past CURED_MAX_TILES tiles.
 * Fewer than VECTORS, so that every whole tile continues its chains from lanes[] once, at every
 * length the tests try (5 ran as fast as 64: the chains' reload is 2 KiB a 32 KiB tile).
 * Only where a thread's share of the input is at most CACHED_BYTES_A_THREAD: reading 5 blocks at
 * once is 5 streams of one 4 KiB page each, which the hardware prefetchers follow poorly from
 * memory. One thread of the build machine, float64, in turns in one process (2026-11-27 14:48 UTC,
 * 5 blocks -> 1): 2^14 2.9 -> 3.1 us, 2^16 9.8 -> 11.0, 2^18 40.9 -> 42.4, 2^22 1821 -> 1171,
 * 2^23 4190 -> 2322 (numpy.sum 2^22 850 to 900). */
#define BLOCKS_AT_ONCE 5
#define CACHED_BYTES_A_THREAD ((int64_t)1 << 20)

/* lanes += blocks[0], ..., blocks[count - 1] by `adder`, in that order. */
static void add_with(const block_adder *adder, void *lanes, const char *const *blocks, int count) {
    if (count == 0) return;
    if (adder->add_blocks != NULL) adder->add_blocks(lanes, blocks, count);
    else
        for (int k = 0; k < count; ++k) adder->add(lanes, blocks[k]);
}

/* The WARPS tree over s[0, 256), as the kernel's shuffles and the model's TREE add. */
#define DEFINE_TILES(ACC_T, SUFFIX)                                                                \
    /* One level of every warp's shuffle tree at once: a constant stride, so the loops vectorise   \
     * (a tenth of a tile's time when the strides were run-time values). */                     \
    static inline __attribute__((always_inline)) void warps_level_##SUFFIX(ACC_T *s, int stride) { \
        for (int w = 0; w < THREADS; w += 32)                                                      \
            for (int k = 0; k < stride; ++k) s[w + k] += s[w + k + stride];                        \
    }                                                                                              \
    static ACC_T warps_tree_##SUFFIX(ACC_T *s) {                                                   \
        warps_level_##SUFFIX(s, 16);                                                               \
        warps_level_##SUFFIX(s, 8);                                                                \
        warps_level_##SUFFIX(s, 4);                                                                \
        warps_level_##SUFFIX(s, 2);                                                                \
        warps_level_##SUFFIX(s, 1);                                                                \
        for (int w = 0; w < THREADS / 32; ++w) s[w] = s[32 * w];                                   \
        for (int stride = THREADS / 64; stride > 0; stride /= 2)                                   \
            for (int k = 0; k < stride; ++k) s[k] += s[k + stride];                                \
        return s[0];                                                                               \
    }                                                                                              \
                                                                                                   \
    /* lanes += the blocks of the input's elements [first, end), read from `at` (where element     \
     * `first` is, the next ones job->step bytes apart): first starts a block, end ends one or the \
     * input. The block the input's end cuts is copied in order and padded with zeros. */         \
    static void add_span_##SUFFIX(const tiles_job *job, ACC_T *lanes, const char *at, int64_t first, int64_t end) { \
        unsigned char padded[THREADS * 16];                                                        \
        const int64_t block = (int64_t)THREADS * job->t.vector, item = 16 / job->t.vector;        \
        const char *blocks[BLOCKS_AT_ONCE];                                                        \
        int count = 0;                                                                             \
        for (int64_t next = first; next < end; next += block) {                                    \
            const char *from = at + (next - first) * job->step;                                    \
            if (job->n - next < block) { /* the last block of all */                               \
                add_with(&job->reader, lanes, blocks, count);                                      \
                count = 0;                                                                         \
                const int64_t inside = job->n - next;                                              \
                if (job->step == item) memcpy(padded, from, (size_t)(inside * item));              \
                else                                                                               \
                    for (int64_t k = 0; k < inside; ++k) memcpy(padded + k * item, from + k * job->step, (size_t)item); \
                memset(padded + inside * item, 0, sizeof padded - (size_t)(inside * item));       \
                from = (const char *)padded;                                                       \
                add_with(&job->adder, lanes, &from, 1);                                            \
                break;                                                                             \
            }                                                                                      \
            blocks[count++] = from;                                                                \
            if (count == job->blocks_at_once || next + block >= end) {                             \
                add_with(&job->reader, lanes, blocks, count);                                      \
                count = 0;                                                                         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* A tile's partial from its chains: the block's tree. */                                      \
    static ACC_T tile_end_##SUFFIX(const tiles_job *job, ACC_T *lanes) {                           \
        if (job->adder.to_thread_order != NULL) job->adder.to_thread_order(lanes);                 \
        return warps_tree_##SUFFIX(lanes);                                                         \
    }                                                                                              \
                                                                                                   \
    static void tiles_task_##SUFFIX(void *context, int64_t task) {                                 \
        const tiles_job *job = (const tiles_job *)context;                                         \
        ACC_T *partials = (ACC_T *)job->partials, lanes[THREADS];                                  \
        for (int64_t tile = task * job->tiles_a_task;                                              \
             tile < (task + 1) * job->tiles_a_task && tile < job->t.tiles; ++tile) {               \
            const int64_t first = tile * job->t.tile, end = first + job->t.tile;                   \
            memset(lanes, 0, sizeof lanes);                                                        \
            add_span_##SUFFIX(job, lanes, job->in + first * job->step, first, end < job->n ? end : job->n); \
            partials[tile] = tile_end_##SUFFIX(job, lanes);                                        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* A strided input's tiles: each of the task's ranges of its C order gathered into a buffer,   \
     * then its blocks added to the chains of the tiles they belong to, which run on across       \
     * ranges where a tile is longer than a range. */                                              \
    static void strided_task_##SUFFIX(void *context, int64_t task) {                               \
        const tiles_job *job = (const tiles_job *)context;                                         \
        ACC_T *partials = (ACC_T *)job->partials, lanes[THREADS];                                  \
        const int64_t item = 16 / job->t.vector, range = job->range, tile = job->t.tile;           \
        const int64_t unit = range > tile ? range : tile; /* whole tiles and whole ranges */       \
        const int64_t length = job->strided->shape[job->strided->ndim - 1];                        \
        const int64_t pitch = cured_cpu_range_pitch(job->strided);                                 \
        const int rows_padded = pitch != length * item;                                            \
        int64_t first = task * job->units_a_task * unit;                                           \
        const int64_t last = (task + 1) * job->units_a_task * unit;                                \
        const int64_t end = last < job->n ? last : job->n;                                         \
        if (first >= end) return;                                                                  \
        const size_t buffer_bytes = cured_cpu_range_buffer_bytes(job->strided, range);             \
        char *buffer = (char *)cured_cpu_range_buffer(buffer_bytes);                               \
        if (buffer == NULL) {                                                                      \
            atomic_store(job->failed, 1);                                                          \
            return;                                                                                \
        }                                                                                          \
        for (int64_t count; first < end; first += count) {                                         \
            count = end - first < range ? end - first : range;                                     \
            /* A cut at a row (rows of whole blocks) can split no source line. */                  \
            if (rows_padded && first + count < end) {                                              \
                const int64_t cut = cured_strided_line_cut(job->strided, first + count);           \
                if (cut > first) count = cut - first;                                              \
            }                                                                                      \
            cured_strided_range(job->strided, first, count, buffer, pitch);                        \
            /* Pieces within one tile and one row (padded rows are whole blocks: the pitch). */    \
            for (int64_t at = first; at < first + count;) {                                        \
                const int64_t tile_end = (at / tile + 1) * tile, row_end = (at / length + 1) * length; \
                int64_t stop = tile_end < first + count ? tile_end : first + count;                \
                if (rows_padded && row_end < stop) stop = row_end;                                 \
                if (at % tile == 0) memset(lanes, 0, sizeof lanes);                                \
                const char *from = buffer + (at / length - first / length) * pitch + (at % length - first % length) * item; \
                add_span_##SUFFIX(job, lanes, from, at, stop);                                     \
                if (stop == tile_end || stop == job->n) partials[at / tile] = tile_end_##SUFFIX(job, lanes); \
                at = stop;                                                                         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* The last block's combine: thread i adds partials i, i + 256, ... from 0, then the tree. */  \
    static ACC_T combine_##SUFFIX(const ACC_T *partials, int64_t tiles) {                          \
        if (tiles == 1) return partials[0];                                                        \
        ACC_T s[THREADS];                                                                          \
        for (int i = 0; i < THREADS; ++i) {                                                        \
            ACC_T sum = (ACC_T)0;                                                                  \
            for (int64_t k = i; k < tiles; k += THREADS) sum += partials[k];                       \
            s[i] = sum;                                                                            \
        }                                                                                          \
        return warps_tree_##SUFFIX(s);                                                             \
    }
DEFINE_TILES(float, f32)
DEFINE_TILES(double, f64)

#ifdef CURED_AVX2
/* A transposed matrix's tiles (transposed_in_place), each from its columns where they lie. */
#define DEFINE_TRANSPOSED_TASK(ACC_T, SUFFIX)                                                      \
    static void transposed_task_##SUFFIX(void *context, int64_t task) {                            \
        const tiles_job *job = (const tiles_job *)context;                                         \
        const cured_strided *matrix = job->strided;                                                \
        const int64_t rows = matrix->shape[1], columns = matrix->shape[0], tile_columns = job->t.tile / rows; \
        ACC_T *partials = (ACC_T *)job->partials, lanes[THREADS];                                  \
        for (int64_t tile = task * job->tiles_a_task; tile < (task + 1) * job->tiles_a_task && tile < job->t.tiles; ++tile) { \
            const int64_t first = tile * tile_columns, left = columns - first;                     \
            transposed_chains_##SUFFIX(matrix->src + first * (int64_t)sizeof(ACC_T), matrix->from[1], rows, \
                                       left < tile_columns ? left : tile_columns, lanes);          \
            partials[tile] = warps_tree_##SUFFIX(lanes);                                           \
        }                                                                                          \
    }
DEFINE_TRANSPOSED_TASK(float, f32)
DEFINE_TRANSPOSED_TASK(double, f64)
#endif

/* Whether a test asked for every strided input to be gathered (the plain C chains gather too). */
static int gather_forced(void) { return cured_cpu_plain() || cured_cpu_gather_all(); }

/* 0 for float32 summed into float, 1 for float64 into double (the inputs read where they lie), else -1. */
static int own_float_type(cured_dtype dtype, cured_acc acc) {
    return dtype == CURED_FLOAT32 && acc == CURED_ACC_FLOAT32   ? 0
           : dtype == CURED_FLOAT64 && acc == CURED_ACC_FLOAT64 ? 1
                                                                : -1;
}

/* Whether `strided` is a transposed float matrix summed in its own type whose chains
 * transposed_chains_f32 or _f64 read where they lie: two dimensions, the first (a's columns) of
 * consecutive elements, the last (a's rows) a power of two from 32 to 1024 (float32) or from 16 to
 * 1024 (float64): a block's whole columns, or a column's two blocks (float64, 1024 rows). */
static int transposed_in_place(cured_dtype dtype, cured_acc acc, const cured_strided *strided) {
    pthread_once(&fast_once, choose_fast);
    const int which = own_float_type(dtype, acc), is_float = which == 0;
    if (which < 0 || transposed_task[which] == NULL || gather_forced()) return 0;
    const int64_t item = strided->item, rows = strided->ndim == 2 ? strided->shape[1] : 0;
    const int64_t fewest = is_float ? 32 : 16, most = is_float ? 1024 : 512 * TALL_MOST_BLOCKS;
    return strided->from[0] == item && rows >= fewest && rows <= most && (rows & (rows - 1)) == 0;
}

/* ---- the sum ----------------------------------------------------------------------------------- */

/* The bytes from an element of a strided float input to the next in C order where V9's chains read
 * its blocks where they lie (a 1-D view reversed or of every other element, float32 into float or
 * float64 into double, with AVX2: in_place), else 0: it is gathered a range at a time. */
static int64_t in_place_step(cured_dtype dtype, cured_acc acc, const cured_strided *strided) {
    pthread_once(&fast_once, choose_fast);
    const int which = own_float_type(dtype, acc);
    if (which < 0 || strided->ndim != 1 || gather_forced()) return 0;
    const int64_t step = strided->from[0], item = strided->item;
    const int read = step == -item ? READ_REVERSED : step == 2 * item ? READ_EVERY_OTHER : -1;
    if (read < 0) return 0;
    const block_adder *reader = &in_place[read][which];
    return reader->add != NULL || reader->add_blocks != NULL ? step : 0;
}

/* V9's float sum, of contiguous `in` or (in NULL) of `strided`, on `threads` threads; `step`:
 * in_place_step's for `strided`; `transposed`: transposed_in_place's. */
static int float_tiles_sum(cured_dtype dtype, cured_acc acc, const char *in, const cured_strided *strided,
                           int64_t step, int transposed, int64_t n, int threads, void *result) {
    pthread_once(&fast_once, choose_fast);
    const int item = cured_dtype_size(dtype), is_double = acc == CURED_ACC_FLOAT64;
    const cured_tiles t = cured_tiles_of(THREADS, VECTORS, item, n);
    void *partials = cured_host_malloc((size_t)t.tiles * (is_double ? sizeof(double) : sizeof(float)));
    if (partials == NULL) return -1;
    _Atomic int failed = 0;
    const block_adder adder = (cured_cpu_plain() ? plain : fast)[dtype][is_double];
    const int in_place_read = step == -item ? READ_REVERSED : READ_EVERY_OTHER;
    if (step != 0) in = strided->src, strided = NULL; /* read in place, as contiguous input is */
    const int64_t reach = step != 0 ? n * (step < 0 ? -step : step) : n * item; /* bytes the reads span */
    cured_strided plan; /* strided, its passes fitted to the threads */
    /* A strided input's blocks are read from a gathered range, which the cache holds. */
    const int cached = strided != NULL || reach / threads <= CACHED_BYTES_A_THREAD;
    tiles_job job = {in, step != 0 ? step : item, dtype, n, t, adder, step != 0 ? in_place[in_place_read][is_double] : adder,
                     partials, 0, cached ? BLOCKS_AT_ONCE : 1, strided, 0, 0, &failed};
    int64_t tasks;
    if (strided == NULL || transposed) { /* tile by tile, as a contiguous input */
        tasks = cured_cpu_tasks_for(threads, t.tiles);
        job.tiles_a_task = cured_ceil_div(t.tiles, tasks);
    } else {
        job.range = cured_cpu_strided_range(strided, (int64_t)THREADS * t.vector, VECTORS, item, n, threads, &plan);
        job.strided = &plan;
        const int64_t units = cured_ceil_div(n, job.range > t.tile ? job.range : t.tile);
        job.units_a_task = cured_ceil_div(units, cured_cpu_tasks_for(threads, units));
        tasks = cured_ceil_div(units, job.units_a_task);
    }
    cured_pool_run(tasks, threads,
                   transposed         ? transposed_task[is_double]
                   : strided != NULL ? (is_double ? strided_task_f64 : strided_task_f32)
                                     : (is_double ? tiles_task_f64 : tiles_task_f32),
                   (void *)&job);
    if (!failed && is_double) {
        const double sum = combine_f64((const double *)partials, t.tiles);
        memcpy(result, &sum, sizeof sum);
    } else if (!failed) {
        const float sum = combine_f32((const float *)partials, t.tiles);
        memcpy(result, &sum, sizeof sum);
    }
    free(partials);
    return failed ? -1 : 0;
}

static int is_v9(const cured_version *v) {
    return v->schedule == CURED_TILES && v->tree == CURED_TREE_WARPS && v->threads == THREADS && v->per_thread == VECTORS;
}

/* A gathered strided float input's work per byte against a contiguous one's, for the threads it
 * takes: its elements are gathered into C order a range at a time before they are added (integers,
 * whose sums do not depend on the order, are read in memory order and count as contiguous; a view
 * read in place counts the bytes its reads span). So the pool's threads pay from a quarter of
 * PARALLEL_BYTES (cpu_work.c). On the H200's 16-CPU host (2026-11-28 12:16 UTC,
 * scripts/probes/strided_threads.py, wall time in turns, all gathered then), one thread against the
 * threads this picks: 512 KiB as float64 (256, 256) .T 53.2 us against 32.7, (256, 512)[:, ::2]
 * 44.9 against 30.6, [::-1, ::-1] 44.8 against 29.7; 1 MiB of float32 (512, 1024)[:, ::2] 109.9 against
 * 51.3 (steps and reversals had counted as contiguous, on one thread up to 2 MiB); at 256 KiB (one
 * thread) more threads were up to 26% slower, but for float64 .T (21.2 against 26.5). Held to 2
 * CPUs (taskset), two threads still won from 512 KiB (float32 .T 38.9 against 54.0); on the 2-CPU
 * build machine, whose cores read two to three times as fast, they lost there (28.7 against 20.1)
 * and won from 1 MiB. */
#define STRIDED_WORK 4
/* ... and a gathered float64 input six times (so on the threads from 342 KiB), whose gather moves
 * a byte slower than float32's: float64 transposes whose rows are not a power of two took 1.1 to 1.9
 * times as long on one thread as on 4 or more from 375 KiB. H200's 16-CPU host, strided_threads.py
 * --shapes, wall time in turns, two runs (2026-11-29 06:40 UTC), on the threads this picks (on one
 * thread in brackets): (160, 300) .T 32.3 / 32.6 us (38.9 / 35.0), (250, 200) .T 35.1 / 36.5 (51.9 /
 * 45.5), (200, 300) .T 32.2 / 33.4 (45.9 / 41.5), (300, 200) .T 34.3 / 37.8 (64.3 / 54.3); numpy.sum
 * 28.8 / 26.1, 28.3 / 26.1, 32.7 / 29.9, 33.5 / 31.0. At 156 and 262 KiB, still on one thread, more
 * threads gained 0 to 15%. */
#define GATHERED_F64_WORK 6
/* ... but a transposed matrix read in place (transposed_in_place) counts its bytes if float64, as a
 * contiguous input does, and twice them if float32 (whose passes read 32 rows again for each four
 * columns; transposed_chains_f32). H200's host, strided_threads.py, wall time in turns, two runs
 * each. float64 (2026-11-29 02:28 and 02:31 UTC): with its bytes counted four times it went to the
 * threads from 512 KiB, where one thread was faster ((256, 256) .T on the threads then picked 43.7
 * us, on one 26.9, numpy.sum 31.7); twice, from 1 MiB ((512, 256) .T picked 42.0, one thread 32.5,
 * numpy.sum 34.4). Forced as this rule now picks, one thread beat numpy.sum up to 1 MiB in both runs
 * (9.1 to 47.1 us against 10.3 to 56.1) and so did 8 threads at 2 MiB ((512, 512) .T 57.4 / 52.1
 * against 90.5 / 82.5). float32 (04:15 UTC, its bytes counted once): (512, 256) .T (512 KiB) one
 * thread 23.4 / 23.2 us, two 32.9 / 31.4; (512, 512) .T (1 MiB) one thread 47.7 / 47.0, which the
 * rule picked, 8 threads 37.2 / 34.4 (numpy.sum 61.0 / 59.3); (1024, 512) .T (2 MiB) 8 threads 63.7
 * / 52.1, 16 threads 53.5 / 47.7. Counted twice (04:49 and 04:50 UTC, a slower host): (512, 512) .T
 * on the 8 threads picked 37.3 / 40.5 us, one thread 63.4 / 64.4, numpy.sum 84.2 / 84.1; (512, 256)
 * .T still on one thread, 31.1 / 32.0 against 45.3 / 46.4. */
#define TRANSPOSED_F32_WORK 2

/* V9's sum of contiguous `in` or (in NULL) of `strided`. */
static int v9_sum(cured_dtype dtype, cured_acc acc, const void *in, const cured_strided *strided, int64_t n,
                  void *result) {
    const int item = cured_dtype_size(dtype);
    const int64_t work = cured_cpu_work_bytes(n, item);
    const int integers = acc == CURED_ACC_INT64 || acc == CURED_ACC_UINT64;
    const int64_t step = strided != NULL && !integers ? in_place_step(dtype, acc, strided) : 0;
    const int transposed = strided != NULL && transposed_in_place(dtype, acc, strided);
    /* A view read in place counts the bytes its reads span (every other element: twice its own). */
    const int64_t strided_work = step != 0    ? work * (step < 0 ? -step : step) / item
                                 : transposed ? work * (dtype == CURED_FLOAT32 ? TRANSPOSED_F32_WORK : 1)
                                              : work * (dtype == CURED_FLOAT64 ? GATHERED_F64_WORK : STRIDED_WORK);
    const int threads = cured_cpu_threads_for(strided != NULL && !integers ? strided_work : work);
    memset(result, 0, 8); /* the sum of nothing is 0 in every accumulator */
    if (n == 0) return 0;
    if (integers) {
        uint64_t sum;
        const int failed = cured_cpu_integer_sum(dtype, 8, in, strided, n, threads, &sum);
        memcpy(result, &sum, sizeof sum);
        return failed;
    }
    return float_tiles_sum(dtype, acc, (const char *)in, strided, step, transposed, n, threads, result);
}

int cured_cpu_tiles_sum(const cured_version *v, cured_dtype dtype, cured_acc acc, const void *in, int64_t n,
                        void *result) {
    if (!is_v9(v)) return cured_cpu_sum(v, dtype, acc, cured_acc_dtype(acc), in, n, result); /* the model */
    return v9_sum(dtype, acc, in, NULL, n, result);
}

int cured_cpu_tiles_sum_strided(const cured_version *v, cured_dtype dtype, cured_acc acc, const cured_strided *in,
                                int64_t n, void *result) {
    if (!is_v9(v)) return -1; /* not V9: the caller reads the C-order copy (cured.h) */
    return v9_sum(dtype, acc, NULL, in, n, result);
}
