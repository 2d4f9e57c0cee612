// The classic CUDA transpose through a padded shared tile (32 x 32 tiles,
// blocks of 32 x ROWS threads), timed with events next to cudaMemcpy
// device-to-device: the reference for `examples/transpose.rs`.
// Build and run: nvcc -O3 -arch=sm_90 transpose.cu -o transpose_cuda && ./transpose_cuda
#include <cstdio>
#include <vector>
#include <algorithm>

constexpr int TILE = 32;

template <int ROWS>
__global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <typename F>
float median_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 20; i++) f();
  std::vector<float> t;
  for (int i = 0; i < 21; i++) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const int n = 8192;
  size_t bytes = (size_t)n * n * sizeof(float);
  float *in, *out;
  cudaMalloc(&in, bytes);
  cudaMalloc(&out, bytes);
  cudaMemset(in, 0, bytes);
  float copy = median_ms([&] { cudaMemcpy(out, in, bytes, cudaMemcpyDeviceToDevice); });
  float r8 = median_ms([&] { transpose_padded<8><<<dim3(n / TILE, n / TILE), dim3(TILE, 8)>>>(in, out, n, n); });
  float r4 = median_ms([&] { transpose_padded<4><<<dim3(n / TILE, n / TILE), dim3(TILE, 4)>>>(in, out, n, n); });
  auto gbs = [&](float ms) { return 2.0 * bytes / (ms * 1e-3) / 1e9; };
  printf("cuda cudaMemcpy D2D       : %8.1f us, %7.1f GB/s\n", copy * 1e3, gbs(copy));
  printf("cuda transpose_padded 32x8: %8.1f us, %7.1f GB/s, %5.1f %% of copy\n", r8 * 1e3, gbs(r8), 100 * copy / r8);
  printf("cuda transpose_padded 32x4: %8.1f us, %7.1f GB/s, %5.1f %% of copy\n", r4 * 1e3, gbs(r4), 100 * copy / r4);
  return 0;
}
