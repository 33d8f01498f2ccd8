// V10 along axes: cured.fsum(a, axis=...) of a device array, each output the exact sum of its
// elements, rounded once.
//
// What changed from V10: many sums instead of one. The host makes the reduced elements of each
// output consecutive first (device_sum's C-order copy, then a copy with the reduced axes last where
// they are not already: module.c), so the input here is rows: `rows` outputs of `length` elements.
// A warp takes a row, or a segment of one where there are few long rows (so that every SM has
// work), and adds each element into the warp's exact state in shared memory (exact.h: 68 limbs of
// 32 bits), decoded into a term and added with shared atomic adds (exact_term.cuh): V10's slow
// path, without its register window. A row of one segment is rounded by the warp's lane 0 at once
// (cured_exact_round, the CPU's code); segments leave their normalized states in the workspace,
// and a second launch adds each row's states, limb by limb, and rounds. The answer is unique, so
// it is the CPU's (exact_cpu.c), whatever the segments.
//
// Exact for rows of fewer than 2^62 elements: a segment holds at most 2^30 (each limb of its
// state then stays below 2^62), and a row's normalized states add below 2^63.
//
// Napkin math: each element is a decode and up to three 64-bit shared atomic adds, which sm_90
// runs as compare-and-swap loops, and a warp's lanes add into the same limbs; a row also costs
// clearing, normalizing and rounding 68 limbs, one lane's serial work. Measured (device time of the
// whole call, standard-normal data, H200, 2026-11-23, scripts/probes/v10_axis_speed.py): 87 to 131
// GB/s on (4096, 4096) float64 along either axis, (16, 2^24) and (2^14, 2^14) float32, (512, 512,
// 512) float64 along (0, 2), where V9's axis kernels read 1389 to 3693 in the same calls; 11 GB/s
// on 2^24 rows of 16 float32, where the rows' fixed cost rules. The slow path's speed, far below the
// memory's limit: V10's register window and each thread's own state (v10_exact.cu) are the way
// there.
#include <array>
#include <utility>

#include "../axis.h"
#include "../exact.h"
#include "exact_term.cuh"
#include "tiles.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kLimbs = CURED_EXACT_LIMBS;
constexpr int64_t kUnitsWanted = int64_t(1) << 15;  // (row, segment) pairs that keep every SM busy
constexpr int64_t kShortestSegment = 4096;
constexpr int64_t kLongestSegment = int64_t(1) << 30;

struct segments_plan {
    int64_t segments, segment;  // segments a row, elements a segment (the last may be shorter)
};

segments_plan segments_of(int64_t rows, int64_t length) {
    int64_t segments = 1;
    if (rows < kUnitsWanted && length > kShortestSegment)
        segments = std::min((length + kShortestSegment - 1) / kShortestSegment, (kUnitsWanted + rows - 1) / rows);
    segments = std::max(segments, (length + kLongestSegment - 1) / kLongestSegment);
    const int64_t segment = (length + segments - 1) / segments;
    return {(length + segment - 1) / segment, segment};
}

// The warp's flags, OR-ed over its lanes (returned to all), and its state, normalized by lane 0 and,
// where `out` is given, rounded into *out.
__device__ __forceinline__ unsigned warp_round(int64_t *limbs, unsigned flags, unsigned lane, cured_dtype result,
                                               double *out) {
    flags = cured::warp_or(flags);
    __syncwarp();
    if (lane == 0) {
        cured_exact_normalize(limbs, 0, kLimbs - 1);
        if (out != nullptr) *out = cured_exact_round(limbs, 0, kLimbs - 1, flags, result);
    }
    __syncwarp();
    return flags;
}

// A (row, segment) pair's state: rounded into out[row] (one segment a row) or stored, normalized,
// with its flags, for the combine.
__device__ __forceinline__ void finish(unsigned long long *state, unsigned flags, unsigned lane, int64_t row,
                                       int64_t unit, bool alone, cured_dtype result, double *out, int64_t *states,
                                       unsigned *unit_flags) {
    auto *const limbs = reinterpret_cast<int64_t *>(state);
    flags = warp_round(limbs, flags | CURED_EXACT_NONEMPTY, lane, result, alone ? out + row : nullptr);
    if (alone) return;
    if (lane == 0) unit_flags[unit] = flags;
    for (int k = lane; k < kLimbs; k += 32) states[unit * kLimbs + k] = limbs[k];
    __syncwarp();
}

// Each (row, segment) pair to a warp, in turn over the grid.
template <class In>
__global__ void __launch_bounds__(kThreads)
    exact_row_segments(const In *in, int64_t rows, int64_t length, segments_plan plan, cured_dtype result, double *out,
                       int64_t *states, unsigned *unit_flags) {
    __shared__ unsigned long long warp_limbs[kWarps][kLimbs];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned long long *const state = warp_limbs[warp];
    const int64_t units = rows * plan.segments;
    for (int64_t unit = int64_t(blockIdx.x) * kWarps + warp; unit < units; unit += int64_t(gridDim.x) * kWarps) {
        for (int k = lane; k < kLimbs; k += 32) state[k] = 0;
        __syncwarp();
        const int64_t row = unit / plan.segments, begin = unit % plan.segments * plan.segment;
        const int64_t end = min(begin + plan.segment, length);
        const In *const elements = in + row * length;
        unsigned flags = 0;
        for (int64_t i = begin + lane; i < end; i += 32) {
            cured_exact_term term;
            if (cured::term_of(elements[i], &term, &flags)) cured::add_term<true>(state, term);
        }
        finish(state, flags, lane, row, unit, plan.segments == 1, result, out, states, unit_flags);
    }
}

// Each row's segment states added, limb by limb (each below 2^32 once normalized), and rounded.
__global__ void __launch_bounds__(kThreads)
    exact_row_combine(int64_t rows, int64_t segments, const int64_t *states, const unsigned *unit_flags,
                      cured_dtype result, double *out) {
    __shared__ int64_t warp_limbs[kWarps][kLimbs];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int64_t row = int64_t(blockIdx.x) * kWarps + warp; row < rows; row += int64_t(gridDim.x) * kWarps) {
        const int64_t first = row * segments;
        for (int k = lane; k < kLimbs; k += 32) {
            int64_t v = 0;
            for (int64_t s = 0; s < segments; ++s) v += states[(first + s) * kLimbs + k];
            warp_limbs[warp][k] = v;
        }
        unsigned flags = 0;
        for (int64_t s = lane; s < segments; s += 32) flags |= unit_flags[first + s];
        warp_round(warp_limbs[warp], flags, lane, result, out + row);
    }
}

// A grid for `units` warps' work: at most two waves of the kernel's blocks.
template <auto Kernel> cudaError_t grid_for(int64_t units, int64_t *grid) {
    int64_t blocks;
    const cudaError_t err = cured::waves_grid<Kernel>(kThreads, 2, &blocks);
    if (err != cudaSuccess) return err;
    *grid = std::max<int64_t>(1, std::min(blocks, (units + kWarps - 1) / kWarps));
    return cudaSuccess;
}

using rows_launcher = cudaError_t (*)(const void *, int64_t, int64_t, cured_dtype, double *, void *, cudaStream_t);

template <int Code>
cudaError_t launch_rows(const void *in, int64_t rows, int64_t length, cured_dtype result, double *out, void *workspace,
                        cudaStream_t stream) {
    using In = typename cured::dtype_type<Code>::type;
    const segments_plan plan = segments_of(rows, length);
    auto *const states = static_cast<int64_t *>(workspace);
    auto *const unit_flags = reinterpret_cast<unsigned *>(states + (plan.segments > 1 ? rows * plan.segments * kLimbs : 0));
    int64_t grid;
    cudaError_t err = grid_for<exact_row_segments<In>>(rows * plan.segments, &grid);
    if (err != cudaSuccess) return err;
    exact_row_segments<In><<<unsigned(grid), kThreads, 0, stream>>>(static_cast<const In *>(in), rows, length, plan,
                                                                      result, out, states, unit_flags);
    if ((err = cudaGetLastError()) != cudaSuccess || plan.segments == 1) return err;
    if ((err = grid_for<exact_row_combine>(rows, &grid)) != cudaSuccess) return err;
    exact_row_combine<<<unsigned(grid), kThreads, 0, stream>>>(rows, plan.segments, states, unit_flags, result, out);
    return cudaGetLastError();
}

template <int... Codes> constexpr std::array<rows_launcher, sizeof...(Codes)> launchers(std::integer_sequence<int, Codes...>) {
    return {&launch_rows<Codes>...};
}
constexpr auto kLaunchers = launchers(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});

}  // namespace

extern "C" size_t cured_exact_rows_workspace(int64_t rows, int64_t length) {
    const segments_plan plan = segments_of(rows, length);
    if (plan.segments == 1) return 0;
    const size_t units = size_t(rows) * size_t(plan.segments);
    return units * (kLimbs * sizeof(int64_t) + sizeof(unsigned));
}

extern "C" cudaError_t cured_exact_rows(cured_dtype in_dtype, const void *in, int64_t rows, int64_t length,
                                        cured_dtype result, double *out, void *workspace, cudaStream_t stream) {
    if (in_dtype < 0 || in_dtype >= CURED_NUM_DTYPES || rows < 0 || length < 1 || !cured_dtype_is_float(result))
        return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    return kLaunchers[in_dtype](in, rows, length, result, out, workspace, stream);
}
