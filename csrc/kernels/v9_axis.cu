// V9 along axes: numpy.sum's axis=, for the default version.
//
// What changed from V9: V9 sums one flat array; here each output sums the elements along the
// reduced axes, and there may be one output or 2^27. The array is folded into (outer, reduced,
// inner) reads (axis.h): rows where the reduced elements are consecutive (inner == 1), columns
// where they lie `inner` apart. What V9 taught is kept:
//  - 16-byte loads, eight in flight a thread before any is added (rows: eight chunks of a row;
//    columns: the same chunk of eight rows), so that few warps keep enough bytes in flight;
//  - a warp's loads are contiguous: in rows, the lanes of a segment read consecutive chunks, and
//    short rows give a warp several rows side by side; in columns, consecutive threads read
//    consecutive chunks across a row, and narrow rows give a warp several strands of rows;
//  - long reductions are cut into segments whose sums the next launch adds (rows of 2048 chunks,
//    columns of 64 to 4096 rows), so every SM has work whether there are 16 outputs or 2^27;
//  - the order of the additions is fixed by the shape and the dtype alone (axis.h), never by the
//    grid or the GPU: the CPU order model (cpu_model_axis.h) reproduces every output bit for bit.
// Not kept: V9's single launch. A step of several segments is followed by one more launch over the
// segments' sums (a few microseconds), instead of V9's ticket: with up to 2^27 outputs a ticket
// each would cost more than it saves.
//
// Napkin math: (2^14, 2^14) float32 is 1 GiB, read once: 223 us at the H200's theoretical
// 4.81 TB/s; the segments' sums add 0.2% (rows) to 1.6% (columns of 64-row segments) to it.
//
// Evidence (`python -m cured --axis`, device time, results/ and README "Sums along axes", 2026-11-22,
// NVIDIA H200 03:17 UTC and H100 80GB HBM3 03:11 UTC): columns and rows of 2^20 and more read at
// 0.82 to 1.00 of V9 on the flat array of the same bytes, within 0.96 to 1.03 of the faster of
// PyTorch and CuPy (1.42 where both fall short: (512, 512, 512) float32 along (0, 2), H200). Short
// rows are behind: rows of 16 float32 at 0.52 (H200) and 0.71 (H100) of CuPy, of 2 float32 at 0.51
// and 0.57, of 256 float32 at 0.59 and 0.68. Not profiled yet.
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

// Longer rows (segments of up to 2048 chunks): a segment is 32 lanes, a warp, each with up to 64
// chunks, 8 in flight. Threads walk the segments in whole warps.
template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads) sum_rows(const In *in, Acc *out, cured_axis_step s) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    const int lanes = s.lanes;
    const int64_t total = s.outer * s.segments * lanes;
    const unsigned lane = threadIdx.x % 32;
    for (int64_t warp_first = int64_t(blockIdx.x) * kThreads + threadIdx.x - lane; warp_first < total;
         warp_first += int64_t(gridDim.x) * kThreads) {
        const int64_t t = warp_first + lane;
        const int64_t unit = t / lanes;  // row o, segment seg
        const int g = int(t % lanes);
        Acc sum = Acc(0);
        if (t < total) {
            const In *row = in + unit / s.segments * s.reduced;
            const int64_t first = unit % s.segments * s.segment;
            const int64_t last = first + s.segment < s.chunks ? first + s.segment : s.chunks;
            for (int64_t c = first + g; c < last; c += int64_t(kInFlight) * lanes) {
                In v[kInFlight][V];
#pragma unroll
                for (int u = 0; u < kInFlight; ++u) {
                    const int64_t chunk = c + int64_t(u) * lanes;
                    load_chunk<In, Aligned>(row + chunk * V, chunk < last ? s.reduced - chunk * V : 0, v[u]);
                }
#pragma unroll
                for (int u = 0; u < kInFlight; ++u)
#pragma unroll
                    for (int j = 0; j < V; ++j) sum += cured::to_acc<Acc>(v[u][j]);
            }
        }
        for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
        if (t < total && g == 0) out[unit] = sum;
    }
}

// Short rows (at most 8 chunks): a row is `lanes` (G, here 1) consecutive threads, each with at
// most `per_lane` (1, 2, 4 or 8) chunks, and a thread loads its chunks of 8 / per_lane rows at once,
// so that every thread has 8 chunks in flight however short the rows. (On the H200, rows of 2
// float32 read at 1051 GB/s this way, 516 one row a thread; rows of 8 to 256 chunks read faster
// as one segment of a warp than with 8 to 32 lanes here: 3524 against 1794 GB/s, 512 float32.) Row b of a group's pass is
// `groups` rows after row b - 1: consecutive groups read consecutive rows in each load.
template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads) sum_short_rows(const In *in, Acc *out, cured_axis_step s) {
    constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
    const int lanes = s.lanes;
    const int per_lane_log2 = __ffs(cured_axis_lane_chunks(&s)) - 1;
    const int per_lane_mask = (1 << per_lane_log2) - 1;
    const int64_t groups = int64_t(gridDim.x) * kThreads / lanes;
    const int64_t rows_a_pass = groups * (kInFlight >> per_lane_log2);
    const int64_t group = (int64_t(blockIdx.x) * kThreads + threadIdx.x) / lanes;
    const int g = int(threadIdx.x % lanes);
    for (int64_t base = 0; base < s.outer; base += rows_a_pass) {  // the same trips for every thread
        In v[kInFlight][V];
#pragma unroll
        for (int q = 0; q < kInFlight; ++q) {
            const int64_t row = base + int64_t(q >> per_lane_log2) * groups + group;
            const int64_t chunk = g + int64_t(q & per_lane_mask) * lanes;
            const bool inside = row < s.outer && chunk < s.chunks;
            load_chunk<In, Aligned>(in + row * s.reduced + chunk * V, inside ? s.reduced - chunk * V : 0, v[q]);
        }
        Acc sum = Acc(0);
#pragma unroll
        for (int q = 0; q < kInFlight; ++q) {
#pragma unroll
            for (int j = 0; j < V; ++j) sum += cured::to_acc<Acc>(v[q][j]);
            if ((q & per_lane_mask) == per_lane_mask) {  // the row's last chunk: the same q in every lane
                for (int offset = lanes / 2; offset > 0; offset /= 2)
                    sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
                const int64_t row = base + int64_t(q >> per_lane_log2) * groups + group;
                if (g == 0 && row < s.outer) out[row] = sum;
                sum = Acc(0);
            }
        }
    }
}

// Columns: a unit (one segment of rows of one outer index) is `strands` x `lanes` threads; with
// more than one strand that is a whole warp, strand p in lanes [p * lanes, (p + 1) * lanes).
template <class In, class Acc, bool Aligned>
__global__ void __launch_bounds__(kThreads) sum_columns(const In *in, Acc *out, cured_axis_step s) {
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
            const In *base = in + unit / s.segments * s.reduced * s.inner + column;
            for (int64_t r = first + strand; r < last; r += int64_t(kInFlight) * s.strands) {
                In v[kInFlight][V];
#pragma unroll
                for (int u = 0; u < kInFlight; ++u) {
                    const int64_t row = r + int64_t(u) * s.strands;
                    load_chunk<In, Aligned>(base + row * s.inner, row < last ? columns : 0, v[u]);
                }
#pragma unroll
                for (int u = 0; u < kInFlight; ++u)
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
                if (j < columns) out[unit * s.inner + column + j] = sum[j];
    }
}

// The most blocks a step is launched with: beyond it, threads take several units each.
constexpr int64_t kMaxBlocks = int64_t(1) << 20;

template <class In, class Acc> struct axis_launcher {
    static cudaError_t launch(const cured_axis_step *s, const void *in_, void *out_, cudaStream_t stream) {
        constexpr int V = CURED_VECTOR_BYTES / sizeof(In);
        const In *in = static_cast<const In *>(in_);
        Acc *out = static_cast<Acc *>(out_);
        const bool rows = s->inner == 1;
        const bool short_rows = rows && s->chunks <= CURED_AXIS_SHORT_ROW_CHUNKS;
        const bool aligned = reinterpret_cast<uintptr_t>(in) % CURED_VECTOR_BYTES == 0 &&
                             (rows ? s->reduced : s->inner) % V == 0;
        const int64_t threads =
            short_rows ? cured::ceil_div(s->outer, kInFlight / cured_axis_lane_chunks(s)) * s->lanes
                       : s->outer * s->segments * (rows ? s->lanes : int64_t(s->strands) * s->lanes);
        int64_t blocks = cured::ceil_div(threads, kThreads);
        if (blocks > kMaxBlocks) blocks = kMaxBlocks;
        if (cured_test_grid() > 0) blocks = cured_test_grid();  // the order does not depend on it
        auto *kernel = short_rows ? (aligned ? sum_short_rows<In, Acc, true> : sum_short_rows<In, Acc, false>)
                       : rows     ? (aligned ? sum_rows<In, Acc, true> : sum_rows<In, Acc, false>)
                                  : (aligned ? sum_columns<In, Acc, true> : sum_columns<In, Acc, false>);
        kernel<<<unsigned(blocks), kThreads, 0, stream>>>(in, out, *s);
        return cudaGetLastError();
    }
};

using axis_fn = cudaError_t (*)(const cured_axis_step *, const void *, void *, cudaStream_t);

template <int Dtype, class Acc> constexpr axis_fn axis_entry() {
    using In = typename cured::dtype_type<Dtype>::type;
    if constexpr (cured::is_floating<In> && !cured::is_floating<Acc>) return nullptr;
    else return &axis_launcher<In, Acc>::launch;
}

struct axis_table {
    axis_fn fn[CURED_NUM_DTYPES][CURED_NUM_ACCS];
};

template <int... Dtypes> constexpr axis_table make_axis_table(std::integer_sequence<int, Dtypes...>) {
    return axis_table{{{axis_entry<Dtypes, int64_t>(), axis_entry<Dtypes, uint64_t>(), axis_entry<Dtypes, float>(),
                        axis_entry<Dtypes, double>()}...}};
}

constexpr axis_table kAxisLaunchers = make_axis_table(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});

}  // namespace

extern "C" cudaError_t cured_axis_launch(const cured_axis_step *step, cured_dtype in_dtype, cured_acc acc,
                                         const void *in, void *out, cudaStream_t stream) {
    if (in_dtype < 0 || in_dtype >= CURED_NUM_DTYPES || acc < 0 || acc >= CURED_NUM_ACCS) return cudaErrorInvalidValue;
    const axis_fn fn = kAxisLaunchers.fn[in_dtype][acc];
    return fn == nullptr ? cudaErrorInvalidValue : fn(step, in, out, stream);
}
