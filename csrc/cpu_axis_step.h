/* cpu_axis_step.h: one step of a sum along axes (axis.h) on the CPU at speed, for the accumulator
 * type ACC_T (ACC_NAME), included by cpu_axis.c once per accumulator. Each output gets the
 * additions of the order model (cpu_model_axis.h) in the model's order; what is free is how the
 * independent chains are interleaved: a column step adds whole rows into a block of columns' sums at
 * once (one chain a column, so the compiler's vector adds keep each column's order), and a row step
 * takes the lanes' chunks a round at a time from a contiguous run, with no dtype switch an element.
 * The integer accumulator (ACC_WRAPS) adds modulo 2^64, where every order gives the same bits: its
 * rows are added in one pass (cpu_integers.c's loop), and a column segment's rows as one strand.
 * Zeros past the end of a row are added where the model leaves them out: adding +0 never changes a
 * sum that started from +0 (no sum that starts from +0 becomes -0 under rounding to nearest). */
#define AXC_(a, b) a##_##b
#define AXC(a, b) AXC_(a, b)
#define CONVERT AXC(axis_convert, ACC_NAME)
#define HALVES AXC(axis_halves, ACC_NAME)
#define TREE AXC(axis_tree, ACC_NAME)
#define ROUNDS_SIMD AXC(axis_rounds_simd, ACC_NAME)
#define LANES_TREE AXC(axis_lanes_tree, ACC_NAME)
#define SHORT_ROWS AXC(axis_short_rows, ACC_NAME)
#define SHORT_ROWS_FIT AXC(axis_short_rows_fit, ACC_NAME)
#define PADDED_ROWS AXC(axis_padded_rows, ACC_NAME)
#define ADD_ROWS AXC(axis_add_rows, ACC_NAME)
#define ADD_ROWS_OF AXC(axis_add_rows_of, ACC_NAME)
#define ROUNDS AXC(axis_rounds, ACC_NAME)
#define ROW_ITEM AXC(axis_row_item, ACC_NAME)
#define COLUMN_ITEM AXC(axis_column_item, ACC_NAME)
#define ITEMS AXC(axis_items, ACC_NAME)
#define SUM_ROWS AXC(axis_sum_rows, ACC_NAME)

/* in[first, first + count) of `dtype`, each converted to the accumulator as the model's loads do
 * (C's conversions), into buf. */
static void CONVERT(const void *in, cured_dtype dtype, int64_t first, int64_t count, ACC_T *buf) {
#if !ACC_WRAPS
    if (dtype == CURED_FLOAT16) { /* cpu_axis.c's, eight at a time */
        HALVES((const uint16_t *)in + first, count, buf);
        return;
    }
#endif
#define RUN(T, EXPR)                                                        \
    do {                                                                    \
        const T *p = (const T *)in + first;                                 \
        for (int64_t k = 0; k < count; ++k) buf[k] = (ACC_T)(EXPR);         \
    } while (0)
    AXIS_EACH_DTYPE(dtype, RUN)
#undef RUN
}

#if ACC_WRAPS
/* `rows` rows of R elements of `dtype` from in[at], each summed into out[r] modulo 2^64: the model's
 * bits, since the sums wrap whatever the order (cpu_integers.c's loop). Where rows of integers took
 * the lanes' rounds and tree (build machine, the same runs as COLUMN_ITEM's): int32 (256, 256)
 * along 1 28.4 to 29.5 -> 10.6 us (numpy.sum 20.4 to 20.5), (64, 64) along 1 4.3 to 4.6 -> 1.8
 * (4.1 to 4.2), (16, 16, 16) along (0, 2) 10.0 to 10.7 -> 2.9 (7.3 to 7.4). Rows of one segment in
 * one call rather than ROW_ITEM's call a row: int32 (65536, 2) along 1 244 -> 91 us (894). */
static void SUM_ROWS(const void *in, cured_dtype dtype, int64_t at, int64_t rows, int64_t R, ACC_T *out) {
    cured_cpu_integer_rows(dtype, (const char *)in + at * cured_dtype_size(dtype), rows, R, out);
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

/* Rows of one round (chunks <= G <= 32) that SHORT_ROWS cannot read in place, shorter than the round
 * (float32 rows of 10: 3 chunks, 4 lanes) or of another dtype (float16 into float32): converted into
 * whole rounds a batch at a time, zeros past each row's end, then SHORT_ROWS over the batch. Each
 * went through ROW_ITEM, whose vector loads waited on its scalar stores of the round a row
 * (`perf annotate`: most of a float32 row of 10's 44 ns in those loads and the lanes' clear).
 * Build machine, one thread (inputs under 2 MiB), wall time of cured.sum(device="cpu"), 2026-11-27
 * 12:58 / 13:04 UTC, before -> after (numpy.sum in brackets): float32 (65536, 2) along 1 1181 -> 241
 * us (941), (10000, 10) 445 -> 62.5 (195), float64 (10000, 3) 234 -> 43.6 (156), (2048, 3) 49.0 ->
 * 9.9 (33.5), float16 (100, 100, 10) along 2 334 -> 195 (336). */
#if !ACC_WRAPS
#define PADDED_BATCH 2048 /* elements: 8 or 16 KiB, in L1; at least 4 rounds of 32 lanes of 16 */
static void PADDED_ROWS(const cured_axis_step *s, const void *in, cured_dtype dtype, ACC_T *out, int64_t begin,
                        int64_t end) {
    const int64_t R = s->reduced, round = (int64_t)s->lanes * s->vector, batch = PADDED_BATCH / round;
    ACC_T buf[PADDED_BATCH];
    for (int64_t first = begin; first < end; first += batch) {
        const int64_t rows = end - first < batch ? end - first : batch;
        for (int64_t r = 0; r < rows; ++r) {
            CONVERT(in, dtype, (first + r) * R, R, buf + r * round);
            for (int64_t k = R; k < round; ++k) buf[r * round + k] = (ACC_T)0;
        }
        SHORT_ROWS(out + first, buf, rows, s->lanes, s->vector);
    }
}
#undef PADDED_BATCH
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
    SUM_ROWS(in, dtype, o * R + first * V, 1, end - first * V, out + o * s->segments + seg);
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

/* sum[i] = (((start + r0[i]) + r1[i]) + ...) over n rows `apart` elements apart, start +0 or sum[i]:
 * n and from_zero constants, so that each form is one vector loop. */
static ALWAYS_INLINE void ADD_ROWS_OF(ACC_T *restrict sum, const ACC_T *restrict rows, int64_t apart, int64_t width,
                                      const int n, const int from_zero) {
    for (int64_t i = 0; i < width; ++i) {
        ACC_T t = from_zero ? (ACC_T)0 : sum[i];
        for (int k = 0; k < n; ++k) t += rows[k * apart + i];
        sum[i] = t;
    }
}

/* Built for AVX2 too (cpu_axis.c's AXIS_CLONES): each column's additions are the same, more columns an add. */
AXIS_CLONES static void ADD_ROWS(ACC_T *sum, const ACC_T *rows, int64_t apart, int64_t width, int64_t n,
                                 int from_zero) {
    switch (n) {
    case 1: from_zero ? ADD_ROWS_OF(sum, rows, apart, width, 1, 1) : ADD_ROWS_OF(sum, rows, apart, width, 1, 0); break;
    case 2: from_zero ? ADD_ROWS_OF(sum, rows, apart, width, 2, 1) : ADD_ROWS_OF(sum, rows, apart, width, 2, 0); break;
    case 3: from_zero ? ADD_ROWS_OF(sum, rows, apart, width, 3, 1) : ADD_ROWS_OF(sum, rows, apart, width, 3, 0); break;
    default: from_zero ? ADD_ROWS_OF(sum, rows, apart, width, 4, 1) : ADD_ROWS_OF(sum, rows, apart, width, 4, 0); break;
    }
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
    /* Integer sums wrap modulo 2^64, so that a segment's strands and their tree change no bit: the
     * integer accumulator adds a segment's rows as one strand, four rows a pass. Build machine,
     * wall time, 2026-11-27 13:33 UTC, strands -> one strand (numpy.sum in brackets): bool (100,
     * 100, 10) along 1 124 -> 74 us (165), uint8 123 -> 57 (162), int32 97 -> 47 (158), int8 (64,
     * 64, 64) along (0, 1) 105 -> 68 (126), (16, 16, 16) along 1 6.7 -> 2.7 (7.1). */
    if (P == 1 || ACC_WRAPS) {
        /* Up to four rows a pass over the sums, the first pass from +0: each column adds its rows in
         * the same order, with a quarter of the sums' loads and stores and no cleared block (out
         * overlaps neither the input nor buf: module_axes.c's results_array gives a new array where a
         * NumPy out= overlaps the input). (256, 256) along 0 on one thread of the build machine,
         * 2026-11-27 11:30 UTC, two runs of each build (scripts/probes/axis_call_cost.py, wall time
         * of the call; numpy.sum in brackets), a row a pass -> four: float32 7.3 to 7.4 -> 5.2 to
         * 5.3 us (9.2 to 9.6), float64 20.5 to 20.6 -> 9.3 to 9.6 (18.2 to 18.8), int32 into int64
         * (converted four rows at a time) 20.9 to 21.8 -> 17.2 to 17.3 (24.5 to 25.0). The first pass
         * from +0 and the last of the one to three rows left, where a cleared block and a pass a row
         * were: float64 (2, 65536) along 0 45.9 -> 21.0 us (34.6; 13:04 UTC). */
        for (int64_t r = first; r < last; r += 4) {
            const int64_t at = (o * R + r) * I + i0, n = last - r < 4 ? last - r : 4;
            const ACC_T *rows = (const ACC_T *)in + at;
            int64_t apart = I;
            if (!direct) {
                for (int64_t k = 0; k < n; ++k) CONVERT(in, dtype, at + k * I, width, buf + k * width);
                rows = buf;
                apart = width;
            }
            ADD_ROWS(out + (o * s->segments + seg) * I + i0, rows, apart, width, n, r == first);
        }
    } else {
        for (int64_t k = 0; k < P * width; ++k) strands[k] = (ACC_T)0;
        for (int64_t r = first; r < last; ++r) {
            const int64_t at = (o * R + r) * I + i0;
            const ACC_T *src = buf;
            if (direct) src = (const ACC_T *)in + at;
            else CONVERT(in, dtype, at, width, buf);
            ACC_T *const sum = strands + ((r - first) % P) * width;
            for (int64_t i = 0; i < width; ++i) sum[i] += src[i];
        }
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
        /* Rows of one segment, the items then: without a row's setup in ROW_ITEM. */
#if ACC_WRAPS
        if (s->segments == 1) {
            SUM_ROWS(in, dtype, begin * s->reduced, end - begin, s->reduced, out + begin);
            return;
        }
#else
        if (s->segments == 1 && s->chunks <= s->lanes && SHORT_ROWS_FIT(s->lanes, s->vector)) {
            if (direct && s->reduced == (int64_t)s->lanes * s->vector)
                SHORT_ROWS(out + begin, (const ACC_T *)in + begin * s->reduced, end - begin, s->lanes, s->vector);
            else
                PADDED_ROWS(s, in, dtype, out, begin, end);
            return;
        }
#endif
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
#undef HALVES
#undef TREE
#undef ROUNDS_SIMD
#undef LANES_TREE
#undef SHORT_ROWS
#undef ROUNDS
#undef ROW_ITEM
#undef COLUMN_ITEM
#undef ITEMS
#undef SUM_ROWS
#undef SHORT_ROWS_FIT
#undef PADDED_ROWS
#undef ADD_ROWS
#undef ADD_ROWS_OF
