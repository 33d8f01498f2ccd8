/* axis.c: a sum along axes on the GPU, step after step as axis.h folds it, and the fold itself
 * (which the CPU order model shares). */
#include <string.h>

#include "axis.h"
#include "gpu_internal.h"

void cured_axis_fold_of(const int64_t *shape, const int *reduce, int ndim, cured_axis_fold *fold) {
    int64_t extent[CURED_MAX_DIMS];
    int reduced[CURED_MAX_DIMS];
    int m = 0;
    memset(fold, 0, sizeof *fold);
    fold->results = 1;
    for (int d = 0; d < ndim; ++d) {
        if (!reduce[d]) fold->results *= shape[d];
        if (shape[d] == 1) continue;
        if (m > 0 && reduced[m - 1] == (reduce[d] != 0)) {
            extent[m - 1] *= shape[d];
        } else {
            extent[m] = shape[d];
            reduced[m] = reduce[d] != 0;
            ++m;
        }
    }
    for (;;) {
        int j = m - 1;
        while (j >= 0 && !reduced[j]) --j;
        if (j < 0) break;
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < j; ++k) outer *= extent[k];
        for (int k = j + 1; k < m; ++k) inner *= extent[k];
        fold->outer[fold->steps] = outer;
        fold->reduced[fold->steps] = extent[j];
        fold->inner[fold->steps] = inner;
        ++fold->steps;
        /* Remove extent j; its neighbours (both kept, since kept and reduced alternate) merge. */
        if (j > 0 && j + 1 < m) {
            extent[j - 1] *= extent[j + 1];
            for (int k = j + 2; k < m; ++k) extent[k - 2] = extent[k], reduced[k - 2] = reduced[k];
            m -= 2;
        } else {
            for (int k = j + 1; k < m; ++k) extent[k - 1] = extent[k], reduced[k - 1] = reduced[k];
            m -= 1;
        }
    }
    if (fold->steps == 0) { /* nothing to add: each element becomes its own result */
        fold->outer[0] = fold->results;
        fold->reduced[0] = 1;
        fold->inner[0] = 1;
        fold->steps = 1;
    }
}

int cured_axis_launches_of(const cured_axis_fold *fold, int in_item, int acc_item, cured_axis_step *launches) {
    int count = 0;
    for (int k = 0; k < fold->steps; ++k) {
        int64_t reduced = fold->reduced[k];
        do {
            launches[count] = cured_axis_step_of(fold->outer[k], reduced, fold->inner[k], count == 0 ? in_item : acc_item);
            reduced = launches[count].segments;
        } while (launches[count++].segments > 1);
    }
    return count;
}

cured_cuda_status cured_axis_sum(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *d_in,
                                 void *d_out, cured_dtype out_dtype, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_dtype acc_dtype = cured_acc_dtype(acc);
    const size_t acc_size = (size_t)cured_dtype_size(acc_dtype);
    cured_axis_step launches[CURED_AXIS_MAX_LAUNCHES];
    const int count = cured_axis_launches_of(fold, cured_dtype_size(in_dtype), (int)acc_size, launches);
    const void *in = d_in;
    void *held = NULL; /* the intermediate sums `in` points to, if any: the pool's */
    for (int i = 0; i < count; ++i) {
        const cured_axis_step *step = &launches[i];
        const int last = i == count - 1;
        void *dst = d_out;
        if (!last) {
            const size_t bytes = (size_t)(step->outer * step->segments * step->inner) * acc_size;
            CURED_TRY("cudaMallocAsync (the sums of segments)", cudaMallocAsync(&dst, bytes, stream));
        }
        const cudaError_t launched = cured_axis_launch(step, i == 0 ? in_dtype : acc_dtype, acc,
                                                       last ? out_dtype : acc_dtype, in, dst, i > 0, stream);
        if (launched != cudaSuccess) {
            if (!last) cured_keep_first(&status, cudaFreeAsync(dst, stream), "cudaFreeAsync");
            CURED_TRY("cured_axis_launch (a step of the sum along axes)", launched);
        }
        if (held != NULL) {
            void *done_with = held;
            held = NULL;
            CURED_TRY("cudaFreeAsync", cudaFreeAsync(done_with, stream));
        }
        held = last ? NULL : dst;
        in = dst;
    }
done:
    if (held != NULL) cured_keep_first(&status, cudaFreeAsync(held, stream), "cudaFreeAsync");
    return status;
}

cured_cuda_status cured_axis_cub_rows(const cured_axis_fold *fold, cured_dtype in_dtype, const void *d_in, void *d_out,
                                      cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_cub_rows_fn rows = cured_cub_reducers.rows[in_dtype];
    size_t temp_bytes = 0;
    void *temp = NULL;
    CURED_TRY("cub::DeviceSegmentedReduce::Sum (its temporary storage's size)",
              CURED_LAUNCHED(rows(NULL, &temp_bytes, d_in, fold->outer[0], fold->reduced[0], d_out, stream)));
    CURED_TRY("cudaMallocAsync (CUB's temporary storage)", cudaMallocAsync(&temp, temp_bytes > 0 ? temp_bytes : 1, stream));
    CURED_TRY("cub::DeviceSegmentedReduce::Sum",
              CURED_LAUNCHED(rows(temp, &temp_bytes, d_in, fold->outer[0], fold->reduced[0], d_out, stream)));
done:
    if (temp != NULL) cured_keep_first(&status, cudaFreeAsync(temp, stream), "cudaFreeAsync");
    return status;
}
