"""The call as users time it: wall time of cured.sum against PyTorch, CuPy, JAX and NumPy.

Each figure is time.perf_counter() around one call that returns the sum to Python, the median of up
to `repeats` calls (at least MIN_REPEATS, within `budget_s` a subject) after a warm-up, on data
already where the call finds it. Beside them, in the same run:
  floor       one minimal kernel writing one value into pinned host memory, and the wait for it
              (polled, as a call waits), all from C (cured._cured.floor): what no call that returns
              a GPU result can beat;
  host_async  the host time of a call that only queues the sum: cured.sum(x, out=device_element)
              against torch.sum(t) with no .item();
  end_to_end  on the same NumPy array in host memory: cured.sum as users call it (device="auto"),
              on each place forced (subjects "cured-cpu" and "cured-gpu"), numpy.sum, and a
              synchronous copy of its bytes from pinned host memory to the GPU ("pinned_copy": the
              bus's ceiling for any GPU path that reads host memory).
The device arrays are one buffer seen through each library (DLPack and the CUDA Array Interface
share it), filled with standard-normal values on the GPU. The subjects compared with each other (the
floor, cured on each input, PyTorch's and CuPy's calls; the host rows) are timed in turns, one call
of each in turn, so that a drift of the machine reaches all of them alike.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import time
from typing import Any, Callable, Collection, Sequence

import numpy as np

from . import _cured
from .results import Row, markdown, timing_row, us

MIN_REPEATS = 10
WARMUP = 3
#: host_async calls queued between two synchronisations (the queue must not fill up)
ASYNC_BATCH = 100
DEFAULT_LENGTHS = tuple(1 << k for k in range(10, 31, 2))


class LatencyResult(list):
    """A list of results.Row (measures wall, host_async and end_to_end) with a text table."""

    def __init__(self, rows: Sequence[Row], missing: dict[str, str]):
        super().__init__(rows)
        self.missing = missing  #: library -> why it was not measured

    def table(self) -> str:
        return latency_tables(self) + "".join(f"\n{lib}: not measured ({why})" for lib, why in self.missing.items())


def _optional(module: str) -> tuple[Any, str | None]:
    try:
        return importlib.import_module(module), None
    except Exception as error:  # noqa: BLE001 - numba-cuda and jax raise more than ImportError
        return None, f"{type(error).__name__}: {error}"


class _CAI:
    """Only a __cuda_array_interface__: the protocol any library can speak."""

    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def _wall(fn: Callable[[], Any], repeats: int, budget_s: float) -> list[float]:
    for _ in range(WARMUP):
        fn()
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < repeats and (len(times) < MIN_REPEATS or time.perf_counter() < deadline):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _wall_in_turns(fns: dict[Any, Callable[[], Any]], repeats: int, budget_s: float,
                   self_timed: Collection[Any] = ()) -> dict[Any, list[float]]:
    """_wall for several subjects on the same data, one call of each in turn: a drift of the CPU's
    clock or of the machine's load (the lent hosts are virtual machines) then reaches every subject
    alike, where timing them one after another let the first one measured read up to 1.8x slower
    than the same call measured next (2026-11-22; for the device rows, CuPy input at H100 2^12 read
    16.4 and 15.8 us where a CAI object measured next read 10.6, 2026-11-23). A subject named in
    `self_timed` times itself: its call returns a list of seconds (the floor, timed in C)."""
    for fn in fns.values():
        for _ in range(WARMUP):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    deadline = time.perf_counter() + budget_s * len(fns)
    while len(times[next(iter(fns))]) < repeats and \
            (len(times[next(iter(fns))]) < MIN_REPEATS or time.perf_counter() < deadline):
        for name, fn in fns.items():
            if name in self_timed:
                times[name] += fn()
                continue
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def _host_async_in_turns(fns: dict[Any, Callable[[], Any]], sync: Callable[[], Any], repeats: int,
                         budget_s: float) -> dict[Any, list[float]]:
    """Host time of calls that only queue work, one call of each subject in turn (as _wall_in_turns:
    timed one subject after another, a slow spell of the host once put one H100 point at 1.98 times
    torch.sum's time where two reruns read 0.54 and 0.47, 2026-11-24), synchronised every
    ASYNC_BATCH calls. `sync` waits for every subject's work."""
    for fn in fns.values():
        for _ in range(WARMUP):
            fn()
    sync()
    times: dict[Any, list[float]] = {name: [] for name in fns}
    first = times[next(iter(fns))]
    rounds_a_batch = max(1, ASYNC_BATCH // len(fns))
    deadline = time.perf_counter() + budget_s * len(fns)
    while len(first) < repeats and (len(first) < MIN_REPEATS or time.perf_counter() < deadline):
        for _ in range(min(rounds_a_batch, repeats - len(first))):
            for name, fn in fns.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        sync()
    return times


def latency(
    lengths: Sequence[int] = DEFAULT_LENGTHS,
    dtypes: Sequence[Any] = ("float32", "float64"),
    repeats: int = 2000,
    budget_s: float = 1.0,
    host: bool = True,
    progress: Callable[[str], None] | None = None,
) -> LatencyResult:
    """Wall times (results.Row, measures wall, host_async, end_to_end) on the current GPU.

    Needs CuPy or PyTorch to hold the device data; measures every library of PyTorch, CuPy, JAX and
    Numba that imports, and says which did not (LatencyResult.missing).
    """
    from . import device_info, sum as cured_sum  # the package imports this module

    if repeats < MIN_REPEATS or budget_s <= 0:
        raise ValueError(f"latency: repeats must be >= {MIN_REPEATS} and budget_s > 0")
    # JAX takes 75% of the GPU's memory at its first call unless told not to.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    libraries = {name: _optional(name) for name in ("cupy", "torch", "jax", "numba.cuda")}
    missing = {name: why for name, (module, why) in libraries.items() if module is None}
    cupy, torch, jax, numba_cuda = (libraries[k][0] for k in ("cupy", "torch", "jax", "numba.cuda"))
    if cupy is None and torch is None:
        raise RuntimeError("latency: needs CuPy or PyTorch for the device arrays (" + "; ".join(missing.values()) + ")")
    if numba_cuda is not None and not numba_cuda.is_available():
        missing["numba.cuda"], numba_cuda = "numba.cuda.is_available() is False", None
    info = device_info()
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[Row] = []
    with _jax_float64(jax):
        for dtype in map(np.dtype, dtypes):
            for n in lengths:
                if progress:
                    progress(f"{info['name']}: wall time, {n:,} {dtype}")

                def row(subject, input, measure, seconds):
                    rows.append(timing_row(seconds=seconds, device=info["name"], date=date, dtype=str(dtype), n=n,
                                           subject=subject, input=input, measure=measure))

                if cupy is not None:
                    c = cupy.random.standard_normal(n, dtype=dtype)
                    t = torch.from_dlpack(c) if torch is not None else None
                else:
                    t = torch.randn(n, dtype=getattr(torch, str(dtype)), device="cuda")
                    c = None
                base = c if c is not None else t
                inputs = {"cupy": c, "torch": t, "cai": _CAI(base)}
                if jax is not None:
                    # Waited for once, as an array JAX computed costs a call: an imported array never
                    # waited for costs jaxlib's is_ready() and interface 0.2 to 0.5 us more each, and
                    # cured.sum 1.3 to 3.7 us more a call (scripts/probes/jax_walltime.py, H200
                    # 2026-11-28 16:28 UTC), which a JAX-computed input does not pay.
                    inputs["jax"] = jax.dlpack.from_dlpack(base).block_until_ready()
                    if inputs["jax"].dtype != dtype:
                        raise RuntimeError(f"latency: JAX made a {inputs['jax'].dtype} array of {dtype} data")
                if numba_cuda is not None:
                    inputs["numba"] = numba_cuda.as_cuda_array(base)
                inputs = {k: v for k, v in inputs.items() if v is not None}

                # The floor, cured on each input, PyTorch's and CuPy's calls: in turns.
                subjects: dict[tuple[str, str], Callable[[], Any]] = {("floor", "device"): lambda: _cured.floor(1)}
                subjects.update({("cured", name): (lambda x=x: cured_sum(x)) for name, x in inputs.items()})
                if t is not None:
                    subjects["torch", "torch"] = lambda: t.sum().item()
                if c is not None:
                    subjects["cupy", "cupy"] = lambda: float(c.sum())
                timed = _wall_in_turns(subjects, repeats, budget_s, self_timed={("floor", "device")})
                for (subject, input), times in timed.items():
                    row(subject, input, "wall", times)
                # JAX's own sum, 20 times slower than the others, alone: in turns it would set their pace.
                if jax is not None:
                    import jax.numpy as jnp

                    row("jax", "jax", "wall", _wall(lambda: float(jnp.sum(inputs["jax"])), repeats, budget_s))

                # Queued, not waited for: cured.sum into a device element against torch.sum, in turns.
                queued: dict[tuple[str, str], Callable[[], Any]] = {}
                if t is not None:
                    out_t = torch.empty((), dtype=t.dtype, device=t.device)
                    queued["cured", "torch"] = lambda: cured_sum(t, out=out_t)
                    queued["torch", "torch"] = lambda: torch.sum(t)
                if c is not None:
                    out_c = cupy.empty((), dtype=dtype)
                    queued["cured", "cupy"] = lambda: cured_sum(c, out=out_c)
                # A wait for the whole device covers both libraries' queued work.
                sync = torch.cuda.synchronize if t is not None else cupy.cuda.Device().synchronize
                for (subject, input), times in _host_async_in_turns(queued, sync, repeats, budget_s).items():
                    row(subject, input, "host_async", times)

                if host:
                    h = cupy.asnumpy(c) if c is not None else t.cpu().numpy()
                    timed = _wall_in_turns({
                        "cured": lambda: cured_sum(h),
                        "cured-cpu": lambda: cured_sum(h, device="cpu"),
                        "cured-gpu": lambda: cured_sum(h, device="gpu"),
                        "numpy": lambda: np.sum(h),
                        "pinned_copy": _pinned_copy(h.nbytes, cupy, torch)}, repeats, budget_s)
                    for subject, times in timed.items():
                        row(subject, "host", "end_to_end", times)
                    del h
                del inputs, base, c, t
                if cupy is not None:
                    cupy.get_default_memory_pool().free_all_blocks()
                if torch is not None:
                    torch.cuda.empty_cache()

    return LatencyResult(rows, missing)


def _pinned_copy(nbytes: int, cupy: Any, torch: Any) -> Callable[[], Any]:
    """A synchronous copy of nbytes from pinned host memory to the current GPU."""
    if cupy is not None:
        host, device = cupy.cuda.alloc_pinned_memory(nbytes), cupy.empty(nbytes, cupy.uint8)
        kind = cupy.cuda.runtime.memcpyHostToDevice
        return lambda: cupy.cuda.runtime.memcpy(device.data.ptr, host.ptr, nbytes, kind)
    host, device = torch.empty(nbytes, dtype=torch.uint8).pin_memory(), torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    return lambda: device.copy_(host)  # synchronous: a pinned source copies with non_blocking=False


@contextlib.contextmanager
def _jax_float64(jax: Any):
    """JAX makes float64 arrays float32 unless x64 is on: on for the measurement, then as it was."""
    if jax is None:
        yield
        return
    x64 = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", x64)


def latency_tables(rows: Sequence[Row]) -> str:
    """The wall-time table (device inputs), the queued-call table and the host-input table, as Markdown."""
    from .results import lookup, select

    out = []
    for dtype in dict.fromkeys(r.dtype for r in rows):
        mine = select(rows, dtype=dtype)
        lengths = sorted({r.n for r in mine})
        device = mine[0].device
        wall = select(mine, measure="wall")
        cured_inputs = [i for i in ("cupy", "torch", "cai", "jax", "numba") if select(wall, subject="cured", input=i)]
        others = [s for s in ("torch", "cupy", "jax") if select(wall, subject=s)]
        header = ["length", "floor"] + [f"cured.sum({i})" for i in cured_inputs] + [_call(s) for s in others] + \
                 ["cured(cupy) / floor", "best other / cured(cupy)" if "cupy" in cured_inputs else "best other / cured"]
        lines = []
        for n in lengths:
            floor = lookup(wall, subject="floor", n=n)
            cured = {i: lookup(wall, subject="cured", input=i, n=n) for i in cured_inputs}
            other = {s: lookup(wall, subject=s, n=n) for s in others}
            first = cured[cured_inputs[0]]
            best = min((r.median for r in other.values() if r is not None), default=None)
            lines.append([f"2^{n.bit_length() - 1}", us(floor.median if floor else None)]
                         + [us(r.median if r else None) for r in cured.values()]
                         + [us(r.median if r else None) for r in other.values()]
                         + [f"{first.median / floor.median:.2f}" if floor and first else "",
                            f"{best / first.median:.2f}" if best and first else ""])
        out.append(f"Wall time of one call returning the sum (median us), {dtype}, {device}:\n\n" + markdown(header, lines))

        queued = select(mine, measure="host_async")
        if queued:
            subjects = list(dict.fromkeys((r.subject, r.input) for r in queued))
            header = ["length"] + [f"{s}({i})" for s, i in subjects]
            lines = [[f"2^{n.bit_length() - 1}"] + [us(getattr(lookup(queued, subject=s, input=i, n=n), "median", None))
                                                   for s, i in subjects] for n in lengths]
            out.append(f"Host time of a queued call, not waited for (median us), {dtype}: cured.sum(x, out=device "
                       f"element) and torch.sum(t):\n\n" + markdown(header, lines))
        host = select(mine, measure="end_to_end", input="host")
        if host:
            out.append(f"From a NumPy array in host memory (median us), {dtype}:\n\n" + host_table(host, lengths))
    return "\n\n".join(out) + "\n"


def host_table(rows: Sequence[Row], lengths: Sequence[int]) -> str:
    """Wall time of a sum of a NumPy array: cured.sum (device="auto"), each place forced, numpy.sum
    and the pinned copy; numpy.sum over cured.sum, and the GPU path's bandwidth as a share of the
    copy's."""
    from .results import lookup

    subjects = [("cured", 'cured.sum'), ("cured-cpu", 'device="cpu"'), ("cured-gpu", 'device="gpu"'),
                ("numpy", "numpy.sum"), ("pinned_copy", "pinned copy")]
    present = [(s, label) for s, label in subjects if any(r.subject == s for r in rows)]
    lines = []
    for n in lengths:
        get = {s: lookup(rows, subject=s, n=n) for s, _ in present}
        cured, numpy, gpu, copy = (get.get(s) for s in ("cured", "numpy", "cured-gpu", "pinned_copy"))
        lines.append([f"2^{n.bit_length() - 1}"] + [us(r.median if r else None) for r in get.values()]
                     + [f"{numpy.median / cured.median:.2f}" if cured and numpy else "",
                        f"{copy.median / gpu.median:.2f}" if copy and gpu else ""])
    return markdown(["length"] + [label for _, label in present] + ["numpy / cured", "GPU path / copy"], lines)


def _call(subject: str) -> str:
    return {"torch": "t.sum().item()", "cupy": "float(c.sum())", "jax": "float(jnp.sum(j))"}[subject]
