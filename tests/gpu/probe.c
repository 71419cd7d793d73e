/* What a program that times GPU sections is told about its CUDA runtime,
 * run by the GPU suite with PT_CUDART or CUDA_VISIBLE_DEVICES set: one
 * line per figure. Links libptkit alone, as a CPU program would. */
#include <pt/pt.h>

#include <inttypes.h>
#include <stdio.h>

#include "gpu/cuda.h"

int main(void)
{
    pt_timing *t = pt_create("probe", PT_GPU_EVENTS);
    pt_run_stats r;

    pt_start_gpu(t, "k", NULL);
    pt_stop_gpu(t, "k", NULL);
    if (pt_run_get(t, &r) != 0)
        return 1;
    printf("gpu_timing=%d\nruntime=%s\nwhy=%s\nnote=%s\nerrors=%" PRIu64 "\n", r.gpu_timing,
           pt__cuda_origin(), r.gpu_fallback_why, pt_last_note(t), r.error_count);
    pt_destroy(t);
    return 0;
}
