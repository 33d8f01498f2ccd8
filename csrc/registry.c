/* registry.c: the table of versions, built from CURED_VERSIONS in cured.h, and the dtype facts. */
#include <stddef.h>

#include "cured.h"

#define CURED_DECLARE_LAUNCHERS(id, sym, name, schedule, threads, per_thread, tree, summary)       \
    extern const cured_launch_table sym##_launchers;
CURED_VERSIONS(CURED_DECLARE_LAUNCHERS)
#undef CURED_DECLARE_LAUNCHERS

#define CURED_VERSION_ROW(id, sym, name, schedule, threads, per_thread, tree, summary)             \
    {(id), #sym, (name), (summary), (schedule), (threads), (per_thread), (tree), (id) == 0, &sym##_launchers},
const cured_version cured_versions[] = {CURED_VERSIONS(CURED_VERSION_ROW)};
#undef CURED_VERSION_ROW

const int cured_num_versions = (int)(sizeof cured_versions / sizeof cured_versions[0]);

const cured_version *cured_find_version(long id) {
    for (int k = 0; k < cured_num_versions; ++k)
        if (cured_versions[k].id == id) return &cured_versions[k];
    return NULL;
}

/* V9's kernel for the host path's fed mode (staged.c): V9 is the default version, and the one whose
 * host input the fed mode was measured for; the others launch a first stage a chunk. */
extern const cured_feed_table v9_one_launch_tiles_fed_launchers;
extern const cured_launch_table v9_one_launch_tiles_launchers;

const cured_feed_table *cured_feed_launchers(const cured_version *v) {
    return v != NULL && v->launchers == &v9_one_launch_tiles_launchers ? &v9_one_launch_tiles_fed_launchers : NULL;
}

#define CURED_DTYPE_NAME(code, name, size) name,
static const char *const dtype_names[] = {CURED_DTYPES(CURED_DTYPE_NAME)};
#undef CURED_DTYPE_NAME
#define CURED_DTYPE_SIZE(code, name, size) size,
static const int dtype_sizes[] = {CURED_DTYPES(CURED_DTYPE_SIZE)};
#undef CURED_DTYPE_SIZE
#define CURED_ACC_DTYPE(code, dtype) dtype,
static const cured_dtype acc_dtypes[] = {CURED_ACCS(CURED_ACC_DTYPE)};
#undef CURED_ACC_DTYPE

const char *cured_dtype_name(cured_dtype dtype) { return dtype_names[dtype]; }
int cured_dtype_size(cured_dtype dtype) { return dtype_sizes[dtype]; }
int cured_dtype_is_float(cured_dtype dtype) {
    return dtype == CURED_FLOAT16 || dtype == CURED_FLOAT32 || dtype == CURED_FLOAT64;
}
cured_dtype cured_acc_dtype(cured_acc acc) { return acc_dtypes[acc]; }

cured_acc cured_default_acc(cured_dtype dtype) {
    switch (dtype) {
    case CURED_UINT8: case CURED_UINT16: case CURED_UINT32: case CURED_UINT64: return CURED_ACC_UINT64;
    case CURED_FLOAT16: case CURED_FLOAT32: return CURED_ACC_FLOAT32;
    case CURED_FLOAT64: return CURED_ACC_FLOAT64;
    default: return CURED_ACC_INT64; /* bool and signed integers */
    }
}
