/* The spin kernels in register mode (PT_DEV_SHARED=0). */
#define PT_DEV_SHARED 0
#define GPU_MODE reg
#include "spin.cuh"
