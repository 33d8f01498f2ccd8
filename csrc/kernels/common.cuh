// common.cuh: what every kernel version shares and none of them teaches: element loads with
// conversion to the accumulator, the checked launch, and the table of (input, accumulator)
// instantiations that the C host code dispatches through.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "../cured.h"

namespace cured {

// NumPy's bool is one byte that is true when non-zero; reading it as C++ `bool` would be undefined
// for bytes other than 0 and 1, so it has a type of its own.
struct bool8 {
    uint8_t byte;
};

// The C++ type of each cured_dtype, in the order of CURED_DTYPES.
template <int Dtype> struct dtype_type;
template <> struct dtype_type<CURED_BOOL> { using type = bool8; };
template <> struct dtype_type<CURED_INT8> { using type = int8_t; };
template <> struct dtype_type<CURED_INT16> { using type = int16_t; };
template <> struct dtype_type<CURED_INT32> { using type = int32_t; };
template <> struct dtype_type<CURED_INT64> { using type = int64_t; };
template <> struct dtype_type<CURED_UINT8> { using type = uint8_t; };
template <> struct dtype_type<CURED_UINT16> { using type = uint16_t; };
template <> struct dtype_type<CURED_UINT32> { using type = uint32_t; };
template <> struct dtype_type<CURED_UINT64> { using type = uint64_t; };
template <> struct dtype_type<CURED_FLOAT16> { using type = __half; };
template <> struct dtype_type<CURED_FLOAT32> { using type = float; };
template <> struct dtype_type<CURED_FLOAT64> { using type = double; };

template <class T>
constexpr bool is_floating = std::is_same_v<T, __half> || std::is_floating_point_v<T>;

// Conversions follow C (and NumPy's casts): integers to floating round to nearest, a signed
// integer into uint64 wraps. A floating input is never summed into an integer accumulator.
template <class Acc, class In> __device__ __forceinline__ Acc to_acc(In x) { return static_cast<Acc>(x); }
template <class Acc> __device__ __forceinline__ Acc to_acc(bool8 x) { return x.byte != 0; }
template <class Acc> __device__ __forceinline__ Acc to_acc(__half x) { return static_cast<Acc>(__half2float(x)); }

// An accumulator as a result of type Out, as NumPy's astype casts: floats round to nearest, ties
// to even; integers wrap; bool is "not zero".
template <class Out, class Acc> __device__ __forceinline__ Out cast_result(Acc v) {
    if constexpr (std::is_same_v<Out, bool8>) {
        return bool8{uint8_t(v != Acc(0))};
    } else if constexpr (std::is_same_v<Out, __half>) {
        if constexpr (std::is_same_v<Acc, double>) return __double2half(v);  // one rounding, as NumPy
        else return __float2half_rn(float(v));
    } else {
        return static_cast<Out>(v);
    }
}

// Element i of in[0, n) as an accumulator; past the end, the sum's identity, so that a partial
// block adds zeros and nothing reads past the end.
template <class Acc, class In>
__device__ __forceinline__ Acc load(const In *in, int64_t i, int64_t n) {
    return i < n ? to_acc<Acc>(in[i]) : Acc(0);
}

static_assert(CURED_ACC_INT64 == 0 && CURED_ACC_UINT64 == 1 && CURED_ACC_FLOAT32 == 2 && CURED_ACC_FLOAT64 == 3,
              "make_table lists the accumulators in the order of CURED_ACCS");

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Launches one pass over n = span.count elements: one block for every threads x per_thread
// elements. Two overloads, for kernels with and without a global-memory scratch array.
template <class In, class Acc>
cudaError_t launch(void (*kernel)(const In *, Acc *, int64_t), int threads, int per_thread,
                   const void *in, void *out, int64_t n, void *, cudaStream_t stream) {
    const int64_t blocks = ceil_div(n, int64_t(threads) * per_thread);
    if (blocks < 1 || blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
    kernel<<<unsigned(blocks), threads, 0, stream>>>(static_cast<const In *>(in), static_cast<Acc *>(out), n);
    return cudaGetLastError();
}

template <class In, class Acc>
cudaError_t launch(void (*kernel)(const In *, Acc *, int64_t, Acc *), int threads, int per_thread,
                   const void *in, void *out, int64_t n, void *scratch, cudaStream_t stream) {
    const int64_t blocks = ceil_div(n, int64_t(threads) * per_thread);
    if (blocks < 1 || blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
    kernel<<<unsigned(blocks), threads, 0, stream>>>(static_cast<const In *>(in), static_cast<Acc *>(out), n,
                                                     static_cast<Acc *>(scratch));
    return cudaGetLastError();
}

// The launch table of a version: Launcher<In, Acc>::launch for every supported pair, nullptr for a
// floating input into an integer accumulator (never instantiated). Table is cured_launch_table, or
// another table of the same shape (cured_feed_table).
template <template <class, class> class Launcher, int Dtype, class Acc, class Fn>
constexpr Fn table_entry() {
    using In = typename dtype_type<Dtype>::type;
    if constexpr (is_floating<In> && !is_floating<Acc>) {
        return nullptr;
    } else {
        return &Launcher<In, Acc>::launch;
    }
}

template <template <class, class> class Launcher, class Table = cured_launch_table, int... Dtypes>
constexpr Table make_table(std::integer_sequence<int, Dtypes...>) {
    using Fn = std::remove_all_extents_t<decltype(Table::fn)>;
    return Table{{{table_entry<Launcher, Dtypes, int64_t, Fn>(), table_entry<Launcher, Dtypes, uint64_t, Fn>(),
                   table_entry<Launcher, Dtypes, float, Fn>(), table_entry<Launcher, Dtypes, double, Fn>()}...}};
}

}  // namespace cured

// Exports version `sym`'s launch table, `sym##_launchers`. The kernel is given as an expression in
// the template parameters In and Acc, for example `reduce_v3<In, Acc>`.
#define CURED_EXPORT_KERNEL(sym, ...)                                                                     \
    template <class In, class Acc> struct sym##_launcher {                                                \
        static cudaError_t launch(const void *in, void *out, cured_span span, void *scratch,              \
                                  cudaStream_t s) {                                                       \
            return cured::launch(__VA_ARGS__, sym##_threads, sym##_per_thread, in, out, span.count, scratch, \
                                 s);                                                                      \
        }                                                                                                 \
    };                                                                                                    \
    extern "C" const cured_launch_table sym##_launchers =                                                 \
        cured::make_table<sym##_launcher>(std::make_integer_sequence<int, CURED_NUM_DTYPES>{});
