"""Runs every version once on inputs that exercise full and partial blocks and several passes, and
checks each result against the CPU order model. Meant to run under compute-sanitizer:

    compute-sanitizer --tool racecheck --error-exitcode 1 python scripts/sanitize_versions.py [versions...]

Each case runs through the paths that launch kernels differently: host input in one chunk and in
many small chunks over several lanes (concurrent launches sharing V9's ticket), and, where CuPy is
installed, device input read in place, misaligned, and strided (the gather kernel's copy), and
summed into a device out= element (queued, then read), aligned and not. V10 (exact) also runs on
data over the whole exponent range (its shared-memory path) and on data with a few tiny elements
among ordinary ones (steps its window undoes after steps it held), returns its exact state, and runs
float64's level 2 as a GPU without the dynamic shared memory would (the warp's state, atomics).

`axis` (an argument, or by default after the versions) runs the sums along axes (kernels/v9_axis.cu,
and V10's, kernels/v10_axis.cu, for floats):
short and long rows, narrow and wide columns, several steps, under the default and a forced grid,
from host memory, from CuPy in place, strided, and into a device out= (direct, and through the
store kernel with a cast and an initial); and 2^20 float32 rows over the whole exponent range, which
each lane sums again as an expansion (kernels/v10_axis.cu, lane_expansion).
"""
import sys

import numpy as np

import cured
from cured.benchmark import full_range

# V9's tiles (32 KiB each): many; 2 to 13 (float16 4, int8 2); float32 3, float64 5; float32 2,
# float64 3; one. Up to 4 tiles of aligned input go through V9's one-block kernel, 2 to 8 through
# V10's cluster of blocks (sm_90 up; float32 7, 3 and 2 tiles, float64 5 and 3, float16 4 and 2).
LENGTHS = [2**20 + 3, 50000, 20000, 12000, 1000]
# V10's float64 on full-range data: a launch of up to a wave of tiles (396 on an H100 or H200; the
# host path's chunks are 128) takes the warps' words; in place on the device, these 513 tiles take
# the threads' digits, and in one host chunk under a forced grid of 7 blocks the kernel that clears
# them first (ClearFirst).
EXACT_FLOAT64_LENGTHS = [2**21 + 5]
DTYPES = ["float32", "int8", "float64", "float16"]

try:
    import cupy
except ImportError:  # device-input cases need CuPy
    cupy = None


def host_sum(x, version, blocks, misalign, lanes, chunk):
    """x summed from host memory on the GPU under a forced grid, chunk placement and staging (0: the
    defaults), the hooks reset after."""
    cured._cured._set_test_launch(blocks, misalign)
    cured._cured._set_staging(lanes, chunk)
    try:
        return cured.sum(x, version=version, device="gpu")
    finally:
        cured._cured._set_test_launch(0, 0)
        cured._cured._set_staging(0, 0)


def runs(x, version):
    """(label, thunk) for each way this input is summed."""
    tiled = cured.versions()[version].schedule == "tiles"
    # Tiled versions also run with few blocks (several tiles each) and misaligned chunks.
    for blocks, misalign in [(0, 0), (7, x.itemsize)] if tiled else [(0, 0)]:
        for lanes, chunk in [(0, 0), (3, 64 << 10)]:
            yield (f"host grid={blocks or 'auto'} misalign={misalign} lanes={lanes or 'auto'} chunk={chunk or 'auto'}",
                   lambda blocks=blocks, misalign=misalign, lanes=lanes, chunk=chunk:
                   host_sum(x, version, blocks, misalign, lanes, chunk))
    if cupy is not None:
        d = cupy.asarray(x)
        yield "device in place", lambda: cured.sum(d, version=version)
        yield "device strided", lambda: cured.sum(d[::-1], version=version)
        raw = cupy.zeros(x.nbytes + 8, dtype=cupy.uint8)
        raw[1:1 + x.nbytes] = d.view(cupy.uint8)
        yield "device misaligned", lambda: cured.sum(raw[1:1 + x.nbytes].view(x.dtype), version=version)
        result = cured.sum(x, version=version, device="cpu").dtype
        slots = cupy.zeros(2 * result.itemsize + 1, dtype=cupy.uint8)
        aligned, offset = slots[:result.itemsize].view(result)[0], slots[result.itemsize + 1:].view(result)[0]
        for label, out in [("device out=", aligned), ("device out= misaligned", offset)]:
            yield label, lambda out=out: cured.sum(d, version=version, out=out).get()[()]
    if cured.versions()[version].tree == "exact" and x.dtype.kind == "f":  # the state, rounded: equal states give the model's bits
        result = cured.sum(x, version=version, device="cpu").dtype
        yield "exact state", lambda: cured.fsum_state(x, device="gpu").round(result)
    if cured.versions()[version].tree == "exact" and x.dtype == np.float64:
        def without_dynamic_shared():  # level 2 as a GPU without the dynamic shared memory runs it
            cured._cured._set_test_dynamic_shared(1)
            try:
                return cured.sum(x, version=version, device="gpu")
            finally:
                cured._cured._set_test_dynamic_shared(0)
        yield "host, no dynamic shared memory", without_dynamic_shared
        if x.size in EXACT_FLOAT64_LENGTHS:  # one launch of more tiles than a wave: ClearFirst
            yield "host one chunk grid=7", lambda: host_sum(x, version, 7, 0, 1, 64 << 20)


AXIS_CASES = [((5, 7), 1), ((3, 20011), 1), ((20011, 3), 0), ((40, 5000), 0), ((6, 70, 9), (0, 2)), ((2, 3, 4), ()),
              ((1000, 2), 1), ((7, 33), 0), ((300, 8), 1), ((500, 16), 1), ((129, 200), 1), ((65, 500), 1),
              ((2, 70000), 1), ((33, 4096), 1), ((33, 4001), 1)]


def axis_main():
    rng = np.random.default_rng(2026)
    failures = 0
    for dtype in DTYPES:
        for shape, axis in AXIS_CASES:
            x = (rng.standard_normal(shape) * 50).astype(dtype)
            model = cured.sum(x, axis=axis, device="cpu")
            cases = []
            for blocks in (0, 7):
                def host(blocks=blocks):
                    cured._cured._set_test_launch(blocks, 0)
                    try:
                        return cured.sum(x, axis=axis)
                    finally:
                        cured._cured._set_test_launch(0, 0)
                cases.append((f"host grid={blocks or 'auto'}", host, model))
            if cupy is not None:
                d = cupy.asarray(x)
                cases.append(("device in place", lambda: cured.sum(d, axis=axis), model))
                flipped = cured.sum(np.ascontiguousarray(x[::-1]), axis=axis, device="cpu")
                cases.append(("device strided", lambda: cured.sum(d[::-1], axis=axis), flipped))
                out = cupy.empty(model.shape, model.dtype)
                cases.append(("device out=", lambda: cured.sum(d, axis=axis, out=out).get(), model))
                if shape[-1] == 2 and axis == 1:  # packed rows of 2: one vector a thread below 4 TB/s, 8 above
                    for bandwidth in (3 * 10**12, 5 * 10**12):
                        def assumed(bandwidth=bandwidth):
                            cured._cured._set_test_memory_bandwidth(bandwidth)
                            try:
                                return cured.sum(d, axis=axis)
                            finally:
                                cured._cured._set_test_memory_bandwidth(0)
                        cases.append((f"device, memory at {bandwidth // 10**12} TB/s", assumed, model))
                if x.dtype.kind == "f":  # V10 along axes (kernels/v10_axis.cu): rows, segments, a copy into rows
                    exact = cured.fsum(x, axis=axis, device="cpu")
                    cases.append(("exact", lambda: cured.fsum(d, axis=axis), exact))
                    exact_flipped = cured.fsum(np.ascontiguousarray(x[::-1]), axis=axis, device="cpu")
                    cases.append(("exact strided", lambda: cured.fsum(d[::-1], axis=axis), exact_flipped))
                    # Over the whole exponent range most short rows leave a thread's float64 sum for the
                    # warp's exact state, beside rows that keep it.
                    wide = full_range(x.size, dtype).reshape(shape)
                    d_wide = cupy.asarray(wide)
                    cases.append(("exact full range", lambda d_wide=d_wide: cured.fsum(d_wide, axis=axis),
                                  cured.fsum(wide, axis=axis, device="cpu")))
                if model.dtype.kind == "f":
                    half = cupy.empty(model.shape, cupy.float16)
                    want = cured.sum(x, axis=axis, dtype=np.float16 if dtype == "float16" else None, initial=1,
                                     device="cpu").astype(np.float16)
                    cases.append(("device out= float16 + initial",
                                  lambda: cured.sum(d, axis=axis, dtype=np.float16 if dtype == "float16" else None,
                                                    initial=1, out=half if dtype == "float16" else
                                                    cupy.empty(model.shape, model.dtype)).get().astype(np.float16),
                                  want))
            for label, run, want in cases:
                got = np.asarray(run())
                ok = got.tobytes() == np.asarray(want).tobytes()
                failures += not ok
                print(f"axis {dtype:<8} {str(shape):<14} axis={str(axis):<7} {label:<32} {'ok' if ok else 'MISMATCH'}")
    if cupy is not None:  # rows that lose bits: a lane a row (2^20 rows), its expansion, then the warps; 16 lanes a row (2^16), the warps
        for dtype, to, rows, length in [("float32", "float32", 2**20, 13), ("float32", "float32", 2**20, 16),
                                        ("float32", "float32", 2**20, 72), ("float32", "float64", 2**20, 13),
                                        ("float32", "float64", 2**20, 72), ("float64", "float64", 2**20, 12),
                                        ("float64", "float64", 2**20, 16), ("float64", "float64", 2**20, 128),
                                        ("float32", "float32", 2**16, 72), ("float32", "float64", 2**16, 16),
                                        ("float64", "float64", 2**16, 40)]:
            wide = full_range(rows * length, dtype).reshape(-1, length)
            ok = cured.fsum(cupy.asarray(wide), axis=1, dtype=to).tobytes() == \
                cured.fsum(wide, axis=1, dtype=to, device="cpu").tobytes()
            failures += not ok
            print(f"axis {dtype:<8} {str(wide.shape):<14} axis=1       {'exact full range, by lanes':<24} "
                  f"{to:<7} {'ok' if ok else 'MISMATCH'}")
    return failures


def main(argv):
    with_axis = not argv or "axis" in argv
    argv = [a for a in argv if a != "axis"]
    ids = [int(a) for a in argv] or ([] if with_axis and "axis" in sys.argv[1:] else [v.id for v in cured.versions()])
    rng = np.random.default_rng(2026)
    failures = 0
    for version in ids:
        for dtype in DTYPES:
            inputs = [(rng.standard_normal(n) * 50).astype(dtype) for n in LENGTHS]
            if cured.versions()[version].tree == "exact" and np.dtype(dtype).kind == "f":
                inputs += [full_range(n, dtype, seed=2026) for n in LENGTHS]
                if dtype == "float64":
                    inputs += [full_range(n, dtype, seed=2026) for n in EXACT_FLOAT64_LENGTHS]
                if dtype != "float16":  # steps the window holds, and after them steps it undoes (tiny elements)
                    x = (rng.standard_normal(LENGTHS[0]) * 50).astype(dtype)
                    x[rng.choice(x.size, size=64, replace=False)] *= np.asarray(2.0**-100, dtype)
                    inputs.append(x)
            for x in inputs:
                n = x.size
                model = cured.sum(x, version=version, device="cpu")
                reversed_model = cured.sum(np.ascontiguousarray(x[::-1]), version=version, device="cpu")
                for label, run in runs(x, version):
                    got = run()
                    want = reversed_model if "strided" in label else model
                    ok = got.tobytes() == want.tobytes()
                    failures += not ok
                    print(f"V{version} {dtype:<8} n={n:<8} {label:<50} gpu={got!r:<28} model={want!r:<28} "
                          f"{'ok' if ok else 'MISMATCH'}")
    if with_axis:
        failures += axis_main()
    print(f"{'all cases ok' if failures == 0 else f'{failures} MISMATCHES'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
