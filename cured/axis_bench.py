"""Sums along axes, timed against PyTorch and CuPy: `python -m cured --axis`.

Device time (CUDA events on the stream all of them run on, the legacy default stream), the
subjects of a shape in turns, every run queued behind a wait on the GPU before the first starts, so
that the runs follow one another however long the host takes to queue each (the kernels of a 64
MiB shape take 20 to 30 us; times_in_turns has why). The input is already on the GPU as a CuPy
array (PyTorch reads the same memory through DLPack), and the result is left on the device: cured
writes into a CuPy out= of the result's shape, PyTorch and CuPy return new arrays. Beside each
shape, V9 on the flat array of the same size (its one value into a device element): the issue's
yardstick, "the memory's limit" for that many bytes; and where each result sums consecutive
elements (row sums), CUB's DeviceSegmentedReduce (version="cub"), the reference.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from .results import Row, markdown, timing_row

#: (shape, axis) pairs of issue 13's targets, and a 1-D one.
SHAPES: list[tuple[tuple[int, ...], Any]] = [
    ((1 << 14, 1 << 14), 0), ((1 << 14, 1 << 14), 1),
    ((1 << 24, 16), 0), ((1 << 24, 16), 1),
    ((16, 1 << 24), 0), ((16, 1 << 24), 1),
    ((1 << 20, 256), 0), ((1 << 20, 256), 1),
    ((256, 1 << 20), 1),
    ((512, 512, 512), 1), ((512, 512, 512), (0, 2)),
    ((1 << 27, 2), 1),
    ((4096, 4096), 1),
    ((1 << 28,), 0),
]


def case_name(shape: Sequence[int], axis: Any) -> str:
    """How a row names its shape and axis: '(16384, 16384) axis 0'."""
    dims = ", ".join(f"2^{e.bit_length() - 1}" if e > 4096 and e & (e - 1) == 0 else str(e) for e in shape)
    return f"({dims}{',' if len(shape) == 1 else ''}) axis {axis}"


_HOLD_SOURCE = r"""
extern "C" __global__ void hold(unsigned long long ns) {  // one thread, busy until ns have passed
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); while (now - start < ns);
}
"""


@functools.lru_cache(maxsize=None)
def _hold_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(_HOLD_SOURCE, "hold")  # CuPy compiles it for each device it runs on


def hold_stream(seconds: float) -> None:
    """Keeps the current stream busy for `seconds` (one thread reading the GPU's clock), so that
    the work the host queues meanwhile waits behind it and then runs back to back."""
    _hold_kernel()((1,), (1,), (np.uint64(seconds * 1e9),))


def times_in_turns(subjects: dict[str, Callable[[], Any]], repeats: int, warmup: int) -> dict[str, list[float]]:
    """Device times of each subject's `repeats` runs, between CUDA events, the subjects in turns (run r
    of every subject before run r + 1 of any), so that the GPU's drift within a shape (clocks after
    the host's setup, what L2 holds) falls on all alike. Every run is queued before the first
    starts: behind hold_stream for twice the host's time to queue them all (as the warm-up runs took
    it), so that no run's events also time the host's latency to its launch."""
    import time

    import cupy as cp

    host = 0.0
    for fn in subjects.values():
        start_warmup = time.perf_counter()
        for _ in range(warmup):
            fn()
        host += (time.perf_counter() - start_warmup) / max(warmup, 1)
    cp.cuda.get_current_stream().synchronize()
    events = {name: [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(repeats)] for name in subjects}
    hold_stream(min(max(2 * repeats * host, 1e-3), 0.1))
    for r in range(repeats):
        for name, fn in subjects.items():
            start, stop = events[name][r]
            start.record()
            fn()
            stop.record()
    cp.cuda.get_current_stream().synchronize()
    return {name: [cp.cuda.get_elapsed_time(a, b) * 1e-3 for a, b in pairs] for name, pairs in events.items()}


def axis_rows(device: str, date: str, dtypes: Sequence[str] = ("float32", "float64"), repeats: int = 20,
              warmup: int = 3, shapes=SHAPES, progress: Callable[[str], None] | None = None) -> list[Row]:
    """Device-time rows of cured (V9 along axes), torch, cupy and V9 on the flat array, a shape each.
    Needs CuPy; PyTorch where installed."""
    import cupy as cp

    from . import sum as cured_sum

    try:
        import torch
    except ImportError:
        torch = None
    rows: list[Row] = []
    for dtype in dtypes:
        for shape, axis in shapes:
            if progress is not None:
                progress(f"axis: {dtype} {case_name(shape, axis)}")
            x = cp.random.standard_normal(shape, dtype=cp.float64).astype(dtype)
            n = x.size
            out = cp.empty(tuple(e for i, e in enumerate(shape) if i not in _axes(axis, len(shape))), dtype)
            flat_out = cp.empty((), dtype)
            dim = axis if not isinstance(axis, tuple) else list(axis)
            subjects: dict[str, Callable[[], Any]] = {
                "cured": lambda: cured_sum(x, axis=axis, out=out),
                "cupy": lambda: cp.sum(x, axis=axis),
                "V9": lambda: cured_sum(x.reshape(-1), out=flat_out),
            }
            axes = _axes(axis, len(shape))
            if sorted(axes) == list(range(len(shape) - len(axes), len(shape))):  # rows: CUB's segmented reduce
                subjects["CUB"] = lambda: cured_sum(x, axis=axis, out=out, version="cub")
            if torch is not None:
                t = torch.from_dlpack(x)
                subjects["torch"] = lambda: torch.sum(t, dim=dim)
            expected = cp.sum(x.astype(cp.float64), axis=axis)
            cured_sum(x, axis=axis, out=out)
            scale = float(cp.max(cp.sum(cp.abs(x.astype(cp.float64)), axis=axis)))
            if float(cp.max(cp.abs(out.astype(cp.float64) - expected))) > scale * (1e-5 if dtype == "float32" else 1e-13):
                raise RuntimeError(f"cured.sum along axis {axis} of {shape} {dtype} disagrees with CuPy's float64 sum")
            for subject, seconds in times_in_turns(subjects, repeats, warmup).items():
                rows.append(timing_row(seconds=seconds, device=device, date=date, dtype=dtype, n=n, subject=subject,
                                       input="axis", measure="device", case=case_name(shape, axis)))
            del x, out, subjects
            cp.get_default_memory_pool().free_all_blocks()
            if torch is not None:
                torch.cuda.empty_cache()
    return rows


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))


def axis_table(rows: Sequence[Row]) -> str:
    """Bandwidth (GB/s, device time) of each subject a case (CUB's only for row sums), cured over
    the faster of PyTorch and CuPy, and cured over V9 on the flat array."""
    cases = list(dict.fromkeys((r.dtype, r.case) for r in rows if r.case))
    by = {(r.dtype, r.case, r.subject): r for r in rows if r.case}
    subjects = [s for s in ("cured", "CUB", "torch", "cupy", "V9") if any(k[2] == s for k in by)]
    lines = []
    for dtype, case in cases:
        get = {s: by.get((dtype, case, s)) for s in subjects}
        nbytes = get["cured"].n * np.dtype(dtype).itemsize
        gbs = {s: nbytes / r.median / 1e9 for s, r in get.items() if r is not None}
        peers = [gbs[s] for s in ("torch", "cupy") if s in gbs]
        lines.append([dtype, case] + [f"{gbs[s]:.0f}" if s in gbs else "" for s in subjects] +
                     [f"{gbs['cured'] / max(peers):.2f}" if peers else "", f"{gbs['cured'] / gbs['V9']:.2f}"])
    header = ["dtype", "shape, axis"] + [f"{s} GB/s" for s in subjects] + ["cured / best peer", "cured / V9 flat"]
    return markdown(header, lines, "ll" + "r" * (len(header) - 2))
