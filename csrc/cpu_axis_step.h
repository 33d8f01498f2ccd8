/* cpu_axis_step.h: one step of a sum along axes (axis.h) on the CPU at speed, for the accumulator
 * type ACC_T (ACC_NAME), included by cpu_axis.c once per accumulator. Each output gets the
 * additions of the order model (cpu_model_axis.h) in the model's order; what is free is how the
 * independent chains are interleaved: a column step adds whole rows into a block of columns' sums at
 * once (one chain a column, so the compiler's vector adds keep each column's order), and a row step
 * takes the lanes' chunks a round at a time from a contiguous run, with no dtype switch an element.
 * The integer accumulator (ACC_WRAPS) adds modulo 2^64, where every order gives the same bits: its
 * rows are added in one pass, in index order.
 * Zeros past the end of a row are added where the model leaves them out: adding +0 never changes a
 * sum that started from +0 (no sum that starts from +0 becomes -0 under rounding to nearest). */
#define AXC_(a, b) a##_##b
#define AXC(a, b) AXC_(a, b)
#define CONVERT AXC(axis_convert, ACC_NAME)
#define TREE AXC(axis_tree, ACC_NAME)
#define ROUNDS_SIMD AXC(axis_rounds_simd, ACC_NAME)
#define LANES_TREE AXC(axis_lanes_tree, ACC_NAME)
#define SHORT_ROWS AXC(axis_short_rows, ACC_NAME)
#define ROUNDS AXC(axis_rounds, ACC_NAME)
#define ROW_ITEM AXC(axis_row_item, ACC_NAME)
#define COLUMN_ITEM AXC(axis_column_item, ACC_NAME)
#define ITEMS AXC(axis_items, ACC_NAME)
#define SUM_RUN AXC(axis_sum_run, ACC_NAME)

/* in[first, first + count) of `dtype`, each converted to the accumulator as the model's loads do
 * (C's conversions), into buf. */
static void CONVERT(const void *in, cured_dtype dtype, int64_t first, int64_t count, ACC_T *buf) {
#define RUN(T, EXPR)                                                        \
    do {                                                                    \
        const T *p = (const T *)in + first;                                 \
        for (int64_t k = 0; k < count; ++k) buf[k] = (ACC_T)(EXPR);         \
    } while (0)
    AXIS_EACH_DTYPE(dtype, RUN)
#undef RUN
}

#if ACC_WRAPS
/* in[first, first + count) of `dtype`, converted as CONVERT does and added in index order: the
 * model's bits, since the sums wrap modulo 2^64 whatever the order. Where rows of integers took the
 * lanes' rounds and tree (build machine, the same runs as COLUMN_ITEM's): int32 (256, 256) along 1
 * 28.4 to 29.5 -> 10.6 us (numpy.sum 20.4 to 20.5), (64, 64) along 1 4.3 to 4.6 -> 1.8 (4.1 to
 * 4.2), (16, 16, 16) along (0, 2) 10.0 to 10.7 -> 2.9 (7.3 to 7.4). */
static ACC_T SUM_RUN(const void *in, cured_dtype dtype, int64_t first, int64_t count) {
    ACC_T sum = 0;
#define RUN(T, EXPR)                                                        \
    do {                                                                    \
        const T *p = (const T *)in + first;                                 \
        for (int64_t k = 0; k < count; ++k) sum += (ACC_T)(EXPR);           \
    } while (0)
    AXIS_EACH_DTYPE(dtype, RUN)
#undef RUN
    return sum;
}
#endif

/* The SEQUENTIAL tree over `count` (a power of two) sums of `width` columns each, s[l * width + i]:
 * s[i] becomes column i's sum. */
static void TREE(ACC_T *s, int count, int64_t width) {
    for (int offset = count / 2; offset > 0; offset /= 2)
        for (int l = 0; l < offset; ++l)
            for (int64_t i = 0; i < width; ++i) s[(int64_t)l * width + i] += s[(int64_t)(l + offset) * width + i];
}

#if !ACC_WRAPS
/* `rounds` whole rounds of G lanes' chunks of V elements from src: part[g] += each element of chunk
 * g of each round, in order. cpu_axis.c's SIMD where it has one for G and V, else one at a time. */
static void ROUNDS(ACC_T *part, const ACC_T *src, int64_t G, int64_t V, int64_t rounds) {
    if (ROUNDS_SIMD(part, src, G, V, rounds)) return;
    for (int64_t r = 0; r < rounds; ++r, src += G * V)
        for (int64_t g = 0; g < G; ++g) {
            ACC_T sum = part[g];
            for (int64_t j = 0; j < V; ++j) sum += src[g * V + j];
            part[g] = sum;
        }
}
#endif

/* Rows: segment `seg` of row `o` into out[o * segments + seg]. Lane g adds chunks g, g + G, ... of
 * the segment; a round is the G chunks the lanes add next, read from the input where it is already
 * the accumulator's type and whole (all the segment's rounds at once), else converted (and padded
 * with zeros) into buf a round at a time. The integer accumulator adds the segment in one pass. */
static void ROW_ITEM(const cured_axis_step *s, const void *in, cured_dtype dtype, int direct, int64_t o, int64_t seg,
                     ACC_T *out) {
    const int64_t V = s->vector, R = s->reduced;
    const int64_t first = seg * s->segment;
    const int64_t last = first + s->segment < s->chunks ? first + s->segment : s->chunks;
#if ACC_WRAPS
    (void)direct;
    const int64_t end = last * V < R ? last * V : R;
    out[o * s->segments + seg] = SUM_RUN(in, dtype, o * R + first * V, end - first * V);
#else
    const int64_t G = s->lanes, round = G * V;
    ACC_T part[CURED_AXIS_MAX_LANES];
    for (int64_t g = 0; g < G; ++g) part[g] = (ACC_T)0; /* G lanes, not the block's 256: a row's cost */
    ACC_T buf[CURED_AXIS_MAX_LANES * CURED_VECTOR_BYTES]; /* G x V elements, V <= 16 */
    int64_t c = first; /* a segment is a whole number of rounds but the row's last */
    if (direct) {
        const int64_t rounds = (last - first + G - 1) / G, whole = (R - first * V) / round;
        const int64_t n = rounds < whole ? rounds : whole;
        ROUNDS(part, (const ACC_T *)in + o * R + first * V, G, V, n);
        c += n * G;
    }
    for (; c < last; c += G) {
        const int64_t at = c * V, have = R - at < round ? R - at : round;
        CONVERT(in, dtype, o * R + at, have, buf);
        for (int64_t k = have; k < round; ++k) buf[k] = (ACC_T)0;
        ROUNDS(part, buf, G, V, 1);
    }
    ACC_T sum;
    if (!LANES_TREE(part, G, &sum)) {
        TREE(part, (int)G, 1);
        sum = part[0];
    }
    out[o * s->segments + seg] = sum;
#endif
}

/* Columns: columns [i0, i0 + width) of segment `seg` of block `o` into out[(o * segments + seg) * I
 * + i0 ...]. Strand p adds rows p, p + P, ... of the segment into its sums of the block's columns,
 * a whole row at a time; then the strands' SEQUENTIAL tree. One strand adds straight into out. */
static void COLUMN_ITEM(const cured_axis_step *s, const void *in, cured_dtype dtype, int direct, int64_t o,
                        int64_t seg, int64_t i0, int64_t width, ACC_T *out) {
    const int64_t R = s->reduced, I = s->inner, P = s->strands;
    const int64_t first = seg * s->segment, last = first + s->segment < R ? first + s->segment : R;
    ACC_T strands[STRAND_SUMS]; /* P x width <= 32 x V <= STRAND_SUMS where P > 1 */
    ACC_T buf[4 * COLUMN_BLOCK]; /* up to four rows of the block, converted */
    ACC_T *const sums = P == 1 ? out + (o * s->segments + seg) * I + i0 : strands;
    for (int64_t k = 0; k < P * width; ++k) sums[k] = (ACC_T)0;
    int64_t r = first;
    if (P == 1) {
        /* Four rows a pass over the sums: each column adds its rows in the same order, with a quarter
         * of the sums' loads and stores (out overlaps neither the input nor buf: module.c's
         * results_array gives a new array where a NumPy out= overlaps the input). (256, 256) along
         * 0 on one thread of the build machine, 2026-11-27 11:30 UTC, two runs of each build
         * (scripts/probes/axis_call_cost.py, wall time of the call; numpy.sum in brackets): float32
         * 7.3 to 7.4 -> 5.2 to 5.3 us (9.2 to 9.6), float64 20.5 to 20.6 -> 9.3 to 9.6 (18.2 to
         * 18.8), int32 into int64 (converted four rows at a time) 20.9 to 21.8 -> 17.2 to 17.3 (24.5
         * to 25.0). */
        ACC_T *restrict const sum = sums;
        for (; r + 4 <= last; r += 4) {
            const int64_t at = (o * R + r) * I + i0;
            const ACC_T *rows = (const ACC_T *)in + at;
            int64_t apart = I;
            if (!direct) {
                for (int k = 0; k < 4; ++k) CONVERT(in, dtype, at + k * I, width, buf + k * width);
                rows = buf;
                apart = width;
            }
            const ACC_T *restrict const r0 = rows;
            const ACC_T *restrict const r1 = r0 + apart;
            const ACC_T *restrict const r2 = r1 + apart;
            const ACC_T *restrict const r3 = r2 + apart;
            for (int64_t i = 0; i < width; ++i) sum[i] = (((sum[i] + r0[i]) + r1[i]) + r2[i]) + r3[i];
        }
    }
    for (; r < last; ++r) {
        const int64_t at = (o * R + r) * I + i0;
        const ACC_T *src = buf;
        if (direct) src = (const ACC_T *)in + at;
        else CONVERT(in, dtype, at, width, buf);
        ACC_T *const sum = sums + ((r - first) % P) * width;
        for (int64_t i = 0; i < width; ++i) sum[i] += src[i];
    }
    if (P > 1) {
        TREE(strands, (int)P, width);
        memcpy(out + (o * s->segments + seg) * I + i0, strands, (size_t)width * sizeof(ACC_T));
    }
}

/* Work items [begin, end) of a step (cpu_axis.c numbers them: rows by (o, seg), columns by (o, seg,
 * block of COLUMN_BLOCK columns)). */
static void ITEMS(const cured_axis_step *s, const void *in, cured_dtype dtype, int direct, void *out_, int64_t begin,
                  int64_t end) {
    ACC_T *const out = (ACC_T *)out_;
    if (s->inner == 1) {
        /* Rows of one whole round each (items are rows then): cpu_axis.c's loop without a row's setup. */
        if (direct && s->segments == 1 && s->reduced == s->lanes * s->vector &&
            SHORT_ROWS(out + begin, (const ACC_T *)in + begin * s->reduced, end - begin, s->lanes, s->vector))
            return;
        for (int64_t item = begin; item < end; ++item)
            ROW_ITEM(s, in, dtype, direct, item / s->segments, item % s->segments, out);
        return;
    }
    const int64_t blocks = (s->inner + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    for (int64_t item = begin; item < end; ++item) {
        const int64_t block = item % blocks, rest = item / blocks;
        const int64_t i0 = block * COLUMN_BLOCK;
        const int64_t width = s->inner - i0 < COLUMN_BLOCK ? s->inner - i0 : COLUMN_BLOCK;
        COLUMN_ITEM(s, in, dtype, direct, rest / s->segments, rest % s->segments, i0, width, out);
    }
}

#undef AXC_
#undef AXC
#undef CONVERT
#undef TREE
#undef ROUNDS_SIMD
#undef LANES_TREE
#undef SHORT_ROWS
#undef ROUNDS
#undef ROW_ITEM
#undef COLUMN_ITEM
#undef ITEMS
#undef SUM_RUN
