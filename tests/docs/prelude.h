/* What the examples of README.md and docs/ take as given: the program
 * around them (a timing, a stream, arrays, sizes, the user's kernels and
 * device functions). tests/docs/check.py compiles every block after it. */
#include <pt/pt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#  define PT_DOC_DEV __device__
#else
#  define PT_DOC_DEV
#endif

/* An example that defines PT_DEV_PHASES brings its own phases; the others take these. */
#ifndef PT_DOC_OWN_PHASES
enum { PH_ANGULAR, PH_ENERGY, PH_STREAM, PH_LINE_SEARCH, PH_COUNT };
#  define PT_DEV_PHASES PH_COUNT
#  include <pt/pt_dev.h>
static const char *names[] = { "angular_scattering", "energy_loss", "spatial_streaming",
                               "line_search" };
void block_work(int block, int tid, int nthreads, float *x, float *out, pt_dev_buf buf);
#  ifdef __CUDACC__
__global__ void step(float *x, pt_dev_buf buf);
#  endif
#endif

extern pt_timing *t;
extern pt_stream stream;
extern float *x, *out, *d, *h, *d_psi;
extern size_t n, bytes;
extern int steps, blocks, threads, rank;
extern long long m, k;
extern double f, a_bytes, b_bytes, c_bytes;
extern void *ctx;
void my_logger(void *ctx, const char *line);

PT_DOC_DEV void angular_scattering(float *x);
PT_DOC_DEV void energy_loss(float *x);
PT_DOC_DEV void spatial_streaming(float *x);
