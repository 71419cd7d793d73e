/* The einsum parser behind pt_flops_einsum() (flops.c), pure (no
 * allocation, bounded loops) so that it can be fuzzed alone. Not installed. */
#ifndef PT_CORE_FLOPS_H
#define PT_CORE_FLOPS_H

#include "core/model.h"

#include <stddef.h>

typedef struct pt__einsum {
    int nops;
    double space;             /* product of every distinct letter's size */
    double out_size;          /* product of the output letters' sizes */
    double flops;             /* space * (nops - 1) + (space - out_size) */
} pt__einsum;
PT__HIDDEN int pt__einsum_parse(const char *sub, int nops, const long long *const *shapes,
                                const int *ndims, pt__einsum *res, char *why, size_t why_len);

#endif
