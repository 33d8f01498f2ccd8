"""What makes the 64 MiB axis rows move from one record to the next? (4096, 4096) float32 along 1
read 0.82 to 1.13 of CuPy in `python -m cured --axis` records (device time), 0.962 and 1.00 on the
H200 an hour apart with the same kernels. Two suspects: L2 (64 MiB against the H200's 60 MiB, so a
run may find part of the last run's input still cached, as much as its kernel's order leaves) and
the host (a call's kernels take 20 to 30 us; where queueing a call takes the host longer, the GPU
waits between a run's start event and its launch, and the events time that too).

Device time, median of 20 after 3 warm-ups, of cured, CuPy and V9 flat on the same arrays, three
times each way: each subject's runs back to back (the record's method until 2026-11-24 10:00
UTC); the same with an untimed read of twice the L2 before each run; and the subjects in turns,
queued behind a wait on the GPU (axis_bench.times_in_turns, the record's method since). A 1 GiB shape beside them as the control.
Prints a table; nothing reads it.

    python scripts/probes/axis_l2.py
"""
import statistics
import time

import cupy as cp

import cured
from cured.axis_bench import times_in_turns

CASES = [("float32", (4096, 4096)), ("float64", (4096, 4096)), ("float32", (1 << 14, 1 << 14))]


def back_to_back(fn, repeats, warmup, before=None):
    for _ in range(warmup):
        fn()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(repeats)]
    for start, stop in events:
        if before is not None:
            before()
        start.record()
        fn()
        stop.record()
    events[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(a, b) * 1e-3 for a, b in events]


def main():
    info = cured.device_info()
    print(f"{info['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    lines = cp.zeros(2 * cp.cuda.Device().attributes["L2CacheSize"] // 4, cp.float32)
    into = cp.empty((), cp.float32)
    methods = {
        "back to back": lambda subjects: {k: back_to_back(fn, 20, 3) for k, fn in subjects.items()},
        "L2 read first": lambda subjects: {k: back_to_back(fn, 20, 3, before=lambda: cp.sum(lines, out=into))
                                           for k, fn in subjects.items()},
        "in turns behind a wait": lambda subjects: times_in_turns(subjects, 20, 3),
    }
    for dtype, shape in CASES:
        x = cp.random.standard_normal(shape, dtype=cp.float64).astype(dtype)
        out, one = cp.empty(shape[0], dtype), cp.empty((), dtype)
        subjects = {
            "cured": lambda: cured.sum(x, axis=1, out=out),
            "cupy": lambda: cp.sum(x, axis=1),
            "V9 flat": lambda: cured.sum(x.reshape(-1), out=one),
        }
        for _ in range(3):
            for method, times in methods.items():
                gbs = {name: x.nbytes / statistics.median(ts) / 1e9 for name, ts in times(subjects).items()}
                print(f"{dtype} {shape} along 1, {method:22s}: "
                      + ", ".join(f"{k} {v:5.0f} GB/s" for k, v in gbs.items())
                      + f"; cured / cupy {gbs['cured'] / gbs['cupy']:.3f}", flush=True)
        del x, out, subjects
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
