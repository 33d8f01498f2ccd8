/* cpu_model_pass.h: one pass of the CPU order model for the accumulator type ACC_T, included by
 * cpu_model.c once per accumulator (ACC_T and ACC_NAME defined before each inclusion, and
 * cpu_model_axis.h after it, which uses its loads). */
#define CURED_CAT_(a, b) a##_##b
#define CURED_CAT(a, b) CURED_CAT_(a, b)
#define LOAD CURED_CAT(model_load, ACC_NAME)
#define TREE CURED_CAT(model_tree, ACC_NAME)
#define PASS CURED_CAT(model_pass, ACC_NAME)
#define TILES CURED_CAT(model_tiles, ACC_NAME)

/* Element i of in[0, n) converted to the accumulator, or 0 past the end, as cured::load does.
 * Conversions are C's, as on the GPU: integers into floating round to nearest, into 64-bit integer
 * accumulators they sign- or zero-extend (modulo 2^64). */
static ACC_T LOAD(const void *in, cured_dtype dtype, int64_t i, int64_t n) {
    if (i >= n) return (ACC_T)0;
    switch (dtype) {
    case CURED_BOOL: return (ACC_T)(((const uint8_t *)in)[i] != 0);
    case CURED_INT8: return (ACC_T)((const int8_t *)in)[i];
    case CURED_INT16: return (ACC_T)((const int16_t *)in)[i];
    case CURED_INT32: return (ACC_T)((const int32_t *)in)[i];
    case CURED_INT64: return (ACC_T)((const int64_t *)in)[i];
    case CURED_UINT8: return (ACC_T)((const uint8_t *)in)[i];
    case CURED_UINT16: return (ACC_T)((const uint16_t *)in)[i];
    case CURED_UINT32: return (ACC_T)((const uint32_t *)in)[i];
    case CURED_UINT64: return (ACC_T)((const uint64_t *)in)[i];
    /* Floating inputs reach only floating accumulators (the launch tables have no other pair). */
    case CURED_FLOAT16: return (ACC_T)cured_half_to_float(((const uint16_t *)in)[i]);
    case CURED_FLOAT32: return (ACC_T)((const float *)in)[i];
    case CURED_FLOAT64: return (ACC_T)((const double *)in)[i];
    case CURED_NUM_DTYPES: break;
    }
    return (ACC_T)0;
}

/* The block's tree over s[0, threads): s[0] becomes the block's sum, the pairs added in `tree`'s
 * order (cured.h). */
static void TREE(cured_tree_order tree, ACC_T *s, int threads) {
    if (tree == CURED_TREE_INTERLEAVED) {
        for (int stride = 1; stride < threads; stride *= 2)
            for (int t = 0; t < threads; t += 2 * stride) s[t] += s[t + stride];
    } else if (tree == CURED_TREE_SEQUENTIAL) {
        for (int stride = threads / 2; stride > 0; stride /= 2)
            for (int t = 0; t < stride; ++t) s[t] += s[t + stride];
    } else { /* WARPS: each warp's 32 lanes (shuffles), then the warps' sums, collected in s[0, warps) */
        const int warps = threads / 32;
        for (int w = 0; w < warps; ++w) {
            ACC_T *lane = s + 32 * w;
            for (int stride = 16; stride > 0; stride /= 2)
                for (int t = 0; t < stride; ++t) lane[t] += lane[t + stride];
            s[w] = lane[0];
        }
        for (int stride = warps / 2; stride > 0; stride /= 2)
            for (int t = 0; t < stride; ++t) s[t] += s[t + stride];
    }
}

/* Schedule PASSES, one pass: every block's partial sum, in the order the kernels add. For integer
 * accumulators ACC_T is uint64_t, whose wrap-around is the GPU's int64 and uint64 addition. */
static void PASS(const cured_version *v, const void *in, cured_dtype dtype, int64_t n, void *out_) {
    ACC_T *out = (ACC_T *)out_;
    ACC_T s[CURED_MAX_THREADS]; /* the block's shared memory */
    const int64_t per_block = cured_elements_per_block(v);
    const int64_t blocks = (n + per_block - 1) / per_block;
    const int threads = v->threads;
    for (int64_t b = 0; b < blocks; ++b) {
        /* Each thread adds its elements, `threads` apart, in order: load, then += load ... */
        for (int t = 0; t < threads; ++t) {
            const int64_t first = b * per_block + t;
            ACC_T sum = LOAD(in, dtype, first, n);
            for (int k = 1; k < v->per_thread; ++k) sum += LOAD(in, dtype, first + (int64_t)k * threads, n);
            s[t] = sum;
        }
        /* ... then the block's tree. */
        TREE(v->tree, s, threads);
        out[b] = s[0];
    }
}

/* Schedule TILES: the whole sum, as the V9 kernel computes it. `partials` has room for t.tiles. */
static ACC_T TILES(const cured_version *v, const void *in, cured_dtype dtype, int64_t n, ACC_T *partials) {
    const cured_tiles t = cured_tiles_of(v->threads, v->per_thread, cured_dtype_size(dtype), n);
    const int threads = v->threads;
    ACC_T s[CURED_MAX_THREADS];
    for (int64_t tile = 0; tile < t.tiles; ++tile) {
        /* Thread i adds, from 0, in (step, vector, element) order, vector u of a step at vector
         * index u * threads + i; past the end of the input, zeros. */
        for (int i = 0; i < threads; ++i) {
            ACC_T sum = (ACC_T)0;
            for (int64_t step = 0; step < t.steps; ++step)
                for (int u = 0; u < v->per_thread; ++u) {
                    const int64_t first = tile * t.tile + step * t.step + ((int64_t)u * threads + i) * t.vector;
                    for (int j = 0; j < t.vector; ++j) sum += LOAD(in, dtype, first + j, n);
                }
            s[i] = sum;
        }
        TREE(v->tree, s, threads);
        partials[tile] = s[0];
    }
    if (t.tiles == 1) return partials[0];
    /* The last block: thread i adds partials i, i + threads, ... from 0, then the tree. */
    for (int i = 0; i < threads; ++i) {
        ACC_T sum = (ACC_T)0;
        for (int64_t k = i; k < t.tiles; k += threads) sum += partials[k];
        s[i] = sum;
    }
    TREE(v->tree, s, threads);
    return s[0];
}

#undef LOAD
#undef TREE
#undef PASS
#undef TILES
