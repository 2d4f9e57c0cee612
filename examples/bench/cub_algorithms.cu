// CUB's side of the algorithms benchmark (arg-extremum, transform-reduce,
// segmented reduce, scan, select, reduce-by-key and run-length encode), as a shared library that the Rust benchmark
// loads (COOP_CUB_ALGO_LIB=path/to/libcub_algorithms.so) so that coop and
// CUB are timed alternately in one process, on one stream, as in
// cub_reduce.cu.
//
// Build (examples/bench/algorithms.sh does it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -o libcub_algorithms.so cub_algorithms.cu
//
// Element types `ty`: 0 f32, 1 f64, 2 i32, 3 u32, 4 i64, 5 u64. Every
// pointer is device memory. Every function queues its work on `stream` and
// returns without synchronizing; the caller passes the scratch memory in,
// having first asked the matching *_temp_bytes function for its size.
// Every int-returning function returns a cudaError_t (0 for success).
//
// Integers wrap on overflow (sums, squares), as Rust's wrapping operations
// do: the GPU's integer instructions wrap.
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda/std/cmath>
#include <cuda/std/cstdlib>
#include <cuda/std/type_traits>
#include <cstdint>
#include <cstdio>

namespace {

enum Ty { F32 = 0, F64 = 1, I32 = 2, U32 = 3, I64 = 4, U64 = 5 };
enum Op { SUM = 0, MIN = 1, MAX = 2 };
enum Map { SUM_SQUARES = 0, SUM_ABS = 1, MAX_ABS = 2, COUNT_POSITIVE = 3, PLAIN_SUM = 4 };

// Each helper below does one algorithm for one element type. With
// temp == nullptr it only writes the scratch size it needs into `bytes`,
// as CUB does; the *_temp_bytes functions use it so.

/// cub::DeviceReduce::ArgMin (is_min != 0) or ArgMax of n elements: the
/// extremum into *out_value and the index of its first occurrence into
/// *out_index. This is CCCL 3.0's overload with two separate outputs and a
/// 64-bit index, so no pair is written and no kernel splits one.
template <typename T>
cudaError_t arg_extremum(int is_min, const void* in, size_t n, void* out_value, long long* out_index,
                         void* temp, size_t& bytes, cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_value = static_cast<T*>(out_value);
    if (is_min) return cub::DeviceReduce::ArgMin(temp, bytes, d_in, d_value, out_index, (int64_t)n, stream);
    return cub::DeviceReduce::ArgMax(temp, bytes, d_in, d_value, out_index, (int64_t)n, stream);
}

/// x * x; integers wrap, squared in the unsigned type of their width.
struct Square {
    template <typename T>
    __host__ __device__ T operator()(T x) const {
        if constexpr (cuda::std::is_integral_v<T>) {
            using U = cuda::std::make_unsigned_t<T>;
            return (T)((U)x * (U)x);
        } else {
            return x * x;
        }
    }
};

/// |x|: the sign bit cleared for floats, x itself for unsigned integers.
struct Abs {
    template <typename T>
    __host__ __device__ T operator()(T x) const {
        if constexpr (cuda::std::is_unsigned_v<T>) {
            return x;
        } else {
            return cuda::std::abs(x);
        }
    }
};

/// 1 where x > 0, else 0 (NaN counts 0).
struct Positive {
    template <typename T>
    __host__ __device__ unsigned long long operator()(T x) const {
        return x > T(0) ? 1ull : 0ull;
    }
};

/// cub::DeviceReduce::TransformReduce of n elements with `map` (0 sum of
/// squares, 1 sum of absolute values, 2 largest absolute value, each into
/// *out of type T; 3 count of elements above zero, into *out as an
/// unsigned long long; 4 the plain sum, into *out of type T).
template <typename T>
cudaError_t transform_reduce(int map, const void* in, size_t n, void* out, void* temp, size_t& bytes,
                             cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_out = static_cast<T*>(out);
    const int64_t items = (int64_t)n;
    switch (map) {
    case SUM_SQUARES:
        return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, d_out, items, cuda::std::plus<>{}, Square{},
                                                  T(0), stream);
    case SUM_ABS:
        return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, d_out, items, cuda::std::plus<>{}, Abs{}, T(0),
                                                  stream);
    case MAX_ABS:
        return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, d_out, items, cuda::maximum<>{}, Abs{}, T(0),
                                                  stream);
    case COUNT_POSITIVE:
        return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, static_cast<unsigned long long*>(out), items,
                                                  cuda::std::plus<>{}, Positive{}, 0ull, stream);
    case PLAIN_SUM:
        // The plain sum: CUB's reduction is deterministic from run to run
        // on one GPU (no atomics, a fixed order), so it is the row that
        // coop's deterministic sums compare with.
        return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, items, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// cub::DeviceSegmentedReduce::{Sum,Min,Max} (op 0, 1, 2) of `segments`
/// segments given by CSR offsets (segments + 1 of them, u32 or, where
/// offsets64 != 0, u64): segment i is in[offsets[i] .. offsets[i + 1]) and
/// its result goes to out[i]. An empty segment gives 0 for Sum and T's
/// largest (Min) or lowest (Max) finite value.
template <typename T>
cudaError_t segmented_reduce(int op, int offsets64, const void* in, size_t segments, const void* offsets, void* out,
                             void* temp, size_t& bytes, cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_out = static_cast<T*>(out);
    const int64_t count = (int64_t)segments;
    auto run = [&](auto* begins) -> cudaError_t {
        // Segment i ends where segment i + 1 begins. (A size query passes
        // no offsets: no pointer is made from the null one.)
        auto* ends = begins ? begins + 1 : begins;
        switch (op) {
        case SUM: return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, count, begins, ends, stream);
        case MIN: return cub::DeviceSegmentedReduce::Min(temp, bytes, d_in, d_out, count, begins, ends, stream);
        case MAX: return cub::DeviceSegmentedReduce::Max(temp, bytes, d_in, d_out, count, begins, ends, stream);
        default: return cudaErrorInvalidValue;
        }
    };
    if (offsets64) return run(static_cast<const unsigned long long*>(offsets));
    return run(static_cast<const unsigned*>(offsets));
}

/// cub::DeviceScan::ExclusiveSum (exclusive != 0) or InclusiveSum of n
/// elements from in into out. num_items is 64-bit, so CUB indexes with
/// 64-bit offsets.
template <typename T>
cudaError_t scan(int exclusive, const void* in, void* out, size_t n, void* temp, size_t& bytes,
                 cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_out = static_cast<T*>(out);
    if (exclusive) return cub::DeviceScan::ExclusiveSum(temp, bytes, d_in, d_out, (int64_t)n, stream);
    return cub::DeviceScan::InclusiveSum(temp, bytes, d_in, d_out, (int64_t)n, stream);
}

/// Selections: kind 0 cub::DeviceSelect::Flagged, 1
/// cub::DevicePartition::Flagged, 2 cub::DeviceSelect::Unique, of n
/// elements at in (flags, one bool an element, for kinds 0 and 1) into
/// out, the number kept into *num_selected (an unsigned long long, as
/// coop's count).
template <typename T>
cudaError_t select_kind(int kind, const void* in, const bool* flags, void* out, unsigned long long* num_selected,
                        size_t n, void* temp, size_t& bytes, cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_out = static_cast<T*>(out);
    switch (kind) {
    case 0: return cub::DeviceSelect::Flagged(temp, bytes, d_in, flags, d_out, num_selected, (int64_t)n, stream);
    case 1: return cub::DevicePartition::Flagged(temp, bytes, d_in, flags, d_out, num_selected, (int64_t)n, stream);
    case 2: return cub::DeviceSelect::Unique(temp, bytes, d_in, d_out, num_selected, (int64_t)n, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Runs of equal u32 keys: kind 0 cub::DeviceReduce::ReduceByKey (sums of
/// values of type T), kind 1 cub::DeviceRunLengthEncode::Encode (lengths as
/// unsigned ints; values and T unused). The number of runs goes to
/// *num_runs (an unsigned long long, as coop's count).
template <typename T>
cudaError_t runs_kind(int kind, const unsigned* keys, const void* values, unsigned* keys_out, void* values_out,
                      unsigned long long* num_runs, size_t n, void* temp, size_t& bytes, cudaStream_t stream) {
    if (kind == 0)
        return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, keys_out, static_cast<const T*>(values),
                                              static_cast<T*>(values_out), num_runs, cuda::std::plus<>{}, (int)n,
                                              stream);
    return cub::DeviceRunLengthEncode::Encode(temp, bytes, keys, keys_out, static_cast<unsigned*>(values_out),
                                              num_runs, (int)n, stream);
}

/// One thread waits until `ns` nanoseconds of the GPU's global timer have
/// passed since it started.
__global__ void hold(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

} // namespace

extern "C" {

/// "CUB major.minor.patch".
const char* cub_algo_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    return text;
}

/// Holds `stream` for `ns` nanoseconds with a one-thread kernel: work the
/// host queues behind it starts only when it ends, so a timing of that
/// work leaves out what the host spent launching it.
int cub_algo_hold(unsigned long long ns, cudaStream_t stream) {
    hold<<<1, 1, 0, stream>>>(ns);
    return cudaGetLastError();
}

/// Scratch bytes that cub_algo_arg needs for these arguments (0 for an
/// unknown type).
size_t cub_algo_arg_temp_bytes(int is_min, int ty, size_t n) {
    size_t bytes = 0;
    switch (ty) {
    case F32: arg_extremum<float>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    case F64: arg_extremum<double>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    case I32: arg_extremum<int>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    case U32: arg_extremum<unsigned>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    case I64: arg_extremum<long long>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    case U64: arg_extremum<unsigned long long>(is_min, nullptr, n, nullptr, nullptr, nullptr, bytes, 0); break;
    }
    return bytes;
}

/// The smallest (is_min != 0) or largest of n elements of type ty at in,
/// into *out_value (type ty), and the index of its first occurrence, into
/// *out_index.
int cub_algo_arg(int is_min, int ty, const void* in, size_t n, void* out_value, long long* out_index, void* temp,
                 size_t temp_bytes, cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return arg_extremum<float>(is_min, in, n, out_value, out_index, temp, b, stream);
    case F64: return arg_extremum<double>(is_min, in, n, out_value, out_index, temp, b, stream);
    case I32: return arg_extremum<int>(is_min, in, n, out_value, out_index, temp, b, stream);
    case U32: return arg_extremum<unsigned>(is_min, in, n, out_value, out_index, temp, b, stream);
    case I64: return arg_extremum<long long>(is_min, in, n, out_value, out_index, temp, b, stream);
    case U64: return arg_extremum<unsigned long long>(is_min, in, n, out_value, out_index, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Scratch bytes that cub_algo_transform_reduce needs for these arguments
/// (0 for an unknown type).
size_t cub_algo_transform_temp_bytes(int map, int ty, size_t n) {
    size_t bytes = 0;
    switch (ty) {
    case F32: transform_reduce<float>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    case F64: transform_reduce<double>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    case I32: transform_reduce<int>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    case U32: transform_reduce<unsigned>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    case I64: transform_reduce<long long>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    case U64: transform_reduce<unsigned long long>(map, nullptr, n, nullptr, nullptr, bytes, 0); break;
    }
    return bytes;
}

/// One value from n elements of type ty at in, into *out: map 0 the sum of
/// their squares, 1 the sum of their absolute values, 2 the largest
/// absolute value (each of type ty), 3 how many are above zero (an
/// unsigned long long).
int cub_algo_transform_reduce(int map, int ty, const void* in, size_t n, void* out, void* temp, size_t temp_bytes,
                              cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return transform_reduce<float>(map, in, n, out, temp, b, stream);
    case F64: return transform_reduce<double>(map, in, n, out, temp, b, stream);
    case I32: return transform_reduce<int>(map, in, n, out, temp, b, stream);
    case U32: return transform_reduce<unsigned>(map, in, n, out, temp, b, stream);
    case I64: return transform_reduce<long long>(map, in, n, out, temp, b, stream);
    case U64: return transform_reduce<unsigned long long>(map, in, n, out, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Scratch bytes that cub_algo_segmented_reduce needs for these arguments
/// (0 for an unknown type).
size_t cub_algo_segmented_temp_bytes(int op, int ty, int offsets64, size_t segments) {
    size_t bytes = 0;
    switch (ty) {
    case F32: segmented_reduce<float>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0); break;
    case F64: segmented_reduce<double>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0); break;
    case I32: segmented_reduce<int>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0); break;
    case U32: segmented_reduce<unsigned>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0); break;
    case I64: segmented_reduce<long long>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0); break;
    case U64:
        segmented_reduce<unsigned long long>(op, offsets64, nullptr, segments, nullptr, nullptr, nullptr, bytes, 0);
        break;
    }
    return bytes;
}

/// Sum, minimum or maximum (op 0, 1, 2) of each of `segments` segments of
/// the elements of type ty at in, into out[0 .. segments) (type ty).
/// offsets holds segments + 1 offsets, u32 (offsets64 == 0) or u64;
/// segment i is in[offsets[i] .. offsets[i + 1]).
int cub_algo_segmented_reduce(int op, int ty, int offsets64, const void* in, size_t segments, const void* offsets,
                              void* out, void* temp, size_t temp_bytes, cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return segmented_reduce<float>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    case F64: return segmented_reduce<double>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    case I32: return segmented_reduce<int>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    case U32: return segmented_reduce<unsigned>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    case I64: return segmented_reduce<long long>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    case U64: return segmented_reduce<unsigned long long>(op, offsets64, in, segments, offsets, out, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Scratch bytes that cub_algo_scan needs for these arguments (0 for an
/// unknown type).
size_t cub_algo_scan_temp_bytes(int exclusive, int ty, size_t n) {
    size_t bytes = 0;
    switch (ty) {
    case F32: scan<float>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case F64: scan<double>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I32: scan<int>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U32: scan<unsigned>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I64: scan<long long>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U64: scan<unsigned long long>(exclusive, nullptr, nullptr, n, nullptr, bytes, 0); break;
    }
    return bytes;
}

/// The running sums of n elements of type ty from in into out: out[i] is
/// the sum of in[0 ..= i] (inclusive) or of in[0 .. i] (exclusive != 0,
/// out[0] = 0).
int cub_algo_scan(int exclusive, int ty, const void* in, void* out, size_t n, void* temp, size_t temp_bytes,
                  cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return scan<float>(exclusive, in, out, n, temp, b, stream);
    case F64: return scan<double>(exclusive, in, out, n, temp, b, stream);
    case I32: return scan<int>(exclusive, in, out, n, temp, b, stream);
    case U32: return scan<unsigned>(exclusive, in, out, n, temp, b, stream);
    case I64: return scan<long long>(exclusive, in, out, n, temp, b, stream);
    case U64: return scan<unsigned long long>(exclusive, in, out, n, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Copies `bytes` bytes from in to out with cudaMemcpyAsync, device to
/// device: the memory bandwidth the other algorithms are measured against.
int cub_algo_copy(const void* in, void* out, size_t bytes, cudaStream_t stream) {
    return cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream);
}

/// Scratch bytes that cub_algo_select needs for these arguments (0 for an
/// unknown type).
size_t cub_algo_select_temp_bytes(int kind, int ty, size_t n) {
    size_t bytes = 0;
    switch (ty) {
    case F32: select_kind<float>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case F64: select_kind<double>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I32: select_kind<int>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U32: select_kind<unsigned>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I64: select_kind<long long>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U64: select_kind<unsigned long long>(kind, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    }
    return bytes;
}

/// A selection of kind `kind` (see select_kind) of n elements of type ty.
int cub_algo_select(int kind, int ty, const void* in, const bool* flags, void* out, unsigned long long* num_selected,
                    size_t n, void* temp, size_t temp_bytes, cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return select_kind<float>(kind, in, flags, out, num_selected, n, temp, b, stream);
    case F64: return select_kind<double>(kind, in, flags, out, num_selected, n, temp, b, stream);
    case I32: return select_kind<int>(kind, in, flags, out, num_selected, n, temp, b, stream);
    case U32: return select_kind<unsigned>(kind, in, flags, out, num_selected, n, temp, b, stream);
    case I64: return select_kind<long long>(kind, in, flags, out, num_selected, n, temp, b, stream);
    case U64: return select_kind<unsigned long long>(kind, in, flags, out, num_selected, n, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// Scratch bytes that cub_algo_runs needs for these arguments.
size_t cub_algo_runs_temp_bytes(int kind, int ty, size_t n) {
    size_t bytes = 0;
    switch (ty) {
    case F32: runs_kind<float>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case F64: runs_kind<double>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I32: runs_kind<int>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U32: runs_kind<unsigned>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case I64: runs_kind<long long>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    case U64: runs_kind<unsigned long long>(kind, nullptr, nullptr, nullptr, nullptr, nullptr, n, nullptr, bytes, 0); break;
    }
    return bytes;
}

/// Runs of n equal u32 keys (see runs_kind), values of type ty.
int cub_algo_runs(int kind, int ty, const unsigned* keys, const void* values, unsigned* keys_out, void* values_out,
                  unsigned long long* num_runs, size_t n, void* temp, size_t temp_bytes, cudaStream_t stream) {
    size_t b = temp_bytes;
    switch (ty) {
    case F32: return runs_kind<float>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    case F64: return runs_kind<double>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    case I32: return runs_kind<int>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    case U32: return runs_kind<unsigned>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    case I64: return runs_kind<long long>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    case U64: return runs_kind<unsigned long long>(kind, keys, values, keys_out, values_out, num_runs, n, temp, b, stream);
    default: return cudaErrorInvalidValue;
    }
}

} // extern "C"
