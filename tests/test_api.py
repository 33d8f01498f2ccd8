"""The Python API without a GPU: the registry, argument and dtype handling, errors, packaging.
These run everywhere (CI has no GPU) through the CPU order model, which shares all of the argument
handling with the GPU path."""
import importlib.metadata
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import cured
from reference import random_array, same_bits

ROOT = Path(__file__).resolve().parent.parent


def test_version_metadata_and_types():
    assert cured.__version__ == importlib.metadata.version("cured")
    assert issubclass(cured.CudaError, RuntimeError)
    package = Path(cured.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_cured.pyi").is_file()
    assert cured._cured.__file__.endswith(".so")


def test_registry_lists_the_eleven_versions_in_order():
    versions = cured.versions()
    assert [v.id for v in versions] == list(range(11))
    assert [v.name for v in versions] == [
        "global memory", "shared memory", "no divergence", "no bank conflict", "add during load",
        "unroll last warp", "completely unroll", "many elements a thread", "warp shuffle", "one launch, fixed tiles",
        "exact"]
    assert [v.elements_per_block for v in versions] == [256] * 4 + [512] * 3 + [32768] * 2 + [None] * 2
    assert all(v.threads == 256 for v in versions)
    assert all(v.elements_per_block == v.threads * v.elements_per_thread for v in versions if v.schedule == "passes")
    assert [v.schedule for v in versions] == ["passes"] * 9 + ["tiles"] * 2
    assert [v.tree for v in versions] == ["interleaved"] * 3 + ["sequential"] * 6 + ["warps", "exact"]
    assert cured.EXACT_VERSION == 10 and versions[10].shape(12345) == versions[9].shape(12345)
    for v in versions:  # each version's source file is where the registry says
        assert (ROOT / "csrc" / "kernels" / f"{v.source}.cu").is_file()
        assert v.source.startswith(f"v{v.id}_") and v.summary
    assert cured.DEFAULT_VERSION in [v.id for v in versions]


def test_shapes():
    v3, v9 = cured.versions()[3], cured.versions()[9]
    assert v3.shape(2**20 + 3) == {"schedule": "passes", "blocks": [4097, 17, 1]}
    assert v3.shape(1) == {"schedule": "passes", "blocks": [1]} and v3.shape(0)["blocks"] == []
    # V9: 8 vectors of 16 bytes a thread a step, steps doubling until at most 4096 tiles
    assert v9.shape(2**20, "float32") == {"schedule": "tiles", "vector": 4, "step": 8192, "steps": 1, "tile": 8192, "tiles": 128}
    assert v9.shape(2**30, "float32")["steps"] == 32 and v9.shape(2**30, "float32")["tiles"] == 4096
    assert v9.shape(2**30 + 1, "float32")["steps"] == 64
    assert v9.shape(100, "int8") == {"schedule": "tiles", "vector": 16, "step": 32768, "steps": 1, "tile": 32768, "tiles": 1}
    assert v9.shape(2**20, "float64")["tile"] == 4096


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float16", "float32", "float64"])
def test_result_dtype_and_empty_sum_follow_numpy(dtype):
    x = np.arange(1, 100).astype(dtype)
    assert cured.sum(x, device="cpu").dtype == np.sum(x).dtype
    empty = cured.sum(np.empty(0, dtype), device="cpu")
    assert empty == 0 and empty.dtype == np.sum(np.empty(0, dtype)).dtype


@pytest.mark.parametrize("make", [
    lambda x: x.tolist(),                              # a list
    lambda x: tuple(x.tolist()),                       # a tuple
    lambda x: x.reshape(7, 11, 13),                    # several dimensions
    lambda x: np.asfortranarray(x.reshape(77, 13)),   # Fortran order
    lambda x: x.reshape(77, 13)[:, ::3],              # a strided view
    lambda x: x.astype(">i8"),                         # big-endian
    lambda x: np.frombuffer(b"\0" + x.astype("<i8").tobytes(), dtype="<i8", offset=1),  # unaligned
], ids=["list", "tuple", "3d", "fortran", "strided", "big-endian", "unaligned"])
def test_array_likes(seed, make):
    x = np.random.default_rng(seed).integers(-1000, 1000, size=1001)
    a = make(x)
    assert cured.sum(a, version=8, device="cpu") == np.sum(np.asarray(a))


def test_scalars():
    assert cured.sum(5, device="cpu") == 5 and cured.sum(5, device="cpu").dtype == np.int64
    assert cured.sum(2.5, device="cpu") == 2.5 and cured.sum(2.5, device="cpu").dtype == np.float64
    assert cured.sum(True, device="cpu") == 1


def test_bool_counts_true_whatever_the_byte():
    raw = np.array([0, 1, 2, 255, 0, 7], dtype=np.uint8).view(np.bool_)
    assert cured.sum(raw, device="cpu") == np.sum(raw) == 4


def test_host_input_is_copied_only_where_a_version_needs_it():
    """V9 on the CPU reads contiguous and strided host arrays in place (a strided one a range at a
    time, csrc/cpu_gather.c); the order models of the other versions read a C-order copy. NumPy's
    allocations are traced (tracemalloc), the copy's among them."""
    x = np.ones(1 << 22, dtype=np.float32)
    peaks = {}
    tracemalloc.start()
    try:
        for name, view, version in [("contiguous", x, 9), ("strided", x[::2], 9), ("transposed", x.reshape(2048, -1).T, 9),
                                    ("strided, V8", x[::2], 8)]:
            tracemalloc.reset_peak()
            cured.sum(view, version=version, device="cpu")
            peaks[name] = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert max(peaks["contiguous"], peaks["strided"], peaks["transposed"]) < x.nbytes // 100, peaks
    assert peaks["strided, V8"] >= x.nbytes // 2, peaks  # the copy V8's model reads


@pytest.mark.parametrize("bad, words", [
    (np.array([1 + 2j]), "complex"),
    (np.array([1 + 2j], dtype=np.complex64), "complex"),
    (np.array([object()]), "object"),
    (np.array(["a", "b"]), "<U1"),
    (np.array([b"a"]), "S1"),
    (np.zeros(2, dtype=[("a", "i4"), ("b", "f4")]), "[('a', '<i4'), ('b', '<f4')]"),
    (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64"),
    (np.array([1], dtype="timedelta64[s]"), "timedelta64"),
    (np.array([1.0], dtype=np.longdouble), "float128"),
    ("not numbers", "<U11"),
])
def test_unsupported_dtypes_raise_type_error_naming_the_dtype(bad, words):
    with pytest.raises(TypeError, match="cured.sum") as info:
        cured.sum(bad, device="cpu")
    assert words in str(info.value)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("make", [
    lambda: np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False]),  # numpy.sum: 4.0; the buffer holds 6.0
    lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]]),                     # numpy.sum(axis=0): a 1 x 2 matrix
], ids=["masked", "matrix"])
def test_arrays_with_a_sum_of_their_own_are_refused(make):
    """numpy.sum calls such a subclass's own sum; cured would sum the buffer, another answer."""
    subclass = make()
    for call in (lambda: cured.sum(subclass, device="cpu"), lambda: cured.sum(subclass, axis=0, device="cpu"),
                 lambda: cured.fsum(subclass, device="cpu"), lambda: cured.fsum_state(subclass, device="cpu")):
        with pytest.raises(TypeError, match=f"{type(subclass).__name__} has a sum of its own"):
            call()
    assert cured.sum(np.asarray(subclass), device="cpu") == np.asarray(subclass).sum()


class Tagged(np.ndarray):
    """A subclass without a sum of its own, whose results keep a tag through __array_finalize__."""
    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "fresh")


class OldWrap(np.ndarray):
    """A subclass written for NumPy 1: __array_wrap__(array, context), no return_scalar."""
    def __array_wrap__(self, array, context=None):
        return array.view(OldWrap)


@pytest.mark.filterwarnings("ignore:__array_wrap__ must accept context and return_scalar:DeprecationWarning")
def test_other_ndarray_subclasses_are_summed_as_arrays_and_wrapped_as_numpy_wraps_them(tmp_path, seed):
    x = np.random.default_rng(seed).standard_normal((40, 25))
    mapped = np.memmap(tmp_path / "x.f8", dtype=np.float64, mode="w+", shape=x.shape)
    mapped[:] = x
    tagged, tagged_0d = x.view(Tagged), np.asarray(x[0, 0]).view(Tagged)
    tagged.tag = tagged_0d.tag = "input"
    calls = [dict(), dict(axis=0), dict(axis=1, keepdims=True), dict(keepdims=True), dict(dtype=np.float32, axis=1),
             dict(axis=(0, 1)), dict(initial=2.0)]
    for sub in (mapped, tagged, x.view(OldWrap), tagged_0d):
        for kwargs in calls if sub.ndim == 2 else [dict(), dict(keepdims=True)]:
            got, want = cured.sum(sub, device="cpu", **kwargs), np.sum(sub, **kwargs)
            assert type(got) is type(want), (type(sub).__name__, kwargs)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(np.asarray(got), cured.sum(x if sub.ndim else x[0, 0], device="cpu", **kwargs))
            if isinstance(want, Tagged):
                assert got.tag == want.tag == "input"
    out = np.empty(25)
    assert cured.sum(tagged, axis=0, out=out, device="cpu") is out  # out= comes back as itself, unwrapped
    timed = cured.sum(tagged, device="cpu", timing=True)
    assert type(timed.value) is np.float64 and timed.value == cured.sum(x, device="cpu")


@pytest.mark.parametrize("version, error", [
    (11, ValueError), (-1, ValueError), (2**70, ValueError), ("cub", ValueError), ("CUB", TypeError),
    (True, TypeError), (3.0, TypeError), ("3", TypeError), (None, TypeError),
])
def test_bad_version(version, error):
    with pytest.raises(error, match="version"):
        cured.sum([1, 2, 3], version=version, device="cpu")


def test_bad_device():
    with pytest.raises(ValueError, match="device must be 'auto', 'gpu' or 'cpu'"):
        cured.sum([1, 2, 3], device="tpu")


@pytest.mark.parametrize("in_dtype, acc, words", [
    ("int64", "complex128", "not supported"),
    ("float32", ">f8", "byte order"),
    ("float32", "U3", "not supported"),
    ("float32", "object", "not supported"),
    ("float32", "datetime64[s]", "not supported"),
])
def test_unsupported_accumulators(in_dtype, acc, words):
    with pytest.raises(TypeError, match=words):
        cured.sum(np.ones(4, in_dtype), dtype=acc, device="cpu")


def test_bad_dtype_argument():
    with pytest.raises(TypeError):
        cured.sum([1, 2], dtype="no such dtype", device="cpu")


def test_build_helpers(monkeypatch, tmp_path):
    sys.path.insert(0, str(ROOT))
    try:
        import setup as build
    finally:
        sys.path.remove(str(ROOT))
    monkeypatch.setenv("CURED_CUDA_ARCHS", "90;80")
    assert build.cuda_archs() == ["80", "90"]
    flags = build.gencode_flags(build.cuda_archs())
    assert flags[-1] == "-gencode=arch=compute_90,code=compute_90"  # PTX for the newest only
    monkeypatch.setenv("CURED_CUDA_ARCHS", "sm_90")
    with pytest.raises(SystemExit, match="CURED_CUDA_ARCHS"):
        build.cuda_archs()
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("NVCC", str(fake))
    assert build.find_nvcc() == fake.resolve()
    for var in ("NVCC", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(build.os.path, "isfile", lambda p: False)
    with pytest.raises(SystemExit, match="nvcc, the CUDA compiler, was not found"):
        build.find_nvcc()


def test_staging_settings():
    default = cured._cured.staging()
    assert default["lanes"] >= 1 and default["chunk_bytes"] > 0 and default["fed_chunk_bytes"] > 0
    assert default["fetch_min_bytes"] > 0 and default["ramp"] is True and default["mode"] == "fed"
    fetch_min = default["fetch_min_bytes"]
    cured._cured._set_staging(3, 1 << 20)
    assert cured._cured.staging() == {"lanes": 3, "chunk_bytes": 1 << 20, "fed_chunk_bytes": 1 << 20, "ramp": True,
                                      "fetch_min_bytes": fetch_min, "mode": "fed"}
    for mode in ("copied", "direct", "fed"):
        cured._cured._set_staging(3, 1 << 19, False, 4096, mode)
        assert cured._cured.staging() == {"lanes": 3, "chunk_bytes": 1 << 19, "fed_chunk_bytes": 1 << 19,
                                          "ramp": False, "fetch_min_bytes": 4096, "mode": mode}
    cured._cured._set_staging(0, 0, mode="direct")
    assert cured._cured.staging() == {**default, "mode": "direct"}
    cured._cured._set_staging(0, 0)
    assert cured._cured.staging() == default
    for bad in [(-1, 0), (0, -1), (0, 0, True, -1)]:
        with pytest.raises(ValueError, match=">= 0"):
            cured._cured._set_staging(*bad)
    with pytest.raises(ValueError, match="mode must be 'copied', 'direct', 'fed' or None, not 'copy'"):
        cured._cured._set_staging(0, 0, mode="copy")
    assert cured._cured.staging() == default


def test_staging_trace_is_empty_until_a_traced_sum(tmp_path):
    """The probes' trace of a host-path sum (staged_trace.c): in a fresh process, before any sum
    was traced, no chunks and every moment 0; _set_staging_trace switches it without a GPU. (Run
    away from the checkout, whose cured/ has no built extension where the package is installed.)"""
    code = ("import cured; cured._cured._set_staging_trace(True); cured._cured._set_staging_trace(False); "
            "print(cured._cured._staging_trace())")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "{'chunks': [], 'lanes_start': 0.0, 'lanes_end': 0.0, 'waited': 0.0}"


def test_host_chunks_ramp_up_then_keep_their_size(seed):
    """The host path's chunks (staged.c): whole units, contiguous, covering the input once. Where the
    ramp is on and the input at most RAMP_MAX_CHUNKS_A_LANE chunks a lane, the first `lanes` grow by a
    lanes-th of a chunk each (rounded down to units, at least one); the rest are whole chunks but the
    last. Without the ramp, or with one lane, plain chunking."""
    rng = np.random.default_rng(seed)
    bound = cured._cured.RAMP_MAX_CHUNKS_A_LANE
    for _ in range(400):
        unit = int(rng.choice([1, 3, 256, 8192]))
        chunk = unit * int(rng.integers(1, 200))
        lanes = int(rng.integers(1, 33))
        ramp = bool(rng.integers(0, 2))
        n = int(rng.integers(0, chunk * lanes * (bound + 1)))
        spans = cured._cured._chunk_spans(n, chunk, unit, lanes, ramp)
        assert sum(count for _, count in spans) == n and all(count >= 1 for _, count in spans)
        assert [first for first, _ in spans] == list(np.cumsum([0] + [count for _, count in spans]))[:-1]  # n = 0: none
        assert all(first % unit == 0 for first, _ in spans)
        ramped = ramp and lanes > 1 and -(-n // chunk) <= bound * lanes
        if not ramped:
            assert spans == [(f, min(chunk, n - f)) for f in range(0, n, chunk)], (n, chunk, unit, lanes, ramp)
            continue
        for k, (first, count) in enumerate(spans):
            want = max(unit, chunk // lanes * (k + 1) // unit * unit) if k < lanes else chunk
            assert count == (want if k < len(spans) - 1 else min(want, n - first)), (n, chunk, unit, lanes, k)
    assert cured._cured._chunk_spans(0, 8, 4, 3, True) == []
    # Growing by a tenth of the whole 4 MiB chunk, not of the input: 8 float32 tiles stay one launch
    # (V10 runs 2 to 8 tiles as one cluster), and 4 MiB of them take five.
    assert cured._cured._chunk_spans(8 * 8192, 2**20, 8192, 10, True) == [(0, 8 * 8192)]
    assert [count for _, count in cured._cured._chunk_spans(2**20, 2**20, 8192, 10, True)] == \
        [98304, 204800, 311296, 417792, 16384]
    for bad in [(-1, 8, 4, 2, True), (100, 6, 4, 2, True), (100, 8, 0, 2, True), (100, 8, 4, 0, True),
                (100, 8, 4, 33, True)]:
        with pytest.raises(ValueError, match="_chunk_spans"):
            cured._cured._chunk_spans(*bad)


def test_fed_chunks_grow_first_and_shrink_last_at_any_length(seed):
    """The fed kernel's chunks (ramp 2, cured_ramp BOTH): whole units, contiguous, covering the input
    once, none longer than a chunk; the first `lanes` grow as the ramp's at any length, and where a
    whole chunk lies between, the last `lanes` shrink likewise, the last holding a lanes-th of a
    chunk and the input's ragged end (less than a unit); the rest whole chunks, the one before the
    shrinking ones ragged."""
    rng = np.random.default_rng(seed)
    for _ in range(400):
        unit = int(rng.choice([1, 3, 256, 8192]))
        chunk = unit * int(rng.integers(1, 200))
        lanes = int(rng.integers(1, 33))
        n = int(rng.integers(0, chunk * lanes * int(rng.choice([3, 30]))))
        spans = cured._cured._chunk_spans(n, chunk, unit, lanes, 2)
        counts = [count for _, count in spans]
        assert sum(counts) == n and all(1 <= count <= max(chunk, 1) for count in counts), (n, chunk, unit, lanes)
        assert [first for first, _ in spans] == list(np.cumsum([0] + counts))[:-1]
        assert all(first % unit == 0 for first, _ in spans)
        if lanes == 1 or n == 0:
            assert spans == [(f, min(chunk, n - f)) for f in range(0, n, chunk)]
            continue
        wants = [max(unit, chunk // lanes * (k + 1) // unit * unit) for k in range(lanes)]
        grown = min(lanes, len(spans))
        assert counts[:grown - 1] == wants[:grown - 1], (n, chunk, unit, lanes)
        ramp_end = sum(counts[:grown])
        last_first = (n - wants[0]) // unit * unit
        tail_first = last_first - sum(wants[1:])
        if n - last_first <= chunk and tail_first >= ramp_end + chunk:
            assert counts[-lanes:] == wants[:0:-1] + [n - last_first], (n, chunk, unit, lanes)
            body = counts[grown:-lanes]
        else:
            body = counts[grown:]
        assert all(count == chunk for count in body[:-1]), (n, chunk, unit, lanes)
    # 128 MiB of float32 in 1 MiB chunks of 32 KiB tiles on 10 lanes: 10 growing, 10 shrinking.
    counts = [count for _, count in cured._cured._chunk_spans(2**25, 2**18, 8192, 10, 2)]
    assert counts[:11] == [24576, 49152, 73728, 98304, 122880, 155648, 180224, 204800, 229376, 253952, 262144]
    assert counts[-11:] == [98304, 253952, 229376, 204800, 180224, 155648, 122880, 98304, 73728, 49152, 24576]
    with pytest.raises(ValueError, match="ramp 0, 1 or 2"):
        cured._cured._chunk_spans(100, 8, 4, 2, 3)


@pytest.mark.parametrize("spelling", [
    {}, {"keepdims": 0}, {"keepdims": np.False_}, {"where": np.True_}, {"dtype": "float32"}, {"dtype": np.float32},
    {"dtype": np.dtype("float32")}, {"initial": 0.0}, {"axis": (0,)}, {"out": np.empty((), np.float32)},
])
def test_every_spelling_of_the_common_call_gives_its_bits(seed, spelling):
    """cured.sum makes the common call in C (_cured.numpy_sum) and passes the rest to Python: each
    way of writing the same sum gives the same bits."""
    x = random_array(seed, np.dtype("float32"), 100003)
    expected = cured.sum(x, device="cpu")
    got = cured.sum(x, device="cpu", **spelling)
    assert same_bits(np.float32(got[()] if isinstance(got, np.ndarray) else got), expected)


def test_numpy_sum_entry_checks_its_arguments():
    with pytest.raises(TypeError, match="10 arguments"):
        cured._cured.numpy_sum(np.ones(3))
    with pytest.raises(TypeError, match="must be str"):  # not a str: the Python path's error
        cured.sum(np.ones(3), device=1)
