"""V10 along axis 1 of many short rows (kernels/v10_axis.cu: a lane or a few a row where float64
keeps the sum exact, the warp's exact state for the rest) against V9's axis kernels on the same
array: device time (CUDA events around the call, median of 10 after a warm-up) of each into a
device out= (the kernels alone, no copy to the host), standard-normal data, then data over the
dtype's whole exponent range (random bits made on the GPU, every exponent but the NaN's and infinities'), where
most rows go to the warp. A probe for kernels/v10_axis.cu's header and docs/v10.md; it prints, nothing reads it.

    python scripts/probes/v10_short_rows.py [DTYPE...]   (the cases of those dtypes alone)
"""
import sys

import cupy
import numpy as np

import cured
from v10_axis_speed import device_time  # this folder

# Rows of 16 and 64 float32 load 16 bytes at a time, rows of 3, 250 and 257 an element; from 257
# on a row takes 2, 4, ... 32 lanes (257: 2, 1000: 4, 4096: 16, 8192: 32); 8193 is the first length
# the warps take alone.
CASES = [("float32", (2**24, 16)), ("float32", (2**22, 64)), ("float32", (2**20, 256)), ("float32", (2**20, 250)),
         ("float32", (2**20, 257)), ("float32", (2**18, 1000)), ("float32", (4096, 4096)),
         ("float32", (2**15, 8192)), ("float32", (2**15, 8193)), ("float32", (2**26, 3)), ("float64", (2**23, 16)),
         ("float64", (2**24, 8)), ("float64", (2**20, 128)), ("float64", (2**18, 1000)), ("float64", (4096, 4096)),
         ("float16", (2**24, 16)), ("float16", (2**18, 1000))]



def full_range(shape, dtype):
    """Random bits of `dtype` on the GPU, the top exponent (NaN, infinities) moved one binade down."""
    bits = {"float16": cupy.uint16, "float32": cupy.uint32, "float64": cupy.uint64}[dtype]
    width = np.dtype(bits).itemsize * 8
    mantissa = {"float16": 10, "float32": 23, "float64": 52}[dtype]
    raw = cupy.random.randint(0, 1 << 32, size=shape, dtype=cupy.uint64)
    if width == 64:
        raw = (raw << 32) | cupy.random.randint(0, 1 << 32, size=shape, dtype=cupy.uint64)
    raw = raw.astype(bits)
    top = bits(((1 << (width - 1 - mantissa)) - 1) << mantissa)
    raw = cupy.where(raw & top == top, raw ^ bits(1 << mantissa), raw)
    return raw.view(dtype)


def main():
    print(cured.device_info()["name"], cured._cured.__file__)
    for data in ("standard normal", "full range"):
        for dtype, shape in CASES:
            if len(sys.argv) > 1 and dtype not in sys.argv[1:]:
                continue
            if data == "full range":
                d = full_range(shape, dtype)
            else:
                d = cupy.random.standard_normal(shape, dtype=cupy.float32).astype(dtype)
            out_v9 = cupy.empty(shape[0], dtype)
            out_v10 = cupy.empty(shape[0], dtype)
            v9 = device_time(lambda: cured.sum(d, axis=1, out=out_v9))
            v10 = device_time(lambda: cured.fsum(d, axis=1, out=out_v10))
            print(f"{data:<15} {dtype} {str(shape):<13} V9 {d.nbytes / v9 / 1e9:7.1f} GB/s ({v9 * 1e3:7.3f} ms)  "
                  f"V10 {d.nbytes / v10 / 1e9:7.1f} GB/s ({v10 * 1e3:7.3f} ms)", flush=True)
            del d, out_v9, out_v10
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
