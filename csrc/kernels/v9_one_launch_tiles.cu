// V9: one launch, fixed tiles.
//
// What changed from V8, where the seeds stop: everything that kept V8 from the memory's limit, and
// the summation order no longer depends on how the work is launched.
//  - Loads are 16 bytes wide (4 float32, 2 float64, 16 int8 ...), and each thread issues 8 of them,
//    independent, before it adds any: 8 x 16 bytes in flight a thread instead of one scalar.
//  - The grid is sized from the GPU (two waves of SM count x blocks that fit an SM), not from the
//    length: each block strides over many tiles, so there is no tail of tiny blocks and no second
//    pass. Two waves read faster than one on the H200 (docs/v9.md).
//  - One launch at every length. Each tile's partial sum goes to global memory; each block, when
//    done, adds the tiles it summed to a ticket counter (an atomic add with release and acquire
//    order); the block that completes the count reads all partials and combines them.
//  - Up to 4 tiles (32 KiB a tile: 2^15 float32, 2^14 float64) of aligned input, where the launch
//    and the trips through L2 are most of the time, one block of 256 threads a tile sums them all
//    and combines the partials in shared memory: no ticket, no second trip. A single tile is
//    written straight to the result.
//  - The order of the additions is fixed by the dtype and the length alone: tiles are cut by
//    cured_tiles_of (cured.h), each tile's partial is the same whichever block computes it, and the
//    partials are combined in one fixed tree. The same input gives the same bits on every GPU,
//    under every grid, and the CPU order model reproduces it.
//  - The block's tree is warp shuffles only: each warp reduces its 32 values in registers, and the
//    first warp reduces the 8 warps' sums. Two barriers a tile.
//  - (Host side) Its launches go through the driver's cuLaunchKernel with the kernel's handle
//    looked up once (launch.cuh): 0.0 to 0.4 us less host time a call than the runtime's <<<>>>.
//
// A tile is `steps` steps; in step s, thread t loads vectors u = 0..7 at vector index
// (u * 256 + t) of the step, so each of a warp's 8 loads covers 512 contiguous bytes. The thread adds
// its elements in the order (step, vector, element) into one accumulator, starting from 0.
//
// Unaligned input (a pointer not on 16 bytes) takes the same order through scalar loads; the tile
// that holds the end of the input loads element by element with bounds checks, past the end as 0.
//
// A launch may also be given a piece of the input, whole tiles of it (cured_span): the host path
// stages the input in chunks and reduces each as soon as it is there (staged.c). The tiles and
// their partials are the same as in one launch over the whole input, and since the counter counts
// tiles, not blocks, the block that completes the last tile of the last piece combines. By default
// the host path does not launch a piece a chunk at all: reduce_v9_fed, launched once, reads each
// chunk in its pinned staging buffer as soon as a flag says it is there (below): a launch and an
// event a chunk from ten host threads made small chunks slow, and large ones leave the bus idle at
// a call's start and end. 10 lanes of 1 MiB fed read 0.81 to 0.86 of the pinned copy's speed at
// 2^25 and 2^26 float32 where 10 lanes of 4 MiB launched read 0.70 to 0.76 (H100 and H200 hosts,
// 2026-11-28; docs/host_path.md).
//
// Napkin math: 2^28 float32 = 1 GiB read once; at the H200's theoretical 4.81 TB/s, 223 us. At
// 2^10 to 2^16 the floor is the launch: an empty kernel takes 3.4 us on the H200 (docs/v9.md).
//
// Evidence (Nsight Compute, `python -m cured --profile`, 2^25 float32, NVIDIA H200, 2026-11-22 00:10 UTC,
// results/ at commit 8e7b148; the 01:58 UTC file now in results/ differs by a point or less; the
// H100's counters in results/ agree): 47.7 -> 34.7 us (CUB 36.9).
// DRAM throughput rises from 59.5% (V8) to 81.9% of peak (CUB 77.1%; H100: 83.4%, CUB 79.8%), warp
// instructions an element fall from 0.289 to 0.133, and with half V8's occupancy (49.0% against
// 84.4%) its warps wait on loads 69.6% of their cycles against 85.7%: eight 16-byte loads a thread
// keep more bytes in flight with fewer warps.
#include <cuda/atomic>

#include "launch.cuh"
#include "tiles.cuh"

namespace {

constexpr int kThreads = v9_one_launch_tiles_threads;    // threads that sum one tile: a block, or a group
constexpr int kVectors = v9_one_launch_tiles_per_thread;  // 16-byte vectors a thread a step
constexpr int kWarps = kThreads / 32;
static_assert(kThreads % 32 == 0 && (kWarps & (kWarps - 1)) == 0 && kWarps <= 32, "whole warps, a power of two");
constexpr int kGroups = 4;  // tiles the few-tiles kernel sums at once, a group of kThreads each
static_assert(kGroups * kThreads <= 1024, "a block holds at most 1024 threads");
constexpr int kPartialsPerThread = CURED_MAX_TILES / kThreads;  // partials a thread adds in the combine
static_assert(CURED_MAX_TILES % kThreads == 0, "every thread of the combine has the same number of slots");

// Waits for the kThreads threads of group `group` (named barrier group + 1; 0 is __syncthreads).
// In a block of one group, that is the whole block.
__device__ __forceinline__ void group_sync(unsigned group) {
    asm volatile("bar.sync %0, %1;" ::"r"(group + 1), "r"(kThreads) : "memory");
}

// The sums of v[0], ..., v[K - 1] over a group of kThreads threads (`thread` is the index in the
// group), each in the WARPS order, valid in thread 0: one pair of barriers for all K. `warp_sums`
// is the group's shared scratch, K rows of kWarps; the barriers make it safe to call again right
// after.
template <int K, class Acc>
__device__ __forceinline__ void group_sums(Acc (&v)[K], Acc (*warp_sums)[kWarps], unsigned group, unsigned thread) {
    const unsigned lane = thread % 32, warp = thread / 32;
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (unsigned offset = 16; offset > 0; offset >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], offset);
        if (lane == 0) warp_sums[k][warp] = v[k];
    }
    group_sync(group);
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            v[k] = lane < kWarps ? warp_sums[k][lane] : Acc(0);
#pragma unroll
            for (unsigned offset = kWarps / 2; offset > 0; offset >>= 1)
                v[k] += __shfl_down_sync(0xffffffffu, v[k], offset);
        }
    }
    group_sync(group);  // warp_sums may be rewritten by the next call
}

// group_sums of one value.
template <class Acc>
__device__ __forceinline__ Acc group_sum(Acc v, Acc (*warp_sums)[kWarps], unsigned group, unsigned thread) {
    Acc one[1] = {v};
    group_sums(one, warp_sums, group, thread);
    return one[0];
}

// The combine, first level: thread `thread` adds partials thread, thread + kThreads, ... from 0, in
// that order; partial(i) reads partial i. All reads are issued before the first addition, so the
// combine waits for one trip to memory, not one for each partial.
template <class Acc, class Partial>
__device__ __forceinline__ Acc thread_partials_sum(int64_t tiles, unsigned thread, Partial partial) {
    Acc p[kPartialsPerThread];
#pragma unroll
    for (int k = 0; k < kPartialsPerThread; ++k) {
        const int64_t i = thread + int64_t(k) * kThreads;
        if (i < tiles) p[k] = partial(i);
    }
    Acc sum = Acc(0);
#pragma unroll
    for (int k = 0; k < kPartialsPerThread; ++k)
        if (thread + int64_t(k) * kThreads < tiles) sum += p[k];
    return sum;
}

// One thread's share of one tile, its elements added in the walk's order into one accumulator that
// starts from 0; zeros past the end of the input.
template <class In, class Acc, bool Aligned>
__device__ __forceinline__ Acc thread_tile_sum(const In *in, int64_t n, int64_t tile_begin, const cured_tiles &t,
                                               unsigned thread) {
    Acc sum = Acc(0);
    cured::for_tile_elements<kThreads, kVectors, In, Aligned>(
        in, n, tile_begin, t, thread, In{}, [&](In x) { sum += cured::to_acc<Acc>(x); }, [] {});
    return sum;
}

// One thread's shares of K tiles, the tiles at tile_begin, tile_begin + t.tile, ...: each tile's
// elements added in the walk's order (for_tile_steps) into its own accumulator that starts from 0;
// zeros past the end of the input. Each step's loads of all K tiles are issued before any is added:
// K times the bytes in flight a thread, the same bits as thread_tile_sum's, tile by tile (the fed
// kernel's walk; the device kernels keep thread_tile_sum, whose code is the one their figures were
// measured with).
template <int K, class In, class Acc, bool Aligned>
__device__ __forceinline__ void thread_tiles_sums(const In *in, int64_t n, int64_t tile_begin, const cured_tiles &t,
                                                  unsigned thread, Acc (&sums)[K]) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
#pragma unroll
    for (int k = 0; k < K; ++k) sums[k] = Acc(0);
    for (int64_t s = 0; s < t.steps; ++s) {
        In v[K][kVectors][V];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int64_t begin = tile_begin + k * t.tile;
            cured::load_step<kThreads, kVectors, In, Aligned>(in, n, begin + s * t.step, begin + t.tile <= n, t, thread,
                                                              In{}, v[k]);
        }
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int u = 0; u < kVectors; ++u)
#pragma unroll
                for (int j = 0; j < V; ++j) sums[k] += cured::to_acc<Acc>(v[k][u][j]);
    }
}

// The end of every block of a ticket kernel, which summed `tiles_done` tiles: the block that
// completes the count of tiles combines the partials. Thread 0 wrote this block's partials; its add
// is a release (the partials are visible before the count includes them) and an acquire (the last
// block sees every block's partials; the barrier passes that on to its other threads). The last
// block puts the counter back to 0 for the next sum.
template <class Acc>
__device__ __forceinline__ void combine_if_last(unsigned tiles_done, const cured_tiles &t, void *workspace, Acc *out,
                                                Acc (*warp_sums)[kWarps]) {
    __shared__ bool last_block;
    unsigned *const ticket = static_cast<unsigned *>(workspace);
    const Acc *const partials =
        reinterpret_cast<const Acc *>(static_cast<char *>(workspace) + CURED_TILES_PARTIALS_OFFSET);
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
        last_block = counter.fetch_add(tiles_done, cuda::memory_order_acq_rel) + tiles_done == t.tiles;
        if (last_block) counter.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (!last_block) return;

    // Read through L2 (__ldcg): other blocks wrote the partials.
    Acc sum = thread_partials_sum<Acc>(t.tiles, threadIdx.x, [&](int64_t i) { return __ldcg(partials + i); });
    sum = group_sum(sum, warp_sums, 0, threadIdx.x);
    if (threadIdx.x == 0) out[0] = sum;
}

// `in` holds n elements: tiles first_tile, first_tile + 1, ... of an input cut as `t` says.
template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads) reduce_v9(const In *in, Acc *out, int64_t n, int64_t first_tile,
                                                      cured_tiles t, void *workspace) {
    __shared__ Acc warp_sums[1][kWarps];
    Acc *const partials = reinterpret_cast<Acc *>(static_cast<char *>(workspace) + CURED_TILES_PARTIALS_OFFSET);

    const int64_t tiles_here = (n + t.tile - 1) / t.tile;
    unsigned tiles_done = 0;
    for (int64_t tile = blockIdx.x; tile < tiles_here; tile += gridDim.x, ++tiles_done) {
        const Acc sum = group_sum(thread_tile_sum<In, Acc, Aligned>(in, n, tile * t.tile, t, threadIdx.x), warp_sums, 0,
                                  threadIdx.x);
        if (threadIdx.x == 0) partials[first_tile + tile] = sum;
    }

    combine_if_last(tiles_done, t, workspace, out, warp_sums);
}

// The whole input, at most kGroups tiles: one block, a group of kThreads threads a tile. Each group
// sums its tile as a block of reduce_v9 would, and group 0 combines the partials from shared
// memory in the same order: the same bits, without the workspace's trips through L2. Aligned
// input only: element-by-element loads of 1- and 2-byte types need more than the 64 registers a
// thread that a block of 1024 threads leaves, and would spill.
template <class In, class Acc>
__global__ void __launch_bounds__(kThreads * kGroups) reduce_v9_few_tiles(const In *in, Acc *out, int64_t n,
                                                                          cured_tiles t) {
    __shared__ Acc warp_sums[kGroups][kWarps];
    __shared__ Acc partials[kGroups];
    const unsigned group = threadIdx.x / kThreads, thread = threadIdx.x % kThreads;
    const Acc partial = group_sum(thread_tile_sum<In, Acc, true>(in, n, group * t.tile, t, thread),
                                  &warp_sums[group], group, thread);
    if (t.tiles == 1) {  // one tile: its partial is the sum
        if (thread == 0) out[0] = partial;
        return;
    }
    if (thread == 0) partials[group] = partial;
    __syncthreads();
    if (group != 0) return;
    Acc sum = thread_partials_sum<Acc>(t.tiles, thread, [&](int64_t i) { return partials[i]; });
    sum = group_sum(sum, &warp_sums[0], 0, thread);
    if (thread == 0) out[0] = sum;
}

// The host path's fed mode (staged.c; cured_feed in cured.h): one launch for a whole host input,
// queued before the lanes start copying it, chunk by chunk, into their pinned staging buffers. Each
// block takes the next chunk (a counter in the workspace's header), its thread 0 waits until the
// chunk's flag in mapped host memory names the staging buffer that holds it (an acquire at system
// scope: the lane's bytes are visible after it; the barrier passes that on), the block sums the
// chunk's tiles there over the bus as reduce_v9 sums a piece, but kFedTilesAtOnce tiles at a time
// (below), and thread 0 frees the buffer for its lane (a release, after the barrier that follows
// every thread's loads of it). The tiles, their partials, the ticket and the combine are
// reduce_v9's: the same bits. A cancelled chunk (a lane failed) is skipped; its tiles never count,
// so no block combines.
__device__ __forceinline__ unsigned await_chunk(const cured_feed &feed, int64_t k) {
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system> flag(feed.ready[k]);
    for (;;) {
        const uint64_t v = flag.load(cuda::memory_order_acquire);
        if (uint32_t(v >> 32) == feed.epoch) return unsigned(v);
        __nanosleep(256);  // each look is a trip over the bus
    }
}

__device__ __forceinline__ uint64_t gpu_clock_ns() {
    uint64_t ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// Tiles tile, ..., tile + K - 1 of a chunk of `count` elements at `in`, whose first tile is the
// input's tile first_tile: their partials, written by thread 0, K tiles' loads in flight at once.
template <int K, class In, class Acc, bool Aligned>
__device__ __forceinline__ void chunk_tiles_partials(const In *in, int64_t count, int64_t tile, int64_t first_tile,
                                                     const cured_tiles &t, Acc *partials, Acc (*warp_sums)[kWarps]) {
    Acc sums[K];
    thread_tiles_sums<K, In, Acc, Aligned>(in, count, tile * t.tile, t, threadIdx.x, sums);
    group_sums(sums, warp_sums, 0, threadIdx.x);
    if (threadIdx.x == 0)
#pragma unroll
        for (int k = 0; k < K; ++k) partials[first_tile + tile + k] = sums[k];
}

// Tiles a fed block sums at once: two, so that a thread has 16 loads over the bus in flight instead
// of 8 (one tile's step), and one pair of barriers serves both tiles' block sums. H200, 2026-11-28
// 15:18 UTC (wall time in turns with the pinned copy, its share): float32 64 / 128 / 256 / 1024 MiB
// 0.732 / 0.840 / 0.866 / 0.904 with one tile, 0.750 / 0.850 / 0.875 / 0.910 with two, 0.756 /
// 0.858 / 0.874 / 0.909 with four (174 registers a thread); float64 alike. One-byte elements keep
// one: with two, their kernels spill registers (16 elements a vector; ptxas -v: unaligned int8 and
// uint8, and bool aligned or not).
template <class In> constexpr int kFedTilesAtOnce = sizeof(In) > 1 ? 2 : 1;

template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads) reduce_v9_fed(const cured_feed feed, Acc *out, cured_tiles t,
                                                          void *workspace) {
    constexpr int K = kFedTilesAtOnce<In>;
    __shared__ Acc warp_sums[K][kWarps];
    __shared__ int64_t taken_chunk;
    __shared__ unsigned taken_slot;
    Acc *const partials = reinterpret_cast<Acc *>(static_cast<char *>(workspace) + CURED_TILES_PARTIALS_OFFSET);
    auto *const next = reinterpret_cast<unsigned long long *>(static_cast<char *>(workspace) + CURED_TILES_FEED_OFFSET);
    if (feed.stamps != nullptr && blockIdx.x == 0 && threadIdx.x == 0) feed.stamps[feed.chunks.chunks] = gpu_clock_ns();

    unsigned tiles_done = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            const int64_t k = int64_t(atomicAdd(next, 1ull));
            taken_chunk = k;
            if (k < feed.chunks.chunks) taken_slot = await_chunk(feed, k);
        }
        __syncthreads();
        const int64_t k = taken_chunk;
        const unsigned slot = taken_slot;
        __syncthreads();  // thread 0 takes the next chunk only once every thread has read this one
        if (k >= feed.chunks.chunks) break;
        if (slot == CURED_FEED_CANCELLED) continue;
        int64_t first, count;
        cured_chunk_span(&feed.chunks, k, &first, &count);
        const In *const in = static_cast<const In *>(feed.slot[slot]);
        const int64_t tiles_here = (count + t.tile - 1) / t.tile;
        int64_t tile = 0;
        for (; tile + K <= tiles_here; tile += K, tiles_done += K)
            chunk_tiles_partials<K, In, Acc, Aligned>(in, count, tile, first / t.tile, t, partials, warp_sums);
        for (; tile < tiles_here; ++tile, ++tiles_done)
            chunk_tiles_partials<1, In, Acc, Aligned>(in, count, tile, first / t.tile, t, partials, warp_sums);
        if (threadIdx.x == 0) {  // group_sums ended with a barrier: every thread's loads are done
            cuda::atomic_ref<uint64_t, cuda::thread_scope_system> freed(feed.freed[slot]);
            freed.store(uint64_t(feed.epoch) << 32 | uint64_t(k + 1), cuda::memory_order_release);
            if (feed.stamps != nullptr) feed.stamps[k] = gpu_clock_ns();
        }
    }
    combine_if_last(tiles_done, t, workspace, out, warp_sums);
}

// Waves of blocks in V9's grid. With one wave (as many blocks as fit the GPU at once), each block's
// share of the tiles is fixed at the launch, and the blocks on SMs that read slower finish last.
// With two, the second wave's blocks start as the first wave's finish, on whichever SMs are free.
// On an H200, 2^28 and 2^30 float32 and float64 read 1.1% to 2.4% faster with two waves than with
// one; three were slower in 4 cases of 6 (docs/v9.md).
constexpr int kWaves = 2;

template <class In, class Acc> struct v9_launcher {
    static cudaError_t launch(const void *in, void *out, cured_span span, void *workspace, cudaStream_t stream) {
        const cured_tiles t = cured_tiles_of(kThreads, kVectors, sizeof(In), span.n);
        if (!cured::whole_tiles(span, t)) return cudaErrorInvalidValue;
        const bool aligned = reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0;
        if (aligned && span.count == span.n && t.tiles <= kGroups && cured_test_grid() == 0)
            return cured::launch<reduce_v9_few_tiles<In, Acc>>(1, unsigned(t.tiles * kThreads), 0, stream,
                                                               static_cast<const In *>(in), static_cast<Acc *>(out),
                                                               span.n, t);
        return aligned ? grid_launch<true>(in, out, span, t, workspace, stream)
                       : grid_launch<false>(in, out, span, t, workspace, stream);
    }

    template <bool Aligned>
    static cudaError_t grid_launch(const void *in, void *out, cured_span span, const cured_tiles &t, void *workspace,
                                   cudaStream_t stream) {
        int64_t blocks;
        const cudaError_t err = cured::waves_grid<reduce_v9<In, Acc, Aligned>>(kThreads, kWaves, &blocks);
        if (err != cudaSuccess) return err;
        const int64_t grid = cured_tiles_grid((span.count + t.tile - 1) / t.tile, blocks);
        return cured::launch<reduce_v9<In, Acc, Aligned>>(unsigned(grid), kThreads, 0, stream,
                                                          static_cast<const In *>(in), static_cast<Acc *>(out),
                                                          span.count, span.first / t.tile, t, workspace);
    }
};

// The fed kernel: CURED_FEED_BLOCKS blocks (a test's grid where one is forced), never more than
// chunks. Few blocks: each one waiting polls the bus (staging_polled.cu, 256 MiB, 10 lanes: 1 MiB
// chunks, 16 blocks 0.87 of one pinned copy, 132 blocks 0.86; 256 KiB chunks, four buffers a lane,
// 0.88 against 0.81; in cured, host_overhead.py ":gN", H200 host 2026-11-28: 24, 32 and 48 blocks
// 1% to 5% slower than 16 from 2^24 to 2^26 float32). Blocks taking tiles instead of chunks, so
// that all of them read the first and last chunks, were slower still (0.65 of the copy at 2^25
// against 0.83; docs/host_path.md).
template <class In, class Acc> struct v9_fed_launcher {
    static cudaError_t launch(const cured_feed *feed, void *out, int64_t n, void *workspace, cudaStream_t stream) {
        const cured_tiles t = cured_tiles_of(kThreads, kVectors, sizeof(In), n);
        const int64_t grid = cured_tiles_grid(feed->chunks.chunks, CURED_FEED_BLOCKS);
        const bool aligned = reinterpret_cast<uintptr_t>(feed->slot[0]) % CURED_VECTOR_BYTES == 0;
        return aligned ? cured::launch<reduce_v9_fed<In, Acc, true>>(unsigned(grid), kThreads, 0, stream, *feed,
                                                                     static_cast<Acc *>(out), t, workspace)
                       : cured::launch<reduce_v9_fed<In, Acc, false>>(unsigned(grid), kThreads, 0, stream, *feed,
                                                                      static_cast<Acc *>(out), t, workspace);
    }
};

}  // namespace

extern "C" const cured_launch_table v9_one_launch_tiles_launchers =
    cured::make_table<v9_launcher>(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
extern "C" const cured_feed_table v9_one_launch_tiles_fed_launchers =
    cured::make_table<v9_fed_launcher, cured_feed_table>(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
