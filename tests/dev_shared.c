/* The host-mode tests of tests/dev_header.c with the accumulators of
 * shared-memory mode, the default of kernels built by nvcc and NVRTC
 * (PT_DEV_SHARED=1; on the CPU the block's array is a local one): the same
 * records, bad phases and slots, reused records and helpers. */
#define PT_DEV_SHARED 1
#define DEV_SUITE dev_shared
#include "dev_header.c"
