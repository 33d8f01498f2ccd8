"""Host arrays: wall time of numpy.sum, cured.sum on the CPU (device="cpu": V9's order on every CPU
thread), on the GPU (device="gpu": the staged copy) and as device="auto" chooses, beside a plain
pinned-to-device copy of the same bytes (cupy), 2^10 to 2^30 elements: where the CPU beats the
copy, which is what device="auto" needs to know. Medians of up to 2000 calls within 0.3 s each.
Prints a table; nothing reads it.
Usage: python3 scripts/probes/host_baseline.py [--cpus K] [--from E] [float32|float64 ...]; --cpus K
runs this process (the pool's threads and the staging lanes too) on its first K CPUs only, as on a
smaller host; --from E starts at 2^E elements (default 10).
"""
import os
import statistics
import sys
import time

import numpy as np

import cured


def wall(fn, budget=0.3):
    fn()
    times = []
    deadline = time.perf_counter() + budget
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 2000):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pinned_copy(nbytes):
    """A synchronous copy of nbytes from pinned host memory to the device, wall clock."""
    import cupy as cp

    host = cp.cuda.alloc_pinned_memory(nbytes)
    device = cp.empty(nbytes, cp.uint8)
    return lambda: cp.cuda.runtime.memcpy(device.data.ptr, host.ptr, nbytes, cp.cuda.runtime.memcpyHostToDevice)


def main():
    args = sys.argv[1:]
    first = 10
    while args[:1] in (["--cpus"], ["--from"]):
        if args[0] == "--cpus":
            os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:int(args[1])])
        else:
            first = int(args[1])
        args = args[2:]
    dtypes = args or ["float32", "float64"]
    print(f"{len(os.sched_getaffinity(0))} CPUs, {cured.device_info()['name']}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| dtype | n | numpy.sum us | cpu us | gpu us | auto us (where) | pinned copy us | numpy GB/s | cpu GB/s | "
          "gpu GB/s | copy GB/s | numpy / auto |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for dtype in dtypes:
        for e in range(first, 31, 2):
            x = np.random.default_rng(e).standard_normal(1 << e, dtype=np.float64).astype(dtype)
            assert cured.sum(x, device="cpu").tobytes() == cured.sum(x, device="gpu").tobytes()
            where = cured.sum(x, timing=True).timing.device
            t = {"numpy": wall(lambda: np.sum(x)), "cpu": wall(lambda: cured.sum(x, device="cpu")),
                 "gpu": wall(lambda: cured.sum(x, device="gpu")), "auto": wall(lambda: cured.sum(x)),
                 "copy": wall(pinned_copy(x.nbytes))}
            gbs = {k: x.nbytes / v / 1e9 for k, v in t.items()}
            print(f"| {dtype} | 2^{e} | {t['numpy'] * 1e6:.1f} | {t['cpu'] * 1e6:.1f} | {t['gpu'] * 1e6:.1f} | "
                  f"{t['auto'] * 1e6:.1f} ({where}) | {t['copy'] * 1e6:.1f} | {gbs['numpy']:.1f} | {gbs['cpu']:.1f} | "
                  f"{gbs['gpu']:.1f} | {gbs['copy']:.1f} | {t['numpy'] / t['auto']:.2f} |", flush=True)
            del x


if __name__ == "__main__":
    main()
