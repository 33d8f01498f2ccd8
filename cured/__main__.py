"""python -m cured: the speedup table of every version, and CUB, on the local GPU.

    python -m cured                      # 32M float32 elements (the seeds' size)
    python -m cured --sweep --json results/NVIDIA_H200.json
    python -m cured --dtype float64 --versions 7,8,cub --repeats 50 --csv -
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys

import cured
from cured.benchmark import BenchResult



def parse_versions(text: str) -> list[int | str]:
    return [v if v == "cub" else int(v) for v in (part.strip() for part in text.split(",")) if v]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cured", description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=1 << 25, help="elements for the table (default 2^25 = 32M)")
    parser.add_argument("--dtype", default="float32", help="input dtype (default float32)")
    parser.add_argument("--versions", type=parse_versions, default=None, help="comma-separated, e.g. 0,3,8,cub (default: all and cub)")
    parser.add_argument("--repeats", type=int, default=20, help="timed runs a row (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--sweep", action="store_true", help="also sweep lengths 2^10 to 2^MAX_LOG2")
    parser.add_argument("--max-log2", type=int, default=28, help="the sweep's longest length, log2 (default 28)")
    parser.add_argument("--no-end-to-end", dest="end_to_end", action="store_false", help="skip the NumPy-input timings")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout)")
    parser.add_argument("--csv", metavar="PATH", help="write the rows as CSV ('-': stdout)")
    args = parser.parse_args(argv)

    try:
        info = cured.device_info()
    except cured.CudaError as error:
        print(f"cured: {error}", file=sys.stderr)
        return 2
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    major, minor = info["compute_capability"]
    header = (f"{info['name']} (compute capability {major}.{minor}, {info['multiprocessors']} SMs, "
              f"{info['l2_cache_bytes'] / 2**20:.0f} MiB L2, theoretical {info['peak_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s), "
              f"driver {_cuda_version(info['driver_version'])}, runtime {_cuda_version(info['runtime_version'])}, {date}")
    quiet = args.json == "-" or args.csv == "-"
    say = (lambda text: print(text, file=sys.stderr)) if quiet else print

    def progress(text: str) -> None:
        print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)

    try:
        common = dict(versions=args.versions, dtype=args.dtype, repeats=args.repeats, warmup=args.warmup)
        table = cured.bench(lengths=[args.length], end_to_end=args.end_to_end, **common)
        sweep = None
        if args.sweep:
            sweep = cured.bench(lengths=[1 << k for k in range(10, args.max_log2 + 1)], end_to_end=False, progress=progress if sys.stderr.isatty() else None, **common)
            if sys.stderr.isatty():
                print("\r\033[K", end="", file=sys.stderr)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    except cured.CudaError as error:
        print(f"cured: {error}", file=sys.stderr)
        return 2

    say(header)
    say("")
    say(table.table())
    if sweep is not None:
        say(sweep_table(sweep))
    if args.json:
        document = {"device": info, "date": date, "dtype": args.dtype, "repeats": args.repeats,
                    "table": table.to_dicts(), "sweep": sweep.to_dicts() if sweep is not None else None}
        _write(args.json, json.dumps(document, indent=1) + "\n")
    if args.csv:
        _write(args.csv, table.to_csv() + (sweep.to_csv() if sweep is not None else ""))
    return 0


def sweep_table(result: BenchResult) -> str:
    """Bandwidth (GB/s) of each version against the length."""
    versions = list(dict.fromkeys(r.version for r in result))
    lengths = list(dict.fromkeys(r.n for r in result))
    by_key = {(r.version, r.n): r for r in result}
    lines = [f"bandwidth (GB/s) against length, {result[0].dtype}",
             f"{'length':>10}" + "".join(f"{('V' + str(v)) if v != 'cub' else 'CUB':>8}" for v in versions)]
    for n in lengths:
        lines.append(f"{'2^' + str(n.bit_length() - 1):>10}" + "".join(f"{_gbs(by_key[v, n].bandwidth_gbs):>8}" for v in versions))
    return "\n".join(lines) + "\n"


def _gbs(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def _cuda_version(code: int) -> str:
    return f"{code // 1000}.{code % 1000 // 10}"


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
