"""Runs V10 once on each case of a list, for Nsight Compute to profile (V9 as well with --v9):
    ncu --kernel-name regex:reduce_v10 --section SpeedOfLight ... python3 scripts/probes/v10_ncu.py
Cases: data:dtype:log2 length, e.g. normal:float32:10 full_range:float32:28."""
import sys

import cupy

import cured
from cured.benchmark import random_input

versions = [9, 10] if "--v9" in sys.argv else [10]
for case in (a for a in sys.argv[1:] if not a.startswith("--")):
    data, dtype, log2 = case.split(":")
    x = cupy.asarray(random_input(1 << int(log2), dtype, data=data))
    for v in versions:
        print(case, f"V{v}", cured.sum(x, version=v))
