// CUB's side of histogram_bench: DeviceHistogram::HistogramEven over u8
// samples into 256 bins, as a shared library the Rust benchmark loads, so
// that both run in one process on one stream. Build (run.sh does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_histogram.so cub_histogram.cu
#include <cub/cub.cuh>
#include <cstdio>

extern "C" {

/// "CUB major.minor.patch".
const char* cub_hist_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}

/// Scratch bytes HistogramEven needs for n samples.
size_t cub_hist_temp_bytes(int n) {
    size_t bytes = 0;
    cub::DeviceHistogram::HistogramEven((void*)nullptr, bytes, (const unsigned char*)nullptr,
                                        (unsigned*)nullptr, 257, 0, 256, n);
    return bytes;
}

/// The 256-bin histogram of `n` bytes at `in` into `hist` (overwritten),
/// queued on `stream`; returns the CUDA error code.
int cub_hist_even(const unsigned char* in, unsigned* hist, int n, void* temp,
                  size_t temp_bytes, cudaStream_t stream) {
    return (int)cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in, hist, 257, 0, 256, n,
                                                    stream);
}

}  // extern "C"
