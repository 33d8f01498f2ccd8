"""Where the host path's fixed cost goes (staged.c): wall time of `cured.sum(x, device="gpu",
timing=True)` under several staging settings (lanes x chunk MiB, the ramp on or off), in turns with
the pinned copy of the same bytes, at several lengths; then, for each subject, a least-squares line
through its medians, time = fixed + bytes / rate. The timed call's own split (h2d_s, reduce_s,
d2h_s, CUDA events from its start) says how much of the wall time lies outside the GPU's timeline
(the set-up before the first event, the waits after). How the fixed cost moves with the lanes and
the chunk says what it is: the lanes' first copies sharing the host's memory before the bus has
work would grow with lanes x chunk; the pool's wake-ups with the lanes alone.

    python scripts/probes/host_overhead.py [--lengths 24,25,26,27,28] [--dtype float32]
        [--configs 10x4,1x4] [--budget 1.0]

A config is LANESxCHUNK_MIB, with ":noramp" for chunks of one size from the first, ":copy" for
each chunk copied into device memory before its reduction (mode "copied") and ":launch" for a
reduction launched on each pinned staging buffer (mode "direct"); else one kernel reads them all
(mode "fed", the default since 2026-11-28 07:00 UTC). ":gN" forces N blocks on the tiled kernels
(_set_test_launch). The run of 2026-11-28 04:05 UTC that docs/host_path.md
reports was today's 10x4:copy,1x4:copy (printed there as "gpu, default lanes" and "gpu, one lane",
with a one-thread NumPy copy beside them). A probe for
docs/host_path.md; nothing reads it. Fresh random data each run (seed printed)."""
import argparse
import contextlib
import statistics
import time

import numpy as np

import cured
from cured import _cured
from cured.walltime import _pinned_copy, _wall_in_turns


def parse_config(text):
    """'10x4', '10x4:noramp', '10x4:copy', '10x1:g64', ... -> (lanes, chunk bytes, ramp, mode, grid)."""
    spec, *flags = text.split(":")
    lanes, chunk_mib = spec.split("x")
    modes = {"copy": "copied", "launch": "direct"}
    grids = [f for f in flags if f[:1] == "g" and f[1:].isdigit() and int(f[1:]) > 0]
    if set(flags) - {"noramp", *modes, *grids} or len(set(flags) & set(modes)) > 1 or len(grids) > 1:
        raise ValueError(f"config {text!r}: the flags are ':noramp', one of ':copy' and ':launch', and ':gN'")
    mode = next((modes[f] for f in flags if f in modes), "fed")
    return int(lanes), int(float(chunk_mib) * 2**20), "noramp" not in flags, mode, int(grids[0][1:]) if grids else 0


@contextlib.contextmanager
def staging_as(config):
    """The host path staged as config says, for the calls inside; then as it was by default."""
    lanes, chunk_bytes, ramp, mode, grid = config
    _cured._set_staging(lanes, chunk_bytes, ramp, mode=mode)
    _cured._set_test_launch(grid, 0)
    try:
        yield
    finally:
        _cured._set_test_launch(0, 0)
        _cured._set_staging(0, 0)


def add_staging_arguments(parser, lengths, configs, repeats):
    """The arguments this probe and staging_trace.py share."""
    parser.add_argument("--lengths", default=lengths)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--configs", default=configs, help="LANESxCHUNK_MIB[:noramp][:copy|:launch][:gN], comma-separated")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a subject and length at most")
    parser.add_argument("--repeats", type=int, default=repeats)


def seeded_rng():
    """A fresh seed, printed with the GPU and the time, and its generator: (seed, rng)."""
    seed = int(time.time()) % 2**31
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {seed}",
          flush=True)
    return seed, np.random.default_rng(seed)


def in_turns_with_copy(h, subjects, records, args, cupy):
    """Checks each subject's bits against the CPU's once, forgets what those calls recorded in
    records[name], then times the subjects and the pinned copy of h's bytes in turns."""
    expected = cured.sum(h, device="cpu")
    for name, run in subjects.items():
        assert run().tobytes() == expected.tobytes(), (name, h.size)
        records[name].clear()
    return _wall_in_turns({**subjects, "pinned copy": _pinned_copy(h.nbytes, cupy, None)}, args.repeats, args.budget)


def staged(h, config, splits):
    def run():
        with staging_as(config):
            value, timing = cured.sum(h, device="gpu", timing=True)
        splits.append(timing)
        return value
    return run


def line(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main():
    parser = argparse.ArgumentParser()
    add_staging_arguments(parser, "24,25,26,27,28", "10x4,1x4", 100)
    args = parser.parse_args()
    import cupy
    configs = {text: parse_config(text) for text in args.configs.split(",")}
    _, rng = seeded_rng()
    medians = {}
    for log2 in (int(v) for v in args.lengths.split(",")):
        h = rng.standard_normal(2**log2, dtype=np.float64).astype(args.dtype)
        splits = {text: [] for text in configs}
        subjects = {text: staged(h, config, splits[text]) for text, config in configs.items()}
        times = in_turns_with_copy(h, subjects, splits, args, cupy)
        print(f"{args.dtype} 2^{log2}, {h.nbytes / 2**20:.0f} MiB ({len(times['pinned copy'])} rounds):")
        for name, ts in times.items():
            m = statistics.median(ts)
            medians.setdefault(name, []).append((h.nbytes, m))
            line_text = f"  {name:14s} {m * 1e3:9.3f} ms {h.nbytes / m / 1e9:6.1f} GB/s  (low {min(ts) * 1e3:.3f})"
            if name in splits:
                part = lambda f: statistics.median(getattr(s, f) for s in splits[name]) * 1e3
                outside = statistics.median(s.total_s - s.h2d_s - s.reduce_s - s.d2h_s for s in splits[name]) * 1e3
                line_text += (f"  h2d {part('h2d_s'):.3f} reduce {part('reduce_s'):.3f} d2h {part('d2h_s'):.3f}"
                              f" outside the events {outside:.3f}")
            print(line_text, flush=True)
        del h
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    print("time = fixed + bytes / rate, least squares through the medians above:")
    for name, points in medians.items():
        a, b = line([p[0] for p in points], [p[1] for p in points])
        print(f"  {name:14s} fixed {a * 1e3:7.3f} ms, rate {1 / b / 1e9:6.1f} GB/s")


if __name__ == "__main__":
    main()
