// V10 along axes: cured.fsum(a, axis=...) of a device array, each output the exact sum of its
// elements, rounded once.
//
// What changed from V10: many sums instead of one. The host makes the reduced elements of each
// output consecutive first (device_sum's C-order copy, then a copy with the reduced axes last where
// they are not already: module_axes.c), so the input here is rows: `rows` outputs of `length` elements.
// A warp takes a row, or a segment of one where there are few long rows (so that every SM has
// work), 32 x kLoads elements at a time (32 bytes a lane, loaded before any is added), into exact
// integers of its own. A float that lies whole in the thread's fast window (exact_window.cuh, V10's
// level 1: float32 2^-29 <= |x| < 2^12, float64 2^-62 <= |x| < 2^24, every float16) goes into its
// bins, in registers; other floats, where float32 and float16 segments have 1024 elements or more,
// into each thread's float64 bins (row_bins, as V10's level 2), else into the warp's 16-bit digits
// with native 32-bit shared atomic adds (exact_term.cuh, as V10's float64 words); integers into the
// warp's exact state (exact.h: 68 limbs of 32 bits) with 64-bit atomic adds. The warp then carries
// its state and rounds it at once, a row of one segment (exact_round.cuh, V10's: carry lookahead
// over the limbs, three a lane), or segments leave their normalized states in the workspace, and a
// second launch adds each row's states, limb by limb, in the lanes' registers, and rounds them so.
// The answer is unique, so it is the CPU's (exact_cpu.c), whatever the segments. A float16 or float32
// result is written as float32, which holds it exactly, a float64 one as float64 (cured_exact_rows_acc).
// Rows of one segment and at most 32 x kLaneRowLength elements go first to lanes: a lane a row of
// up to kLaneRowLength elements (32 rows to a warp), else the fewest lanes, a power of two, that
// take at most kLaneRowLength elements each, and more lanes where there are too few rows to keep
// every SM busy; added in float64 where that stays exact (thread_row: TwoSum finds each addition's
// error, the row's lanes' sums added by TwoSum too) and rounded by one conversion; float32 and
// float64 rows of up to 128 elements that a lane takes alone and that lost bits then by the lane,
// its elements (those near the largest, in rows of more than 16 or 12) as an exact float64
// expansion of up to 12 terms and the others as a bound (lane_expansion), rounded once (into float32
// by comparing the sum with the float32 midpoints beside a guess, into float64 as math.fsum rounds)
// where the bound cannot change that rounding; only the rows left (or holding a NaN or an infinity)
// take the warp's exact state. A warp's per-row cost (clearing, flushing and
// rounding its state) had made 2^24 rows of 16 float32 take 50 times V9's time, and 2^20 rows of
// 257 float32 three times; over the whole exponent range, where float64 loses bits, 2^26 rows of 3
// float32 took 68 ms (V9 0.37).
//
// Exact for rows of fewer than 2^62 elements: a segment holds at most 2^30 (each limb of its
// state then stays below 2^62), and a row's normalized states add below 2^63.
//
// Napkin math: a float in the window is its test and three floating additions a bin (float32 12,
// float64 9), registers alone; a float32 element in the bins is a conversion, a shared load, a
// float64 add and a store; in the words, a decode and three 32-bit shared atomic adds (float64:
// five), which the lanes of a warp run one after another where they add into the same word
// (elements of nearby binades); a segment also costs flushing the window, the bins or the words into
// the state, clearing its 68 limbs, and the warp's carries and rounding. A short row on a thread is
// six float64 additions an element (the sum and TwoSum's error; float64, twelve), no memory but the
// row's: its 2^24 rows of 16 float32 read at 0.95 of V9's bandwidth.
//
// Evidence (H100, 2026-11-26 and 27, device time; each change built beside the kernel before it and
// run in turns with it by scripts/probes/v10_axis_speed.py (whole calls, copies included),
// v10_short_rows.py and v10_expansion.py (the kernels alone, into a device out=); V9's axis kernels
// on the same arrays): every element through the warp's state (64-bit shared atomic adds, which
// sm_90 runs as compare-and-swap loops) read 87 to 131 GB/s where V9 read 1389 to 3693 (H200). The
// window, the bins and the words then made standard-normal (4096, 4096) float64 along 1 0.071 to
// 0.080 ms (V9 0.073) and, with a block adding a row's segment states, (16, 2^24) float32 along 1
// 0.57 ms (V9 0.38 to 0.39); short rows on threads took 2^24 rows of 16 float32 from 19.5 ms to
// 0.41 (V9 0.39), and lane expansions took full-range rows, which lose bits in float64, from 20.0
// to 2.2 ms (2^24 rows of 16 float32) and from 68.3 to 3.1 (2^26 rows of 3). Each change with its
// runs, and what was tried and not kept: docs/v10.md, "How the axis kernel came to be".

#include <array>
#include <cfloat>
#include <utility>

#include "../axis.h"
#include "../exact.h"
#include "exact_round.cuh"
#include "exact_term.cuh"
#include "exact_window.cuh"
#include "tiles.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kLimbs = CURED_EXACT_LIMBS;
constexpr int64_t kUnitsWanted = int64_t(1) << 15;  // (row, segment) pairs that keep every SM busy
constexpr int64_t kShortestSegment = 4096;
constexpr int64_t kLongestSegment = int64_t(1) << 30;
constexpr int64_t kLaneRowLength = 256;  // elements a lane adds of a row summed in float64 first (thread_row)

struct segments_plan {
    int64_t segments, segment;  // segments a row, elements a segment (the last may be shorter)
    int row_lanes;              // lanes a row where rows of one segment are summed in float64 first, else 0
};

segments_plan segments_of(int64_t rows, int64_t length) {
    int64_t segments = 1;
    if (rows < kUnitsWanted && length > kShortestSegment)
        segments = std::min((length + kShortestSegment - 1) / kShortestSegment, (kUnitsWanted + rows - 1) / rows);
    segments = std::max(segments, (length + kLongestSegment - 1) / kLongestSegment);
    const int64_t segment = (length + segments - 1) / segments;
    // The fewest lanes, a power of two, that take at most kLaneRowLength elements each, or more
    // where the rows would leave warps idle (the warps then sum the rows that lost bits in turn).
    int row_lanes = 0;
    if (segments == 1 && length <= 32 * kLaneRowLength)
        for (row_lanes = 1;
             row_lanes < 32 && (row_lanes * kLaneRowLength < length || rows * row_lanes < 32 * kUnitsWanted);)
            row_lanes *= 2;
    return {(length + segment - 1) / segment, segment, row_lanes};
}

// A (row, segment) pair's state, with its lanes' flags: rounded into out[row] (one segment a row)
// or stored whole, normalized, with the warp's flags, for the combine.
template <class Out>
__device__ __forceinline__ void finish(const unsigned long long *state, unsigned flags, unsigned lane, int64_t row,
                                       int64_t unit, bool alone, cured_dtype result, Out *out,
                                       cured_exact_state *states) {
    const auto *const limbs = reinterpret_cast<const int64_t *>(state);
    flags = cured::warp_or(flags) | CURED_EXACT_NONEMPTY;
    __syncwarp();  // every lane's adds into the state are done
    if (alone) cured::round_state_by_warp(limbs, flags, result, out + row, lane);
    else cured::round_state_by_warp(limbs, flags, CURED_EXACT_STATE, reinterpret_cast<double *>(states + unit), lane);
    __syncwarp();  // before the state is cleared for the next pair
}

// float32 and float16 into each thread's own float64 bins (exact_term.cuh), as V10's level 2 does
// (v10_exact.cu, thread_bins), where the warp's lanes added into the same few limbs of its state
// (compare-and-swap loops, one lane at a time). 32 KiB a block.
struct row_bins : cured::float32_bins<kThreads> {
    static constexpr int kFlushSteps = 1 << 14;  // elements a thread adds between two flushes

    // An element, or its flags: a NaN's, an infinity's, a clear sign bit's.
    template <class In> __device__ __forceinline__ void add(In element, unsigned *flags) {
        if constexpr (std::is_same_v<In, float> || std::is_same_v<In, __half>) {
            const uint32_t bits = __float_as_uint(float(element));
            if (((bits >> 23) & 255) == 255) {
                cured_exact_term term;
                cured::term_of(element, &term, flags);
                return;
            }
            if (bits >> 31 == 0) *flags |= CURED_EXACT_SIGN_CLEAR;
            add_finite(bits);
        }
    }
    // Each bin, an integer number of its unit, summed over the warp (below 2^58) into the warp's state
    // by lane 0, and cleared; all 32 lanes call it.
    __device__ __forceinline__ void flush(unsigned long long *state, unsigned lane) {
#pragma unroll
        for (int b = 0; b < kBins; ++b) {
            double &mine = bin[b][threadIdx.x];
            if (!__any_sync(0xffffffffu, mine != 0.0)) continue;
            const int unit = kUnitExponent + 16 * b;
            const double to_units = __longlong_as_double(int64_t(1023 - unit) << 52);  // 2^-unit
            const int64_t v = cured::warp_sum(__double2ll_rn(mine * to_units));
            mine = 0.0;
            if (lane == 0 && v != 0)
                cured::add_term<false>(state, cured_exact_term{v < 0, v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v),
                                                               unit - CURED_EXACT_UNIT_EXP});
        }
    }
};

// A row summed by one lane (or a few, merged), in float64, for as long as that is exact: each
// addition's rounding error is found by TwoSum (exact.h's cured_two_sum: s = a + b, b' = s - a, e =
// (a - (s - b')) + (b - b'), and a + b = s + e exactly without overflow), and a row whose errors
// are all zero has its exact sum in `sum`. float64 elements keep their errors' sum as well (`low`),
// exact while its own errors are zero, so that sum + low is the row's sum. A row stays exact while
// its partial sums fit 53 bits (float64: while its errors' sum does): every finite float16 row of
// up to 256 elements, float32 rows whose elements' binades lie within 29 - log2(length) of each
// other, float64 rows within about 53 - log2(length): standard-normal rows, all but a few. A NaN,
// an infinity or an overflow makes an error NaN, which is not zero: such rows, and rows that lost
// bits, go through the warp's exact state (exact_row_segments). `sum` starts at -0.0, which leaves
// it -0.0 only where every element is -0.0, as IEEE's sum and the exact state's rounding do.
// tests/test_exact.py checks a model of it (thread_row_model) against the exact reference on the
// CPU.
template <class In> struct thread_row {
    double sum = -0.0, low = -0.0;
    bool exact = true;

    __device__ __forceinline__ void add(In element) {
        double error;
        sum = cured_two_sum(sum, double(element), &error);
        if constexpr (std::is_same_v<In, double>) {
            double lost;
            low = cured_two_sum(low, error, &lost);
            exact = exact && lost == 0.0;
        } else {
            exact = exact && error == 0.0;
        }
    }
    // The sums of a row's `lanes` lanes (a power of two, neighbours in the warp) added together by
    // TwoSum as well, in a butterfly over the warp's shuffles: the first lane of the row ends with
    // its sum and whether every addition of the row's, its own and its partners', was exact. All
    // 32 lanes call it.
    __device__ __forceinline__ void merge(int lanes) {
        for (int offset = 1; offset < lanes; offset *= 2) {
            const double other = __shfl_xor_sync(0xffffffffu, sum, offset);
            const bool other_exact = __shfl_xor_sync(0xffffffffu, exact, offset);
            double error;
            sum = cured_two_sum(sum, other, &error);
            if constexpr (std::is_same_v<In, double>) {
                double lost_low, lost_error;
                low = cured_two_sum(low, __shfl_xor_sync(0xffffffffu, low, offset), &lost_low);
                low = cured_two_sum(low, error, &lost_error);
                exact = exact && other_exact && lost_low == 0.0 && lost_error == 0.0;
            } else {
                exact = exact && other_exact && error == 0.0;
            }
        }
    }
    // The exact sum rounded once into `result`, held in Out (float32 holds a float16 or float32
    // result exactly): sum + low is one rounding of the exact sum into float64, and a float32 or
    // float16 row's exact sum lies in `sum`, which one conversion rounds.
    template <class Out> __device__ __forceinline__ Out rounded(cured_dtype result) const {
        if constexpr (std::is_same_v<In, double>) return low == 0.0 ? sum : __dadd_rn(sum, low);
        else if (result == CURED_FLOAT16) return Out(__half2float(__double2half(sum)));
        else return Out(sum);  // float32: one rounding; float64: exact
    }
};

// Whether a thread may sum a row of In into Out: floats, and a float64 row only into a float64
// result (sum + low rounds once into float64, not into float32 or float16).
template <class In, class Out>
constexpr bool kByThreads = cured::is_floating<In> && (!std::is_same_v<In, double> || std::is_same_v<Out, double>);

// A row that lost bits in thread_row, summed again by its lane, exactly, as a float64 expansion
// (Shewchuk, "Adaptive precision floating-point arithmetic", 1997): up to kTerms float64s, in
// increasing magnitude, whose bits do not overlap and whose sum is the expansion's elements'. Each
// element adds by Grow-Expansion (TwoSum with each term in turn, the terms its errors, its last sum
// the new top), and the lowest zero among the kTerms + 1 results is dropped; a row that needs more
// terms, or holds a NaN or an infinity, is left to the warp's exact state. TwoSum loses nothing,
// subnormals included, unless it overflows, which only float64 sums near DBL_MAX do (add checks).
// Short rows go into it whole; in longer ones only the elements within 2^-128 of the row's largest
// (lane_row_sum), the others' magnitudes summed into a bound, rounding up, and a rounding is kept
// only where the bound cannot change it. Over the whole exponent range (float32's 277 binades, float64's 2098) a row's
// exact sum needs a term for nearly every element, more than kTerms in a float64 row of 16, but its
// rounding only the few elements near the largest, as the rest lie far below its last place: the
// model in tests/test_exact.py fits all but about 1 in 200 full-range rows of up to 256 elements.
// Where thread_row costs six float64 additions an element, this costs 6 x kTerms an element near
// the largest; a warp's exact state a row (clearing, flushing and rounding 68 limbs) cost far more
// for rows this short: docs/v10.md has the figures.
struct lane_expansion {
    static constexpr int kTerms = 12;
    double term[kTerms] = {};
    bool exact = true;

    __device__ __forceinline__ void add(double x) {
        double carry = x;
#pragma unroll
        for (int k = 0; k < kTerms; ++k) carry = cured_two_sum(carry, term[k], &term[k]);
        bool dropped = false;  // whether the lowest zero among the results is gone yet
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            dropped = dropped || term[k] == 0.0;
            if (dropped) term[k] = k + 1 < kTerms ? term[k + 1] : carry;
        }
        // TwoSum's overflow leaves an infinity or a NaN in the carry, which is the top term or lost
        exact = exact && (dropped ? isfinite(term[kTerms - 1]) : carry == 0.0);
    }
    // The sign of the exact sum less m: the sign of the top non-zero term of Grow-Expansion's result.
    __device__ __forceinline__ int compare(double m) const {
        double carry = -m;
        int sign = 0;
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            double error;
            carry = cured_two_sum(carry, term[k], &error);
            if (error != 0.0) sign = error > 0.0 ? 1 : -1;
        }
        return carry != 0.0 ? (carry > 0.0 ? 1 : -1) : sign;
    }
    // The exact sum plus an unknown r, |r| <= rest, rounded once to float32, to nearest, ties to
    // even, into *out; false (and *out untouched) where r could change that rounding, or the bracket
    // below was not found in a few steps, which the tests never saw. The float32 nearest the terms'
    // float64 sum (top down) is a guess; the float32 midpoints on each side of it, each exact in
    // float64, are compared with the exact sum, the guess moved while the sum lies beyond one, and a
    // sum on a midpoint takes the neighbour whose last bit is even. Past FLT_MAX the midpoint is
    // FLT_MAX + 2^103, IEEE's overflow threshold, and +inf is the neighbour (the even one). With a
    // bound, the sum must lie further than it inside both midpoints (each moved toward the guess by
    // the bound, rounded toward the guess). A sum between -2^-149 and 2^-149 is 0 (multiples of
    // 2^-149): +0.0, for a row that reaches here has non-zero elements.
    __device__ __forceinline__ bool round_to_float32(double rest, float *out) const {
        constexpr double kOverflow = double(FLT_MAX) + 0x1p103;
        const auto midpoint = [](float a, float b) {
            return isinf(a) || isinf(b) ? copysign(kOverflow, double(a) + double(b)) : (double(a) + double(b)) * 0.5;
        };
        const auto even = [](float a, float b) { return __float_as_uint(a) % 2 == 0 ? a : b; };
        double guess = 0.0;
#pragma unroll
        for (int k = kTerms - 1; k >= 0; --k) guess += term[k];
        float f = __double2float_rn(guess);
        for (int tries = 0; tries < 4; ++tries) {
            const float up = nextafterf(f, INFINITY), down = nextafterf(f, -INFINITY);
            const int above = f == INFINITY ? -1 : compare(midpoint(f, up));
            const int below = f == -INFINITY ? 1 : compare(midpoint(f, down));
            if (above > 0) {
                f = up;
            } else if (below < 0) {
                f = down;
            } else if (rest > 0.0) {
                if ((f != INFINITY && compare(__dsub_rd(midpoint(f, up), rest)) >= 0) ||
                    (f != -INFINITY && compare(__dadd_ru(midpoint(f, down), rest)) <= 0))
                    return false;
                *out = f + 0.0f;
                return true;
            } else {
                *out = above == 0 ? even(f, up) : below == 0 ? even(f, down) : f + 0.0f;
                return true;
            }
        }
        return false;
    }
    // The exact sum plus an unknown r, |r| <= rest, rounded once to float64, to nearest, ties to even,
    // into *out; false (and *out untouched) where r could change that rounding, or the sum lies near
    // DBL_MAX. The terms are added top down (CPython's math.fsum, whose partials are Grow-Expansion's
    // too) until an addition is inexact, leaving hi + lo, then the terms below, whose sum has the
    // sign of the top non-zero one (the terms do not overlap) and lies below lo's last place; where
    // lo is half hi's last place (hi + 2 lo a float64) and the terms below share its sign, the sum is
    // past the midpoint and rounds away from hi. The sum's distance from hi is then |lo| within lo's
    // last place (or 0), and the rounding stands where that, plus rest, stays below half a place on
    // either side of the result (computed rounding up, with a margin). A zero sum is +0.0 (a row that
    // reaches here has non-zero elements).
    __device__ __forceinline__ bool round_to_float64(double rest, double *out) const {
        double hi = 0.0, lo = 0.0;
        int below = 0;  // the sign of the top non-zero term below the inexact addition
        bool inexact = false;
#pragma unroll
        for (int k = kTerms - 1; k >= 0; --k) {
            if (!inexact) {
                hi = cured_two_sum(hi, term[k], &lo);
                inexact = lo != 0.0;
            } else if (below == 0 && term[k] != 0.0) {
                below = term[k] > 0.0 ? 1 : -1;
            }
        }
        double distance = fabs(lo);
        if (inexact && below != 0 && (lo > 0.0) == (below > 0)) {
            const double twice = lo * 2.0, away = hi + twice;
            if (away - hi == twice) hi = away;  // lo was half a place: the sum is beyond the midpoint
        }
        if (!isfinite(hi) || fabs(hi) == DBL_MAX) return false;
        if (rest > 0.0) {
            const double half_up = (nextafter(hi, double(INFINITY)) - hi) * 0.5,
                         half_down = (hi - nextafter(hi, -double(INFINITY))) * 0.5;
            distance = __dadd_ru(__dmul_ru(distance, 1.0 + 0x1p-50), rest);
            if (!(distance < fmin(half_up, half_down))) return false;
        }
        *out = hi + 0.0;
        return true;
    }
};

// Calls add(x) for each element of a row a lane takes alone while going(): a 16-byte vector at a
// time where the row is aligned, else an element at a time (a batch's registers would spill): the
// same loads as thread_row's, which took the batches.
template <class In, class Going, class Add>
__device__ __forceinline__ void each_row_element(const In *elements, int64_t length, bool aligned, Going going, Add add) {
    constexpr int kVector = int(16 / sizeof(In));
    if (aligned) {
        for (int64_t k = 0; k < length && going(); k += kVector) {
            In vector[kVector];
            cured::load_vector<In, true>(elements + k, vector);
#pragma unroll
            for (int j = 0; j < kVector; ++j) add(vector[j]);
        }
    } else {
        for (int64_t k = 0; k < length && going(); ++k) add(elements[k]);
    }
}

// Rows of up to this many elements go into a lane's expansion whole, in one pass: a float64 row of
// up to kTerms elements always fits, a full-range float32 row of 16 all but about one in 2000; where
// they fit whole, the pass for the largest only cost (H100, 2026-11-27 06:35 UTC: full-range float32
// rows of 3, 8 and 16 3.1, 1.3 and 2.2 ms in one pass, 4.3 to 4.6, 1.9 and 2.6 with the bound).
template <class In> constexpr int64_t kWholeRowLength = std::is_same_v<In, float> ? 16 : 12;
// Longer rows go to the warps: a lane's three uncoalesced reads of its row cost more there (2^20
// full-range rows of 256, float32 1.9 ms by the warps, 2.1 by the lanes; float64 1.8 and 2.4).
constexpr int64_t kExpansionRowLength = 128;

// A float32 or float64 row that lost bits in thread_row, read again by its lane (from the caches):
// up to kWholeRowLength<In> elements, every one into `expansion`; longer rows, a first pass finds
// the largest magnitude, the second adds each element within 2^-128 of it to `expansion` and the
// others' magnitudes into *rest, rounding up (lane_expansion says why). false, for the warp's exact
// state: a NaN or an infinity (their Grow-Expansion leaves no finite top term), or more terms than
// it has.
template <class In>
__device__ __forceinline__ bool lane_row_sum(const In *elements, int64_t length, bool aligned, lane_expansion *expansion,
                                             double *rest) {
    double near = 0.0;  // every element, where the row goes whole
    if (length > kWholeRowLength<In>) {
        double largest = 0.0;
        bool finite = true;
        each_row_element(elements, length, aligned, [&] { return finite; }, [&](In x) {
            const double magnitude = fabs(double(x));
            finite = finite && magnitude <= DBL_MAX;  // false for NaN too
            largest = fmax(largest, magnitude);
        });
        if (!finite) return false;
        near = largest * 0x1p-128;
    }
    each_row_element(elements, length, aligned, [&] { return expansion->exact; }, [&](In x) {
        const double element = double(x);
        if (near == 0.0 || fabs(element) >= near) expansion->add(element);  // a NaN too, where near is 0
        else *rest = __dadd_ru(*rest, fabs(element));
    });
    return expansion->exact;
}

enum class first_pass { none, lane, lanes };  // rows summed in float64 first: not, a lane a row, several

// Whether rows that lost bits take a lane_expansion before the warp's state: rows a lane takes
// alone (2^20 rows or more, of up to kExpansionRowLength elements), float32 elements into a float32
// result (rounded by the midpoints), float32 and float64 elements into a float64 result; float16
// rows never lose bits there, and float32 rows' float16 results go to the warp. Where a row has
// several lanes, merging their expansions over the warp's shuffles cost more than the warps, and
// float32 rows read again by their first lane alone did too (docs/v10.md).
template <class In, class Out, first_pass Pass>
constexpr bool kByExpansion = Pass == first_pass::lane && (std::is_same_v<In, float> || std::is_same_v<In, double>) &&
                              (std::is_same_v<Out, double> || std::is_same_v<In, float>);

// Each (row, segment) pair to a warp, in turn over the grid, kLoads steps of 32 elements at a time,
// whose loads a lane issues before it adds any (32 bytes in flight a lane, where one step's load
// waited on memory alone). Where a float goes: into the thread's fast window (exact_window.cuh, as
// V10's level 1: three floating additions a bin, registers alone) where it lies whole there; else
// into the warp's 16-bit words (exact_term.cuh), or, in float32 and float16 segments of at least
// kBinsFrom elements, into the thread's bins (row_bins), whose flush takes more than the words'
// where a segment spans many binades. Integers (up to 64 bits at one place) go into the warp's
// state. Pass (rows of one segment and at most 32 x kLaneRowLength elements: plan.row_lanes): 32 /
// plan.row_lanes rows to a warp, plan.row_lanes lanes a row, first in float64 (thread_row), then
// (float32 rows a lane takes alone) the rows that lost bits by the lane's expansion (lane_expansion),
// then the rows whose sum did not stay exact by the warp, one after another, while their bytes are in
// the caches. Instantiations of their own, so that the warps' kernel keeps its registers and the
// occupancy that goes with them (docs/v10.md), and a lane a row keeps its own code
// (float16: 80 registers, where several lanes a row take 89).

// Where a lane's expansion follows its row (kByExpansion), four blocks an SM are asked for, as
// without it: its twelve terms took the float32 results' kernel from 64 registers to 81 and the
// float64 results' to 70 (three blocks an SM), and bounded, ptxas spills 8 to 20 bytes around it,
// outside its loops.
template <class In, class Out, first_pass Pass>
__global__ void __launch_bounds__(kThreads, kByExpansion<In, Out, Pass> ? 4 : 0)
    exact_row_segments(const In *in, int64_t rows, int64_t length, segments_plan plan, cured_dtype result, Out *out,
                       cured_exact_state *states) {
    constexpr bool kHasBins = std::is_same_v<In, float> || std::is_same_v<In, __half>, kHasWords = cured::is_floating<In>;
    constexpr int kLoads = int(32 / sizeof(In));
    using W = cured::window<std::conditional_t<kHasWords, In, float>>;
    // The window empties its bins every kEmptyLoads loads (a step of V10's), and its int64s go into
    // the state with the words or the bins: each takes below 2^kBinBits a step, and the warp's sum of
    // them must fit an int64.
    constexpr int kEmptyLoads = W::kEmptyElements / kLoads;
    constexpr int kWordSteps = 64;  // a step adds at most 32 pieces to a word
    static_assert(32 * kWordSteps <= (1 << 15), "a word takes at most 2^15 pieces between flushes");
    static_assert(W::kEmptyElements % kLoads == 0 && kWordSteps % kLoads == 0 && row_bins::kFlushSteps % kLoads == 0,
                  "empties and flushes between loads");
    static_assert(int64_t(32) * (kHasBins ? row_bins::kFlushSteps : kWordSteps) <= int64_t(1) << (63 - W::kBinBits),
                  "a warp's window int64s add in an int64 between flushes");
    constexpr int64_t kBinsFrom = 1024;
    __shared__ unsigned long long warp_limbs[kWarps][kLimbs];
    __shared__ std::conditional_t<kHasBins, row_bins, char> bins_here;
    __shared__ int32_t warp_words[kWarps][kHasWords ? cured::kStateWords : 1];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned long long *const state = warp_limbs[warp];
    auto *const bins = reinterpret_cast<row_bins *>(&bins_here);
    int32_t *const words = warp_words[warp];
    if constexpr (kHasBins) bins->clear();  // each flush leaves them so
    if constexpr (kHasWords)
        for (int k = lane; k < cured::kStateWords; k += 32) words[k] = 0;
    std::conditional_t<kHasWords, cured::thread_window<In>, char> window;

    // One (row, segment) pair by the whole warp, into its exact state, rounded or stored.
    const auto sum_segment = [&](int64_t unit) {
        for (int k = lane; k < kLimbs; k += 32) state[k] = 0;
        __syncwarp();
        if constexpr (kHasWords) window.reset();
        const int64_t row = unit / plan.segments, begin = unit % plan.segments * plan.segment;
        const int64_t end = min(begin + plan.segment, length);
        const In *const elements = in + row * length;
        const bool by_bins = kHasBins && end - begin >= kBinsFrom;
        const int flush_steps = by_bins ? row_bins::kFlushSteps : kWordSteps;
        unsigned flags = 0;
        int steps = 0, loads = 0;
        for (int64_t step = begin; step < end; step += 32 * kLoads) {  // the whole warp, for its flushes
            In element[kLoads];
#pragma unroll
            for (int k = 0; k < kLoads; ++k)
                if (step + 32 * k + lane < end) element[k] = elements[step + 32 * k + lane];
#pragma unroll
            for (int k = 0; k < kLoads; ++k) {
                if (step + 32 * k + lane >= end) continue;
                if constexpr (kHasWords) {
                    const typename W::T x = element[k];
                    if (window.holds(x)) {
                        if (!signbit(x)) flags |= CURED_EXACT_SIGN_CLEAR;
                        window.deposit(x);
                        continue;
                    }
                }
                cured_exact_term term;
                if (by_bins) {
                    bins->add(element[k], &flags);
                } else if (cured::term_of(element[k], &term, &flags)) {
                    if constexpr (kHasWords)
                        cured::add_to_words<cured::kWordPieces<In>>(words, term.magnitude, uint32_t(term.position),
                                                                    term.negative ? -1 : 1);
                    else
                        cured::add_term<true>(state, term);
                }
            }
            if constexpr (kHasWords) {
                const bool last = step + 32 * kLoads >= end;
                if (++loads == kEmptyLoads || last) {
                    loads = 0;
                    window.empty_bins();
                }
                if ((steps += kLoads) == flush_steps || last) {
                    steps = 0;
                    __syncwarp();
                    if (by_bins) bins->flush(state, lane);
                    else cured::flush_words(words, state, lane);
                    window.flush(state, lane);
                }
            }
        }
        finish(state, flags, lane, row, unit, plan.segments == 1, result, out, states);
    };

    if constexpr (Pass != first_pass::none) {
        // Each lane loads 64 bytes of its row before it adds them (the DRAM's 64-byte access, where
        // rows lie apart; a row's lanes load neighbouring 16-byte vectors), by 16-byte vectors where
        // the input and the rows' bytes are aligned, then a vector or an element at a time; a lane
        // whose sum lost bits stops there.
        constexpr int kVector = int(16 / sizeof(In)), kBatch = int(64 / sizeof(In));
        const bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 && length % kVector == 0;
        const int lanes = Pass == first_pass::lane ? 1 : plan.row_lanes, rows_a_warp = 32 / lanes;
        const int member = int(lane) % lanes;  // this lane's place among its row's
        // Float32 and float64 rows that lost bits, summed again by their lane's expansion where they
        // are short enough and the result is float32 or float64 (the same for the whole warp).
        const bool by_expansion = kByExpansion<In, Out, Pass> &&
                                  (std::is_same_v<Out, double> || result == CURED_FLOAT32) && length <= kExpansionRowLength;
        const int64_t groups = (rows + rows_a_warp - 1) / rows_a_warp;
        for (int64_t group = int64_t(blockIdx.x) * kWarps + warp; group < groups;
             group += int64_t(gridDim.x) * kWarps) {
            const int64_t row = group * rows_a_warp + int(lane) / lanes;
            thread_row<In> sum;
            if (row < rows) {
                const In *const elements = in + row * length;
                int64_t k = 0;
                for (; k + int64_t(lanes) * kBatch <= length && sum.exact; k += int64_t(lanes) * kBatch) {
                    In batch[kBatch / kVector][kVector];
#pragma unroll
                    for (int v = 0; v < kBatch / kVector; ++v) {
                        const In *const vector = elements + k + int64_t(v * lanes + member) * kVector;
                        if (aligned) cured::load_vector<In, true>(vector, batch[v]);
                        else cured::load_vector<In, false>(vector, batch[v]);
                    }
#pragma unroll
                    for (int j = 0; j < kBatch; ++j) sum.add(batch[j / kVector][j % kVector]);
                }
                if (aligned) {  // the row's length is a multiple of kVector
                    for (k += int64_t(member) * kVector; k < length && sum.exact; k += int64_t(lanes) * kVector) {
                        In vector[kVector];
                        cured::load_vector<In, true>(elements + k, vector);
#pragma unroll
                        for (int j = 0; j < kVector; ++j) sum.add(vector[j]);
                    }
                } else {
                    for (k += member; k < length && sum.exact; k += lanes) sum.add(elements[k]);
                }
            }
            sum.merge(lanes);
            const bool first = member == 0 && row < rows;
            if (first && sum.exact) out[row] = sum.template rounded<Out>(result);
            unsigned left = __ballot_sync(0xffffffffu, first && !sum.exact);  // rows for the warp's exact state
            if constexpr (kByExpansion<In, Out, Pass>) {
                if (by_expansion && left != 0) {  // a lane a row: this lane's row is bit `lane`
                    const bool again = (left >> lane) & 1u;
                    lane_expansion expansion;
                    double rest = 0.0;
                    const bool summed = again && lane_row_sum(in + row * length, length, aligned, &expansion, &rest);
                    Out rounded;
                    bool done;
                    if constexpr (std::is_same_v<Out, float>) done = summed && expansion.round_to_float32(rest, &rounded);
                    else done = summed && expansion.round_to_float64(rest, &rounded);
                    if (done) out[row] = rounded;
                    left = __ballot_sync(0xffffffffu, again && !done);
                }
            }
            for (; left != 0; left &= left - 1)
                sum_segment(group * rows_a_warp + (__ffs(left) - 1) / lanes);
        }
        return;
    }
    const int64_t units = rows * plan.segments;
    for (int64_t unit = int64_t(blockIdx.x) * kWarps + warp; unit < units; unit += int64_t(gridDim.x) * kWarps)
        sum_segment(unit);
}

// Each row's segment states added, limb by limb (each below 2^32 once normalized), by a block a
// row: its warps take segments kWarps apart, each lane's limbs in registers with kCombineLoads
// segments' loads in flight, then warp 0 adds the warps' sums from shared memory and rounds them.
// (A warp a row, one segment after another, waited on memory for each: (16, 2^24) float32 along 1,
// 2048 segments a row, spent most of its time here.)
constexpr int kCombineLoads = 8;

template <class Out>
__global__ void __launch_bounds__(kThreads)
    exact_row_combine(int64_t rows, int64_t segments, const cured_exact_state *states, cured_dtype result, Out *out) {
    __shared__ int64_t warp_limbs[kWarps][cured::kStateSlots][32];
    __shared__ unsigned warp_flags[kWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const cured_exact_state *const first = states + row * segments;
        int64_t limb[cured::kStateSlots] = {};
        unsigned flags = 0;
#pragma unroll kCombineLoads
        for (int64_t s = warp; s < segments; s += kWarps) {
#pragma unroll
            for (int j = 0; j < cured::kStateSlots; ++j)
                if (32 * j + int(lane) < kLimbs) limb[j] += first[s].limb[32 * j + lane];
            flags |= unsigned(first[s].flags);
        }
#pragma unroll
        for (int j = 0; j < cured::kStateSlots; ++j) warp_limbs[warp][j][lane] = limb[j];
        if (lane == 0) warp_flags[warp] = flags;
        __syncthreads();
        if (warp == 0) {
#pragma unroll
            for (int j = 0; j < cured::kStateSlots; ++j) {
                limb[j] = 0;
                for (int w = 0; w < kWarps; ++w) limb[j] += warp_limbs[w][j][lane];
            }
            flags = 0;
            for (int w = 0; w < kWarps; ++w) flags |= warp_flags[w];
            cured::round_limbs_by_warp(limb, flags, result, out + row, lane);
        }
        __syncthreads();  // before the next row's sums overwrite them
    }
}

// A grid for `units` warps' work: at most two waves of the kernel's blocks.
template <auto Kernel> cudaError_t grid_for(int64_t units, int64_t *grid) {
    int64_t blocks;
    const cudaError_t err = cured::waves_grid<Kernel>(kThreads, 2, &blocks);
    if (err != cudaSuccess) return err;
    *grid = std::max<int64_t>(1, std::min(blocks, (units + kWarps - 1) / kWarps));
    return cudaSuccess;
}

// exact_row_segments<In, Out, Pass> over `warps` warps' work.
template <class In, class Out, first_pass Pass>
cudaError_t launch_segments(int64_t warps, const In *in, int64_t rows, int64_t length, const segments_plan &plan,
                            cured_dtype result, Out *out, cured_exact_state *states, cudaStream_t stream) {
    int64_t grid;
    const cudaError_t err = grid_for<exact_row_segments<In, Out, Pass>>(warps, &grid);
    if (err != cudaSuccess) return err;
    exact_row_segments<In, Out, Pass>
        <<<unsigned(grid), kThreads, 0, stream>>>(in, rows, length, plan, result, out, states);
    return cudaGetLastError();
}

// Each output into Out: float32 for float16 and float32 results (cured_exact_rows_acc), float64 for
// float64.
template <class In, class Out>
cudaError_t launch_rows_into(const In *in, int64_t rows, int64_t length, cured_dtype result, Out *out, void *workspace,
                             cudaStream_t stream) {
    const segments_plan plan = segments_of(rows, length);
    if constexpr (kByThreads<In, Out>) {
        if (plan.row_lanes > 0) {  // rows of one segment in float64 first, 32 / row_lanes rows a warp
            const int64_t rows_a_warp = 32 / plan.row_lanes, warps = (rows + rows_a_warp - 1) / rows_a_warp;
            return plan.row_lanes == 1
                       ? launch_segments<In, Out, first_pass::lane>(warps, in, rows, length, plan, result, out,
                                                                    nullptr, stream)
                       : launch_segments<In, Out, first_pass::lanes>(warps, in, rows, length, plan, result, out,
                                                                     nullptr, stream);
        }
    }
    auto *const states = static_cast<cured_exact_state *>(workspace);
    cudaError_t err = launch_segments<In, Out, first_pass::none>(rows * plan.segments, in, rows, length, plan, result,
                                                                 out, states, stream);
    if (err != cudaSuccess || plan.segments == 1) return err;
    int64_t grid;
    if ((err = grid_for<exact_row_combine<Out>>(rows * kWarps, &grid)) != cudaSuccess) return err;  // a block a row
    exact_row_combine<Out><<<unsigned(grid), kThreads, 0, stream>>>(rows, plan.segments, states, result, out);
    return cudaGetLastError();
}

using rows_launcher = cudaError_t (*)(const void *, int64_t, int64_t, cured_dtype, void *, void *, cudaStream_t);

template <int Code>
cudaError_t launch_rows(const void *in, int64_t rows, int64_t length, cured_dtype result, void *out, void *workspace,
                        cudaStream_t stream) {
    using In = typename cured::dtype_type<Code>::type;
    const In *const elements = static_cast<const In *>(in);
    if (cured_exact_rows_acc(result) == CURED_ACC_FLOAT64)
        return launch_rows_into(elements, rows, length, result, static_cast<double *>(out), workspace, stream);
    return launch_rows_into(elements, rows, length, result, static_cast<float *>(out), workspace, stream);
}

template <int... Codes> constexpr std::array<rows_launcher, sizeof...(Codes)> launchers(std::integer_sequence<int, Codes...>) {
    return {&launch_rows<Codes>...};
}
constexpr auto kLaunchers = launchers(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});

}  // namespace

extern "C" size_t cured_exact_rows_workspace(int64_t rows, int64_t length) {
    const segments_plan plan = segments_of(rows, length);
    if (plan.segments == 1) return 0;
    return size_t(rows) * size_t(plan.segments) * sizeof(cured_exact_state);
}

extern "C" cudaError_t cured_exact_rows(cured_dtype in_dtype, const void *in, int64_t rows, int64_t length,
                                        cured_dtype result, void *out, void *workspace, cudaStream_t stream) {
    if (in_dtype < 0 || in_dtype >= CURED_NUM_DTYPES || rows < 0 || length < 1 || !cured_dtype_is_float(result))
        return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    return kLaunchers[in_dtype](in, rows, length, result, out, workspace, stream);
}
