/* Kernels of the GPU suite (tests/gpu/kernels*.cu), callable from C so the
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
/* cudaStreamPerThread, the calling thread's default stream. */
pt_stream gpu_stream_per_thread(void);
/* The device's name, its clock rate (kHz) and compute capability. */
int gpu_device_info(char *name, size_t n, int *clock_khz, int *major, int *minor);
/* cudaMemcpy from the device. */
int gpu_copy_back(void *host, const void *dev, size_t bytes);
/* cudaMalloc of bytes at *dev, holding host's bytes (zeros when host is
 * NULL); and cudaFree. */
int gpu_alloc_copy(void **dev, const void *host, size_t bytes);
void gpu_free(void *dev);

/* tests/kernels/' SGEMM (n x n, n a multiple of 32) and attention pass
 * (`heads` heads of `seq` rows, seq a multiple of 32) launched in their
 * GPU_NFORMS forms on the same inputs: bare, ptkit in shared memory and in
 * registers, by hand, and ptkit in shared memory with END's DONE a
 * release store (PT_DEV_END_RELEASE; the ptkit forms into recs, one after
 * the other, pt_dev_reset before each); hash[form] is the output's bits
 * hashed (forms.cu). A CUDA error, or a ptkit one (negative). */
enum { GPU_NFORMS = 5 };
int gpu_forms_gemm(int n, pt_dev_records *recs, unsigned long long hash[GPU_NFORMS]);
int gpu_forms_attention(int heads, int seq, pt_dev_records *recs,
                        unsigned long long hash[GPU_NFORMS]);

/* The forms pt_dev.h's marks are compiled in: shared memory (the default),
 * registers (PT_DEV_SHARED=0), a record per warp (PT_DEV_PER_WARP) and
 * with the trace stores (PT_DEV_TRACING). */
typedef enum gpu_mode { GPU_SHARED, GPU_REG, GPU_WARP, GPU_TRACE, GPU_NMODES } gpu_mode;
const char *gpu_mode_name(gpu_mode m);

/* `blocks` blocks of `threads`; each runs `rounds` times `nphases` phases
 * (1, 3, 4 or 16) of `ns` nanoseconds, each spun on %globaltimer and
 * marked with PT_DEV_MARK(phase), into buf. */
int gpu_spin_phases(gpu_mode m, pt_dev_buf buf, int nphases, int blocks, int threads,
                    long long ns, int rounds, pt_stream s);
/* The same once over, each phase read from memory, every other one marked
 * in a helper (PT_DEV_STATE, PT_DEV_MARK_IN); nphases 1 to 16; blocks of
 * one warp. */
int gpu_spin_phases_runtime(gpu_mode m, pt_dev_buf buf, int nphases, int blocks, long long ns,
                            pt_stream s);
/* Phases 0..nphases-1 of `ns`, then one more of phase `bad_phase`; the last
 * block begins at slot `bad_slot` (PT_DEV_BEGIN_AT) instead of its own.
 * Shared-memory mode. */
int gpu_spin_bad(pt_dev_buf buf, int nphases, int blocks, long long ns, long long bad_slot,
                 int bad_phase, pt_stream s);
/* `runs` launches of 4 phases of `ns` in `blocks` blocks, each by one
 * PT_LAUNCH (the .cu form) into the GPU section "spin" of t, with records
 * b grown to the grid by the first. Shared-memory mode. */
int gpu_launch_spin4_shared(pt_timing *t, pt_dev_records *b, int blocks, int threads, long long ns,
                            int runs, pt_stream s);
/* A graph of three kernels ("k0".."k2", 4 phases of ns in `blocks`
 * blocks, records recs[k] of `blocks` slots), captured PT_LAUNCHes or
 * (how & GPU_GRAPH_NODES) kernel nodes of pt_graph_add_kernel, replayed
 * `replays` times by pt_graph_launch as "graph", timed by events or (how
 * & GPU_GRAPH_KERNELS) by its kernels' clocks, an event each 8 replays
 * (pt_graph_time_by_kernels), then pt_sync. Shared-memory mode. Returns
 * 0, a CUDA error, or ptkit's (negative). */
enum { GPU_GRAPH_NODES = 1, GPU_GRAPH_KERNELS = 2 };
int gpu_graph_spin3_shared(pt_timing *t, pt_dev_records *const recs[3], int blocks, long long ns,
                           int replays, int how);
/* Warp roles (PT_DEV_PER_WARP): in `blocks` blocks of 3 warps, warp 0
 * spins 2 phases of `ns` into `producer` (a slot a block), warps 1 and 2
 * spin 3 phases of `ns` into `consumer` (two slots a block). */
int gpu_spin_roles_warp(pt_dev_buf producer, pt_dev_buf consumer, int blocks, long long ns,
                        pt_stream s);
/* The same with trace stores (PT_DEV_TRACING): each mark an event. */
int gpu_spin_roles_warp_trace(pt_dev_buf producer, pt_dev_buf consumer, int blocks, long long ns,
                              pt_stream s);
/* tests/gpu/pipeline90.cu: `blocks` blocks of a producer warp filling 4
 * shared-memory stages of 1,024 floats by cp.async.bulk and mbarriers,
 * and 4 consumer warps summing them, `tiles` tiles a block from in
 * (blocks x tiles x 1024 floats); thread i of a block's consumers writes
 * its sum to out[block * 128 + i]. Roles per warp, traced: the producer's
 * 2 phases (wait empty, issue) into `producer` (a slot a block), the
 * consumers' 3 (wait full, sum, release) into `consumer` (4 a block); a
 * "load" span (kind 0, id the tile) from the issue to the first consumer
 * warp's full wait. -1 on a device before sm_90, else a CUDA error. */
int gpu_bulk_pipeline(const float *in, float *out, int blocks, int tiles, pt_dev_buf producer,
                      pt_dev_buf consumer, pt_stream s);
/* tests/gpu/wgmma90.cu: `blocks` blocks of a producer warp filling 4
 * stages by cp.async.bulk and a consumer warp group multiplying them by
 * wgmma (m64n8k16, f16 in, f32 out). gpu_wgmma_upload() lays out a
 * (blocks x tiles x 64 x 16 floats, row-major tiles) and b (blocks x tiles
 * x 16 x 8) as the kernel reads them, in halves, into new device memory
 * (*da, *db; gpu_free them); gpu_wgmma() then writes each block's sum over
 * its tiles of a times b to c (blocks x 64 x 8). Roles per warp, traced:
 * the producer's 2 phases (wait empty, issue) into `producer` (a slot a
 * block), the consumers' 3 (wait full, mma issue, mma wait) into
 * `consumer` (4 a block); spans "load" (kind 0, id the tile: issue to full
 * wait) and "mma" (kind 1: commit to done). swap exchanges the
 * descriptors' byte offsets. -1 where not built for sm_90a or on a device
 * other than compute capability 9.0, else a CUDA error. */
int gpu_wgmma_upload(const float *a, const float *b, int blocks, int tiles, void **da, void **db);
int gpu_wgmma(const void *a, const void *b, float *c, int blocks, int tiles, int swap,
              pt_dev_buf producer, pt_dev_buf consumer, pt_stream s);
/* The same, one block in `every` recording (PT_DEV_BEGIN_EVERY), the
 * records told so (pt_dev_records_sample). Shared-memory mode. */
int gpu_launch_spin4_every_shared(pt_timing *t, pt_dev_records *b, int blocks, int threads,
                                  long long ns, int every, int runs, pt_stream s);
/* One block spinning `ns` on %globaltimer, no marks. */
int gpu_spin_plain(long long ns, pt_stream s);
/* The span the last plain spin saw on %globaltimer (waits for stream s,
 * where it ran: a copy on the legacy stream would not wait for a stream
 * created non-blocking). */
int gpu_spin_plain_read(long long *measured, pt_stream s);
/* What the recording threads of gpu_spin_phases() and
 * gpu_spin_phases_runtime() saw of each phase on %globaltimer, in ns,
 * summed per phase over every recording thread of every launch: the
 * spins (inside the phase: a phase is at least its spin) and the windows
 * (from a read just before the mark or BEGIN that opens the phase to one
 * just after the mark that closes it: a phase is at most its window). */
typedef struct gpu_spins {
    long long spin[16];
    long long window[16];
} gpu_spins;

/* The sums since the last call, for mode m (actual may be NULL); waits
 * for the device, and starts the sums again at 0. */
int gpu_spin_actual(gpu_mode m, gpu_spins *actual);

/* The spin kernel of `nphases` phases (1 to 16) compiled at run time by
 * NVRTC with pt_nvrtc_headers(), loaded with the driver API
 * (cuModuleLoadData, through libcuda.so.1 opened at run time) and
 * launched with cuLaunchKernel: 0, or -1 with why. */
int gpu_nvrtc_spin(pt_dev_buf buf, int nphases, int blocks, long long ns, pt_stream s,
                   char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
