/* axis.h: the order of a sum along axes (numpy.sum's axis=), shared by the GPU kernels
 * (kernels/v9_axis.cu), their host driver (axis.c) and the CPU order model (cpu_model_axis.h).
 * C11 and CUDA C++ at once.
 *
 * Folding. A C-contiguous array whose axes are each kept or reduced is first simplified: axes of
 * extent 1 are dropped, and neighbours that are both kept or both reduced are merged (in C order
 * they are one axis). What is left alternates kept and reduced extents. The innermost reduced
 * extent R, with O the product of the extents before it and I of those after, is one step: the
 * array read as (O, R, I) becomes (O, I). Its neighbours, both kept, merge, and the next step
 * takes the next reduced extent, until none is left. Everything here follows from the shape and
 * the dtype alone, so the same input gives the same bits on every GPU, under any grid, and on the
 * CPU.
 *
 * A step, in the order its additions are made (cured_axis_step_of says how each part is chosen):
 *  - Rows (I == 1: each output sums R consecutive elements). A row is cut into chunks of one
 *    16-byte vector (V elements; the last may be short), and into segments. A segment is summed by
 *    G lanes: lane g adds, from 0, chunks g, g + G, g + 2G, ... of the segment, each chunk's
 *    elements in order; then the G lanes' sums are added in the SEQUENTIAL tree (offsets G/2, ...,
 *    1: lane l adds lane l + offset). A row of fewer than 1024 chunks (16 KiB) has G the least
 *    power of two that is at least its chunks, but at most 32 (a warp), and is one segment: a row
 *    of up to 32 chunks has one chunk a lane, and the lanes of a warp read consecutive chunks of
 *    consecutive rows; a longer one has up to 32 chunks a lane. A row of 1024
 *    chunks or more has G = 256 (a block) and segments of 4096 chunks (64 KiB), 16 chunks a lane,
 *    except that a row of up to 8192 chunks is one segment (4 to 32 chunks a lane): each of the
 *    block's loads covers 4 KiB, as V9's do. Why a block: blocks that each read one 32 to 64 KiB
 *    stretch, in launch order, read 1.2 to 2.1% faster than warps that each read their own
 *    (scripts/probes/row_walks.py, NVIDIA H200, 2026-11-24 06:45 UTC, 1 GiB: float32 / float64
 *    blocks of 32 KiB 1.016 / 1.021 of V9's time, of 64 KiB 1.013 / 1.021, warps of 4 to 32 KiB
 *    0.991 to 1.007, CuPy's row sums of (2^14, 2^14) / (2^13, 2^14) 1.014 / 1.017, this kernel
 *    with warps 0.989 / 0.994; at 06:58 with blocks 1.013 / 1.006). Shorter warp segments did not
 *    help (06:45, warp segments of 1024, 512 and 256 chunks on rows of 64 KiB to 64 MiB: up to
 *    3.6% slower, at best 0.2% faster). Why 4096 chunks, and one segment up to 8192: block
 *    segments of 2048, 4096 and 8192 chunks in turns (07:01, two runs, against V9 flat): rows of
 *    64 KiB and 32 KiB read alike with 4096 and 8192 (1.012 to 1.015), rows of 128 KiB 0.999 to
 *    1.009 in two segments and 1.005 to 1.011 in one (the step over the segments' sums costs
 *    about 1%), rows of 4 and 64 MiB 0.2 to 0.4% slower with 8192 than with 4096. Why from 16 KiB:
 *    rows of 16 KiB (1024 chunks) as block rows against warp rows, in turns (H100 07:24, H200 07:26
 *    UTC): (2^15, 4096) float32 176.7 -> 171.7 us on the H100 (CuPy 172.6), 120.6 -> 119.0 on the
 *    H200 (CuPy 118.7), (2^14, 2048) float64 91.2 -> 88.2 (88.6) and 63.6 -> 62.6 (62.4); rows of
 *    8 KiB as block rows (2 chunks a lane) were 15% (H100) and 63% (H200) slower.
 *  - Columns (I > 1: each output sums R elements I apart). The columns are cut into chunks of V
 *    (one vector across; the last may be short). A segment of Sr consecutive rows is summed by P
 *    strands: strand p adds, from 0, rows p, p + P, p + 2P, ... of the segment, into one sum a
 *    column; then the P strands' sums are added in the SEQUENTIAL tree. P > 1 only where the
 *    chunks across a row are fewer than 32, so that a warp holds P strands of one segment; Sr is
 *    the largest power of two from 4096 down to 64 that still leaves 2^16 (strand, chunk) pairs,
 *    and where rows are at most 1 KiB and R > Sr, 33/32 of it (4096 -> 4224, ..., 64 -> 66).
 *    Why 2^16 pairs: 256 blocks of 256 threads keep 8 MiB of loads in flight, which the H200's
 *    memory needs, and fewer, longer segments write fewer segments' sums and need fewer steps
 *    after them. Why 33/32: a unit of narrow rows reads at most 8 KiB a round of loads, and
 *    thousands of units read in step; with segments a power of two of rows apart they all stand at
 *    the same offset modulo a power of two of bytes and crowd the same DRAM channels; 1/32 of a
 *    segment more moves each unit's start against the last. 33/32 and not 31/32: it leaves at most
 *    2^17 x 32/33 threads (497 blocks), under the 528 that 132 SMs hold at once, where 31/32 of
 *    4096-row segments left 529 and a second wave of one block.
 *    Device time against V9 on the same bytes, NVIDIA H200, 2026-11-24 (scripts/probes/
 *    axis_grid_ab.py, each rule in its own process beside V9), before: power-of-two segments and
 *    2^18 pairs, (2^24, 16) float32 along 0 0.866 at 02:51 UTC (its columns' kernel 254.1 us, V9's
 *    233.3; 235.4 with 1984-row segments); at 03:14 with 2^18 pairs and 31/32 / 2^16 and 33/32:
 *    (2^24, 16) float32 along 0 0.943 / 0.950, float64 0.970 / 0.971; (2^20, 256) float32 0.931 /
 *    0.947; (2^21, 128) float32 0.931 / 0.941; (512, 512, 512) float32 along 1 0.955 / 1.003 (one
 *    segment, no second step), float64 0.975 / 1.003; (2^14, 2^14) float32 along 0 0.954 / 0.979.
 * A step of more than one segment writes the segments' sums, (O, segments, I), which the next
 * step sums as columns (or rows when I == 1), in the accumulator's type, until one segment is
 * left. */
#ifndef CURED_AXIS_H
#define CURED_AXIS_H

#include <stdint.h>

#include "cured.h"

#ifdef __CUDACC__
#define CURED_AXIS_HD __host__ __device__
#else
#define CURED_AXIS_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One (O, R, I) read of a C-contiguous array and the order of its additions (above). */
typedef struct {
    int64_t outer, reduced, inner; /* O, R, I; each >= 1 */
    int vector;                    /* V: elements in one 16-byte chunk of the step's input dtype */
    int64_t chunks;                /* rows: chunks a row, ceil(R / V); columns: chunks across, ceil(I / V) */
    int lanes;                     /* rows: G, lanes a segment; columns: threads a strand (chunks when one strand) */
    int strands;                   /* columns: P; rows: 1 */
    int64_t segment;               /* rows: chunks a segment; columns: rows a segment (Sr) */
    int64_t segments;              /* segments a row (rows) or a column (columns) */
} cured_axis_step;

#define CURED_AXIS_ROW_LANES 32          /* lanes a segment of a row shorter than a block row: a warp at most */
#define CURED_AXIS_BLOCK_ROW_CHUNKS 1024 /* rows of this many chunks or more are block rows: */
#define CURED_AXIS_BLOCK_ROW_LANES 256   /* lanes a segment of a block row, a block of threads */
#define CURED_AXIS_BLOCK_ROW_SEGMENT 4096 /* chunks a segment of a longer block row: 16 a lane */
#define CURED_AXIS_MAX_LANES CURED_AXIS_BLOCK_ROW_LANES /* the most lanes any row segment has */
#define CURED_AXIS_COLUMN_PAIRS (1 << 16) /* (strand, chunk) pairs a column step leaves at least */
#define CURED_AXIS_NARROW_ROW_BYTES 1024  /* columns of rows this wide or less: segments of 33/32 */

static inline CURED_AXIS_HD int64_t cured_axis_pow2_at_least(int64_t x) {
    int64_t p = 1;
    while (p < x) p *= 2;
    return p;
}

static inline CURED_AXIS_HD cured_axis_step cured_axis_step_of(int64_t outer, int64_t reduced, int64_t inner,
                                                               int item_size) {
    cured_axis_step s;
    s.outer = outer;
    s.reduced = reduced;
    s.inner = inner;
    s.vector = CURED_VECTOR_BYTES / item_size;
    s.strands = 1;
    if (inner == 1) {
        s.chunks = (reduced + s.vector - 1) / s.vector;
        if (s.chunks >= CURED_AXIS_BLOCK_ROW_CHUNKS) {
            s.lanes = CURED_AXIS_BLOCK_ROW_LANES;
            s.segment = s.chunks <= 2 * CURED_AXIS_BLOCK_ROW_SEGMENT ? s.chunks : CURED_AXIS_BLOCK_ROW_SEGMENT;
        } else {
            s.lanes = (int)cured_axis_pow2_at_least(s.chunks < CURED_AXIS_ROW_LANES ? s.chunks : CURED_AXIS_ROW_LANES);
            s.segment = s.chunks; /* the whole row */
        }
    } else {
        s.chunks = (inner + s.vector - 1) / s.vector;
        if (s.chunks < 32) {
            const int lanes = (int)cured_axis_pow2_at_least(s.chunks);
            s.strands = 32 / lanes;
            s.lanes = lanes;
        } else {
            s.lanes = (int)s.chunks; /* one strand: a thread a chunk, no shuffles */
        }
        /* Doubles: outer x chunks may exceed 2^63 only for arrays no memory holds, but stay safe. */
        const double pairs_a_segment = (double)outer * (double)s.chunks * (double)s.strands;
        s.segment = 4096;
        while (s.segment > 64 && pairs_a_segment * (double)((reduced + s.segment - 1) / s.segment) <
                                     (double)CURED_AXIS_COLUMN_PAIRS)
            s.segment /= 2;
        if (inner * item_size <= CURED_AXIS_NARROW_ROW_BYTES && reduced > s.segment) s.segment += s.segment / 32;
    }
    /* Rows cut their chunks into segments, columns their rows. */
    const int64_t cut = inner == 1 ? s.chunks : reduced;
    s.segments = (cut + s.segment - 1) / s.segment;
    return s;
}

/* Rows: the chunks a lane adds at most, rounded up to a power of two (1 to 32; 4 to 32 in block rows). */
static inline CURED_AXIS_HD int cured_axis_lane_chunks(const cured_axis_step *s) {
    const int64_t segment = s->chunks < s->segment ? s->chunks : s->segment;
    return (int)cured_axis_pow2_at_least((segment + s->lanes - 1) / s->lanes);
}

/* The folded shape: `steps` (O, R, I) reads, innermost reduced extent first. With no reduced
 * extent left after dropping extents of 1, one step of R = 1 (a conversion into the accumulator). */
typedef struct {
    int steps;
    int64_t outer[CURED_MAX_DIMS], reduced[CURED_MAX_DIMS], inner[CURED_MAX_DIMS];
    int64_t results; /* elements of the result: the product of the kept extents */
} cured_axis_fold;

/* Folds `shape` (ndim extents, each >= 1) where reduce[d] says axis d is reduced. */
void cured_axis_fold_of(const int64_t *shape, const int *reduce, int ndim, cured_axis_fold *fold);

/* Every launch a fold makes, in order (axis.c): each (O, R, I) step and, while one leaves several
 * segments, the step over the segments' sums, (O, segments, I) in the accumulator. The first reads
 * the input (items of in_item bytes), the others accumulators (acc_item bytes); each but the last
 * writes O x segments x I accumulators for the next. Returns how many, at most
 * CURED_AXIS_MAX_LAUNCHES (each level of segments divides R by 64 or more: 12 levels a step). */
#define CURED_AXIS_MAX_LAUNCHES (CURED_MAX_DIMS * 12)
int cured_axis_launches_of(const cured_axis_fold *fold, int in_item, int acc_item, cured_axis_step *launches);

/* The GPU sum along axes (axis.c): d_in (device, C order, fold's input of in_dtype) into d_out (device,
 * fold->results values of out_dtype, C order of the kept axes), on `stream`, with the intermediate
 * sums in memory from the stream-ordered pool. out_dtype is the accumulator's dtype, or float16 for a
 * float32 accumulator (each sum rounded once, as NumPy's astype). Not waited for. */
cured_cuda_status cured_axis_sum(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *d_in,
                                 void *d_out, cured_dtype out_dtype, cudaStream_t stream);

/* Whether the fold is one step of rows (each result the sum of consecutive elements), which CUB's
 * segmented reduction, the reference, sums too. */
static inline int cured_axis_is_rows(const cured_axis_fold *fold) {
    return fold->steps == 1 && fold->inner[0] == 1;
}

/* CUB's DeviceSegmentedReduce over the rows of a fold that is rows (cured_axis_is_rows), with
 * NumPy's default accumulator for in_dtype, into d_out (fold->results accumulators), on `stream`,
 * its temporary storage from the stream-ordered pool. Not waited for. */
cured_cuda_status cured_axis_cub_rows(const cured_axis_fold *fold, cured_dtype in_dtype, const void *d_in, void *d_out,
                                      cudaStream_t stream);

/* The same additions on the CPU (cpu_model.c): out receives fold->results accumulators. Returns 0,
 * or -1 when memory for the intermediate sums could not be had. */
int cured_cpu_axis_sum(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *in, void *out);

/* The same bits at speed (cpu_axis.c): rows added into blocks of columns' sums, no dtype switch an
 * element, the pool's threads. Returns 0, or -1 when memory for the intermediate sums could not be had. */
int cured_cpu_axis_sum_fast(const cured_axis_fold *fold, cured_dtype in_dtype, cured_acc acc, const void *in,
                            void *out);

/* Whether cured_cpu_rows_across takes `rows` rows of `length` elements of `dtype`: float32 or
 * float64, rows and elements there (an empty array is the general path's), and each row one
 * segment of fewer than CURED_AXIS_BLOCK_ROW_CHUNKS chunks. */
static inline int cured_axis_rows_across_fits(cured_dtype dtype, int64_t rows, int64_t length) {
    if ((dtype != CURED_FLOAT32 && dtype != CURED_FLOAT64) || rows < 1 || length < 1) return 0;
    const cured_axis_step step = cured_axis_step_of(rows, length, 1, cured_dtype_size(dtype));
    return step.segments == 1 && step.chunks < CURED_AXIS_BLOCK_ROW_CHUNKS;
}

/* The row sums of `rows` rows one element apart, each of `length` elements `along` bytes apart (a
 * transposed or Fortran-order matrix along its last axis), where cured_axis_rows_across_fits, in
 * the accumulator of the input's type, into out[rows], read in place (cpu_axis.c): the bits of the
 * fold (rows, length) of its C-order copy. */
void cured_cpu_rows_across(cured_dtype dtype, const void *in, int64_t rows, int64_t length, int64_t along, void *out);

/* kernels/v9_axis.cu: one step's launch, reading `in` (step's input dtype) into `out` (out_dtype: the
 * accumulator's, or float16 from a float32 accumulator). With after_previous, the launch may overlap
 * the end of the kernel before it in `stream`, which must be another step's (programmatic dependent
 * launch, where the GPU has it). */
cudaError_t cured_axis_launch(const cured_axis_step *step, cured_dtype in_dtype, cured_acc acc, cured_dtype out_dtype,
                              const void *in, void *out, int after_previous, cudaStream_t stream);

/* kernels/v10_axis.cu: V10 along axes. Each of `rows` rows of `length` (>= 1) consecutive elements
 * of in_dtype at d_in summed exactly and rounded once into `result` (float16, float32 or float64),
 * into out[row] in the accumulator cured_exact_rows_acc(result) (which holds it exactly), on
 * `stream`, using `workspace` (device, cured_exact_rows_workspace bytes, none needed where it is 0).
 * Not waited for. */
size_t cured_exact_rows_workspace(int64_t rows, int64_t length);
cudaError_t cured_exact_rows(cured_dtype in_dtype, const void *in, int64_t rows, int64_t length, cured_dtype result,
                             void *out, void *workspace, cudaStream_t stream);

/* float32 for float16 and float32 results, float64 for float64: half the bytes a double took to
 * bring each float32 output back to the host. */
static inline cured_acc cured_exact_rows_acc(cured_dtype result) {
    return result == CURED_FLOAT64 ? CURED_ACC_FLOAT64 : CURED_ACC_FLOAT32;
}

#ifdef __cplusplus
}
#endif
#endif
