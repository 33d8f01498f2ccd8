/* cpu_gather.c: a strided host array's elements copied into C order, on the pool's threads, so that
 * a non-contiguous host input is summed in the order of its C-order copy (as a device array is,
 * kernels/gather.cu) without NumPy's copy.
 *
 * NumPy's copy into C order (PyArray_FromArray) walks the copy in C order on one thread; where the
 * copy's last dimension is not the source's contiguous one (a transpose, a Fortran-order array),
 * each element of a copied row comes from another page. Build machine, 2026-11-27 17:40 UTC,
 * (2048, 1024) float32 in Fortran order: NumPy's copy 7.0 ms where numpy.sum, which reads it in
 * memory order, took 0.39 ms; the copy of its transpose 11.0 ms. Here the dimensions are first
 * merged where their strides allow and those of extent 1 dropped; then, where the source's smallest
 * stride is not the last dimension's, that dimension and the last are copied in tiles of a cache
 * line of the source by as many of the copy's elements (4- and 8-byte elements by AVX2 register
 * transposes of 8 x 8 and 4 x 4), so that each source line and each page is visited once a tile
 * rather than once an element; otherwise rows (cut into pieces, so that a 1-D view is shared among
 * threads too) are copied element by element along the last dimension, a reversed one by a loop
 * the compiler vectorises. The elements' order in the copy is NumPy's; the strides may have any
 * sign.
 *
 * Evidence (wall time of cured.sum(device="cpu") against numpy.sum, in turns,
 * scripts/probes/host_layouts.py, 2026-11-27): on the H100's 16-CPU host at 17:58 UTC, the
 * transpose of (2048, 1024) float32 whole 492 us (numpy.sum 911; with NumPy's copy it had been 25
 * times slower than numpy.sum on the build machine), along 0 572 (893), Fortran order whole / along
 * 0 / along 1 601 / 470 / 348 (692 / 798 / 517), float64 (1024, 1024).T 436 (541), 2^22 float32
 * [::-1] 366 (1748), [::2] 244 (1019); but (256, 256) float32 .T 32 us (19.6), along 1 41 (17.7):
 * the copy writes and the sum re-reads what numpy.sum reads once, and below 2 MiB one thread does
 * both. On the 2-CPU build machine the large cases run at 0.3 to 0.4 of numpy.sum's speed (the
 * transpose 1.07 to 1.26 ms against 0.35 to 0.39; 11.4 ms with NumPy's copy). A sum that gathered
 * each tile's elements itself, with no copy, would read them once. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cured.h"
#include "pool.h"

#define LINE_BYTES 64
#define PIECE_ELEMENTS ((int64_t)1 << 14) /* a unit of work in rows: at most this many elements */

typedef struct {
    const char *src;
    char *dst;
    int item;
    /* The outer dimensions, in C order: their extents, source strides and copy strides (bytes). */
    int outer;
    int64_t shape[CURED_MAX_DIMS], from[CURED_MAX_DIMS], to[CURED_MAX_DIMS];
    /* The copied dimension(s): rows along `last` (tiled 0), or tiles of `across` by `last`. */
    int tiled;
    int64_t last, last_from;                   /* extent, source stride; the copy's stride is item */
    int64_t across, across_from, across_to;    /* tiled: the source's contiguous dimension */
    int64_t pieces;                            /* units an outer index: row pieces, or tile rows */
    int64_t units, per_task;
} gather_job;

/* Copies `count` elements `from` bytes apart at src into consecutive elements at dst. */
static void copy_row(char *dst, const char *src, int64_t count, int64_t from, int item) {
#define COPY_ROW(T)                                                                                \
    do {                                                                                           \
        T *d = (T *)dst;                                                                           \
        if (from == -(int64_t)sizeof(T)) { /* reversed: a loop the compiler vectorises */         \
            const T *s = (const T *)src;                                                           \
            for (int64_t j = 0; j < count; ++j) d[j] = s[-j];                                      \
        } else                                                                                     \
            for (int64_t j = 0; j < count; ++j) memcpy(d + j, src + j * from, sizeof(T));        \
    } while (0)
    if (from == item) {
        memcpy(dst, src, (size_t)(count * item));
        return;
    }
    switch (item) {
    case 1: COPY_ROW(uint8_t); break;
    case 2: COPY_ROW(uint16_t); break;
    case 4: COPY_ROW(uint32_t); break;
    default: COPY_ROW(uint64_t); break;
    }
#undef COPY_ROW
}

static void copy_tile_rows_scalar(char *dst, const char *src, int64_t rows, const gather_job *job);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CURED_GATHER_AVX2 1

/* 8 x 8 elements of 4 bytes: row k of the source block (8 consecutive elements along `across`, at
 * src + k * from) becomes column k of the copy's block (row i at dst + i * to). In-register
 * shuffles move bits, so any 4-byte type (NaN payloads included) comes through. */
__attribute__((target("avx2"))) static inline void transpose_8x8(char *dst, int64_t to, const char *src, int64_t from) {
    __m256 r[8], t[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps((const float *)(src + k * from));
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
        r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int k = 0; k < 4; ++k) {
        _mm256_storeu_ps((float *)(dst + k * to), _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
        _mm256_storeu_ps((float *)(dst + (k + 4) * to), _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
    }
}

/* 4 x 4 elements of 8 bytes, as transpose_8x8. */
__attribute__((target("avx2"))) static inline void transpose_4x4(char *dst, int64_t to, const char *src, int64_t from) {
    __m256d r[4], t[4];
    for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd((const double *)(src + k * from));
    t[0] = _mm256_unpacklo_pd(r[0], r[1]);
    t[1] = _mm256_unpackhi_pd(r[0], r[1]);
    t[2] = _mm256_unpacklo_pd(r[2], r[3]);
    t[3] = _mm256_unpackhi_pd(r[2], r[3]);
    _mm256_storeu_pd((double *)dst, _mm256_permute2f128_pd(t[0], t[2], 0x20));
    _mm256_storeu_pd((double *)(dst + to), _mm256_permute2f128_pd(t[1], t[3], 0x20));
    _mm256_storeu_pd((double *)(dst + 2 * to), _mm256_permute2f128_pd(t[0], t[2], 0x31));
    _mm256_storeu_pd((double *)(dst + 3 * to), _mm256_permute2f128_pd(t[1], t[3], 0x31));
}

/* copy_tile_rows for 4- and 8-byte elements contiguous along `across`: whole blocks of 8 x 8 (4 x
 * 4) transposed in registers. Returns the rows it copied (`rows` rounded down to the block) and in
 * *last_done the elements of each it copied (`last` rounded down); the rest is the caller's.
 * Along `last` outermost, so that the source lines a block reads are used whole (by the blocks
 * below it) before the next ones: with the rows outermost, a power-of-two source stride put the
 * lines of a row of blocks into two L1 sets, which evicted them before the second block read them.
 * Build machine, 2026-11-27 19:24 UTC, rows outermost -> last outermost: the copy of (512, 512)
 * float32 .T 85 -> 57 us, the sum of (2048, 1024) float32 .T 1226 -> 783 us, (1024, 1024)
 * float64 .T 1216 -> 679 (scripts/probes/host_layouts.py). */
__attribute__((target("avx2"))) static int64_t tile_blocks_avx2(char *dst, const char *src, int64_t rows,
                                                                  const gather_job *job, int64_t *last_done) {
    const int64_t b = job->item == 4 ? 8 : 4;
    const int64_t whole_rows = rows / b * b, whole_last = job->last / b * b;
    for (int64_t j = 0; j < whole_last; j += b)
        for (int64_t i = 0; i < whole_rows; i += b) {
            char *d = dst + i * job->across_to + j * job->item;
            const char *s = src + j * job->last_from + i * job->item;
            if (b == 8) transpose_8x8(d, job->across_to, s, job->last_from);
            else transpose_4x4(d, job->across_to, s, job->last_from);
        }
    *last_done = whole_last;
    return whole_rows;
}
#endif

static _Atomic int use_avx2 = -1; /* unknown until the first copy: 0 or 1 */

/* Rows i in [0, rows) of a tile: element (i, j) from src + i * across_from + j * last_from to
 * dst + i * across_to + j * item, j in [0, last), in blocks of a line's elements along j. */
static void copy_tile_rows(char *dst, const char *src, int64_t rows, const gather_job *job) {
#ifdef CURED_GATHER_AVX2
    if (use_avx2 && (job->item == 4 || job->item == 8) && job->across_from == job->item) {
        int64_t last_done;
        const int64_t rows_done = tile_blocks_avx2(dst, src, rows, job, &last_done);
        if (last_done < job->last) { /* the columns past the last whole block, for the blocks' rows */
            gather_job rest = *job;
            rest.last = job->last - last_done;
            const int64_t skip_src = last_done * job->last_from, skip_dst = last_done * job->item;
            copy_tile_rows_scalar(dst + skip_dst, src + skip_src, rows_done, &rest);
        }
        copy_tile_rows_scalar(dst + rows_done * job->across_to, src + rows_done * job->across_from, rows - rows_done, job);
        return;
    }
#endif
    copy_tile_rows_scalar(dst, src, rows, job);
}

/* copy_tile_rows element by element. */
static void copy_tile_rows_scalar(char *dst, const char *src, int64_t rows, const gather_job *job) {
#define COPY_TILE(T)                                                                               \
    do {                                                                                           \
        for (int64_t j0 = 0; j0 < job->last; j0 += LINE_BYTES / (int64_t)sizeof(T)) {             \
            const int64_t j1 = j0 + LINE_BYTES / (int64_t)sizeof(T) < job->last ? j0 + LINE_BYTES / (int64_t)sizeof(T) : job->last; \
            for (int64_t i = 0; i < rows; ++i) {                                                   \
                T *d = (T *)(dst + i * job->across_to);                                           \
                const char *s = src + i * job->across_from;                                        \
                for (int64_t j = j0; j < j1; ++j) memcpy(d + j, s + j * job->last_from, sizeof(T)); \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    switch (job->item) {
    case 1: COPY_TILE(uint8_t); break;
    case 2: COPY_TILE(uint16_t); break;
    case 4: COPY_TILE(uint32_t); break;
    default: COPY_TILE(uint64_t); break;
    }
#undef COPY_TILE
}

static void gather_task(void *context, int64_t task) {
    const gather_job *job = (const gather_job *)context;
    int64_t unit = task * job->per_task;
    const int64_t end = unit + job->per_task < job->units ? unit + job->per_task : job->units;
    if (unit >= end) return;
    /* The first unit's outer index, then each next one by carrying, as an odometer. */
    int64_t index[CURED_MAX_DIMS], outer = unit / job->pieces, piece = unit % job->pieces;
    const char *src = job->src;
    char *dst = job->dst;
    for (int d = job->outer - 1; d >= 0; --d) {
        index[d] = outer % job->shape[d];
        outer /= job->shape[d];
        src += index[d] * job->from[d];
        dst += index[d] * job->to[d];
    }
    const int64_t rows_a_piece = job->tiled ? LINE_BYTES / job->item : PIECE_ELEMENTS;
    for (; unit < end; ++unit) {
        const int64_t first = piece * rows_a_piece;
        if (job->tiled) {
            const int64_t rows = job->across - first < rows_a_piece ? job->across - first : rows_a_piece;
            copy_tile_rows(dst + first * job->across_to, src + first * job->across_from, rows, job);
        } else {
            const int64_t count = job->last - first < rows_a_piece ? job->last - first : rows_a_piece;
            copy_row(dst + first * job->item, src + first * job->last_from, count, job->last_from, job->item);
        }
        if (++piece < job->pieces) continue;
        piece = 0;
        for (int d = job->outer - 1; d >= 0; --d) {
            src += job->from[d];
            dst += job->to[d];
            if (++index[d] < job->shape[d]) break;
            src -= index[d] * job->from[d];
            dst -= index[d] * job->to[d];
            index[d] = 0;
        }
    }
}

static int64_t magnitude(int64_t stride) { return stride < 0 ? -stride : stride; }

void cured_cpu_c_order_copy(const void *src, const cured_layout *layout, int item, void *dst) {
    if (use_avx2 < 0) {
#ifdef CURED_GATHER_AVX2
        __builtin_cpu_init();
        use_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#else
        use_avx2 = 0;
#endif
    }
    /* The copy's strides, then the dimensions merged (extent 1 dropped; d into d + 1 where the
     * source steps over d + 1 whole, as the copy does). */
    int64_t shape[CURED_MAX_DIMS], from[CURED_MAX_DIMS], to[CURED_MAX_DIMS], n = 1;
    int ndim = 0;
    for (int d = 0; d < layout->ndim; ++d) n *= layout->shape[d];
    if (n == 0) return;
    int64_t step = item;
    for (int d = layout->ndim - 1; d >= 0; --d) {
        if (layout->shape[d] == 1) continue;
        if (ndim > 0 && layout->strides[d] == from[0] * shape[0]) { /* merges into the one after it */
            shape[0] *= layout->shape[d];
            step *= layout->shape[d];
            continue;
        }
        memmove(shape + 1, shape, sizeof(int64_t) * (size_t)ndim);
        memmove(from + 1, from, sizeof(int64_t) * (size_t)ndim);
        memmove(to + 1, to, sizeof(int64_t) * (size_t)ndim);
        shape[0] = layout->shape[d], from[0] = layout->strides[d], to[0] = step;
        step *= layout->shape[d];
        ++ndim;
    }
    if (ndim == 0) { /* one element */
        memcpy(dst, src, (size_t)item);
        return;
    }
    gather_job job;
    memset(&job, 0, sizeof job);
    job.src = (const char *)src, job.dst = (char *)dst, job.item = item;
    const int last = ndim - 1;
    job.last = shape[last], job.last_from = from[last];
    int across = -1; /* the dimension of the smallest source stride, where it is not the last */
    for (int d = 0; d < last; ++d)
        if (magnitude(from[d]) < magnitude(from[across < 0 ? last : across])) across = d;
    job.tiled = across >= 0;
    if (job.tiled) {
        job.across = shape[across], job.across_from = from[across], job.across_to = to[across];
        job.pieces = (job.across + LINE_BYTES / item - 1) / (LINE_BYTES / item);
    } else {
        job.pieces = (job.last + PIECE_ELEMENTS - 1) / PIECE_ELEMENTS;
    }
    for (int d = 0; d < last; ++d) {
        if (d == across) continue;
        job.shape[job.outer] = shape[d], job.from[job.outer] = from[d], job.to[job.outer] = to[d];
        ++job.outer;
    }
    job.units = job.pieces;
    for (int d = 0; d < job.outer; ++d) job.units *= job.shape[d];
    const int threads = cured_cpu_threads_for(n * item);
    const int64_t tasks = threads > 1 ? (int64_t)threads * 8 : 1; /* as cpu_tiles.c's TASKS_A_THREAD */
    job.per_task = (job.units + tasks - 1) / tasks;
    cured_pool_run((job.units + job.per_task - 1) / job.per_task, threads, gather_task, &job);
}
