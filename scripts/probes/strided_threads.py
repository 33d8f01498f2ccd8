"""Non-contiguous host arrays summed on the CPU (device="cpu") on 1, 2, 4, 8 and 16 threads forced
(cured_set_cpu_tiles) and as cured picks them (cpu_tiles.c's v9_sum: a gathered input counts
STRIDED_WORK (float64: GATHERED_F64_WORK) times its bytes in cpu_work.c's rule, one read in place the
bytes its loads span), wall time in turns with numpy.sum, from 128 KiB to 8 MiB (--shapes picks
others): transposes (read in place where transposed_in_place says so, else gathered), every other
element (x[:, ::2]), reversed axes (both read in place: cpu_tiles.c's in_place), and contiguous
arrays (cpu_work.c's rule itself); --layouts picks some of them. Run it under `taskset -c 0-1` and
the like to see the rule on fewer CPUs (the pool takes the CPUs the process may use). Last, each on
one thread gathered even where cured reads it in place (the hook's `gather`), to set the in-place
reads against the gather. Every sum is checked against its C-order copy's bits first. Prints a line
a case, the medians in us and numpy.sum's time over cured's; nothing reads it.

    python scripts/probes/strided_threads.py [--budget 0.4] [--layouts .T,::2,reversed,contiguous]
                                             [--shapes 256x128,300x200,...]
"""
import argparse
import os
import statistics

import numpy as np

import cured
from cured.walltime import _wall_in_turns
from gather_passes import forced


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=0.4, help="seconds a subject and case at most")
    parser.add_argument("--layouts", default=".T,::2,reversed,contiguous", help="which layouts, comma-separated")
    parser.add_argument("--shapes", default="256x128,256x256,512x256,512x512,1024x512,1024x1024",
                        help="the matrices' (rows, columns), comma-separated RxC")
    args = parser.parse_args()
    layouts = args.layouts.split(",")
    seed = np.random.SeedSequence().entropy % 2**31
    cpus = len(os.sched_getaffinity(0))
    print(f"seed {seed}, {cpus} CPUs", flush=True)
    rng = np.random.default_rng(seed)
    threads = [k for k in (1, 2, 4, 8, 16) if k <= cpus]
    cases = []
    for rows, columns in [tuple(int(k) for k in shape.split("x")) for shape in args.shapes.split(",")]:
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal((rows, columns)).astype(dtype)
            name = np.dtype(dtype).name
            stepped = rng.standard_normal((rows, 2 * columns)).astype(dtype)[:, ::2]
            for layout, case, view in [(".T", f"({rows}, {columns}) {name} .T", x.T),
                                       ("::2", f"({rows}, {2 * columns}) {name} [:, ::2]", stepped),
                                       ("reversed", f"({rows}, {columns}) {name} [::-1, ::-1]", x[::-1, ::-1]),
                                       ("contiguous", f"({rows}, {columns}) {name} contiguous", x)]:
                if layout in layouts:
                    cases.append((case, view))
    for name, view in cases:
        want = cured.sum(np.ascontiguousarray(view), device="cpu").tobytes()
        subjects = {"numpy.sum": lambda: np.sum(view), "cured": lambda: cured.sum(view, device="cpu")}
        subjects.update({f"{k} threads": forced(view, threads=k) for k in threads})
        subjects["gathered, 1 thread"] = forced(view, threads=1, gather=True)
        for subject in list(subjects)[1:]:
            assert subjects[subject]().tobytes() == want, (name, subject)
        med = {k: statistics.median(v) * 1e6 for k, v in _wall_in_turns(subjects, 100, args.budget).items()}
        times = ", ".join(f"{k} {v:.1f}" for k, v in med.items())
        print(f"{name} ({view.nbytes >> 10} KiB): {times}; numpy / cured {med['numpy.sum'] / med['cured']:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
