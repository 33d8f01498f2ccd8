/* cured.h: what the C host code, the CUDA kernels and the CPU order model share.
 *
 * This header is C11 and C++17 at once: the kernels (.cu) include it for the version table and the
 * dtype codes, the host glue (.c) for everything else. */
#ifndef CURED_H
#define CURED_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A function both the host code and the kernels call. */
#ifdef __CUDACC__
#define CURED_HOST_DEVICE __host__ __device__
#else
#define CURED_HOST_DEVICE
#endif

/* ---- element types -------------------------------------------------------------------------
 * The input dtypes cured sums, in the order of cured_dtype. X(CODE, numpy-name, item size). */
#define CURED_DTYPES(X)                                                                            \
    X(BOOL, "bool", 1)                                                                             \
    X(INT8, "int8", 1)                                                                             \
    X(INT16, "int16", 2)                                                                           \
    X(INT32, "int32", 4)                                                                           \
    X(INT64, "int64", 8)                                                                           \
    X(UINT8, "uint8", 1)                                                                           \
    X(UINT16, "uint16", 2)                                                                         \
    X(UINT32, "uint32", 4)                                                                         \
    X(UINT64, "uint64", 8)                                                                         \
    X(FLOAT16, "float16", 2)                                                                       \
    X(FLOAT32, "float32", 4)                                                                       \
    X(FLOAT64, "float64", 8)

#define CURED_DTYPE_ENUM(code, name, size) CURED_##code,
typedef enum { CURED_DTYPES(CURED_DTYPE_ENUM) CURED_NUM_DTYPES } cured_dtype;
#undef CURED_DTYPE_ENUM

/* The accumulator types, as NumPy's sum chooses them: bool and signed integers sum into int64,
 * unsigned into uint64, float16 and float32 into float32, float64 into float64. `dtype=` may pick
 * another of these four. Each accumulator is also an input dtype: passes after the first read the
 * partial sums of the pass before. */
#define CURED_ACCS(X)                                                                              \
    X(INT64, CURED_INT64)                                                                          \
    X(UINT64, CURED_UINT64)                                                                        \
    X(FLOAT32, CURED_FLOAT32)                                                                      \
    X(FLOAT64, CURED_FLOAT64)

#define CURED_ACC_ENUM(code, dtype) CURED_ACC_##code,
typedef enum { CURED_ACCS(CURED_ACC_ENUM) CURED_NUM_ACCS } cured_acc;
#undef CURED_ACC_ENUM

const char *cured_dtype_name(cured_dtype dtype);
int cured_dtype_size(cured_dtype dtype);
int cured_dtype_is_float(cured_dtype dtype);
cured_dtype cured_acc_dtype(cured_acc acc);

/* ---- versions ------------------------------------------------------------------------------
 * The one registry of kernel versions. Each row:
 *   X(id, symbol, name, schedule, threads a block, per thread, tree order, summary)
 * `symbol` names the kernel's source file (csrc/kernels/<symbol>.cu) and its launch table.
 *
 * Schedule PASSES (V0 to V8): each block reduces threads x per_thread consecutive elements to one
 * partial sum; further passes of the same kernel reduce the partials until one value is left. Each
 * thread adds its per_thread elements, `threads` apart, in order, then the block's tree runs.
 *
 * Schedule TILES (V9): one launch. The input is cut into tiles fixed by the dtype and the length
 * alone (cured_tiles_of); each tile gives one partial sum, whichever block reduces it, and the last
 * block to finish combines the partials in a fixed order. per_thread is the 16-byte vectors each
 * thread loads in one step of a tile.
 *
 * Tree EXACT (V10): no rounding order at all. The tiles are V9's; each element's bits are kept
 * exactly and the sum is rounded once (exact.h), so the result is the only correctly rounded one.
 *
 * Tree order: the pairs the block's tree adds, which the CPU order model follows:
 *   INTERLEAVED  step s = 1, 2, 4, ...: s[i] += s[i + s] for i a multiple of 2s;
 *   SEQUENTIAL   step s = T/2, ..., 1:  s[i] += s[i + s] for i < s;
 *   WARPS        SEQUENTIAL within each warp of 32 (warp shuffles), then SEQUENTIAL over the
 *                warps' sums. */
#define CURED_VERSIONS(X)                                                                                       \
    X(0, v0_global_memory, "global memory", CURED_PASSES, 256, 1, CURED_TREE_INTERLEAVED,                       \
      "interleaved tree in a global-memory scratch array; tid % (2*s) == 0 picks the adders (divergent)")      \
    X(1, v1_shared_memory, "shared memory", CURED_PASSES, 256, 1, CURED_TREE_INTERLEAVED,                       \
      "the same tree in on-chip shared memory")                                                                \
    X(2, v2_no_divergence, "no divergence", CURED_PASSES, 256, 1, CURED_TREE_INTERLEAVED,                       \
      "index = 2*s*tid keeps the working threads contiguous; bank conflicts remain")                           \
    X(3, v3_no_bank_conflict, "no bank conflict", CURED_PASSES, 256, 1, CURED_TREE_SEQUENTIAL,                  \
      "sequential addressing, s = T/2 ... 1, tid < s: a warp reads 32 consecutive words")                      \
    X(4, v4_add_during_load, "add during load", CURED_PASSES, 256, 2, CURED_TREE_SEQUENTIAL,                    \
      "each thread adds two elements blockDim apart while loading: half the blocks, no idle first step")       \
    X(5, v5_unroll_last_warp, "unroll last warp", CURED_PASSES, 256, 2, CURED_TREE_SEQUENTIAL,                  \
      "the last six steps run in the first warp with __syncwarp instead of __syncthreads")                     \
    X(6, v6_completely_unroll, "completely unroll", CURED_PASSES, 256, 2, CURED_TREE_SEQUENTIAL,                \
      "block size is a template parameter: the shared-memory loop unrolls at compile time")                    \
    X(7, v7_many_elements_per_thread, "many elements a thread", CURED_PASSES, 256, 128, CURED_TREE_SEQUENTIAL,  \
      "each thread sums 128 elements blockDim apart in a register before the tree")                            \
    X(8, v8_warp_shuffle, "warp shuffle", CURED_PASSES, 256, 128, CURED_TREE_SEQUENTIAL,                        \
      "the last warp reduces in registers with __shfl_down_sync, not through shared memory")                   \
    X(9, v9_one_launch_tiles, "one launch, fixed tiles", CURED_TILES, 256, 8, CURED_TREE_WARPS,                 \
      "16-byte loads, 8 in flight a thread, a grid sized to the GPU, tiles fixed by the length, one launch")    \
    X(10, v10_exact, "exact", CURED_TILES, 256, 8, CURED_TREE_EXACT,                                           \
      "every bit kept (floating bins in registers, an exact integer state beyond), rounded once: the true sum")

typedef enum { CURED_TREE_INTERLEAVED, CURED_TREE_SEQUENTIAL, CURED_TREE_WARPS, CURED_TREE_EXACT } cured_tree_order;
typedef enum { CURED_PASSES, CURED_TILES } cured_schedule;

/* Compile-time shapes for the kernels: <symbol>_threads and <symbol>_per_thread. */
#define CURED_SHAPE_ENUM(id, sym, name, schedule, threads, per_thread, tree, summary)              \
    sym##_threads = (threads), sym##_per_thread = (per_thread),
enum { CURED_VERSIONS(CURED_SHAPE_ENUM) };
#undef CURED_SHAPE_ENUM

/* ---- tiles (schedule TILES) -----------------------------------------------------------------
 * A step is threads x per_thread vectors of 16 bytes; a tile is `steps` steps, with steps the
 * smallest power of two that leaves at most CURED_MAX_TILES tiles. Everything here follows from the
 * dtype and the length: the GPU kernel and the CPU model both call this. */
#define CURED_VECTOR_BYTES 16
#define CURED_MAX_TILES 4096

typedef struct {
    int vector;       /* elements in one 16-byte vector */
    int64_t step;     /* elements in one step of a tile */
    int64_t steps;    /* steps in a tile */
    int64_t tile;     /* elements in a tile */
    int64_t tiles;    /* tiles over n elements (at least 1) */
} cured_tiles;

/* a / b rounded up, for positive a and b. */
static inline int64_t cured_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static inline cured_tiles cured_tiles_of(int threads, int per_thread, int item_size, int64_t n) {
    cured_tiles t;
    t.vector = CURED_VECTOR_BYTES / item_size;
    t.step = (int64_t)threads * per_thread * t.vector;
    t.steps = 1;
    while ((n + t.step * t.steps - 1) / (t.step * t.steps) > CURED_MAX_TILES) t.steps *= 2;
    t.tile = t.step * t.steps;
    t.tiles = n > t.tile ? (n + t.tile - 1) / t.tile : 1;
    return t;
}

/* The input of one kernel launch: `count` elements, which are elements [first, first + count) of
 * a whole input of n elements. A PASSES launch reduces its `count` elements on their own (each pass
 * is an input of its own; first and n are not used). A TILES launch reads whole tiles of the whole
 * input's tiling: first is a multiple of the tile, and so is count unless the span ends the input.
 * `result` is for the EXACT tree only: the dtype whose precision its floating sum is rounded to
 * (the accumulator's, or float16), or CURED_EXACT_STATE (exact.h) for the unrounded state. */
typedef struct {
    int64_t first, count, n;
    cured_dtype result;
} cured_span;

/* A version's kernel launch. PASSES: one pass, reducing span.count elements of `in` to one partial
 * sum a block in `out`; `scratch` holds (blocks x threads) accumulators for versions whose tree runs
 * in global memory (V0) and is NULL otherwise. TILES: the partial sums of the span's tiles into the
 * workspace `scratch` (cured_tiles_workspace), and, by the launch that completes the last tile, the
 * whole sum into out[0]; the workspace's ticket counter must be 0 before the first launch of a sum
 * and is 0 again after its last. Returns the launch's error. */
typedef cudaError_t (*cured_launch_fn)(const void *in, void *out, cured_span span, void *scratch,
                                       cudaStream_t stream);

/* A version's launchers, by input dtype and accumulator; NULL where the pair is not summed
 * (a floating input into an integer accumulator). */
typedef struct {
    cured_launch_fn fn[CURED_NUM_DTYPES][CURED_NUM_ACCS];
} cured_launch_table;

typedef struct {
    int id;
    const char *symbol;
    const char *name;
    const char *summary;
    cured_schedule schedule;
    int threads;            /* threads a block */
    int per_thread;         /* PASSES: input elements a thread; TILES: 16-byte vectors a thread a step */
    cured_tree_order tree;  /* the block tree's order */
    int tree_in_global;     /* the block tree runs in a global-memory scratch array (V0) */
    const cured_launch_table *launchers;
} cured_version;

extern const cured_version cured_versions[];
extern const int cured_num_versions;

/* The version with this id, or NULL. */
const cured_version *cured_find_version(long id);

/* PASSES: the elements one block reduces. */
static inline int64_t cured_elements_per_block(const cured_version *v) {
    return (int64_t)v->threads * v->per_thread;
}

/* TILES: the workspace is a header of CURED_TILES_HEADER_BYTES, then the tiles' partial sums. The
 * header holds the ticket counter (unsigned int: the tiles done so far) at offset 0, and for the
 * EXACT tree its flags at offset 4 and its state's limbs at CURED_TILES_EXACT_OFFSET; the fed
 * kernel's chunk counter (uint64) is at CURED_TILES_FEED_OFFSET. A fresh workspace's header is
 * zeroed, and every run but the fed kernel's (whose workspace is the host path's, fresh each sum)
 * leaves it zero again. */
#define CURED_TILES_HEADER_BYTES 1024
#define CURED_TILES_FEED_OFFSET 8
#define CURED_TILES_EXACT_OFFSET 256
#define CURED_TILES_PARTIALS_OFFSET CURED_TILES_HEADER_BYTES
static inline size_t cured_tiles_workspace(int64_t tiles, int acc_size) {
    return CURED_TILES_PARTIALS_OFFSET + (size_t)tiles * (size_t)acc_size;
}

/* TILES: the grid the kernel will use for `tiles` tiles when it wants `wanted` blocks (or as many
 * as a test override says): never more blocks than tiles. */
int64_t cured_tiles_grid(int64_t tiles, int64_t wanted);

/* For tests: launch TILES kernels with this many blocks (0: sized from the GPU; a forced grid also
 * keeps V9 from its one-block kernel for few tiles), and place each piece of host input that
 * cured_staged_sum copies `misalign` bytes past a 16-byte boundary (0 to 15; used when a multiple
 * of the item size). The result depends on neither. */
void cured_set_test_launch(int64_t blocks, int misalign);

/* The grid cured_set_test_launch forces on TILES kernels; 0 when none. */
int64_t cured_test_grid(void);

/* For tests: let kernels have at most `bytes` of dynamic shared memory a block (0: what the GPU
 * has), as a GPU with less would: V10's float64 then takes its other path. The result depends on
 * neither. */
void cured_set_test_dynamic_shared(int64_t bytes);
int64_t cured_test_dynamic_shared(void);

/* For tests: make the kernels along axes assume a GPU whose memory moves `bytes_per_s` bytes a second
 * (0: the GPU's own), which picks how many vectors a thread of the packed-rows kernel reads
 * (kernels/v9_axis.cu). The result depends on neither. */
void cured_set_test_memory_bandwidth(int64_t bytes_per_s);
int64_t cured_test_memory_bandwidth(void);

/* For tests: the launches made as one cluster of blocks (V10 over a few tiles, sm_90 up), counted
 * since the process started, so that a test can tell that that path ran. */
void cured_count_cluster_launch(void);
int64_t cured_cluster_launches(void);

/* For tests: whether kernels/launch.cuh may launch through the driver (1, the default) or must use
 * the runtime's launch (0), and the launches made through the driver since the process started. */
void cured_set_test_driver_launch(int allowed);
int cured_test_driver_launch(void);
void cured_count_driver_launch(void);
int64_t cured_driver_launches(void);

/* ---- CUB, the reference ------------------------------------------------------------------
 * cub::DeviceReduce (kernels/cub_reference.cu), one function a dtype, summing with NumPy's default
 * accumulator (cured_default_acc); and cub::DeviceSegmentedReduce over `rows` consecutive rows of
 * `length` elements, one sum a row into out[row]. With temp == NULL each writes the temporary bytes
 * it needs and does nothing else. */
typedef cudaError_t (*cured_cub_fn)(void *temp, size_t *temp_bytes, const void *in, int64_t n, void *out,
                                    cudaStream_t stream);
typedef cudaError_t (*cured_cub_rows_fn)(void *temp, size_t *temp_bytes, const void *in, int64_t rows,
                                         int64_t length, void *out, cudaStream_t stream);
typedef struct {
    cured_cub_fn fn[CURED_NUM_DTYPES];
    cured_cub_rows_fn rows[CURED_NUM_DTYPES];
} cured_cub_table;
extern const cured_cub_table cured_cub_reducers;

/* NumPy's accumulator for a sum of `dtype`: int64 for bool and signed, uint64 for unsigned,
 * float32 for float16 and float32, float64 for float64. */
cured_acc cured_default_acc(cured_dtype dtype);

/* ---- summing on the GPU -------------------------------------------------------------------- */

/* Where a CUDA call failed: the error and the call's name. */
typedef struct {
    cudaError_t code;
    const char *call;
} cured_cuda_status;

/* The elements of the input whose partial sums stand alone: a block's elements (PASSES) or a tile
 * (TILES). Any piece of the input that starts on a multiple of the unit, and ends on one or at the
 * end, gives the same partial sums on its own as inside the whole input, so a sum run piece by
 * piece (cured_plan_run_part) has the bits of the sum run at once. */
static inline int64_t cured_unit(const cured_version *v, cured_dtype in_dtype, int64_t n) {
    if (v->schedule == CURED_TILES) return cured_tiles_of(v->threads, v->per_thread, cured_dtype_size(in_dtype), n).tile;
    return cured_elements_per_block(v);
}

/* One reduction, ready to run: a version (or CUB when version is NULL), the input dtype, the
 * accumulator, the dtype an exact version rounds to (cured_span's `result`), the length, the largest piece one launch of the first stage is given, and the
 * device memory it needs. The first stage turns the input into partial sums (PASSES: the first
 * pass; TILES: the tiles' partials, and the last block's combination); the rest (PASSES: the later
 * passes) turns the partials into the result. */
typedef struct {
    const cured_version *version;
    cured_dtype in_dtype;
    cured_acc acc;
    cured_dtype result;     /* the accumulator's dtype unless the caller sets float16 or CURED_EXACT_STATE */
    int64_t n;
    int64_t part;           /* the most elements one cured_plan_run_part is given */
    size_t workspace_bytes; /* shared by the whole sum: partials, V9's ticket, CUB's temporary storage,
                             * and one scratch for the launches that use the workspace's own */
    size_t scratch_bytes;   /* V0's tree scratch for one launch at a time; 0 for the other versions */
    int device;             /* the current device when the plan was made, which its runs need to be */
} cured_plan;

/* Makes a plan on the current device, after cured_device_ready(); the runs below take a plan, so
 * the device is ready for them. `part` is the most elements one first-stage launch will read (0: n,
 * the whole input at once). */
cured_cuda_status cured_plan_make(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                  cured_acc acc, int64_t n, int64_t part);

/* Prepares a fresh workspace for the plan's runs (TILES: zeroes the ticket counter, which each run
 * leaves at zero again). */
cured_cuda_status cured_plan_init_workspace(const cured_plan *plan, void *workspace, cudaStream_t stream);

/* The first stage over elements [first, first + count) of the input, which lie at d_part (device),
 * on `stream`. `first` is a multiple of cured_unit, and so is count unless the piece ends the
 * input; count <= plan->part. `scratch` (plan->scratch_bytes, device) is V0's tree scratch, which no
 * other launch may use at the same time; NULL uses the workspace's own. Pieces may run on several
 * streams at once, in any order. Not for CUB, whose reduction cannot be cut. */
cured_cuda_status cured_plan_run_part(const cured_plan *plan, const void *d_part, int64_t first, int64_t count,
                                      void *d_out, void *workspace, void *scratch, cudaStream_t stream);

/* After every piece's first stage (ordered before `stream`): the rest of the reduction, into *d_out. */
cured_cuda_status cured_plan_finish(const cured_plan *plan, void *d_out, void *workspace, cudaStream_t stream);

/* The whole reduction on `stream`: from d_in (device, n elements) to *d_out (device, one
 * accumulator), using `workspace` (device, plan->workspace_bytes). */
cured_cuda_status cured_plan_run(const cured_plan *plan, const void *d_in, void *d_out, void *workspace,
                                 cudaStream_t stream);

/* Streams of the current device, created once and reused: a call takes one and gives it back on the
 * same device. They are non-blocking (no implicit order with the legacy default stream): each call
 * orders its work explicitly. */
cudaError_t cured_stream_take(cudaStream_t *stream);
void cured_stream_give(cudaStream_t stream);

/* Seconds of device time (CUDA events) spent on each stage of one sum. h2d: from the start of the
 * call until the last piece of host input is on the device (the host-side staging included) and,
 * on the host path, read by the reduction's first stage; reduce: the reduction's work left after
 * that (for host input, the rest ran while the copy went on); d2h: the result's copy back. */
typedef struct {
    double h2d, reduce, d2h;
} cured_timing;

typedef struct cured_strided cured_strided; /* a strided host array read a range at a time (below) */

/* The whole sum of host memory `in` (plan->n elements) on the current GPU into *result (8 bytes:
 * int64, uint64, float or double; V10's state where the plan says, cured_plan_result_bytes), through
 * pinned staging buffers, the copy overlapped with the reduction (staged.c); with `in` NULL, of the
 * strided host array `strided` (cured_strided_of returned 1), each chunk gathered into its staging
 * buffer in C order (or, for an integer accumulator, in the order cured_layout_in_memory_order
 * gave). The plan comes from cured_staged_plan. Fills *timing when it is not NULL. Thread-safe;
 * call it without the GIL. */
cured_cuda_status cured_staged_plan(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                    cured_acc acc, int64_t n);
cured_cuda_status cured_staged_sum(const cured_plan *plan, const void *in, const cured_strided *strided, void *result,
                                   cured_timing *timing);

/* Results of `bytes` from device memory `device` into pageable host memory `host` (a fresh array),
 * after the work queued on `stream` (fetch.c): from the setting's fetch_min_bytes up by the host
 * path's lanes through their pinned staging buffers, done on return; shorter ones by one
 * cudaMemcpyAsync queued on `stream`. Either way `host` holds them once `stream` is waited for.
 * Thread-safe; call it without the GIL. */
cured_cuda_status cured_fetch_results(void *host, const void *device, size_t bytes, cudaStream_t stream);

/* The host-path settings: `lanes` host threads (each with two staging buffers) and chunks of about
 * `chunk_bytes`; `ramp` (the default) lets the first chunks grow, one a lane, where the input is
 * short, and fed, at any length, with the last ones shrinking (cured_chunks_make, cured_ramp);
 * results of `fetch_min_bytes` or more come back through the lanes (cured_fetch_results); `mode`
 * says how a chunk reaches the reduction's first stage:
 *   CURED_STAGING_COPIED  the copy engine copies it into a device buffer of the lane's, and the lane
 *                         launches the first stage there;
 *   CURED_STAGING_DIRECT  the lane launches the first stage on the pinned staging buffer itself,
 *                         which it reads over the bus (mapped memory);
 *   CURED_STAGING_FED     one kernel for the whole input reads each chunk where it is staged, told
 *                         by a flag in mapped memory (cured_feed): no launch or event a chunk. V9
 *                         only; other versions run DIRECT under it.
 * CUB's chunks are always copied, into one whole buffer. 0 restores a default (mode: -1). For tests
 * and tuning. chunk_bytes is the setting, or CURED_DEFAULT_CHUNK_BYTES (the copied and direct
 * modes, and fetch.c); fed_chunk_bytes the setting, or CURED_FEED_CHUNK_BYTES. */
#define CURED_MAX_LANES 32
typedef enum { CURED_STAGING_COPIED, CURED_STAGING_DIRECT, CURED_STAGING_FED } cured_staging_mode;
typedef struct {
    int lanes, ramp;
    cured_staging_mode mode;
    int64_t chunk_bytes, fed_chunk_bytes, fetch_min_bytes;
} cured_staging;
void cured_set_staging(int lanes, int64_t chunk_bytes, int ramp, int64_t fetch_min_bytes, int mode);
void cured_get_staging(cured_staging *setting);

/* DIRECT over COPIED. scripts/probes/staging_dma.cu (H200 host, 2026-11-28 04:57 UTC): the copy
 * engine's copies to the GPU fell from 52.6 to 40.8 GB/s beside ten threads copying on the host,
 * whose memory both use; ten lanes whose kernel read their pinned buffers moved 256 MiB at 44.9 to
 * 47.8 GB/s where the same lanes copying first moved 35.5 to 37.8 (one pinned copy: 54.8). In cured
 * (scripts/probes/staging_trace.py, another H200 host, 05:09 UTC, V9 float32, 10 lanes of 4 MiB,
 * wall time in turns, as a share of the pinned copy's speed), copied -> direct: 2^24 0.55 -> 0.59,
 * 2^25 0.54 -> 0.62, 2^26 0.59 -> 0.73, 2^28 0.75 -> 0.87.
 * FED over DIRECT: scripts/probes/staging_polled.cu (H200 host, 2026-11-28 06:37 UTC, wall time,
 * median of 7 in turns, as a share of one pinned copy): lanes that set flags for one kernel of 16
 * blocks read 256 MiB at 0.87 and 1 GiB at 0.91 with chunks of 1 MiB, where in cured a launch and
 * an event a chunk from ten threads made 1 MiB chunks slower than 4 MiB. In cured
 * (scripts/probes/host_overhead.py, V9 float32, wall time in turns), 10 lanes of 4 MiB launched ->
 * 10 lanes of 1 MiB fed: H200 host (06:59 UTC) 2^25 0.70 -> 0.83, 2^26 0.74 -> 0.86, 2^28 0.86 ->
 * 0.90; H100 host (07:12 UTC) 0.70 -> 0.81, 0.76 -> 0.85, 0.84 -> 0.91. */
#define CURED_DEFAULT_STAGING_MODE CURED_STAGING_FED
#define CURED_DEFAULT_CHUNK_BYTES ((int64_t)4 << 20)
#define CURED_FEED_CHUNK_BYTES ((int64_t)1 << 20)

/* For probes (scripts/probes/staging_trace.py; staged_trace.c): while the trace is on, each host-path
 * sum with timing asked for records its first CURED_TRACE_CHUNKS chunks, one row each, and three
 * moments of the caller's; seconds on the host's clock from the sum's first event, and `copied` on
 * the GPU's from that event (the two agree within a launch's latency). */
#define CURED_TRACE_CHUNKS 4096
typedef struct {
    int lane;                            /* that took it */
    int64_t chunk, bytes;
    double took, waited, staged, queued; /* taken; waited for a free staging buffer (a duration);
                                            copied into it; its GPU work queued */
    double copied;                       /* its copy to the device and first stage (direct: the first
                                            stage alone, which reads it over the bus) ended */
} cured_trace_row;
enum { CURED_TRACE_LANES_START, CURED_TRACE_LANES_END, CURED_TRACE_WAITED, CURED_TRACE_MOMENTS };
typedef struct {
    double at[CURED_TRACE_MOMENTS]; /* the lanes set to work; all of them done queueing; the wait for the GPU over */
} cured_trace_times;
void cured_set_staging_trace(int on);
/* The last traced sum's rows into `rows` (room for CURED_TRACE_CHUNKS), its moments into *times; the
 * number of rows (0 where none, or the sum failed). */
int64_t cured_staging_trace(cured_trace_row *rows, cured_trace_times *times);

/* fetch_min_bytes' default. scripts/probes/axis_results_fetch.py (two H100 hosts, 2026-11-27 02:16
 * and 02:41 UTC, wall time of cured.sum along axis 1, rows of 4 float32, in turns): results of 256
 * KiB 0.166 and 0.167 ms through the lanes against 0.148 and 0.119 by one copy, 1 MiB 0.253 and
 * 0.262 against 0.394 and 0.284, 4 MiB 0.423 and 0.416 against 1.059 and 0.995. */
#define CURED_FETCH_MIN_BYTES ((int64_t)1 << 20)

/* The ramp: where the input is at most this many chunks a lane, its first `lanes` chunks grow, chunk
 * k holding (k + 1) / lanes of a chunk. `scripts/probes/host_ramp.py` (wall time of device="gpu",
 * in turns with and without it, 10 lanes of 4 MiB, 2026-11-24): it saved 0.05 to 0.14 ms a call from
 * 2^20 to 2^25 float32 on an H100's and an H200's host (4% to 25%; 2^24: 0.614 -> 0.659 of the
 * pinned copy on the H100, 0.634 -> 0.673 on the H200) and 1 to 2% at 64 chunks a call (2^26 float32,
 * 6.4 a lane) but for one H100 run at -0.8%; beyond, the H200 read alike (+-0.5%) and the H100 lost:
 * 2^26 float64 (12.8 a lane) 2%, 2^28 float32 (25.6 a lane) 2.7 to 4% in three runs. */
#define CURED_RAMP_MAX_CHUNKS_A_LANE 8

/* How the host path cuts n elements into chunks of at most `chunk` elements (the plan's part) for
 * `lanes` lanes, by `ramp`:
 *   CURED_RAMP_NONE   chunks of `chunk` elements, the last ragged;
 *   CURED_RAMP_START  where the input is at most CURED_RAMP_MAX_CHUNKS_A_LANE chunks a lane, first up
 *                     to `lanes` growing ones, chunk k holding (k + 1) / lanes of `ramp_chunk` (the
 *                     setting's chunk, which the part is shorter than where the input is), in whole
 *                     units, at least one; then as NONE;
 *   CURED_RAMP_BOTH   (the fed kernel, which launches nothing a chunk) the growing chunks at any
 *                     length, and where at least one whole chunk lies between, the last `lanes`
 *                     chunks shrink as the first grow, the last holding 1 / lanes of a chunk (and
 *                     the input's ragged end): one block reads a chunk (4 to 7 GB/s), so the sum
 *                     ended a whole chunk's read after the lanes' last copy.
 * chunk, ramp_chunk and every start are multiples of the unit (cured_unit). */
typedef enum { CURED_RAMP_NONE, CURED_RAMP_START, CURED_RAMP_BOTH } cured_ramp;
typedef struct {
    int64_t n, chunk, chunks;
    int ramp_chunks, tail_chunks;
    int64_t ramp_first[CURED_MAX_LANES + 1]; /* where ramp chunk k starts; [ramp_chunks]: the ramp's end */
    int64_t tail_first[CURED_MAX_LANES + 1]; /* where the tail's chunk j starts; [tail_chunks]: n */
} cured_chunks;
void cured_chunks_make(cured_chunks *c, int64_t n, int64_t chunk, int64_t ramp_chunk, int64_t unit, int lanes,
                       cured_ramp ramp);
/* Chunk k (< c->chunks): elements [*first, *first + *count). The fed kernel asks it too. */
static inline CURED_HOST_DEVICE void cured_chunk_span(const cured_chunks *c, int64_t k, int64_t *first,
                                                      int64_t *count) {
    const int64_t tail = c->chunks - c->tail_chunks;
    if (k < c->ramp_chunks || k >= tail) {
        const int64_t *starts = k < c->ramp_chunks ? c->ramp_first + k : c->tail_first + (k - tail);
        *first = starts[0];
        *count = starts[1] - *first;
        return;
    }
    const int64_t end = c->tail_chunks > 0 ? c->tail_first[0] : c->n;
    *first = c->ramp_first[c->ramp_chunks] + (k - c->ramp_chunks) * c->chunk;
    *count = end - *first < c->chunk ? end - *first : c->chunk;
}

/* The fed mode's way between the lanes and the kernel (staged.c; kernels/v9_one_launch_tiles.cu).
 * Both flags live in mapped pinned memory and carry the sum's `epoch` in their high 32 bits, so
 * that flags of an earlier sum never read as this one's: a lane that has staged chunk k in its
 * buffer s (slot 2 * lane + buffer) stores ready[k] = epoch << 32 | s (CURED_FEED_CANCELLED where
 * the sum failed and chunk k will never come); a block that has read chunk k from slot s stores
 * freed[s] = epoch << 32 | (k + 1), which the lane waits for before it stages another chunk
 * there. The kernel's blocks take chunks in order through a counter in the workspace's header
 * (CURED_TILES_FEED_OFFSET). `stamps`, where a probe traces the sum (staged_trace.c): the GPU's
 * clock (ns) as each chunk was read, and at [chunks.chunks] as the first block began. */
#define CURED_FEED_CANCELLED 0xffffffffu
#define CURED_FEED_BLOCKS 16
typedef struct {
    const void *slot[2 * CURED_MAX_LANES]; /* the staging buffers' device addresses */
    cured_chunks chunks;
    uint64_t *ready, *freed, *stamps;
    uint32_t epoch;
} cured_feed;
typedef cudaError_t (*cured_feed_fn)(const cured_feed *feed, void *out, int64_t n, void *workspace,
                                     cudaStream_t stream);
typedef struct {
    cured_feed_fn fn[CURED_NUM_DTYPES][CURED_NUM_ACCS];
} cured_feed_table;
/* For tests: the epoch the last fed sum used; the next uses epoch + 1 (0xffffffff: the wrap, which
 * clears every flag first). */
void cured_set_feed_epoch(uint32_t epoch);

/* The version's fed kernels, or NULL where it has none (all but V9). */
const cured_feed_table *cured_feed_launchers(const cured_version *v);

/* ---- strided device input -------------------------------------------------------------------- */

#define CURED_MAX_DIMS 32

/* Where the elements of an array lie: element (i0, i1, ...) at byte offset sum(i_d * strides[d]). */
typedef struct {
    int ndim;
    int64_t shape[CURED_MAX_DIMS];
    int64_t strides[CURED_MAX_DIMS]; /* bytes; any sign */
} cured_layout;

/* Copies the elements of host memory `src` (`item` bytes each, laid out as `layout` says) into
 * `dst` in C order, on the pool's threads (cpu_gather.c). */
void cured_cpu_c_order_copy(const void *src, const cured_layout *layout, int item, void *dst);

/* A strided host array read a range of its C order at a time (cpu_gather.c), so that a CPU sum
 * gathers each range into a buffer its cache keeps instead of copying the whole array first. */
#define CURED_STRIDED_MOST_RANGE_BYTES ((int64_t)1 << 20)
struct cured_strided {
    const char *src;
    int item;
    int ndim;                                            /* merged dimensions, at least 1 */
    int64_t shape[CURED_MAX_DIMS], from[CURED_MAX_DIMS]; /* C order; source strides in bytes */
    int tiled;                  /* the source's smallest stride is dimension ndim - 2's: rows transposed */
    int64_t least_range_bytes;  /* ranges read at once should be at least this long (whole rows to transpose) */
    int pass_lines;             /* tiled: the source lines of each source row a pass of the copy reads
                                   (ranges of pass_lines times least_range_bytes hold a pass) */
};

/* Whether the rows a tiled array's ranges hold are multiples of 4 KiB, whose starts all fall in one
 * set of the L1 cache: rows written a few elements at a time across a line's worth of rows evict
 * each other unless a line pads them (cpu_work.c's range buffers), which a GPU's staging buffer
 * cannot (staged.c, module_sum.c's strided_view). */
static inline int cured_strided_rows_alias(const cured_strided *s) {
    return s->tiled && s->shape[s->ndim - 1] * s->item % 4096 == 0;
}

/* Fills *s for `src` laid out as `layout`; returns 1 where ranges read each source line about once
 * (the smallest stride the last dimension's, or the one before it with ranges of at most
 * CURED_STRIDED_MOST_RANGE_BYTES), else 0: copy the array into C order instead. */
int cured_strided_of(const void *src, const cured_layout *layout, int item, cured_strided *s);

/* The source lines a pass of a tiled range's copy may read where `lines` (more than 1) are too many:
 * the next of PASS_LINES, PASS_LEAST_LINES and 1 (cpu_gather.c). */
int cured_strided_fewer_lines(int lines);

/* Copies the elements [first, first + count) of the C order into dst, on the calling thread: those
 * of one row (the last dimension) consecutive, each next row `pitch` bytes after the one before
 * (the row's length times the item: all consecutive). */
void cured_strided_range(const cured_strided *s, int64_t first, int64_t count, void *dst, int64_t pitch);

/* The latest cut of the C order at or before `stop` (a row's start) that splits no source line
 * among ranges of a tiled array, within the line before `stop`; `stop` itself otherwise. Rows of a
 * line read in two ranges are read from memory twice, once a sweep along the rows. */
int64_t cured_strided_line_cut(const cured_strided *s, int64_t stop);

/* `layout` of the array at *data reordered as its elements lie in memory: its dimensions by
 * decreasing stride, negative strides made positive (*data moved to the element first in memory).
 * The same elements in another order, for sums whose order is free (integers): a transposed or
 * Fortran-order array becomes a C-contiguous one (cpu_gather.c). */
void cured_layout_in_memory_order(cured_layout *layout, const void **data);

/* Copies the elements of `src` (item_size bytes each, laid out as `layout` says) into `dst` in C
 * order, on `stream`. The strides and src must be multiples of `unit` bytes (1, 2, 4 or 8), which
 * divides item_size. */
cudaError_t cured_gather(const void *src, void *dst, int item_size, int unit, const cured_layout *layout,
                         cudaStream_t stream);

/* The whole sum of device memory `d_in` (plan->n elements, on the current device) into *result on
 * the host (8 bytes, or V10's state), on `stream` of the current device, which the caller has ordered after the
 * producer's work; waits for it (device_sum.c). With `strided`, d_in is laid out as it says and is
 * first copied into C order on the device (cured_gather, in units of `unit` bytes); with NULL it is
 * C-contiguous and read in place. Fills *timing (h2d and d2h 0: the last kernel writes the result
 * into host memory itself; a strided copy counts as reduction) when not NULL. */
cured_cuda_status cured_device_sum(const cured_plan *plan, const void *d_in, const cured_layout *strided, int unit,
                                   cudaStream_t stream, void *result, cured_timing *timing);

/* The same sum into device memory `d_out` (one element of `out_dtype`: the accumulator's dtype, or
 * one NumPy's astype casts it to), plus *initial (one accumulator on the host; NULL: none), queued
 * on `stream` and not waited for. */
cured_cuda_status cured_device_sum_into(const cured_plan *plan, const void *d_in, const cured_layout *strided,
                                        int unit, cudaStream_t stream, void *d_out, cured_dtype out_dtype,
                                        const void *initial);

/* The floor of a call's wall time: `repeats` times, one minimal kernel that writes one value into
 * pinned host memory, on `stream` of `device` (the current device, ready), and the wait for it;
 * seconds[k] is each one's host time. */
cured_cuda_status cured_floor(int device, int repeats, cudaStream_t stream, double *seconds);

/* kernels/result.cu: n accumulators at acc (device; NULL: n zeros), each plus *initial (one
 * accumulator on the host; NULL: none) in the accumulator's type, cast as NumPy's astype into `out`
 * (device, n elements of `out_dtype`, any alignment); and the floor's kernel, which writes 1.0f
 * into *out. Each returns its launch's error. */
cudaError_t cured_store_results(const void *acc, cured_acc acc_type, int64_t n, const void *initial, void *out,
                                cured_dtype out_dtype, cudaStream_t stream);
cudaError_t cured_launch_floor(void *out, cudaStream_t stream);

/* Benchmark: copies host `in` into enough device buffers to cover at least `min_bytes` (so that
 * rotating among them reads memory, not the L2 cache), runs the plan `warmup` times, then
 * `repeats` times, one buffer after the other, timing each run's device work with CUDA events into
 * seconds[repeats]. Writes the number of buffers to *buffers and the last run's sum to *result. */
cured_cuda_status cured_gpu_bench(const cured_plan *plan, const void *in, int64_t min_bytes, int warmup,
                                  int repeats, double *seconds, int64_t *buffers, void *result);

/* The CPU order model: the same additions in the same order as cured_plan_run for a version, so
 * the same bits; for the EXACT tree, the exact sum (exact_cpu.c) rounded to `result_dtype` as a
 * plan's span says, into `result`. Returns 0, or -1 when memory for the partial sums could not be
 * had or the version's block is larger than CUDA allows. */
int cured_cpu_sum(const cured_version *v, cured_dtype in_dtype, cured_acc acc, cured_dtype result_dtype,
                  const void *in, int64_t n, void *result);

/* V9's order on the CPU at speed (cpu_tiles.c): the bits of cured_cpu_sum for a version of schedule
 * TILES with the WARPS tree (V9), from SIMD chains on the pool's threads (pool.h); another version
 * gets cured_cpu_sum itself. Returns 0, or -1 when memory for the tiles' partials could not be had. */
int cured_cpu_tiles_sum(const cured_version *v, cured_dtype in_dtype, cured_acc acc, const void *in, int64_t n,
                        void *out);

/* cured_cpu_tiles_sum's bits for V9 (only) over the strided host array `in` of n elements
 * (cured_strided_of returned 1), each range of its C order gathered into a buffer that the cache
 * keeps, then summed; for an integer accumulator, whose order is free, `in` may describe the
 * elements in memory order (cured_layout_in_memory_order). Returns 0, or -1 when memory could not
 * be had (or the version is not V9). */
int cured_cpu_tiles_sum_strided(const cured_version *v, cured_dtype in_dtype, cured_acc acc, const cured_strided *in,
                                int64_t n, void *out);

/* For tests: cured_cpu_tiles_sum on this many threads (0: as many as the input's size warrants, up
 * to the CPUs), with `plain`, the portable C chains instead of the CPU's SIMD ones, and a strided
 * input gathered in ranges of about `range_bytes` (0: as its size and rows ask), so that small
 * arrays take the paths of large ones; with `gather`, V9's sums of every element gather each strided
 * float input, reading none where it lies (to set those reads against the gather). The CPU sum
 * along axes (cpu_axis.c) takes the same number of threads. */
void cured_set_cpu_tiles(int threads, int plain, int64_t range_bytes, int gather);

/* The threads a CPU sum over `bytes` of input takes (cpu_work.c): 1 below 2 MiB (waking the pool
 * costs more), then one a 256 KiB up to the CPUs, or what cured_set_cpu_tiles forced. */
int cured_cpu_threads_for(int64_t bytes);

/* The bytes cured_cpu_threads_for is given for `elements` elements of `item` bytes: 1- and 2-byte
 * elements count as 4, since a thread's time on them goes by elements (each is widened or
 * converted), not by bytes. On the H100 machine's 16-CPU host (2026-11-27 14:00 UTC,
 * scripts/probes/cpu_threads.py, wall time), the threads this picks against the one thread that
 * counting bytes picked: 2^20 int8 46.9 us against 105.9, int16 47.3 against 99.6, float16 51.3
 * against 134.8, 2^19 float16 44.6 against 66.2; within 7% of the best thread count from 2^12 to
 * 2^22 but at 2^18 int8 (49.1 against 45.8 on four threads). */
static inline int64_t cured_cpu_work_bytes(int64_t elements, int item) { return elements * (item < 4 ? 4 : item); }

/* `rows` consecutive rows of `length` integer or bool elements of `dtype` at `in`, each row's sum
 * modulo 2^64 (every order's bits: the integer accumulators' order is free) into out[r]
 * (cpu_integers.c). */
void cured_cpu_integer_rows(cured_dtype dtype, const void *in, int64_t rows, int64_t length, uint64_t *out);

/* The sum of `n` integer or bool elements of `dtype` at `in` (or, with `in` NULL, of the strided
 * host array `strided`) modulo 2^(8 * lane_bytes) (8: modulo 2^64, an integer accumulator's sum; 1,
 * 2 or 4: cured_cpu_wrapped_sum's lanes) into *sum, on `threads` of the pool (cpu_integers.c).
 * Returns 0, or -1 when memory could not be had (a strided input's buffers). */
int cured_cpu_integer_sum(cured_dtype dtype, int lane_bytes, const void *in, const cured_strided *strided, int64_t n,
                          int threads, uint64_t *sum);

/* The sum of `n` integer or bool elements of `dtype` at `in` (or, with `in` NULL, of the strided
 * host array `strided`) modulo 2^(8 * result_bytes), for a result of 1, 2 or 4 bytes (dtype=int8 to
 * uint32, which NumPy sums in, wrapping), in lanes of that width on the pool's threads
 * (cpu_integers.c), into *sum, of which only the low 8 * result_bytes bits count. Returns 0, or -1
 * when memory could not be had (a strided input's buffers). */
int cured_cpu_wrapped_sum(cured_dtype dtype, int result_bytes, const void *in, const cured_strided *strided, int64_t n,
                          uint64_t *sum);

/* Device set-up shared by every GPU entry point, done once a device and process: checks that a
 * device is there and gives the current device's memory pool a release threshold that keeps freed
 * memory cached between calls. Writes the current device into *device (unless NULL). */
cured_cuda_status cured_device_ready(int *device);

/* A device's theoretical memory bandwidth in bytes a second, from its memory clock and bus width
 * (double data rate: two transfers a clock); what device_info reports and the axis kernels read. */
cudaError_t cured_memory_peak_bandwidth(int device, int64_t *bytes_per_s);

#ifdef __cplusplus
}
#endif
#endif
