/* What <cuda_runtime.h> gives a C program, as far as PT_LAUNCH uses it,
 * and the "kernel" the C programs that launch through it launch: its
 * address is all there is of it; what its blocks write is the work of
 * the program's own cudaLaunchKernel (or of the fake runtime's replay of
 * a graph). Not installed. */
#ifndef PT_TESTS_CUDA_C_H
#define PT_TESTS_CUDA_C_H

#include <pt/pt_dev_buf.h>

#include <stddef.h>

typedef struct dim3 {
    unsigned x, y, z;
} dim3;
typedef void *cudaStream_t;
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                     cudaStream_t stream);

static inline void step(const float *in, int n, pt_dev_buf buf)
{
    (void)in;
    (void)n;
    (void)buf;
}

#endif
