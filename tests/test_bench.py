"""Bandwidth reporting: cured.bench's rows, CUB as a version, timing=True, python -m cured."""
import json
import math

import numpy as np
import pytest

import cured
from cured.__main__ import main, sweep_table
from cured.benchmark import BenchResult, BenchRow, random_input
from reference import DTYPES, cached_case, random_array, same_bits


def fake_row(version, n, median, **fields):
    values = dict(device="test", dtype="float32", n=n, bytes=4 * n, version=version, data="normal", name=f"v{version}", repeats=3,
                  buffers=1, time_median_s=median, time_min_s=median, time_max_s=median, time_q1_s=median,
                  time_q3_s=median, bandwidth_gbs=4 * n / median / 1e9, peak_fraction=0.5, speedup_vs_v0=None,
                  speedup_vs_previous=None, h2d_s=None, end_to_end_s=None, end_to_end_min_s=None,
                  end_to_end_max_s=None, end_to_end_repeats=None, value=1.0)
    values.update(fields)
    return BenchRow(**values)


def test_result_formats_without_a_gpu():
    rows = BenchResult([fake_row(0, 1024, 2e-6), fake_row("cub", 1024, 1e-6), fake_row(0, 2048, 4e-6),
                        fake_row("cub", 2048, 1e-6)], device={"name": "test"})
    text = rows.table()
    assert "1,024 float32 elements" in text and "2,048 float32 elements" in text
    assert rows.to_dicts()[1]["version"] == "cub"
    assert rows.to_csv().splitlines()[0].startswith("device,dtype,n,bytes,version")
    sweep = sweep_table(rows).splitlines()
    assert sweep[1].split() == ["length", "V0", "CUB"]
    assert sweep[2].split() == ["2^10", "2.05", "4.1"] and sweep[3].split() == ["2^11", "2.05", "8.19"]
    as_rows = rows.to_rows()
    assert [(r.subject, r.n, r.measure, r.median) for r in as_rows[:2]] == [("V0", 1024, "device", 2e-6),
                                                                            ("CUB", 1024, "device", 1e-6)]
    assert as_rows[0].date.endswith("UTC") and rows.to_rows("d")[0].date == "d"
    assert {r.input for r in as_rows} == {"device"}
    full = BenchResult([fake_row(10, 1024, 3e-6, data="full_range")], device={"name": "test"}).to_rows("d")
    assert [(r.subject, r.input, r.measure) for r in full] == [("V10", "full_range", "device")]


def test_full_range_spans_the_exponents():
    from cured.benchmark import full_range, random_input

    for dtype, exponents in [("float16", 31), ("float32", 255), ("float64", 2047)]:
        x = full_range(1 << 16, dtype)
        assert x.dtype == dtype and np.isfinite(x).all() and (np.signbit(x).mean() - 0.5) ** 2 < 0.01
        assert len(np.unique(np.frexp(x[x != 0])[1])) > 0.9 * exponents  # nearly every binade, subnormals too
        assert (np.abs(x[x != 0]) < np.finfo(dtype).tiny).any()
    with pytest.raises(ValueError, match="floating"):
        full_range(10, "int32")
    with pytest.raises(ValueError, match="data must be"):
        random_input(10, "float32", data="wide")


@pytest.mark.parametrize("versions", [[11], ["CUB"], [True], [1.5]])
def test_bench_rejects_unknown_versions(versions):
    with pytest.raises(ValueError, match="no version"):
        cured.bench(versions=versions)


def test_bench_rejects_a_version_named_twice():
    with pytest.raises(ValueError, match="named twice"):
        cured.bench(versions=[9, 10, 9])


@pytest.mark.parametrize("repeats, rounds", [(20, 4), (5, 4), (3, 4), (1, 4), (7, 1)])
def test_versions_take_turns_in_batches(repeats, rounds):
    from cured.benchmark import in_turns

    versions = [9, 10, "cub"]
    turns = list(in_turns(versions, repeats, rounds))
    batches = min(repeats, rounds)
    assert len(turns) == batches * len(versions)
    for v in versions:  # every version's launches add up, in batches that differ by one at most
        sizes = [k for u, k in turns if u == v]
        assert sum(sizes) == repeats and len(sizes) == batches and max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
    for k in range(batches):  # a round of each version, every other one reversed
        order = [u for u, _ in turns[k * len(versions):(k + 1) * len(versions)]]
        assert order == (versions if k % 2 == 0 else versions[::-1])


def test_cub_has_no_cpu_model():
    with pytest.raises(ValueError, match="GPU only"):
        cured.sum([1.0, 2.0], version="cub", device="cpu")


def test_main_rejects_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["--versions", "3,x"])
    assert "invalid parse_versions value" in capsys.readouterr().err


@pytest.mark.gpu
def test_bench_rows_are_consistent(seed):
    lengths = [1 << 16, (1 << 20) + 3]
    result = cured.bench(versions=[0, 3, 8, "cub"], lengths=lengths, repeats=5, warmup=1, end_to_end_repeats=2, seed=seed)
    info = cured.device_info()
    assert [(r.n, r.version) for r in result] == [(n, v) for n in lengths for v in (0, 3, 8, "cub")]
    for n in lengths:
        rows = {r.version: r for r in result if r.n == n}
        x = random_input(n, "float32", seed)
        for v, r in rows.items():
            assert r.device == info["name"] and r.bytes == x.nbytes == 4 * n
            assert r.time_min_s <= r.time_q1_s <= r.time_median_s <= r.time_q3_s <= r.time_max_s
            assert math.isclose(r.bandwidth_gbs, r.bytes / r.time_median_s / 1e9, rel_tol=1e-12)
            assert math.isclose(r.peak_fraction, r.bytes / r.time_median_s / info["peak_bandwidth_bytes_per_s"], rel_tol=1e-12)
            assert math.isclose(r.speedup_vs_v0, rows[0].time_median_s / r.time_median_s, rel_tol=1e-12)
            assert 0 < r.h2d_s < r.end_to_end_s
            if v == "cub":
                assert r.speedup_vs_previous is None
                assert abs(r.value - math.fsum(x.astype(np.float64))) <= any_order_bound(x)
            else:
                assert same_bits(np.float32(r.value), cured.sum(x, version=v, device="cpu"))
        assert rows[0].speedup_vs_previous is None
        assert math.isclose(rows[3].speedup_vs_previous, rows[0].time_median_s / rows[3].time_median_s, rel_tol=1e-12)
        assert math.isclose(rows[8].speedup_vs_previous, rows[3].time_median_s / rows[8].time_median_s, rel_tol=1e-12)
    small = [r for r in result if r.n == 1 << 16]
    assert all(r.buffers * r.bytes >= 4 * info["l2_cache_bytes"] for r in small)  # rotated past the L2
    assert all(r.buffers == 1 for r in result if r.n != 1 << 16) or 4 * ((1 << 20) + 3) < 4 * info["l2_cache_bytes"]
    frame = result.to_dataframe() if _has_pandas() else None
    assert frame is None or list(frame["version"]) == [r.version for r in result]


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def any_order_bound(x):
    """CUB's order depends on the GPU: only the bound for any order of n - 1 additions applies,
    gamma(n) * sum|x| (conversion included), plus the float64 reference's rounding."""
    u = 2.0**-24 if x.dtype in (np.float16, np.float32) else 2.0**-53
    k = x.size
    return k * u / (1 - k * u) * float(np.abs(x.astype(np.float64)).sum()) + 2.0**-50 * abs(math.fsum(x.astype(np.float64)))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 33, 32769, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cub_version(seed, dtype, n):
    x, exact, _ = cached_case(seed, dtype, n)
    got = cured.sum(x, version="cub")
    expected = np.sum(x)
    assert got.dtype == expected.dtype
    if dtype.kind in "biu":
        assert got == expected
    else:
        bound = any_order_bound(x) + (2.0**-11 * abs(exact) if dtype == np.float16 else 0)
        assert abs(float(got) - exact) <= bound


@pytest.mark.gpu
def test_cub_rejects_other_accumulators():
    with pytest.raises(TypeError, match="default accumulator"):
        cured.sum(np.ones(10, np.float32), version="cub", dtype=np.float64)


@pytest.mark.gpu
@pytest.mark.parametrize("version", [0, 8, "cub"])
def test_timing(seed, version):
    x = random_array(seed, np.dtype("float32"), 1 << 22)
    value, timing = cured.sum(x, version=version, timing=True)
    assert value == cured.sum(x, version=version)
    assert timing.h2d_s > 0 and timing.reduce_s > 0 and timing.d2h_s > 0
    assert timing.total_s > timing.h2d_s + timing.reduce_s
    assert timing.h2d_s > timing.reduce_s  # the pageable copy is far slower than reading on the device
    small = x[:1000]
    for _ in range(2000):  # a reference-counting slip here once corrupted the heap within a few calls
        value, timing = cured.sum(small, version=version, timing=True)
    assert value == cured.sum(small, version=version, device="cpu" if version != "cub" else "gpu")


@pytest.mark.gpu
def test_main_writes_json_and_csv(tmp_path, capsys):
    path = tmp_path / "out.json"
    assert main(["--length", "100003", "--versions", "7,8,cub", "--repeats", "3", "--json", str(path), "--csv", "-"]) == 0
    captured = capsys.readouterr()
    header, rows = cured.results.load(path)
    assert header["device"]["name"] == cured.device_info()["name"]
    assert [r.subject for r in rows if r.measure == "device"] == ["V7", "V8", "CUB"]
    assert {r.measure for r in rows} == {"device", "end_to_end"} and all(r.n == 100003 for r in rows)
    assert captured.out.splitlines()[0].startswith("device,dtype,n")
    assert "CUB DeviceReduce::Sum" in captured.err  # the table goes to stderr when the CSV takes stdout


@pytest.mark.gpu
def test_main_latency_table(tmp_path, capsys):
    path = tmp_path / "wall.json"
    assert main(["--latency", "--lengths", "2^10,5000", "--latency-repeats", "20", "--latency-budget", "0.05",
                 "--json", str(path)]) == 0
    out = capsys.readouterr().out
    _, rows = cured.results.load(path)
    assert "| floor |" in out.replace("| length | floor |", "| floor |") and "t.sum().item()" in out
    floor = [r for r in rows if r.subject == "floor"]
    assert {r.n for r in floor} == {1024, 5000} and all(0 < r.low <= r.median <= r.high for r in rows)
    cured_cupy = [r for r in rows if r.subject == "cured" and r.input == "cupy" and r.measure == "wall"]
    assert all(c.median >= f.low for c, f in zip(cured_cupy, floor))  # nothing beats the floor


@pytest.mark.gpu
def test_main_sweep_record_replaces_only_the_sweep_rows(tmp_path):
    info = cured.device_info()
    path = tmp_path / f"{cured.results.device_slug(info['name'])}.json"
    common = dict(device=info["name"], date="2026-01-01 00:00 UTC", metric="time", unit="s", repeats=1)
    old_sweep = cured.results.Row(dtype="float32", n=1024, subject="V9", input="device", measure="device",
                                  median=1.0, low=1.0, high=1.0, **common)
    kept = [cured.results.Row(dtype="float32", n=1 << 20, subject="V9", input="device", measure="device",
                              median=2.0, low=2.0, high=2.0, **common),
            cured.results.Row(dtype="float32", n=1024, subject="cured", input="cupy", measure="wall",
                              median=3.0, low=3.0, high=3.0, **common)]
    cured.results.write(path, info, common["date"], "python -m cured --record", [old_sweep, *kept])
    assert main(["--sweep", "--record", str(tmp_path), "--max-log2", "11", "--versions", "9,cub",
                 "--repeats", "2", "--warmup", "1"]) == 0
    header, rows = cured.results.load(path)
    assert header["date"] == common["date"] and len(header["updates"]) == 1
    assert "--sweep" in header["updates"][0]["command"]
    assert rows[:2] == kept  # the rows it did not measure stay as they were
    measured = rows[2:]
    assert {(r.dtype, r.n, r.subject) for r in measured} == {
        (d, n, s) for d in ("float32", "float64") for n in (1024, 2048) for s in ("V9", "CUB")}
    assert all(r.measure == "device" and r.input == "device" and r.date != common["date"] for r in measured)
    assert all(0 < r.low <= r.median <= r.high < 1.0 for r in measured)  # the old V9 row was replaced
