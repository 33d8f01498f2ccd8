"""The host path with and without the ramp of first chunks (staged.c, cured_chunks_make), in turns
with the pinned copy of the same bytes, wall time of the whole call (cured.walltime's method).

    python scripts/probes/host_ramp.py [--lengths 20,24,25,26,28,30] [--dtypes float32,float64]
                                       [--budget 1.5] [--lanes 0] [--chunk-mib 0]

Prints, a line a subject, the median, GB/s and the share of the pinned copy's speed; the same
array for every subject, fresh random data each run (seed printed). "ramp" is the setting: the ramp
applies only up to CURED_RAMP_MAX_CHUNKS_A_LANE chunks a lane (cured.h); docs/host_path.md's table
was taken with it on at every length, before that bound (raise the bound to repeat its long rows)."""
import argparse
import statistics
import time

import numpy as np

import cured
from cured import _cured
from cured.walltime import _pinned_copy, _wall_in_turns


def forced_staging(lanes, chunk_bytes, ramp, fn):
    def run():
        _cured._set_staging(lanes, chunk_bytes, ramp)
        try:
            return fn()
        finally:
            _cured._set_staging(0, 0)
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", default="20,24,25,26,28,30")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--budget", type=float, default=1.5, help="seconds a subject and length at most")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--lanes", type=int, default=0, help="0: the default")
    parser.add_argument("--chunk-mib", type=float, default=0, help="0: the default")
    args = parser.parse_args()
    import cupy

    seed = time.time_ns() % 2**32
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {seed}, "
          f"staging {_cured.staging()}, lanes {args.lanes or 'default'}, chunk MiB {args.chunk_mib or 'default'}",
          flush=True)
    rng = np.random.default_rng(seed)
    for dtype in args.dtypes.split(","):
        for log2 in map(int, args.lengths.split(",")):
            measure(rng.standard_normal(2**log2, dtype=np.float64).astype(dtype), args, cupy)
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()


def measure(h, args, cupy):
    chunk = int(args.chunk_mib * 2**20)
    expected = cured.sum(h, device="cpu")
    for ramp in (True, False):
        got = forced_staging(args.lanes, chunk, ramp, lambda: cured.sum(h, device="gpu"))()
        assert got.tobytes() == expected.tobytes(), (h.dtype, h.size, ramp, got, expected)
    subjects = {
        "ramp": forced_staging(args.lanes, chunk, True, lambda: cured.sum(h, device="gpu")),
        "no ramp": forced_staging(args.lanes, chunk, False, lambda: cured.sum(h, device="gpu")),
        "pinned copy": _pinned_copy(h.nbytes, cupy, None),
    }
    times = _wall_in_turns(subjects, args.repeats, args.budget)
    copy = statistics.median(times["pinned copy"])
    print(f"{h.dtype} 2^{h.size.bit_length() - 1} ({len(times['ramp'])} rounds)")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"  {name:12s} {m * 1e3:9.3f} ms {h.nbytes / m / 1e9:6.1f} GB/s  copy / this {copy / m:.3f}"
              f"  (low {min(ts) * 1e3:.3f}, high {max(ts) * 1e3:.3f})", flush=True)


if __name__ == "__main__":
    main()
