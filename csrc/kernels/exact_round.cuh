// exact_round.cuh: an exact state (exact.h: 68 limbs of int64 whose carries have not been
// propagated) normalized and rounded by one warp, in steps whose number does not depend on the
// state, where one thread took a carry loop over the non-zero limbs and rounded from their words.
//
// Lane l holds limbs l, l + 32 and l + 64 (slots 0 to 2). The state's integer, modulo 2^2176 (68
// limbs of 32 bits: every sum V10 supports is below 2^2162 in magnitude, so its two's complement
// fits), is carried in two passes of carry lookahead over the limbs, each a few ballots and one
// 128-bit addition of their masks: a limb whose sum passes 2^32 generates a carry, one all ones
// propagates the carry it receives, and the carries into every limb are (G + Y) ^ G ^ Y, where G
// holds the generating limbs and Y those that generate or propagate (its bits added as one integer
// carry along Y's runs exactly as the limbs' carries do). Ballots then find the sign, the lowest
// and the highest non-zero words, and three shuffles bring the words the rounding reads to every
// lane (cured_exact_round_top, the CPU's rule).
#pragma once

#include "../exact.h"

namespace cured {

constexpr int kStateSlots = (CURED_EXACT_LIMBS + 31) / 32;  // limbs a lane
using limb_mask = unsigned __int128;                        // bit k: limb k

// The limbs' mask of a predicate over a lane's slots.
__device__ __forceinline__ limb_mask ballot_limbs(const bool (&p)[kStateSlots]) {
    limb_mask m = 0;
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) m |= limb_mask(__ballot_sync(0xffffffffu, p[j])) << (32 * j);
    return m;
}

// Bit (32 j + lane) of m: the mask's bit for this lane's slot j.
__device__ __forceinline__ uint32_t limb_bit(limb_mask m, int j, unsigned lane) {
    return (uint32_t(m >> (32 * j)) >> lane) & 1u;
}

// The carries into each limb of a sum whose limbs generate (G) or propagate (P, disjoint from G) a
// carry of one: the carry out of limb k is g_k | (p_k & c_k), and adding G to G | P as integers
// carries exactly so. Carries past limb 67 fall away (the sum is taken modulo 2^2176).
__device__ __forceinline__ limb_mask carries_into(limb_mask generate, limb_mask propagate) {
    const limb_mask either = generate | propagate;
    return (generate + either) ^ generate ^ either;
}

// This lane's word at limb index k of the words w (slots as above): every lane asks for the same k.
__device__ __forceinline__ uint32_t word_at(const uint32_t (&w)[kStateSlots], int k) {
    if (k < 0) return 0;
    const uint32_t mine = k < 32 ? w[0] : k < 64 ? w[1] : w[2];
    return __shfl_sync(0xffffffffu, mine, k % 32);
}

// The index of the highest (lowest) set bit of m, which is not 0.
__device__ __forceinline__ int highest_limb(limb_mask m) {
    const uint64_t upper = uint64_t(m >> 64);
    return upper != 0 ? 127 - __clzll((long long)upper) : 63 - __clzll((long long)uint64_t(m));
}
__device__ __forceinline__ int lowest_limb(limb_mask m) {
    const uint64_t lower = uint64_t(m);
    return lower != 0 ? __ffsll((long long)lower) - 1 : 63 + __ffsll((long long)uint64_t(m >> 64));
}

// The state whose limb k = 32 j + lane this lane reads as limb_at(j, k) (0 for k beyond the last),
// with `flags` (the same in every lane), rounded once into `to` and stored into *out as Acc, or, for
// CURED_EXACT_STATE, stored whole and normalized (cured_exact_normalize over every limb) into the
// cured_exact_state at out. All 32 lanes of one warp call it (through the two forms below).
template <class Acc, class LimbAt>
__device__ __forceinline__ void round_by_warp(LimbAt limb_at, unsigned flags, cured_dtype to, Acc *out, unsigned lane) {
    constexpr int kLimbs = CURED_EXACT_LIMBS;
    const bool exported = to == CURED_EXACT_STATE;
    double value;
    if (!exported && cured_exact_special(flags, &value)) {
        if (lane == 0) out[0] = Acc(value);
        return;
    }
    // Each limb's int64 as its low 32 bits and its high part, which goes to the next limb: the
    // next limb adds it as an unsigned word and, where it was negative, 2^32 less, a borrow of one
    // from the limb above that.
    uint32_t word[kStateSlots];
    int32_t high[kStateSlots];
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) {
        const int64_t v = limb_at(j, 32 * j + int(lane));
        word[j] = uint32_t(v);
        high[j] = int32_t(v >> 32);  // |v| < 2^63
    }
    bool generates[kStateSlots], propagates[kStateSlots], borrowed[kStateSlots];
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) {
        const int32_t from_lane_below = __shfl_up_sync(0xffffffffu, high[j], 1);
        const int32_t from_slot_below = j > 0 ? __shfl_sync(0xffffffffu, high[j - 1], 31) : 0;
        const int k = 32 * j + int(lane);
        const int32_t received = k >= kLimbs ? 0 : lane == 0 ? from_slot_below : from_lane_below;
        const uint64_t sum = uint64_t(word[j]) + uint32_t(received);
        word[j] = uint32_t(sum);
        generates[j] = (sum >> 32) != 0;
        propagates[j] = word[j] == 0xffffffffu;  // never with a carry out: sum <= 2^33 - 2
        borrowed[j] = received < 0;
    }
    const limb_mask carry = carries_into(ballot_limbs(generates), ballot_limbs(propagates));
    const limb_mask borrow_out = ballot_limbs(borrowed) << 1;  // 2^32 less at limb k is one less at k + 1
    bool zero[kStateSlots], one[kStateSlots];
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) {
        word[j] += limb_bit(carry, j, lane);
        zero[j] = word[j] == 0;
        one[j] = word[j] == 1;
    }
    // Subtracting the borrows, at most one out of a limb: a limb at 0 that owes one borrows from the
    // next (generates); one at 0 that owes none, or at 1 that owes one, borrows where it receives a
    // borrow (propagates).
    const limb_mask zeros = ballot_limbs(zero), ones = ballot_limbs(one);
    const limb_mask borrow = carries_into(zeros & borrow_out, (zeros & ~borrow_out) | (ones & borrow_out));
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) {
        word[j] -= limb_bit(borrow_out, j, lane) + limb_bit(borrow, j, lane);
        if (32 * j + int(lane) >= kLimbs) word[j] = 0;  // what carried or borrowed past limb 67
    }
    // word: the state modulo 2^2176 in 68 words of two's complement, the sign in limb 67's top bit.
    if (exported) {
        auto *const state = reinterpret_cast<cured_exact_state *>(out);
#pragma unroll
        for (int j = 0; j < kStateSlots; ++j) {
            const int k = 32 * j + int(lane);
            if (k < kLimbs) state->limb[k] = k == kLimbs - 1 ? int64_t(int32_t(word[j])) : int64_t(word[j]);
        }
        if (lane == 0) state->flags = flags;
        return;
    }
    constexpr int kSignLane = (kLimbs - 1) % 32, kSignSlot = (kLimbs - 1) / 32;
    const bool negative = __ballot_sync(0xffffffffu, lane == kSignLane && (word[kSignSlot] >> 31) != 0) != 0;
    bool nonzero[kStateSlots];
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) nonzero[j] = word[j] != 0;
    const limb_mask nonzeros = ballot_limbs(nonzero);
    if (nonzeros == 0) {
        if (lane == 0) out[0] = Acc(cured_exact_zero(flags));
        return;
    }
    // The magnitude: negating keeps the words below the lowest non-zero one (zeros), negates that
    // one and complements those above.
    const int lowest_nonzero = lowest_limb(nonzeros);
    const uint32_t lowest_word = word_at(word, lowest_nonzero);
    uint32_t magnitude[kStateSlots];
#pragma unroll
    for (int j = 0; j < kStateSlots; ++j) {
        const int k = 32 * j + int(lane);
        magnitude[j] = !negative || k < lowest_nonzero ? word[j] : k == lowest_nonzero ? 0u - word[j] : ~word[j];
        nonzero[j] = k < kLimbs && magnitude[j] != 0;  // beyond limb 67, a negative's complement
    }
    const int top = highest_limb(ballot_limbs(nonzero));
    const uint32_t word_top = word_at(magnitude, top), word_1 = word_at(magnitude, top - 1),
                   word_2 = word_at(magnitude, top - 2);
    if (lane == 0) {
        const int lowest = 32 * lowest_nonzero + cured_lowest_bit(lowest_word);  // negating keeps it
        out[0] = Acc(cured_exact_round_top(negative, top, word_top, word_1, word_2, lowest, to));
    }
}

// A state in shared or global memory, every limb written before a barrier (or a __syncwarp, by
// this warp) that this warp has passed.
template <class Acc>
__device__ __forceinline__ void round_state_by_warp(const int64_t *limbs, unsigned flags, cured_dtype to, Acc *out,
                                                    unsigned lane) {
    round_by_warp([&](int, int k) { return k < CURED_EXACT_LIMBS ? limbs[k] : int64_t(0); }, flags, to, out, lane);
}

// A state in the lanes' registers: limb 32 j + lane in limb[j] (0 beyond the last).
template <class Acc>
__device__ __forceinline__ void round_limbs_by_warp(const int64_t (&limb)[kStateSlots], unsigned flags, cured_dtype to,
                                                    Acc *out, unsigned lane) {
    round_by_warp([&](int j, int) { return limb[j]; }, flags, to, out, lane);
}

}  // namespace cured
