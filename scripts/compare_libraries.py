"""cured's default version against CuPy, PyTorch and NumPy on one GPU, in one process.

Two comparisons, float32 (or --dtype):
  device: the reduction of data already on the GPU, device time (CUDA events, median of --repeats
          after a warm-up): cured (V9, and CUB for reference, through cured.bench) against
          cupy.sum and torch.sum on the same values.
  end to end: from a NumPy array in host memory, wall clock (median): cured.sum(x) (the chunked,
          overlapped host path), cupy.asarray(x).sum(), torch.from_numpy(x).cuda().sum() (each
          synchronised), and numpy.sum(x) on the host; with the copy's ceilings beside them, a
          256 MiB host-to-device copy from pageable and from pinned memory.
Writes JSON (--json) with the device, date and every figure. Needs CuPy and PyTorch.
"""
import argparse
import datetime
import json
import statistics
import time

import cupy
import cupyx
import numpy as np
import torch

import cured
from cured.benchmark import L2_COVER, random_input


def event_median(fn, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    start = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    stream = torch.cuda.current_stream()
    for k in range(repeats):
        start[k].record(stream)
        fn()
        stop[k].record(stream)
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e-3 for s, e in zip(start, stop))


def wall_median(fn, repeats, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        fn()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def copy_bandwidth(pinned, repeats=5):
    """Host-to-device bandwidth of one 256 MiB copy (bytes/s, median), from pinned or pageable memory."""
    nbytes = 256 << 20
    host = cupyx.empty_pinned((nbytes,), np.uint8) if pinned else np.empty(nbytes, np.uint8)
    host[:] = 1
    device = cupy.empty(nbytes, np.uint8)
    stream = cupy.cuda.get_current_stream()
    seconds = wall_median(lambda: (device.set(host, stream=stream), stream.synchronize()), repeats)
    return nbytes / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--lengths", default="10,12,14,16,18,20,22,24,25,26,28,30", help="log2 lengths")
    parser.add_argument("--end-to-end", default="20,25,28", help="log2 lengths for the end-to-end rows")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    info = cured.device_info()
    rows = []
    # CuPy on PyTorch's current stream, so that one set of events times both.
    with cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
        for k in (int(v) for v in args.lengths.split(",")):
            x = random_input(1 << k, args.dtype)
            copies = max(1, -(-L2_COVER * info["l2_cache_bytes"] // x.nbytes))  # rotate past the L2
            tensors = [torch.from_numpy(x).cuda() for _ in range(min(copies, 4096))]
            arrays = [cupy.asarray(t) for t in tensors]
            turn = iter(range(1 << 62))
            row = {"n": 1 << k, "bytes": x.nbytes}
            row["cupy_s"] = event_median(lambda: arrays[next(turn) % len(arrays)].sum(), args.repeats)
            row["torch_s"] = event_median(lambda: tensors[next(turn) % len(tensors)].sum(), args.repeats)
            for version in (cured.DEFAULT_VERSION, "cub"):
                run = cured._cured.bench(x, version, args.repeats, 3, L2_COVER * info["l2_cache_bytes"])
                row[f"cured_v{version}_s" if version != "cub" else "cub_s"] = statistics.median(run["seconds"])
            del tensors, arrays
            torch.cuda.empty_cache()
            cupy.get_default_memory_pool().free_all_blocks()
            rows.append(row)
            print(f"2^{k:<3} " + "  ".join(f"{key[:-2]} {row[key] * 1e6:9.2f} us" for key in row if key.endswith("_s")), flush=True)
        ceilings = {"pageable_h2d_gbs": copy_bandwidth(False) / 1e9, "pinned_h2d_gbs": copy_bandwidth(True) / 1e9}
        print("copy ceilings: " + "  ".join(f"{k} {v:.1f}" for k, v in ceilings.items()), flush=True)
        e2e = []
        for k in (int(v) for v in args.end_to_end.split(",")):
            x = random_input(1 << k, args.dtype)
            repeats = max(3, args.repeats // 4)
            row = {"n": 1 << k, "bytes": x.nbytes,
                   "cured_s": wall_median(lambda: cured.sum(x, device="gpu"), repeats),
                   "cupy_s": wall_median(lambda: (cupy.asarray(x).sum(), cupy.cuda.get_current_stream().synchronize()), repeats),
                   "torch_s": wall_median(lambda: (torch.from_numpy(x).cuda().sum(), torch.cuda.synchronize()), repeats),
                   "numpy_s": wall_median(lambda: np.sum(x), repeats)}
            row["cured_over_best_other"] = min(row["cupy_s"], row["torch_s"], row["numpy_s"]) / row["cured_s"]
            e2e.append(row)
            print(f"end to end 2^{k:<3} " + "  ".join(f"{key[:-2]} {row['bytes'] / row[key] / 1e9:6.2f} GB/s" for key in row if key.endswith("_s"))
                  + f"  cured / best other {row['cured_over_best_other']:.2f}x", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": info, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                       "dtype": args.dtype, "repeats": args.repeats, "cupy": cupy.__version__, "torch": torch.__version__,
                       "numpy": np.__version__, "staging": cured._cured.staging(), "copy_ceilings": ceilings,
                       "device_resident": rows, "end_to_end": e2e}, f, indent=1)


if __name__ == "__main__":
    main()
