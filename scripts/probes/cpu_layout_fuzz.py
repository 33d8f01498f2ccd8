"""Random non-contiguous host arrays summed on the CPU against their C-order copies, for a while:
transposes, steps, reversals and offsets of bases up to a few MiB (the sizes at which the strided
gather's ranges, row groups, line cuts and padding come into play, csrc/cpu_gather.c and
cpu_tiles.c), every dtype, whole and along random axes, under random thread counts and range sizes
(`_cured._set_cpu_tiles`). tests/test_host_layouts.py checks chosen layouts and tiny random ones;
this draws large ones. Needs no GPU.

    python scripts/probes/cpu_layout_fuzz.py [seconds] [seed]

Prints the seed, a line a mismatch (with its case number: the same seed replays it) and a count;
exits 1 on any mismatch.
"""
import sys
import time

import numpy as np

import cured
from cured import _cured

DTYPES = [np.dtype(d) for d in ("float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64",
                                "uint64", "bool")]


def base_array(rng, dtype, n):
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return rng.standard_normal(n).astype(dtype)


def random_view(rng, dtype):
    """A view of a fresh base: a random shape of up to 2^22 elements, starting a random number of
    elements in (lines offsets), then transposed, stepped, reversed at random."""
    ndim = int(rng.integers(1, 5))
    total = int(2 ** rng.uniform(4, 22))
    shape = [max(1, int(round(total ** (w / ndim)))) for w in rng.dirichlet(np.ones(ndim)) * ndim]
    steps = [int(rng.choice([1, 1, 1, 2, 3, -1, -2])) for _ in range(ndim)]
    offset = int(rng.integers(0, 16))
    need = int(np.prod([e * abs(s) for e, s in zip(shape, steps)])) + offset
    base = base_array(rng, dtype, need)[offset:].reshape([e * abs(s) for e, s in zip(shape, steps)])
    view = base[tuple(slice(None, None, s) for s in steps)]
    order = rng.permutation(ndim) if rng.random() < 0.6 else np.arange(ndim)
    return np.transpose(view, order)


def main(argv):
    seconds = float(argv[0]) if argv else 60.0
    seed = int(argv[1]) if len(argv) > 1 else int(np.random.SeedSequence().entropy % 2**32)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {seed}", flush=True)
    rng = np.random.default_rng(seed)
    cases = mismatches = 0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            case, cases = cases, cases + 1
            dtype = DTYPES[int(rng.integers(len(DTYPES)))]
            view = random_view(rng, dtype)
            copy = np.ascontiguousarray(view)
            threads = int(rng.choice([0, 1, 2, 3, 5]))
            range_bytes = int(rng.choice([0, 0, 4096, 1 << 14, 1 << 17]))
            _cured._set_cpu_tiles(threads, False, range_bytes)
            axes = [None] + ([int(rng.integers(view.ndim))] if view.ndim > 1 else [])
            for axis in axes:
                for fn in (cured.sum, cured.fsum) if dtype.kind == "f" else (cured.sum,):
                    got = np.asarray(fn(view, axis=axis, device="cpu"))
                    want = np.asarray(fn(copy, axis=axis, device="cpu"))
                    if got.tobytes() != want.tobytes() or got.dtype != want.dtype or got.shape != want.shape:
                        mismatches += 1
                        print(f"MISMATCH case {case}: {fn.__name__} {dtype} shape={view.shape} "
                              f"strides={view.strides} offset={view.__array_interface__['data'][0] % 64} "
                              f"axis={axis} threads={threads} range_bytes={range_bytes}: {got.ravel()[:3]} "
                              f"against {want.ravel()[:3]}", flush=True)
    finally:
        _cured._set_cpu_tiles(0, False)
    print(f"{cases} cases, {mismatches} mismatches (seed {seed})")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
