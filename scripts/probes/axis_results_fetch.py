"""The whole call of a sum along axes that returns many results to the host: wall time
(time.perf_counter around the call, the results in a NumPy array), median of the rounds, the
subjects in turns each round: cured with the results through the lanes (csrc/fetch.c), cured with
one cudaMemcpy (fetch_min_bytes set past them), CuPy's `.sum(axis).get()` and PyTorch's
`.sum(dim).cpu()`. Then, for fetch.c's default threshold, results of 64 KiB to 16 MiB with the
threshold at 1 byte against past them. A probe for fetch.c's header; it prints, nothing reads it.

    python scripts/probes/axis_results_fetch.py [ROUNDS]
"""
import statistics
import sys
import time

import cupy
import numpy as np
import torch

import cured

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
NEVER = 1 << 62  # fetch_min_bytes past any result: one cudaMemcpy


def with_fetch_min(min_bytes, fn):
    def call():
        cured._cured._set_staging(0, 0, True, min_bytes)
        try:
            return fn()
        finally:
            cured._cured._set_staging(0, 0)
    return call


def in_turns(subjects):
    times = {name: [] for name in subjects}
    for fn in subjects.values():
        fn()  # warm: pinned buffers, pool threads, CuPy's and PyTorch's kernels
    for _ in range(ROUNDS):
        for name, fn in subjects.items():
            cupy.cuda.Device().synchronize()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main():
    print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), cured._cured.staging(),
          flush=True)
    for shape, dtype in [((2**20, 16), "float32"), ((2**22, 16), "float32"), ((2**24, 16), "float32"),
                         ((2**26, 4), "float32"), ((2**24, 8), "float64"), ((2**14, 2**14), "float32")]:
        d = cupy.random.standard_normal(shape, dtype=np.float32).astype(dtype)
        t = torch.as_tensor(d, device="cuda")
        lanes = with_fetch_min(1, lambda: cured.sum(d, axis=1))
        plain = with_fetch_min(NEVER, lambda: cured.sum(d, axis=1))
        assert np.array_equal(lanes(), plain())
        medians = in_turns({"cured, lanes": lanes, "cured, one copy": plain,
                            "cupy .get()": lambda: d.sum(axis=1).get(), "torch .cpu()": lambda: t.sum(dim=1).cpu()})
        best_peer = min(medians["cupy .get()"], medians["torch .cpu()"])
        line = "  ".join(f"{name} {m * 1e3:8.3f} ms" for name, m in medians.items())
        print(f"{str(shape):<14} {dtype:<8} {line}  peer / lanes {best_peer / medians['cured, lanes']:.2f}",
              flush=True)
        del d, t
    for log2_bytes in range(16, 25, 2):
        d = cupy.random.standard_normal((2**log2_bytes // 4, 4), dtype=np.float32)
        medians = in_turns({"lanes": with_fetch_min(1, lambda: cured.sum(d, axis=1)),
                            "one copy": with_fetch_min(NEVER, lambda: cured.sum(d, axis=1))})
        print(f"results of 2^{log2_bytes} bytes: lanes {medians['lanes'] * 1e3:8.3f} ms  one copy "
              f"{medians['one copy'] * 1e3:8.3f} ms", flush=True)


if __name__ == "__main__":
    main()
