// CUB's side of histogram_calls_bench: DeviceHistogram's even, range and
// multi-channel calls for the sample types coop_host::histogram takes, as
// a shared library the Rust benchmark loads, so that both run in one
// process on one stream. Each function queues its call on `stream`; with
// `temp` null it only sets `*temp_bytes`. Returns the CUDA error code.
// Build (histogram_calls.sh does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_histogram_calls.so cub_histogram_calls.cu
#include <cub/cub.cuh>
#include <cstdio>

template <typename T, typename L>
static int even(const T* in, unsigned* hist, int bins, L lower, L upper, long long n, void* temp,
                size_t* temp_bytes, cudaStream_t stream) {
    return (int)cub::DeviceHistogram::HistogramEven(temp, *temp_bytes, in, hist, bins + 1, lower,
                                                    upper, n, stream);
}

template <typename T, typename L>
static int range(const T* in, unsigned* hist, int levels, const L* d_levels, long long n,
                 void* temp, size_t* temp_bytes, cudaStream_t stream) {
    return (int)cub::DeviceHistogram::HistogramRange(temp, *temp_bytes, in, hist, levels, d_levels,
                                                     n, stream);
}

extern "C" {

const char* cub_hc_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}

// Levels of integer samples are ints (long long for the range, as coop's
// i64), of floats the float type (CUB's usual choice; its bins are then
// computed as coop computes them).
int cub_hc_even_u8(const unsigned char* in, unsigned* hist, int bins, double lower, double upper,
                   long long n, void* temp, size_t* temp_bytes, cudaStream_t s) {
    return even(in, hist, bins, (int)lower, (int)upper, n, temp, temp_bytes, s);
}
int cub_hc_even_u16(const unsigned short* in, unsigned* hist, int bins, double lower,
                    double upper, long long n, void* temp, size_t* temp_bytes, cudaStream_t s) {
    return even(in, hist, bins, (int)lower, (int)upper, n, temp, temp_bytes, s);
}
int cub_hc_even_i32(const int* in, unsigned* hist, int bins, double lower, double upper,
                    long long n, void* temp, size_t* temp_bytes, cudaStream_t s) {
    return even(in, hist, bins, (int)lower, (int)upper, n, temp, temp_bytes, s);
}
int cub_hc_even_f32(const float* in, unsigned* hist, int bins, double lower, double upper,
                    long long n, void* temp, size_t* temp_bytes, cudaStream_t s) {
    return even(in, hist, bins, (float)lower, (float)upper, n, temp, temp_bytes, s);
}
int cub_hc_range_f32(const float* in, unsigned* hist, int levels, const float* d_levels,
                     long long n, void* temp, size_t* temp_bytes, cudaStream_t s) {
    return range(in, hist, levels, d_levels, n, temp, temp_bytes, s);
}
int cub_hc_range_u8(const unsigned char* in, unsigned* hist, int levels,
                    const long long* d_levels, long long n, void* temp, size_t* temp_bytes,
                    cudaStream_t s) {
    return range(in, hist, levels, d_levels, n, temp, temp_bytes, s);
}

// RGBA bytes, histograms of R, G and B in 256 bins each: hist holds the
// three one after the other.
int cub_hc_rgba_u8(const unsigned char* in, unsigned* hist, long long pixels, void* temp,
                   size_t* temp_bytes, cudaStream_t s) {
    unsigned* out[3] = {hist, hist + 256, hist + 512};
    int levels[3] = {257, 257, 257};
    int lower[3] = {0, 0, 0};
    int upper[3] = {256, 256, 256};
    return (int)cub::DeviceHistogram::MultiHistogramEven<4, 3>(temp, *temp_bytes, in, out, levels,
                                                               lower, upper, pixels, s);
}

}  // extern "C"
