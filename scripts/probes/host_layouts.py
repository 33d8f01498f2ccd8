"""Sums of non-contiguous host arrays on the CPU (device="cpu") against numpy.sum, which reads them
in memory order: transposes, Fortran order, steps and reversed axes, whole and along axes, wall
time of the whole call, in turns in one process. A whole sum reads the array in place, a range of
its C order at a time (csrc/cpu_gather.c's ranges, cpu_tiles.c's strided tasks; integers in memory
order); "copied" times the path that preceded it, the C-order copy (cpu_gather.c) then the sum.
Where a GPU is there, the whole sums on the GPU path too (device="gpu": the staging lanes gather
their chunks; "gpu copied": the copy first). Prints a line a case; nothing reads it.

    python scripts/probes/host_layouts.py
"""
import statistics

import numpy as np

import cured
from cured.walltime import _wall_in_turns


def at_line_offset(x, offset):
    """A copy of x whose data starts `offset` bytes past a 64-byte line."""
    raw = np.empty(x.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    y = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    y[...] = x
    return y


def main():
    try:
        print(cured.device_info()["name"], flush=True)
        gpu = True
    except cured.CudaError:
        gpu = False
    rng = np.random.default_rng(1)
    m = rng.standard_normal((2048, 1024)).astype(np.float32)
    fortran = np.asfortranarray(m)
    m64 = rng.standard_normal((1024, 1024))
    x = rng.standard_normal(1 << 22).astype(np.float32)
    small = rng.standard_normal((256, 256)).astype(np.float32)
    mid = rng.standard_normal((512, 512)).astype(np.float32)
    ints = rng.integers(-1000, 1000, (2048, 1024))
    cases = [("(2048, 1024) float32 .T", m.T, None), ("(2048, 1024) float32 .T", m.T, 0),
             ("(2048, 1024) float32 .T, data at a line", at_line_offset(m, 0).T, None),
             ("(2048, 1024) float32 .T, 16 bytes past a line", at_line_offset(m, 16).T, None),
             ("(2048, 1024) float32 Fortran", fortran, None), ("(2048, 1024) float32 Fortran", fortran, 0),
             ("(2048, 1024) float32 Fortran", fortran, 1), ("(1024, 1024) float64 .T", m64.T, None),
             ("(2048, 1024) int64 .T", ints.T, None), ("(2048, 1024) float32 [:, ::2]", m[:, ::2], None),
             ("2^22 float32 [::-1]", x[::-1], None), ("2^22 float32 [::2]", x[::2], None),
             ("(512, 512) float32 .T", mid.T, None), ("(256, 256) float32 .T", small.T, None),
             ("(256, 256) float32 .T", small.T, 1), ("(256, 256) float32 [::-1]", small[::-1], 0),
             ("(256, 256) float32 [::-1, ::-1]", small[::-1, ::-1], None)]
    for name, view, axis in cases:
        subjects = {"cured": lambda: cured.sum(view, axis=axis, device="cpu"),
                    "numpy": lambda: np.sum(view, axis=axis)}
        if axis is None:
            subjects["copied"] = lambda: cured.sum(cured._cured._c_order_copy(view), device="cpu")
            if gpu:
                subjects["gpu"] = lambda: cured.sum(view, device="gpu")
                subjects["gpu copied"] = lambda: cured.sum(cured._cured._c_order_copy(view), device="gpu")
        times = _wall_in_turns(subjects, 40, 0.5)
        med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        more = "".join(f", {k} {med[k]:.1f}" for k in ("copied", "gpu", "gpu copied") if k in med)
        print(f"{name} axis {axis}: cured {med['cured']:.1f} us, numpy {med['numpy']:.1f}{more}, "
              f"numpy / cured {med['numpy'] / med['cured']:.2f}", flush=True)


if __name__ == "__main__":
    main()
