"""Full-range float32 rows that lose bits in float64 (kernels/v10_axis.cu): each row's lanes sum it
again as a float64 expansion (lane_expansion) before the warp's exact state takes what is left.
The expansion serves float32 results only, so one build compares them: cured.fsum(d, axis=1) into a
float32 out= (expansion, then the warps) against dtype=float64 into a float64 out= (the warps for
every row that lost bits), device time (CUDA events, median of 10), with the share of rows whose
float64 sum lost bits (TwoSum on the host, as thread_row does) and V9 on the same array. It prints,
nothing reads it.

    python scripts/probes/v10_expansion.py
"""
import cupy
import numpy as np

import cured
from v10_axis_speed import device_time  # this folder
from v10_short_rows import full_range  # this folder

SHAPES = [(2**26, 3), (2**24, 8), (2**24, 16), (2**23, 32), (2**22, 64), (2**20, 256), (2**16, 16), (4096, 48)]


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
    by_expansion = device_time(lambda: cured.fsum(d, axis=1, out=out32))
    by_warps = device_time(lambda: cured.fsum(d, axis=1, dtype=cupy.float64, out=out64))
    print(f"full range float32 {str(shape):<13} rows that lost bits {share:6.1%}  V9 {v9 * 1e3:7.3f} ms  "
          f"float32 out (expansion) {by_expansion * 1e3:7.3f} ms  float64 out (warps) {by_warps * 1e3:7.3f} ms",
          flush=True)
    del d, out32, out64, out_v9
    cupy.get_default_memory_pool().free_all_blocks()
