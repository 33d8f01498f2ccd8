"""Where the host path's fixed cost goes (staged.c): wall time of `cured.sum(x, device="gpu",
timing=True)` with the default lanes and with one lane, in turns with the pinned copy of the same
bytes and a one-thread NumPy copy of them (host memory's speed for one thread), at several lengths;
then, for each subject, a least-squares line through its medians, time = fixed + bytes / rate. The
timed call's own split (h2d_s, reduce_s, d2h_s, CUDA events from its start) says how much of the
wall time lies outside the GPU's timeline (the set-up before the first event, the waits after).

    python scripts/probes/host_overhead.py [--lengths 24,25,26,27,28] [--dtype float32] [--budget 1.0]

A probe for docs/host_path.md; nothing reads it. Fresh random data each run (seed printed)."""
import argparse
import statistics
import time

import numpy as np

import cured
from cured import _cured
from cured.walltime import _pinned_copy, _wall_in_turns


def one_lane(h):
    def run():
        _cured._set_staging(1, 0)
        try:
            return cured.sum(h, device="gpu")
        finally:
            _cured._set_staging(0, 0)
    return run


def line(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", default="24,25,26,27,28")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a subject and length at most")
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    import cupy
    seed = int(time.time()) % 2**31
    rng = np.random.default_rng(seed)
    info = cured.device_info()
    print(f"{info['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {seed}", flush=True)
    medians = {}
    for log2 in (int(v) for v in args.lengths.split(",")):
        h = rng.standard_normal(2**log2, dtype=np.float64).astype(args.dtype)
        expected = cured.sum(h, device="cpu")
        assert cured.sum(h, device="gpu").tobytes() == expected.tobytes()
        assert one_lane(h)().tobytes() == expected.tobytes()
        target = np.empty_like(h)
        splits = []

        def timed():
            splits.append(cured.sum(h, device="gpu", timing=True).timing)

        subjects = {"gpu, default lanes": timed, "gpu, one lane": one_lane(h),
                    "pinned copy": _pinned_copy(h.nbytes, cupy, None),
                    "numpy copy, one thread": lambda: np.copyto(target, h)}
        times = _wall_in_turns(subjects, args.repeats, args.budget)
        print(f"{args.dtype} 2^{log2}, {h.nbytes / 2**20:.0f} MiB ({len(times['pinned copy'])} rounds):")
        for name, ts in times.items():
            m = statistics.median(ts)
            medians.setdefault(name, []).append((h.nbytes, m))
            print(f"  {name:24s} {m * 1e3:9.3f} ms {h.nbytes / m / 1e9:6.1f} GB/s  (low {min(ts) * 1e3:.3f})")
        part = lambda f: statistics.median(getattr(s, f) for s in splits) * 1e3
        outside = statistics.median(s.total_s - s.h2d_s - s.reduce_s - s.d2h_s for s in splits) * 1e3
        print(f"  default lanes' split (ms, medians): total {part('total_s'):.3f} h2d {part('h2d_s'):.3f} reduce "
              f"{part('reduce_s'):.3f} d2h {part('d2h_s'):.3f}; outside the events {outside:.3f}", flush=True)
        del h, target
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    print("time = fixed + bytes / rate, least squares through the medians above:")
    for name, points in medians.items():
        a, b = line([p[0] for p in points], [p[1] for p in points])
        print(f"  {name:24s} fixed {a * 1e3:7.3f} ms, rate {1 / b / 1e9:6.1f} GB/s")


if __name__ == "__main__":
    main()
