/* The kernel of the torch sample and its launcher, in plain C types so
 * that they build without torch (the binding, phases_ext.cpp, adds torch). */
#ifndef PHASES_KERNEL_H
#define PHASES_KERNEL_H

#include <stddef.h>

#include <pt/pt_dev_buf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel argument from the bytes of ptkit's Phases.arg_bytes.
 * Returns 0, or -1 when they are not one pt_dev_buf (another size, or a
 * buffer made for other than the three phases). */
int phases_arg_from_bytes(const void *bytes, size_t n, pt_dev_buf *out);

/* y[b] = the sum over block b's tile of x after `rounds` of a logistic
 * map; gather, update and reduce are timed into buf. Returns the launch's
 * cudaError_t (0 on success). */
int phases_launch(const float *x, float *y, int n, int rounds, pt_dev_buf buf, void *stream);

/* Threads per block, the tile (THREE_PHASES_TILE of three_phases.cuh). */
#define PHASES_TILE 256

#ifdef __cplusplus
}
#endif
#endif
