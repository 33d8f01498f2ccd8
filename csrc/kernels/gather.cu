// gather.cu: a strided device array copied into C order, so that a non-contiguous device input is
// summed in the order of the same array copied to the host (NumPy makes host input C-contiguous the
// same way). Not a reduction and not tuned: one unit of U bytes a thread a step, its address found
// by unravelling the flat index over the shape.
#include "common.cuh"

namespace {

// The element layout in units: an element of `units` units of U bytes becomes one more, innermost
// dimension of extent `units` and stride U.
struct unit_layout {
    int ndim;
    int64_t shape[CURED_MAX_DIMS + 1];
    int64_t strides[CURED_MAX_DIMS + 1];  // bytes
};

template <class Unit>
__global__ void gather_units(const char *src, Unit *dst, int64_t total, unit_layout layout) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        int64_t rest = i, offset = 0;
        for (int d = layout.ndim - 1; d >= 0; --d) {
            offset += rest % layout.shape[d] * layout.strides[d];
            rest /= layout.shape[d];
        }
        dst[i] = *reinterpret_cast<const Unit *>(src + offset);
    }
}

template <class Unit>
cudaError_t gather_as(const void *src, void *dst, int item_size, const cured_layout &layout, cudaStream_t stream) {
    unit_layout units;
    int64_t total = item_size / int64_t(sizeof(Unit));
    units.ndim = layout.ndim + 1;
    for (int d = 0; d < layout.ndim; ++d) {
        units.shape[d] = layout.shape[d];
        units.strides[d] = layout.strides[d];
        total *= layout.shape[d];
    }
    units.shape[layout.ndim] = item_size / int64_t(sizeof(Unit));
    units.strides[layout.ndim] = sizeof(Unit);
    if (total == 0) return cudaSuccess;
    constexpr int threads = 256;
    const int64_t blocks = (total + threads - 1) / threads;
    gather_units<Unit><<<unsigned(blocks < 65536 ? blocks : 65536), threads, 0, stream>>>(
        static_cast<const char *>(src), static_cast<Unit *>(dst), total, units);
    return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t cured_gather(const void *src, void *dst, int item_size, int unit, const cured_layout *layout,
                                    cudaStream_t stream) {
    if (layout->ndim < 0 || layout->ndim > CURED_MAX_DIMS || unit < 1 || item_size % unit != 0)
        return cudaErrorInvalidValue;
    switch (unit) {
    case 1: return gather_as<uint8_t>(src, dst, item_size, *layout, stream);
    case 2: return gather_as<uint16_t>(src, dst, item_size, *layout, stream);
    case 4: return gather_as<uint32_t>(src, dst, item_size, *layout, stream);
    case 8: return gather_as<uint64_t>(src, dst, item_size, *layout, stream);
    default: return cudaErrorInvalidValue;
    }
}
