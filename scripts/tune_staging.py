"""The host path's lanes and chunk size, swept: wall-clock medians of cured.sum on a NumPy float32
array at each setting, in one process, for choosing the defaults in csrc/staged.c.

    python scripts/tune_staging.py [--json out.json]
"""
import argparse
import datetime
import json
import statistics
import time

import cured
from cured.benchmark import random_input


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="25,28", help="log2 lengths")
    parser.add_argument("--lanes", default="1,2,4,6,8,12")
    parser.add_argument("--chunks-mib", default="1,2,4,8,16")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for k in (int(v) for v in args.lengths.split(",")):
        x = random_input(1 << k, "float32")
        for lanes in (int(v) for v in args.lanes.split(",")):
            for mib in (float(v) for v in args.chunks_mib.split(",")):
                cured._cured._set_staging(lanes, int(mib * 2**20))
                cured.sum(x, device="gpu")  # warm: staging buffers of this size
                times = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    cured.sum(x, device="gpu")
                    times.append(time.perf_counter() - start)
                median = statistics.median(times)
                rows.append({"n": 1 << k, "lanes": lanes, "chunk_mib": mib, "median_s": median,
                             "gbs": x.nbytes / median / 1e9})
                print(f"2^{k} lanes {lanes:>2} chunk {mib:>4g} MiB: {x.nbytes / median / 1e9:6.1f} GB/s", flush=True)
    cured._cured._set_staging(0, 0)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": cured.device_info(), "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
