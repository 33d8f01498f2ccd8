"""Makes a copy of csrc/kernels/v10_exact.cu that main.cu can link beside the built one.

    instrument.py SOURCE OUT TABLE [--plain]

SOURCE: a version of v10_exact.cu (the working tree's, or `git show REV:csrc/kernels/v10_exact.cu`
saved to a file); OUT: the copy to write; TABLE: the name its launch table takes (main.cu links
v10_timed_launchers and, where linked, v10_base_launchers and v10_var1_launchers to
v10_var3_launchers). Without --plain, thread 0 of each block writes clock64() at the kernel's
phases into g_stamps[block][phase] (and %globaltimer at its start and end), and the rounding block
runs the rounding a second time, warm, after the first.
The phases are found by the lines they follow: a change to the kernel around them needs one here.
"""
import sys

source, out, table = sys.argv[1:4]
plain = "--plain" in sys.argv[4:]
src = open(source).read()
src = (src.replace('#include "../exact.h"', '#include "exact.h"')
       .replace('#include "exact_round.cuh"', '#include "kernels/exact_round.cuh"')
       .replace('#include "exact_term.cuh"', '#include "kernels/exact_term.cuh"')
       .replace('#include "tiles.cuh"', '#include "kernels/tiles.cuh"')
       .replace("const cured_launch_table v10_exact_launchers", "const cured_launch_table " + table))


def after(anchor, text):
    global src
    if src.count(anchor) != 1:
        sys.exit(f"instrument.py: {anchor!r} is not in {source} once; update the phase anchors")
    i = src.index(anchor) + len(anchor)
    src = src[:i] + text + src[i:]


if not plain:
    after('#include "kernels/tiles.cuh"\n', '''
__device__ long long g_stamps[4096 * 16];
__device__ __forceinline__ long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}
#define STAMP(k) do { if (threadIdx.x == 0) g_stamps[blockIdx.x * 16 + (k)] = clock64(); } while (0)
#define NS(k) do { if (threadIdx.x == 0) g_stamps[blockIdx.x * 16 + 12 + (k)] = global_ns(); } while (0)
''')
    after('const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;\n', '    NS(0); STAMP(0);\n')
    after('        __syncthreads();\n        cleared = true;\n', '        STAMP(1);\n')
    after('        if (!cleared) clear_state();  // a block given no tiles, which no grid here makes\n', '        STAMP(11);\n')
    if 'own.flush_block(warp_limbs, warp, lane);' in src:  # float32's block flush (2026-11-26 on)
        after('    } else {\n        __syncthreads();\n    }\n', '    STAMP(2);\n')
    else:
        after('if (lane == 0 && flags != 0) atomicOr(&block_flags, flags);\n    __syncthreads();\n', '    STAMP(2);\n')
    if 'if (__syncthreads_or(digits_used)) {\n' in src:  # float64's digits added (2026-11-26 on)
        after('if (__syncthreads_or(digits_used)) {\n', '                STAMP(14);\n')
        after('digits->template add_to<ClearFirst ? thread_digits::kDigitsPerWarp : 1>(warp_limbs, warp, lane);\n',
              '                STAMP(15);\n')
    after('        thread_window<In>::add_bins(warp_bins, warp_limbs);\n        __syncthreads();\n', '        STAMP(3);\n')
    block_sum = '    if (threadIdx.x < kLimbs) block_limbs[threadIdx.x] = warps_limb(threadIdx.x);\n    __syncthreads();\n'
    if block_sum not in src:  # before 2026-11-26 17:45 UTC: the sum written out
        block_sum = '        block_limbs[threadIdx.x] = v;\n    }\n    __syncthreads();\n'
    after(block_sum, '    STAMP(4);\n')
    if 'rows_barrier_wait(&cluster_rows_arrived);\n' in src:  # the others' rows by st.async (2026-11-26 16:00 UTC on)
        after('store_in_first_block(&cluster_flags[rank - 1], block_flags, &cluster_rows_arrived);\n', '                NS(1);\n')
        after('rows_barrier_wait(&cluster_rows_arrived);\n', '                STAMP(5);\n')
    elif '            cluster_sync();\n' in src:  # the cluster's two full barriers (before 2026-11-26 05:30 UTC)
        after('            cluster_sync();\n', '            if (rank != 0) NS(1);\n')
        after('            if (rank != 0) return;\n', '            STAMP(5);\n')
    else:  # its barrier in halves, the first arrival at the block's start
        after('            cluster_arrive_release();\n', '            if (rank != 0) NS(1);\n')
        after('            if (rank != 0) return;\n            cluster_wait();\n', '            STAMP(5);\n')
    ticket = '''                if (last_block) counter.store(0, cuda::memory_order_relaxed);
            }
            __syncthreads();
'''
    if ticket not in src:  # the combine's code one level out, a block alone having returned (2026-11-26 17:30 UTC on)
        ticket = ''.join(line[4:] + '\n' for line in ticket.splitlines())
    after(ticket, '            STAMP(5); if (!last_block) NS(1);\n')
    after('block_limbs[threadIdx.x] = int64_t(atomicExch(limbs + threadIdx.x, 0ull));\n', '            STAMP(6);\n')
    tail = '    if (warp == 0) cured::round_state_by_warp(block_limbs, block_flags | CURED_EXACT_NONEMPTY, result, out, lane);\n'
    narrow = ('        cured::round_state_by_warp<kRoundFirst, kRoundSlots>(block_limbs, block_flags | CURED_EXACT_NONEMPTY, '
              'result, out, lane);\n')
    alone_call = ('            cured::round_limbs_of_by_warp<kRoundFirst, kRoundSlots>(warps_limb, block_flags | '
                  'CURED_EXACT_NONEMPTY, result,\n                                                                     out, lane);\n')
    if alone_call in src:  # a block alone rounds its warps' limbs as it reads them (2026-11-26 17:20 UTC on)
        after('    if (alone) {\n', '        STAMP(4);\n')
        after(alone_call, '''        if (warp == 0) {  // the same again, its code now fetched
            STAMP(8); NS(1);
            cured::round_limbs_of_by_warp<kRoundFirst, kRoundSlots>(warps_limb, block_flags | CURED_EXACT_NONEMPTY, result, out, lane);
            STAMP(9);
        }
''')
    if narrow in src:  # float32's and float16's window of limbs (2026-11-26 17:00 UTC on)
        after(narrow, '''    if (warp == 0) {  // the same again, its code now fetched
        STAMP(8); NS(1);
        cured::round_state_by_warp<kRoundFirst, kRoundSlots>(block_limbs, block_flags | CURED_EXACT_NONEMPTY, result, out, lane);
        STAMP(9);
    }
''')
    elif tail in src:  # warp 0's carries and rounding (exact_round.cuh, 2026-11-26 13:30 UTC on): no lohi
        after(tail, '''    if (warp == 0) {  // the same again, its code now fetched
        STAMP(8); NS(1);
        cured::round_state_by_warp(block_limbs, block_flags | CURED_EXACT_NONEMPTY, result, out, lane);
        STAMP(9);
    }
''')
    else:  # thread 0's, after the non-zero limbs found with shared atomics
        after('        atomicMax(&highest, int(threadIdx.x));\n    }\n    __syncthreads();\n', '    STAMP(7);\n')
        after('out[0] = Acc(cured_exact_round(block_limbs, low, high, flags_here, result));\n', '''        STAMP(8); NS(1);
        cured_exact_normalize(block_limbs, low, high);  // the same again, its code now fetched
        const double again = cured_exact_round(block_limbs, low, high, flags_here, result);
        STAMP(9);
        g_stamps[blockIdx.x * 16 + 10] = __double_as_longlong(again);
''')
    src += '''
extern "C" cudaError_t read_stamps(long long *h, size_t count) { return cudaMemcpyFromSymbol(h, g_stamps, count * 8); }
extern "C" cudaError_t clear_stamps() {
    static long long zero[4096 * 16];
    return cudaMemcpyToSymbol(g_stamps, zero, sizeof zero);
}
'''
open(out, "w").write(src)
