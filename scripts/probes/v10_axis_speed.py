"""V10 along axes of a device array (kernels/v10_axis.cu) against V9's axis kernels on the same
array: device time (CUDA events around the call, median of 10 after a warm-up; the call's own
copies included), standard-normal data, then (FULL_RANGE=1) data over the dtype's whole exponent
range as well (cured.benchmark.full_range). A probe for README and docs/; it prints, nothing reads it.
"""
import math
import os
import statistics

import cupy

import cured
from cured.benchmark import full_range

CASES = [("float64", (4096, 4096), 1), ("float64", (4096, 4096), 0), ("float32", (2**24, 16), 1),
         ("float32", (16, 2**24), 1), ("float32", (2**14, 2**14), 0), ("float64", (512, 512, 512), (0, 2)),
         ("float32", (2**20, 256), 1), ("float16", (16, 2**24), 1)]


def device_time(fn):
    """The median of 10 calls' device time (CUDA events on the current stream), after a warm-up."""
    fn()
    runs = []
    for _ in range(10):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        runs.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(runs)


def main():
    print(cured.device_info()["name"])
    data_kinds = ["standard normal"] + (["full range"] if os.environ.get("FULL_RANGE") else [])
    for data, (dtype, shape, axis) in [(data, case) for data in data_kinds for case in CASES]:
        if data == "full range":
            d = cupy.asarray(full_range(math.prod(shape), dtype).reshape(shape))
        else:
            d = cupy.random.standard_normal(shape, dtype=cupy.float32).astype(dtype)
        times = {name: device_time(fn) for name, fn in (("V9", lambda: cured.sum(d, axis=axis)),
                                                       ("V10", lambda: cured.fsum(d, axis=axis)))}
        gbs = {k: d.nbytes / v / 1e9 for k, v in times.items()}
        print(f"{data:<15} {dtype} {str(shape):<16} axis {str(axis):<7} V9 {gbs['V9']:8.1f} GB/s  "
              f"V10 {gbs['V10']:8.1f} GB/s ({times['V10'] * 1e3:.2f} ms)", flush=True)
        del d
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
