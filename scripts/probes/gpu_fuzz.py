"""Random sums on the GPU against the CPU's bits, for a while: every version's whole sums, V10's
exact sums, the sums along axes and NumPy's arguments (dtype=, keepdims, initial, out=), over random
lengths, shapes, dtypes, data and paths (host memory under the default or a forced grid and staging,
a CuPy array in place, misaligned, reversed; PyTorch tensors).
The CPU order model gives each version's bits and the CPU's exact sum V10's, both tested against
independent references in tests/. Written after a V10 bug that only data with a rare tiny element
at 2^24 elements showed (2026-11-27: a step the window undid lost the thread's earlier steps): the
suite's data is drawn afresh each run, but its shapes are fixed.

    python scripts/probes/gpu_fuzz.py [seconds] [seed]

Prints the seed, a line a mismatch with what replays it, and a count; exits 1 on any mismatch.
"""
import sys
import time

import numpy as np

import cured
from cured.benchmark import full_range

FLOATS = ["float16", "float32", "float64"]
INTEGERS = ["int8", "uint8", "int32", "int64", "bool"]


def data(rng, dtype, n):
    """Random values of a random kind: standard normal (scaled), with a sprinkling of tiny or huge
    elements at a random density, over the whole exponent range, or cancelling pairs; integers over
    their range."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < rng.random()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    kind = rng.choice(["normal", "tiny", "huge", "wide", "cancelling"])
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)).astype(dtype)
    if kind in ("tiny", "huge") and n:
        at = rng.choice(n, size=max(1, int(n * 10.0 ** rng.uniform(-7, -1))), replace=True)
        scale = {"float16": (2.0**-20, 2.0**10), "float32": (2.0**-60, 2.0**40), "float64": (2.0**-120, 2.0**100)}
        x[at] = (x[at].astype(np.float64) * scale[dtype.name][kind == "huge"]).astype(dtype)
    elif kind == "wide":
        x = full_range(n, dtype, seed=int(rng.integers(2**31)))
    elif kind == "cancelling" and n >= 2:
        half = full_range(n // 2, dtype, seed=int(rng.integers(2**31))) / 4
        x[: 2 * (n // 2)] = np.concatenate([half, -half])
        rng.shuffle(x)
    return x


def length(rng):
    """Log-uniform up to 2^25, or a tile's multiple off by a little."""
    if rng.random() < 0.3:
        return int(max(0, (1 << int(rng.integers(10, 22))) * int(rng.integers(1, 9)) + int(rng.integers(-3, 4))))
    return int(2 ** rng.uniform(0, 25))


def equal_elements(a, b):
    """Element by element: the same bits, or both NaN."""
    if a.dtype.kind == "f":
        bits = f"u{a.itemsize}"
        return (np.isnan(a) & np.isnan(b)) | (a.view(bits) == b.view(bits))
    return a == b


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.all(equal_elements(a, b)))


def differences(got, want):
    """Where an array result first differs from the CPU's, and how many differ; a scalar's values."""
    if isinstance(got, str) or np.ndim(want) == 0:
        return f"gpu {got!r} cpu {want!r}"
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"gpu {got.dtype}{got.shape} cpu {want.dtype}{want.shape}"
    wrong = np.argwhere(~equal_elements(got, want))
    first = tuple(int(i) for i in wrong[0])
    return f"{len(wrong)} of {got.size} differ, first at {first}: gpu {got[first]!r} cpu {want[first]!r}"


def with_hooks(run, blocks=0, misalign=0, lanes=0, chunk=0):
    cured._cured._set_test_launch(blocks, misalign)
    cured._cured._set_staging(lanes, chunk)
    try:
        return run()
    finally:
        cured._cured._set_test_launch(0, 0)
        cured._cured._set_staging(0, 0)


def paths(rng, x, call, any_grid, from_host):
    """(label, thunk): host memory under the default grid, a random one (where the version's order
    does not depend on its grid: V9, V10, the axes) and random staging; CuPy in place, misaligned
    and reversed. Each with the host array whose CPU result it must equal (None: x). V10 along axes
    runs on the GPU for device arrays only (from_host False)."""
    blocks = int(rng.choice([1, 2, 3, 7, 33, 1000]))
    lanes, chunk = int(rng.integers(1, 7)), int(1 << int(rng.integers(14, 24)))
    if from_host:
        on_gpu = lambda: call(x, device="gpu")
        yield "host", on_gpu, None
        if any_grid:
            yield f"host blocks={blocks}", lambda: with_hooks(on_gpu, blocks=blocks), None
        yield f"host lanes={lanes} chunk={chunk}", lambda: with_hooks(on_gpu, lanes=lanes, chunk=chunk), None
    if cupy is not None and x.dtype != np.bool_:
        d = cupy.asarray(x)
        yield "cupy", lambda: call(d), None
        yield "cupy reversed", lambda: call(d[::-1]), np.ascontiguousarray(x[::-1])
        if x.ndim == 1 and x.size:
            raw = cupy.zeros(x.nbytes + 16, dtype=cupy.uint8)
            raw[1:1 + x.nbytes] = d.view(cupy.uint8)
            yield "cupy misaligned", lambda: call(raw[1:1 + x.nbytes].view(x.dtype)), None


ACCUMULATORS = [None, "float16", "float32", "float64", "int8", "int32", "int64", "uint16", "uint64", "bool"]
TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]


def outcome(run):
    """A call's result, or what it raised."""
    try:
        return run(), None
    except Exception as error:
        return None, error


def numpy_arguments(rng, case):
    """cured.sum's NumPy arguments at random (axis None, an int, negative, a tuple, (); dtype=;
    keepdims; initial; out=) on a random shape, zero extents among them, for CuPy and PyTorch input
    and host input on the GPU, against the same call on the CPU: the same bits, dtype and shape, or
    the same exception. Returns the mismatches."""
    ndim = int(rng.integers(0, 5))
    shape = [int(2 ** rng.uniform(0, 20 / max(ndim, 1))) for _ in range(ndim)]
    if ndim and rng.random() < 0.1:
        shape[int(rng.integers(ndim))] = 0
    shape = tuple(shape)
    dtype = str(rng.choice(FLOATS + INTEGERS))
    x = data(rng, dtype, int(np.prod(shape))).reshape(shape)
    kw = {}
    choice = rng.random()
    if choice < 0.2:
        kw["axis"] = None
    elif choice < 0.5 and ndim:
        kw["axis"] = int(rng.integers(-ndim, ndim))
    elif choice < 0.9:
        kw["axis"] = tuple(int(a) - (ndim if rng.random() < 0.3 else 0) for a in np.flatnonzero(rng.random(ndim) < 0.5))
    if rng.random() < 0.4:
        kw["dtype"] = rng.choice(ACCUMULATORS)
    if rng.random() < 0.3:
        kw["keepdims"] = True
    if rng.random() < 0.3:
        kw["initial"] = int(rng.choice([0, 1, -7]))
    label = f"sum {dtype} shape={shape} {kw}"
    want, error = outcome(lambda: cured.sum(x, device="cpu", **kw))
    error = type(error) if error is not None else None
    with_out = error is None and np.ndim(want) > 0 and rng.random() < 0.4
    runs = [("host", lambda: cured.sum(x, device="gpu", **kw))]
    if cupy is not None and x.dtype != np.bool_:
        runs.append(("cupy", lambda: cured.sum(cupy.asarray(x), **kw)))
    if torch is not None and dtype in TORCH_DTYPES:
        runs.append(("torch", lambda: cured.sum(torch.from_numpy(x).cuda(), **kw)))
    if with_out:
        want = cured.sum(x, device="cpu", out=np.empty(want.shape, want.dtype), **kw)
        if cupy is not None:
            out = cupy.empty(want.shape, want.dtype)
            runs = [("cupy out=", lambda: (cured.sum(cupy.asarray(x), out=out, **kw), out))]
        else:
            runs = []
    mismatches = 0
    for path, run in runs:
        got, raised = outcome(run)
        if path == "cupy out=" and isinstance(raised, TypeError) and "casts each element first" in str(raised):
            continue  # NumPy's cast is made on the host: such a sum cannot stay on the device (documented)
        raised = type(raised) if raised is not None else None
        if path == "cupy out=" and raised is None:
            returned, out = got
            got = out.get() if returned is out else f"returned {type(returned).__name__}, not out"
        if hasattr(got, "get"):
            got = got.get()
        ok = raised is error and (error is not None or (type(got) is type(want) and same(got, want)))
        if not ok:
            mismatches += 1
            print(f"MISMATCH case {case}: {label} {path}: "
                  f"{differences(got if raised is None else f'raised {raised.__name__}', want if error is None else f'raised {error.__name__}')}",
                  flush=True)
    return mismatches


def main(argv):
    seconds = float(argv[0]) if argv else 120.0
    seed = int(argv[1]) if len(argv) > 1 else int(np.random.SeedSequence().entropy % 2**32)
    print(f"{cured.device_info()['name']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {seed}", flush=True)
    rng = np.random.default_rng(seed)
    versions = [v.id for v in cured.versions()]
    cases = mismatches = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        case = cases
        cases += 1
        what = rng.choice(["whole", "exact", "axis", "arguments"], p=[0.3, 0.3, 0.2, 0.2])
        if what == "arguments":
            mismatches += numpy_arguments(rng, case)
            continue
        exact = False
        if what == "axis":
            ndim = int(rng.integers(1, 5))
            shape = tuple(int(2 ** rng.uniform(0, 22 / ndim)) for _ in range(ndim))
            axis = tuple(int(a) for a in np.flatnonzero(rng.random(ndim) < 0.5)) or (int(rng.integers(ndim)),)
            dtype = str(rng.choice(FLOATS + INTEGERS))
            x = data(rng, dtype, int(np.prod(shape))).reshape(shape)
            exact = np.dtype(dtype).kind == "f" and rng.random() < 0.5
            fn = cured.fsum if exact else cured.sum
            call = lambda a, **kw: fn(a, axis=axis, **kw)
            label = f"{'fsum' if exact else 'sum'} {dtype} shape={shape} axis={axis}"
            any_grid = True
        else:
            n = length(rng)
            dtype = str(rng.choice(FLOATS if what == "exact" else FLOATS + INTEGERS))
            x = data(rng, dtype, n)
            version = 10 if what == "exact" else int(rng.choice(versions[:-1]))
            call = lambda a, version=version, **kw: cured.sum(a, version=version, **kw)
            label = f"V{version} {dtype} n={n}"
            any_grid = version in (9, 10)
        expected = call(x, device="cpu")
        for path, run, other in paths(rng, x, call, any_grid, from_host=what != "axis" or not exact):
            want = call(other, device="cpu") if other is not None else expected
            got, raised = outcome(run)  # a failure to run is a finding too
            got = repr(raised) if raised is not None else got.get() if hasattr(got, "get") else got
            ok = raised is None and same(got, want)
            if not ok:
                mismatches += 1
                print(f"MISMATCH case {case}: {label} {path}: {differences(got, want)}", flush=True)
    print(f"{cases} cases, {mismatches} mismatches (seed {seed})")
    return 1 if mismatches else 0


try:
    import cupy
except ImportError:
    cupy = None
try:
    import torch
except ImportError:
    torch = None

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
