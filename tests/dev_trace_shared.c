/* The trace tests of tests/dev_trace.c with the accumulators of
 * shared-memory mode, the default of kernels built by nvcc and NVRTC
 * (PT_DEV_SHARED=1; on the CPU the block's array is a local one). */
#define PT_DEV_SHARED 1
#define DEV_TRACE_SUITE dev_trace_shared
#include "dev_trace.c"
