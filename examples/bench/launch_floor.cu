// The host-to-host floor of a call on one GPU, in CUDA C++ without any
// library: an empty kernel, then the same with a 4-byte copy into
// page-locked memory, then two kernels and the copy (the shape of one
// large reduction: a grid, then one block over its results), each
// followed by a stream wait; medians of 41 calls. Grids of 1 and of 8448
// blocks of 256 (the first launch of coop's sum of 2^28 and more on an
// H100/H200). The last row of each grid is the host's time to queue the
// three calls without waiting.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o launch_floor launch_floor.cu && ./launch_floor
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty(float* p) {
    if (threadIdx.x == 0 && blockIdx.x == 0 && p[0] == 12345.f) p[1] = 1;
}

template <class F>
double median_us(F f) {
    std::vector<double> t;
    for (int i = 0; i < 41; i++) {
        auto start = std::chrono::steady_clock::now();
        f();
        auto end = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    float* d;
    cudaMalloc(&d, 1 << 20);
    cudaMemset(d, 0, 1 << 20);
    float* h;
    cudaMallocHost(&h, 64);
    cudaStream_t s = 0;
    for (int blocks : {1, 8448}) {
        printf("launch+sync (%d blocks),%.1f\n", blocks, median_us([&] {
                   empty<<<blocks, 256, 0, s>>>(d);
                   cudaStreamSynchronize(s);
               }));
        printf("launch+copy+sync (%d blocks),%.1f\n", blocks, median_us([&] {
                   empty<<<blocks, 256, 0, s>>>(d);
                   cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s);
                   cudaStreamSynchronize(s);
               }));
        printf("2 launches+copy+sync (%d blocks),%.1f\n", blocks, median_us([&] {
                   empty<<<blocks, 256, 0, s>>>(d);
                   empty<<<1, 256, 0, s>>>(d);
                   cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s);
                   cudaStreamSynchronize(s);
               }));
        printf("host time of 2 launches+copy,%.1f\n", median_us([&] {
                   empty<<<blocks, 256, 0, s>>>(d);
                   empty<<<1, 256, 0, s>>>(d);
                   cudaMemcpyAsync(h, d, 4, cudaMemcpyDeviceToHost, s);
               }));
        cudaDeviceSynchronize();
    }
    return 0;
}
