"""The one schema of cured's measurements, and the files in results/ that hold them.

Every measurement is a Row: what was measured (subject, on what input), how (measure), at which
dtype and length, on which device and when, and its median with the spread of the runs.

    measure       what the figure is                                        unit
    device        device time of one reduction (CUDA events, every pass)    s
    wall          host time of one call that returns the sum to Python      s
    host_async    host time of one call that queues the sum and returns     s
    end_to_end    wall time of one call on a NumPy array in host memory     s
    counter       one Nsight Compute metric of one reduction (cured.profile) its own ("%", "count", ...)

A results file is JSON: {"schema", "device" (cured.device_info() of the GPU), "date", "command",
optionally "updates" (later commands that replaced some rows: `--axis --record`), "rows": [Row, ...]},
one file per device, written by `python -m cured --record results/`.
README's tables and the notebook read these files (`load`, `table`).
"""
from __future__ import annotations

import dataclasses
import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

SCHEMA = "cured-results/1"
MEASURES = ("device", "wall", "host_async", "end_to_end", "counter")


@dataclass(frozen=True)
class Row:
    """One measurement. Times are in seconds; counters in their own unit."""

    device: str  #: the GPU's name
    date: str  #: when, "YYYY-MM-DD HH:MM UTC"
    dtype: str  #: the input's dtype
    n: int  #: elements
    subject: str  #: "V0" ... "V10", "CUB", "cured", "torch", "cupy", "jax", "numpy", "floor"
    input: str  #: what the call was given: "device" (a buffer of cured's own), "full_range" (one holding floats over the dtype's whole exponent range), "cupy", "torch", "cai", "jax", "numba", "host", "axis" (a CuPy array summed along axes: see case)
    measure: str  #: one of MEASURES
    metric: str  #: "time" for the timings; the counter's name (cured.profiling.METRICS) for counters
    median: float
    low: float  #: the fastest run (counters: the same as median)
    high: float  #: the slowest run
    unit: str  #: "s" for times
    repeats: int
    case: str = ""  #: sums along axes: the shape and axis ("(2^14, 2^14) axis 0", cured.axis_bench); "" otherwise

    def __post_init__(self):
        if self.measure not in MEASURES:
            raise ValueError(f"Row: measure must be one of {MEASURES}, not {self.measure!r}")


def timing_row(*, seconds: Sequence[float], **fields: Any) -> Row:
    """A Row of measure device/wall/host_async/end_to_end from the runs' seconds."""
    if not seconds:
        raise ValueError("timing_row: no runs")
    return Row(median=statistics.median(seconds), low=min(seconds), high=max(seconds), unit="s",
               repeats=len(seconds), metric="time", **fields)


def version_subject(version: int | str) -> str:
    """The subject of a version's rows: "V9", or "CUB"."""
    return "CUB" if version == "cub" else f"V{version}"


def device_slug(name: str) -> str:
    """The file name of a device's results: 'NVIDIA H100 80GB HBM3' -> 'NVIDIA_H100_80GB_HBM3'."""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def document(device: dict[str, Any], date: str, command: str, rows: Iterable[Row],
             updates: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """`updates`: later commands that replaced some of the rows ({"date", "command"} each)."""
    doc = {"schema": SCHEMA, "device": device, "date": date, "command": command}
    if updates:
        doc["updates"] = updates
    doc["rows"] = [dataclasses.asdict(r) for r in rows]
    return doc


def write(path: str | Path, device: dict[str, Any], date: str, command: str, rows: Iterable[Row],
          updates: list[dict[str, str]] | None = None) -> Path:
    path = Path(path)
    path.write_text(json.dumps(document(device, date, command, rows, updates), indent=1) + "\n")
    return path


def load(path: str | Path) -> tuple[dict[str, Any], list[Row]]:
    """A results file's header (schema, device, date, command) and its rows."""
    data = json.loads(Path(path).read_text())
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a {SCHEMA} file (schema {data.get('schema')!r})")
    header = {k: v for k, v in data.items() if k != "rows"}
    return header, [Row(**r) for r in data["rows"]]


def select(rows: Iterable[Row], **match: Any) -> list[Row]:
    """The rows whose fields equal every keyword given (a tuple or set matches any of its values)."""
    def ok(row: Row) -> bool:
        for key, want in match.items():
            value = getattr(row, key)
            if isinstance(want, (tuple, set, frozenset, list)):
                if value not in want:
                    return False
            elif value != want:
                return False
        return True
    return [r for r in rows if ok(r)]


def lookup(rows: Iterable[Row], **match: Any) -> Row | None:
    """The one row matching, or None; more than one is an error."""
    found = select(rows, **match)
    if len(found) > 1:
        raise ValueError(f"lookup: {len(found)} rows match {match}")
    return found[0] if found else None


def markdown(header: Sequence[str], lines: Iterable[Sequence[Any]], align: str | None = None) -> str:
    """A Markdown table; `align` is one letter a column, 'l' or 'r' (default: first left, rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" if a == "l" else "---:" for a in align) + " |"]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out)


def us(seconds: float | None) -> str:
    """Seconds as microseconds for a table."""
    if seconds is None:
        return ""
    value = seconds * 1e6
    return f"{value:.1f}" if value < 1000 else f"{value:,.0f}"
