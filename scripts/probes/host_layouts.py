"""Sums of non-contiguous host arrays on the CPU (device="cpu": csrc/cpu_gather.c's C-order copy,
then the sum) against numpy.sum, which reads them in memory order: transposes, Fortran order,
steps and reversed axes, whole and along axes, wall time of the whole call, in turns in one
process. Prints a line a case; nothing reads it. No GPU needed.

    python scripts/probes/host_layouts.py
"""
import statistics

import numpy as np

import cured
from cured.walltime import _wall_in_turns


def main():
    rng = np.random.default_rng(1)
    m = rng.standard_normal((2048, 1024)).astype(np.float32)
    fortran = np.asfortranarray(m)
    m64 = rng.standard_normal((1024, 1024))
    x = rng.standard_normal(1 << 22).astype(np.float32)
    small = rng.standard_normal((256, 256)).astype(np.float32)
    cases = [("(2048, 1024) float32 .T", m.T, None), ("(2048, 1024) float32 .T", m.T, 0),
             ("(2048, 1024) float32 Fortran", fortran, None), ("(2048, 1024) float32 Fortran", fortran, 0),
             ("(2048, 1024) float32 Fortran", fortran, 1), ("(1024, 1024) float64 .T", m64.T, None),
             ("(2048, 1024) float32 [:, ::2]", m[:, ::2], None), ("2^22 float32 [::-1]", x[::-1], None),
             ("2^22 float32 [::2]", x[::2], None), ("(256, 256) float32 .T", small.T, None),
             ("(256, 256) float32 .T", small.T, 1), ("(256, 256) float32 [::-1]", small[::-1], 0)]
    for name, view, axis in cases:
        times = _wall_in_turns({"cured": lambda: cured.sum(view, axis=axis, device="cpu"),
                                "numpy": lambda: np.sum(view, axis=axis)}, 40, 0.5)
        med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        print(f"{name} axis {axis}: cured {med['cured']:.1f} us, numpy {med['numpy']:.1f}, "
              f"ratio {med['numpy'] / med['cured']:.2f}", flush=True)


if __name__ == "__main__":
    main()
