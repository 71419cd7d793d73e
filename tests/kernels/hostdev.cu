/* The same phase code on the GPU and on the CPU: a __host__ __device__
 * function with marks, compiled by nvcc into a kernel (never launched here:
 * there may be no GPU) and called from main() on the CPU, where pt_dev.h
 * uses its host clocks. main() prints the buffer, one word per line, for
 * tests/dev_compile.c to check:
 *   slot 0: phase 0 spun 2 ms, phase 1 spun 1 ms, twice;
 *   slot 1: phase 2 marked 1000 times, then an out-of-range phase;
 *   slot 2: phase 1 marked once, then a return before PT_DEV_END, whose
 *           record BEGIN's guard writes (C++). */
#include <pt/pt_dev.h>

#include <stdio.h>
#include <stdlib.h>

static __host__ __device__ void spin_ns(long long ns)
{
#if defined(__CUDA_ARCH__)
    long long t0 = clock64();
    while (clock64() - t0 < ns)
        ;
#else
    long long t0 = pt_dev_host_ns();
    while (pt_dev_host_ns() - t0 < ns)
        ;
#endif
}

static __host__ __device__ void work(pt_dev_buf buf, int slot)
{
    PT_DEV_BEGIN_AT(buf, slot);
    if (slot == 0) {
        for (int r = 0; r < 2; r++) {
            spin_ns(2000000);
            PT_DEV_MARK(0);
            spin_ns(1000000);
            PT_DEV_MARK(1);
        }
    } else if (slot == 1) {
        for (int r = 0; r < 1000; r++)
            PT_DEV_MARK(2);
        PT_DEV_MARK(PT_DEV_MAX_PHASES + slot - 1); /* out of range, known at run time */
    } else {
        PT_DEV_MARK(1);
        return;
    }
    PT_DEV_END(buf);
}

__global__ void work_kernel(pt_dev_buf buf)
{
    work(buf, (int)blockIdx.x);
}

int main(void)
{
    enum { NSLOTS = 3, NPHASES = 3 };
    long long words = PT_DEV_BUF_WORDS(NSLOTS, NPHASES, 0);
    long long *data = (long long *)calloc((size_t)words, sizeof *data);
    pt_dev_buf buf = { data, NSLOTS, NPHASES, 0, PT_DEV_MODE_AGGREGATE };
    if (!data)
        return 1;
    data[PT_DEV_H_MAGIC] = PT_DEV_MAGIC;
    data[PT_DEV_H_LAYOUT] = PT_DEV_LAYOUT;
    data[PT_DEV_H_NSLOTS] = NSLOTS;
    data[PT_DEV_H_NPHASES] = NPHASES;
    for (int s = 0; s < NSLOTS; s++)
        work(buf, s);
    for (long long i = 0; i < words; i++)
        printf("%lld\n", data[i]);
    free(data);
    return 0;
}
