"""Random large non-contiguous host arrays summed on the CPU against their C-order copies, for as
long as asked: tests/test_host_layouts.py's large_random_view and check_random_layout (views of up
to 2^20 elements of every dtype, whole and along an axis, sum and fsum, random threads and range
sizes), which CI runs 60 times a seed. Needs no GPU.

    python scripts/probes/cpu_layout_fuzz.py [seconds] [seed]

Prints the seed, a line a mismatch (with its case number: the same seed replays it) and a count;
exits 1 on any mismatch.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
from test_host_layouts import check_random_layout  # noqa: E402

from reference import DTYPES  # noqa: E402
import cured  # noqa: E402


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
            try:
                check_random_layout(rng, DTYPES[int(rng.integers(len(DTYPES)))], cured._cured._set_cpu_tiles)
            except AssertionError as error:
                mismatches += 1
                print(f"MISMATCH case {case}: {error}", flush=True)
    finally:
        cured._cured._set_cpu_tiles(0, False)
    print(f"{cases} cases, {mismatches} mismatches (seed {seed})")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
