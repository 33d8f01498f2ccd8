"""Full-range rows that lose bits in float64 (kernels/v10_axis.cu): a lane sums each row again as a
float64 expansion (lane_row_sum) before the warp's exact state takes what is left: float32 rows of up
to 128 elements into a float32 out= (rounded by the float32 midpoints) and into a float64 out=
(round_to_float64), float64 rows into float64, where 2^20 rows or more take a lane a row; fewer
rows take several lanes a row (2^16 rows 16, 4096 rows 32, 2^18 rows 4, 2^19 rows 2), and the warps
the rows that lost bits. Device time (CUDA events, median of 10), with the share of rows whose float64 sum lost bits
(TwoSum on the host, as thread_row does; float64 rows lose bits where the errors' sum does, which
this does not model) and V9 on the same array. Run it in two builds to compare them. It prints,
nothing reads it.

    python scripts/probes/v10_expansion.py
"""
import cupy
import numpy as np

import cured
from v10_axis_speed import device_time  # this folder
from v10_short_rows import full_range  # this folder

SHAPES = [(2**26, 3), (2**24, 8), (2**24, 16), (2**23, 32), (2**22, 64), (2**21, 128), (2**20, 256), (2**16, 16),
          (4096, 48), (2**18, 64), (2**19, 128)]  # from (2**16, 16) on, 2 to 32 lanes a row
FLOAT64_SHAPES = [(2**25, 3), (2**24, 8), (2**23, 16), (2**22, 32), (2**21, 64), (2**20, 128), (2**20, 256),
                  (2**16, 16), (2**18, 64)]


def lost_share(x: np.ndarray) -> float:
    """Rows of x whose float64 running sum, element by element, had a TwoSum error."""
    total = np.full(x.shape[0], -0.0)
    lost = np.zeros(x.shape[0], bool)
    for k in range(x.shape[1]):
        b = x[:, k].astype(np.float64)
        s = total + b
        b_part = s - total
        lost |= ((total - (s - b_part)) + (b - b_part)) != 0.0
        total = s
    return float(lost.mean())


print(cured.device_info()["name"], cured._cured.__file__)
for shape in SHAPES:
    d = full_range(shape, "float32")
    share = lost_share(cupy.asnumpy(d[: min(shape[0], 2**16)]))
    out32, out64, out_v9 = cupy.empty(shape[0], cupy.float32), cupy.empty(shape[0], cupy.float64), \
        cupy.empty(shape[0], cupy.float32)
    v9 = device_time(lambda: cured.sum(d, axis=1, out=out_v9))
    into32 = device_time(lambda: cured.fsum(d, axis=1, out=out32))
    into64 = device_time(lambda: cured.fsum(d, axis=1, dtype=cupy.float64, out=out64))
    print(f"full range float32 {str(shape):<13} rows that lost bits {share:6.1%}  V9 {v9 * 1e3:7.3f} ms  "
          f"float32 out {into32 * 1e3:7.3f} ms  float64 out {into64 * 1e3:7.3f} ms", flush=True)
    del d, out32, out64, out_v9
    cupy.get_default_memory_pool().free_all_blocks()
for shape in FLOAT64_SHAPES:
    d = full_range(shape, "float64")
    out, out_v9 = cupy.empty(shape[0], cupy.float64), cupy.empty(shape[0], cupy.float64)
    v9 = device_time(lambda: cured.sum(d, axis=1, out=out_v9))
    exact = device_time(lambda: cured.fsum(d, axis=1, out=out))
    print(f"full range float64 {str(shape):<13} V9 {v9 * 1e3:7.3f} ms  float64 out {exact * 1e3:7.3f} ms", flush=True)
    del d, out, out_v9
    cupy.get_default_memory_pool().free_all_blocks()
