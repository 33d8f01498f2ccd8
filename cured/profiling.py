"""Why each version is faster, measured: Nsight Compute's hardware counters for one reduction.

For each version (and CUB), a child process runs one whole reduction of random data (every kernel
of it: passes, or V9's one launch) under Nsight Compute (`ncu --clock-control none`, the GPU's
clocks left as they are, caches flushed before each replay), and the counters of its kernels are
combined into one row of METRICS: sums for counts, and for rates and percentages the mean over
the kernels weighted by each kernel's duration.

The parent process makes no CUDA call: the lent GPUs run in exclusive-process mode, where the
profiled child could not open the GPU while its parent held it. Call `cured.profile` (or `python
-m cured --profile`) before anything else in the process touches the GPU.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from .results import Row, markdown, version_subject


@dataclass(frozen=True)
class Metric:
    name: str  #: cured's name for it (results.Row.metric)
    label: str  #: the table's column
    ncu: tuple[str, ...]  #: Nsight Compute's metrics, summed
    combine: str  #: "sum" over the kernels, "weighted" (by duration), or "per_element" (sum / n)
    unit: str
    shows: str  #: the idea it measures


#: The one table from cured's metric names to Nsight Compute's.
METRICS: tuple[Metric, ...] = (
    Metric("duration", "time us", ("gpu__time_duration.sum",), "sum", "s", "the reduction's time under the profiler"),
    Metric("dram_throughput", "DRAM % of peak", ("dram__throughput.avg.pct_of_peak_sustained_elapsed",), "weighted", "%",
           "how close to the memory's limit"),
    Metric("achieved_occupancy", "occupancy %", ("sm__warps_active.avg.pct_of_peak_sustained_active",), "weighted", "%",
           "warps resident on an SM, of the most it holds"),
    Metric("warp_execution_efficiency", "warp efficiency %", ("smsp__thread_inst_executed_per_inst_executed.pct",),
           "weighted", "%", "active threads per executed instruction, of 32 (idle and divergent threads lower it)"),
    Metric("divergent_branches", "divergent branches", ("smsp__sass_branch_targets_threads_divergent.sum",), "sum",
           "count", "branches whose threads went different ways"),
    Metric("shared_bank_conflicts", "bank conflicts", ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                                       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
           "sum", "count", "extra shared-memory wavefronts from accesses to one bank"),
    Metric("stall_barrier", "barrier stall %", ("smsp__warp_issue_stalled_barrier_per_warp_active.pct",), "weighted", "%",
           "warp cycles waiting at __syncthreads"),
    Metric("stall_long_scoreboard", "memory stall %", ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",),
           "weighted", "%", "warp cycles waiting for a global-memory load"),
    Metric("instructions_per_element", "instructions / element", ("smsp__inst_executed.sum",), "per_element", "inst",
           "warp instructions executed, over the input's elements"),
    Metric("l2_hit_rate", "L2 hit %", ("lts__t_sector_hit_rate.pct",), "weighted", "%", "sectors found in L2"),
)
NCU_METRICS = tuple(dict.fromkeys(m for metric in METRICS for m in metric.ncu))
DURATION = "gpu__time_duration.sum"

#: Seconds in one of Nsight Compute's time units.
_TIME_UNITS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
               "s": 1.0, "second": 1.0}


class ProfileError(RuntimeError):
    """Nsight Compute is missing, refused to profile, or its output could not be read."""


def find_ncu() -> str:
    """The ncu executable: $NCU, PATH, the CUDA toolkit ($CUDA_HOME, /usr/local/cuda), /opt/nvidia."""
    chosen = os.environ.get("NCU")
    if chosen:  # an explicit choice is used or refused, never passed over
        if os.path.isfile(chosen) and os.access(chosen, os.X_OK):
            return chosen
        raise ProfileError(f"NCU={chosen!r} is not an executable: point NCU at Nsight Compute's ncu")
    candidates = [shutil.which("ncu")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "ncu"))
    candidates.append("/usr/local/cuda/bin/ncu")
    candidates += sorted(map(str, Path("/opt/nvidia").glob("nsight-compute/*/ncu")), reverse=True)
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise ProfileError("Nsight Compute (ncu) was not found: looked at $NCU, PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, "
                       "/usr/local/cuda/bin and /opt/nvidia/nsight-compute/*; install it or point NCU at it")


def _number(text: str) -> float:
    """A value as ncu prints it: '1,234,567' (grouped), '97.53', or 'n/a'."""
    text = text.strip().replace(",", "")
    return float(text) if text not in ("", "n/a", "N/A") else float("nan")


def parse_ncu_csv(text: str) -> list[dict[str, Any]]:
    """The kernels of `ncu --csv --page raw` output: one dict a kernel, with 'Kernel Name', 'Device'
    and each metric's value in base units (times in seconds). Lines before the CSV ('==PROF==' and
    the program's own output) are skipped."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    if len(lines) < 2:
        raise ProfileError("ncu printed no kernel table (did the program launch any kernel?)")
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader)
    units = next(reader)
    if "Kernel Name" not in header:
        raise ProfileError(f"ncu's table has no 'Kernel Name' column: {header[:12]}")
    kernels = []
    for values in reader:
        row: dict[str, Any] = {}
        for name, unit, value in zip(header, units, values):
            if name in NCU_METRICS:
                number = _number(value)
                row[name] = number * _TIME_UNITS[unit] if unit in _TIME_UNITS else number
            else:
                row[name] = value
        missing = [m for m in NCU_METRICS if m not in row]
        if missing:
            raise ProfileError(f"ncu gave no value for {', '.join(missing)} (kernel {row.get('Kernel Name')!r})")
        kernels.append(row)
    return kernels


def combine(kernels: Sequence[dict[str, Any]], n: int) -> dict[str, float]:
    """One value a metric for a reduction made of these kernels (see METRICS' `combine`)."""
    total_time = sum(k[DURATION] for k in kernels)
    values = {}
    for metric in METRICS:
        per_kernel = [sum(k[m] for m in metric.ncu) for k in kernels]
        if metric.combine == "weighted":
            values[metric.name] = sum(v * k[DURATION] for v, k in zip(per_kernel, kernels)) / total_time
        elif metric.combine == "per_element":
            values[metric.name] = sum(per_kernel) / n
        else:
            values[metric.name] = sum(per_kernel)
    return values


_CHILD = """
import json, sys
import cured
from cured import _cured
from cured.benchmark import random_input
version, dtype, n, info_path = json.loads(sys.argv[1])
x = random_input(n, dtype)
with open(info_path, "w") as f:
    json.dump(cured.device_info(), f)
_cured.bench(x, version, 1, 0, 0)   # one whole reduction: its kernels are the profile
"""


def profile_version(version: int | str, n: int = 1 << 25, dtype: str = "float32", ncu: str | None = None,
                    keep_csv: str | Path | None = None, timeout_s: float = 600) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Runs one reduction of `version` under ncu in a child process: (the device's info, the kernels)."""
    ncu = ncu or find_ncu()
    with tempfile.TemporaryDirectory() as tmp:
        log, info = Path(tmp) / "ncu.csv", Path(tmp) / "device.json"
        command = [ncu, "--clock-control", "none", "--target-processes", "all", "--csv", "--page", "raw",
                   "--print-units", "base", "--metrics", ",".join(NCU_METRICS), "--log-file", str(log),
                   sys.executable, "-c", _CHILD, json.dumps([version, dtype, n, str(info)])]
        env = dict(os.environ, LC_ALL="C")  # '.' for decimals, whatever the machine's locale
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, env=env)
        except subprocess.TimeoutExpired as error:
            raise ProfileError(f"ncu did not finish V{version} within {timeout_s:.0f} s") from error
        text = log.read_text() if log.exists() else ""
        if keep_csv is not None:
            Path(keep_csv).write_text(text)
        if done.returncode != 0 or "==ERROR==" in text + done.stdout + done.stderr:
            said = "\n".join(line for line in (text + done.stdout + done.stderr).splitlines()
                             if "ERROR" in line or "rror" in line)[-2000:]
            hint = ""
            if "ERR_NVGPUCTRPERM" in said or "permission" in said.lower():
                hint = " (the GPU refuses performance counters to this user: run as root, or allow them)"
            elif "cudaErrorDevicesUnavailable" in said or "busy or unavailable" in said:
                hint = (" (the GPU is in exclusive-process mode and another process, perhaps this one, holds it: "
                        "profile from a fresh process before any other GPU call)")
            raise ProfileError(f"ncu failed on version {version!r} (exit {done.returncode}){hint}:\n{said}")
        return json.loads(info.read_text()), parse_ncu_csv(text)


class ProfileResult(list):
    """A list of results.Row (measure 'counter') with the kernels behind each version."""

    def __init__(self, rows: Sequence[Row], kernels: dict[str, list[str]]):
        super().__init__(rows)
        self.kernels = kernels  #: subject -> its kernels' names, in launch order

    def table(self) -> str:
        return profile_table(self)


def profile(
    versions: Sequence[int | str] | None = None,
    n: int = 1 << 25,
    dtype: str = "float32",
    csv_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> ProfileResult:
    """Nsight Compute's counters (METRICS) for one reduction of each version: results.Row, measure
    'counter', one a version and metric. Raises ProfileError where ncu is missing or refuses."""
    from . import versions as all_versions  # the package imports this module

    chosen = list(versions) if versions is not None else [v.id for v in all_versions()] + ["cub"]
    ncu = find_ncu()
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[Row] = []
    names: dict[str, list[str]] = {}
    for version in chosen:
        if progress:
            progress(f"ncu: {n:,} {dtype} elements, version {version}")
        subject = version_subject(version)
        keep = Path(csv_dir) / f"ncu_{subject}_{dtype}_{n}.csv" if csv_dir is not None else None
        info, kernels = profile_version(version, n, dtype, ncu, keep)
        names[subject] = [k["Kernel Name"] for k in kernels]
        values = combine(kernels, n)
        for metric in METRICS:
            value = values[metric.name]
            rows.append(Row(device=info["name"], date=date, dtype=dtype, n=n, subject=subject, input="device",
                            measure="counter", metric=metric.name, median=value, low=value, high=value,
                            unit=metric.unit, repeats=1))
    return ProfileResult(rows, names)


def profile_table(rows: Sequence[Row]) -> str:
    """A row a version, a column a metric, as Markdown."""
    from .results import select

    out = []
    for dtype, n in dict.fromkeys((r.dtype, r.n) for r in rows):
        mine = select(rows, dtype=dtype, n=n, measure="counter")
        subjects = list(dict.fromkeys(r.subject for r in mine))
        value = {(r.subject, r.metric): r.median for r in mine}
        lines = [[s] + [_format(m, value.get((s, m.name))) for m in METRICS] for s in subjects]
        out.append(f"Nsight Compute, one reduction of {n:,} {dtype} elements, {mine[0].device}, {mine[0].date}:\n\n"
                   + markdown(["version"] + [m.label for m in METRICS], lines))
    return "\n\n".join(out) + "\n"


def _format(metric: Metric, value: float | None) -> str:
    if value is None:
        return ""
    if metric.unit == "s":
        return f"{value * 1e6:.1f}"
    if metric.unit == "count":
        return f"{value:,.0f}"
    return f"{value:.1f}" if metric.unit == "%" else f"{value:.3g}"
