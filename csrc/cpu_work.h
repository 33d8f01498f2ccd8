/* cpu_work.h: how a CPU sum is cut into the pool's work (cpu_work.c), shared by V9's float tiles
 * (cpu_tiles.c) and the integers' sums (cpu_integers.c): the threads a size takes and its tasks
 * (cured_cpu_threads_for, cured.h), and, for a strided host array, the ranges of its C order that
 * each thread gathers (cpu_gather.c) into a buffer of its own. */
#ifndef CURED_CPU_WORK_H
#define CURED_CPU_WORK_H

#include "cured.h"

/* A job's tasks for `threads` threads, at most `most`. */
int64_t cured_cpu_tasks_for(int threads, int64_t most);

/* Whether a test asked for the portable C chains instead of the CPU's SIMD ones (cured_set_cpu_tiles). */
int cured_cpu_plain(void);

/* Whether a test asked V9's sums to gather every strided float input, reading none where it lies. */
int cured_cpu_gather_all(void);

/* The elements of a strided input of n elements gathered at once by `threads` threads: a power of
 * two times `block` (a tile's block, 1 where the order is free), at least `steps` blocks and
 * STRIDED_RANGE_BYTES, and at least the whole rows of a pass of the copy (pass_lines times
 * least_range_bytes, cured_strided_of), passes of fewer lines where those would leave a thread few
 * ranges; or about the bytes a test forced (cured_set_cpu_tiles). *plan is *strided with the pass
 * the ranges hold: the threads gather from it. */
int64_t cured_cpu_strided_range(const cured_strided *strided, int64_t block, int steps, int item, int64_t n,
                                int threads, cured_strided *plan);

/* The bytes from a range's row to the next in a range buffer. */
int64_t cured_cpu_range_pitch(const cured_strided *strided);

/* A range buffer's bytes for a range of `range` elements at cured_cpu_range_pitch. */
size_t cured_cpu_range_buffer_bytes(const cured_strided *strided, int64_t range);

/* This thread's range buffer of at least `bytes`, kept for the thread's life, or NULL when memory
 * could not be had. */
void *cured_cpu_range_buffer(size_t bytes);

#endif
