"""Transposed host arrays summed on the CPU (device="cpu"), wall time in turns with numpy.sum: as
cured reads them by default (csrc/cpu_gather.c: PASS_LINES source lines a row in one pass over the
rows, where the rows start on lines and a range of at most PASS_MOST_RANGE_BYTES holds them) and
with ranges forced to one source line's worth (cured_set_cpu_tiles' range_bytes: the range then
holds one line of each row, so a pass reads one, as before PASS_LINES). Every sum is checked
against the C-order copy's bits first. A probe for cpu_gather.c's header; nothing reads it.

    python scripts/probes/gather_passes.py [--budget 0.6]
"""
import argparse
import statistics

import numpy as np

import cured
from cured.walltime import _wall_in_turns


def forced(view, threads=0, range_bytes=0, gather=False):
    """A call of cured.sum(view, device="cpu") on `threads` threads in ranges of `range_bytes` (the
    test hook cured_set_cpu_tiles; 0: as the size asks), gathered even where cured reads it in place
    if `gather`, the hook put back after it."""
    def run():
        cured._cured._set_cpu_tiles(threads, False, range_bytes, gather)
        try:
            return cured.sum(view, device="cpu")
        finally:
            cured._cured._set_cpu_tiles(0, False, 0)
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=0.6, help="seconds a subject and case at most")
    args = parser.parse_args()
    seed = np.random.SeedSequence().entropy % 2**31
    print(f"seed {seed}", flush=True)
    rng = np.random.default_rng(seed)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    cases = [("(2048, 1024) float32 .T", f32(2048, 1024).T),
             ("(2048, 1024) float32 Fortran", np.asfortranarray(f32(2048, 1024))),
             ("(1024, 1024) float64 .T", rng.standard_normal((1024, 1024)).T),
             ("(2048, 2048) float64 .T", rng.standard_normal((2048, 2048)).T),
             ("(1024, 4096) float32 .T", f32(1024, 4096).T), ("(4096, 4096) float32 .T", f32(4096, 4096).T),
             ("(8192, 1000) float32 .T", f32(8192, 1000).T)]
    for name, view in cases:
        one_line = 64 * view.shape[-1]  # a range of one source line of every row (the view's row)
        copy = np.ascontiguousarray(view)
        assert cured.sum(view, device="cpu").tobytes() == cured.sum(copy, device="cpu").tobytes()
        subjects = {"numpy.sum": lambda: np.sum(view), "one line a pass": forced(view, range_bytes=one_line),
                    "cured": lambda: cured.sum(view, device="cpu")}
        med = {k: statistics.median(v) * 1e6 for k, v in _wall_in_turns(subjects, 100, args.budget).items()}
        ratios = (f"one line / cured {med['one line a pass'] / med['cured']:.2f}, "
                  f"numpy / cured {med['numpy.sum'] / med['cured']:.2f}")
        print(f"{name:30s}" + "  ".join(f"{k} {v:.0f} us" for k, v in med.items()) + "  " + ratios, flush=True)


if __name__ == "__main__":
    main()
