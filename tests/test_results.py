"""The one schema of results/: rows, files, and the tables README and the notebook draw from them."""
import json
from pathlib import Path

import pytest

from cured import results
from cured.results import Row, timing_row

RESULTS = Path(__file__).resolve().parent.parent / "results"


def row(**changes):
    fields = dict(device="GPU X", date="2026-11-21 12:00 UTC", dtype="float32", n=1024, subject="V9", input="device",
                  measure="device", metric="time", median=2e-6, low=1e-6, high=3e-6, unit="s", repeats=3)
    fields.update(changes)
    return Row(**fields)


def test_timing_row_takes_median_and_spread():
    r = timing_row(seconds=[3.0, 1.0, 2.0, 10.0], device="d", date="t", dtype="float64", n=5, subject="cured",
                   input="cupy", measure="wall")
    assert (r.median, r.low, r.high, r.repeats, r.unit, r.metric) == (2.5, 1.0, 10.0, 4, "s", "time")
    with pytest.raises(ValueError, match="no runs"):
        timing_row(seconds=[], device="d", date="t", dtype="f", n=1, subject="s", input="i", measure="wall")


def test_unknown_measure_is_refused():
    with pytest.raises(ValueError, match="measure"):
        row(measure="speed")


def test_files_round_trip(tmp_path):
    rows = [row(), row(subject="CUB", median=4e-6), row(measure="counter", metric="dram_throughput", unit="%",
                                                         median=81.5, low=81.5, high=81.5, repeats=1)]
    path = results.write(tmp_path / "x.json", {"name": "GPU X"}, "2026-11-21 12:00 UTC", "python -m cured --record", rows)
    header, loaded = results.load(path)
    assert loaded == rows and header["schema"] == results.SCHEMA and header["device"]["name"] == "GPU X"
    (tmp_path / "old.json").write_text(json.dumps({"device": {}, "table": []}))
    with pytest.raises(ValueError, match="not a cured-results"):
        results.load(tmp_path / "old.json")


def test_select_and_lookup():
    rows = [row(n=1024), row(n=2048), row(n=2048, subject="CUB")]
    assert results.select(rows, n=2048) == rows[1:]
    assert results.select(rows, subject=("V9", "CUB"), n=2048) == rows[1:]
    assert results.lookup(rows, subject="CUB").n == 2048 and results.lookup(rows, subject="V0") is None
    with pytest.raises(ValueError, match="2 rows"):
        results.lookup(rows, n=2048)


def test_device_slug_and_markdown():
    assert results.device_slug("NVIDIA H100 80GB HBM3") == "NVIDIA_H100_80GB_HBM3"
    assert results.markdown(["a", "b"], [[1, 2]]).splitlines() == ["| a | b |", "| --- | ---: |", "| 1 | 2 |"]
    assert results.us(12.34e-6) == "12.3" and results.us(1234.5e-6) == "1,234" and results.us(None) == ""


def test_every_committed_results_file_has_the_schema():
    files = sorted(RESULTS.glob("*.json"))
    assert files, "results/ holds no measurements"
    for path in files:
        header, rows = results.load(path)
        assert rows and all(r.device == header["device"]["name"] for r in rows), path
        assert path.stem == results.device_slug(header["device"]["name"]), path
        assert {r.measure for r in rows} >= {"device", "wall", "counter"}, path


def test_axis_table_reads_cub_where_a_case_has_it():
    from cured.axis_bench import axis_table

    n = 1 << 20
    rows = [row(n=n, input="axis", case=case, subject=subject, median=seconds)
            for case, timings in [("(2^20,) axis 0", {"cured": 1e-3, "CUB": 2e-3, "torch": 2e-3, "cupy": 4e-3, "V9": 1e-3}),
                                  ("(1024, 1024) axis 0", {"cured": 2e-3, "torch": 1e-3, "cupy": 4e-3, "V9": 1e-3})]
            for subject, seconds in timings.items()]
    lines = axis_table(rows).splitlines()
    assert lines[0] == ("| dtype | shape, axis | cured GB/s | CUB GB/s | torch GB/s | cupy GB/s | V9 GB/s | "
                        "cured / best peer | cured / V9 flat |")
    assert lines[2] == "| float32 | (2^20,) axis 0 | 4 | 2 | 2 | 1 | 4 | 2.00 | 1.00 |"
    assert lines[3] == "| float32 | (1024, 1024) axis 0 | 2 |  | 4 | 1 | 4 | 0.50 | 0.50 |"


@pytest.mark.gpu
def test_a_held_stream_runs_what_is_queued_behind_it_after_the_hold():
    cp = pytest.importorskip("cupy")
    from cured.axis_bench import hold_stream

    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    hold_stream(0.02)
    stop.record()
    stop.synchronize()
    assert cp.cuda.get_elapsed_time(start, stop) >= 19.9  # milliseconds


@pytest.mark.gpu
def test_axis_rows_time_each_subject_of_a_shape():
    pytest.importorskip("cupy")
    from cured.axis_bench import axis_rows

    rows = axis_rows("GPU X", "2026-11-24 10:00 UTC", dtypes=("float32",), repeats=3, warmup=1,
                     shapes=[((64, 1000), 1)])
    assert {r.subject for r in rows} >= {"cured", "cupy", "V9", "CUB"}
    assert all(r.case == "(64, 1000) axis 1" and r.n == 64000 and r.repeats == 3 for r in rows)
    assert all(0 < r.low <= r.median <= r.high < 1 for r in rows)


def test_host_table_reads_each_place_and_the_copy():
    from cured.walltime import host_table

    rows = [row(n=n, input="host", measure="end_to_end", subject=subject, median=seconds)
            for n, timings in [(1024, {"cured": 2e-6, "cured-cpu": 2e-6, "cured-gpu": 4e-5, "numpy": 3e-6,
                                       "pinned_copy": 1e-5}),
                               (1 << 30, {"cured": 0.05, "cured-gpu": 0.08, "numpy": 0.5, "pinned_copy": 0.072})]
            for subject, seconds in timings.items()]
    lines = host_table(rows, [1024, 1 << 30]).splitlines()
    assert lines[0] == ('| length | cured.sum | device="cpu" | device="gpu" | numpy.sum | pinned copy | numpy / cured | '
                        'GPU path / copy |')
    assert lines[2] == "| 2^10 | 2.0 | 2.0 | 40.0 | 3.0 | 10.0 | 1.50 | 0.25 |"
    assert lines[3] == "| 2^30 | 50,000 |  | 80,000 | 500,000 | 72,000 | 10.00 | 0.90 |"


def test_partial_records_replace_only_what_they_measured():
    from cured.__main__ import merged

    old = [row(), row(measure="wall", input="cupy", subject="cured"), row(measure="wall", input="cupy", subject="cupy"),
           row(input="axis", case="(2^14, 2^14) axis 0"), row(measure="end_to_end", input="host", subject="V9")]
    new_wall = row(measure="wall", input="cupy", subject="cured", median=1e-6, date="2026-11-23 12:00 UTC")
    assert merged(old, [new_wall], axis=False) == [old[0], old[2], old[3], old[4], new_wall]
    new_axis = row(input="axis", case="(2^14, 2^14) axis 1")
    assert merged(old, [new_axis], axis=True) == [old[0], old[1], old[2], old[4], new_axis]


def test_queued_calls_are_timed_in_turns_and_waited_for_in_batches():
    from cured import walltime

    calls = []
    subjects = {name: (lambda name=name: calls.append(name)) for name in ("a", "b", "c")}
    times = walltime._host_async_in_turns(subjects, lambda: calls.append("sync"), repeats=40, budget_s=10.0)
    assert {name: len(t) for name, t in times.items()} == {"a": 40, "b": 40, "c": 40}
    assert all(seconds >= 0 for t in times.values() for seconds in t)
    timed = calls[3 * walltime.WARMUP + 1:]  # after each subject's warm-up and the first wait
    assert calls[:3 * walltime.WARMUP + 1] == ["a"] * walltime.WARMUP + ["b"] * walltime.WARMUP + \
        ["c"] * walltime.WARMUP + ["sync"]
    batches = "".join("|" if name == "sync" else name for name in timed).split("|")
    assert batches[-1] == "" and all(batch == "abc" * (len(batch) // 3) for batch in batches[:-1])
    assert max(len(batch) for batch in batches) <= walltime.ASYNC_BATCH  # the queue never holds more
