/* libFuzzer target: the einsum parser behind pt_flops_einsum(). The input
 * is split into operand shapes and the expression:
 *   byte 0         number of operands - 1 (mod 4)
 *   per operand    a byte of dimensions (mod 6), then a byte per size (mod 17)
 *   the rest       the subscripts
 * so expressions and shapes that fit each other are reached often. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/flops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* flops.c is linked alone; its only caller of pt__fail is the inline
 * helper that records on a timing, which this target never calls. */
int pt__fail(pt_timing *t, int code, const char *fmt, ...)
{
    (void)t;
    (void)fmt;
    return code;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    long long dims[4][5];
    const long long *shapes[4];
    int ndims[4], nops;
    size_t i = 0;
    char *sub, why[256];
    double out;

    if (size < 1)
        return 0;
    nops = data[i++] % 4 + 1;
    for (int k = 0; k < nops; k++) {
        ndims[k] = i < size ? data[i++] % 6 : 0;
        if (ndims[k] > 5)
            ndims[k] = 5;
        for (int d = 0; d < ndims[k]; d++)
            dims[k][d] = i < size ? data[i++] % 17 : 1;
        shapes[k] = dims[k];
    }
    sub = malloc(size - i + 1);
    if (!sub)
        return 0;
    memcpy(sub, data + i, size - i);
    sub[size - i] = '\0';
    pt_flops_einsum(&out, sub, nops, shapes, ndims, why, sizeof why);
    free(sub);
    return 0;
}
