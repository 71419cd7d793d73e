/* Kernels of the GPU suite (tests/gpu/kernels.cu), callable from C so the
 * Criterion tests stay plain C with no CUDA header. Errors are CUDA's
 * codes; gpu_error() describes one. */
#ifndef PT_TESTS_GPU_KERNELS_H
#define PT_TESTS_GPU_KERNELS_H

#include <pt/pt.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when a CUDA device is usable; else 0 and why. */
int gpu_available(char *why, size_t n);
const char *gpu_error(int err);
/* A stream of its own (NULL on failure), and its end. */
pt_stream gpu_stream_create(void);
void gpu_stream_destroy(pt_stream s);
int gpu_stream_sync(pt_stream s);

/* `blocks` blocks of one warp; each runs `nphases` phases (1, 4 or 16) of
 * `ns` nanoseconds, each spun on %globaltimer and marked with
 * PT_DEV_MARK(phase), into buf. */
int gpu_spin_phases(pt_dev_buf buf, int nphases, int blocks, long long ns, pt_stream s);
/* The same, each phase read from memory, every other one marked in a
 * helper (PT_DEV_STATE, PT_DEV_MARK_IN); nphases 1 to 16. */
int gpu_spin_phases_runtime(pt_dev_buf buf, int nphases, int blocks, long long ns, pt_stream s);
/* One block spinning `ns` on %globaltimer, no marks. */
int gpu_spin_plain(long long ns, pt_stream s);
/* The span the last plain spin saw on %globaltimer (waits for it). */
int gpu_spin_plain_read(long long *measured);

#ifdef __cplusplus
}
#endif
#endif
