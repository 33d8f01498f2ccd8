/* cpu_model.c: the CPU order model. For every version it performs the additions the GPU performs,
 * pair for pair and pass after pass, in the accumulator's own type, so its result has the same bits
 * as the GPU's. The body is written once, in cpu_model_pass.h, and instantiated here for the three
 * ways an accumulator adds: modulo 2^64 (int64 and uint64 add to the same bits), float and double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "exact.h"
#include "faults.h"
#include "half.h"

/* CUDA's limit on threads a block: the model's stand-in for shared memory has room for that many. */
#define CURED_MAX_THREADS 1024

#define ACC_T uint64_t
#define ACC_NAME u64
#include "cpu_model_pass.h"
#include "cpu_model_axis.h"
#undef ACC_T
#undef ACC_NAME
#define ACC_T float
#define ACC_NAME f32
#include "cpu_model_pass.h"
#include "cpu_model_axis.h"
#undef ACC_T
#undef ACC_NAME
#define ACC_T double
#define ACC_NAME f64
#include "cpu_model_pass.h"
#include "cpu_model_axis.h"
#undef ACC_T
#undef ACC_NAME

typedef void (*model_pass_fn)(const cured_version *, const void *, cured_dtype, int64_t, void *);

/* Schedule TILES: the tiles' partials, then their combination, into *result. */
static int tiles_sum(const cured_version *v, cured_dtype in_dtype, cured_acc acc, const void *in, int64_t n,
                     void *result) {
    const cured_tiles t = cured_tiles_of(v->threads, v->per_thread, cured_dtype_size(in_dtype), n);
    void *partials = cured_host_malloc((size_t)t.tiles * 8);
    if (partials == NULL) return -1;
    if (acc == CURED_ACC_FLOAT32) {
        const float sum = model_tiles_f32(v, in, in_dtype, n, partials);
        memcpy(result, &sum, sizeof sum);
    } else if (acc == CURED_ACC_FLOAT64) {
        const double sum = model_tiles_f64(v, in, in_dtype, n, partials);
        memcpy(result, &sum, sizeof sum);
    } else {
        const uint64_t sum = model_tiles_u64(v, in, in_dtype, n, partials);
        memcpy(result, &sum, sizeof sum);
    }
    free(partials);
    return 0;
}

int cured_cpu_sum(const cured_version *v, cured_dtype in_dtype, cured_acc acc, cured_dtype result_dtype,
                  const void *in, int64_t n, void *result) {
    const model_pass_fn pass = acc == CURED_ACC_FLOAT32   ? model_pass_f32
                               : acc == CURED_ACC_FLOAT64 ? model_pass_f64
                                                          : model_pass_u64;
    const int64_t per_block = cured_elements_per_block(v);
    memset(result, 0, 8); /* the sum of nothing is 0 in every accumulator */
    if (v->threads > CURED_MAX_THREADS || v->threads % 32 != 0) return -1;
    if (v->tree == CURED_TREE_EXACT) {
        cured_exact_state state;
        memset(&state, 0, sizeof state);
        cured_exact_add_threads(&state, in_dtype, in, n); /* one answer: any split gives its bits */
        cured_exact_result(&state, acc, result_dtype, result);
        return 0;
    }
    if (n == 0) return 0;
    if (v->schedule == CURED_TILES) return tiles_sum(v, in_dtype, acc, in, n, result);

    const int64_t first_blocks = (n + per_block - 1) / per_block;
    void *partials = cured_host_malloc((size_t)first_blocks * 8);
    if (partials == NULL) return -1;
    /* Later passes reduce the partials in place: block b of a pass reads values [b*per_block, ...)
     * and writes value b, which no later block of the pass reads. */
    pass(v, in, in_dtype, n, partials);
    for (int64_t count = first_blocks; count > 1; count = (count + per_block - 1) / per_block)
        pass(v, partials, cured_acc_dtype(acc), count, partials);
    memcpy(result, partials, (size_t)cured_dtype_size(cured_acc_dtype(acc)));
    free(partials);
    return 0;
}

int cured_cpu_axis_sum(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *in, void *out) {
    switch (acc) {
    case CURED_ACC_FLOAT32: return model_axis_f32(fold, in_dtype, in, out);
    case CURED_ACC_FLOAT64: return model_axis_f64(fold, in_dtype, in, out);
    default: return model_axis_u64(fold, in_dtype, in, out); /* int64 and uint64 add to the same bits */
    }
}
