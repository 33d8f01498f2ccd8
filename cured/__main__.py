"""python -m cured: cured's measurements on the local GPU.

    python -m cured                      # the speedup table: every version and CUB, device time, 2^25 float32
    python -m cured --sweep              # ... and bandwidth against length
    python -m cured --latency            # wall time of one call: cured against PyTorch, CuPy, JAX, NumPy, the floor
    python -m cured --profile            # Nsight Compute's counters for each version (run it in a fresh process)
    python -m cured --exact              # V10 (cured.fsum) against V9 and CUB on full-range data; its CPU code
    python -m cured --axis               # sums along axes: cured against PyTorch and CuPy, device time
    python -m cured --record results/    # all of the above into results/<device>.json, the common schema
    python -m cured --axis --record results/   # only the axis rows, replacing those in results/<device>.json
                                               # (--latency, --exact, --sweep: likewise, the rows they measure)

--json PATH writes what was measured as rows of the common schema (cured.results); --csv the
speedup table's rows.
"""
from __future__ import annotations

import argparse
import datetime
import json
import shlex
import sys
from pathlib import Path

import cured
from cured import results
from cured.benchmark import BenchResult

RECORD_SWEEP_MAX_LOG2 = 30
#: --exact's versions: V10 beside the fastest rounding sum and the reference.
EXACT_PEERS = [9, 10, "cub"]


def parse_versions(text: str) -> list[int | str]:
    return [v if v == "cub" else int(v) for v in (part.strip() for part in text.split(",")) if v]


def parse_lengths(text: str) -> list[int]:
    """'2^10,2^16,1000' -> [1024, 65536, 1000]."""
    lengths = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        base, _, power = part.partition("^")
        lengths.append(int(base) ** int(power) if power else int(base))
    return lengths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cured", description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=1 << 25, help="elements for the table and the profile (default 2^25 = 32M)")
    parser.add_argument("--dtype", default="float32", help="input dtype (default float32)")
    parser.add_argument("--versions", type=parse_versions, default=None, help="comma-separated, e.g. 0,3,8,cub (default: all and cub)")
    parser.add_argument("--repeats", type=int, default=20, help="timed runs a row (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--sweep", action="store_true", help="also sweep lengths 2^10 to 2^MAX_LOG2")
    parser.add_argument("--max-log2", type=int, default=None,
                        help=f"the sweep's longest length, log2 (default 28; {RECORD_SWEEP_MAX_LOG2} with --record)")
    parser.add_argument("--no-end-to-end", dest="end_to_end", action="store_false", help="skip the NumPy-input timings")
    parser.add_argument("--latency", action="store_true", help="the wall-time table instead of the speedup table")
    parser.add_argument("--lengths", type=parse_lengths, default=None,
                        help="--latency's lengths, e.g. 2^10,2^16 (default 2^10, 2^12, ..., 2^30)")
    parser.add_argument("--latency-repeats", type=int, default=2000, help="--latency: calls a figure at most (default 2000)")
    parser.add_argument("--latency-budget", type=float, default=1.0, help="--latency: seconds a figure at most (default 1)")
    parser.add_argument("--profile", action="store_true", help="Nsight Compute's counters instead of the speedup table")
    parser.add_argument("--ncu-csv", metavar="DIR", help="--profile: keep ncu's raw CSV for each version in DIR")
    parser.add_argument("--exact", action="store_true",
                        help="V10 against V9 and CUB on data over the dtype's whole exponent range (device time, "
                             "2^10 to 2^MAX_LOG2), and the CPU implementation against math.fsum")
    parser.add_argument("--axis", action="store_true",
                        help="sums along axes (cured.axis_bench.SHAPES) against torch.sum(dim=) and cupy.sum(axis=), and V9 "
                             "on the flat array of each size, device time, float32 and float64")
    parser.add_argument("--record", metavar="DIR", help="measure everything and write DIR/<device>.json (with --axis, "
                                                        "--latency, --exact or --sweep: only those rows, replacing the "
                                                        "file's; --sweep: both dtypes, 2^10 to 2^MAX_LOG2)")
    parser.add_argument("--json", metavar="PATH", help="write the rows measured, in cured.results' schema ('-': stdout)")
    parser.add_argument("--csv", metavar="PATH", help="write the speedup table's rows as CSV ('-': stdout)")
    args = parser.parse_args(argv)
    quiet = args.json == "-" or args.csv == "-"
    say = (lambda text: print(text, file=sys.stderr)) if quiet else print

    def progress(text: str) -> None:
        print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)

    show = progress if sys.stderr.isatty() else None
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows: list[results.Row] = []
    try:
        axis_only = args.axis and args.record
        latency_only = args.latency and args.record and not axis_only
        exact_only = args.exact and args.record and not (axis_only or latency_only)
        sweep_only = args.sweep and args.record and not (axis_only or latency_only or exact_only)
        partial = axis_only or latency_only or exact_only or sweep_only
        max_log2 = args.max_log2 if args.max_log2 is not None else RECORD_SWEEP_MAX_LOG2 if args.record else 28
        # The profile first: its child processes need the GPU, which this process must not hold yet.
        if (args.profile or args.record) and not partial:
            from cured.profiling import profile

            profiled = profile(args.versions, n=args.length, dtype=args.dtype, csv_dir=args.ncu_csv, progress=show)
            rows += profiled
            _clear(show)
            say(profiled.table())
        info = cured.device_info()
        say(_header(info, date))
        if args.axis or (args.record and not partial):
            from cured.axis_bench import axis_rows, axis_table

            measured = axis_rows(info["name"], date, repeats=args.repeats, warmup=args.warmup, progress=show)
            rows += measured
            _clear(show)
            say("sums along axes, device time\n" + axis_table(measured))
        if (args.latency and not axis_only) or (args.record and not partial):
            from cured.walltime import DEFAULT_LENGTHS, latency

            timed = latency(args.lengths or DEFAULT_LENGTHS, ("float32", "float64") if args.record else (args.dtype,),
                            repeats=args.latency_repeats, budget_s=args.latency_budget, progress=show)
            rows += timed
            _clear(show)
            say(timed.table())
        table = None
        common = dict(versions=args.versions, repeats=args.repeats, warmup=args.warmup)
        if (not (args.profile or args.latency or args.exact or args.axis) or args.record) and not partial:
            table = cured.bench(lengths=[args.length], dtype=args.dtype, end_to_end=args.end_to_end, **common)
            rows += table.to_rows(date)
            say(table.table())
        if table is not None or sweep_only:
            sweep_dtypes = ("float32", "float64") if args.record else (args.dtype,) if args.sweep else ()
            for dtype in sweep_dtypes:
                lengths = [1 << k for k in range(10, max_log2 + 1)]
                if table is not None and args.record and dtype == args.dtype:  # the table's point: one row a point
                    lengths = [n for n in lengths if n != args.length]
                sweep = cured.bench(lengths=lengths, dtype=dtype, end_to_end=False, progress=show, **common)
                _clear(show)
                rows += sweep.to_rows(date)
                say(sweep_table(sweep))
        if (args.exact and not (axis_only or latency_only)) or (args.record and not partial):
            from cured.exact import cpu_rows

            for dtype in ("float32", "float64"):
                lengths = [1 << k for k in range(10, max_log2 + 1)]
                sweep = cured.bench(versions=EXACT_PEERS, lengths=lengths, dtype=dtype, end_to_end=False,
                                    progress=show, repeats=args.repeats, warmup=args.warmup, data="full_range")
                _clear(show)
                rows += sweep.to_rows(date)
                say(f"data over the whole exponent range (cured.benchmark.full_range)\n{sweep_table(sweep)}")
            cpu = cpu_rows(info["name"], date)
            rows += cpu
            say("\n".join(f"CPU, one core, {r.dtype} 2^{r.n.bit_length() - 1}: {r.subject} {r.n * (4 if r.dtype == 'float32' else 8) / r.median / 1e9:.2f} GB/s"
                          for r in cpu))
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    except (cured.CudaError, RuntimeError) as error:  # ProfileError and a missing library are RuntimeErrors too
        print(f"cured: {error}", file=sys.stderr)
        return 2

    command = "python -m cured " + " ".join(map(shlex.quote, argv if argv is not None else sys.argv[1:]))
    if args.record:
        path = Path(args.record) / f"{results.device_slug(info['name'])}.json"
        if partial and path.exists():  # the file's other rows stay; its header says what updated it
            header, kept = results.load(path)
            rows = merged(kept, rows, axis_only)
            updates = header.get("updates", []) + [{"date": date, "command": command}]
            results.write(path, header["device"], header["date"], header["command"], rows, updates=updates)
        else:
            if partial:  # a partial record of a GPU with no file yet: say so, lest it pass for a whole one
                print(f"cured: no {path} to update: it holds only this command's rows", file=sys.stderr)
            results.write(path, info, date, command, rows)
        say(f"recorded {len(rows)} rows in {path}")
    if args.json:
        document = results.document(info, date, command, rows)
        _write(args.json, json.dumps(document, indent=1) + "\n")
    if args.csv and table is not None:
        _write(args.csv, table.to_csv())
    return 0


def _header(info: dict, date: str) -> str:
    major, minor = info["compute_capability"]
    return (f"{info['name']} (compute capability {major}.{minor}, {info['multiprocessors']} SMs, "
            f"{info['l2_cache_bytes'] / 2**20:.0f} MiB L2, theoretical {info['peak_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s), "
            f"driver {_cuda_version(info['driver_version'])}, runtime {_cuda_version(info['runtime_version'])}, {date}\n")


def _row_key(row: results.Row) -> tuple:
    """What a row measured, apart from when and with what result."""
    return row.measure, row.input, row.subject, row.dtype, row.n, row.case


def merged(kept: list[results.Row], measured: list[results.Row], axis: bool) -> list[results.Row]:
    """A results file's rows after a partial record: `kept` (the file's) without the rows `measured`
    replaces, then `measured`. --axis replaces every axis row; --latency the rows it measured again."""
    again = {_row_key(r) for r in measured}
    return [r for r in kept if (r.input != "axis" if axis else _row_key(r) not in again)] + measured


def _clear(progress) -> None:
    if progress is not None:
        print("\r\033[K", end="", file=sys.stderr)


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
