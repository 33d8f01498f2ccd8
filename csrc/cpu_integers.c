/* cpu_integers.c: sums of integer and bool elements on the CPU. Integer accumulators add modulo
 * 2^64, where every order gives the same bits: they are summed in plain loops, split among the
 * pool's threads anyhow (a strided array's elements in memory order, a range at a time: cpu_work.h),
 * and so are sums into results of 1, 2 or 4 bytes, which wrap as NumPy's. */
#include <stdatomic.h>

#include "cpu_work.h"
#include "pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define INTEGER_ROWS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define INTEGER_ROWS_CLONES
#endif

#define CONVERT_VALUE(ACC_T, x) ((ACC_T)(x))

typedef struct {
    const char *in;
    cured_dtype dtype;
    int lane_bytes; /* 8: modulo 2^64 (cured_cpu_integer_rows); 1, 2, 4: wrapped_sum's lanes */
    int64_t n, per_task;
    uint64_t *partials;
    const cured_strided *strided; /* in NULL: a strided input, gathered `range` elements at a time */
    int64_t range;
    _Atomic int *failed;
} integer_job;

/* 4- and 8-byte inputs: each row's sum, K sums a pass where the row is long: K chains of adds. One
 * chain of 64-bit vector adds waited on itself: 2^18 int64 on one thread of the build machine took
 * 73.0 to 74.1 us with one sum, 22.8 to 23.2 with eight (numpy.sum 26.6 to 27.9), int32 37.0 to
 * 37.7 -> 29.8 to 30.7 (60.4 to 61.6). Wall time, 2026-11-27 13:05 to 13:09 UTC, cured.sum(device=
 * "cpu") after _set_cpu_tiles(1, False). (1- and 2-byte inputs lost with more 64-bit chains: int8
 * 38.7 to 39.8 us with one, 52.0 to 64.4 with four to sixteen; they take SUM_ROWS_NARROW.) */
#define SUM_ROWS_AS(IN_T, CONVERT, K)                                                              \
    do {                                                                                           \
        const IN_T *p = (const IN_T *)in;                                                          \
        for (int64_t r = 0; r < rows; ++r, p += length) {                                          \
            uint64_t sum = 0;                                                                      \
            int64_t i = 0;                                                                         \
            if (K > 1 && length >= 8 * K) {                                                        \
                uint64_t sums[K] = {0};                                                            \
                for (; i + K <= length; i += K)                                                    \
                    for (int k = 0; k < K; ++k) sums[k] += (uint64_t)CONVERT(uint64_t, p[i + k]);  \
                for (int k = 0; k < K; ++k) sum += sums[k];                                        \
            }                                                                                      \
            for (; i < length; ++i) sum += (uint64_t)CONVERT(uint64_t, p[i]);                      \
            out[r] = sum;                                                                          \
        }                                                                                          \
    } while (0);

#define SIGNED_VALUE(ACC_T, x) ((ACC_T)(int64_t)(x)) /* sign-extends, as C's conversion into int64 */

/* 1- and 2-byte inputs: blocks of 2^16 elements summed in 32 bits, which no block overflows (2^16 x
 * 2^15 = 2^31; 2^16 x 65535 < 2^32 unsigned), each block's sum then widened into the row's, so
 * that the compiler's vector loop widens an element to 32 bits rather than 64. One thread of the
 * build machine, 2^20 elements, 2026-11-27 13:52 UTC, 64-bit sums -> 32-bit blocks (numpy.sum in
 * brackets): int8 152 -> 67 us (291), uint8 126 -> 69 (292), bool 127 -> 61 (307), int16 133 -> 73
 * (263), uint16 111 -> 73 (263); 2^16 elements 7.7 to 10.4 -> 4.3 to 5.4 us. */
#define NARROW_BLOCK ((int64_t)1 << 16)
#define SUM_ROWS_NARROW(IN_T, BLOCK_T, VALUE)                                                      \
    do {                                                                                           \
        const IN_T *p = (const IN_T *)in;                                                          \
        for (int64_t r = 0; r < rows; ++r, p += length) {                                          \
            uint64_t sum = 0;                                                                      \
            for (int64_t i = 0; i < length; i += NARROW_BLOCK) {                                   \
                const int64_t end = length - i < NARROW_BLOCK ? length : i + NARROW_BLOCK;         \
                BLOCK_T block = 0;                                                                 \
                for (int64_t k = i; k < end; ++k) block += (BLOCK_T)VALUE(p[k]);                   \
                sum += (uint64_t)(int64_t)block; /* sign- or zero-extended, as BLOCK_T is */       \
            }                                                                                      \
            out[r] = sum;                                                                          \
        }                                                                                          \
    } while (0);
#define AS_IS(x) (x)
#define NONZERO(x) ((x) != 0)

/* Built twice, for AVX2 and for the baseline (SSE2), the CPU's picked when the library loads: the
 * compiler's vector loops widen with AVX2's sign and zero extensions, which SSE2 lacks. One thread
 * of the build machine, 2^18 elements, 2026-11-27 15:41 UTC, SSE2 -> AVX2 (numpy.sum in brackets):
 * int8 18.1 -> 12.1 us (75.0), int16 20.0 -> 9.8 (68.7), int32 30.8 -> 20.4 (64.6), bool 16.7 ->
 * 12.1 (79.4), int64 24.0 -> 23.8 (25.2). */
INTEGER_ROWS_CLONES void cured_cpu_integer_rows(cured_dtype dtype, const void *in, int64_t rows, int64_t length,
                                                uint64_t *out) {
    switch (dtype) {
    case CURED_BOOL: SUM_ROWS_NARROW(uint8_t, uint32_t, NONZERO) break;
    case CURED_INT8: SUM_ROWS_NARROW(int8_t, int32_t, AS_IS) break;
    case CURED_INT16: SUM_ROWS_NARROW(int16_t, int32_t, AS_IS) break;
    case CURED_INT32: SUM_ROWS_AS(int32_t, SIGNED_VALUE, 8) break;
    case CURED_INT64: SUM_ROWS_AS(int64_t, SIGNED_VALUE, 8) break;
    case CURED_UINT8: SUM_ROWS_NARROW(uint8_t, uint32_t, AS_IS) break;
    case CURED_UINT16: SUM_ROWS_NARROW(uint16_t, uint32_t, AS_IS) break;
    case CURED_UINT32: SUM_ROWS_AS(uint32_t, CONVERT_VALUE, 8) break;
    case CURED_UINT64: SUM_ROWS_AS(uint64_t, CONVERT_VALUE, 8) break;
    default: break; /* floating inputs never reach an integer accumulator */
    }
}

/* Sums into a result of 1, 2 or 4 bytes (dtype=int8 to uint32): NumPy adds in the result's dtype,
 * wrapping, which is the sum modulo 2^64 wrapped; lanes of the result's width hold two to eight
 * times as many elements a vector as 64-bit ones, and need no blocks (a lane never overflows, it
 * wraps as the result does). Each element is cast to the lane as NumPy casts it to the result
 * (sign- or zero-extended). 128 bytes of lanes, four AVX2 chains: with one,
 * the loop's speed hung on where the compiler placed it (2^17 int16 on one thread of the build
 * machine 5.6 us, uint16 3.5, the two loops alike but for their address). */
#define SUM_WRAPPED(IN_T, LANE_T, VALUE)                                                           \
    do {                                                                                           \
        enum { LANES = 128 / sizeof(LANE_T) };                                                     \
        const IN_T *p = (const IN_T *)in;                                                          \
        LANE_T lanes[LANES] = {0}, sum = 0;                                                        \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int k = 0; k < LANES; ++k) lanes[k] += (LANE_T)VALUE(p[i + k]);                   \
        for (int k = 0; k < LANES; ++k) sum += lanes[k];                                           \
        for (; i < n; ++i) sum += (LANE_T)VALUE(p[i]);                                             \
        return (uint64_t)sum;                                                                      \
    } while (0)
/* The inputs no wider than lanes of 1, 2 and 4 bytes. */
#define INPUTS_UP_TO_1(LANE_T)                                                                     \
    case CURED_BOOL: SUM_WRAPPED(uint8_t, LANE_T, NONZERO);                                        \
    case CURED_INT8: SUM_WRAPPED(int8_t, LANE_T, AS_IS);                                           \
    case CURED_UINT8: SUM_WRAPPED(uint8_t, LANE_T, AS_IS);
#define INPUTS_UP_TO_2(LANE_T)                                                                     \
    INPUTS_UP_TO_1(LANE_T)                                                                         \
    case CURED_INT16: SUM_WRAPPED(int16_t, LANE_T, AS_IS);                                         \
    case CURED_UINT16: SUM_WRAPPED(uint16_t, LANE_T, AS_IS);
#define INPUTS_UP_TO_4(LANE_T)                                                                     \
    INPUTS_UP_TO_2(LANE_T)                                                                         \
    case CURED_INT32: SUM_WRAPPED(int32_t, LANE_T, AS_IS);                                         \
    case CURED_UINT32: SUM_WRAPPED(uint32_t, LANE_T, AS_IS);

/* Lanes of `lane_bytes` (1, 2 or 4) for inputs no wider (cured_cpu_wrapped_sum); 0 for others. */
INTEGER_ROWS_CLONES static uint64_t wrapped_sum(cured_dtype dtype, int lane_bytes, const void *in, int64_t n) {
    switch (lane_bytes) {
    case 1: switch (dtype) { INPUTS_UP_TO_1(uint8_t) default: return 0; }
    case 2: switch (dtype) { INPUTS_UP_TO_2(uint16_t) default: return 0; }
    default: switch (dtype) { INPUTS_UP_TO_4(uint32_t) default: return 0; }
    }
}

/* The sum of `count` elements at `at`, as the job's lanes wrap. */
static uint64_t integer_piece(const integer_job *job, const char *at, int64_t count) {
    uint64_t sum = 0; /* (cured_cpu_integer_rows writes it for every integer dtype) */
    if (job->lane_bytes != 8) return wrapped_sum(job->dtype, job->lane_bytes, at, count);
    cured_cpu_integer_rows(job->dtype, at, 1, count, &sum);
    return sum;
}

static void integer_task(void *context, int64_t task) {
    const integer_job *job = (const integer_job *)context;
    const int64_t first = task * job->per_task, item = cured_dtype_size(job->dtype);
    const int64_t count = job->n - first < job->per_task ? job->n - first : job->per_task;
    job->partials[task] = 0;
    if (count <= 0) return;
    if (job->strided == NULL) {
        job->partials[task] = integer_piece(job, job->in + (size_t)(first * item), count);
        return;
    }
    char *buffer = (char *)cured_cpu_range_buffer(cured_cpu_range_buffer_bytes(job->strided, job->range));
    if (buffer == NULL) {
        atomic_store(job->failed, 1);
        return;
    }
    uint64_t sum = 0;
    for (int64_t done = 0; done < count; done += job->range) {
        const int64_t piece = count - done < job->range ? count - done : job->range;
        cured_strided_range(job->strided, first + done, piece, buffer, cured_cpu_range_pitch(job->strided));
        sum += integer_piece(job, buffer, piece); /* modulo 2^64, whose low bits are the lanes' */
    }
    job->partials[task] = sum;
}

#define MAX_INTEGER_TASKS 256

int cured_cpu_integer_sum(cured_dtype dtype, int lane_bytes, const void *in, const cured_strided *strided, int64_t n,
                          int threads, uint64_t *sum) {
    uint64_t partials[MAX_INTEGER_TASKS];
    _Atomic int failed = 0;
    const int64_t tasks = cured_cpu_tasks_for(threads, MAX_INTEGER_TASKS);
    integer_job job = {(const char *)in, dtype, lane_bytes, n, cured_ceil_div(n, tasks), partials, strided, 0, &failed};
    cured_strided plan; /* strided, its passes fitted to the threads */
    if (strided != NULL) {
        job.range = cured_cpu_strided_range(strided, 1, 1, cured_dtype_size(dtype), n, threads, &plan);
        job.strided = &plan;
    }
    cured_pool_run(tasks, threads, integer_task, &job);
    *sum = 0;
    for (int64_t k = 0; k < tasks; ++k) *sum += partials[k];
    return failed ? -1 : 0;
}

int cured_cpu_wrapped_sum(cured_dtype dtype, int result_bytes, const void *in, const cured_strided *strided, int64_t n,
                          uint64_t *sum) {
    const int item = cured_dtype_size(dtype);
    /* An input wider than the result: keeping each element's low bits in lanes cost more than the
     * 64-bit sum (2^18 int64 into int32 on one thread of the build machine 34.4 us, 22.4). */
    if (item > result_bytes) {
        const int threads = cured_cpu_threads_for(cured_cpu_work_bytes(n, item));
        return cured_cpu_integer_sum(dtype, 8, in, strided, n, threads, sum);
    }
    /* A thread's time goes by the lanes' bytes: an int8 summed into 32-bit lanes costs as an int32. */
    return cured_cpu_integer_sum(dtype, result_bytes, in, strided, n, cured_cpu_threads_for(n * result_bytes), sum);
}
