"""V10's float64 level 2, the threads' own digits against the warp's state with atomics (what a GPU
without the shared memory runs), in one process, in turns: device time, medians of V10 over V9.
A probe for docs/ and the kernel's header; it prints, nothing reads it."""
import sys

import cured

lengths = [1 << k for k in map(int, sys.argv[1].split(","))] if len(sys.argv) > 1 else [1 << k for k in (10, 12, 14, 16, 20, 26, 28)]
print(cured.device_info()["name"])
for data in ("normal", "full_range"):
    for n in lengths:
        ratio = {}
        for turn in range(3):
            for path, cap in (("digits", 0), ("atomics", 1)):
                cured._cured._set_test_dynamic_shared(cap)
                rows = cured.bench(versions=[9, 10], lengths=[n], dtype="float64", end_to_end=False, data=data, repeats=10)
                t = {r.version: r.time_median_s for r in rows}
                ratio.setdefault(path, []).append((t[10] * 1e6, t[9] / t[10]))
        cured._cured._set_test_dynamic_shared(0)
        line = "  ".join(f"{p}: V10 " + " ".join(f"{us:8.2f}" for us, _ in v) + " us, of V9 " + " ".join(f"{r:.3f}" for _, r in v)
                         for p, v in ratio.items())
        print(f"{data:>10} float64 2^{n.bit_length() - 1:<2} {line}", flush=True)
