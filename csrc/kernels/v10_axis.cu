// V10 along axes: cured.fsum(a, axis=...) of a device array, each output the exact sum of its
// elements, rounded once.
//
// What changed from V10: many sums instead of one. The host makes the reduced elements of each
// output consecutive first (device_sum's C-order copy, then a copy with the reduced axes last where
// they are not already: module.c), so the input here is rows: `rows` outputs of `length` elements.
// A warp takes a row, or a segment of one where there are few long rows (so that every SM has
// work), and adds each element into the warp's exact state in shared memory (exact.h: 68 limbs of
// 32 bits), decoded into a term and added with shared atomic adds (exact_term.cuh): V10's slow
// path, without its register window. The warp then carries its state and rounds it at once, a row
// of one segment (exact_round.cuh, V10's: carry lookahead over the limbs, three a lane), or
// segments leave their normalized states in the workspace, and a second launch adds each row's
// states, limb by limb, in the lanes' registers, and rounds them so. The answer is unique, so it is
// the CPU's (exact_cpu.c), whatever the segments.
//
// Exact for rows of fewer than 2^62 elements: a segment holds at most 2^30 (each limb of its
// state then stays below 2^62), and a row's normalized states add below 2^63.
//
// Napkin math: each element is a decode and up to three 64-bit shared atomic adds, which sm_90
// runs as compare-and-swap loops, and a warp's lanes add into the same limbs; a row also costs
// clearing its 68 limbs and the warp's carries and rounding. Measured (device time of the
// whole call, standard-normal data, H200, 2026-11-23, scripts/probes/v10_axis_speed.py): 87 to 131
// GB/s on (4096, 4096) float64 along either axis, (16, 2^24) and (2^14, 2^14) float32, (512, 512,
// 512) float64 along (0, 2), where V9's axis kernels read 1389 to 3693 in the same calls; 11 GB/s
// on 2^24 rows of 16 float32, where the rows' fixed cost rules. The slow path's speed, far below the
// memory's limit: V10's register window and each thread's own state (v10_exact.cu) are the way
// there. The warp's carries and rounding (exact_round.cuh) replaced lane 0's carry loop over the 68
// limbs and its rounding, and the combine's states went into registers instead of shared memory:
// H100, 2026-11-26 14:16 UTC (scripts/probes/v10_axis_speed.py on this kernel, the one before and
// this one again, each built in turn on one machine), 2^24 rows of 16 float32 92.6 -> 83.7 / 83.4
// ms (11.6 -> 12.8 GB/s); the other shapes the same or up to 3% faster.
#include <array>
#include <utility>

#include "../axis.h"
#include "../exact.h"
#include "exact_round.cuh"
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

// A (row, segment) pair's state, with its lanes' flags: rounded into out[row] (one segment a row)
// or stored whole, normalized, with the warp's flags, for the combine.
__device__ __forceinline__ void finish(const unsigned long long *state, unsigned flags, unsigned lane, int64_t row,
                                       int64_t unit, bool alone, cured_dtype result, double *out,
                                       cured_exact_state *states) {
    const auto *const limbs = reinterpret_cast<const int64_t *>(state);
    flags = cured::warp_or(flags) | CURED_EXACT_NONEMPTY;
    __syncwarp();  // every lane's adds into the state are done
    if (alone) cured::round_state_by_warp(limbs, flags, result, out + row, lane);
    else cured::round_state_by_warp(limbs, flags, CURED_EXACT_STATE, reinterpret_cast<double *>(states + unit), lane);
    __syncwarp();  // before the state is cleared for the next pair
}

// Each (row, segment) pair to a warp, in turn over the grid.
template <class In>
__global__ void __launch_bounds__(kThreads)
    exact_row_segments(const In *in, int64_t rows, int64_t length, segments_plan plan, cured_dtype result, double *out,
                       cured_exact_state *states) {
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
        finish(state, flags, lane, row, unit, plan.segments == 1, result, out, states);
    }
}

// Each row's segment states added, limb by limb (each below 2^32 once normalized) in the lanes'
// registers, and rounded.
__global__ void __launch_bounds__(kThreads)
    exact_row_combine(int64_t rows, int64_t segments, const cured_exact_state *states, cured_dtype result, double *out) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int64_t row = int64_t(blockIdx.x) * kWarps + warp; row < rows; row += int64_t(gridDim.x) * kWarps) {
        const cured_exact_state *const first = states + row * segments;
        int64_t limb[cured::kStateSlots];
#pragma unroll
        for (int j = 0; j < cured::kStateSlots; ++j) {
            const int k = 32 * j + int(lane);
            limb[j] = 0;
            if (k < kLimbs)
                for (int64_t s = 0; s < segments; ++s) limb[j] += first[s].limb[k];
        }
        unsigned flags = 0;
        for (int64_t s = lane; s < segments; s += 32) flags |= unsigned(first[s].flags);
        cured::round_limbs_by_warp(limb, cured::warp_or(flags), result, out + row, lane);
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
    auto *const states = static_cast<cured_exact_state *>(workspace);
    int64_t grid;
    cudaError_t err = grid_for<exact_row_segments<In>>(rows * plan.segments, &grid);
    if (err != cudaSuccess) return err;
    exact_row_segments<In><<<unsigned(grid), kThreads, 0, stream>>>(static_cast<const In *>(in), rows, length, plan,
                                                                      result, out, states);
    if ((err = cudaGetLastError()) != cudaSuccess || plan.segments == 1) return err;
    if ((err = grid_for<exact_row_combine>(rows, &grid)) != cudaSuccess) return err;
    exact_row_combine<<<unsigned(grid), kThreads, 0, stream>>>(rows, plan.segments, states, result, out);
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
    return size_t(rows) * size_t(plan.segments) * sizeof(cured_exact_state);
}

extern "C" cudaError_t cured_exact_rows(cured_dtype in_dtype, const void *in, int64_t rows, int64_t length,
                                        cured_dtype result, double *out, void *workspace, cudaStream_t stream) {
    if (in_dtype < 0 || in_dtype >= CURED_NUM_DTYPES || rows < 0 || length < 1 || !cured_dtype_is_float(result))
        return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    return kLaunchers[in_dtype](in, rows, length, result, out, workspace, stream);
}
