"""A round of subjects timed in turns (device time), shared by the axis probes; needs only CuPy."""
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
