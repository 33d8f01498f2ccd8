"""Timing cured's versions, and CUB beside them, on the local GPU.

Each row times the device work of one whole reduction (every pass) with CUDA events, after a
warm-up, `repeats` times, and reports the median with its spread. The data are random (never
zeros). When the input is smaller than four times the L2 cache, the runs rotate among enough copies
of it to cover four L2s, so that no run finds its input in the cache; the row says how many copies.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from . import _cured
from .results import Row, version_subject

#: Copies of a small input cover this many L2 caches (see the module's docstring).
L2_COVER = 4

#: Batches each version's timed launches are cut into, the versions taking turns batch by batch (in
#: an order reversed every other round), so that a slow spell of the machine falls on all of them
#: alike instead of on one version's whole batch: in one batch each, V9's 2^10 point read 7.1 to 7.6
#: us against its 4.1 to 4.6 in three of the four full-range rows of the 2026-11-26 `--exact` records.
BENCH_ROUNDS = 4


def in_turns(versions: Sequence[int | str], repeats: int, rounds: int = BENCH_ROUNDS):
    """(version, launches) in the order bench times them: each version's `repeats` launches cut into
    min(rounds, repeats) batches as even as can be, a batch of every version a round, every other
    round in reverse order."""
    rounds = min(rounds, repeats)
    for k in range(rounds):
        launches = repeats // rounds + (1 if k < repeats % rounds else 0)
        for v in (versions if k % 2 == 0 else list(reversed(versions))):
            yield v, launches


@dataclass(frozen=True)
class BenchRow:
    """One version at one length: timings in seconds, bandwidth in GB/s (10^9 bytes/s)."""

    device: str
    dtype: str
    n: int
    bytes: int  #: input bytes, each read once
    version: int | str  #: a version id, or "cub"
    data: str  #: "normal" or "full_range" (DATA)
    name: str
    repeats: int
    buffers: int  #: copies of the input the runs rotated among (1: no rotation needed)
    time_median_s: float
    time_min_s: float
    time_max_s: float
    time_q1_s: float  #: first quartile
    time_q3_s: float  #: third quartile
    bandwidth_gbs: float  #: bytes / median time
    peak_fraction: float  #: bandwidth over the device's theoretical peak
    speedup_vs_v0: float | None  #: V0's median time over this row's
    speedup_vs_previous: float | None  #: the previous version's median time over this row's
    h2d_s: float | None  #: until the NumPy input's last chunk is on the device (median, device time; the reduction overlaps it)
    end_to_end_s: float | None  #: cured.sum on the NumPy input, wall clock (median)
    end_to_end_min_s: float | None  #: its fastest run
    end_to_end_max_s: float | None  #: its slowest run
    end_to_end_repeats: int | None  #: its runs
    value: float | int  #: the sum the timed runs computed


class BenchResult(list):
    """A list of BenchRow with the device they were measured on."""

    def __init__(self, rows: Iterable[BenchRow], device: dict[str, Any]):
        super().__init__(rows)
        self.device = device

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dataclasses.asdict(row) for row in self]

    def to_dataframe(self):
        """A pandas DataFrame (pandas is needed only for this)."""
        import pandas

        return pandas.DataFrame(self.to_dicts())

    def to_rows(self, date: str | None = None) -> list[Row]:
        """The rows in results' schema: each version's device time (measure "device"), and where
        timed, the whole call on the NumPy array (measure "end_to_end"). `date` defaults to now (UTC)."""
        date = date or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        rows = []
        for r in self:
            common = dict(device=r.device, date=date, dtype=r.dtype, n=r.n, subject=version_subject(r.version))
            rows.append(Row(input="device" if r.data == "normal" else r.data, measure="device", metric="time",
                            median=r.time_median_s,
                            low=r.time_min_s, high=r.time_max_s, unit="s", repeats=r.repeats, **common))
            if r.end_to_end_s is not None:
                rows.append(Row(input="host", measure="end_to_end", metric="time", median=r.end_to_end_s,
                                low=r.end_to_end_min_s, high=r.end_to_end_max_s, unit="s",
                                repeats=r.end_to_end_repeats, **common))
        return rows

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[f.name for f in dataclasses.fields(BenchRow)])
        writer.writeheader()
        writer.writerows(self.to_dicts())
        return out.getvalue()

    def table(self) -> str:
        """The speedup table as text, one block per (dtype, length)."""
        lines = []
        for (dtype, n), rows in _groups(self):
            lines.append(f"{n:,} {dtype} elements ({rows[0].bytes / 2**20:,.1f} MiB)"
                         + (f", rotating among {rows[0].buffers} copies to defeat the L2 cache" if rows[0].buffers > 1 else ""))
            lines.append(f"{'version':<28}{'median us':>11}{'spread us':>17}{'GB/s':>8}{'% peak':>8}"
                         f"{'vs V0':>9}{'vs prev':>9}{'H2D us':>10}{'end-to-end us':>15}")
            for r in rows:
                label = f"V{r.version} {r.name}" if isinstance(r.version, int) else f"{r.name}"
                spread = f"{r.time_min_s * 1e6:.1f}-{r.time_max_s * 1e6:.1f}"
                lines.append(
                    f"{label:<28}{r.time_median_s * 1e6:>11.2f}{spread:>17}{r.bandwidth_gbs:>8.0f}"
                    f"{100 * r.peak_fraction:>7.1f}%{_ratio(r.speedup_vs_v0):>9}{_ratio(r.speedup_vs_previous):>9}"
                    f"{_us(r.h2d_s):>10}{_us(r.end_to_end_s):>15}")
            lines.append("")
        return "\n".join(lines)


def _groups(rows: Sequence[BenchRow]):
    keys = list(dict.fromkeys((r.dtype, r.n) for r in rows))
    return [(key, [r for r in rows if (r.dtype, r.n) == key]) for key in keys]


def _ratio(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}x"


def _us(x: float | None) -> str:
    return "" if x is None else f"{x * 1e6:.0f}"


#: What bench's `data` may be: standard-normal floats, or floats over the dtype's whole exponent range.
DATA = ("normal", "full_range")


def full_range(n: int, dtype: Any, seed: int = 0) -> np.ndarray:
    """Floats whose exponents span the dtype's whole finite range, subnormals included, each
    exponent equally likely, with random signs and significands: the hardest case for V10, whose
    fast window holds a few dozen binades (csrc/kernels/v10_exact.cu). No NaN or infinity; sums of
    many may overflow to infinity, as IEEE rounding says."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"full_range: a floating dtype, not {dtype}")
    rng = np.random.default_rng([seed, n, 1])
    width, mantissa = dtype.itemsize * 8, dtype.itemsize * 8 - {2: 6, 4: 9, 8: 12}[dtype.itemsize]
    largest_exponent = (1 << (width - 1 - mantissa)) - 2
    exponent = rng.integers(0, largest_exponent, size=n, endpoint=True, dtype=np.uint64)
    raw = (rng.integers(0, 2, size=n, dtype=np.uint64) << np.uint64(width - 1)) | (exponent << np.uint64(mantissa)) \
        | rng.integers(0, 1 << mantissa, size=n, dtype=np.uint64)
    return raw.astype(f"<u{dtype.itemsize}").view(dtype.newbyteorder("<")).astype(dtype)


def random_input(n: int, dtype: Any, seed: int = 0, data: str = "normal") -> np.ndarray:
    """Random data for timing: standard normal floats (or, with data="full_range", full_range's),
    integers over a range whose sums stay exact, random bools. Never zeros only."""
    dtype = np.dtype(dtype)
    if data not in DATA:
        raise ValueError(f"bench: data must be one of {DATA}, not {data!r}")
    if data == "full_range":
        return full_range(n, dtype, seed)
    rng = np.random.default_rng([seed, n])
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=n, dtype=dtype, endpoint=True)
    return rng.standard_normal(n).astype(dtype)


def bench(
    versions: Sequence[int | str] | None = None,
    lengths: Sequence[int] = (1 << 25,),
    dtype: Any = "float32",
    repeats: int = 20,
    warmup: int = 3,
    end_to_end: bool = True,
    end_to_end_repeats: int = 5,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    data: str = "normal",
) -> BenchResult:
    """Times versions (default: every version, then "cub") at each length on the current GPU.

    `data`: "normal" (standard-normal floats) or "full_range" (floats over the dtype's whole
    exponent range, cured.benchmark.full_range); the rows' `data` field says which.

    The versions take turns (in_turns): each version's `repeats` timed launches in up to
    BENCH_ROUNDS batches, each batch after `warmup` untimed launches of its version.

    Returns a BenchResult: a list of BenchRow (fields named; .to_dicts(), .to_dataframe(),
    .to_csv(), .table()). With end_to_end, each row also times cured.sum on the NumPy array
    itself: the host-to-device copy (device time) and the whole call (wall clock).
    """
    from . import device_info, versions as all_versions  # the package imports this module

    if repeats < 1 or warmup < 0 or end_to_end_repeats < 1:
        raise ValueError("bench: repeats and end_to_end_repeats must be >= 1, warmup >= 0")
    registry = {v.id: v for v in all_versions()}
    chosen = list(versions) if versions is not None else [*registry, "cub"]
    for v in chosen:
        if v != "cub" and (isinstance(v, bool) or not isinstance(v, int) or v not in registry):
            raise ValueError(f"bench: no version {v!r}; the versions are {list(registry)} and 'cub'")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"bench: a version named twice in {chosen!r}")
    info = device_info()
    min_bytes = L2_COVER * info["l2_cache_bytes"]
    rows: list[BenchRow] = []
    for n in lengths:
        x = random_input(n, dtype, seed, data)
        seconds: dict[int | str, list[float]] = {v: [] for v in chosen}
        runs: dict[int | str, dict[str, Any]] = {}
        for v, launches in in_turns(chosen, repeats):
            if progress:
                progress(f"{info['name']}: {n:,} {x.dtype} elements, version {v}")
            runs[v] = _cured.bench(x, v, launches, warmup, min_bytes)
            seconds[v] += runs[v]["seconds"]
        medians: dict[int | str, float] = {}
        previous: float | None = None
        for v in chosen:
            run = runs[v]
            times = sorted(seconds[v])
            median = statistics.median(times)
            quartiles = statistics.quantiles(times, n=4) if len(times) > 1 else [median] * 3
            medians[v] = median
            h2d, walls = None, []
            if end_to_end:
                h2d, walls = _end_to_end(x, v, end_to_end_repeats)
            rows.append(BenchRow(
                device=info["name"], dtype=str(x.dtype), n=n, bytes=x.nbytes, version=v, data=data,
                name=registry[v].name if v != "cub" else "CUB DeviceReduce::Sum",
                repeats=repeats, buffers=run["buffers"], time_median_s=median, time_min_s=times[0],
                time_max_s=times[-1], time_q1_s=quartiles[0], time_q3_s=quartiles[2],
                bandwidth_gbs=x.nbytes / median / 1e9, peak_fraction=x.nbytes / median / info["peak_bandwidth_bytes_per_s"],
                speedup_vs_v0=medians[0] / median if 0 in medians else None,
                speedup_vs_previous=previous / median if previous is not None and v != "cub" else None,
                h2d_s=h2d, end_to_end_s=statistics.median(walls) if walls else None,
                end_to_end_min_s=min(walls) if walls else None, end_to_end_max_s=max(walls) if walls else None,
                end_to_end_repeats=len(walls) if walls else None, value=run["value"].item()))
            if v != "cub":
                previous = median
    return BenchResult(rows, info)


def _end_to_end(x: np.ndarray, version: int | str, repeats: int) -> tuple[float, list[float]]:
    """Median copy time (device time, SumTiming.h2d_s) and the wall times of cured.sum(x) on the GPU."""
    from . import sum as cured_sum

    cured_sum(x, version=version, device="gpu")  # warm
    h2d, wall = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        _, timings = cured_sum(x, version=version, device="gpu", timing=True)
        wall.append(time.perf_counter() - start)
        h2d.append(timings.h2d_s)
    return statistics.median(h2d), wall
