/** \file pt_ffi.h
 *  \brief The calls a binding from another language (Python's ctypes,
 *  Julia, Rust) makes instead of pt.h's macros: plain exported functions
 *  that take the metrics and the report options by pointer, the kernel
 *  argument through an out-pointer, and a check that the structs the
 *  binding mirrors have the size it was written for.
 *
 *  \code
 *  pt_metrics m = { .read = 1e9 };
 *  pt_start_with(t, "copy", &m);
 *  ...
 *  pt_stop_with(t, "copy", NULL);
 *  \endcode
 *  C and C++ programs use the macros of <pt/pt.h>; every name here is an
 *  exported symbol of libptkit, found by dlsym() as it is spelled. */
#ifndef PT_PT_FFI_H
#define PT_PT_FFI_H

#include <pt/pt.h>

PT__BEGIN_DECLS

/** The ABI of the structs and calls a binding mirrors: bumped when any of
 *  them changes its layout or meaning. */
#define PT_ABI_VERSION 2

/** \brief The PT_ABI_VERSION the library was built with.
 *  \return that number; a binding refuses a library whose number differs. */
PT_EXTERN int pt_abi_version(void);
/** \brief The size the library has for one of its public structs, by name:
 *  "pt_metrics", "pt_log_opts", "pt_dev_buf", "pt_dev_clock",
 *  "pt_section_stats", "pt_run_stats", "pt_peaks", "pt_memory_stats",
 *  "pt_schedule_info", "pt_thread_info", "pt_thread_part", "pt_span_stats".
 *  \return sizeof the struct, or 0 for NULL or a name not in the list. */
PT_EXTERN size_t pt_abi_sizeof(const char *type);

/** \brief pt_start() with the metrics by pointer (NULL: none). \return as pt_start(). */
PT_EXTERN int pt_start_with(pt_timing *t, const char *title, const pt_metrics *m);
/** \brief pt_stop() with the metrics by pointer (NULL: none). \return as pt_stop(). */
PT_EXTERN int pt_stop_with(pt_timing *t, const char *title, const pt_metrics *m);
/** \brief pt_add() with the metrics by pointer (NULL: none). \return as pt_add(). */
PT_EXTERN int pt_add_with(pt_timing *t, const pt_metrics *m);
/** \brief pt_start_gpu() with the metrics by pointer. \return as pt_start_gpu(). */
PT_EXTERN int pt_start_gpu_with(pt_timing *t, const char *title, pt_stream stream,
                                const pt_metrics *m);
/** \brief pt_stop_gpu() with the metrics by pointer. \return as pt_stop_gpu(). */
PT_EXTERN int pt_stop_gpu_with(pt_timing *t, const char *title, pt_stream stream,
                               const pt_metrics *m);
/** \brief pt_log() with the options by pointer (NULL: the defaults). \return as pt_log(). */
PT_EXTERN int pt_log_with(pt_timing *t, FILE *f, const pt_log_opts *o);
/** \brief pt_log_fn() with the options by pointer (NULL: the defaults).
 *  \return as pt_log_fn(). */
PT_EXTERN int pt_log_fn_with(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o);
/** \brief pt_dev_arg() through an out-pointer: the kernel argument, whose
 *  bytes a binding hands to a launch as they are (NULL records give the
 *  empty argument that the macros skip).
 *  \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_dev_arg_get(const pt_dev_records *b, pt_dev_buf *out);
/** \brief Where the records live.
 *  \return 1 in host memory (PT_DEV_HOST, or made without a device), 0 in
 *  device memory or for NULL. */
PT_EXTERN int pt_dev_records_host(const pt_dev_records *b);

PT__END_DECLS
#endif
