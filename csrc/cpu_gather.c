/* cpu_gather.c: a strided host array's elements in C order, on the host: copied whole on the pool's
 * threads (cured_cpu_c_order_copy: for the GPU path and the sums along axes), or a range of the C
 * order at a time into a buffer (cured_strided_range: the CPU's whole sums, cpu_work.c's ranges), so
 * that a non-contiguous host input is summed in the order of its C-order copy (as a device array
 * is, kernels/gather.cu) without NumPy's copy.
 *
 * NumPy's copy into C order (PyArray_FromArray) walks the copy in C order on one thread; where the
 * copy's last dimension is not the source's contiguous one (a transpose, a Fortran-order array),
 * each element of a copied row comes from another page. Build machine, 2026-11-27 17:40 UTC,
 * (2048, 1024) float32 in Fortran order: NumPy's copy 7.0 ms where numpy.sum, which reads it in
 * memory order, took 0.39 ms; the copy of its transpose 11.0 ms. Here the dimensions are first
 * merged where their strides allow and those of extent 1 dropped; then, where the source's smallest
 * stride is not the last dimension's, that dimension and the last are copied in tiles of a cache
 * line of the source by as many of the copy's elements (4- and 8-byte elements by AVX2 register
 * transposes of 8 x 8 and 4 x 4, rows grouped from the source's line boundaries), so that each
 * source line and each page is visited once a tile rather than once an element; otherwise rows
 * (cut into pieces, so that a 1-D view is shared among threads too) are copied element by element
 * along the last dimension, a reversed one by a loop the compiler vectorises. The elements' order
 * in the copy is NumPy's; the strides may have any sign.
 *
 * Evidence (wall time of cured.sum(device="cpu") against numpy.sum, in turns,
 * scripts/probes/host_layouts.py, 2026-11-27): on the H100's 16-CPU host at 17:58 UTC, with the
 * whole copy, the transpose of (2048, 1024) float32 whole 492 us (numpy.sum 911; with NumPy's copy
 * it had been 25 times slower than numpy.sum on the build machine), along 0 572 (893), Fortran
 * order whole / along 0 / along 1 601 / 470 / 348 (692 / 798 / 517), float64 (1024, 1024).T 436
 * (541), 2^22 float32 [::-1] 366 (1748), [::2] 244 (1019); but (256, 256) float32 .T 32 us (19.6).
 * On the 2-CPU build machine at 20:10 UTC, read a range at a time (the whole copy then the sum in
 * brackets; numpy.sum after them): (2048, 1024) float32 .T 453 us (561; 350), Fortran order 358
 * (457; 338), float64 (1024, 1024).T 340 (380; 177), int64 (2048, 1024).T, in memory order, 204
 * (1208; 364), (256, 256) float32 .T 11.4 (14.2; 12.6). With PASS_LINES (build machine, 2026-11-28
 * 09:25 UTC, scripts/probes/gather_passes.py, three runs, in turns; one line a pass / cured, then
 * numpy.sum / cured): (2048, 1024) float32 .T (4 lines) 1.72 to 1.73 (1.08 to 1.26; 0.67 before),
 * in Fortran order (8 lines) 1.72 to 1.84 (1.27 to 1.29), float64 (1024, 1024) .T (8) 1.56 to 2.06
 * (0.75 to 0.80), float64 (2048, 2048) .T (4) 1.05 to 1.17 (0.80 to 0.97), (1024, 4096) float32 .T
 * (8) 1.65 to 1.87 (1.40 to 1.44); (4096, 4096) float32 .T (a pass of four lines would need ranges
 * of 1 MiB) and (8192, 1000) float32 .T (rows of 4000 bytes, not on lines) as before (0.59 to
 * 0.93). On the H200's 16-CPU host (2026-11-28, same probe) the passes alone lost where they left
 * each thread one or two ranges (10:10 UTC: (2048, 1024) float32 .T 0.74, Fortran order 0.65,
 * float64 (1024, 1024) .T 0.87; (2048, 2048) float64 .T, 4 ranges a thread, 1.27); with passes of
 * fewer lines where a thread would get fewer than four ranges (cpu_work.c, RANGES_A_THREAD; 10:17
 * UTC, two runs) all seven ran 1.11 to 1.33 times as fast as one line a pass, 3.0 to 8.9 times
 * numpy.sum's speed. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cured.h"
#include "pool.h"

#define LINE_BYTES 64
#define PIECE_ELEMENTS ((int64_t)1 << 14) /* a unit of work in rows: at most this many elements */
/* A tiled range's copy reads up to this many lines of each source row in one pass over the rows,
 * and no fewer than PASS_LEAST_LINES, where the rows start on lines and a range holds them
 * (cured_strided_of), instead of one line a pass: reading 256 bytes of a row at once, the copy of
 * 8 MiB transposed (a standalone loop, one thread of the build machine, data in L3) ran at 44 GB/s
 * where one line a pass ran at 17 (two lines: 31; and two lines a pass in cured made (4096, 4096)
 * float32 .T 1.3 times slower). The sums it speeds up are in the evidence above. */
#define PASS_LINES 8
#define PASS_LEAST_LINES 4
/* ... where the range that holds a pass is at most this long: with ranges of 1 MiB (the whole L2 of
 * a core of the build machine), (4096, 4096) float32 .T took 1.01 to 1.06 times as long as with one
 * line a pass. */
#define PASS_MOST_RANGE_BYTES ((int64_t)512 << 10)

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

/* Half blocks, for rows that a line boundary leaves fewer than 8 (4): 4 rows of 8 elements of 4
 * bytes from 16-byte loads (rows k and k + 4 of the source in one register's two halves, then
 * transposed in lanes), and 2 rows of 4 elements of 8 bytes. */
__attribute__((target("avx2"))) static inline void transpose_4x8(char *dst, int64_t to, const char *src, int64_t from) {
    __m256 r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = _mm256_set_m128(_mm_loadu_ps((const float *)(src + (k + 4) * from)),
                               _mm_loadu_ps((const float *)(src + k * from)));
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    _mm256_storeu_ps((float *)dst, _mm256_shuffle_ps(t0, t2, 0x44));
    _mm256_storeu_ps((float *)(dst + to), _mm256_shuffle_ps(t0, t2, 0xEE));
    _mm256_storeu_ps((float *)(dst + 2 * to), _mm256_shuffle_ps(t1, t3, 0x44));
    _mm256_storeu_ps((float *)(dst + 3 * to), _mm256_shuffle_ps(t1, t3, 0xEE));
}

__attribute__((target("avx2"))) static inline void transpose_2x4(char *dst, int64_t to, const char *src, int64_t from) {
    const __m256d r0 = _mm256_set_m128d(_mm_loadu_pd((const double *)(src + 2 * from)), _mm_loadu_pd((const double *)src));
    const __m256d r1 = _mm256_set_m128d(_mm_loadu_pd((const double *)(src + 3 * from)),
                                        _mm_loadu_pd((const double *)(src + from)));
    _mm256_storeu_pd((double *)dst, _mm256_unpacklo_pd(r0, r1));
    _mm256_storeu_pd((double *)(dst + to), _mm256_unpackhi_pd(r0, r1));
}

/* copy_tile_rows for 4- and 8-byte elements contiguous along `across`: whole blocks of 8 x 8 (4 x
 * 4) transposed in registers, then a half block where 4 (2) rows are left. Returns the rows it
 * copied (`rows` rounded down to a half block) and in
 * *last_done the elements of each it copied (`last` rounded down); the rest is the caller's.
 * Along `last` outermost, so that the source lines a block reads are used whole (by the blocks
 * below it) before the next ones: with the rows outermost, a power-of-two source stride put the
 * lines of a row of blocks into two L1 sets, which evicted them before the second block read them.
 * Build machine, 2026-11-27 19:24 UTC, rows outermost -> last outermost: the copy of (512, 512)
 * float32 .T 85 -> 57 us, the sum of (2048, 1024) float32 .T 1226 -> 783 us, (1024, 1024)
 * float64 .T 1216 -> 679 (scripts/probes/host_layouts.py). */
__attribute__((target("avx2"))) static int64_t tile_blocks_avx2(char *dst, const char *src, int64_t rows,
                                                                  const gather_job *job, int64_t *last_done) {
    /* The job's fields in locals: the stores through char pointers would have them reloaded. */
    const int64_t item = job->item, to = job->across_to, from = job->last_from, b = item == 4 ? 8 : 4;
    const int64_t whole_rows = rows / b * b, whole_last = job->last / b * b, half = b / 2;
    const int64_t half_rows = rows - whole_rows >= half ? half : 0;
    if (b == 8)
        for (int64_t j = 0; j < whole_last; j += 8) {
            for (int64_t i = 0; i < whole_rows; i += 8) transpose_8x8(dst + i * to + j * 4, to, src + j * from + i * 4, from);
            if (half_rows) transpose_4x8(dst + whole_rows * to + j * 4, to, src + j * from + whole_rows * 4, from);
        }
    else
        for (int64_t j = 0; j < whole_last; j += 4) {
            for (int64_t i = 0; i < whole_rows; i += 4) transpose_4x4(dst + i * to + j * 8, to, src + j * from + i * 8, from);
            if (half_rows) transpose_2x4(dst + whole_rows * to + j * 8, to, src + j * from + whole_rows * 8, from);
        }
    *last_done = whole_last;
    return whole_rows + half_rows;
}

/* Every other element of 4 or 8 bytes (a step of two, as x[::2] or a[:, ::2]): two 32-byte loads,
 * the even elements picked in registers, one store, where the loop of single elements copied about
 * one a cycle. Never loads past the source's last element (2 * (count - 1)). Returns the elements
 * it copied; the rest are the caller's. One thread of the build machine, 2026-11-28 12:05 UTC, wall
 * time of cured.sum(device="cpu") of a (256, 256)[:, ::2] view in turns with numpy.sum: float32
 * 10.4 -> 4.3 us (numpy.sum 6.1 to 6.3), float64 12.4 -> 7.7 (6.9 to 7.1). */
__attribute__((target("avx2"))) static int64_t every_other_avx2(char *dst, const char *src, int64_t count, int item) {
    int64_t j = 0;
    if (item == 4)
        for (; j + 8 < count; j += 8) { /* elements 2j .. 2j + 15 of the source */
            const __m256 low = _mm256_loadu_ps((const float *)(src + 8 * j));
            const __m256 high = _mm256_loadu_ps((const float *)(src + 8 * j + 32));
            const __m256d even = _mm256_castps_pd(_mm256_shuffle_ps(low, high, 0x88)); /* 0 2 8 10 | 4 6 12 14 */
            _mm256_storeu_ps((float *)(dst + 4 * j), _mm256_castpd_ps(_mm256_permute4x64_pd(even, 0xD8)));
        }
    else
        for (; j + 4 < count; j += 4) { /* elements 2j .. 2j + 7 */
            const __m256d low = _mm256_loadu_pd((const double *)(src + 16 * j));
            const __m256d high = _mm256_loadu_pd((const double *)(src + 16 * j + 32));
            const __m256d even = _mm256_unpacklo_pd(low, high); /* 0 4 | 2 6 */
            _mm256_storeu_pd((double *)(dst + 8 * j), _mm256_permute4x64_pd(even, 0xD8));
        }
    return j;
}
#endif

static _Atomic int use_avx2 = -1; /* unknown until the first copy: 0 or 1 */

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
#ifdef CURED_GATHER_AVX2
    if (use_avx2 && from == 2 * item && (item == 4 || item == 8)) {
        const int64_t done = every_other_avx2(dst, src, count, item);
        dst += done * item, src += done * from, count -= done;
    }
#endif
    switch (item) {
    case 1: COPY_ROW(uint8_t); break;
    case 2: COPY_ROW(uint16_t); break;
    case 4: COPY_ROW(uint32_t); break;
    default: COPY_ROW(uint64_t); break;
    }
#undef COPY_ROW
}

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

/* The rows of a tiled copy from `src` (row 0's source; rows `across_from` bytes apart) before the
 * first source line boundary, in [0, LINE_BYTES / item): rows grouped from there read each source
 * line in one group (0 where the rows are not the source's consecutive elements). Rows that
 * straddled two lines in each group cost the transposed copy of (2048, 1024) float32 twice the
 * time (NumPy's arrays start 16 bytes past a line as often as not; one thread of the build
 * machine, 2026-11-27 19:55 UTC, the copy alone: 478 us from a line's start, 964 from 16 bytes
 * past one). */
static int64_t rows_before_line(const char *src, int item, int64_t across_from) {
    const int64_t past = (int64_t)((uintptr_t)src % LINE_BYTES);
    return across_from == item && past % item == 0 && past > 0 ? (LINE_BYTES - past) / item : 0;
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
        if (job->tiled) { /* piece k: rows from k lines, less the rows before the first line, on */
            const int64_t shift = (rows_a_piece - rows_before_line(src, job->item, job->across_from)) % rows_a_piece;
            const int64_t from = first - shift > 0 ? first - shift : 0;
            const int64_t to = first - shift + rows_a_piece < job->across ? first - shift + rows_a_piece : job->across;
            if (to > from) copy_tile_rows(dst + from * job->across_to, src + from * job->across_from, to - from, job);
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

static void gather_setup(void) {
    if (use_avx2 >= 0) return;
#ifdef CURED_GATHER_AVX2
    __builtin_cpu_init();
    use_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    use_avx2 = 0;
#endif
}

/* The layout's dimensions merged (extent 1 dropped; d into d + 1 where the source steps over d + 1
 * whole, as a C-order copy does), in C order: extents, source strides and the C-order copy's
 * strides (bytes). Returns the merged count (0 for one element). */
static int merge_dims(const cured_layout *layout, int item, int64_t *shape, int64_t *from, int64_t *to) {
    int ndim = 0;
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
    return ndim;
}

/* The dimension of the smallest source stride among 0 .. last - 1 where it is smaller than the
 * last's, else -1. */
static int across_of(const int64_t *from, int last) {
    int across = -1;
    for (int d = 0; d < last; ++d)
        if (magnitude(from[d]) < magnitude(from[across < 0 ? last : across])) across = d;
    return across;
}

void cured_cpu_c_order_copy(const void *src, const cured_layout *layout, int item, void *dst) {
    gather_setup();
    int64_t shape[CURED_MAX_DIMS], from[CURED_MAX_DIMS], to[CURED_MAX_DIMS], n = 1;
    for (int d = 0; d < layout->ndim; ++d) n *= layout->shape[d];
    if (n == 0) return;
    const int ndim = merge_dims(layout, item, shape, from, to);
    if (ndim == 0) { /* one element */
        memcpy(dst, src, (size_t)item);
        return;
    }
    gather_job job;
    memset(&job, 0, sizeof job);
    job.src = (const char *)src, job.dst = (char *)dst, job.item = item;
    const int last = ndim - 1, across = across_of(from, last);
    job.last = shape[last], job.last_from = from[last];
    job.tiled = across >= 0;
    if (job.tiled) {
        job.across = shape[across], job.across_from = from[across], job.across_to = to[across];
        job.pieces = (job.across + LINE_BYTES / item - 1) / (LINE_BYTES / item) + 1; /* + 1: line-aligned */
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
    const int64_t tasks = threads > 1 ? (int64_t)threads * 8 : 1; /* as cpu_work.c's TASKS_A_THREAD */
    job.per_task = (job.units + tasks - 1) / tasks;
    cured_pool_run((job.units + job.per_task - 1) / job.per_task, threads, gather_task, &job);
}

/* ---- a range at a time --------------------------------------------------------------------------- */

int cured_strided_of(const void *src, const cured_layout *layout, int item, cured_strided *s) {
    int64_t to[CURED_MAX_DIMS];
    gather_setup();
    memset(s, 0, sizeof *s);
    s->src = (const char *)src, s->item = item;
    s->ndim = merge_dims(layout, item, s->shape, s->from, to);
    if (s->ndim == 0) { /* one element (or none: never read) */
        s->ndim = 1, s->shape[0] = 1, s->from[0] = item;
        return 1;
    }
    const int last = s->ndim - 1, across = across_of(s->from, last);
    if (across < 0) return 1; /* rows along the last dimension, its stride the smallest */
    if (across != last - 1) return 0;
    /* Rows read a source line's worth at once, transposed: a range holds at least that many rows;
     * where the source rows start on lines and a range can hold them, PASS_LINES or PASS_LEAST_LINES
     * lines' worth. */
    s->tiled = 1;
    s->least_range_bytes = (int64_t)LINE_BYTES * s->shape[last];
    int lines = s->from[last] % LINE_BYTES == 0 ? PASS_LINES : 1;
    while (lines > 1 && lines * s->least_range_bytes > PASS_MOST_RANGE_BYTES) lines = cured_strided_fewer_lines(lines);
    s->pass_lines = lines;
    return s->least_range_bytes <= CURED_STRIDED_MOST_RANGE_BYTES;
}

int cured_strided_fewer_lines(int lines) { return lines > PASS_LEAST_LINES ? lines / 2 : 1; }

/* Where row `row` of the C order (all dimensions but the last) starts in the source. */
static const char *row_source(const cured_strided *s, int64_t row) {
    const char *p = s->src;
    for (int d = s->ndim - 2; d >= 0 && row > 0; --d) {
        p += (row % s->shape[d]) * s->from[d];
        row /= s->shape[d];
    }
    return p;
}

/* The source lines a pass of a tiled range's copy reads from each source row: s->pass_lines, fewer
 * (PASS_LEAST_LINES, then one) where the copy's rows, `pitch` bytes apart, would crowd the L1
 * cache's sets (rows 4096 / (the largest power of two dividing pitch) apart start in one set; a pass
 * writes a line of each of its rows at once, and up to 8 of those in a set stay): (512, 512) float32
 * .T into rows 2 KiB apart took 91 us with 4 lines a pass against 43 with one. */
static int64_t pass_lines(const cured_strided *s, int64_t pitch, int64_t line_rows) {
    const int64_t power = pitch & -pitch, rows_a_set = 4096 / (power < 4096 ? power : 4096);
    int64_t lines = s->pass_lines;
    while (lines > 1 && lines * line_rows > 8 * rows_a_set) lines = cured_strided_fewer_lines((int)lines);
    return lines;
}

void cured_strided_range(const cured_strided *s, int64_t first, int64_t count, void *dst_, int64_t pitch) {
    const int last = s->ndim - 1;
    const int64_t length = s->shape[last], along = s->from[last];
    const int64_t line_rows = LINE_BYTES / s->item, first_row = first / length;
    /* Row r of the range (from the row of `first`) at row_dst + r * pitch, so that `first` is at dst. */
    char *const row_dst = (char *)dst_ - (first % length) * s->item;
    gather_job rows; /* a tiled range's whole rows, for copy_tile_rows */
    memset(&rows, 0, sizeof rows);
    rows.item = s->item, rows.last = length, rows.last_from = along;
    if (s->tiled) rows.across = s->shape[last - 1], rows.across_from = s->from[last - 1], rows.across_to = pitch;
    while (count > 0) {
        const int64_t row = first / length, column = first % length;
        const char *src = row_source(s, row);
        char *dst = row_dst + (row - first_row) * pitch + column * s->item;
        int64_t taken;
        const int64_t whole = s->tiled && column == 0 ? count / length : 0;
        if (whole > 1) { /* whole rows up to the end of this run of `across`, in passes of whole source lines */
            const int64_t left = rows.across - row % rows.across, run = whole < left ? whole : left;
            const int64_t pass_rows = pass_lines(s, pitch, line_rows) * line_rows;
            int64_t group = rows_before_line(src, s->item, rows.across_from);
            for (int64_t done = 0; done < run; done += group, group = pass_rows) {
                if (group == 0) group = pass_rows;
                if (group > run - done) group = run - done;
                copy_tile_rows(dst + done * pitch, src + done * rows.across_from, group, &rows);
            }
            taken = run * length;
        } else {
            taken = length - column < count ? length - column : count;
            copy_row(dst, src + column * along, taken, along, s->item);
        }
        first += taken, count -= taken;
    }
}

void cured_layout_in_memory_order(cured_layout *layout, const void **data) {
    const char *base = (const char *)*data;
    for (int d = 0; d < layout->ndim; ++d)
        if (layout->shape[d] > 1 && layout->strides[d] < 0) { /* flipped: start from its last element */
            base += (layout->shape[d] - 1) * layout->strides[d];
            layout->strides[d] = -layout->strides[d];
        }
    for (int d = 1; d < layout->ndim; ++d) /* by decreasing stride, in a stable order */
        for (int e = d; e > 0 && layout->strides[e - 1] < layout->strides[e]; --e) {
            const int64_t shape = layout->shape[e], stride = layout->strides[e];
            layout->shape[e] = layout->shape[e - 1], layout->strides[e] = layout->strides[e - 1];
            layout->shape[e - 1] = shape, layout->strides[e - 1] = stride;
        }
    *data = base;
}

int64_t cured_strided_line_cut(const cured_strided *s, int64_t stop) {
    const int64_t length = s->shape[s->ndim - 1];
    if (!s->tiled || stop % length != 0) return stop;
    const int64_t row = stop / length, line_rows = LINE_BYTES / s->item, in_run = row % s->shape[s->ndim - 2];
    /* Back to the row that starts its line's group, or to the start of the run of `across`, which
     * starts a group too (cured_strided_range). */
    const int64_t since = (line_rows - rows_before_line(row_source(s, row), s->item, s->from[s->ndim - 2])) % line_rows;
    return stop - (since < in_run ? since : in_run) * length;
}
