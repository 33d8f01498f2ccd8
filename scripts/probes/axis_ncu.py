"""Runs cured's sum along an axis once on each case, and V9 on the flat array of the same bytes, for
Nsight Compute to profile (the launches between cupy's profiler start and stop):
    ncu --profile-from-start off --section SpeedOfLight ... python3 scripts/probes/axis_ncu.py CASES
Cases: dtype:shape:axis, the shape's extents by 'x', e.g. float32:16777216x16:0 float64:16777216x16:1."""
import sys

import cupy

import cured

rng = cupy.random.default_rng(2026)
for case in sys.argv[1:]:
    dtype, shape, axis = case.split(":")
    x = rng.standard_normal(tuple(int(e) for e in shape.split("x")), dtype=dtype)
    flat = x.reshape(-1)
    cured.sum(x, axis=int(axis)), cured.sum(flat)  # built, planned and warm before the profile
    cupy.cuda.Device().synchronize()
    cupy.cuda.profiler.start()
    got = cured.sum(x, axis=int(axis))
    cured.sum(flat)
    cupy.cuda.profiler.stop()
    print(case, got.shape, flush=True)
