"""cured.profile: Nsight Compute's counters a version. On the CPU, parsing ncu's CSV (samples committed
from an H200) and the table; on the GPU, a profile of two versions (run first: the GPU runs in
exclusive-process mode, and ncu's child needs it before this process opens a context)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cured
from cured import profiling
from cured.profiling import METRICS, ProfileError, combine, parse_ncu_csv, profile_table

DATA = Path(__file__).resolve().parent / "data"
N = 1 << 25


def kernels(name):
    return parse_ncu_csv((DATA / name).read_text())


def test_parse_ncu_csv_sample():
    v2 = kernels("ncu_V2_float32_2pow25_H200.csv")
    # V2's passes over 2^25 elements: 131072, 512, 2 and 1 blocks.
    assert [k["Grid Size"] for k in v2] == ["(131072, 1, 1)", "(512, 1, 1)", "(2, 1, 1)", "(1, 1, 1)"]
    assert all("reduce_v2" in k["Kernel Name"] for k in v2)
    first = v2[0]
    assert 100e-6 < first["gpu__time_duration.sum"] < 1e-3  # nanoseconds read as seconds
    assert first["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] > 1e6  # V2's strided tree
    assert 0 < first["dram__throughput.avg.pct_of_peak_sustained_elapsed"] <= 100


def test_combine_sums_counts_and_weighs_rates_by_duration():
    v2 = kernels("ncu_V2_float32_2pow25_H200.csv")
    values = combine(v2, N)
    total = sum(k["gpu__time_duration.sum"] for k in v2)
    assert values["duration"] == pytest.approx(total)
    assert values["shared_bank_conflicts"] == sum(k["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
                                                  + k["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
                                                  for k in v2)
    dram = [k["dram__throughput.avg.pct_of_peak_sustained_elapsed"] for k in v2]
    assert min(dram) <= values["dram_throughput"] <= max(dram)
    assert values["instructions_per_element"] == pytest.approx(sum(k["smsp__inst_executed.sum"] for k in v2) / N)
    cub = combine(kernels("ncu_CUB_float32_2pow25_H200.csv"), N)
    assert cub["dram_throughput"] > 5 * values["dram_throughput"]  # what the speedup table says, in counters


def test_table_renders_a_row_a_version():
    rows = []
    for subject, name in [("V2", "ncu_V2_float32_2pow25_H200.csv"), ("CUB", "ncu_CUB_float32_2pow25_H200.csv")]:
        for metric, value in combine(kernels(name), N).items():
            unit = next(m.unit for m in METRICS if m.name == metric)
            rows.append(cured.results.Row(device="NVIDIA H200", date="d", dtype="float32", n=N, subject=subject,
                                          input="device", measure="counter", metric=metric, median=value, low=value,
                                          high=value, unit=unit, repeats=1))
    lines = profile_table(rows).splitlines()
    assert lines[2].split(" | ")[0] == "| version" and len(lines) == 6
    assert lines[4].startswith("| V2 | ") and "14,225,620" in lines[4] and lines[5].startswith("| CUB | ")


@pytest.mark.parametrize("text", ["", "==PROF== nothing\n", '"ID","Name"\n"",""\n'])
def test_unreadable_output_is_a_profile_error(text):
    with pytest.raises(ProfileError):
        parse_ncu_csv(text)


def test_missing_metric_is_named():
    text = (DATA / "ncu_V2_float32_2pow25_H200.csv").read_text().replace("lts__t_sector_hit_rate.pct", "renamed")
    with pytest.raises(ProfileError, match="lts__t_sector_hit_rate.pct"):
        parse_ncu_csv(text)


def test_a_bad_ncu_setting_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("NCU", str(tmp_path / "no-ncu"))
    with pytest.raises(ProfileError, match="NCU=.*is not an executable"):
        profiling.find_ncu()


def test_without_ncu_profile_says_so(tmp_path, monkeypatch):
    monkeypatch.delenv("NCU", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.setenv(var, str(tmp_path))
    monkeypatch.setattr(profiling.os.path, "isfile", lambda p: False)
    with pytest.raises(ProfileError, match="ncu.*not found"):
        profiling.find_ncu()


def test_main_profile_with_no_ncu_exits_non_zero(tmp_path):
    env = dict(os.environ, NCU=str(tmp_path / "no-ncu"), CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-m", "cured", "--profile"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "NCU=" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.gpu
@pytest.mark.fresh_gpu
def test_profile_two_versions_on_the_gpu(tmp_path):
    result = cured.profile([3, 9], n=1 << 20, csv_dir=tmp_path)
    assert set(result.kernels) == {"V3", "V9"} and len(result.kernels["V3"]) == 3 and len(result.kernels["V9"]) == 1
    value = {(r.subject, r.metric): r.median for r in result}
    assert len(result) == 2 * len(METRICS) and all(r.measure == "counter" for r in result)
    for subject in ("V3", "V9"):
        assert 0 < value[subject, "dram_throughput"] <= 100 and 0 < value[subject, "achieved_occupancy"] <= 100
        assert value[subject, "duration"] > 0
    # V9's 16-byte loads and register sums: far fewer instructions an element than V3's tree.
    assert value["V9", "instructions_per_element"] < value["V3", "instructions_per_element"] / 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ncu_V3_float32_1048576.csv", "ncu_V9_float32_1048576.csv"]
