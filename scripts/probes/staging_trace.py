"""Where a host-path sum's time goes, chunk by chunk (staged.c, traced by staged_trace.c): for each
length and staging setting, `cured.sum(x, device="gpu", timing=True)` with the trace on, in turns
with the pinned copy of the same bytes (whose speed is the bus's, R), then from each call's trace:

- bus idle: the last chunk's copy end on the GPU (the event follows its first stage too, a few
  microseconds; ":launch": the end of the first stage alone, which reads it over the bus; fed: the
  GPU's clock as the kernel's block had read it) minus the
  bytes / R, the time the bus could have moved the whole input in; split into before the first
  chunk's bytes (its copy end minus its bytes / R) and later (gaps between chunks);
- the lanes: when each took its first chunk (the pool's wake-ups), how long its first host copy
  took, how many chunks it did, how long it waited for a free staging buffer (the bus behind), and
  the host copies' rate;
- the tail: from the last copy's end to the caller's wake after the wait.

Prints, per subject, the median over its calls of each figure, and the trace of the call whose
bus idle was the median one, a chunk a line, with --show-chunks.

    python scripts/probes/staging_trace.py [--lengths 25,26,28] [--dtype float32]
        [--configs 10x4:launch,10x1,10x0.25,14x1] [--budget 1.0] [--show-chunks] [--json PATH]

A config is LANESxCHUNK_MIB, with ":noramp" for chunks of one size from the first, and ":copy" (the
copy of each chunk into device memory before its reduction) or ":launch" (a reduction launched on
each pinned staging buffer), else one fed kernel, and ":gN" a forced grid, as in host_overhead.py.
The wall time printed includes reading the trace back (tens of microseconds); the call's own split
does not. A probe for docs/host_path.md; nothing reads it. Fresh random data each run (seed printed)."""
import argparse
import json
import statistics

import numpy as np

import cured
from cured import _cured
from host_overhead import add_staging_arguments, in_turns_with_copy, parse_config, seeded_rng, staging_as  # this folder's


def traced(h, config, traces):
    def run():
        _cured._set_staging_trace(True)
        try:
            with staging_as(config):
                value, timing = cured.sum(h, device="gpu", timing=True)
        finally:
            _cured._set_staging_trace(False)
        traces.append((timing, _cured._staging_trace()))
        return value
    return run


def figures(timing, trace, rate):
    """The figures above for one call, seconds (rate: the bus's bytes a second)."""
    rows = trace["chunks"]
    total = sum(r["bytes"] for r in rows)
    first = min(rows, key=lambda r: r["copied"])
    last_copied = max(r["copied"] for r in rows)
    idle = last_copied - total / rate
    idle_first = first["copied"] - first["bytes"] / rate
    lanes = {}
    for r in sorted(rows, key=lambda r: r["took"]):
        lanes.setdefault(r["lane"], []).append(r)
    first_takes = sorted(chunks[0]["took"] for chunks in lanes.values())
    first_copies = [chunks[0]["staged"] - chunks[0]["took"] - chunks[0]["waited"] for chunks in lanes.values()]
    host_copy = sum(r["staged"] - r["took"] - r["waited"] for r in rows)
    return {
        "wall": timing.total_s, "h2d": timing.h2d_s,
        "idle": idle, "idle before the first bytes": idle_first, "idle later": idle - idle_first,
        "lanes start": trace["lanes_start"], "first take": first_takes[0], "last lane's first take": first_takes[-1],
        "first host copy (median lane)": statistics.median(first_copies),
        "waited for buffers (all lanes)": sum(r["waited"] for r in rows),
        "host copy GB/s a lane": total / host_copy / 1e9,  # a lane's own rate while it copies
        "host copies GB/s together": total / (max(r["staged"] for r in rows) - min(r["took"] for r in rows)) / 1e9,
        "last copy end": last_copied, "lanes end": trace["lanes_end"],
        "tail to the caller's wake": trace["waited"] - last_copied,
        "lanes": len(lanes), "chunks": len(rows),
    }


def main():
    parser = argparse.ArgumentParser()
    add_staging_arguments(parser, "25,26,28", "10x4:launch,10x1,10x0.25,14x1", 40)
    parser.add_argument("--show-chunks", action="store_true", help="print the median call's trace")
    parser.add_argument("--json", help="write every call's trace here")
    args = parser.parse_args()
    import cupy
    configs = {text: parse_config(text) for text in args.configs.split(",")}
    seed, rng = seeded_rng()
    dump = []
    for log2 in (int(v) for v in args.lengths.split(",")):
        h = rng.standard_normal(2**log2, dtype=np.float64).astype(args.dtype)
        traces = {text: [] for text in configs}
        subjects = {text: traced(h, config, traces[text]) for text, config in configs.items()}
        times = in_turns_with_copy(h, subjects, traces, args, cupy)
        copy = statistics.median(times["pinned copy"])
        rate = h.nbytes / copy
        print(f"\n{args.dtype} 2^{log2}, {h.nbytes / 2**20:.0f} MiB ({len(times['pinned copy'])} rounds); "
              f"pinned copy {copy * 1e3:.3f} ms, R = {rate / 1e9:.1f} GB/s", flush=True)
        for text in configs:
            calls = traces[text][-len(times[text]):]  # the warm-up's calls first
            each = [figures(timing, trace, rate) for timing, trace in calls]
            wall = statistics.median(times[text])
            print(f"  {text}: wall {wall * 1e3:.3f} ms ({copy / wall:.2f} of the copy's speed), "
                  f"{each[0]['lanes']} lanes, {each[0]['chunks']} chunks; medians of {len(each)} calls:")
            for key in each[0]:
                if key in ("lanes", "chunks"):
                    continue
                m = statistics.median(e[key] for e in each)
                print(f"    {key:32s} {m:9.3f}" if "GB/s" in key else f"    {key:32s} {m * 1e3:9.3f} ms")
            order = sorted(range(len(each)), key=lambda i: each[i]["idle"])
            median_call = calls[order[len(order) // 2]][1]
            if args.show_chunks:
                print("    chunk lane   MiB   took  waited  staged  queued  copied  (ms; the median call)")
                for r in median_call["chunks"]:
                    print(f"    {r['chunk']:5d} {r['lane']:4d} {r['bytes'] / 2**20:5.2f} {r['took'] * 1e3:6.3f} "
                          f"{r['waited'] * 1e3:7.3f} {r['staged'] * 1e3:7.3f} {r['queued'] * 1e3:7.3f} "
                          f"{r['copied'] * 1e3:7.3f}")
            dump.append({"length": 2**log2, "dtype": args.dtype, "config": text, "copy_s": copy,
                         "wall_s": times[text], "traces": [trace for _, trace in calls]})
        del h
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": cured.device_info()["name"], "seed": seed, "runs": dump}, f)


if __name__ == "__main__":
    main()
