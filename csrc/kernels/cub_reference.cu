// cub_reference.cu: NVIDIA's CUB (cub::DeviceReduce from the CUDA toolkit's CCCL, and
// cub::DeviceSegmentedReduce for row sums along an axis) as a reference reducer, so that cured can
// time its versions against the vendor's library in the same process, on the same data. Not a
// teaching version: its summation order depends on the GPU, so it has no CPU order model. It sums
// with NumPy's default accumulator for each input dtype only.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "common.cuh"

namespace {

template <class Acc> struct ToAcc {
    template <class In> __device__ __forceinline__ Acc operator()(In x) const { return cured::to_acc<Acc>(x); }
};

// Sum for same-typed input; TransformReduce with cured's own conversion otherwise.
template <class In, class Acc>
cudaError_t cub_reduce(void *temp, size_t *temp_bytes, const void *in, int64_t n, void *out, cudaStream_t stream) {
    const In *typed_in = static_cast<const In *>(in);
    Acc *typed_out = static_cast<Acc *>(out);
    if constexpr (std::is_same_v<In, Acc>) {
        return cub::DeviceReduce::Sum(temp, *temp_bytes, typed_in, typed_out, n, stream);
    } else {
        return cub::DeviceReduce::TransformReduce(temp, *temp_bytes, typed_in, typed_out, n,
                                                  cuda::std::plus<Acc>{}, ToAcc<Acc>{}, Acc(0), stream);
    }
}

// Row r of `rows` rows of `length` elements starts at element r * length.
struct RowStart {
    int64_t length;
    __host__ __device__ int64_t operator()(int64_t row) const { return row * length; }
};

// The sum of each row, into out[row]: one segment a row.
template <class In, class Acc>
cudaError_t cub_rows(void *temp, size_t *temp_bytes, const void *in, int64_t rows, int64_t length, void *out,
                     cudaStream_t stream) {
    const auto begins = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), RowStart{length});
    const In *typed_in = static_cast<const In *>(in);
    Acc *typed_out = static_cast<Acc *>(out);
    if constexpr (std::is_same_v<In, Acc>) {
        return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, typed_in, typed_out, rows, begins, begins + 1, stream);
    } else {
        return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, thrust::make_transform_iterator(typed_in, ToAcc<Acc>{}),
                                               typed_out, rows, begins, begins + 1, stream);
    }
}

template <int Dtype>
using default_acc = std::conditional_t<cured::is_floating<typename cured::dtype_type<Dtype>::type>,
                                       std::conditional_t<Dtype == CURED_FLOAT64, double, float>,
                                       std::conditional_t<std::is_unsigned_v<typename cured::dtype_type<Dtype>::type>,
                                                          uint64_t, int64_t>>;

template <int... Dtypes>
constexpr cured_cub_table make_cub_table(std::integer_sequence<int, Dtypes...>) {
    return cured_cub_table{{&cub_reduce<typename cured::dtype_type<Dtypes>::type, default_acc<Dtypes>>...},
                           {&cub_rows<typename cured::dtype_type<Dtypes>::type, default_acc<Dtypes>>...}};
}

}  // namespace

extern "C" const cured_cub_table cured_cub_reducers =
    make_cub_table(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
