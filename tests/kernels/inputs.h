/* Deterministic inputs for tests/kernels/' SGEMM and attention pass:
 * n values in [-1, 1) from a seed (xorshift), the same bits on every run,
 * so every form of a kernel computes from the same inputs. Host code of
 * the GPU benchmark and the GPU suite. */
#ifndef PT_TESTS_KERNELS_INPUTS_H
#define PT_TESTS_KERNELS_INPUTS_H

#include <stddef.h>

#include <vector>

static inline std::vector<float> kernel_inputs(size_t n, unsigned seed)
{
    std::vector<float> h(n);
    unsigned x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        h[i] = (float)(x >> 8) / (float)(1u << 23) - 1.0f;
    }
    return h;
}

#endif
