/* The calls a binding from another language makes (<pt/pt_ffi.h>): the
 * macros' functions with the metrics and options by pointer, the kernel
 * argument through an out-pointer, and the sizes of the public structs,
 * so a binding can refuse a library whose structs it does not mirror
 * instead of reading past them. On every layer (the sections, the GPU
 * side's records, the text report), so it sits on the top one. */
#include <pt/pt_ffi.h>

#include "gpu/records.h"

#include <string.h>

int pt_abi_version(void)
{
    return PT_ABI_VERSION;
}

size_t pt_abi_sizeof(const char *type)
{
#define PT__ABI_TYPES(X)                                                                \
    X(pt_metrics) X(pt_log_opts) X(pt_dev_buf) X(pt_dev_clock) X(pt_section_stats)      \
    X(pt_run_stats) X(pt_peaks) X(pt_memory_stats) X(pt_schedule_info) X(pt_thread_info) \
    X(pt_thread_part) X(pt_span_stats)
#define PT__ABI_SIZE(name)             \
    if (strcmp(type, #name) == 0)      \
        return sizeof(name);
    if (!type)
        return 0;
    PT__ABI_TYPES(PT__ABI_SIZE)
#undef PT__ABI_SIZE
#undef PT__ABI_TYPES
    return 0;
}

int pt_start_with(pt_timing *t, const char *title, const pt_metrics *m)
{
    return pt__start(t, title, m);
}

int pt_stop_with(pt_timing *t, const char *title, const pt_metrics *m)
{
    return pt__stop(t, title, m);
}

int pt_add_with(pt_timing *t, const pt_metrics *m)
{
    return pt__add(t, m);
}

int pt_start_gpu_with(pt_timing *t, const char *title, pt_stream stream, const pt_metrics *m)
{
    return pt__start_gpu(t, title, stream, m);
}

int pt_stop_gpu_with(pt_timing *t, const char *title, pt_stream stream, const pt_metrics *m)
{
    return pt__stop_gpu(t, title, stream, m);
}

int pt_log_with(pt_timing *t, FILE *f, const pt_log_opts *o)
{
    return pt__log(t, f, o);
}

int pt_log_fn_with(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o)
{
    return pt__log_fn(t, fn, ctx, o);
}

int pt_dev_arg_get(const pt_dev_records *b, pt_dev_buf *out)
{
    if (!out)
        return PT_EINVAL;
    *out = pt_dev_arg(b);
    return 0;
}

int pt_dev_records_host(const pt_dev_records *b)
{
    return b && b->host;
}
