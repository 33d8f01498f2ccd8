"""Host time of a queued sum into a device element (out=) against an asynchronous torch.sum, timed
in turns (batches of 100 calls each, synchronised between batches), with the pieces a cured call
spends it on: the Python layer (cured._cured.sum called directly) and CuPy's interface dict. A
probe for docs/ and issue 12's notes; it prints, nothing reads it.

    python scripts/probes/out_host_time.py 10,20
"""
import statistics
import sys
import time

import cupy
import torch

import cured

lengths = [1 << int(k) for k in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << 10, 1 << 20]
print(cured.device_info()["name"])
for dtype in ("float32", "float64"):
    for n in lengths:
        c = cupy.random.standard_normal(n, dtype=dtype)
        t = torch.from_dlpack(c)
        oc, ot = cupy.empty((), dtype=dtype), torch.empty((), dtype=t.dtype, device=t.device)
        subjects = {
            "cured.sum(c, out=)": lambda: cured.sum(c, out=oc),
            "cured.sum(t, out=)": lambda: cured.sum(t, out=ot),
            "_cured.sum(c, out=)": lambda: cured._cured.sum(c, 9, None, "auto", False, oc),
            "torch.sum(t)": lambda: torch.sum(t),
            "2 CuPy interfaces": lambda: (c.__cuda_array_interface__, oc.__cuda_array_interface__),
        }
        times = {k: [] for k in subjects}
        for _ in range(3):
            for fn in subjects.values():
                fn()
        torch.cuda.synchronize()
        for _ in range(30):
            for name, fn in subjects.items():
                for _ in range(100):
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
                torch.cuda.synchronize()
        assert float(oc) == float(cured.sum(c)) and float(ot) == float(cured.sum(c))
        line = "  ".join(f"{k} {statistics.median(v) * 1e6:6.2f}" for k, v in times.items())
        print(f"{dtype} 2^{n.bit_length() - 1:<2} {line}  (median us)", flush=True)
