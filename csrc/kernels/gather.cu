// gather.cu: a strided device array copied into C order, so that a non-contiguous device input is
// summed in the order of the same array copied to the host (NumPy makes host input C-contiguous the
// same way), and V10's sums along axes copy each output's elements into a row. Not a reduction: one
// unit of U bytes a thread a step, its address found by unravelling the flat index over the shape;
// but where the copy's last dimension is not the source's contiguous one (a transpose: columns into
// rows), tiles of 32 x 32 units through shared memory, read along the source's contiguous dimension
// and written along the copy's, so that both are coalesced where a unit a thread read one unit of
// each 32-byte sector.
//
// Evidence (device time of the whole call, copy included, scripts/probes/gather_speed.py; H100,
// 2026-11-26 20:45 UTC, this file built, then the one before the tiles, then this one again, on one
// machine): 8192 x 8192 float32, cured.sum of d.T 844 / 807 GB/s against 401, of
// d.reshape(64, 1024, 1024).transpose(2, 0, 1) 847 / 844 against 271, cured.fsum along axis 0 679 /
// 664 against 359; float64 953 / 952 against 634, 950 / 948 against 430, 849 / 849 against 592;
// V9 on the same arrays contiguous 2606 to 2856, where the call reads the input, writes the copy and
// reads it (so about a third of that is the most a copy can leave); d[::-1], which keeps the
// element path, 515 to 517 (float32) and 822 to 825 (float64) in all three builds. V10 along axes
// (scripts/probes/v10_axis_speed.py, the same runs): (2^14, 2^14) float32 along 0 773 / 742
// against 292, (4096, 4096) float64 along 0 526 / 595 against 470.
#include <algorithm>
#include <climits>

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

// The tiles' layout: dimension a, the copy's last (its stride there 1), and b, the source's
// contiguous one, each with its extent and its source stride (bytes); b's stride in the copy
// (units); and the other dimensions, whose every index (a batch) a block unravels once.
struct tiled_layout {
    int64_t a_extent, a_stride, b_extent, b_stride, b_to;
    int rest;
    int64_t shape[CURED_MAX_DIMS + 1], strides[CURED_MAX_DIMS + 1], to[CURED_MAX_DIMS + 1];
    int64_t batches;
};

constexpr int kTile = 32, kTileRows = 8;

template <class Unit>
__global__ void __launch_bounds__(kTile *kTileRows) gather_tiles(const char *src, Unit *dst, tiled_layout t) {
    __shared__ Unit tile[kTile][kTile + 1];  // [a][b], a column apart by one bank more
    for (int64_t batch = blockIdx.z; batch < t.batches; batch += gridDim.z) {
        int64_t from = 0, to = 0, rest = batch;
        for (int d = t.rest - 1; d >= 0; --d) {
            const int64_t i = rest % t.shape[d];
            rest /= t.shape[d];
            from += i * t.strides[d];
            to += i * t.to[d];
        }
        for (int64_t b0 = blockIdx.y * int64_t(kTile); b0 < t.b_extent; b0 += int64_t(gridDim.y) * kTile)
            for (int64_t a0 = blockIdx.x * int64_t(kTile); a0 < t.a_extent; a0 += int64_t(gridDim.x) * kTile) {
                for (int r = threadIdx.y; r < kTile; r += kTileRows) {  // the lanes along b
                    const int64_t a = a0 + r, b = b0 + threadIdx.x;
                    if (a < t.a_extent && b < t.b_extent)
                        tile[r][threadIdx.x] = *reinterpret_cast<const Unit *>(src + from + a * t.a_stride + b * t.b_stride);
                }
                __syncthreads();
                for (int r = threadIdx.y; r < kTile; r += kTileRows) {  // the lanes along a
                    const int64_t b = b0 + r, a = a0 + threadIdx.x;
                    if (a < t.a_extent && b < t.b_extent) dst[to + b * t.b_to + a] = tile[threadIdx.x][r];
                }
                __syncthreads();  // before the tile is loaded again
            }
    }
}

// The tiles' layout of `units` where its last dimension (of extent above 1) is not of the source's
// contiguous unit and another is: true, with *t set.
template <class Unit> bool tiles_of(const unit_layout &units, tiled_layout *t) {
    constexpr int64_t unit = sizeof(Unit);
    int a = units.ndim - 1;
    while (a >= 0 && units.shape[a] == 1) --a;
    if (a < 0 || units.strides[a] == unit || units.strides[a] == -unit) return false;
    int b = -1;
    for (int d = 0; d < units.ndim && b < 0; ++d)
        if (d != a && units.shape[d] > 1 && (units.strides[d] == unit || units.strides[d] == -unit)) b = d;
    if (b < 0) return false;
    int64_t to = 1;  // the copy's stride of each dimension, from the last
    t->rest = 0;
    t->batches = 1;
    int64_t to_of[CURED_MAX_DIMS + 1];
    for (int d = units.ndim - 1; d >= 0; --d) {
        to_of[d] = to;
        to *= units.shape[d];
    }
    for (int d = 0; d < units.ndim; ++d) {
        if (d == a || d == b || units.shape[d] == 1) continue;
        t->shape[t->rest] = units.shape[d];
        t->strides[t->rest] = units.strides[d];
        t->to[t->rest++] = to_of[d];
        t->batches *= units.shape[d];
    }
    t->a_extent = units.shape[a];
    t->a_stride = units.strides[a];
    t->b_extent = units.shape[b];
    t->b_stride = units.strides[b];
    t->b_to = to_of[b];
    return true;
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
    tiled_layout tiles;
    if (tiles_of<Unit>(units, &tiles)) {
        const auto tile_count = [](int64_t extent, int64_t most) { return unsigned(std::min((extent + kTile - 1) / kTile, most)); };
        const dim3 grid(tile_count(tiles.a_extent, INT32_MAX), tile_count(tiles.b_extent, 65535),
                        unsigned(std::min<int64_t>(tiles.batches, 65535)));
        gather_tiles<Unit><<<grid, dim3(kTile, kTileRows), 0, stream>>>(static_cast<const char *>(src),
                                                                       static_cast<Unit *>(dst), tiles);
        return cudaGetLastError();
    }
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
