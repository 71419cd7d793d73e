/* The spin kernels with the trace stores compiled in (PT_DEV_TRACING). */
#define PT_DEV_TRACING
#define GPU_MODE trace
#include "spin.cuh"
