/* The roofline's peaks (roofline.c). Not installed. */
#ifndef PT_CORE_ROOFLINE_H
#define PT_CORE_ROOFLINE_H

#include "core/model.h"

/* FP32 FMA lanes per SM for compute capability major.minor; 0 if unknown. */
PT__HIDDEN int pt__fp32_lanes(int major, int minor);
/* "unknown", "memory" or "compute" for the writers. */
PT__HIDDEN const char *pt__bound_name(int bound);

#endif
