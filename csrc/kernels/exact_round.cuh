// exact_round.cuh: an exact state (exact.h: 68 limbs of int64 whose carries have not been
// propagated) normalized and rounded by one warp, in steps whose number does not depend on the
// state, where one thread took a carry loop over the non-zero limbs and rounded from their words.
//
// The warp reads a window of the state, limbs [First, First + 32 Slots): lane l holds limbs
// First + l, First + l + 32, ... (slots 0 to Slots - 1). The whole state is the window of 3 slots
// from limb 0. A state whose limbs outside a narrower window are all zero, and whose integer fits it
// as two's complement, may be read through that window: float32 and float16 sums lie in limbs 28 to
// 41 (v10_exact.cu), so one slot a lane, limbs 28 to 59, holds them, and each pass below takes one
// ballot and a 32-bit addition where the whole state takes three and a 128-bit one. The window's
// integer (every sum V10 supports is below 2^2162 in magnitude, so the whole state's two's
// complement fits its 2176 bits) is carried in two passes of carry lookahead over the limbs, each a
// few ballots and one addition of their masks: a limb whose sum passes 2^32 generates a carry, one
// all ones propagates the carry it receives, and the carries into every limb are (G + Y) ^ G ^ Y,
// where G holds the generating limbs and Y those that generate or propagate (its bits added as one
// integer carry along Y's runs exactly as the limbs' carries do). Ballots then find the sign, the
// lowest and the highest non-zero words, and three shuffles bring the words the rounding reads to
// every lane (cured_exact_round_top, the CPU's rule).
#pragma once

#include <type_traits>

#include "../exact.h"

namespace cured {

constexpr int kStateSlots = (CURED_EXACT_LIMBS + 31) / 32;  // limbs a lane, for the whole state

// A mask with a bit for each limb of a window of Slots slots: bit 32 j + l for lane l's slot j.
template <int Slots>
using limb_mask = std::conditional_t<Slots == 1, uint32_t, std::conditional_t<Slots == 2, uint64_t, unsigned __int128>>;

// The limbs' mask of a predicate over a lane's slots.
template <int Slots> __device__ __forceinline__ limb_mask<Slots> ballot_limbs(const bool (&p)[Slots]) {
    limb_mask<Slots> m = 0;
#pragma unroll
    for (int j = 0; j < Slots; ++j) m |= limb_mask<Slots>(__ballot_sync(0xffffffffu, p[j])) << (32 * j);
    return m;
}

// Bit (32 j + lane) of m: the mask's bit for this lane's slot j.
template <class Mask> __device__ __forceinline__ uint32_t limb_bit(Mask m, int j, unsigned lane) {
    return (uint32_t(m >> (32 * j)) >> lane) & 1u;
}

// The carries into each limb of a sum whose limbs generate (G) or propagate (P, disjoint from G) a
// carry of one: the carry out of limb k is g_k | (p_k & c_k), and adding G to G | P as integers
// carries exactly so. Carries past the window's last limb fall away (the sum is taken modulo
// 2^(32 x its limbs)).
template <class Mask> __device__ __forceinline__ Mask carries_into(Mask generate, Mask propagate) {
    const Mask either = generate | propagate;
    return (generate + either) ^ generate ^ either;
}

// This lane's word at the window's limb k (from its first) of the words w (slots as above): every
// lane asks for the same k.
template <int Slots> __device__ __forceinline__ uint32_t word_at(const uint32_t (&w)[Slots], int k) {
    if (k < 0) return 0;
    uint32_t mine = w[0];
#pragma unroll
    for (int j = 1; j < Slots; ++j)
        if (k >= 32 * j) mine = w[j];
    return __shfl_sync(0xffffffffu, mine, k % 32);
}

// The index of the highest (lowest) set bit of m, which is not 0.
template <class Mask> __device__ __forceinline__ int highest_limb(Mask m) {
    if constexpr (sizeof(Mask) == 4) return 31 - __clz(int(m));
    else if constexpr (sizeof(Mask) == 8) return 63 - __clzll((long long)m);
    else {
        const uint64_t upper = uint64_t(m >> 64);
        return upper != 0 ? 127 - __clzll((long long)upper) : 63 - __clzll((long long)uint64_t(m));
    }
}
template <class Mask> __device__ __forceinline__ int lowest_limb(Mask m) {
    if constexpr (sizeof(Mask) == 4) return __ffs(int(m)) - 1;
    else if constexpr (sizeof(Mask) == 8) return __ffsll((long long)m) - 1;
    else {
        const uint64_t lower = uint64_t(m);
        return lower != 0 ? __ffsll((long long)lower) - 1 : 63 + __ffsll((long long)uint64_t(m >> 64));
    }
}

// The state whose limb k = First + 32 j + lane this lane reads as limb_at(j, k) (0 for k beyond the
// last), with `flags` (the same in every lane), rounded once into `to` and stored into *out as Acc,
// or, for CURED_EXACT_STATE, stored whole and normalized (cured_exact_normalize over every limb)
// into the cured_exact_state at out (the whole state's window alone). Every limb outside the window
// is zero, and the state's integer fits the window's limbs as two's complement. All 32 lanes of one
// warp call it (through the forms below).
template <int First, int Slots, class Acc, class LimbAt>
__device__ __forceinline__ void round_by_warp(LimbAt limb_at, unsigned flags, cured_dtype to, Acc *out, unsigned lane) {
    constexpr int kLimbs = CURED_EXACT_LIMBS;
    constexpr int kEnd = First + 32 * Slots < kLimbs ? First + 32 * Slots : kLimbs;  // past the window's last limb
    constexpr bool kWhole = First == 0 && kEnd == kLimbs;
    static_assert(First >= 0 && First < kEnd, "a window of the state's limbs");
    using mask = limb_mask<Slots>;
    const bool exported = to == CURED_EXACT_STATE;
    double value;
    if (!exported && cured_exact_special(flags, &value)) {
        if (lane == 0) out[0] = Acc(value);
        return;
    }
    // Each limb's int64 as its low 32 bits and its high part, which goes to the next limb: the
    // next limb adds it as an unsigned word and, where it was negative, 2^32 less, a borrow of one
    // from the limb above that.
    uint32_t word[Slots];
    int32_t high[Slots];
#pragma unroll
    for (int j = 0; j < Slots; ++j) {
        const int64_t v = limb_at(j, First + 32 * j + int(lane));
        word[j] = uint32_t(v);
        high[j] = int32_t(v >> 32);  // |v| < 2^63
    }
    bool generates[Slots], propagates[Slots], borrowed[Slots];
#pragma unroll
    for (int j = 0; j < Slots; ++j) {
        const int32_t from_lane_below = __shfl_up_sync(0xffffffffu, high[j], 1);
        const int32_t from_slot_below = j > 0 ? __shfl_sync(0xffffffffu, high[j - 1], 31) : 0;
        const int k = First + 32 * j + int(lane);
        const int32_t received = k >= kEnd ? 0 : lane == 0 ? from_slot_below : from_lane_below;
        const uint64_t sum = uint64_t(word[j]) + uint32_t(received);
        word[j] = uint32_t(sum);
        generates[j] = (sum >> 32) != 0;
        propagates[j] = word[j] == 0xffffffffu;  // never with a carry out: sum <= 2^33 - 2
        borrowed[j] = received < 0;
    }
    const mask carry = carries_into(ballot_limbs(generates), ballot_limbs(propagates));
    const mask borrow_out = ballot_limbs(borrowed) << 1;  // 2^32 less at limb k is one less at k + 1
    bool zero[Slots], one[Slots];
#pragma unroll
    for (int j = 0; j < Slots; ++j) {
        word[j] += limb_bit(carry, j, lane);
        zero[j] = word[j] == 0;
        one[j] = word[j] == 1;
    }
    // Subtracting the borrows, at most one out of a limb: a limb at 0 that owes one borrows from the
    // next (generates); one at 0 that owes none, or at 1 that owes one, borrows where it receives a
    // borrow (propagates).
    const mask zeros = ballot_limbs(zero), ones = ballot_limbs(one);
    const mask borrow = carries_into(mask(zeros & borrow_out), mask((zeros & ~borrow_out) | (ones & borrow_out)));
#pragma unroll
    for (int j = 0; j < Slots; ++j) {
        word[j] -= limb_bit(borrow_out, j, lane) + limb_bit(borrow, j, lane);
        if (First + 32 * j + int(lane) >= kEnd) word[j] = 0;  // what carried or borrowed past the window
    }
    // word: the state modulo 2^(32 x the window's limbs) in words of two's complement, the sign in
    // the top bit of the window's last limb.
    if constexpr (kWhole) {
        if (exported) {
            auto *const state = reinterpret_cast<cured_exact_state *>(out);
#pragma unroll
            for (int j = 0; j < Slots; ++j) {
                const int k = 32 * j + int(lane);
                if (k < kLimbs) state->limb[k] = k == kLimbs - 1 ? int64_t(int32_t(word[j])) : int64_t(word[j]);
            }
            if (lane == 0) state->flags = flags;
            return;
        }
    }
    constexpr int kSignLane = (kEnd - 1 - First) % 32, kSignSlot = (kEnd - 1 - First) / 32;
    const bool negative = __ballot_sync(0xffffffffu, lane == kSignLane && (word[kSignSlot] >> 31) != 0) != 0;
    bool nonzero[Slots];
#pragma unroll
    for (int j = 0; j < Slots; ++j) nonzero[j] = word[j] != 0;
    const mask nonzeros = ballot_limbs(nonzero);
    if (nonzeros == 0) {
        if (lane == 0) out[0] = Acc(cured_exact_zero(flags));
        return;
    }
    // The magnitude: negating keeps the words below the lowest non-zero one (zeros), negates that
    // one and complements those above. Limb indices from here on are the window's.
    const int lowest_nonzero = lowest_limb(nonzeros);
    const uint32_t lowest_word = word_at(word, lowest_nonzero);
    uint32_t magnitude[Slots];
#pragma unroll
    for (int j = 0; j < Slots; ++j) {
        const int k = 32 * j + int(lane);
        magnitude[j] = !negative || k < lowest_nonzero ? word[j] : k == lowest_nonzero ? 0u - word[j] : ~word[j];
        nonzero[j] = First + k < kEnd && magnitude[j] != 0;  // beyond the window, a negative's complement
    }
    const int top = highest_limb(ballot_limbs(nonzero));
    const uint32_t word_top = word_at(magnitude, top), word_1 = word_at(magnitude, top - 1),
                   word_2 = word_at(magnitude, top - 2);
    if (lane == 0) {
        const int lowest = 32 * (First + lowest_nonzero) + cured_lowest_bit(lowest_word);  // negating keeps it
        out[0] = Acc(cured_exact_round_top(negative, First + top, word_top, word_1, word_2, lowest, to));
    }
}

// A state limb by limb: limb_of(k) for each limb k of the window (or of the whole state, to
// export), every one readable by this warp. Rounded through the window of Slots slots from limb
// First, which must hold it (above); exported through the whole state.
template <int First = 0, int Slots = kStateSlots, class Acc, class LimbOf>
__device__ __forceinline__ void round_limbs_of_by_warp(LimbOf limb_of, unsigned flags, cured_dtype to, Acc *out,
                                                       unsigned lane) {
    const auto limb_at = [&](int, int k) { return k < CURED_EXACT_LIMBS ? limb_of(k) : int64_t(0); };
    if constexpr (First != 0 || Slots != kStateSlots)
        if (to != CURED_EXACT_STATE) {
            round_by_warp<First, Slots>(limb_at, flags, to, out, lane);
            return;
        }
    round_by_warp<0, kStateSlots>(limb_at, flags, to, out, lane);
}

// A state in shared or global memory, every limb written before a barrier (or a __syncwarp, by
// this warp) that this warp has passed.
template <int First = 0, int Slots = kStateSlots, class Acc>
__device__ __forceinline__ void round_state_by_warp(const int64_t *limbs, unsigned flags, cured_dtype to, Acc *out,
                                                    unsigned lane) {
    round_limbs_of_by_warp<First, Slots>([&](int k) { return limbs[k]; }, flags, to, out, lane);
}

// A state in the lanes' registers: limb 32 j + lane in limb[j] (0 beyond the last).
template <class Acc>
__device__ __forceinline__ void round_limbs_by_warp(const int64_t (&limb)[kStateSlots], unsigned flags, cured_dtype to,
                                                    Acc *out, unsigned lane) {
    round_by_warp<0, kStateSlots>([&](int j, int) { return limb[j]; }, flags, to, out, lane);
}

}  // namespace cured
