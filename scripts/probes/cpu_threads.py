"""Host arrays on the CPU path: wall time of cured.sum(x, device="cpu") with its thread count forced
to 1, 2, 4, ... up to the CPUs this process may use, beside numpy.sum, 2^12 to 2^22 elements: where
a second thread starts paying for the pool's wake-up, which sets cpu_tiles.c's PARALLEL_BYTES and
BYTES_A_THREAD. Medians of up to 2000 calls within 0.2 s each. Prints a table; nothing reads it.
Usage: python3 scripts/probes/cpu_threads.py [float32|float64 ...]
"""
import os
import sys

import numpy as np

import cured
from cured import _cured

sys.path.insert(0, os.path.dirname(__file__))
from host_baseline import wall  # noqa: E402


def main():
    cpus = len(os.sched_getaffinity(0))
    counts = [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= cpus]
    print(f"{os.uname().nodename}: {cpus} CPUs; median us of cured.sum(device='cpu') with k threads, and numpy.sum")
    for dtype in sys.argv[1:] or ["float32", "float64"]:
        print(f"\n{dtype}\n| length | default | " + " | ".join(f"{t} threads" for t in counts) + " | numpy.sum |")
        print("| --- |" + " ---: |" * (len(counts) + 2))
        for log2 in range(12, 23):
            x = np.random.default_rng(log2).standard_normal(1 << log2).astype(dtype)
            cells = [wall(lambda: cured.sum(x, device="cpu"), 0.2)]
            for t in counts:
                _cured._set_cpu_tiles(t, 0)
                cells.append(wall(lambda: cured.sum(x, device="cpu"), 0.2))
            _cured._set_cpu_tiles(0, 0)
            cells.append(wall(lambda: np.sum(x), 0.2))
            print(f"| 2^{log2} | " + " | ".join(f"{c * 1e6:.1f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
