"""The wall-time method itself, A/B (issue 12): the same subjects timed one after another (each
subject's calls back to back, as the device rows were before 2026-11-23 14:30 UTC) and in turns
(one call of each in turn, cured.walltime._wall_in_turns), alternating A, B, A, B in one process.
Medians in microseconds. A probe for issue 12's notes; it prints, nothing reads it.

    python scripts/probes/turns_ab.py 10,12,16
"""
import statistics
import sys
import time

import cupy
import torch

import cured
from cured import _cured
from cured.walltime import _CAI, _wall, _wall_in_turns

REPEATS, BUDGET = 2000, 0.5
lengths = [1 << int(k) for k in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << 10, 1 << 16]
print(cured.device_info()["name"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
for dtype in ("float32", "float64"):
    for n in lengths:
        c = cupy.random.standard_normal(n, dtype=dtype)
        t, cai = torch.from_dlpack(c), _CAI(c)
        subjects = {
            "floor": lambda: _cured.floor(1),
            "cured(cupy)": lambda: cured.sum(c),
            "cured(torch)": lambda: cured.sum(t),
            "cured(cai)": lambda: cured.sum(cai),
            "t.sum().item()": lambda: t.sum().item(),
            "float(c.sum())": lambda: float(c.sum()),
        }
        for trial in range(2):
            one_after_another = {name: _cured.floor(REPEATS) if name == "floor" else _wall(fn, REPEATS, BUDGET)
                                 for name, fn in subjects.items()}
            in_turns = _wall_in_turns(subjects, REPEATS, BUDGET, self_timed={"floor"})
            for method, times in (("one after another", one_after_another), ("in turns", in_turns)):
                medians = {k: statistics.median(v) * 1e6 for k, v in times.items()}
                line = "  ".join(f"{k} {v:.2f}" for k, v in medians.items())
                ratio = medians["cured(cupy)"] / medians["floor"]
                best = min(medians["t.sum().item()"], medians["float(c.sum())"]) / medians["cured(cupy)"]
                print(f"{dtype} 2^{n.bit_length() - 1:<2} trial {trial} {method:>17}: {line}  "
                      f"cupy/floor {ratio:.2f}  best other/cupy {best:.2f}", flush=True)
