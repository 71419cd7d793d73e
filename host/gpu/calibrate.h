/* Cycles into time (calibrate.c): how many clock64 cycles a globaltimer
 * nanosecond holds on a device, and how coarsely globaltimer ticks.
 * Not installed. */
#ifndef PT_GPU_CALIBRATE_H
#define PT_GPU_CALIBRATE_H

#include "gpu/cuda.h"

typedef struct pt__calib {
    int ok;                   /* 1 when cycles_per_ns and tick_ns are measured */
    double cycles_per_ns;     /* clock64 cycles per globaltimer ns */
    double tick_ns;           /* smallest globaltimer step */
    int smid;                 /* where the calibration kernel ran */
    double mark_cycles;       /* one PT_DEV_MARK's cost; 0 when not measured */
    char name[96];            /* device name, or "host" */
    char why[192];            /* why not ok */
} pt__calib;

/* The calibration of device `device` (-1: the host clocks of host mode),
 * measured once per process and runtime. Never fails; out->ok says
 * whether it holds. */
PT__HIDDEN void pt__calib_get(const pt__cuda_api *cu, int device, pt__calib *out);
/* Tests: make device's calibration exactly these figures (cycles_per_ns
 * <= 0 removes the override). */
PT__HIDDEN void pt__calib_set(int device, double cycles_per_ns, double tick_ns);
/* Tests: make device's measured mark cost exactly this (after pt__calib_set). */
PT__HIDDEN void pt__calib_set_mark(int device, double mark_cycles);
/* ptkit's reduction kernel on cu, or NULL with why filled. */
PT__HIDDEN pt__cukernel pt__reduce_kernel(const pt__cuda_api *cu, char *why, size_t n);

/* The embedded fatbins (generated; empty with CUDA=0). */
extern const unsigned long long pt__fatbin_calibrate[];
extern const size_t pt__fatbin_calibrate_size;
extern const unsigned long long pt__fatbin_reduce[];
extern const size_t pt__fatbin_reduce_size;

#endif
