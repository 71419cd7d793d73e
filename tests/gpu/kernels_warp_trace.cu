/* The spin kernels with one record per warp and the trace stores compiled
 * in (PT_DEV_PER_WARP, PT_DEV_TRACING): roles whose timelines overlap. */
#define PT_DEV_PER_WARP
#define PT_DEV_TRACING
#define GPU_MODE warp_trace
#include "spin.cuh"
