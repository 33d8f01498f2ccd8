"""Host arrays of any layout (csrc/cpu_gather.c): the C-order copy that cured's sums read is NumPy's,
element for element, for views of every dtype (steps, reversed axes, transposes, Fortran order,
merged and unit dimensions), small and large (the pool's threads, AVX2's 8 x 8 and 4 x 4 blocks and
the elements past them); and a view sums to the bits of its C-order copy, whole and along axes. No
GPU needed."""
import ctypes
import mmap
import os
import sys

import numpy as np
import pytest

import cured
from reference import DTYPES, random_array


def random_view(rng, dtype):
    """A view of 1 to 4 dimensions of extents 1 to 19: every other element of the last axis now and
    then, axes reversed at random, then permuted."""
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(rng.integers(1, 20)) for _ in range(ndim))
    step = int(rng.integers(1, 3))
    size = int(np.prod(shape)) * step
    x = random_array(int(rng.integers(1 << 30)), np.dtype(dtype), size).reshape(shape[:-1] + (shape[-1] * step,))
    x = x[..., ::step]
    x = x[tuple(slice(None, None, int(rng.choice([-1, 1]))) for _ in range(ndim))]
    return x.transpose(rng.permutation(ndim))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_c_order_copy_is_numpys(seed, dtype):
    rng = np.random.default_rng([seed, 41])
    for _ in range(300):
        view = random_view(rng, dtype)
        got = cured._cured._c_order_copy(view)
        assert got.flags.c_contiguous and got.shape == view.shape and got.dtype == view.dtype
        assert got.tobytes() == np.ascontiguousarray(view).tobytes(), (view.shape, view.strides)
    for shape, axes in [((2048, 1027), (1, 0)), ((3, 1001, 515), (2, 0, 1)), ((999, 3, 700), (1, 2, 0)),
                        (((1 << 20) + 3,), None), ((37, 53), (1, 0))]:
        x = random_array(seed + len(shape), np.dtype(dtype), int(np.prod(shape))).reshape(shape)
        views = [x.transpose(axes), np.asfortranarray(x)] if len(shape) > 1 else [x[::-1], x[::3], x[-2::-5]]
        for view in views:
            assert cured._cured._c_order_copy(view).tobytes() == np.ascontiguousarray(view).tobytes(), \
                (shape, view.strides)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int16"])
def test_views_sum_as_their_c_order_copies(seed, dtype):
    rng = np.random.default_rng([seed, 42])
    x = random_array(seed, np.dtype(dtype), 512 * 300).reshape(512, 300)
    for view in (x.T, np.asfortranarray(x), x[::-1, ::2], x[:, ::-3].T):
        copy = np.ascontiguousarray(view)
        for axis in (None, 0, 1):
            got = cured.sum(view, axis=axis, device="cpu")
            assert np.asarray(got).tobytes() == np.asarray(cured.sum(copy, axis=axis, device="cpu")).tobytes()
    for _ in range(50):
        view = random_view(rng, dtype)
        assert cured.sum(view, device="cpu").tobytes() == cured.sum(np.ascontiguousarray(view), device="cpu").tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_read_across_have_the_models_bits(seed, dtype):
    """A transposed or Fortran-order matrix along its last axis is summed in place, rows side by side
    (cpu_axis.c's rows across): the order model's bits on the C-order copy, for rows of 1 to 4000
    elements (short last chunks; 1 to 32 lanes; several chunks a lane), row counts around the
    passes' 256 bytes and the threads' shares, signed zeros and infinities among the elements."""
    rng = np.random.default_rng([seed, 43])
    for rows, length in [(1, 7), (3, 2), (17, 5), (63, 129), (64, 130), (65, 257), (300, 1000), (1000, 4000),
                         (5000, 33)]:
        base = random_array(seed + rows, np.dtype(dtype), rows * length).reshape(length, rows)
        base[rng.random(base.shape) < 0.05] = -0.0
        base[rng.random(base.shape) < 0.001] = np.inf
        for view in (base.T, np.asfortranarray(base.T)):
            copy = np.ascontiguousarray(view)
            model = cured._cured.sum_axes(copy, copy.shape, (False, True), np.dtype(dtype), "cpu", model=True)
            got = cured.sum(view, axis=1, device="cpu")
            assert got.tobytes() == model.tobytes(), (rows, length)


def line_offset_matrix(seed, dtype, shape, offset_bytes):
    """A C-order matrix of random values whose data starts `offset_bytes` past a 64-byte line (NumPy
    places arrays 16 bytes past one as often as not)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.empty(n * dtype.itemsize + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset_bytes
    x = raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)
    x[...] = random_array(seed, dtype, n).reshape(shape)
    return x


@pytest.fixture
def cpu_tiles():
    """Sets V9's CPU threads and strided ranges for one test (cured._cured._set_cpu_tiles), then the
    defaults."""
    yield cured._cured._set_cpu_tiles
    cured._cured._set_cpu_tiles(0, False)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint16", "bool"], ids=str)
def test_strided_whole_sums_have_their_copies_bits(seed, dtype, cpu_tiles):
    """A non-contiguous host array summed whole on the CPU is read in place, a range of its C order
    at a time (cured_cpu_tiles_sum_strided; integers in memory order), and gives the bits of the sum
    of its C-order copy: transposes whose rows are whole 4 KiB blocks (padded in the buffer, ranges
    cut at source lines) from sources 0 to 48 bytes past a line, rows of other lengths, 3-D views
    that merge to two dimensions and ones that do not (the copy), steps and reversed axes; sources
    whose rows are whole lines, which the copy reads 8 lines a row a pass (PASS_LINES: 1 1/2 passes,
    the first short too where the data is past a line; copied rows of 4 KiB, padded, 3/4 of a pass;
    copied rows 1536 bytes apart, 4 lines a pass, PASS_LEAST_LINES, where 8 would crowd an L1 set);
    on 1, 3 and 16 threads (16: too few ranges a thread for a pass of several lines, so one line a
    pass from ranges that hold more, RANGES_A_THREAD), with ranges as the sizes ask and with ranges
    far shorter than a tile or a row. Reversed and every-other 1-D views of float32 and float64 (and
    matrices that merge into them) are read in place instead (cpu_tiles.c's in_place), but with the
    portable C chains, which gather them."""
    item = np.dtype(dtype).itemsize
    views = []
    for offset in (0, 16, 32, 48):  # transposed, rows of one 4 KiB block; runs of 37 rows, 3 of them
        at = offset - offset % item
        x = line_offset_matrix(seed + offset, dtype, (4096 // item, 150), at)
        runs = line_offset_matrix(seed + offset + 1, dtype, (3, 4096 // item, 37), at)
        lines = line_offset_matrix(seed + offset + 2, dtype, (200, 768 // item), at)  # source rows of 12 lines
        block_rows = line_offset_matrix(seed + offset + 3, dtype, (4096 // item, 384 // item), at)
        crowded = line_offset_matrix(seed + offset + 4, dtype, (1536 // item, 768 // item), at)
        views += [x.T, x[::-1].T, x[:, ::-1].T, runs.transpose(0, 2, 1), lines.T, block_rows.T, crowded.T]
    x = random_array(seed, np.dtype(dtype), 301 * 1027).reshape(301, 1027)
    views += [x.T, np.asfortranarray(x), x[:, ::2], x[::-2, ::-1], x[5:6].T, x[:0].T]
    y = random_array(seed + 1, np.dtype(dtype), 6 * 70 * 33).reshape(6, 70, 33)
    views += [y.transpose(0, 2, 1), y.transpose(2, 0, 1), y.transpose(1, 0, 2)[:, ::-1]]
    z = random_array(seed + 2, np.dtype(dtype), (1 << 17) + 3)
    views += [z[::-1], z[::3], z[-2::-5], z[::2], z[1::2]]
    w = random_array(seed + 3, np.dtype(dtype), 70 * 600).reshape(70, 600)
    views += [w[:, ::2], w[::-1, ::-1]]  # merge into one dimension of every other element, reversed
    if item > 1:  # unaligned (copied first): a byte past the elements' alignment
        raw = np.frombuffer(b"\0" + z[:300 * 201].tobytes(), dtype=z.dtype, offset=1)
        views += [raw, raw.reshape(300, 201).T, raw[::-2]]
    for threads, range_bytes, plain in [(1, 0, False), (3, 0, False), (16, 0, False), (1, 4096, False),
                                        (3, 5000, False), (2, 1 << 16, False), (3, 0, True)]:
        cpu_tiles(threads, plain, range_bytes)
        for view in views:
            copy = np.ascontiguousarray(view)
            got, want = cured.sum(view, device="cpu"), cured.sum(copy, device="cpu")
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), \
                (view.shape, view.strides, threads, range_bytes, plain)
            if np.dtype(dtype).kind in "iub":  # NumPy's wrap in a narrower result, and the 64-bit sum
                assert cured.sum(view, dtype=np.int8, device="cpu") == np.sum(copy, dtype=np.int8)
                assert cured.sum(view, device="cpu") == np.sum(copy)


def guarded_memory(data_bytes):
    """An anonymous mapping of at least `data_bytes` between two inaccessible pages: (the mapping,
    the data's first byte offset, its end offset). A read outside the data faults."""
    page = mmap.PAGESIZE
    pages = -(-data_bytes // page)
    memory = mmap.mmap(-1, (pages + 2) * page)
    start = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    prot_none = 0  # <sys/mman.h>'s PROT_NONE (mmap has no name for it)
    for guard in (start, start + (pages + 1) * page):
        assert libc.mprotect(guard, page, prot_none) == 0, os.strerror(ctypes.get_errno())
    return memory, page, (pages + 1) * page


@pytest.mark.skipif(sys.platform != "linux", reason="maps an inaccessible page with mprotect (Linux)")
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64"])
def test_every_other_element_reads_nothing_past_the_last(seed, dtype):
    """Every other element of 4 or 8 bytes (x[::2], x[1::2]) is copied 8 (4) at a time from 32-byte
    loads of twice that many source elements (cpu_gather.c's every_other_avx2): views of 1 to 40
    elements whose source ends where an inaccessible page begins are copied and summed whole with
    their C-order copies' bits, and nothing past their last element is read (a read there faults)."""
    dtype = np.dtype(dtype)
    memory, _, high = guarded_memory(mmap.PAGESIZE)
    for count in range(1, 41):
        for first in (0, 1):
            stored = 2 * count - 1 + first  # the view's last element is the source's last
            base = np.frombuffer(memory, dtype, stored, high - stored * dtype.itemsize)
            base[...] = random_array(seed + count, dtype, stored)
            view = base[first::2]
            assert view.shape == (count,)
            copy = np.array([base[first + 2 * k] for k in range(count)], dtype)
            assert cured._cured._c_order_copy(view).tobytes() == copy.tobytes(), (count, first)
            assert cured.sum(view, device="cpu").tobytes() == cured.sum(copy, device="cpu").tobytes(), (count, first)


@pytest.mark.skipif(sys.platform != "linux", reason="maps inaccessible pages with mprotect (Linux)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_views_read_in_place_read_nothing_outside_them(seed, dtype, cpu_tiles):
    """A 1-D view of float32 or float64 reversed or of every other element is summed from its blocks
    where they lie (cpu_tiles.c's in_place loaders: a reversed 32-byte load ends at the element it
    starts the block's order from, every other element's second load starts one element early):
    views of lengths about V9's blocks (4 KiB of elements) and tiles (8 blocks), whose source starts
    right after an inaccessible page or ends right before one, sum to their C-order copies' bits on
    1 and 3 threads, and nothing outside them is read (a read there faults)."""
    dtype = np.dtype(dtype)
    block = 4096 // dtype.itemsize
    counts = [2, block - 1, block, block + 1, 5 * block + 7, 8 * block, 8 * block + 1, 17 * block + 3]
    memory, low, high = guarded_memory(2 * max(counts) * dtype.itemsize)
    for count in counts:
        for stored, view_of in [(count, lambda b: b[::-1]), (2 * count - 1, lambda b: b[::2]),
                                (2 * count, lambda b: b[1::2])]:
            for at in (low, high - stored * dtype.itemsize):
                base = np.frombuffer(memory, dtype, stored, at)
                base[...] = random_array(seed + count + stored, dtype, stored)
                view = view_of(base)
                assert view.shape == (count,) and not view.flags.c_contiguous
                want = cured.sum(np.ascontiguousarray(view), device="cpu").tobytes()
                for threads in (1, 3):
                    cpu_tiles(threads, False)
                    assert cured.sum(view, device="cpu").tobytes() == want, (count, view.strides, at, threads)


@pytest.mark.skipif(sys.platform != "linux", reason="maps inaccessible pages with mprotect (Linux)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transposed_matrices_read_in_place(seed, cpu_tiles, dtype):
    """A float32 matrix of 32 to 1024 rows or a float64 one of 16 to 1024 (a power of two: a 4 KiB
    block's whole columns, or a column's whole blocks) transposed, a.T, is summed from its columns
    where they lie (cpu_tiles.c's transposed_chains_f32 and _f64: rows' 16-byte loads transposed in
    lanes into chains): with 1 to 261 columns (tiles cut by the end, a last group of 1 to 3 columns
    read by a masked load), rows further apart than the columns (a slice of a wider matrix), rows
    reversed, a source that starts right after or ends right before an inaccessible page (nothing
    outside it is read), on 1 and 3 threads, with the portable C chains and with the gather forced
    (both gather it), it has the bits of its C-order copy; so do the row counts around them (half
    the fewest, 24, twice the most), which are gathered."""
    dtype = np.dtype(dtype)
    fewest, most = (32, 1024) if dtype == np.float32 else (16, 1024)
    memory, low, high = guarded_memory(512 * 261 * 8)
    for rows in [fewest // 2, fewest, 24] + [1 << k for k in range(fewest.bit_length(), most.bit_length() + 1)]:
        for columns in (1, 2, 3, 5, 8, 33, 64, 130, 261):
            if rows * columns * dtype.itemsize > high - low:
                continue
            values = random_array(seed + rows + columns, dtype, rows * columns)
            wide = random_array(seed + rows * columns, dtype, rows * (columns + 5))
            views = [values.reshape(rows, columns).T, wide.reshape(rows, columns + 5)[:, 3:3 + columns].T,
                     values.reshape(rows, columns)[::-1].T]
            for at in (low, high - rows * columns * dtype.itemsize):
                guarded = np.frombuffer(memory, dtype, rows * columns, at).reshape(rows, columns)
                guarded[...] = values.reshape(rows, columns)
                views.append(guarded.T)
            for view in views:
                want = cured.sum(np.ascontiguousarray(view), device="cpu").tobytes()
                for threads, plain, gather in ((1, False, False), (3, False, False), (1, True, False), (1, False, True)):
                    cpu_tiles(threads, plain, 0, gather)
                    assert cured.sum(view, device="cpu").tobytes() == want, (view.shape, view.strides, threads, plain,
                                                                           gather)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_empty_transposed_matrices_along_axes(dtype):
    """Matrices with no rows or no columns whose strides are a transpose's (as reshapes and
    transposes of empty arrays leave them; NumPy's own empty arrays may carry zero strides), along
    each axis: NumPy's zeros of NumPy's shapes (rows read across took such a view, and divided by
    its zero length)."""
    item = np.dtype(dtype).itemsize
    for rows, columns in [(5, 0), (0, 5), (0, 0)]:
        for strides in [(item, max(rows, 1) * item), (max(columns, 1) * item, item)]:
            view = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), (rows, columns), strides)
            for axis in (0, 1, -1, (0, 1)):
                got, want = cured.sum(view, axis=axis, device="cpu"), np.sum(view, axis=axis)
                assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want), \
                    (rows, columns, strides, axis)


def test_any_strides_sum_as_their_c_order_copies(seed):
    """Views of any strides, zero (broadcast, overlapping elements) and negative among them, 1 to 4
    dimensions of 0 to 5 elements, every dtype: whole and along each axis and a pair of axes, the
    bits of the same sums of their C-order copies (a zero stride along the summed axis of a
    transposed matrix had been read as C order: wrong sums)."""
    rng = np.random.default_rng([seed, 45])
    for trial in range(1500):
        dtype = DTYPES[trial % len(DTYPES)]
        ndim = int(rng.integers(1, 5))
        shape = tuple(int(rng.integers(0, 6)) for _ in range(ndim))
        strides = tuple(int(rng.integers(-6, 7)) * dtype.itemsize for _ in range(ndim))
        base = random_array(int(rng.integers(1 << 30)), dtype, 800)
        view = np.lib.stride_tricks.as_strided(base[400:], shape, strides, writeable=False)
        copy = np.ascontiguousarray(view)
        pairs = [tuple(int(a) for a in rng.choice(ndim, 2, replace=False))] if ndim > 1 else []
        for axis in [None, *range(ndim), *pairs]:
            got, want = cured.sum(view, axis=axis, device="cpu"), cured.sum(copy, axis=axis, device="cpu")
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (dtype, shape, strides, axis)


def large_random_view(rng, dtype):
    """A view of a fresh base of up to 2^20 elements, 1 to 4 dimensions of random extents, starting
    0 to 15 elements in (offsets from the source's lines), each axis stepped by 1 to 3 or reversed,
    the axes permuted more often than not: the sizes at which the strided sum's ranges, row groups,
    line cuts and padding act (csrc/cpu_gather.c, cpu_tiles.c)."""
    dtype = np.dtype(dtype)
    ndim = int(rng.integers(1, 5))
    total = 2 ** rng.uniform(4, 20)
    shape = [max(1, int(round(total ** share))) for share in rng.dirichlet(np.ones(ndim))]
    steps = [int(rng.choice([1, 1, 1, 2, 3, -1, -2])) for _ in range(ndim)]
    offset = int(rng.integers(0, 16))
    stored = [extent * abs(step) for extent, step in zip(shape, steps)]
    base = random_array(int(rng.integers(1 << 30)), dtype, int(np.prod(stored)) + offset)[offset:].reshape(stored)
    view = base[tuple(slice(None, None, step) for step in steps)]
    return view.transpose(rng.permutation(ndim)) if rng.random() < 0.6 else view


def test_large_random_layouts_sum_as_their_c_order_copies(seed, cpu_tiles):
    """Random large views (large_random_view) of every dtype, whole and along an axis, cured.sum and
    for floats cured.fsum, under random thread counts and range sizes: the bits of their C-order
    copies' sums. (scripts/probes/cpu_layout_fuzz.py draws them for as long as asked.)"""
    rng = np.random.default_rng([seed, 46])
    for trial in range(60):
        check_random_layout(rng, DTYPES[trial % len(DTYPES)], cpu_tiles)


def check_random_layout(rng, dtype, set_cpu_tiles):
    """One large random view's sums against its C-order copy's (AssertionError naming the case)."""
    view = large_random_view(rng, dtype)
    copy = np.ascontiguousarray(view)
    threads, range_bytes = int(rng.choice([1, 2, 3, 5])), int(rng.choice([0, 0, 4096, 1 << 14, 1 << 17]))
    set_cpu_tiles(threads, False, range_bytes)
    for axis in [None] + ([int(rng.integers(view.ndim))] if view.ndim > 1 else []):
        for fn in (cured.sum, cured.fsum) if view.dtype.kind == "f" else (cured.sum,):
            got, want = np.asarray(fn(view, axis=axis, device="cpu")), np.asarray(fn(copy, axis=axis, device="cpu"))
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), \
                (fn.__name__, view.dtype, view.shape, view.strides, axis, threads, range_bytes)
