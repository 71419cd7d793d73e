/* The spin kernels with one record per warp (PT_DEV_PER_WARP, registers). */
#define PT_DEV_PER_WARP
#define GPU_MODE warp
#include "spin.cuh"
