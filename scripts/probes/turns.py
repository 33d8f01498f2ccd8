"""Timing shared by the probes: subjects in turns (device time, CuPy events; or host time,
timeit), their table, and forced grids (cured's test hook)."""
import statistics
import timeit

import cupy as cp


def round_times(subjects, pad):
    """One round: `pad` (no events) gives the host a head start, then each subject between events,
    queued behind the one before, as `python -m cured --axis` times them: the device's time, not
    the host's latency to the first launch."""
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in subjects]
    pad()
    for (start, stop), fn in zip(events, subjects.values()):
        start.record()
        fn()
        stop.record()
    events[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(a, b) * 1e-3 for a, b in events]


def times_in_turns(subjects, pad, rounds):
    """Each subject's device times over `rounds` rounds of round_times."""
    times = {name: [] for name in subjects}
    for _ in range(rounds):
        for name, t in zip(subjects, round_times(subjects, pad)):
            times[name].append(t)
    return times


def print_medians(times, nbytes, reference):
    """A line a subject: median, bandwidth over `nbytes`, the reference's median over this one's."""
    ref = statistics.median(times[reference])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"  {name:34s} {m * 1e6:8.1f} us {nbytes / m / 1e9:7.0f} GB/s  {reference} / this {ref / m:.3f}"
              f"  (low {min(ts) * 1e6:.1f}, high {max(ts) * 1e6:.1f})", flush=True)


def forced(grid, fn):
    """fn under a forced grid of `grid` blocks (cured._cured._set_test_launch; tiled kernels and
    the axis kernels follow it, and their order does not depend on it)."""
    from cured import _cured

    def run():
        _cured._set_test_launch(grid, 0)
        try:
            fn()
        finally:
            _cured._set_test_launch(0, 0)
    return run


def timeit_in_turns(subjects: dict, rounds: int, number: int) -> dict:
    """Median ns a call of each subject (a statement and its globals), timed `number` calls at a
    time by timeit, the subjects in turns for `rounds` rounds."""
    timers = {name: timeit.Timer(stmt, globals=g) for name, (stmt, g) in subjects.items()}
    times = {name: [] for name in subjects}
    for _ in range(rounds):
        for name, timer in timers.items():
            times[name].append(timer.timeit(number) / number * 1e9)
    return {name: statistics.median(t) for name, t in times.items()}
