"""Runs every version once on inputs that exercise full and partial blocks and several passes, and
checks each result against the CPU order model. Meant to run under compute-sanitizer:

    compute-sanitizer --tool racecheck --error-exitcode 1 python scripts/sanitize_versions.py [versions...]
"""
import sys

import numpy as np

import cured

LENGTHS = [2**20 + 3, 1000]
DTYPES = ["float32", "int8", "float64", "float16"]


def main(argv):
    ids = [int(a) for a in argv] or [v.id for v in cured.versions()]
    rng = np.random.default_rng(2026)
    failures = 0
    for version in ids:
        for dtype in DTYPES:
            for n in LENGTHS:
                x = (rng.standard_normal(n) * 50).astype(dtype)
                model = cured.sum(x, version=version, device="cpu")
                # Tiled versions also run with few blocks (several tiles each) and misaligned input.
                launches = [(0, 0), (7, x.itemsize)] if cured.versions()[version].schedule == "tiles" else [(0, 0)]
                for blocks, misalign in launches:
                    cured._cured._set_test_launch(blocks, misalign)
                    got = cured.sum(x, version=version)
                    ok = got.tobytes() == model.tobytes()
                    failures += not ok
                    print(f"V{version} {dtype:<8} n={n:<8} grid={blocks or 'auto':<5} misalign={misalign:<2} "
                          f"gpu={got!r:<28} model={model!r:<28} {'ok' if ok else 'MISMATCH'}")
                cured._cured._set_test_launch(0, 0)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
