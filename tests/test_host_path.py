"""The host path: NumPy input goes to the GPU in chunks through pinned staging buffers, several host
threads ("lanes") copying at once, each chunk reduced while the next is copied. Whatever the chunk
size and lane count, the sum has the bits of the one-shot order (the CPU model); the device holds
only the lanes' buffers, so an input larger than the free device memory is summed too."""
import os
import tracemalloc

import numpy as np
import pytest

import cured
from reference import random_array, same_bits

pytestmark = pytest.mark.gpu


@pytest.fixture
def staging():
    """Sets the host path's lanes and chunk bytes for one test, then restores the defaults."""
    yield cured._cured._set_staging
    cured._cured._set_staging(0, 0)


def unit_of(version, dtype, n):
    """The host path's unit: a block's elements, or a tile."""
    v = cured.versions()[version]
    return v.shape(n, dtype)["tile"] if v.schedule == "tiles" else v.elements_per_block


def chunk_elements(version, dtype, n, chunk_bytes):
    """The chunk the host path uses: chunk_bytes of elements, rounded down to whole units (a block's
    elements or a tile), at least one unit."""
    unit = unit_of(version, dtype, n)
    return max(unit, chunk_bytes // np.dtype(dtype).itemsize // unit * unit)


@pytest.mark.parametrize("lanes, ramp, mode", [(1, True, "fed"), (1, True, "direct"), (1, True, "copied"),
                                               (2, True, "fed"), (5, True, "fed"), (5, True, "direct"),
                                               (5, True, "copied"), (5, False, "fed")])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8"])
@pytest.mark.parametrize("version", [v.id for v in cured.versions()])
def test_chunked_sums_have_the_one_shot_bits(seed, staging, version, dtype, lanes, ramp, mode):
    """Lengths around the chunks' ends: one short of an end, on it, one past it, for the ramp's
    first chunks, its end and the first whole chunk after it, and (V9 fed) the shrinking last ones,
    then several chunks and a ragged last one; 64 KiB chunks, so that there are many; each
    version's first stage reading the chunks in the pinned staging buffers (V9 in one fed kernel,
    the others launched a chunk: "fed"; launched a chunk: "direct") or their copies in device
    memory ("copied")."""
    staging(lanes, 64 << 10, ramp, mode=mode)
    base = chunk_elements(version, dtype, 10**6, 64 << 10)
    ramped = base * lanes * cured._cured.RAMP_MAX_CHUNKS_A_LANE  # the longest input with a launched ramp
    fed = mode == "fed" and version == 9
    ramp_kind = ramp and (2 if fed else 1)  # cured_ramp: BOTH for the fed kernel, else START
    spans = cured._cured._chunk_spans(ramped, base, unit_of(version, dtype, ramped), lanes, ramp_kind)
    ends = {first + count for first, count in spans[:2] + spans[lanes - 1:lanes + 1] + spans[-lanes - 2:]}
    for n in sorted({e + d for e in ends for d in (-1, 0, 1)} | {7 * base + 5, ramped, ramped + 1, 10**6 + 7}):
        x = random_array(seed + n, np.dtype(dtype), n)
        assert same_bits(cured.sum(x, version=version, device="gpu"), cured.sum(x, version=version, device="cpu")), (n, lanes)


@pytest.mark.parametrize("version", [v.id for v in cured.versions()])
def test_strided_host_arrays_are_gathered_chunk_by_chunk(seed, staging, version):
    """A non-contiguous host array goes to the GPU without a whole C-order copy: each lane gathers
    its chunk of the C order into its staging buffer (cured_strided_range; integers in memory
    order), and the sum has the bits of the contiguous copy's for every version: transposes of other
    rows than whole 4 KiB ones, Fortran order, steps and reversed axes; and those copied first, a
    transpose of whole 4 KiB rows from data 16 bytes past a line (cured_strided_rows_alias) and a
    3-D view; 64 KiB chunks on 3 lanes, so that chunks end mid-row."""
    staging(3, 64 << 10)
    raw = random_array(seed, np.dtype("float32"), 1024 * 600 + 16)
    start = ((-raw.ctypes.data) % 64 + 16) // 4
    x = raw[start:start + 1024 * 600].reshape(600, 1024)
    y = random_array(seed + 1, np.dtype("float64"), 301 * 1027).reshape(301, 1027)
    z = random_array(seed + 2, np.dtype("int64"), 600 * 513).reshape(600, 513)
    w = random_array(seed + 3, np.dtype("float16"), 30 * 40 * 50).reshape(30, 40, 50)
    for view in (x.T, x[::-1, ::3], y.T, np.asfortranarray(y), y[::-1], z.T, z[:, ::2], w.transpose(2, 0, 1)):
        copy = np.ascontiguousarray(view)
        assert same_bits(cured.sum(view, version=version, device="gpu"),
                         cured.sum(copy, version=version, device="cpu")), (view.shape, view.strides)
    assert cured.sum(z.T, version=version, dtype=np.int8, device="gpu") == np.sum(z, dtype=np.int8)
    tracemalloc.start()  # NumPy's allocations are traced: a whole copy would be one
    try:
        cured.sum(y.T, version=version, device="gpu")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < y.nbytes // 10


def test_cub_through_the_staging_buffers(seed, staging):
    """CUB cannot be cut into pieces: its chunks land in one device buffer, then it runs once."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: no device copy to compare with")
    staging(3, 64 << 10)
    x = random_array(seed, np.dtype("float32"), 2**20 + 3)
    assert same_bits(cured.sum(x, version="cub"), cured.sum(cupy.asarray(x), version="cub"))
    view = x[3:].reshape(1024, 1024).T  # gathered chunk by chunk in C order
    assert same_bits(cured.sum(view, version="cub"), cured.sum(cupy.asarray(np.ascontiguousarray(view)), version="cub"))


@pytest.mark.parametrize("version", [0, 8, 9])
def test_device_memory_holds_only_the_lanes_buffers(seed, version):
    """Summing 1 GiB takes no more device memory than the lanes' two chunk buffers each (none where
    the kernels read the pinned staging buffers), V0's scratch and the partial sums."""
    settings = cured._cured.staging()
    x = random_array(seed, np.dtype("float32"), 2**28)
    cured._cured.memory_in_use(True)  # start the high-water mark here
    assert same_bits(cured.sum(x, version=version, device="gpu"), cured.sum(x, version=version, device="cpu"))
    high = cured._cured.memory_in_use()["used_high"]
    scratch = 2 * settings["chunk_bytes"] if version == 0 else 0  # V0: 8 bytes a float32, for each lane and one more
    buffers = 0 if settings["mode"] != "copied" else 2 * settings["chunk_bytes"]
    allowed = settings["lanes"] * (buffers + scratch) + scratch + 8 * x.size // 256 + (1 << 20)
    assert high <= allowed < x.nbytes // 4, (high, allowed)


def test_input_larger_than_free_device_memory(seed):
    """With all but 512 MiB of the GPU taken, a 2 GiB input is still summed, bit for bit."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: nothing here can fill the GPU")
    x = random_array(seed, np.dtype("float32"), 2**29)
    expected = {v: cured.sum(x, version=v, device="cpu") for v in (0, 8, 9)}
    cured._cured.release_cached_memory()  # what earlier tests left in cured's pool would serve CUB
    free, _ = cupy.cuda.runtime.memGetInfo()
    hog = cupy.cuda.runtime.malloc(free - (512 << 20))
    try:
        for v, model in expected.items():
            assert same_bits(cured.sum(x, version=v, device="gpu"), model), v
        with pytest.raises(MemoryError, match="out of GPU memory"):  # CUB needs the whole input on the device
            cured.sum(x, version="cub")
        assert cured._cured.memory_in_use()["used"] == 0
    finally:
        cupy.cuda.runtime.free(hog)
    assert same_bits(cured.sum(x, version=9, device="gpu"), expected[9])


def test_fed_flags_of_an_earlier_sum_never_read_as_this_ones(seed, staging):
    """The fed mode's flags carry each sum's epoch (staged.c): a sum leaves its chunks' flags set, and
    when the epoch wraps after 2^32 sums the flags are cleared first, so a later sum of the same
    length never takes an earlier sum's flag for its own chunk (which would read a staging buffer
    before its lane had filled it). Here the epoch is made to come back to one that a sum just
    used; the sum after it still has the CPU's bits."""
    staging(3, 64 << 10, mode="fed")
    x, y = (random_array(seed + k, np.dtype("float32"), 2**20 + 3) for k in range(2))
    cured._cured._set_feed_epoch(0)  # the next sum uses epoch 1
    assert same_bits(cured.sum(x, device="gpu"), cured.sum(x, device="cpu"))
    cured._cured._set_feed_epoch(2**32 - 1)  # the next wraps to 0, clears the flags and uses 1
    assert same_bits(cured.sum(y, device="gpu"), cured.sum(y, device="cpu"))
    assert same_bits(cured.sum(x, device="gpu"), cured.sum(x, device="cpu"))
    with pytest.raises(ValueError, match="_set_feed_epoch"):
        cured._cured._set_feed_epoch(2**32)


def test_timing_of_host_input(seed):
    x = random_array(seed, np.dtype("float32"), 2**24)
    value, timing = cured.sum(x, device="gpu", timing=True)
    assert same_bits(value, cured.sum(x, device="cpu"))
    assert timing.h2d_s > 0 and timing.reduce_s >= 0 and timing.d2h_s > 0 and timing.device == "gpu"
    assert timing.total_s >= timing.h2d_s + timing.d2h_s


def test_the_trace_of_a_host_sum_has_each_chunk_once(seed, staging):
    """The probes' trace (staged_trace.c): a row for every chunk, taken once by one of the lanes, the
    bytes adding up to the input's, each row's host moments in order, every chunk's GPU copy ended
    after the sum's first event; the sum's bits unchanged; a sum without timing=True leaves the
    last trace; the trace's events are gone after it."""
    x = random_array(seed, np.dtype("float32"), 3 * 2**20 + 5)
    staging(3, 1 << 20)
    expected = cured.sum(x, device="cpu")
    events = cured._cured._fault_state()["events"]
    cured._cured._set_staging_trace(True)
    try:
        value, _ = cured.sum(x, device="gpu", timing=True)
        trace = cured._cured._staging_trace()
        assert same_bits(cured.sum(x[:-5], device="gpu"), cured.sum(x[:-5], device="cpu"))
        assert cured._cured._staging_trace() == trace
    finally:
        cured._cured._set_staging_trace(False)
    assert same_bits(value, expected)
    assert cured._cured._fault_state()["events"] == events
    rows = trace["chunks"]
    spans = cured._cured._chunk_spans(x.size, chunk_elements(9, "float32", x.size, 1 << 20),
                                      unit_of(9, "float32", x.size), 3, 2)  # fed: growing first, shrinking last
    assert [r["chunk"] for r in rows] == list(range(len(spans)))
    assert [r["bytes"] for r in rows] == [count * 4 for _, count in spans]
    assert {r["lane"] for r in rows} <= {0, 1, 2}
    for r in rows:
        assert 0 <= r["took"] <= r["staged"] <= r["queued"] <= trace["lanes_end"], r
        assert 0 <= r["waited"] <= r["staged"] - r["took"] and r["copied"] > 0, r
    assert 0 <= trace["lanes_start"] <= min(r["took"] for r in rows)
    assert trace["lanes_end"] <= trace["waited"]


def test_auto_picks_the_cpu_where_it_is_faster(seed):
    """device="auto": V9 on the CPU up to 64 MiB, and beyond where the process may use 8 CPUs or
    more (faster there than the copy; the same bits), else on the GPU; other versions on the GPU;
    device arrays on their GPU. The process is held to 2 CPUs for the few-CPU case."""
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device array")
    small, large = (random_array(seed, np.dtype("float32"), n) for n in (1 << 24, (1 << 24) + 1))
    cpus = os.sched_getaffinity(0)
    try:
        for allowed in ({min(cpus), max(cpus)}, cpus):
            os.sched_setaffinity(0, allowed)
            beyond = "cpu" if len(allowed) >= 8 else "gpu"
            for x, where in [(small, "cpu"), (large, beyond)]:
                value, timing = cured.sum(x, timing=True)
                assert timing.device == where and same_bits(value, cured._cured.model_sum(x, 9)), (len(allowed), where)
    finally:
        os.sched_setaffinity(0, cpus)
    assert cured.sum(small, version=8, timing=True).timing.device == "gpu"
    assert cured.sum(cupy.asarray(small), timing=True).timing.device == "gpu"


def test_auto_sums_host_arrays_exactly_where_the_cpu_is_faster(seed):
    """device="auto" under V10 (cured.fsum's default): a host array on the CPU up to 4096 elements,
    and from 2^17 + 1 to 2^21 where the process may use 16 CPUs, else on the GPU, the one answer
    either way (the few-CPU case with the process held to 2 CPUs); device arrays on their GPU; host
    arrays along axes on the CPU (the GPU's sums along axes read device arrays only). Where a sum
    ran is timing=True's word, and, along axes, the fault hook's count of CUDA calls (none)."""
    cupy = pytest.importorskip("cupy", reason="CuPy makes the device array")
    cpus = os.sched_getaffinity(0)
    band = "cpu" if len(cpus) >= 16 else "gpu"
    cases = [(1, "cpu"), (4096, "cpu"), (4097, "gpu"), (1 << 17, "gpu"), ((1 << 17) + 1, band), (1 << 21, band),
             ((1 << 21) + 1, "gpu")]
    for dtype in ("float16", "float32", "float64"):
        for n, where in cases:
            x = random_array(seed + n, np.dtype(dtype), n)
            value, timing = cured.fsum(x, timing=True)
            assert timing.device == where, (dtype, n)
            assert same_bits(value, cured.fsum(x, device="cpu")), (dtype, n)
            assert same_bits(value, cured.fsum(x, device="gpu")), (dtype, n)
            assert cured.fsum_state(x) == cured.fsum_state(x, device="gpu"), (dtype, n)
    x = random_array(seed, np.dtype("float32"), 1 << 20)
    try:
        os.sched_setaffinity(0, {min(cpus), max(cpus)})
        assert cured.fsum(x, timing=True).timing.device == "gpu"
    finally:
        os.sched_setaffinity(0, cpus)
    x = random_array(seed, np.dtype("float32"), 4096)
    assert cured.fsum(cupy.asarray(x), timing=True).timing.device == "gpu"
    grid = random_array(seed, np.dtype("float64"), 64 * 48).reshape(64, 48)
    for axis in (0, 1, (0, 1), ()):
        want = cured.fsum(grid, axis=axis, device="cpu")
        cured._cured._fault(0, 1)  # counts the CUDA calls from here, failing none
        got = cured.fsum(grid, axis=axis)
        assert cured._cured._fault_state()["calls"] == 0, axis
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), axis
