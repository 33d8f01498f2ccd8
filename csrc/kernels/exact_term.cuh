// exact_term.cuh: what V10's kernels share on the GPU: an element into an exact state (exact.h:
// 32-bit limbs in int64), as they add it where its bits take the slow path (decoded into a term,
// then added limb by limb), and the warp's reductions of integers and flags.
#pragma once

#include "../exact.h"
#include "common.cuh"

namespace cured {

// A finite term into a state, limb by limb: with shared-memory atomic adds where several lanes add
// at once (a 64-bit one is a compare-and-swap loop on sm_90), plainly where one lane adds alone.
template <bool Atomic> __device__ __forceinline__ void add_term(unsigned long long *limbs, cured_exact_term term) {
    int64_t piece[3];
    const int first = cured_exact_pieces(term, piece);
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        if (piece[k] == 0 || first + k >= CURED_EXACT_LIMBS) continue;
        if constexpr (Atomic) atomicAdd(limbs + first + k, (unsigned long long)piece[k]);
        else limbs[first + k] += (unsigned long long)piece[k];
    }
}

// 16-bit digits of a state in int32 words (word k: bits 16k up; limb j: words 2j and 2j + 1), into
// which a significand goes in pieces below 2^16 by native 32-bit shared atomic adds: one
// instruction each on sm_90, where a 64-bit one, as add_term's, is a compare-and-swap loop. A word
// takes at most 2^15 pieces before its owner moves it into a state (flush_words).
constexpr int kStateWords = 2 * CURED_EXACT_LIMBS;

// A float type's significand bits (its implicit bit included), and the pieces its significand takes
// at any shift: 2 for float16, 3 for float32, 5 for float64.
template <class T> constexpr int kSignificandBits = std::is_same_v<T, __half> ? 11 : std::is_same_v<T, float> ? 24 : 53;
template <class T> constexpr int kWordPieces = (kSignificandBits<T> + 15 + 15) / 16;
static_assert(kStateWords >= 2045 / 16 + kWordPieces<double>, "the pieces of the largest float64 (place 2045) fit");

// magnitude x 2^place (place: the position of its lowest bit in the state, bit 0 at 2^-1074), with
// `sign` 1 or -1, into the words.
template <int Pieces>
__device__ __forceinline__ void add_to_words(int32_t *words, uint64_t magnitude, uint32_t place, int sign) {
    const uint32_t first = place / 16, shift = place % 16;
    const uint64_t above = magnitude >> (16 - shift);  // the significand's bits above the first piece
    int32_t *const w = words + first;
    atomicAdd(w, sign * int32_t(uint32_t(magnitude << shift) & 0xffffu));
#pragma unroll
    for (int k = 1; k < Pieces; ++k) atomicAdd(w + k, sign * int32_t(uint32_t(above >> (16 * (k - 1))) & 0xffffu));
}

// A warp's words into its state, each limb by one lane (plain adds), and cleared; all 32 lanes call
// it, after a __syncwarp that orders the words' and the state's other writers.
__device__ __forceinline__ void flush_words(int32_t *words, unsigned long long *state, unsigned lane) {
    for (int j = int(lane); j < CURED_EXACT_LIMBS; j += 32) {
        const int64_t v = int64_t(words[2 * j]) + int64_t(words[2 * j + 1]) * 65536;
        words[2 * j] = words[2 * j + 1] = 0;
        if (v != 0) state[j] += (unsigned long long)v;
    }
    __syncwarp();
}

// float32 elements (float16 widened) added exactly into 16 float64 bins of each thread's own, bin b
// for the float32 exponents 16b to 16b + 15: multiples of 2^(16b - 150) below 2^(16b - 111), so
// that float64 adds 2^14 of them without a rounding (below 2^53 units). A conversion, a shared load,
// an add and a store an element, no branch; [bin][thread], so that a warp's 32 threads hit 32
// different banks. V10's level 2 and its sums along axes each add their own flush.
template <int Threads> struct float32_bins {
    static constexpr int kBins = 16;
    static constexpr int kUnitExponent = -150;  // bin b's unit: 2^(kUnitExponent + 16b)
    double bin[kBins][Threads];

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int b = 0; b < kBins; ++b) bin[b][threadIdx.x] = 0.0;
    }
    // A finite float32 (or a float16, widened) from its bits.
    __device__ __forceinline__ void add_finite(uint32_t bits) {
        (&bin[0][threadIdx.x])[((bits >> 27) & 15) * Threads] += double(__uint_as_float(bits));
    }
};

// Any element cured reads as a term: 1 with *term set, or 0 where it adds nothing (a NaN or an
// infinity, which raise their flags, or an integer 0). Floats raise CURED_EXACT_SIGN_CLEAR where
// their sign bit is clear, integers always (an integer sum is never -0.0).
template <class In> __device__ __forceinline__ int term_of(In x, cured_exact_term *term, unsigned *flags) {
    constexpr int kFraction = kSignificandBits<In> - 1;  // a float's stored significand bits
    if constexpr (std::is_same_v<In, __half>)
        return cured_exact_decode_ieee(__half_as_ushort(x), 16, kFraction, term, flags);
    else if constexpr (std::is_same_v<In, float>)
        return cured_exact_decode_ieee(__float_as_uint(x), 32, kFraction, term, flags);
    else if constexpr (std::is_same_v<In, double>)
        return cured_exact_decode_ieee(uint64_t(__double_as_longlong(x)), 64, kFraction, term, flags);
    else {
        *flags |= CURED_EXACT_SIGN_CLEAR;
        uint64_t magnitude;
        bool negative = false;
        if constexpr (std::is_same_v<In, bool8>) {
            magnitude = x.byte != 0;
        } else {
            negative = std::is_signed_v<In> && x < In(0);
            magnitude = negative ? uint64_t(0) - uint64_t(int64_t(x)) : uint64_t(x);
        }
        *term = cured_exact_term{negative, magnitude, -CURED_EXACT_UNIT_EXP};
        return magnitude != 0;
    }
}

// The sum of v over the warp, in every lane, where the sum fits an int64. sm_80 up reduces a warp
// in one instruction (redux.sync) on 32-bit integers: v in parts of 27, 27 and 10 bits, whose sums
// over 32 lanes fit 32 bits, three independent reductions where 64-bit shuffles took five rounds of
// two shuffles and an add each, one after another. Before sm_80, those shuffles.
__device__ __forceinline__ int64_t warp_sum(int64_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr unsigned kPart = (1u << 27) - 1;
    const unsigned low = __reduce_add_sync(0xffffffffu, unsigned(v) & kPart);
    const unsigned middle = __reduce_add_sync(0xffffffffu, unsigned(uint64_t(v) >> 27) & kPart);
    const int high = __reduce_add_sync(0xffffffffu, int(v >> 54));  // arithmetic: in [-2^9, 2^9)
    return int64_t(uint64_t(low) + (uint64_t(middle) << 27) + (uint64_t(int64_t(high)) << 54));  // mod 2^64
#else
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
#endif
}

// The OR of flags over the warp, in every lane.
__device__ __forceinline__ unsigned warp_or(unsigned flags) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_or_sync(0xffffffffu, flags);
#else
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) flags |= __shfl_xor_sync(0xffffffffu, flags, offset);
    return flags;
#endif
}

}  // namespace cured
