/* cpu_work.c: how a CPU sum is cut into the pool's work (cpu_work.h): the threads a size takes, its
 * tasks, the tests' settings, and a strided input's ranges and the buffers the threads gather them
 * into. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cpu_work.h"
#include "faults.h"
#include "pool.h"

/* Below this many input bytes the caller's thread sums alone: waking the pool's threads cost 5 to
 * 25 us on the H100's 16-CPU host (a virtual machine, 2026-11-22, scripts/probes/cpu_threads.py),
 * where one thread summed 1 MiB in 30 to 34 us and two threads took 44 to 50. */
#define PARALLEL_BYTES ((int64_t)2 << 20)
/* A thread for every this many input bytes, up to the CPUs: once the pool wakes, more threads
 * cost little more (2 MiB: 8 threads 45 to 50 us, 4 threads 51 to 55). */
#define BYTES_A_THREAD ((int64_t)1 << 18)
/* Tasks a thread: while the pool's threads wake, the caller takes tasks that would have waited for
 * them (with a task a thread it summed its own share and then waited for the rest). Build machine
 * (2 CPUs), wall time of cured.sum(device="cpu"), 2026-11-27 14:42 / 14:44 UTC, a task a thread ->
 * eight: float32 2^19 (2 MiB) 66.8 -> 36.2 to 42.8 us (one thread 35 to 40), 2^20 79.7 -> 42.7 to
 * 54.7; int64 2^19 71.3 -> 34.0 to 36.7 (43.7). */
#define TASKS_A_THREAD 8

/* The test hook's settings (cured_set_cpu_tiles). */
static _Atomic int threads_setting = 0;
static _Atomic int plain_setting = 0;
static _Atomic int64_t range_setting = 0;
static _Atomic int gather_setting = 0;

void cured_set_cpu_tiles(int threads, int plain, int64_t range_bytes, int gather) {
    threads_setting = threads > 0 ? threads : 0;
    plain_setting = plain != 0;
    range_setting = range_bytes > 0 ? range_bytes : 0;
    gather_setting = gather != 0;
}

int cured_cpu_threads_for(int64_t bytes) {
    const int forced = threads_setting;
    if (forced > 0) return forced;
    if (bytes < PARALLEL_BYTES) return 1;
    const int64_t wanted = bytes / BYTES_A_THREAD;
    const int capacity = cured_pool_capacity();
    return wanted < capacity ? (int)wanted : capacity;
}

int64_t cured_cpu_tasks_for(int threads, int64_t most) {
    const int64_t wanted = threads > 1 ? (int64_t)threads * TASKS_A_THREAD : 1;
    return wanted < most ? wanted : most;
}

int cured_cpu_plain(void) { return plain_setting; }

int cured_cpu_gather_all(void) { return gather_setting; }

/* ---- strided inputs, a range at a time -------------------------------------------------------- */

/* Each thread's buffer for the ranges it gathers, kept for the thread's life and freed when it exits:
 * a buffer allocated a task a call cost page faults in every call (glibc maps 128 KiB and more
 * afresh): the sum of (256, 256) float32 .T took 27.1 us that way, 18.7 with this buffer (build
 * machine, 2026-11-27 19:30 UTC, before the rows were grouped by source line). */
typedef struct {
    size_t bytes;
    void *data;
} range_buffer;

static pthread_key_t range_key;
static int range_key_made;
static pthread_once_t range_key_once = PTHREAD_ONCE_INIT;

static void free_range_buffer(void *buffer) {
    if (buffer == NULL) return;
    free(((range_buffer *)buffer)->data);
    free(buffer);
}

static void make_range_key(void) { range_key_made = pthread_key_create(&range_key, free_range_buffer) == 0; }

void *cured_cpu_range_buffer(size_t bytes) {
    pthread_once(&range_key_once, make_range_key);
    if (!range_key_made) return NULL;
    range_buffer *buffer = (range_buffer *)pthread_getspecific(range_key);
    if (buffer != NULL && buffer->bytes >= bytes) return buffer->data;
    if (buffer == NULL) {
        if ((buffer = (range_buffer *)cured_host_calloc(1, sizeof *buffer)) == NULL) return NULL;
        if (pthread_setspecific(range_key, buffer) != 0) {
            free(buffer);
            return NULL;
        }
    }
    void *data = NULL;
    if (cured_host_memalign(&data, 64, bytes) != 0) return NULL; /* the old buffer stays, too small */
    free(buffer->data);
    buffer->data = data, buffer->bytes = bytes;
    return data;
}

/* A range of a strided input gathered at once (cured_cpu_tiles_sum_strided): at least this many
 * bytes, and at least the whole rows cured_strided_of asks for; a tile's block times a power of
 * two (a tile's step at least), so that tiles and ranges nest. */
#define STRIDED_RANGE_BYTES ((int64_t)128 << 10)

/* Ranges a thread at least, where ranges that hold a pass of several source lines would be fewer
 * (the pass then reads fewer lines): on the H200's 16-CPU host (2026-11-28 10:10 UTC,
 * scripts/probes/gather_passes.py, wall time), (2048, 1024) float32 .T in 16 ranges of a 4-line
 * pass for 16 threads took 220 us against 163 in 64 ranges of one line; (2048, 2048) float64 .T in
 * 64 ranges of 4 lines, 346 against 438. On the 2-CPU build machine the first took 1.72 times as
 * long in ranges of one line (cpu_gather.c). */
#define RANGES_A_THREAD 4

int64_t cured_cpu_strided_range(const cured_strided *strided, int64_t block, int steps, int item, int64_t n,
                                int threads, cured_strided *plan) {
    const int64_t forced = range_setting;
    *plan = *strided;
    while (forced == 0 && threads > 1 && plan->pass_lines > 1 &&
           n * item / (plan->pass_lines * plan->least_range_bytes) < (int64_t)threads * RANGES_A_THREAD)
        plan->pass_lines = cured_strided_fewer_lines(plan->pass_lines);
    const int64_t pass_range_bytes = plan->pass_lines * plan->least_range_bytes; /* holds a pass */
    int64_t range = forced > 0 ? block : block * steps;
    while (forced > 0 ? range * item < forced
                      : range * item < STRIDED_RANGE_BYTES || range * item < pass_range_bytes)
        range *= 2;
    return range;
}

/* The bytes from a range's row to the next in its buffer: the row's own, plus a line where rows are
 * read transposed and are whole 4 KiB blocks (a multiple of 4 KiB: every row's start would fall in
 * one set of the L1 cache, and rows written a few elements at a time across 16 rows evicted each
 * other). A standalone copy of 8 MiB transposed (rows of 8 KiB, one thread of the build machine,
 * 2026-11-27 19:40 UTC): 741 to 746 us with rows back to back, 546 to 559 with a line between. */
int64_t cured_cpu_range_pitch(const cured_strided *strided) {
    const int64_t row = strided->shape[strided->ndim - 1] * strided->item;
    return cured_strided_rows_alias(strided) ? row + 64 : row;
}

/* A buffer for a range of `range` elements at range_pitch: element f of a range from `first` lies
 * (f - first) items and a pad a row begun since the first row into it. */
size_t cured_cpu_range_buffer_bytes(const cured_strided *strided, int64_t range) {
    const int64_t length = strided->shape[strided->ndim - 1];
    const int64_t pad = cured_cpu_range_pitch(strided) - length * strided->item;
    return (size_t)(range * strided->item + (range / length + 1) * pad);
}

