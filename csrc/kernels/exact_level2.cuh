// exact_level2.cuh: V10's level 2 (v10_exact.cu's header), where a step goes whose elements the
// fast window (exact_window.cuh) cannot hold: each thread's float64 exponent bins (float32 and
// float16 input), each thread's 48-bit digits (float64, where the GPU has 90 KiB of shared memory a
// block) or each warp's 16-bit words (float64 in a launch of at most a wave of tiles), and how each
// goes into its warp's exact state. For v10_exact.cu's blocks of v10_exact_threads threads.
#pragma once

#include "../cured.h"
#include "../exact.h"
#include "exact_term.cuh"
#include "exact_window.cuh"

namespace cured::v10 {

constexpr int kThreads = v10_exact_threads;
constexpr int kWarps = kThreads / 32;
constexpr int kLimbs = CURED_EXACT_LIMBS;

// Steps between a thread's int64 bins going into its warp's state: an int64 bin takes at most
// 2^(kBinBits + 5) a step, and a warp's 32 of them must still add in an int64.
constexpr int kFlushSteps = 64;

// An IEEE value's bits, widened.
template <class T> __device__ __forceinline__ uint64_t bits_of(T x) {
    if constexpr (sizeof(T) == 4) return __float_as_uint(x);
    else if constexpr (sizeof(T) == 8) return uint64_t(__double_as_longlong(x));
    else return __half_as_ushort(x);
}

// Where the elements outside the window go, level 2. The state of a whole warp, with atomic adds,
// makes lanes that hit one limb wait on each other, and on data over the whole exponent range most
// elements come here. So each thread has level 2 of its own, in shared memory.
//
// float32 (and float16, widened) elements: 16 float64 accumulators a thread, by exponent. Bin b
// takes the elements whose exponent field e has e >> 4 == b (16 binades): each is an integer number
// of 2^(16b - 150) (the last place of exponent 16b; a subnormal's, 2^-149, is one of them) below
// 2^(24 + 15), so float64, exact up to 2^53, adds 2^14 of them without a rounding. An element is a
// conversion to float64, a shared load, an add and a store: 7 instructions with the address, no
// branch (the 16-bit int64 chunks that this replaced took 21, the significand signed and shifted
// into place, and read 0.71 to 0.75 of V9 on the H200; two arrays of them, two independent
// load-add-store chains, were no faster: docs/v10.md). [bin][thread],
// so that a warp's 32 threads hit 32 different banks. float64 elements reach 66 limbs: each
// thread's own state of them (thread_digits, below) needs dynamic shared memory; without it they
// take the warp's state, with atomics. (Four copies of that a warp, by lane, measured no faster: 166
// against 170 GB/s.)
constexpr int kExponentBins = cured::float32_bins<kThreads>::kBins;
constexpr int kUnitExponent = cured::float32_bins<kThreads>::kUnitExponent;  // bin b's unit: 2^(kUnitExponent + 16b)
constexpr int kUnitBit = kUnitExponent - CURED_EXACT_UNIT_EXP;   // bin 0's unit, a bit of the state
constexpr int kFirstChunk = kUnitBit / 16;  // bin 0's last place is bit 12 of chunk 57
static_assert(kFirstChunk == 57 && kUnitBit % 16 == 12, "2^-150 is bit 12 of chunk 57");

template <class In> constexpr bool kThreadOwnBins = std::is_same_v<In, float> || std::is_same_v<In, __half>;

// v x 2^shift (0 <= shift < 32) cut at the state's 32-bit limbs: v x 2^shift = piece[0] + piece[1]
// x 2^32 + piece[2] x 2^64, the first two in [0, 2^32), the third signed.
__device__ __forceinline__ void limb_pieces(int64_t v, int shift, int64_t (&piece)[3]) {
    const uint64_t low = uint64_t(v) << shift;
    piece[0] = int64_t(low & 0xffffffffu);
    piece[1] = int64_t(low >> 32);
    piece[2] = shift != 0 ? v >> (64 - shift) : v >> 63;  // arithmetic: the floor of v x 2^shift / 2^64
}

struct thread_bins : cured::float32_bins<kThreads> {
    // This thread's bins, as integers, carried into 16-bit chunks (chunk c: bits 16c up of the state)
    // and those into 32-bit words (the state's limbs 28 to 37), summed over the warp into the warp's
    // state by lane 0, and cleared; all lanes call it. Between two calls a thread adds at most
    // kFlushSteps steps' elements, 2^12: each bin stays below 2^51 units.
    __device__ __forceinline__ void flush(unsigned long long *warp_state, unsigned lane) {
        static_assert(kFlushSteps * 64 <= (1 << 14), "a flush's elements add exactly in a float64 bin");
        constexpr int kFirstLimb = kFirstChunk / 2, kWords = (kFirstChunk + kExponentBins + 1) / 2 + 1 - kFirstLimb;
        int64_t word[kWords] = {};
        int64_t carry = 0;  // into chunk c, from the chunks and bins below
#pragma unroll
        for (int b = 0; b <= kExponentBins; ++b) {
            int64_t units = 0;  // bin b's sum in units of 2^(16b - 150), bit 12 of chunk c
            if (b < kExponentBins) {
                units = __double2ll_rn(bin[b][threadIdx.x] * pow2<double>(150 - 16 * b));
                bin[b][threadIdx.x] = 0.0;
            }
            const int c = kFirstChunk + b;
            const int64_t v = ((units & 15) << 12) + carry;  // chunk c's part of units x 2^12, and the carry
            carry = (v >> 16) + (units >> 4);                // arithmetic shifts: floors, so the parts add up
            word[c / 2 - kFirstLimb] += (v & 0xffff) << (16 * (c & 1));
        }
        word[kWords - 1] += carry;
#pragma unroll
        for (int k = 0; k < kWords; ++k) {
            const int64_t v = warp_sum(word[k]);
            if (lane == 0) warp_state[kFirstLimb + k] += (unsigned long long)v;
        }
    }
    // The block's last flush where it added at most 2^14 elements, a tile of float32 or float16: any
    // sum of its bins' values is then exact in float64 (below 2^53 units), so that the block sums
    // each bin over its threads in float64 before it makes integers of it. Warp w takes bins 2w and
    // 2w + 1, a half-warp each: a lane sums 16 threads' values, the half's 16 lanes their sums, and
    // lane 0 adds both bins, their units cut into 32-bit pieces, into four limbs of warp w's state.
    // About 60 instructions a warp where flush takes 500, most of them one chain through the carries
    // (Nsight Compute, full-range float32 2^10 and 2^13, H100, 2026-11-26); docs/v10.md has the gain.
    // All threads call it, after a barrier that follows their last additions; another must follow
    // before the warps' states are read.
    static constexpr int64_t kBlockElements = int64_t(1) << 14;
    __device__ __forceinline__ void flush_block(unsigned long long (*warp_limbs)[kLimbs], unsigned warp, unsigned lane) {
        static_assert(kExponentBins == 2 * kWarps && kThreads == 16 * 16, "two bins a warp, 16 threads' values a lane");
        static_assert(kUnitBit % 32 >= 16, "bin 2w + 1's unit lies in the limb after bin 2w's");
        const int b = int(2 * warp + lane / 16), first = int(lane % 16) * 16;
        double sum = 0.0;
#pragma unroll
        for (int k = 0; k < 16; ++k) sum += bin[b][first + (k + int(lane)) % 16];  // a half's lanes, 16 banks
#pragma unroll
        for (int offset = 8; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        const int64_t units = __double2ll_rn(sum * __longlong_as_double(int64_t(1023 - kUnitExponent - 16 * b) << 52));
        int64_t piece[3];
        limb_pieces(units, (kUnitBit + 16 * b) % 32, piece);  // bin b's unit is that bit of its limb
        int64_t next[3];  // lane 16's: bin 2w + 1's, a limb higher
#pragma unroll
        for (int k = 0; k < 3; ++k) next[k] = __shfl_down_sync(0xffffffffu, piece[k], 16);
        if (lane == 0) {
            unsigned long long *const limb = warp_limbs[warp] + (kUnitBit + 32 * warp) / 32;
            limb[0] += (unsigned long long)piece[0];
            limb[1] += (unsigned long long)(piece[1] + next[0]);
            limb[2] += (unsigned long long)(piece[2] + next[1]);
            limb[3] += (unsigned long long)next[2];
        }
    }
};

// float64's level 2 where the GPU has the shared memory: each thread owns the whole state in 44
// digits of 48 bits (bits 48d up of the state, d = 0 .. 43), in int64s, [digit][thread]. An element
// of signed significand v (|v| < 2^53) at bit position p (units of 2^-1074) adds in two plain shared
// adds, no atomics, no branch: (v << s) mod 2^48, in [0, 2^48), into digit p / 48 and
// floor((v << s) / 2^48) into the next (s = p mod 48), which add to v << s. A digit then takes
// below 2^52 in magnitude an element: starting from [0, 2^48),
// 1024 elements (kFlushSteps steps) leave it below 2^63, and each thread carries its digits back
// into [0, 2^48) that often (carry), the top digit keeping the excess (below 2^34 an element, so
// 2^28 elements a thread). 90 KiB a block of 256 threads, dynamic shared memory: two blocks an SM
// on sm_90, one on sm_86 and sm_89; a GPU with less (sm_75) takes the warp's state, with atomics.
// 48-bit digits rather than 32: two blocks an SM instead of one (66 digits, 132 KiB). A block
// clears its digits first, about 350 clocks of shared-memory stores: 0.2 to 0.4 us at 2^10 to
// 2^16, 1% from 2^26 on data that never needs them. Clearing each thread's when it first needs
// them saved that and cost 4% on data that does (H200, 2026-11-22). Tried again where ClearFirst
// does not clear (blocks of fewer than kClearFirstTiles tiles; the threads that never needed them
// clearing theirs before add_to), in turns with this kernel and a copy of it (2026-11-24,
// scripts/probes/v10_phases): standard-normal float64 0.1 to 0.3 us faster at 2^10 to 2^12 and
// up to 0.2 beyond (H200 2^10 6.75 against 7.04 / 7.10 us; H100 2^11 6.85 against 7.10 / 7.14),
// but full-range float64 0.3 to 0.5 us slower from 2^12 to 2^17 and 3% at 2^20 and 2^22 on the
// H100 (16.19 against 15.71 / 15.68 us at 2^20): the stores then wait for the loads instead of
// overlapping them. Not kept. float32's exponent bins cleared so: nothing gained on
// standard-normal data, 0.1 to 0.25 us lost on full-range data (H200).
// A finite float64's significand (its implicit bit included) and the position of its lowest bit in
// the exact state (bit 0: 2^-1074), from its bits: what both of float64's level-2 stores add.
struct float64_parts {
    uint64_t magnitude;
    uint32_t place;
};
__device__ __forceinline__ float64_parts parts_of(uint64_t bits) {
    const uint32_t high = uint32_t(bits >> 32), exponent = (high >> 20) & 0x7ffu;
    // The implicit bit set in the high word: a select and an AND-OR, where a 64-bit OR of the flag
    // shifted took four instructions.
    const uint32_t significand_high = (high & 0xfffffu) | (exponent != 0 ? 0x100000u : 0u);
    return {uint64_t(significand_high) << 32 | uint32_t(bits), max(exponent, 1u) - 1};
}

struct thread_digits {
    static constexpr int kDigits = 44, kDigitBits = 48;
    static_assert(kDigits * kDigitBits >= 2046 + 53 && (kDigits - 1) * kDigitBits / 32 + 1 < kLimbs,
                  "the top digit holds float64's largest significand; the digits fit the state's limbs");
    static constexpr int64_t kDigitMask = (int64_t(1) << kDigitBits) - 1;
    int64_t digit[kDigits][kThreads];

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int d = 0; d < kDigits; ++d) digit[d][threadIdx.x] = 0;
    }
    // This thread's digit 0; digit d is column[d * kThreads].
    __device__ __forceinline__ int64_t *column() { return &digit[0][threadIdx.x]; }
    // A finite float64 from its bits, into the digits of `column` (this thread's, taken once).
    __device__ __forceinline__ static void add_finite(uint64_t bits, int64_t *column) {
        static_assert(kDigitBits == 48, "place / 48 below");
        const float64_parts parts = parts_of(bits);
        const int64_t magnitude = int64_t(parts.magnitude);
        const uint32_t place = parts.place;
        // place / 48 for any place below 2^16 (43691 * 48 = 2^21 + 16), without the mask to 16 bits
        // that the compiler's own division adds.
        const uint32_t d = (place * 43691u) >> 21, s = place - d * kDigitBits;
        const int64_t sign = int64_t(bits) >> 63;  // 0 or -1
        const int64_t value = (magnitude ^ sign) - sign;
        column[d * kThreads] += int64_t(uint64_t(value) << s) & kDigitMask;
        column[(d + 1) * kThreads] += value >> (kDigitBits - s);  // arithmetic: floor, so the two add to value << s
    }
    // This thread's digits back into [0, 2^48), carrying upwards.
    __device__ __forceinline__ void carry() {
        int64_t c = 0;
#pragma unroll
        for (int d = 0; d < kDigits - 1; ++d) {
            const int64_t v = digit[d][threadIdx.x] + c;
            c = v >> kDigitBits;
            digit[d][threadIdx.x] = v & kDigitMask;
        }
        digit[kDigits - 1][threadIdx.x] += c;
    }
    // The block's digits, summed over its threads, into its warps' states: warp w takes digits w,
    // w + 8, ..., its lane 0 adding each into the two 32-bit limbs it straddles. A digit's part in
    // each limb is summed apart (a part below 2^32, and a floored part below 2^47 in magnitude for a
    // digit below 2^63), so that no sum of 256 can overflow: the digits need no carry first. All
    // threads call it, after a barrier. SideBySide digits of a warp at a time, their loads and
    // reductions overlapping (one digit after another waits on its reductions each): all of a
    // warp's (kDigitsPerWarp) in blocks of many tiles (ClearFirst), one in blocks of a few, where
    // the unrolled code, run once on each SM, read 0.2 to 0.3 us slower at 2^10 to 2^17 with
    // shuffles, and 0.1 to 0.9 us slower at 2^10 to 2^22 with redux.sync (full-range float64, H200,
    // 2026-11-26, scripts/probes/v10_phases); docs/v10.md has the gain.
    static constexpr int kDigitsPerWarp = (kDigits + kWarps - 1) / kWarps;
    template <int SideBySide>
    __device__ __forceinline__ void add_to(unsigned long long (*warp_limbs)[kLimbs], unsigned warp, unsigned lane) const {
        static_assert(kDigitsPerWarp % SideBySide == 0, "a warp's digits in whole groups");
        for (int first = int(warp); first < kDigits; first += SideBySide * kWarps) {
            int64_t low[SideBySide], high[SideBySide];
#pragma unroll
            for (int i = 0; i < SideBySide; ++i) {
                const int d = first + i * kWarps, offset = d * kDigitBits % 32;
                low[i] = high[i] = 0;
                if (i == 0 || d < kDigits) {  // the loop's test holds for the first
#pragma unroll
                    for (int t = lane; t < kThreads; t += 32) {
                        low[i] += digit[d][t] & ((int64_t(1) << (32 - offset)) - 1);
                        high[i] += digit[d][t] >> (32 - offset);
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < SideBySide; ++i) {
                low[i] = warp_sum(low[i]);
                high[i] = warp_sum(high[i]);
            }
            if (lane == 0)
#pragma unroll
                for (int i = 0; i < SideBySide; ++i) {
                    const int d = first + i * kWarps, bit = d * kDigitBits, limb = bit / 32, offset = bit % 32;
                    if (i == 0 || d < kDigits) {
                        warp_limbs[warp][limb] += (unsigned long long)(low[i] << offset);
                        warp_limbs[warp][limb + 1] += (unsigned long long)high[i];
                    }
                }
        }
    }
};

// float64's level 2 in a launch of at most a wave of tiles, a block a tile, where the threads'
// digits cost more to clear and to add up (90 KiB and 11264 values, about 3000 clocks at 2^10 on
// full-range data) than a tile's elements do to add: each warp's own state in 16-bit
// digits, a digit to an int32 word (word k: bits 16k up of the state), into which an element's
// significand, shifted to its place, goes in five 16-bit pieces by native 32-bit shared atomic
// adds (one instruction each on sm_90, where 64-bit ones are compare-and-swap loops). A piece is
// below 2^16 in magnitude, and a word takes at most 2^15 of them between two flushes (kFlushSteps
// steps of 16 elements for 32 lanes): no overflow. 4352 bytes a block, static.
// Tried for full-range float64 at 2^12 (scripts/probes/v10_phases, in turns with this kernel and
// copies of it, device time, 2026-11-26), not kept: the fifth atomic only where its piece is not 0
// (a quarter of elements): H200, 7.07 to 7.23 us against 6.88 to 7.20; 22-bit digits, four
// pieces an element, the words into the state after every step: H100, 7.97 to 8.00 against 7.26
// to 7.36 (2^20: 14.05 to 14.37 against 13.06 to 13.09), its flush spilling registers. Where the
// time goes, from copies that give wrong sums (H100, the same way, 19:03 and 19:08 UTC): one atomic
// an element where five were, 6.53 to 6.85 us against 7.01 to 7.17; warp 0's rounding through one
// slot a lane, or without cured_exact_round_top, within 0.1 us of the kernel. Within 1.5 times V9's
// time (about 0.1 us on the H100 and 0.2 on the H200) would take about half the atomics, which words
// of int32 cannot give: a step's 512 elements a warp leave a word 22 bits a piece at most, four
// pieces an element.
struct warp_words {
    static constexpr int kWords = cured::kStateWords, kPieces = cured::kWordPieces<double>;
    static_assert(kFlushSteps * 16 * 32 <= (1 << 15), "a word takes at most 2^15 pieces between flushes");
    int32_t word[kWarps][kWords];

    __device__ __forceinline__ void clear() {
        for (int k = threadIdx.x; k < kWarps * kWords; k += kThreads) (&word[0][0])[k] = 0;
    }
    // A finite float64 from its bits, into its warp's words.
    __device__ __forceinline__ void add_finite(uint64_t bits, unsigned warp) {
        const float64_parts parts = parts_of(bits);
        cured::add_to_words<kPieces>(word[warp], parts.magnitude, parts.place, int64_t(bits) < 0 ? -1 : 1);
    }
    // The warp's words into its state, and cleared (cured::flush_words).
    __device__ __forceinline__ void flush(unsigned long long *warp_state, unsigned warp, unsigned lane) {
        cured::flush_words(word[warp], warp_state, lane);
    }
};

// An element the window does not hold (or its remainder) into the slow path's state; returns the
// flags it raises (NaN, infinities, a clear sign bit).
template <class T, class Store> __device__ __noinline__ unsigned add_outside(T x, Store *store) {
    cured_exact_term term;
    unsigned flags = 0;
    if (cured::term_of(x, &term, &flags)) {
        if constexpr (std::is_same_v<Store, thread_bins>) store->add_finite(uint32_t(bits_of(x)));
        else add_term<true>(store, term);
    }
    return flags;
}

}  // namespace cured::v10
