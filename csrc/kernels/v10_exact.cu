// V10: exact. The real sum of the elements, rounded once.
//
// What changed from V9: the accumulator. V9's float accumulator rounds at every addition, in an
// order fixed by the length: the same bits everywhere, but one rounding order's bits. V10 keeps
// every bit of every element until the end and rounds once, to nearest with ties to even, into the
// result dtype (float16 input: once, to float16). Its answer is unique, so every grid, every
// chunking of host input and the CPU (exact_cpu.c) give it; NaN and infinities are IEEE's, there
// is no intermediate overflow (float32 [3e38, 3e38, -3e38] sums to 3e38), and -0.0 is kept only
// where every element is -0.0. The walk over the input is V9's (tiles.cuh): 16-byte loads, 8 in
// flight a thread, one launch (of one or two waves of blocks: kOneWaveSteps); integer
// accumulators run V9's kernel, whose sums are exact already.
//
// Where the bits go, in three levels, decided a step at a time (32 float32, 16 float64, 64 float16
// a thread), with no branch an element:
//  1. Registers, the fast window. Each thread keeps kBins floating accumulators ("bins", as in
//     Demmel and Nguyen's reproducible summation), bin k holding multiples of 2^b_k, b_k =
//     kTop - (k + 1) kBinBits, started at M_k = 1.5 x 2^(b_k + p - 1) (p the float's precision) so
//     that its last place is 2^b_k. An element x with |x| < 2^kTop goes through the bins:
//     s = bin + x; hi = s - bin; x -= hi; bin = s. hi is x rounded to a multiple of 2^b_k and both
//     subtractions are exact (s and the bin lie in one binade; x - hi is the rounding error of an
//     addition), so x leaves in each bin exactly the bits it has there and passes the rest on.
//     Three floating additions a bin, no memory. A step first takes the signed and the unsigned
//     maximum of its elements' high words (one 3-input min/max instruction for two elements): they
//     give its largest magnitude and whether a sign bit was clear. If every element is below
//     2^kTop (for float32, and float64's warps' words, every element of the warp's step), all go
//     through the bins, their remainders OR-ed together; a non-zero remainder (bits below the last
//     bin) sends the whole step, from the bins' start, to level 2. After each step,
//     each bin gives its content (bin - M_k, an exact integer number of 2^b_k) to an int64 beside
//     it and restarts at M_k; a step adds at most 2^(b_k + p - 3) to a bin, so it never leaves its
//     binade.
//  2. Shared memory, the rest (exact_level2.cuh): a step with an element of 2^kTop or more, or one
//     the bins could not hold. float32 (and float16) elements go into 16 float64 accumulators of
//     the thread's own, one for each 16 binades, which add them exactly (thread_bins): a
//     conversion, a shared load, a float64 add and a store an element, no branch. float64 elements go into a whole state of
//     the thread's own, 44 digits of 48 bits (two plain shared adds an element, no branch), in
//     dynamic shared memory where the GPU has 90 KiB a block for it (sm_80 up); in a launch of at
//     most a wave of tiles, a block a tile, into their warp's state of 16-bit digits instead
//     (warp_words: five native 32-bit shared atomic adds an element, 4 KiB a block). A step with a NaN
//     or an infinity is decoded element by element (its flags raised; float32's finite elements
//     then go into the bins), and float64's such steps, and float64 on a GPU without that memory,
//     add sign, integer and bit position into the warp's exact state (exact.h: 68 limbs of 32
//     bits in int64, 2^-1074 up) with shared-memory atomic adds, which sm_90 runs as
//     compare-and-swap loops: the slow path. Standard-normal data almost never comes to level 2;
//     data over the whole exponent range mostly does.
//  3. Global memory, the combine. Every 64 steps and at the end, each warp adds its threads' int64s
//     and float64 exponent bins, made integers, into its state (lane 0, no atomics; a block of one
//     tile sums its exponent bins over all its threads first, exactly in float64), and its
//     float64 words (a lane a limb); every 64 steps each thread carries its float64 digits; at the
//     end the block adds the digits into its warps' states, and its warps' states, carries once,
//     and adds the result into one state in the workspace with 68 global atomic adds. The block
//     that completes the ticket (as V9's) reads that state, zeroes it for the next sum, and its
//     warp 0 carries and rounds it (exact_round.cuh: carry lookahead by ballots over the limbs,
//     three a lane, or for a float32 or float16 sum one, limbs 28 to 59, beyond which it never
//     reaches; then the CPU's rounding rule, cured_exact_round_top). A launch of one block over
//     the whole input rounds its block's state itself: no global state, no ticket. An input of 2 to
//     8 tiles, on sm_90 up, launches as one cluster of blocks, a tile each: each other block writes
//     its carried state into a row of the first block's shared memory (distributed shared memory,
//     st.async, whose bytes an mbarrier there counts), the cluster's barrier (whose first phase
//     each block arrived at as it started), and the first block, once the bytes are in, rounds.
//
// Window (kTop, bins x bits; elements it holds whole): float32 2^12, 4 x 16 (|x| >= 2^-29);
// float64 2^24, 3 x 46 (|x| >= 2^-62); float16 2^16, 4 x 15 (every float16).
//
// Exact for any sum of fewer than 2^64 elements over any number of launches; one launch for
// fewer than 2^31 elements a warp of its grid (2^34 even with a grid of one block).
//
// Napkin math: the window is 12 float32 additions an element (float64: 9), against the H200's 128
// (64) lanes a clock an SM, where V9 reads about 4 elements a clock an SM at full speed.
//
// Evidence (device time; the current figures against the targets are README's "Exact sums", from
// results/, records of 2026-11-26): from 2^26 V10 reads 0.94 to 1.00 of V9's bandwidth on
// standard-normal data and 0.83 to 0.98 on data whose exponents span the dtype's whole range (the
// H200's float64 the lowest: bound by its instructions there, 30 an element in the digits' loop),
// where the first V10, which tested the window and the remainder for each element, read 0.58 to
// 0.61 on standard-normal float32 and 0.13 on full-range data through the warp's state (H200). Nsight Compute at 2^25 float32: 0.553 warp instructions
// an element against V9's 0.133, occupancy 36.6% (H200). From 2^10 to 2^16 a block's fixed
// latency decides, not its bandwidth: 1.06 to 1.55 times V9's time (5.2 to 8.9 us); clock64 stamps
// at full-range float32 2^10 (H100, scripts/probes/v10_phases) put 1380 of the block's 5790 clocks
// before its first step, 1800 in the step, 1440 in the walk's end, 110 to warp 0's start and 1060
// in its reading, carries and rounding. Each design choice above came with an A/B run in turns against the kernel before, on
// one GPU in one process; those runs, what each change bought and what was tried and not kept are
// in docs/v10.md, "How the kernel came to be", in the order the changes were made.

#include <climits>

#include <cuda/atomic>
#include <cuda/ptx>

#include "../exact.h"
#include "exact_level2.cuh"
#include "exact_round.cuh"
#include "exact_term.cuh"
#include "exact_window.cuh"
#include "tiles.cuh"

namespace {

// kThreads, kWarps, kLimbs, kFlushSteps and level 2's stores: exact_level2.cuh.
using namespace cured::v10;

constexpr int kVectors = v10_exact_per_thread;
static_assert(kLimbs <= kThreads, "a thread a limb in the block's combine");
// The grid: one wave of blocks while a tile is at most two steps (up to 2^26 float32 and 2^25
// float64 elements), then two, as V9's. A V10 block's fixed cost (clearing its level-2 state,
// adding its state up, the global combine) is many times V9's: two waves left each block of 2^21
// to 2^25 elements one or two tiles. Longer tiles make the fixed cost small, and there the second
// wave's blocks even out the SMs' pace (docs/v9.md), which data over the whole exponent range,
// bound by each SM's instructions, needs most. Device time, two waves against one (forced grids,
// H200, 2026-11-23, scripts/probes/v10_grid_ab.py; full range in brackets): float64 2^21 16.1 ->
// 13.3 us (22.3 -> 16.9), 2^23 27.4 -> 24.5 (36.0 -> 32.2), 2^25 71.4 -> 69.7 (90.2 -> 88.5), but
// 2^26 130.8 -> 129.8 (160.7 -> 163.6) and 2^28 486.8 -> 490.3 (591.8 -> 600.0); float32 2^23
// 21.1 -> 17.7 (25.2 -> 22.0), 2^26 73.6 -> 69.9 (91.7 -> 90.7), but 2^28 253.8 -> 250.1 (321.3
// -> 332.7).
constexpr int kOneWaveSteps = 2;
// Tiles a block from which float64's digits are cleared before the block's first loads rather than
// inside its first step (ClearFirst, below). H200, full-range float64, device time (2026-11-24,
// scripts/probes/v10_phases, in turns with the kernel that cleared inside the first step): clearing
// first 23.2 -> 22.8 us at 2^22 (4 tiles a block), 53.3 -> 52.0 at 2^24, 92.5 -> 89.8 at 2^25, 167.9
// -> 162.7 at 2^26, 324.6 -> 310.9 at 2^27, 643.0 -> 613.4 at 2^28; standard-normal float64 from 0.5%
// faster (2^22) to 1.5% slower (2^24); but 0.8 to 0.9 us slower at 2^16 and 2^17 (a tile a block).
constexpr int64_t kClearFirstTiles = 4;

// The width of T's IEEE layout.
template <class T> constexpr int kWidth = int(sizeof(T)) * 8;

// The high 32 bits of a float32's or float64's layout: sign, exponent, the top of the fraction.
// As signed integers, keys order the values of one sign by magnitude; a step's largest magnitude
// and whether any element has its sign bit clear follow from a signed and an unsigned maximum,
// two instructions an element. A float64 NaN may have the key of an infinity: it is found later.
template <class T> __device__ __forceinline__ uint32_t key_of(T x) {
    if constexpr (sizeof(T) == 4) return __float_as_uint(x);
    else return uint32_t(__double2hiint(x));
}
template <class T> constexpr uint32_t kInfinityKey = sizeof(T) == 4 ? 0x7f800000u : 0x7ff00000u;
template <class T> __host__ __device__ constexpr uint32_t key_of_pow2(int e) {
    return sizeof(T) == 4 ? uint32_t(e + 127) << 23 : uint32_t(e + 1023) << 20;
}

using cured::add_term;
using cured::bin_exponent;
using cured::pow2;
using cured::unit_bit;
using cured::window;
using cured::warp_or;
using cured::warp_sum;

// Where a float32 or float16 sum lies in the exact state: from the exponent bins' unit, 2^-150 (bit
// 924, limb 28; the smallest subnormal is bit 925), up to below 2^128 x 2^64 elements (bit 1266,
// limb 39) and the two limbs above a value's that its pieces reach. Warp 0 rounds such a state
// through one slot a lane from limb 28 (exact_round.cuh), each pass one ballot a mask and 32-bit
// masks, where the whole state takes three and 128-bit ones (docs/v10.md has the gain).
constexpr int kNarrowFirstLimb = kUnitBit / 32;
static_assert(kNarrowFirstLimb == 28 && unit_bit<window<float>>(window<float>::kBins - 1) >= 32 * kNarrowFirstLimb &&
                  unit_bit<window<__half>>(window<__half>::kBins - 1) >= 32 * kNarrowFirstLimb,
              "no float32 or float16 value reaches below limb 28");
static_assert((128 + 64 - CURED_EXACT_UNIT_EXP) / 32 + 2 < kNarrowFirstLimb + 32, "nor above limb 59");

// A thread's fast window (exact_window.cuh), with the last flushes of V10's blocks.
template <class In> struct block_window : cured::thread_window<In> {
    using Base = cured::thread_window<In>;
    using W = typename Base::W;

    // The last flush of a block of a few tiles. Where each bin's last place lies in the state is
    // known when compiling, so each thread first cuts its int64s into 32-bit pieces of the limbs
    // they cover (kLimbSpan; a bin gives a limb one piece below 2^32) and adds them up a limb at a
    // time; the warp sums the limbs, not the bins, and lane 0 adds kLimbSpan numbers at fixed places
    // of its own warp's state: no test, no barrier. flush_last and add_bins, below, took 620 of a
    // small sum's clocks (H200); this took 0.1 to 0.25 us off V10 at 2^10 to 2^17, both dtypes, both
    // kinds of data (H200, 2026-11-26, scripts/probes/v10_phases, in turns with the kernel before).
    // Blocks of many tiles (ClearFirst) keep flush_last and add_bins: with this, the kernel's
    // schedule changed (not its loop's source) and full-range float64 read 2.6 to 5.2% slower from
    // 2^24, where a block's end comes once in many tiles.
    __device__ __forceinline__ void flush_limbs(unsigned long long *limbs, unsigned lane) {
        constexpr int kFirstLimb = unit_bit<W>(W::kBins - 1) / 32;  // the lowest bin's last place
        constexpr int kLimbSpan = unit_bit<W>(0) / 32 + 3 - kFirstLimb;  // up to two limbs above the highest's
        static_assert(kFirstLimb + kLimbSpan <= kLimbs, "the window lies in the state");
        int64_t part[kLimbSpan] = {};
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const int bit = unit_bit<W>(k), limb = bit / 32 - kFirstLimb;
            int64_t piece[3];
            limb_pieces(this->whole[k], bit % 32, piece);
#pragma unroll
            for (int j = 0; j < 3; ++j) part[limb + j] += piece[j];
            this->whole[k] = 0;
        }
#pragma unroll
        for (int j = 0; j < kLimbSpan; ++j) {
            const int64_t v = warp_sum(part[j]);
            if (lane == 0) limbs[kFirstLimb + j] += (unsigned long long)v;
        }
    }
    // The last flush of a block of many tiles: the int64s, summed over the warp, into sums[bin] (by
    // lane 0), for the block to add into its state once (add_bins); the warp's lane 0 spends its
    // time on no pieces and limbs.
    __device__ __forceinline__ void flush_last(int64_t *sums, unsigned lane) {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const int64_t v = this->bin_warp_sum(k);
            if (lane == 0) sums[k] = v;
        }
    }
    // Thread k < kBins of the block: bin k's sums from its warps into warp k's state (the block
    // adds its warps' states next), in two halves, whose sums over the warps cannot overflow (a
    // warp's sum is below 2^62). A state a bin, so plain adds: the bins' pieces share limbs, and
    // 64-bit shared atomics on them (compare-and-swap loops on sm_90) took 1134 clocks.
    __device__ static void add_bins(const int64_t (*sums)[W::kBins], unsigned long long (*warp_limbs)[kLimbs]) {
        static_assert(W::kBins <= kWarps, "a warp state a bin");
        if (threadIdx.x >= W::kBins) return;
        int64_t low = 0, high = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            low += sums[w][threadIdx.x] & 0xffffffff;
            high += sums[w][threadIdx.x] >> 32;
        }
        if (low != 0) add_term<false>(warp_limbs[threadIdx.x], Base::term(threadIdx.x, low, 0));
        if (high != 0) add_term<false>(warp_limbs[threadIdx.x], Base::term(threadIdx.x, high, 32));
    }
};

// The padding past the end of the input: a value that adds nothing and leaves the sign flag as
// it is (-0.0 for floats).
template <class In> __device__ __forceinline__ In pad_value() {
    if constexpr (std::is_same_v<In, __half>) return __ushort_as_half(0x8000);
    else if constexpr (cured::is_floating<In>) return In(-0.0);
    else return In{};
}

// The workspace's header (cured.h): V9's ticket at 0, the flags at 4, the state's limbs at
// CURED_TILES_EXACT_OFFSET.
struct exact_workspace {
    unsigned ticket;
    unsigned flags;
};
static_assert(CURED_TILES_EXACT_OFFSET % 8 == 0 && CURED_TILES_EXACT_OFFSET + kLimbs * 8 <= CURED_TILES_HEADER_BYTES,
              "the limbs lie in the header, 8-byte aligned");

// A few tiles (2 to kClusterBlocks), a block each, launch as one cluster (sm_90 up: blocks on one
// GPC that read each other's shared memory and share a barrier), whose blocks add their states in
// the first block's shared memory instead of the workspace: no trips through L2, no ticket. A
// launch that is not a cluster is a cluster of one block. The workspace and the ticket cost two
// blocks 3700 clocks more than one (scripts/probes/v10_phases).
constexpr int kClusterBlocks = 8;  // the largest cluster every sm_90 GPU runs

// sm_90 up runs clusters; before it (and in the host pass) every launch is a cluster of one block.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned cluster_blocks() { return __clusterSizeInBlocks(); }
__device__ __forceinline__ unsigned cluster_rank() { return __clusterRelativeBlockRank(); }
// The cluster's barrier in halves: every thread of the cluster's blocks arrives, then waits for the
// others' arrivals (threads that have exited count as arrived).
__device__ __forceinline__ void cluster_arrive_relaxed() { __cluster_barrier_arrive_relaxed(); }
__device__ __forceinline__ void cluster_wait() { __cluster_barrier_wait(); }
// The same shared variable in the cluster's first block.
template <class T> __device__ __forceinline__ T *cluster_first_block(T *p) {
    return static_cast<T *>(__cluster_map_shared_rank(p, 0));
}
// The first block's barrier for the other blocks' rows (an mbarrier that counts bytes): set by one
// of its threads, before that thread arrives at the cluster's barrier, to complete once `bytes`
// have arrived. The other blocks store into the first block's shared memory with st.async, each
// store counting its bytes there as it lands: no release fence waits for their stores to be
// acknowledged, as a release arrival at the cluster's barrier after plain remote stores did.
__device__ __forceinline__ void rows_barrier_init(uint64_t *barrier, uint32_t bytes) {
    namespace ptx = cuda::ptx;
    ptx::mbarrier_init(barrier, 1);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, barrier, bytes);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
}
// `value` into the first block's copy of *p, counted at its copy of *barrier.
template <class T> __device__ __forceinline__ void store_in_first_block(T *p, T value, uint64_t *barrier) {
    cuda::ptx::st_async(cluster_first_block(p), value, cluster_first_block(barrier));
}
// In the first block: every byte has arrived, and the stores are visible to this thread.
__device__ __forceinline__ void rows_barrier_wait(uint64_t *barrier) {
    namespace ptx = cuda::ptx;
    while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, barrier, 0u)) {
    }
}
#else
__device__ __forceinline__ unsigned cluster_blocks() { return 1; }
__device__ __forceinline__ unsigned cluster_rank() { return 0; }
__device__ __forceinline__ void cluster_arrive_relaxed() {}
__device__ __forceinline__ void cluster_wait() {}
__device__ __forceinline__ void rows_barrier_init(uint64_t *, uint32_t) {}
template <class T> __device__ __forceinline__ void store_in_first_block(T *p, T value, uint64_t *) { *p = value; }
__device__ __forceinline__ void rows_barrier_wait(uint64_t *) {}
#endif

// `in` holds n elements: tiles first_tile, first_tile + 1, ... of an input cut as `t` says. Digits:
// float64's level 2 is the threads' digits, in the launch's dynamic shared memory. ClearFirst: each
// block clears its state before it loads anything (float64's digits, blocks of kClearFirstTiles tiles
// or more), else inside its first step (clear_state). Words: float64's level 2 is the warps' words.
template <class In, class Acc, bool Aligned, bool Digits, bool ClearFirst, bool Words = false>
__global__ void __launch_bounds__(kThreads, Digits ? 2 : 3)
    reduce_v10(const In *in, Acc *out, int64_t n, int64_t first_tile, cured_tiles t, void *workspace,
               cured_dtype result) {
    static_assert(!Digits || std::is_same_v<In, double>, "the digits are float64's");
    static_assert(!Words || (std::is_same_v<In, double> && !Digits && !ClearFirst), "the words are float64's, alone");
    extern __shared__ int64_t dynamic_shared[];
    auto *const digits = reinterpret_cast<thread_digits *>(dynamic_shared);
    int64_t *const digit_column = digits->column();
    __shared__ std::conditional_t<Words, warp_words, char> words_here;
    auto *const words = reinterpret_cast<warp_words *>(&words_here);
    __shared__ unsigned long long warp_limbs[kWarps][kLimbs];
    __shared__ int64_t warp_bins[kWarps][window<std::conditional_t<cured::is_floating<In>, In, float>>::kBins];
    __shared__ std::conditional_t<kThreadOwnBins<In>, thread_bins, char> own;
    __shared__ unsigned block_flags;
    // Where a cluster's other blocks leave their carried states and flags for its first block (block
    // r in row r - 1), apart from everything else: no barrier is needed before they write them but
    // the one at the start; and the first block's barrier that counts their bytes. ClearFirst's
    // blocks, of many tiles each, never form a cluster.
    constexpr int kClusterRows = ClearFirst ? 1 : kClusterBlocks - 1;
    __shared__ unsigned long long cluster_limbs[kClusterRows][kLimbs];
    __shared__ unsigned cluster_flags[kClusterRows];
    __shared__ uint64_t cluster_rows_arrived;
    // The block's state, its warps' states added: row 0 of warp_limbs, each limb's column summed
    // by its thread. With 544 bytes of its own beside the cluster's rows, two float64 blocks and
    // their digits take more than 196 KiB of an SM's shared memory, the next carveout 228 KiB
    // (L1 32 KiB less); a first try that did so in both float64 kernels read 2 to 5% slower on
    // full-range float64 from 2^22 elements (H100, 2026-11-26, scripts/probes/v10_phases).
    int64_t *const block_limbs = reinterpret_cast<int64_t *>(warp_limbs[0]);
    __shared__ bool last_block;
    auto *const header = static_cast<exact_workspace *>(workspace);
    auto *const limbs = reinterpret_cast<unsigned long long *>(static_cast<char *>(workspace) + CURED_TILES_EXACT_OFFSET);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    // The block's state cleared, in a launch of a few tiles once its first step's loads are on their
    // way: the stores then take place while the loads travel (350 clocks, 650 with float64's digits,
    // that a block of small input spent before it loaded anything: scripts/probes/v10_phases). Where
    // float64's blocks walk many tiles, first: clearing inside the first step cost full-range float64
    // 3 to 5% from 2^25 elements (kClearFirstTiles), and a run-time choice between the two was
    // slower still (docs/development.md), so the launcher chooses, at compile time.
    bool cleared = false;
    const auto clear_state = [&] {
        for (int k = threadIdx.x; k < kWarps * kLimbs; k += kThreads) (&warp_limbs[0][0])[k] = 0;
        if constexpr (kThreadOwnBins<In>) own.clear();
        if constexpr (Digits) digits->clear();
        if constexpr (Words) words->clear();
        if (threadIdx.x == 0) block_flags = 0;
        __syncthreads();
        cleared = true;
    };

    unsigned long long *const warp_state = warp_limbs[warp];
    auto *const slow = [&] {
        if constexpr (kThreadOwnBins<In>) return &own;
        else return warp_state;
    }();
    unsigned flags = 0;
    const int64_t tiles_here = cured::tiles_over(n, t);
    // This launch sums the whole input in one block: its state is the sum (no global state, no
    // ticket). Or in one cluster of blocks: their states add in the first block's shared memory.
    const bool whole_input = first_tile == 0 && tiles_here == t.tiles;
    const bool alone = gridDim.x == 1 && whole_input;
    const bool clustered = !ClearFirst && gridDim.x > 1 && whole_input && cluster_blocks() == gridDim.x;
    // A block of a cluster arrives at the cluster's barrier as it starts, the first block once its
    // barrier for the others' rows is set; the wait that completes that phase, in the other blocks
    // before they write into the first block's shared memory (which must have started), then finds
    // every block long arrived: one barrier's latency less than a full barrier there (float32 0.3
    // to 0.6 us at 2^14 to 2^16, H100, scripts/probes/v10_phases).
    constexpr uint32_t kClusterRowBytes = kLimbs * sizeof(unsigned long long) + sizeof(unsigned);
    if (clustered) {
        if (threadIdx.x == 0 && cluster_rank() == 0)
            rows_barrier_init(&cluster_rows_arrived, (gridDim.x - 1) * kClusterRowBytes);
        cluster_arrive_relaxed();
    }
    unsigned tiles_done = 0;
    bool own_in_block = false;  // this thread's bins hold elements for the block's flush_block
    if constexpr (cured::is_floating<In>) {
        using W = window<In>;
        using T = typename W::T;
        constexpr int kPerVector = CURED_VECTOR_BYTES / sizeof(In);
        block_window<In> bins;
        bins.reset();
        int steps = 0;
        bool own_used = false;     // this thread's chunks (digits) hold something not yet flushed (carried)
        bool digits_used = false;  // this thread's digits hold something
        int largest_key = INT_MIN;  // the signed maximum of the keys: >= 0 once a sign bit was clear
        if constexpr (ClearFirst) clear_state();
        for (int64_t tile = blockIdx.x; tile < tiles_here; tile += gridDim.x, ++tiles_done) {
            cured::for_tile_steps<kThreads, kVectors, In, Aligned>(
                in, n, tile * t.tile, t, threadIdx.x, pad_value<In>(), [&](In (&v)[kVectors][kPerVector], bool inside) {
                    if constexpr (!ClearFirst)
                        if (!cleared) clear_state();  // every thread of the block, at its first step
                    // The step's elements, its largest magnitude's key and its signs, first.
                    T x[kVectors * kPerVector];
                    int signed_max = INT_MIN;
                    unsigned unsigned_max = 0;
#pragma unroll
                    for (int i = 0; i < kVectors * kPerVector; ++i) {
                        x[i] = T(cured::to_acc<T>(v[i / kPerVector][i % kPerVector]));
                        signed_max = max(signed_max, int(key_of(x[i])));
                        unsigned_max = max(unsigned_max, key_of(x[i]));
                    }
                    largest_key = max(largest_key, signed_max);
                    const unsigned magnitude_key = unsigned(max(signed_max, int(unsigned_max & 0x7fffffffu)));
                    // Level 1: every element below 2^kTop goes through the bins; if none leaves a
                    // remainder (bits below the last bin), the step is done. A step that does
                    // starts again from the bins' start and takes level 2. Level 2 holds any
                    // element, so where it is each thread's exponent bins (float32, float16) or its
                    // warp's words (float64 in a launch of at most a wave of tiles), a warp that
                    // has one lane go there at once sends all: the others would run the window for a
                    // step that fits it only where every element does (at 2^10, 4 elements a lane,
                    // most warps ran it, and then most of their lanes level 2).
                    bool exact_step = magnitude_key >= key_of_pow2<T>(W::kTop);
                    if constexpr (kThreadOwnBins<In> || Words) exact_step = __any_sync(0xffffffffu, exact_step);
                    if (!exact_step) {
                        uint64_t remainders = 0;
#pragma unroll
                        for (int i = 0; i < kVectors * kPerVector; ++i) remainders |= bits_of(bins.deposit(x[i]));
                        constexpr uint64_t kMagnitude = ~uint64_t(0) >> (65 - kWidth<T>);  // all but the sign
                        if ((remainders & kMagnitude) != 0) {
                            bins.restart_bins();
                            exact_step = true;
                        }
                    }
                    if (exact_step) {
                        if constexpr (kThreadOwnBins<In>) {
                            own_used = true;
                            if (magnitude_key < kInfinityKey<T> && inside) {
#pragma unroll
                                for (int i = 0; i < kVectors * kPerVector; ++i) own.add_finite(key_of(x[i]));
                            } else if (magnitude_key < kInfinityKey<T>) {  // the padding's zeros skipped
#pragma unroll
                                for (int i = 0; i < kVectors * kPerVector; ++i)
                                    if (key_of(x[i]) << 1 != 0) own.add_finite(key_of(x[i]));
                            } else {
#pragma unroll
                                for (int i = 0; i < kVectors * kPerVector; ++i) flags |= add_outside(x[i], slow);
                            }
                        } else if (Digits && magnitude_key < kInfinityKey<T>) {
                            own_used = digits_used = true;
                            if (inside) {
#pragma unroll
                                for (int i = 0; i < kVectors * kPerVector; ++i)
                                    thread_digits::add_finite(bits_of(x[i]), digit_column);
                            } else {
#pragma unroll
                                for (int i = 0; i < kVectors * kPerVector; ++i)
                                    if (bits_of(x[i]) << 1 != 0) thread_digits::add_finite(bits_of(x[i]), digit_column);
                            }
                        } else if (Words && magnitude_key < kInfinityKey<T>) {
                            own_used = true;
#pragma unroll
                            for (int i = 0; i < kVectors * kPerVector; ++i)
                                if (bits_of(x[i]) << 1 != 0) words->add_finite(bits_of(x[i]), warp);  // zeros add nothing
                        } else {
#pragma unroll
                            for (int i = 0; i < kVectors * kPerVector; ++i) flags |= add_outside(x[i], slow);
                        }
                    }
                    bins.empty_bins();
                    if (++steps == kFlushSteps) {
                        steps = 0;
                        __syncwarp();
                        bins.flush(warp_state, lane);
                        if constexpr (kThreadOwnBins<In>)
                            if (__any_sync(0xffffffffu, own_used)) own.flush(warp_state, lane);
                        if constexpr (Digits)
                            if (own_used) digits->carry();
                        if constexpr (Words) {
                            __syncwarp();
                            words->flush(warp_state, warp, lane);
                        }
                        own_used = false;
                        __syncwarp();
                    }
                });
        }
        if (!cleared) clear_state();  // a block given no tiles, which no grid here makes
        __syncwarp();
        if constexpr (ClearFirst) bins.flush_last(warp_bins[warp], lane);
        else bins.flush_limbs(warp_state, lane);
        if constexpr (Words)
            if (__any_sync(0xffffffffu, own_used)) {
                __syncwarp();
                words->flush(warp_state, warp, lane);
            }
        if constexpr (kThreadOwnBins<In>) {
            own_in_block = int64_t(tiles_done) * t.tile <= thread_bins::kBlockElements;
            if (own_in_block) own_in_block = own_used;  // flush_block, after the block's barrier
            else if (__any_sync(0xffffffffu, own_used)) own.flush(warp_state, lane);
        }
        if constexpr (Digits)  // uncarried: add_to takes digits below 2^63
            if (__syncthreads_or(digits_used)) {
                digits->template add_to<ClearFirst ? thread_digits::kDigitsPerWarp : 1>(warp_limbs, warp, lane);
            }
        if (largest_key >= 0) flags |= CURED_EXACT_SIGN_CLEAR;
    } else {
        clear_state();
        for (int64_t tile = blockIdx.x; tile < tiles_here; tile += gridDim.x, ++tiles_done)
            cured::for_tile_elements<kThreads, kVectors, In, Aligned>(
                in, n, tile * t.tile, t, threadIdx.x, pad_value<In>(),
                [&](In x) {
                    cured_exact_term term;
                    if (cured::term_of(x, &term, &flags)) add_term<true>(warp_state, term);  // exactly, at 2^0
                },
                [] {});
    }
    flags = warp_or(flags);
    if (lane == 0 && flags != 0) atomicOr(&block_flags, flags);
    if constexpr (kThreadOwnBins<In>) {
        if (__syncthreads_or(own_in_block)) {
            own.flush_block(warp_limbs, warp, lane);
            __syncthreads();
        }
    } else {
        __syncthreads();
    }
    if constexpr (cured::is_floating<In> && ClearFirst) {
        block_window<In>::add_bins(warp_bins, warp_limbs);
        __syncthreads();
    }

    // The state's carries and its rounding, by warp 0 (exact_round.cuh); float32's and float16's
    // through their window of limbs. A block alone has warp 0 add its warps' states as it reads
    // them: no pass of the limbs' threads, no barrier.
    constexpr int kRoundFirst = kThreadOwnBins<In> ? kNarrowFirstLimb : 0;
    constexpr int kRoundSlots = kThreadOwnBins<In> ? 1 : cured::kStateSlots;
    const auto warps_limb = [&](int k) {  // the block's limb k: its warps' added
        int64_t v = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) v += int64_t(warp_limbs[w][k]);
        return v;
    };
    if (alone) {
        if (warp == 0)
            cured::round_limbs_of_by_warp<kRoundFirst, kRoundSlots>(warps_limb, block_flags | CURED_EXACT_NONEMPTY, result,
                                                                     out, lane);
        return;
    }

    // The block's state: its warps' limbs added.
    if (threadIdx.x < kLimbs) block_limbs[threadIdx.x] = warps_limb(threadIdx.x);
    __syncthreads();
    // One carry step leaves each limb below 2^33 in magnitude, so that the workspace's int64
    // limbs take up to 2^30 blocks' adds.
    int64_t carried = 0;
    if (threadIdx.x < kLimbs) {
        const int k = threadIdx.x;
        const int64_t own = k == kLimbs - 1 ? block_limbs[k] : block_limbs[k] & 0xffffffff;
        carried = own + (k > 0 ? block_limbs[k - 1] >> 32 : 0);
    }
    if (clustered) {
        // The cluster's states add in its first block: each other block's carried state and
        // flags into its row in that block's shared memory (st.async, counted by the first
        // block's barrier), a relaxed arrival at the cluster's barrier, and the block ends; the
        // first block waits for that phase, then for their bytes, adds them to its own state
        // and rounds, as a block alone does. The cluster's barrier orders nothing here (the
        // bytes' barrier does), but without it compute-sanitizer's racecheck did not finish a
        // launch at 2^14 in 100 s (a few seconds with it) while the first block spun on the
        // bytes' barrier; that variant read 0.03 to 0.13 us faster (docs/v10.md).
        const unsigned rank = cluster_rank();
        if (rank != 0) {
            cluster_wait();  // the first block has started, its barrier set
            if (threadIdx.x < kLimbs)
                store_in_first_block(&cluster_limbs[rank - 1][threadIdx.x], (unsigned long long)carried,
                                     &cluster_rows_arrived);
            if (threadIdx.x == 0) store_in_first_block(&cluster_flags[rank - 1], block_flags, &cluster_rows_arrived);
            cluster_arrive_relaxed();
            return;
        }
        cluster_wait();
        cluster_arrive_relaxed();
        cluster_wait();
        if (threadIdx.x < kLimbs) {
            rows_barrier_wait(&cluster_rows_arrived);
            int64_t v = carried;
#pragma unroll
            for (unsigned r = 0; r < kClusterRows; ++r)
                if (r + 1 < gridDim.x) v += int64_t(cluster_limbs[r][threadIdx.x]);
            block_limbs[threadIdx.x] = v;
            if (threadIdx.x == 0)
#pragma unroll
                for (unsigned r = 0; r < kClusterRows; ++r)
                    if (r + 1 < gridDim.x) block_flags |= cluster_flags[r];
        }
    } else {
        if (threadIdx.x < kLimbs) {
            if (carried != 0) atomicAdd(limbs + threadIdx.x, (unsigned long long)carried);
            __threadfence();  // the limbs reach the device before the ticket counts this block
        }
        if (threadIdx.x == 0 && block_flags != 0) atomicOr(&header->flags, block_flags);

        // The ticket, as V9's: the block that completes the count of tiles rounds.
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(header->ticket);
            last_block = counter.fetch_add(tiles_done, cuda::memory_order_acq_rel) + tiles_done == t.tiles;
            if (last_block) counter.store(0, cuda::memory_order_relaxed);
        }
        __syncthreads();
        if (!last_block) return;
        // Read the state and leave it zero for the next sum.
        if (threadIdx.x == 0) block_flags = atomicExch(&header->flags, 0u);
        if (threadIdx.x < kLimbs) block_limbs[threadIdx.x] = int64_t(atomicExch(limbs + threadIdx.x, 0ull));
    }
    __syncthreads();

    // The blocks' state, rounded as a block alone rounds its own.
    if (warp == 0)
        cured::round_state_by_warp<kRoundFirst, kRoundSlots>(block_limbs, block_flags | CURED_EXACT_NONEMPTY, result, out, lane);
}

// V9's launch table, for the integer accumulators.
template <class In, int Code = 0> constexpr int dtype_code() {
    if constexpr (std::is_same_v<typename cured::dtype_type<Code>::type, In>) return Code;
    else return dtype_code<In, Code + 1>();
}

}  // namespace

extern "C" const cured_launch_table v9_one_launch_tiles_launchers;

namespace {

template <class In, class Acc> struct v10_launcher {
    // The grid: one wave of Kernel's blocks while a tile is at most kOneWaveSteps steps, then two.
    template <auto Kernel>
    static cudaError_t grid_of(const cured_span &span, const cured_tiles &t, size_t dynamic_bytes, int64_t *grid) {
        int64_t wave;
        const cudaError_t err = cured::waves_grid<Kernel>(kThreads, 1, &wave, dynamic_bytes);
        if (err == cudaSuccess)
            *grid = cured_tiles_grid((span.count + t.tile - 1) / t.tile, t.steps <= kOneWaveSteps ? wave : 2 * wave);
        return err;
    }
    // Through the driver, as V9's (launch.cuh): a call's host time 0.0 to 0.1 us less than through
    // the runtime on an H100 (cured.fsum of a CuPy array, 2^10 to 2^20, both dtypes, in turns). The
    // device time did not move (differences of -0.12 to +0.08 us either way at 2^10 to 2^17, on an
    // H100 and an H200: the launches were queued ahead of the GPU; scripts/probes/v10_launch_ab.py,
    // 2026-11-26).
    template <auto Kernel>
    static cudaError_t launch_grid(int64_t grid, const In *in, Acc *out, const cured_span &span, const cured_tiles &t,
                                  void *workspace, size_t dynamic_bytes, cudaStream_t stream) {
        return cured::launch<Kernel>(unsigned(grid), kThreads, dynamic_bytes, stream, in, out, span.count,
                                     span.first / t.tile, t, workspace, span.result);
    }
    template <bool Aligned, bool Digits, bool Words = false>
    static cudaError_t run(const In *in, Acc *out, const cured_span &span, const cured_tiles &t, void *workspace,
                           cudaStream_t stream) {
        constexpr size_t kDynamicBytes = Digits ? sizeof(thread_digits) : 0;
        constexpr auto few_tiles = reduce_v10<In, Acc, Aligned, Digits, false, Words>;
        if (span.count == span.n && t.tiles >= 2 && t.tiles <= kClusterBlocks && cured_test_grid() == 0) {
            bool fits;
            const cudaError_t err = cured::cluster_fits<few_tiles>(kThreads, kClusterBlocks, kDynamicBytes, &fits);
            if (err != cudaSuccess) return err;
            if (fits) {  // a block a tile, one cluster
                const cudaError_t launched = cured::launch_cluster<few_tiles>(
                    int(t.tiles), kThreads, kDynamicBytes, stream, in, out, span.count, int64_t(0), t, workspace,
                    span.result);
                if (launched == cudaSuccess) cured_count_cluster_launch();
                return launched;
            }
        }
        int64_t grid;
        const cudaError_t err = grid_of<few_tiles>(span, t, kDynamicBytes, &grid);
        if (err != cudaSuccess) return err;
        // Blocks of several tiles clear float64's digits first, in a kernel of their own; both kernels
        // fit the same blocks an SM (their dynamic shared memory decides it), so one grid serves both.
        if constexpr (Digits)
            if (t.tiles > kClusterBlocks && (span.count + t.tile - 1) / t.tile >= kClearFirstTiles * grid)
                return launch_grid<reduce_v10<In, Acc, Aligned, true, true>>(grid, in, out, span, t, workspace,
                                                                             kDynamicBytes, stream);
        return launch_grid<few_tiles>(grid, in, out, span, t, workspace, kDynamicBytes, stream);
    }
    // float64 takes the threads' digits where the GPU has the shared memory for them (both kernels
    // have the same static shared memory, so both or neither are granted it); there a launch of at
    // most a wave of tiles (a block a tile) takes the warps' words instead. Without that memory, the
    // warp's state with atomics, as before sm_80, which the tests reach by capping it.
    template <bool Aligned>
    static cudaError_t run(const In *in, Acc *out, const cured_span &span, const cured_tiles &t, void *workspace,
                           cudaStream_t stream) {
        if constexpr (std::is_same_v<In, double>) {
            bool granted, granted_too;
            cudaError_t err = cured::grant_dynamic_shared<reduce_v10<In, Acc, Aligned, true, false>>(sizeof(thread_digits), &granted);
            if (err == cudaSuccess)
                err = cured::grant_dynamic_shared<reduce_v10<In, Acc, Aligned, true, true>>(sizeof(thread_digits), &granted_too);
            if (err != cudaSuccess) return err;
            if (!granted || !granted_too) return run<Aligned, false>(in, out, span, t, workspace, stream);
            int64_t wave;  // the words kernel's blocks in one wave: no more tiles, and each block has one
            err = cured::waves_grid<reduce_v10<In, Acc, Aligned, false, false, true>>(kThreads, 1, &wave);
            if (err != cudaSuccess) return err;
            return (span.count + t.tile - 1) / t.tile <= wave ? run<Aligned, false, true>(in, out, span, t, workspace, stream)
                                                              : run<Aligned, true>(in, out, span, t, workspace, stream);
        }
        return run<Aligned, false>(in, out, span, t, workspace, stream);
    }

    static cudaError_t launch(const void *in, void *out, cured_span span, void *workspace, cudaStream_t stream) {
        static_assert(v10_exact_threads == v9_one_launch_tiles_threads &&
                          v10_exact_per_thread == v9_one_launch_tiles_per_thread,
                      "V10 cuts tiles as V9 does, so that V9's kernel can take its integer sums");
        if constexpr (!cured::is_floating<Acc>) {
            const int acc = std::is_same_v<Acc, int64_t> ? CURED_ACC_INT64 : CURED_ACC_UINT64;
            return v9_one_launch_tiles_launchers.fn[dtype_code<In>()][acc](in, out, span, workspace, stream);
        } else {
            const cured_tiles t = cured_tiles_of(kThreads, kVectors, sizeof(In), span.n);
            if (!cured::whole_tiles(span, t) || (t.tile & (t.tile - 1)) != 0) return cudaErrorInvalidValue;  // tiles_over
            const auto *const input = static_cast<const In *>(in);
            auto *const result = static_cast<Acc *>(out);
            return reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0
                       ? run<true>(input, result, span, t, workspace, stream)
                       : run<false>(input, result, span, t, workspace, stream);
        }
    }
};

}  // namespace

extern "C" const cured_launch_table v10_exact_launchers =
    cured::make_table<v10_launcher>(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
