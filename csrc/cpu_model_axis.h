/* cpu_model_axis.h: the CPU order model of a sum along axes (axis.h), for the accumulator type
 * ACC_T, included by cpu_model.c after cpu_model_pass.h (whose loads it uses). Each output is made
 * of the additions kernels/v9_axis.cu makes, in its order; the zeros the kernel adds past the end
 * of a chunk are left out (adding +0 never changes a sum that started from +0). */
#define AXIS_STEP CURED_CAT(model_axis_step, ACC_NAME)
#define AXIS CURED_CAT(model_axis, ACC_NAME)
#define AXIS_LOAD CURED_CAT(model_load, ACC_NAME)

/* The SEQUENTIAL tree over s[0, count), count a power of two: s[0] becomes the sum. */
#define AXIS_TREE CURED_CAT(model_axis_tree, ACC_NAME)
static ACC_T AXIS_TREE(ACC_T *s, int count) {
    for (int offset = count / 2; offset > 0; offset /= 2)
        for (int l = 0; l < offset; ++l) s[l] += s[l + offset];
    return s[0];
}

/* One step: `in` (dtype) read as (O, R, I) into out, (O, segments, I) accumulators. */
static void AXIS_STEP(const cured_axis_step *s, const void *in, cured_dtype dtype, ACC_T *out) {
    const int64_t R = s->reduced, I = s->inner, V = s->vector;
    const int64_t total = s->outer * R * I; /* LOAD's bound: every index here is inside */
    ACC_T part[CURED_AXIS_MAX_LANES]; /* a row segment's lanes, or a column segment's strands (<= 32) */
    for (int64_t o = 0; o < s->outer; ++o)
        for (int64_t seg = 0; seg < s->segments; ++seg) {
            if (I == 1) { /* rows: lane g adds chunks g, g + G, ... of the segment */
                const int64_t first = seg * s->segment;
                const int64_t last = first + s->segment < s->chunks ? first + s->segment : s->chunks;
                for (int g = 0; g < s->lanes; ++g) {
                    ACC_T sum = (ACC_T)0;
                    for (int64_t c = first + g; c < last; c += s->lanes)
                        for (int64_t j = 0; j < V && c * V + j < R; ++j)
                            sum += AXIS_LOAD(in, dtype, o * R + c * V + j, total);
                    part[g] = sum;
                }
                out[o * s->segments + seg] = AXIS_TREE(part, s->lanes);
            } else { /* columns: strand p adds rows p, p + P, ... of the segment, for each column */
                const int64_t first = seg * s->segment;
                const int64_t last = first + s->segment < R ? first + s->segment : R;
                for (int64_t i = 0; i < I; ++i) {
                    for (int p = 0; p < s->strands; ++p) {
                        ACC_T sum = (ACC_T)0;
                        for (int64_t r = first + p; r < last; r += s->strands)
                            sum += AXIS_LOAD(in, dtype, (o * R + r) * I + i, total);
                        part[p] = sum;
                    }
                    out[(o * s->segments + seg) * I + i] = AXIS_TREE(part, s->strands);
                }
            }
        }
}

/* The whole fold, launch after launch (cured_axis_launches_of), as axis.c runs it on the GPU. */
static int AXIS(const cured_axis_fold *fold, cured_dtype in_dtype, const void *in, void *out) {
    const cured_dtype acc_dtype = sizeof(ACC_T) == 4 ? CURED_FLOAT32 : (ACC_T)0.5 != 0 ? CURED_FLOAT64 : CURED_UINT64;
    cured_axis_step launches[CURED_AXIS_MAX_LAUNCHES];
    const int count = cured_axis_launches_of(fold, cured_dtype_size(in_dtype), (int)sizeof(ACC_T), launches);
    const void *src = in;
    ACC_T *held = NULL;
    for (int i = 0; i < count; ++i) {
        const cured_axis_step *step = &launches[i];
        const int last = i == count - 1;
        ACC_T *dst = (ACC_T *)out;
        const size_t held_bytes = (size_t)(step->outer * step->segments * step->inner) * sizeof(ACC_T);
        if (!last && (dst = (ACC_T *)cured_host_malloc(held_bytes)) == NULL) {
            free(held);
            return -1;
        }
        AXIS_STEP(step, src, i == 0 ? in_dtype : acc_dtype, dst);
        free(held);
        held = last ? NULL : dst;
        src = dst;
    }
    free(held);
    return 0;
}

#undef AXIS_STEP
#undef AXIS
#undef AXIS_LOAD
#undef AXIS_TREE
