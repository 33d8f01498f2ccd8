"""Where the time of V10 along axes goes when the outputs are many: device time (CUDA events around
the call, median of 10 after a warm-up) of cured.fsum along axis 1 of standard-normal float32 rows
returning float32 results to the host, float64 results (dtype=np.float64), into a NumPy out=, into
a device out= of each dtype (the kernel alone), and V9's cured.sum beside them. A probe for
kernels/v10_axis.cu's header and docs/v10.md; it prints, nothing reads it.
"""
import cupy
import numpy as np

import cured
from v10_axis_speed import device_time  # this folder

print(cured.device_info()["name"])
for shape in [(2**20, 256), (2**24, 16)]:
    d = cupy.random.standard_normal(shape, dtype=cupy.float32)
    device32, device64 = cupy.empty(shape[0], cupy.float32), cupy.empty(shape[0], cupy.float64)
    host32 = np.empty(shape[0], np.float32)
    cases = [("host float32", lambda: cured.fsum(d, axis=1)),
             ("host float64", lambda: cured.fsum(d, axis=1, dtype=np.float64)),
             ("numpy out float32", lambda: cured.fsum(d, axis=1, out=host32)),
             ("device out float32", lambda: cured.fsum(d, axis=1, out=device32)),
             ("device out float64", lambda: cured.fsum(d, axis=1, dtype=np.float64, out=device64)),
             ("V9 host", lambda: cured.sum(d, axis=1))]
    for name, fn in cases:
        print(f"{str(shape):<14} {name:<20} {device_time(fn) * 1e3:8.3f} ms", flush=True)
    del d
