// V9 along axes: numpy.sum's axis=, for the default version.
//
// What changed from V9: V9 sums one flat array; here each output sums the elements along the
// reduced axes, and there may be one output or 2^27. The array is folded into (outer, reduced,
// inner) reads (axis.h): rows where the reduced elements are consecutive (inner == 1), columns
// where they lie `inner` apart. What V9 taught is kept:
//  - 16-byte loads, eight in flight a thread before any is added (rows: eight chunks of a row;
//    columns: the same chunk of eight rows), so that few warps keep enough bytes in flight;
//  - a warp's loads are contiguous: in rows, a row of up to 32 chunks has one chunk a lane and a
//    warp reads 32 / G rows side by side, rows that divide a vector are read whole vectors at a
//    time, and longer rows have several chunks a lane; rows of 16 KiB or more are read a block a
//    segment, each of its loads covering 4 KiB as in V9's walk; in columns, consecutive threads
//    read consecutive chunks across a row, and narrow rows give a warp several strands of rows;
//  - long reductions are cut into segments whose sums the next launch adds (rows of 4096 chunks,
//    columns of 64 to 4224 rows), so every SM has work whether there are 16 outputs or 2^27;
//  - the order of the additions is fixed by the shape and the dtype alone (axis.h), never by the
//    grid or the GPU: the CPU order model (cpu_model_axis.h) reproduces every output bit for bit.
// Not kept: V9's single launch. A step of several segments is followed by one more launch over the
// segments' sums (a few microseconds), instead of V9's ticket: with up to 2^27 outputs a ticket
// each would cost more than it saves. Each launch after the first overlaps the end of the one
// before it (programmatic dependent launch, cured::launch_after_previous): (2^24, 16) float32
// along 0, then in segments of 1984 rows and three launches after the columns' kernel (two now,
// axis.h), took 253.4 us a call with ordinary launches and 249.1 with overlapping ones; (512, 512,
// 512) float32 along (0, 2) 132.5 -> 129.5 (device time, NVIDIA H200, 2026-11-24 02:51 UTC,
// axis_grid_ab.py; its per-kernel times then include the wait, so only the call's time tells).
//
// A launch's sums are written as they are, or, where the last launch of float16 input's float32 sums
// feeds a float16 out= on the device, rounded once into float16 by the kernel itself
// (cured::cast_result, the store kernel's rounding), where the float32 sums went through the store
// kernel (result.cu): a second launch, and three times the output's bytes. float16 along axes into
// such an out=, H100, 2026-11-27 09:35 -> 09:48 UTC (scripts/probes/axis_dtypes.py, device time in
// turns, 2^26 elements): rows of 2 185.7 -> 68.0 us (CuPy 130), of 4 122.5 -> 56.8, of 8 86.0 ->
// 52.3, of 1024 51.2 -> 47.2 (CuPy 47.5), (256, 256, 1024) along 1 57.0 -> 52.1 (PyTorch 50.7),
// (8192, 8192) along 0 58.7 -> 53.7; every other shape 3 to 12% faster.
//
// Napkin math: (2^14, 2^14) float32 is 1 GiB, read once: 223 us at the H200's theoretical
// 4.81 TB/s; the segments' sums add 0.1% (columns of 1024-row segments) to 0.2% (rows) to it.
//
// Rows, before and after one chunk a lane (scripts/probes/axis_rows.py, device time, NVIDIA H200,
// 2026-11-22 13:32 UTC; the earlier kernel gave each row of up to 8 chunks to one lane, which read
// its chunks one after the other, 64 bytes apart from the next lane's): rows of 16 float32 went
// from 0.52 of CuPy's bandwidth to 4110 GB/s (CuPy 4126), rows of 2 float32 from 0.51 to 2883 GB/s
// (CuPy 2029; the output is half the input, so 2/3 of V9's 4519 is the limit), rows of 256
// float32 from 0.59 to 4325 GB/s (CuPy 3338, PyTorch 3290). The same rows forced through the
// warp-a-segment kernel read at 996 to 1994 GB/s. Rows and columns of 2^20 elements and more: see
// README "Sums along axes", which python -m cured --axis records.
#include "../axis.h"
#include "tiles.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kInFlight = 8;  // chunks a thread loads before it adds any

// The chunk at p, of which `valid` elements are inside the array (<= 0: none): one vector load
// where it is whole and aligned, else element by element, zeros past the end. (Adding a zero never
// changes a sum that starts from +0, so the model skips them.)
template <class In, bool Aligned, int V>
__device__ __forceinline__ void load_chunk(const In *p, int64_t valid, In (&v)[V]) {
    if (Aligned && valid >= V) {
        cured::load_vector<In, true>(p, v);
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = j < valid ? p[j] : In{};
    }
}

// N chunks (kInFlight, or the packed rows' InFlight) of an extent of `elements` elements at p:
// chunks c, c + stride, ..., each inside where it is below `end` (a chunk index), else zeros.
template <class In, bool Aligned, int N, int V>
__device__ __forceinline__ void load_chunks(const In *p, int64_t elements, int64_t c, int64_t stride, int64_t end,
                                            In (&v)[N][V]) {
#pragma unroll
    for (int u = 0; u < N; ++u) {
        const int64_t chunk = c + int64_t(u) * stride;
        load_chunk<In, Aligned>(p + chunk * V, chunk < end ? elements - chunk * V : 0, v[u]);
    }
}

// Rows that divide a vector (R <= V elements and V % R == 0: rows of 2 float32, or of 2 float64,
// a vector each) of aligned input: each 16-byte vector holds V / R whole rows, so a lane loads
// whole vectors, 8 in flight, in V9's walk (a warp's load covers 512 contiguous bytes, and a
// block's eight loads 4 KiB after one another), and adds each row in it in order: the order of a
// row of one chunk and one lane (axis.h), with a quarter to a sixteenth of the loads that reading
// the rows element by element takes where R < V. Rows of one whole vector came here later from the
// short-rows kernel, whose thread reads 8 rows a whole grid apart: NVIDIA H100, 2026-11-24 03:44
// UTC, device time against V9 flat (axis_grid_ab.py, each way in two processes), (2^27, 2)
// float64 along 1 0.654 -> 0.661 (2/3 is the ceiling: the output is half the input), (2^26, 4)
// float32 0.798 -> 0.807. On the H100 CuPy's rows of 2 float64 read 1.4% faster than these; copies
// of this kernel changed one thing at a time (scripts/probes/packed_rows.py, device time in turns,
// 2026-11-24, H100 09:25 / H200 09:27 UTC, (2^27, 2) float64 along 1): CuPy 1037.5 / 784.5 us, this
// walk 1051.8 / 738.2; one vector a thread (2^19 blocks) 1037.5 / 782.1, the H100's gain the
// H200's loss; two a thread 1051.1 / 737.2; at most 2 to 4 blocks an SM 1045.5 to 1052.1 / 774.1 to
// 790.3; streaming stores (st.global.cs), or pairs of lanes storing 16 bytes each, within 0.3%;
// streaming loads (ld.global.cs) 2.5 to 5% slower. No walk was faster on both GPUs; this one leads
// on the H200 by 6% and trails on the H100 by 1.4%. So since 2026-11-27 the walk is the GPU's:
// rows whose sums are half the bytes read or more read one vector a thread where the memory moves
// under 4 TB/s (kOneVectorBandwidth: the H100), eight elsewhere; and since 2026-11-28 one vector
// on every GPU where the sums are also wider than the elements, which the H200 reads 3 to 4% faster
// that way (packed_rows_ab.py, H200 2026-11-28 02:28 UTC, one vector / eight: int8 rows of 2 into
// int64 658.7 / 687.2 us, int16 rows of 4 into int64 502.3 / 518.2, float32 rows of 2 into float64
// 503.0 / 519.5; same-width float64 rows of 2 738.0 / 784.2 the other way). And where a vector
// holds several rows, a warp's sums go out through shared memory, 32 consecutive rows a store,
// where each lane stored its own rows, kRowsAVector sums a row apart (int8 rows of 2 into int64:
// eight 8-byte stores 64 bytes apart). H100, 2026-11-27 08:55 and 09:04 UTC (scripts/probes/packed_rows_ab.py,
// one build made to assume 3 or 5 TB/s, in turns with CuPy, device time), one vector a thread /
// eight, CuPy: (2^27, 2) float64 1036.4 / 1054.7 us, CuPy 1037.1; float32 519.4 / 526.8, CuPy
// 601.8; float32 into float64 708.9 / 807.3, staged 709.4 / 714.5, CuPy 1319; (2^28, 2) int8 into
// int64 4099.9 / 7025.0, staged 923.6 / 940.4, CuPy 2402; (2^27, 4) int16 into int64 staged 709.6
// / 714.5, CuPy 2516; (2^26, 4) float32 (one row a vector, always eight) 432.0, CuPy 436.
template <class In, class Acc, class Out, int R, int InFlight>
__global__ void __launch_bounds__(kThreads) sum_packed_rows(const In *in, Out *out, cured_axis_step s) {
    cured::await_previous_launch();
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    constexpr int kRowsAVector = V / R;
    static_assert(R <= V && V % R == 0, "whole rows in a vector");
    const int64_t elements = s.outer * R;
    const int64_t vectors = (elements + V - 1) / V;
    // A warp's sums of one load, kRowsAVector rows a lane, go out through shared memory 32
    // consecutive rows a store (rows padded by one sum against bank conflicts).
    constexpr int kStaged = kRowsAVector > 1 ? 32 * (kRowsAVector + 1) : 1;
    __shared__ Acc staged[kThreads / 32][kStaged];
    const int lane = threadIdx.x % 32;
    const int64_t a_pass = int64_t(gridDim.x) * kThreads * InFlight;
    // With staged sums the warp goes round together (lanes past the end load zeros and store
    // nothing), for its __syncwarp()s.
    for (int64_t first = int64_t(blockIdx.x) * kThreads * InFlight + threadIdx.x;
         (kRowsAVector > 1 ? first - lane : first) < vectors; first += a_pass) {
        In v[InFlight][V];
        load_chunks<In, true>(in, elements, first, kThreads, vectors, v);
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            Acc sums[kRowsAVector];
#pragma unroll
            for (int r = 0; r < kRowsAVector; ++r) {
                sums[r] = Acc(0);
#pragma unroll
                for (int j = 0; j < R; ++j) sums[r] += cured::to_acc<Acc>(v[u][r * R + j]);
            }
            const int64_t vector = first + int64_t(u) * kThreads;
            if constexpr (kRowsAVector == 1) {
                if (vector < s.outer) out[vector] = cured::cast_result<Out>(sums[0]);
            } else {
                Acc *warp_staged = staged[threadIdx.x / 32];
#pragma unroll
                for (int r = 0; r < kRowsAVector; ++r) warp_staged[lane * (kRowsAVector + 1) + r] = sums[r];
                __syncwarp();
                const int64_t warp_first_row = (vector - lane) * kRowsAVector;
#pragma unroll
                for (int r = 0; r < kRowsAVector; ++r) {
                    const int e = r * 32 + lane;  // the warp's row e, lane e / kRowsAVector's sum e % kRowsAVector
                    const int64_t row = warp_first_row + e;
                    if (row < s.outer)
                        out[row] = cured::cast_result<Out>(
                            warp_staged[e / kRowsAVector * (kRowsAVector + 1) + e % kRowsAVector]);
                }
                __syncwarp();
            }
        }
    }
}

// Rows whose lanes add at most 4 chunks (rows of up to 128 chunks): a row is `lanes` (G)
// consecutive threads, each with at most P (1, 2 or 4) chunks, and a thread loads its chunks of
// 8 / P rows at once, so that every thread has 8 chunks in flight however short the rows. Row r of
// a group's pass is `groups` rows after row r - 1, so that consecutive groups read consecutive rows
// in each load: with one chunk a lane (rows of up to 32 chunks), a warp's load covers 32 / G whole
// rows, contiguous when the rows are G chunks long. P is a template parameter: with P known only
// at run time, the float32 kernel took 164 registers a thread (one block an SM), with it 64.
// The lanes' trees of a thread's 8 / P rows share their shuffles (below). Before that, this kernel
// was bound by instructions, mostly shuffles (rows of 16 float64: schedulers issuing on 58% of
// cycles against V9's 7%, Nsight Compute, H200, 2026-11-22); after it, device time against V9 on
// the flat array, H200, 2026-11-23 (scripts/probes/axis_grid_ab.py, 20:00 and 20:32 UTC): rows of
// 16 float64 0.86 -> 0.92, of 64 float64 0.74 -> 0.93, of 256 float32 0.96 -> 0.98; float32 rows
// of 16 and 64 unchanged at 0.91 and 0.93. Registers fell too (float64, one chunk a lane: 70 -> 58).
template <class In, class Acc, class Out, bool Aligned, int P>
__global__ void __launch_bounds__(kThreads) sum_short_rows(const In *in, Out *out, cured_axis_step s) {
    cured::await_previous_launch();
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    constexpr int kRows = kInFlight / P;  // rows a thread has in flight
    const int lanes = s.lanes;
    const int64_t groups = int64_t(gridDim.x) * kThreads / lanes;
    const int64_t group = (int64_t(blockIdx.x) * kThreads + threadIdx.x) / lanes;
    const int g = int(threadIdx.x % lanes);
    for (int64_t base = 0; base < s.outer; base += groups * kRows) {  // the same trips for every thread
        In v[kRows][P][V];
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            const int64_t row = base + r * groups + group;
#pragma unroll
            for (int k = 0; k < P; ++k) {
                const int64_t chunk = g + int64_t(k) * lanes;
                const bool inside = row < s.outer && chunk < s.chunks;
                load_chunk<In, Aligned>(in + row * s.reduced + chunk * V, inside ? s.reduced - chunk * V : 0, v[r][k]);
            }
        }
        Acc part[kRows];  // this lane's sum of each row
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            part[r] = Acc(0);
#pragma unroll
            for (int k = 0; k < P; ++k)
#pragma unroll
                for (int j = 0; j < V; ++j) part[r] += cured::to_acc<Acc>(v[r][k][j]);
        }
        // The lanes' tree (axis.h): at offset o, lane l adds lane l + o, for o = G/2, ..., 1. Each
        // level adds the same pairs of lanes for all kRows rows, so a pair shares the work: the
        // lower lane adds the first half of the rows it holds, the upper lane the second half, each
        // receiving one value for each row it keeps. The same additions, operands in the same order
        // (the lower lane's first), in kRows - 1 shuffles where one row at a time took
        // kRows x log2(G) (rows of 16 float64: 7 against 24). A lane then holds rows first ..
        // first + held - 1.
        int offset = lanes / 2, first = 0, held = kRows;
#pragma unroll
        for (int half = kRows / 2; half > 0; half /= 2) {
            if (offset > 0) {
                const bool upper = (g & offset) != 0;
#pragma unroll
                for (int i = 0; i < half; ++i) {
                    const Acc kept = upper ? part[i + half] : part[i];
                    const Acc got = __shfl_xor_sync(0xffffffffu, upper ? part[i] : part[i + half], offset, lanes);
                    part[i] = upper ? got + kept : kept + got;
                }
                first += upper ? half : 0;
                held = half;
                offset /= 2;
            }
        }
        // More levels than rows: the rest of the tree on the one row left, as before; its sum ends
        // in the lowest of each 2 x `spread` lanes.
        const int spread = offset;
        for (; offset > 0; offset /= 2) part[0] += __shfl_down_sync(0xffffffffu, part[0], offset, lanes);
        const bool writes = spread == 0 || (g & (2 * spread - 1)) == 0;
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            const int64_t row = base + int64_t(first + i) * groups + group;
            if (writes && i < held && row < s.outer) out[row] = cured::cast_result<Out>(part[i]);
        }
    }
}

// A unit of rows (row o, segment seg: unit = o * segments + seg) and its chunks [first, last).
template <class In> struct row_segment {
    const In *row;
    int64_t first, last;
};
template <class In> __device__ __forceinline__ row_segment<In> row_segment_of(const In *in, const cured_axis_step &s, int64_t unit) {
    const int64_t first = unit % s.segments * s.segment;
    return {in + unit / s.segments * s.reduced, first, first + s.segment < s.chunks ? first + s.segment : s.chunks};
}

// A lane's sum of its chunks of a row segment: chunks c, c + lanes, c + 2 lanes, ... below `last`,
// kInFlight loaded before any is added, in order (axis.h's SEQUENTIAL lane). The walk of warp rows
// and of block rows alike.
template <class In, class Acc, bool Aligned>
__device__ __forceinline__ Acc sum_lane_chunks(const In *row, int64_t reduced, int64_t c, int64_t last, int64_t lanes) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    Acc sum = Acc(0);
    for (; c < last; c += int64_t(kInFlight) * lanes) {
        In v[kInFlight][V];
        load_chunks<In, Aligned>(row, reduced, c, lanes, last, v);
#pragma unroll
        for (int u = 0; u < kInFlight; ++u)
#pragma unroll
            for (int j = 0; j < V; ++j) sum += cured::to_acc<Acc>(v[u][j]);
    }
    return sum;
}

// Longer rows shorter than block rows (more than 4 chunks a lane, fewer than 1024 chunks a row), and
// rows of aligned input whose lanes have more than one chunk: a row is 32 lanes, a warp, each with
// up to 32 chunks, 8 in flight. Threads walk the rows (one segment each) in whole warps.
template <class In, class Acc, class Out, bool Aligned>
__global__ void __launch_bounds__(kThreads) sum_long_rows(const In *in, Out *out, cured_axis_step s) {
    cured::await_previous_launch();
    const int lanes = s.lanes;
    const int64_t total = s.outer * s.segments * lanes;
    const unsigned lane = threadIdx.x % 32;
    for (int64_t warp_first = int64_t(blockIdx.x) * kThreads + threadIdx.x - lane; warp_first < total;
         warp_first += int64_t(gridDim.x) * kThreads) {
        const int64_t t = warp_first + lane;
        const int64_t unit = t / lanes;
        const int g = int(t % lanes);
        Acc sum = Acc(0);
        if (t < total) {
            const row_segment<In> seg = row_segment_of(in, s, unit);
            sum = sum_lane_chunks<In, Acc, Aligned>(seg.row, s.reduced, seg.first + g, seg.last, lanes);
        }
        for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
        if (t < total && g == 0) out[unit] = cured::cast_result<Out>(sum);
    }
}

// Block rows (1024 chunks a row or more, axis.h): a segment of up to 8192 chunks is a block's 256
// lanes, each with 4 to 32 chunks, 8 in flight; so each of the block's loads covers 4 KiB, as in
// V9's walk, and the blocks, one a segment, read the rows in launch order. The lanes' SEQUENTIAL
// tree: its offsets of 128, 64 and 32 through shared memory (lane l < offset adds lane l + offset's
// sum), then 16 to 1 by warp 0's shuffles; the same pairs in any case, so the same bits as the
// model's tree.
static_assert(kThreads == CURED_AXIS_BLOCK_ROW_LANES, "a block row's lanes are one block");
template <class In, class Acc, class Out, bool Aligned>
__global__ void __launch_bounds__(kThreads) sum_block_rows(const In *in, Out *out, cured_axis_step s) {
    cured::await_previous_launch();
    __shared__ Acc lane_sums[kThreads];
    const int64_t units = s.outer * s.segments;
    for (int64_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const row_segment<In> seg = row_segment_of(in, s, unit);
        Acc sum = sum_lane_chunks<In, Acc, Aligned>(seg.row, s.reduced, seg.first + threadIdx.x, seg.last, kThreads);
        lane_sums[threadIdx.x] = sum;
        __syncthreads();
#pragma unroll
        for (int offset = kThreads / 2; offset >= 32; offset /= 2) {
            if (threadIdx.x < offset) lane_sums[threadIdx.x] = sum = sum + lane_sums[threadIdx.x + offset];
            __syncthreads();
        }
        if (threadIdx.x < 32) {
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
            if (threadIdx.x == 0) out[unit] = cured::cast_result<Out>(sum);
        }
        // The next unit's first write to lane_sums comes after every read of this one's: the tree's
        // last barrier orders them (warp 0's shuffles read registers only).
    }
}

// Columns: a unit (one segment of rows of one outer index) is `strands` x `lanes` threads; with
// more than one strand that is a whole warp, strand p in lanes [p * lanes, (p + 1) * lanes). A
// thread has InFlight rows of its strand in flight (kInFlight, or kDeepInFlight where the launch
// is too small to fill the GPU: the order of the additions is the same).
template <class In, class Acc, class Out, bool Aligned, int InFlight>
__global__ void __launch_bounds__(kThreads) sum_columns(const In *in, Out *out, cured_axis_step s) {
    cured::await_previous_launch();
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    const int64_t per_unit = int64_t(s.strands) * s.lanes;
    const int64_t total = s.outer * s.segments * per_unit;
    const unsigned lane = threadIdx.x % 32;
    for (int64_t warp_first = int64_t(blockIdx.x) * kThreads + threadIdx.x - lane; warp_first < total;
         warp_first += int64_t(gridDim.x) * kThreads) {
        const int64_t t = warp_first + lane;
        const int64_t unit = t / per_unit;  // outer o, segment seg
        const int64_t within = t % per_unit;
        const int strand = int(within / s.lanes);
        const int64_t column = within % s.lanes * V;  // the chunk's first column
        const int64_t columns = t < total && column < s.inner ? (s.inner - column < V ? s.inner - column : V) : 0;
        Acc sum[V];
#pragma unroll
        for (int j = 0; j < V; ++j) sum[j] = Acc(0);
        if (columns > 0) {
            const int64_t first = unit % s.segments * s.segment;
            const int64_t last = first + s.segment < s.reduced ? first + s.segment : s.reduced;
            // The strand's rows are `strands` rows apart: a pointer add a load, not a 64-bit multiply.
            const int64_t row_step = int64_t(s.strands) * s.inner;
            const In *p = in + (unit / s.segments * s.reduced + first + strand) * s.inner + column;
            for (int64_t r = first + strand; r < last; r += int64_t(InFlight) * s.strands, p += InFlight * row_step) {
                In v[InFlight][V];
#pragma unroll
                for (int u = 0; u < InFlight; ++u)
                    load_chunk<In, Aligned>(p + u * row_step, r + int64_t(u) * s.strands < last ? columns : 0, v[u]);
#pragma unroll
                for (int u = 0; u < InFlight; ++u)
#pragma unroll
                    for (int j = 0; j < V; ++j) sum[j] += cured::to_acc<Acc>(v[u][j]);
            }
        }
        for (int offset = s.strands / 2; offset > 0; offset /= 2)
#pragma unroll
            for (int j = 0; j < V; ++j) sum[j] += __shfl_down_sync(0xffffffffu, sum[j], offset * s.lanes);
        if (strand == 0)
#pragma unroll
            for (int j = 0; j < V; ++j)
                if (j < columns) out[unit * s.inner + column + j] = cured::cast_result<Out>(sum[j]);
    }
}

// The most blocks a step is launched with: beyond it, threads take several units each.
constexpr int64_t kMaxBlocks = int64_t(1) << 20;

// Columns launched with fewer blocks than this leave SMs idle (sm_90 GPUs have 114 to 132): their
// time is the chain of rounds of loads each thread waits for, not the memory's bandwidth, so
// their threads keep kDeepInFlight rows in flight. Where it counts, the steps over the segments'
// sums: (2^20, 256) float32 along axis 0 left 4096 x 256 sums under the rule of 2026-11-22 (axis.h
// then asked for 2^18 pairs), summed by 16 blocks, then 64 x 256 by one, each thread adding 64
// rows, 8.7 and 7.6 us with 8 in flight (Nsight Compute, H200); now it leaves 993 x 256, summed by
// 4 blocks.
constexpr int64_t kFewBlocks = 128;
constexpr int kDeepInFlight = 32;

// The packed-rows kernel for rows of R elements with InFlight vectors a thread, where R <= V
// divides V; nullptr for other R.
template <class In, class Acc, class Out, int InFlight> constexpr auto packed_rows_kernel(int64_t R) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    using Kernel = void (*)(const In *, Out *, cured_axis_step);
    Kernel kernel = nullptr;
    if constexpr (V > 2) if (R == 2) kernel = sum_packed_rows<In, Acc, Out, 2, InFlight>;
    if constexpr (V > 4) if (R == 4) kernel = sum_packed_rows<In, Acc, Out, 4, InFlight>;
    if constexpr (V > 8) if (R == 8) kernel = sum_packed_rows<In, Acc, Out, 8, InFlight>;
    if (R == V) kernel = sum_packed_rows<In, Acc, Out, V, InFlight>;
    return kernel;
}

// GPUs whose memory moves fewer bytes a second than this (the H100's 3.35 TB/s, not the H200's
// 4.81) read packed rows whose sums are half the bytes read or more one vector a thread; every GPU
// does where those sums are also wider than the elements (see sum_packed_rows for the measurements).
constexpr int64_t kOneVectorBandwidth = int64_t(4000) * 1000 * 1000 * 1000;

// The current GPU's memory bandwidth in bytes a second (cured_memory_peak_bandwidth), or the
// one cured_set_test_memory_bandwidth makes the kernels assume. Cached per device.
inline cudaError_t memory_bandwidth(int64_t *bytes_per_s) {
    static std::atomic<int64_t> cache[64];
    const int64_t forced = cured_test_memory_bandwidth();
    if (forced > 0) {
        *bytes_per_s = forced;
        return cudaSuccess;
    }
    return cured::per_device(cache, bytes_per_s, cured_memory_peak_bandwidth);
}

// The short-rows kernel for P chunks a lane; nullptr where the rows take another kernel.
template <class In, class Acc, class Out> constexpr auto short_rows_kernel(int per_lane, bool aligned) {
    using Kernel = void (*)(const In *, Out *, cured_axis_step);
    Kernel kernel = nullptr;
    if (per_lane == 1)
        kernel = aligned ? sum_short_rows<In, Acc, Out, true, 1> : sum_short_rows<In, Acc, Out, false, 1>;
    if (per_lane == 2 && aligned) kernel = sum_short_rows<In, Acc, Out, true, 2>;
    if (per_lane == 4 && aligned) kernel = sum_short_rows<In, Acc, Out, true, 4>;
    return kernel;
}

// A step of In summed in Acc, its sums written as Out (Acc, or float16 from a float sum: rounded once).
template <class In, class Acc, class Out> struct axis_launcher {
    static cudaError_t launch(const cured_axis_step *s, const void *in_, void *out_, bool after_previous,
                              cudaStream_t stream) {
        constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
        const In *in = static_cast<const In *>(in_);
        Out *out = static_cast<Out *>(out_);
        const bool rows = s->inner == 1;
        const bool aligned = reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0 &&
                             (rows ? s->reduced : s->inner) % V == 0;
        const int per_lane = rows ? cured_axis_lane_chunks(s) : 0;
        const bool packs = rows && reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0;
        bool one_vector = false;
        if (packs && 2 * int64_t(sizeof(Out)) >= s->reduced * int64_t(sizeof(In))) {
            int64_t bandwidth;
            const cudaError_t err = memory_bandwidth(&bandwidth);
            if (err != cudaSuccess) return err;
            one_vector = bandwidth < kOneVectorBandwidth || sizeof(Out) > sizeof(In);
        }
        auto *packed = !packs      ? nullptr
                       : one_vector ? packed_rows_kernel<In, Acc, Out, 1>(s->reduced)
                                    : packed_rows_kernel<In, Acc, Out, kInFlight>(s->reduced);
        const bool block_rows = rows && s->lanes == CURED_AXIS_BLOCK_ROW_LANES;
        auto *short_rows = rows && !block_rows ? short_rows_kernel<In, Acc, Out>(per_lane, aligned) : nullptr;
        const int64_t threads =
            packed       ? cured::ceil_div(cured::ceil_div(s->outer * s->reduced, V), one_vector ? 1 : kInFlight)
            : short_rows ? cured::ceil_div(s->outer, kInFlight / per_lane) * s->lanes
                         : s->outer * s->segments * (rows ? s->lanes : int64_t(s->strands) * s->lanes);
        int64_t blocks = cured::ceil_div(threads, kThreads);
        if (blocks > kMaxBlocks) blocks = kMaxBlocks;
        if (cured_test_grid() > 0) blocks = cured_test_grid();  // the order does not depend on it
        auto *columns =
            aligned ? sum_columns<In, Acc, Out, true, kInFlight> : sum_columns<In, Acc, Out, false, kInFlight>;
        if constexpr (std::is_same_v<In, Acc>)  // the steps over segments' sums (and float input)
            if (blocks < kFewBlocks)
                columns = aligned ? sum_columns<In, Acc, Out, true, kDeepInFlight>
                                  : sum_columns<In, Acc, Out, false, kDeepInFlight>;
        auto *kernel = packed       ? packed
                       : short_rows ? short_rows
                       : block_rows ? (aligned ? sum_block_rows<In, Acc, Out, true>
                                               : sum_block_rows<In, Acc, Out, false>)
                       : rows ? (aligned ? sum_long_rows<In, Acc, Out, true> : sum_long_rows<In, Acc, Out, false>)
                              : columns;
        if (after_previous) return cured::launch_after_previous(kernel, blocks, kThreads, stream, in, out, *s);
        kernel<<<unsigned(blocks), kThreads, 0, stream>>>(in, out, *s);
        return cudaGetLastError();
    }
};

using axis_fn = cudaError_t (*)(const cured_axis_step *, const void *, void *, bool, cudaStream_t);

template <int Dtype, class Acc> constexpr axis_fn axis_entry() {
    using In = typename cured::dtype_type<Dtype>::type;
    if constexpr (cured::is_floating<In> && !cured::is_floating<Acc>) return nullptr;
    else return &axis_launcher<In, Acc, Acc>::launch;
}

struct axis_table {
    axis_fn fn[CURED_NUM_DTYPES][CURED_NUM_ACCS];
};

template <int... Dtypes> constexpr axis_table make_axis_table(std::integer_sequence<int, Dtypes...>) {
    return axis_table{{{axis_entry<Dtypes, int64_t>(), axis_entry<Dtypes, uint64_t>(), axis_entry<Dtypes, float>(),
                        axis_entry<Dtypes, double>()}...}};
}

constexpr axis_table kAxisLaunchers = make_axis_table(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});

// float16 results straight from a float32 sum (of float16 input, or of the segments' float32 sums
// before), where a device out= of float16 would otherwise take the float32 sums through the store
// kernel (result.cu): three times the output's bytes. The same one rounding, NumPy's astype.
constexpr axis_fn kHalfFromFloat16 = &axis_launcher<__half, float, __half>::launch;
constexpr axis_fn kHalfFromFloat32 = &axis_launcher<float, float, __half>::launch;

}  // namespace

extern "C" cudaError_t cured_axis_launch(const cured_axis_step *step, cured_dtype in_dtype, cured_acc acc,
                                         cured_dtype out_dtype, const void *in, void *out, int after_previous,
                                         cudaStream_t stream) {
    if (in_dtype < 0 || in_dtype >= CURED_NUM_DTYPES || acc < 0 || acc >= CURED_NUM_ACCS) return cudaErrorInvalidValue;
    axis_fn fn = nullptr;
    if (out_dtype == cured_acc_dtype(acc)) fn = kAxisLaunchers.fn[in_dtype][acc];
    else if (out_dtype == CURED_FLOAT16 && acc == CURED_ACC_FLOAT32)
        fn = in_dtype == CURED_FLOAT16 ? kHalfFromFloat16 : in_dtype == CURED_FLOAT32 ? kHalfFromFloat32 : nullptr;
    return fn == nullptr ? cudaErrorInvalidValue : fn(step, in, out, after_previous != 0, stream);
}
