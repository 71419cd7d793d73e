/* Memory tracking (memory.c): what the writers read of it, and a saved
 * run's tracked memory restored. pt_track() and the rest are in pt.h.
 * Not installed. */
#ifndef PT_GPU_MEMORY_H
#define PT_GPU_MEMORY_H

#include "core/model.h"

#include <stddef.h>

/* The writers' walk of the tracked tensors, in the order tracked: 1 and
 * the fields of the next one from *at (0 to begin), *at moved past it; 0
 * past the end. */
PT__HIDDEN int pt__memory_tensor(const pt_timing *t, size_t *at, const char **name,
                                 const void **ptr, double *bytes, const long long **shape,
                                 int *ndims, const char **dtype);

/* A saved run's tracked memory, as the JSON export's "memory" object
 * holds it. */
typedef struct pt__restored_tensor {
    const char *name;
    double bytes;
    const long long *shape;   /* ndims sizes */
    int ndims;
    const char *dtype;        /* NULL or "" for none */
} pt__restored_tensor;

typedef struct pt__restored_memory {
    const pt__restored_tensor *tensors; /* in the order tracked */
    size_t ntensors;
    double total, peak;
    int device_sampled;       /* the export's device figures are numbers, not null */
    double device_free, device_total, device_used_peak;
} pt__restored_memory;

/* Replaces what t tracks with m, figures exactly as given (the total and
 * peak are not recomputed; no section's high-water mark moves). 0;
 * PT_EINVAL for a NULL t, m or name; PT_ERANGE for a figure that is not
 * finite and >= 0, or a shape pt_track() refuses; PT_ENOMEM (t unchanged). */
PT__HIDDEN int pt__restore_memory(pt_timing *t, const pt__restored_memory *m);

#endif
