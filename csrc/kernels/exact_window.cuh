// exact_window.cuh: V10's fast window, which its sums along axes (v10_axis.cu) share: each thread's
// floating accumulators ("bins"), which take an element's bits exactly, three floating additions a
// bin, and the int64s they empty into. Why each step is exact: v10_exact.cu's header, level 1.
#pragma once

#include "exact_term.cuh"

namespace cured {

// The fast window of each floating input: the arithmetic type, the bins, their bits, and 2^kTop,
// the bound on |x|. Between two empties a bin takes at most (elements) x 2^(b + kBinBits), which
// must stay below 2^(b + p - 2) for the bin to stay in its binade: kEmptyElements x 2^kBinBits <=
// 2^(p - 2): 32 x 2^16 < 2^22 (float32), 64 x 2^15 < 2^22 (float16 in float32), 16 x 2^46 < 2^51
// (float64); V10's step is kEmptyElements elements a thread.
template <class In> struct window;
template <> struct window<float> {
    using T = float;
    static constexpr int kBins = 4, kBinBits = 16, kTop = 12, kPrecision = 24, kEmptyElements = 32;
};
template <> struct window<__half> {
    using T = float;
    static constexpr int kBins = 4, kBinBits = 15, kTop = 16, kPrecision = 24, kEmptyElements = 64;
};
template <> struct window<double> {
    using T = double;
    static constexpr int kBins = 3, kBinBits = 46, kTop = 24, kPrecision = 53, kEmptyElements = 16;
};

template <class W> __host__ __device__ constexpr int bin_exponent(int k) { return W::kTop - (k + 1) * W::kBinBits; }
// The bit of the exact state (bit 0: 2^-1074) that is bin k's last place.
template <class W> __host__ __device__ constexpr int unit_bit(int k) {
    return W::kTop - (k + 1) * W::kBinBits - CURED_EXACT_UNIT_EXP;
}
// The least e for which every In of 2^e <= |x| < 2^kTop lies whole in the bins: its last place,
// 2^(e - significand bits + 1), at or above the lowest bin's (float32 2^-29, float64 2^-62, float16
// every value).
template <class In>
constexpr int kWindowLowExponent = bin_exponent<window<In>>(window<In>::kBins - 1) + kSignificandBits<In> - 1;

// 2^e as T, exactly (e within T's normal range).
template <class T> __device__ __forceinline__ T pow2(int e) {
    if constexpr (sizeof(T) == 4) return __uint_as_float(uint32_t(e + 127) << 23);
    else return __longlong_as_double(int64_t(e + 1023) << 52);
}

// A thread's fast window: the bins, and the int64s that the bins empty into.
template <class In> struct thread_window {
    using W = window<In>;
    using T = typename W::T;
    T bin[W::kBins];
    int64_t whole[W::kBins];

    __device__ __forceinline__ static T start(int k) { return T(1.5) * pow2<T>(bin_exponent<W>(k) + W::kPrecision - 1); }

    // The bins and their int64s, empty.
    __device__ __forceinline__ void reset() {
        restart_bins();
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) whole[k] = 0;
    }

    // The bins back at their start, the int64s kept: a step whose deposits are undone (they left a
    // remainder) must not take the steps before it, already emptied into the int64s, with it.
    __device__ __forceinline__ void restart_bins() {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) bin[k] = start(k);
    }

    // Whether x lies whole in the bins (a NaN does not).
    __device__ __forceinline__ static bool holds(T x) {
        const T magnitude = fabs(x);
        return magnitude >= pow2<T>(kWindowLowExponent<In>) && magnitude < pow2<T>(W::kTop);
    }

    // x's bits into the bins; returns the remainder the bins cannot hold (0 where holds(x)).
    __device__ __forceinline__ T deposit(T x) {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const T s = bin[k] + x;
            x -= s - bin[k];
            bin[k] = s;
        }
        return x;
    }

    // Each bin's content, an exact integer number of its last place, into its int64.
    __device__ __forceinline__ void empty_bins() {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const T units = (bin[k] - start(k)) * pow2<T>(-bin_exponent<W>(k));
            if constexpr (sizeof(T) == 4) whole[k] += __float2int_rn(units);
            else whole[k] += __double2ll_rn(units);
            bin[k] = start(k);
        }
    }

    // The int64s, summed over the warp (which must fit an int64), into the warp's state (by lane
    // 0), and cleared; all lanes call it, between __syncwarp()s.
    __device__ __forceinline__ void flush(unsigned long long *limbs, unsigned lane) {
#pragma unroll
        for (int k = 0; k < W::kBins; ++k) {
            const int64_t v = bin_warp_sum(k);
            if (lane == 0 && v != 0) add_term<false>(limbs, term(k, v, 0));
        }
    }

  protected:
    __device__ __forceinline__ int64_t bin_warp_sum(int k) {
        const int64_t v = warp_sum(whole[k]);
        whole[k] = 0;
        return v;
    }
    // v units of bin k's last place, times 2^shift.
    __device__ static cured_exact_term term(int k, int64_t v, int shift) {
        const bool negative = v < 0;
        return cured_exact_term{negative, negative ? uint64_t(0) - uint64_t(v) : uint64_t(v),
                                bin_exponent<W>(k) + shift - CURED_EXACT_UNIT_EXP};
    }
};

}  // namespace cured
