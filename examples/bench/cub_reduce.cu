// CUB's side of the reduction benchmark, as a shared library that
// examples/bench/reduce_bench.rs loads
// (COOP_CUB_LIB=path/to/libcub_reduce.so) so that coop and CUB are timed
// alternately in one process, on one stream:
// every coop sample has a CUB sample next to it, and drift of the clocks
// or the memory between the two sides cancels out.
//
// Build (examples/bench/run.sh does it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -o libcub_reduce.so cub_reduce.cu
//
// Every function returns a cudaError_t (0 for success).
#include <cub/cub.cuh>
#include <cstdint>
#include <cstdio>

namespace {

enum Op { SUM = 0, MIN = 1, MAX = 2 };
enum Ty { F32 = 0, F64 = 1, I32 = 2, U32 = 3, I64 = 4, U64 = 5 };

template <typename T>
cudaError_t device_reduce(int op, const void* in, size_t n, void* out, void* temp, size_t temp_bytes,
                          cudaStream_t stream) {
    const T* d_in = static_cast<const T*>(in);
    T* d_out = static_cast<T*>(out);
    size_t bytes = temp_bytes;
    switch (op) {
    case SUM: return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, (int64_t)n, stream);
    case MIN: return cub::DeviceReduce::Min(temp, bytes, d_in, d_out, (int64_t)n, stream);
    case MAX: return cub::DeviceReduce::Max(temp, bytes, d_in, d_out, (int64_t)n, stream);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T>
size_t temp_bytes_for(size_t n) {
    size_t a = 0, b = 0, c = 0;
    cub::DeviceReduce::Sum(nullptr, a, (const T*)nullptr, (T*)nullptr, (int64_t)n);
    cub::DeviceReduce::Min(nullptr, b, (const T*)nullptr, (T*)nullptr, (int64_t)n);
    cub::DeviceReduce::Max(nullptr, c, (const T*)nullptr, (T*)nullptr, (int64_t)n);
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/// Reductions per launch: the same as coop's BLOCK_REDUCE_REPS.
constexpr int REPS = 64;

/// Each block reduces REPS sets of one value per thread; thread 0 writes
/// their total. The same work as coop's block_reduce_* kernels.
template <typename T, int THREADS>
__global__ void __launch_bounds__(THREADS) block_reduce(const T* in, T* out) {
    using BR = cub::BlockReduce<T, THREADS>;
    __shared__ typename BR::TempStorage temp;
    T v = in[blockIdx.x * THREADS + threadIdx.x];
    T acc = 0;
    for (int i = 0; i < REPS; ++i) {
        T r = BR(temp).Sum(v + (T)i);
        acc += r;        // valid in thread 0
        __syncthreads(); // CUB requires it before the TempStorage is reused
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

/// Each block runs REPS inclusive sums of one value per thread; every
/// thread writes the sum of its results. The same work as coop's
/// block_scan_* kernels.
template <typename T, int THREADS>
__global__ void __launch_bounds__(THREADS) block_scan(const T* in, T* out) {
    using BS = cub::BlockScan<T, THREADS>;
    __shared__ typename BS::TempStorage temp;
    int at = blockIdx.x * THREADS + threadIdx.x;
    T v = in[at];
    T acc = 0;
    for (int i = 0; i < REPS; ++i) {
        T r;
        BS(temp).InclusiveSum(v + (T)i, r);
        acc += r;
        __syncthreads(); // before the TempStorage is reused
    }
    out[at] = acc;
}

/// block_reduce (scan false) or block_scan (scan true) of T at `threads`
/// threads (64, 128, 256, 512, 1024) over `blocks` blocks.
template <typename T>
cudaError_t block_launch(bool scan, int threads, const void* in, void* out, int blocks, cudaStream_t s) {
    const T* i = static_cast<const T*>(in);
    T* o = static_cast<T*>(out);
#define COOP_BLOCK_CASE(N)                                                                                   \
    case N:                                                                                                   \
        if (scan)                                                                                             \
            block_scan<T, N><<<blocks, N, 0, s>>>(i, o);                                                      \
        else                                                                                                  \
            block_reduce<T, N><<<blocks, N, 0, s>>>(i, o);                                                    \
        break;
    switch (threads) {
        COOP_BLOCK_CASE(64)
        COOP_BLOCK_CASE(128)
        COOP_BLOCK_CASE(256)
        COOP_BLOCK_CASE(512)
        COOP_BLOCK_CASE(1024)
    default: return cudaErrorInvalidValue;
    }
#undef COOP_BLOCK_CASE
    return cudaGetLastError();
}

int block_typed(bool scan, int ty, int threads, const void* in, void* out, int blocks, cudaStream_t stream) {
    switch (ty) {
    case F32: return block_launch<float>(scan, threads, in, out, blocks, stream);
    case F64: return block_launch<double>(scan, threads, in, out, blocks, stream);
    case I32: return block_launch<int>(scan, threads, in, out, blocks, stream);
    case U32: return block_launch<unsigned>(scan, threads, in, out, blocks, stream);
    case I64: return block_launch<long long>(scan, threads, in, out, blocks, stream);
    case U64: return block_launch<unsigned long long>(scan, threads, in, out, blocks, stream);
    default: return cudaErrorInvalidValue;
    }
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
const char* cub_bench_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    return text;
}

/// Scratch bytes that cub_bench_device_reduce needs for up to n elements of
/// any type and operator.
size_t cub_bench_temp_bytes(size_t n) {
    size_t a = temp_bytes_for<double>(n), b = temp_bytes_for<long long>(n);
    return a > b ? a : b;
}

/// cub::DeviceReduce::{Sum,Min,Max} (op 0, 1, 2) of n elements of type ty
/// (0 f32, 1 f64, 2 i32, 3 u32, 4 i64, 5 u64) at in, into *out, on stream.
int cub_bench_device_reduce(int op, int ty, const void* in, size_t n, void* out, void* temp, size_t temp_bytes,
                            cudaStream_t stream) {
    switch (ty) {
    case F32: return device_reduce<float>(op, in, n, out, temp, temp_bytes, stream);
    case F64: return device_reduce<double>(op, in, n, out, temp, temp_bytes, stream);
    case I32: return device_reduce<int>(op, in, n, out, temp, temp_bytes, stream);
    case U32: return device_reduce<unsigned>(op, in, n, out, temp, temp_bytes, stream);
    case I64: return device_reduce<long long>(op, in, n, out, temp, temp_bytes, stream);
    case U64: return device_reduce<unsigned long long>(op, in, n, out, temp, temp_bytes, stream);
    default: return cudaErrorInvalidValue;
    }
}

/// The block-reduction kernel for ty (0 f32, 1 f64, 2 i32, 3 u32, 4 i64,
/// 5 u64) and threads (64, 128, 256, 512, 1024) over `blocks` blocks
/// (one result a block), on stream.
int cub_bench_block_reduce(int ty, int threads, const void* in, void* out, int blocks, cudaStream_t stream) {
    return block_typed(false, ty, threads, in, out, blocks, stream);
}

/// The block-scan kernel for the same types and sizes (one result a
/// thread), on stream.
int cub_bench_block_scan(int ty, int threads, const void* in, void* out, int blocks, cudaStream_t stream) {
    return block_typed(true, ty, threads, in, out, blocks, stream);
}

/// Holds `stream` for `ns` nanoseconds with a one-thread kernel: work the
/// host queues behind it starts only when it ends, so a timing of that
/// work leaves out what the host spent launching it.
int cub_bench_hold(unsigned long long ns, cudaStream_t stream) {
    hold<<<1, 1, 0, stream>>>(ns);
    return cudaGetLastError();
}

} // extern "C"
