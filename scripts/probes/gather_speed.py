"""The copy of a strided device array (kernels/gather.cu) as cured.sum and cured.fsum pay for it:
device time (CUDA events around the call, median of 10 after a warm-up) of V9 and V10 on transposed
and reversed views of 2^26-element arrays against the same arrays contiguous, and of V10 along axis
0 (each column copied into a row). A probe for gather.cu's header; it prints, nothing reads it.
"""
import cupy

import cured
from v10_axis_speed import device_time  # this folder

print(cured.device_info()["name"])
for dtype in ("float32", "float64"):
    d = cupy.random.standard_normal((8192, 8192), dtype=dtype)
    cube = d.reshape(64, 1024, 1024)
    cases = [("contiguous", d, None), ("transposed d.T", d.T, None), ("3-d transpose(2, 0, 1)", cube.transpose(2, 0, 1), None),
             ("reversed d[::-1]", d[::-1], None), ("axis 0", d, 0)]
    for label, view, axis in cases:
        for name, fn in (("V9", lambda: cured.sum(view, axis=axis)), ("V10", lambda: cured.fsum(view, axis=axis))):
            if axis is not None and name == "V9":
                continue  # V9 reads columns in place
            t = device_time(fn)
            print(f"{dtype} {label:<24} {name:<4} {d.nbytes / t / 1e9:8.1f} GB/s ({t * 1e3:.3f} ms)", flush=True)
    del d, cube
    cupy.get_default_memory_pool().free_all_blocks()
