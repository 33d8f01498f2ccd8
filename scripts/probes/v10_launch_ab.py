"""V10 launched through the driver (csrc/kernels/launch.cuh) against the runtime's launch, in one
process: the same build, the launch path switched by cured's test hook (_set_test_driver_launch).
Device time as cured.bench times it, V9 (through the driver) beside both (in turns, batches in
alternating order, runs rotating over buffers that cover the L2 four times); then the wall time of
cured.fsum on a CuPy array, one call of each path in turn.

    python scripts/probes/v10_launch_ab.py [max_log2]      # lengths 2^10 .. 2^max_log2 (default 17)
"""
import statistics
import sys
import time

import cured
from cured import _cured
from cured.benchmark import L2_COVER, in_turns, random_input

SUBJECTS = {"V9": (9, True), "V10 driver": (10, True), "V10 runtime": (10, False)}
REPEATS, WARMUP, ROUNDS = 40, 3, 8


def main() -> None:
    max_log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 17
    info = cured.device_info()
    min_bytes = L2_COVER * info["l2_cache_bytes"]
    print(f"{info['name']}: device time (us), median of {REPEATS} a subject, in turns", flush=True)
    for data in ("normal", "full_range"):
        for dtype in ("float32", "float64"):
            print(f"{data} {dtype}: length, " + ", ".join(SUBJECTS) + ", V10 / V9 (driver, runtime)")
            for k in range(10, max_log2 + 1):
                x = random_input(1 << k, dtype, k, data)
                times = {name: [] for name in SUBJECTS}
                try:
                    for name, launches in in_turns(list(SUBJECTS), REPEATS, ROUNDS):
                        version, driver = SUBJECTS[name]
                        _cured._set_test_driver_launch(driver)
                        times[name] += _cured.bench(x, version, launches, WARMUP, min_bytes)["seconds"]
                finally:
                    _cured._set_test_driver_launch(True)
                m = {name: statistics.median(t) for name, t in times.items()}
                print(f"  2^{k}: " + "  ".join(f"{m[name] * 1e6:7.2f}" for name in SUBJECTS) +
                      f"   {m['V10 driver'] / m['V9']:.3f} {m['V10 runtime'] / m['V9']:.3f}", flush=True)
    wall_times()


def wall_times(calls: int = 4000) -> None:
    import cupy

    for dtype in ("float32", "float64"):
        for k in (10, 14, 20):
            x = cupy.asarray(random_input(1 << k, dtype, k))
            for _ in range(200):
                cured.fsum(x)
            times = {True: [], False: []}
            try:
                for r in range(calls):
                    driver = r % 2 == 0
                    _cured._set_test_driver_launch(driver)
                    start = time.perf_counter()
                    cured.fsum(x)
                    times[driver].append(time.perf_counter() - start)
            finally:
                _cured._set_test_driver_launch(True)
            by_driver, by_runtime = (statistics.median(times[d]) * 1e6 for d in (True, False))
            print(f"{dtype} 2^{k}: cured.fsum(cupy) wall us, driver {by_driver:.2f}  runtime {by_runtime:.2f}  "
                  f"difference {by_runtime - by_driver:.2f}", flush=True)


if __name__ == "__main__":
    main()
