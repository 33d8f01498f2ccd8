// V10: exact. The real sum of the elements, rounded once.
//
// What changed from V9: the accumulator. V9's float accumulator rounds at every addition, in an
// order fixed by the length: the same bits everywhere, but one rounding order's bits. V10 keeps
// every bit of every element until the end and rounds once, to nearest with ties to even, into the
// result dtype (float16 input: once, to float16). Its answer is unique, so every grid, every
// chunking of host input and the CPU (exact_cpu.c) give it; NaN and infinities are IEEE's, there
// is no intermediate overflow (float32 [3e38, 3e38, -3e38] sums to 3e38), and -0.0 is kept only
// where every element is -0.0. The walk over the input is V9's (tiles.cuh): 16-byte loads, 8 in
// flight a thread, a grid of two waves, one launch; integer accumulators run V9's kernel, whose
// sums are exact already.
//
// Where the bits go, in three levels:
//  1. Registers, the fast window. Each thread keeps kBins floating accumulators ("bins", as in
//     Demmel and Nguyen's reproducible summation), bin k holding multiples of 2^b_k, b_k =
//     kTop - (k + 1) kBinBits, started at M_k = 1.5 x 2^(b_k + p - 1) (p the float's precision) so
//     that its last place is 2^b_k. An element x with |x| < 2^kTop goes through the bins:
//     s = bin + x; hi = s - bin; x -= hi; bin = s. hi is x rounded to a multiple of 2^b_k and both
//     subtractions are exact (s and the bin lie in one binade; x - hi is the rounding error of an
//     addition), so x leaves in each bin exactly the bits it has there and passes the rest on.
//     Three floating additions a bin, no branch, no memory: this is what runs at memory speed.
//     After each step (32 float32, 16 float64 a thread), each bin gives its content (bin - M_k, an
//     exact integer number of 2^b_k) to an int64 beside it and restarts at M_k; a step adds at most
//     2^(b_k + p - 3) to a bin, so it never leaves its binade.
//  2. Shared memory, the rest. What the window cannot hold exactly (the bits of x below the last
//     bin, |x| >= 2^kTop, NaN, infinities) is decoded into sign, integer and bit position and added
//     into an exact state (exact.h: limbs of 32 bits in int64, 2^-1074 up): float32's into ten
//     limbs of the thread's own, float64's into the warp's 68 with shared-memory atomic adds.
//     Standard-normal data almost never comes here; data over the whole exponent range mostly does.
//  3. Global memory, the combine. At the end each warp adds its threads' int64s into its state, the
//     block adds its warps' states and carries once, and adds the result into one state in the
//     workspace with 68 global atomic adds. The block that completes the ticket (as V9's) reads
//     that state, zeroes it for the next sum, and rounds it (cured_exact_round, the CPU's code).
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
// Evidence (results/, `python -m cured --record`, 2026-11-22; device time):
//  - Standard-normal data, V10's bandwidth as a fraction of V9's, from 2^26 up: float64 0.82 to 0.85 on the H200,
//    0.95 to 0.98 on the H100; float32 0.59 to 0.61 and 0.76 to 0.83 (target 0.9). 2^10 to 2^16:
//    9 to 13 us, 1.6 to 2.8 times V9's (target 1.5): the state's zeroing, the combine and the
//    last block's serial rounding.
//  - Full exponent range: float32 604 GB/s (0.13 of V9) on the H200, 608 (0.20) on the H100;
//    float64 165 to 180 GB/s (0.04 to 0.06) with the warp's atomics (target 0.75).
//  - Counters (H200, 2^25 float32, standard normal): 0.885 warp instructions an element against
//    V9's 0.133, occupancy 24.7% against 48.9% (102 registers a thread), warps waiting on memory
//    18.6% of their cycles against 70.6%, DRAM 45.4% of peak: V10 is bound by its instructions and
//    its few warps, not by memory. What was tried and did not help (H200, 2^28 float32): three bins
//    instead of four (0.375 against 0.362 of V9, both with the slow path inlined), an L2 bulk
//    prefetch two or six steps ahead (0.36, 0.35). What would: fewer instructions an element (the
//    window test and the remainder test once a vector, not once an element), fewer registers for
//    more warps, and for full-range data a per-thread exponent-indexed accumulation (exact_cpu.c's
//    bins) in place of the limbs.
#include <cuda/atomic>

#include "../exact.h"
#include "tiles.cuh"

namespace {

constexpr int kThreads = v10_exact_threads;
constexpr int kVectors = v10_exact_per_thread;
constexpr int kWarps = kThreads / 32;
constexpr int kLimbs = CURED_EXACT_LIMBS;
static_assert(kLimbs <= kThreads, "a thread a limb in the block's combine");
constexpr int kWaves = 2;  // as V9's grid
// Steps between a thread's int64 bins going into its warp's state: an int64 bin takes at most
// 2^(kBinBits + 5) a step, and a warp's 32 of them must still add in an int64.
constexpr int kFlushSteps = 64;

// The fast window of each floating input: the arithmetic type, the bins, their bits, and 2^kTop,
// the bound on |x|. A step adds at most (elements a step) x 2^(b + kBinBits) to a bin, which must
// stay below 2^(b + p - 2): 32 x 2^16 < 2^22 (float32), 64 x 2^15 < 2^22 (float16 in float32),
// 16 x 2^46 < 2^51 (float64).
template <class In> struct window;
template <> struct window<float> {
    using T = float;
    static constexpr int kBins = 4, kBinBits = 16, kTop = 12, kPrecision = 24;
};
template <> struct window<__half> {
    using T = float;
    static constexpr int kBins = 4, kBinBits = 15, kTop = 16, kPrecision = 24;
};
template <> struct window<double> {
    using T = double;
    static constexpr int kBins = 3, kBinBits = 46, kTop = 24, kPrecision = 53;
};

template <class W> __device__ __forceinline__ constexpr int bin_exponent(int k) { return W::kTop - (k + 1) * W::kBinBits; }

// 2^e as T, exactly (e within T's normal range).
template <class T> __device__ __forceinline__ T pow2(int e) {
    if constexpr (sizeof(T) == 4) return __uint_as_float(uint32_t(e + 127) << 23);
    else return __longlong_as_double(int64_t(e + 1023) << 52);
}

// The IEEE layout of T: width and stored fraction bits.
template <class T> constexpr int kWidth = int(sizeof(T)) * 8;
template <class T> constexpr int kMantissa = sizeof(T) == 4 ? 23 : sizeof(T) == 8 ? 52 : 10;

template <class T> __device__ __forceinline__ uint64_t bits_of(T x) {
    if constexpr (sizeof(T) == 4) return __float_as_uint(x);
    else if constexpr (sizeof(T) == 8) return uint64_t(__double_as_longlong(x));
    else return __half_as_ushort(x);
}

// The sign bit of an element (every integer counts as positive: it has no -0).
template <class In> __device__ __forceinline__ bool sign_set(In x) {
    if constexpr (cured::is_floating<In>) return bits_of(x) >> (kWidth<In> - 1);
    else return false;
}

// A finite term into a state shared by several threads, limb by limb, with shared-memory atomic adds.
__device__ __forceinline__ void add_term(unsigned long long *limbs, cured_exact_term term) {
    int64_t piece[3];
    const int first = cured_exact_pieces(term, piece);
#pragma unroll
    for (int k = 0; k < 3; ++k)
        if (piece[k] != 0 && first + k < kLimbs) atomicAdd(limbs + first + k, (unsigned long long)piece[k]);
}

// Where the terms outside the window go, level 2. The state of a whole warp, with atomic adds,
// makes lanes that hit one limb wait on each other, and on data over the whole exponent range most
// elements come here. float32 (and float16) terms touch only limbs 28 to 37, so each thread has
// those ten limbs of its own and adds without atomics, [limb][thread] so that a warp's 32 threads
// hit 32 different banks: on full-range float32 at 2^28 on an H200, 58 GB/s became 604. float64
// terms reach all 68 limbs, too many for each thread: they take the warp's state, with atomics.
// (Four copies of it a warp, by lane, measured no faster: 166 against 170 GB/s.)
constexpr int kThreadFirstLimb = (-149 - CURED_EXACT_UNIT_EXP) / 32;  // float32's smallest subnormal
constexpr int kThreadLimbs = (127 - 23 - CURED_EXACT_UNIT_EXP) / 32 + 2 - kThreadFirstLimb;  // to its largest
static_assert(kThreadFirstLimb == 28 && kThreadLimbs == 10, "float32 terms lie in limbs 28 to 37");

template <class In> constexpr bool kThreadOwnLimbs = std::is_same_v<In, float> || std::is_same_v<In, __half>;

struct thread_limbs {
    int64_t limb[kThreadLimbs][kThreads];

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int k = 0; k < kThreadLimbs; ++k) limb[k][threadIdx.x] = 0;
    }
    __device__ __forceinline__ void add(cured_exact_term term) {
        int64_t piece[3];  // piece[2] is 0: 24 bits shifted by at most 31
        const int first = cured_exact_pieces(term, piece) - kThreadFirstLimb;
        limb[first][threadIdx.x] += piece[0];
        limb[first + 1][threadIdx.x] += piece[1];
    }
    // This thread's limbs, carried once (each then below 2^32, the last below 2^31 times the
    // elements), summed over the warp into the warp's state by lane 0; all lanes call it.
    __device__ __forceinline__ void flush(unsigned long long *warp_state, unsigned lane) {
        int64_t carry = 0;
#pragma unroll
        for (int k = 0; k < kThreadLimbs; ++k) {
            int64_t v = limb[k][threadIdx.x] + carry;
            carry = k + 1 < kThreadLimbs ? v >> 32 : 0;
            if (k + 1 < kThreadLimbs) v &= 0xffffffff;
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
            if (lane == 0 && v != 0) atomicAdd(warp_state + kThreadFirstLimb + k, (unsigned long long)v);
        }
    }
};

// An element the window does not hold (or its remainder) into the slow path's state; returns the
// flags it raises (NaN, infinities, a clear sign bit).
template <class T, class Store> __device__ __noinline__ unsigned add_outside(T x, Store *store) {
    cured_exact_term term;
    unsigned flags = 0;
    if (cured_exact_decode_ieee(bits_of(x), kWidth<T>, kMantissa<T>, &term, &flags)) {
        if constexpr (std::is_same_v<Store, thread_limbs>) store->add(term);
        else add_term(store, term);
    }
    return flags;
}

// An integer, exactly: its absolute value at position 1074 (units of 2^-1074).
template <class In> __device__ __forceinline__ void add_integer(In x, unsigned long long *limbs) {
    uint64_t magnitude;
    bool negative = false;
    if constexpr (std::is_same_v<In, cured::bool8>) {
        magnitude = x.byte != 0;
    } else {
        negative = std::is_signed_v<In> && x < In(0);
        magnitude = negative ? uint64_t(0) - uint64_t(int64_t(x)) : uint64_t(x);
    }
    if (magnitude != 0) add_term(limbs, cured_exact_term{negative, magnitude, -CURED_EXACT_UNIT_EXP});
}

// A thread's fast window: the bins, and the int64s that the bins empty into after each step.
template <class In> struct thread_window {
    using W = window<In>;
    using T = typename W::T;
    T bin[W::kBins];
    int64_t whole[W::kBins];

    __device__ __forceinline__ static T start(int k) { return T(1.5) * pow2<T>(bin_exponent<W>(k) + W::kPrecision - 1); }

    __device__ __forceinline__ void reset() {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            bin[k] = start(k);
            whole[k] = 0;
        }
    }

    // x's bits into the bins; returns the remainder the bins cannot hold (0 almost always).
    __device__ __forceinline__ T deposit(T x) {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const T s = bin[k] + x;
            x -= s - bin[k];
            bin[k] = s;
        }
        return x;
    }

    // Each bin's content, an exact integer number of its last place, into its int64.
    __device__ __forceinline__ void empty_bins() {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const T units = (bin[k] - start(k)) * pow2<T>(-bin_exponent<W>(k));
            if constexpr (sizeof(T) == 4) whole[k] += __float2int_rn(units);
            else whole[k] += __double2ll_rn(units);
            bin[k] = start(k);
        }
    }

    // The int64s, summed over the warp, into the warp's state (by lane 0); all lanes call it.
    __device__ __forceinline__ void flush(unsigned long long *limbs, unsigned lane) {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            int64_t v = whole[k];
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
            if (lane == 0 && v != 0) {
                const bool negative = v < 0;
                add_term(limbs, cured_exact_term{negative, negative ? uint64_t(0) - uint64_t(v) : uint64_t(v),
                                                 bin_exponent<W>(k) - CURED_EXACT_UNIT_EXP});
            }
            whole[k] = 0;
        }
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

// `in` holds n elements: tiles first_tile, first_tile + 1, ... of an input cut as `t` says.
template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads, 2) reduce_v10(const In *in, Acc *out, int64_t n, int64_t first_tile,
                                                       cured_tiles t, void *workspace, cured_dtype result) {
    __shared__ unsigned long long warp_limbs[kWarps][kLimbs];
    __shared__ std::conditional_t<kThreadOwnLimbs<In>, thread_limbs, char> own;
    __shared__ int64_t block_limbs[kLimbs];
    __shared__ unsigned block_flags;
    __shared__ int lowest, highest;  // the final state's non-zero limbs
    __shared__ bool last_block;
    auto *const header = static_cast<exact_workspace *>(workspace);
    auto *const limbs = reinterpret_cast<unsigned long long *>(static_cast<char *>(workspace) + CURED_TILES_EXACT_OFFSET);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    for (int k = threadIdx.x; k < kWarps * kLimbs; k += kThreads) (&warp_limbs[0][0])[k] = 0;
    if constexpr (kThreadOwnLimbs<In>) own.clear();
    if (threadIdx.x == 0) block_flags = 0;
    __syncthreads();

    unsigned long long *const warp_state = warp_limbs[warp];
    auto *const slow = [&] {
        if constexpr (kThreadOwnLimbs<In>) return &own;
        else return warp_state;
    }();
    unsigned flags = 0;
    bool all_signs_set = true;
    const int64_t tiles_here = (n + t.tile - 1) / t.tile;
    unsigned tiles_done = 0;
    if constexpr (cured::is_floating<In>) {
        using W = window<In>;
        using T = typename W::T;
        thread_window<In> bins;
        bins.reset();
        int steps = 0;
        for (int64_t tile = blockIdx.x; tile < tiles_here; tile += gridDim.x, ++tiles_done) {
            cured::for_tile_elements<kThreads, kVectors, In, Aligned>(
                in, n, tile * t.tile, t, threadIdx.x, pad_value<In>(),
                [&](In element) {
                    all_signs_set &= sign_set(element);
                    const T x = T(cured::to_acc<T>(element));
                    if (fabs(x) < pow2<T>(W::kTop)) {
                        const T rest = bins.deposit(x);
                        if (rest != T(0)) flags |= add_outside(rest, slow);
                    } else {
                        flags |= add_outside(x, slow);
                    }
                },
                [&] {
                    bins.empty_bins();
                    if (++steps == kFlushSteps) {
                        steps = 0;
                        __syncwarp();
                        bins.flush(warp_state, lane);
                    }
                });
        }
        __syncwarp();
        bins.flush(warp_state, lane);
        if constexpr (kThreadOwnLimbs<In>) own.flush(warp_state, lane);
    } else {
        for (int64_t tile = blockIdx.x; tile < tiles_here; tile += gridDim.x, ++tiles_done)
            cured::for_tile_elements<kThreads, kVectors, In, Aligned>(
                in, n, tile * t.tile, t, threadIdx.x, pad_value<In>(), [&](In x) { add_integer(x, warp_state); }, [] {});
        if (n > 0) flags |= CURED_EXACT_SIGN_CLEAR;
    }
    if (!all_signs_set) flags |= CURED_EXACT_SIGN_CLEAR;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) flags |= __shfl_xor_sync(0xffffffffu, flags, offset);  // sm_75 too
    if (lane == 0 && flags != 0) atomicOr(&block_flags, flags);
    __syncthreads();

    // The block's state: its warps' limbs added, then one carry step, which leaves each limb below
    // 2^33 in magnitude, so that the workspace's int64 limbs take up to 2^30 blocks' adds.
    if (threadIdx.x < kLimbs) {
        int64_t v = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) v += int64_t(warp_limbs[w][threadIdx.x]);
        block_limbs[threadIdx.x] = v;
    }
    __syncthreads();
    if (threadIdx.x < kLimbs) {
        const int k = threadIdx.x;
        const int64_t own = k == kLimbs - 1 ? block_limbs[k] : block_limbs[k] & 0xffffffff;
        const int64_t v = own + (k > 0 ? block_limbs[k - 1] >> 32 : 0);
        if (v != 0) atomicAdd(limbs + k, (unsigned long long)v);
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

    // Read the state, leave it zero for the next sum, and find its non-zero limbs: the carries and
    // the rounding, one thread's serial work, run over those (and two above) only.
    if (threadIdx.x == 0) {
        block_flags = atomicExch(&header->flags, 0u) | CURED_EXACT_NONEMPTY;
        lowest = kLimbs;
        highest = -1;
    }
    __syncthreads();
    if (threadIdx.x < kLimbs) {
        const int64_t v = int64_t(atomicExch(limbs + threadIdx.x, 0ull));
        block_limbs[threadIdx.x] = v;
        if (v != 0) {
            atomicMin(&lowest, int(threadIdx.x));
            atomicMax(&highest, int(threadIdx.x));
        }
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    const bool exported = result == CURED_EXACT_STATE;  // the whole state, normalized over all limbs
    const int low = highest < 0 || exported ? 0 : lowest;
    const int high = highest < 0 || exported ? 0 : min(highest + 2, kLimbs - 1);
    if (exported) {
        cured_exact_normalize(block_limbs, 0, kLimbs - 1);
        auto *const state = reinterpret_cast<cured_exact_state *>(out);
        for (int k = 0; k < kLimbs; ++k) state->limb[k] = block_limbs[k];
        state->flags = block_flags;
    } else {
        cured_exact_normalize(block_limbs, low, high);
        out[0] = Acc(cured_exact_round(block_limbs, low, high, block_flags, result));
    }
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
    static cudaError_t launch(const void *in, void *out, cured_span span, void *workspace, cudaStream_t stream) {
        static_assert(v10_exact_threads == v9_one_launch_tiles_threads &&
                          v10_exact_per_thread == v9_one_launch_tiles_per_thread,
                      "V10 cuts tiles as V9 does, so that V9's kernel can take its integer sums");
        if constexpr (!cured::is_floating<Acc>) {
            const int acc = std::is_same_v<Acc, int64_t> ? CURED_ACC_INT64 : CURED_ACC_UINT64;
            return v9_one_launch_tiles_launchers.fn[dtype_code<In>()][acc](in, out, span, workspace, stream);
        } else {
            const cured_tiles t = cured_tiles_of(kThreads, kVectors, sizeof(In), span.n);
            if (!cured::whole_tiles(span, t)) return cudaErrorInvalidValue;
            const bool aligned = reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0;
            auto *kernel = aligned ? reduce_v10<In, Acc, true> : reduce_v10<In, Acc, false>;
            int64_t blocks;
            const cudaError_t err = aligned ? cured::waves_grid<reduce_v10<In, Acc, true>>(kThreads, kWaves, &blocks)
                                            : cured::waves_grid<reduce_v10<In, Acc, false>>(kThreads, kWaves, &blocks);
            if (err != cudaSuccess) return err;
            const int64_t grid = cured_tiles_grid((span.count + t.tile - 1) / t.tile, blocks);
            kernel<<<unsigned(grid), kThreads, 0, stream>>>(static_cast<const In *>(in), static_cast<Acc *>(out),
                                                             span.count, span.first / t.tile, t, workspace,
                                                             span.result);
            return cudaGetLastError();
        }
    }
};

}  // namespace

extern "C" const cured_launch_table v10_exact_launchers =
    cured::make_table<v10_launcher>(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
