/** \file pt.h
 *  \brief ptkit's host API: a tree of named, nested, timed sections with the
 *  bytes and FLOPS the user declares, CUDA-event-timed launches, in-kernel
 *  phases folded under them, and the reports.
 *
 *  This file is the API and its documentation. The calls written as
 *  macros (pt_start() and the others that take metrics or options as
 *  designated initializers) are documented here by name and defined in
 *  <pt/detail/pt_host_impl.h> with the rest of the machinery; names
 *  beginning with pt__ or PT__ are internal.
 *
 *  Every function accepts a NULL `pt_timing *` and then does nothing and
 *  returns 0, so `pt_timing *t = profiling ? pt_create(...) : NULL;` costs
 *  a branch per call when profiling is off. Compiling with `-DPT_DISABLE`
 *  removes the calls altogether: pt_create() gives NULL, and pt_start(),
 *  pt_stop(), pt_add(), the GPU sections, PT_SECTION() and PT_FUNC() are
 *  each an int 0 that evaluates nothing (their arguments only inside
 *  sizeof, so a variable used only for timing stays used), with no
 *  warning as a statement.
 *
 *  The header compiles cleanly with -Wall -Wextra -Wpedantic as C11 and
 *  as C++11, 14, 17 and 20 (g++, clang++, and nvcc's host pass).
 *
 *  Calls that can fail return 0 or a negative PT_E... code; the failure is
 *  also counted and described on the `pt_timing` (pt_error_count(),
 *  pt_last_error()). Nothing aborts and nothing is printed unless asked
 *  (PT_VERBOSE, pt_error_fn_set()). */
#ifndef PT_PT_H
#define PT_PT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pt/pt_version.h>
#include <pt/pt_dev_buf.h>
#include <pt/detail/pt_api.h>

PT__BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Errors                                                             */
/* ------------------------------------------------------------------ */

/** The one table of error codes: name, value, message. */
#define PT_ERRNO_MAP(X)                                                     \
    X(EINVAL,    -1, "invalid argument")                                    \
    X(ENOMEM,    -2, "out of memory")                                       \
    X(ENOSTART,  -3, "stop without a start")                                \
    X(EMISMATCH, -4, "stop does not match the open section")                \
    X(EOPEN,     -5, "sections still open")                                 \
    X(EIO,       -6, "I/O error")                                           \
    X(ECUDA,     -7, "CUDA call failed")                                    \
    X(ENODEV,    -8, "no CUDA device or driver")                            \
    X(EFULL,     -9, "buffer full: events dropped")                         \
    X(ENOTFOUND, -10, "no such section")                                    \
    X(ERANGE,    -11, "value out of range")                                 \
    X(ESTATE,    -12, "not allowed in the current state")                   \
    X(EPARSE,    -13, "malformed input")                                    \
    X(ETHREAD,   -14, "section stopped on another thread than its start")

/** Error codes: 0 is success, every error is negative. */
typedef enum pt_errno {
    PT_OK = 0,
#define PT__ERR_ENUM(name, value, msg) PT_##name = (value),
    PT_ERRNO_MAP(PT__ERR_ENUM)
#undef PT__ERR_ENUM
    PT__ERR_LAST = -15
} pt_errno;

/** \brief A sentence for an error code.
 *  \return a static string; "unknown error" for a code not in the table. */
PT_EXTERN const char *pt_strerror(int code);
/** \brief The symbolic name of an error code ("PT_EINVAL").
 *  \return a static string; "PT_UNKNOWN" for a code not in the table. */
PT_EXTERN const char *pt_err_name(int code);

/* ------------------------------------------------------------------ */
/* Types                                                              */
/* ------------------------------------------------------------------ */

/** A timing: the tree of sections and everything measured into it. */
typedef struct pt_timing pt_timing;
/** One node of the tree: a title under a parent, aggregated over its occurrences. */
typedef struct pt_section pt_section;
/** The records of a kernel's phases, on the host side: the buffer behind
 *  the kernel argument `pt_dev_buf` (see pt_dev_records_create(),
 *  pt_dev_arg()). */
typedef struct pt_dev_records pt_dev_records;
/** A CUDA stream; the same type as `cudaStream_t`, without CUDA's headers. */
typedef struct CUstream_st *pt_stream;

/** Flags for pt_create(). */
enum pt_flags {
    PT_CPU        = 0,       /**< CPU clock only (the default) */
    PT_GPU_EVENTS = 1u << 0, /**< pt_start_gpu()/pt_stop_gpu() record CUDA events */
    PT_SYNC       = 1u << 1, /**< pt_stop_gpu() synchronizes the stream and resolves at once */
    PT_NVTX       = 1u << 2, /**< every section is also an NVTX range */
    PT_VERBOSE    = 1u << 3, /**< describe each error on stderr as it happens */
    PT_NO_TSC     = 1u << 4, /**< use clock_gettime even where an invariant TSC is available */
    PT_TRACE      = 1u << 5  /**< keep a bounded log of occurrences for pt_export_trace() */
};

/** Directions for pt_transfer(). Exactly one per call. */
enum pt_direction {
    PT_H2D = 1u << 0, /**< host to device (PCIe / NVLink-C2C) */
    PT_D2H = 1u << 1, /**< device to host */
    PT_D2D = 1u << 2  /**< device to device */
};

/** The figures a section carries, given on start, on stop or while inside.
 *  In C (and C++20, keeping the order read, written, flops) they are
 *  designated initializers in the calls:
 *  `pt_stop(t, "x", .read = 1024, .flops = 4556334)`. In C++ before C++20,
 *  which has no designated initializers, they are one value built by name:
 *  `pt_stop(t, "x", pt::read(1024).flops(4556334))` (pt::read, pt::written,
 *  pt::flops or pt::metrics(), each setter returning the value; any C++
 *  standard takes it). A call without metrics, `pt_stop(t, "x")`, reads
 *  the same in C and every C++, and compiles cleanly under -Wpedantic. A
 *  macro of your own may forward its metrics, none included:
 *  `#define my_stop(title, ...) pt_stop(my_timing, (title), __VA_ARGS__)`
 *  then `my_stop("x", )` gives none. Negative or non-finite values are
 *  rejected with PT_ERANGE and nothing of that call's metrics is added. */
typedef struct pt_metrics {
    int pt__tag PT__DEF(0);     /**< internal: always 0, lets a call give no metric */
    double read PT__DEF(0);     /**< bytes read */
    double written PT__DEF(0);  /**< bytes written */
    double flops PT__DEF(0);    /**< floating-point operations */
} pt_metrics;

/** A clock for pt_clock_set(): nanoseconds from any fixed origin, never decreasing. */
typedef int64_t (*pt_clock_fn)(void *ctx);
/** A line sink for pt_log_fn() and pt_error_fn_set(); `line` has no newline. */
typedef void (*pt_line_fn)(void *ctx, const char *line);

/* ------------------------------------------------------------------ */
/* Life cycle                                                         */
/* ------------------------------------------------------------------ */

/** \brief Create a timing.
 *
 *  The environment variable PT_OUTPUT, read here, names reports that
 *  pt_destroy() writes without a line of code: a comma-separated list of
 *  `log` (the text report on stderr), `json`, `csv`, `html`, `trace`,
 *  each alone (to "%n.json" and so on: %n is the timing's name as a file
 *  name) or as KIND=PATH, e.g. `PT_OUTPUT=log,html=run.html,trace=%n-%r.json`
 *  (paths are export templates: %r the rank, %p the process id). `trace`
 *  turns PT_TRACE on. What names no output is counted here (PT_EINVAL).
 *  \param name  the title of the whole run ("LED Optimization Module"); copied
 *  \param flags PT_CPU, or PT_GPU_EVENTS and others from enum pt_flags, or'ed
 *  \return the timing, or NULL when memory is short (and every call on NULL is a no-op). */
PT_EXTERN pt_timing *pt_create(const char *name, unsigned flags);
/** \brief Free a timing and all it holds; NULL is a no-op. Pending GPU
 *  events are released without being waited for. */
PT_EXTERN void pt_destroy(pt_timing *t);
/** \brief The process-wide timing, created on first use ("ptkit", PT_CPU).
 *  Thread-safe. pt_destroy(pt_default()) frees it; the next call makes a new one.
 *  \return the default timing, or NULL when memory is short. */
PT_EXTERN pt_timing *pt_default(void);
/** \brief Stop recording: starts and stops become no-ops (pairs stay matched). */
PT_EXTERN void pt_disable(pt_timing *t);
/** \brief Record again after pt_disable(). */
PT_EXTERN void pt_enable(pt_timing *t);
/** \brief 1 when recording, 0 when disabled or t is NULL. */
PT_EXTERN int pt_enabled(const pt_timing *t);
/** \brief Forget every section, figure and error; open sections are closed
 *  and dropped. The name, flags and clock stay. */
PT_EXTERN void pt_reset(pt_timing *t);
/** \brief Replace the clock (tests, simulations). Only while no section is open.
 *  \param fn nanoseconds; NULL restores the built-in clock
 *  \return 0, or PT_ESTATE if a section is open. */
PT_EXTERN int pt_clock_set(pt_timing *t, pt_clock_fn fn, void *ctx);
/** \brief The name given to pt_create(), or "" for NULL. */
PT_EXTERN const char *pt_name(const pt_timing *t);

/* ------------------------------------------------------------------ */
/* Sections                                                           */
/* ------------------------------------------------------------------ */


/** \def pt_start(t, title, ...)
 *  \brief Open the section `title` under the open one (or at the top).
 *  The title is copied the first time it is seen under that parent. Any
 *  string is a title, of any length and bytes, "" included (pt_find()
 *  cannot name an empty title; walk to it with pt_section_child()).
 *  Metrics may follow: `pt_start(t, "x", .read = 1024)`.
 *  \return 0, PT_EINVAL for a NULL title, PT_ERANGE for a bad metric, PT_ENOMEM. */
/** \def pt_stop(t, title, ...)
 *  \brief Close the open section, which must be `title`; metrics may follow.
 *  \return 0; PT_ENOSTART when nothing is open; PT_EMISMATCH when the open
 *  section is another one (nothing is closed; the message names the stack). */
/** \def pt_add(t, ...)
 *  \brief Add metrics to the open section: `pt_add(t, .written = 234544)`.
 *  \return 0, PT_ENOSTART when no section is open, PT_ERANGE. */

/** \brief Record a transfer of `bytes` in one direction inside the open section.
 *  \param dir exactly one of PT_H2D, PT_D2H, PT_D2D
 *  \return 0, PT_EINVAL for a bad direction, PT_ENOSTART, PT_ERANGE. */
PT_EXTERN int pt_transfer(pt_timing *t, double bytes, unsigned dir);


/** \def PT_SECTION(t, title, ...)
 *  \brief A scoped section: `PT_SECTION(t, "name", .flops = n) { ... }`.
 *  With GCC and Clang (and nvcc, which uses them) the section ends however
 *  control leaves the block: falling off its end, return, goto, or
 *  break/continue. Note that break and continue inside the block leave the
 *  section itself, not a loop around it. Compilers without the cleanup
 *  attribute only end it when control falls off the end. */
/** \def PT_FUNC(t)
 *  \brief At the top of a function: time the rest of it under the
 *  function's name, as PT_SECTION() times a block. */

/* ------------------------------------------------------------------ */
/* GPU sections and in-kernel phases                                  */
/* ------------------------------------------------------------------ */

/** \def pt_start_gpu(t, title, stream, ...)
 *  \brief Open a section timed by CUDA events on `stream` (0: the default
 *  stream). No host synchronization. Without PT_GPU_EVENTS, a GPU or a
 *  driver it is timed by the CPU clock, and the report says so once.
 *  \return as pt_start(); a CUDA failure is PT_ECUDA and falls back to the CPU clock. */
/** \def pt_stop_gpu(t, title, stream, ...)
 *  \brief Close a section opened by pt_start_gpu(). Its time is resolved
 *  lazily (report, export, fold, pt_sync(), or when the event pool runs
 *  low), or at once with PT_SYNC. */


/** \brief Wait for every pending CUDA event and fold, and put their times in the tree.
 *  \return 0, or the first error met (each is also counted). */
PT_EXTERN int pt_sync(pt_timing *t);

/** Flags for pt_dev_records_create(). */
enum pt_dev_flags {
    PT_DEV_AGGREGATE = 0,       /**< per slot, per phase: cycles and hits (default) */
    PT_DEV_TRACE     = 1u << 0, /**< also a bounded list of (phase, clock64) events per slot,
                                     which kernels built with PT_DEV_TRACING store */
    PT_DEV_HOST      = 1u << 1, /**< records in host memory: pt_dev.h's host mode, CPU loops */
    PT_DEV_WARP_SLOTS = 1u << 2 /**< one slot per warp (kernels built with PT_DEV_PER_WARP):
                                     PT_LAUNCH sizes the records blocks x warps */
};

/** \brief Names the span kinds the kernel's PT_DEV_SPAN_BEGIN/END use:
 *  kind k is names[k] in the reports (copied); a kind past them is
 *  "span k". \return 0, or PT_EINVAL for a NULL b, n outside [0, 65536]
 *  or a NULL name; PT_ENOMEM. */
PT_EXTERN int pt_dev_records_spans(pt_dev_records *b, int n, const char *const *names);

/** \brief Names the phases that are waits (for a barrier, a stage, a
 *  load): the time a slot spends in them is no work. With trace records
 *  (PT_DEV_TRACE), a launch (or each role of it) then gives its work, its
 *  overlap with the other roles and its waits with nothing in flight
 *  (pt_section_stats' busy_ms .. bubble_ms); a role gives them whether it
 *  names waits or not. n 0 names none. \return 0, or PT_EINVAL for a NULL
 *  b, a negative n, a NULL phases with n > 0 or a phase out of range;
 *  PT_ENOMEM. */
PT_EXTERN int pt_dev_records_waits(pt_dev_records *b, int n, const int *phases);

/** \brief The kernel records a sample of its slots: one in `every`
 *  (PT_DEV_BEGIN_EVERY(buf, every)), or the blocks PT_DEV_BEGIN_IF keeps,
 *  about as many. PT_LAUNCH then sizes the records to ceil(slots / every)
 *  (a slot per kept block, and a kept block without its record is still
 *  said), and every report says that the launch was sampled, 1 in every,
 *  and of how many slots: its phases are the sampled blocks' shares of
 *  the launch, its per-block figures the sample's; nothing is scaled up.
 *  every 1 records every slot again.
 *  \return 0, or PT_EINVAL for a NULL b or every below 1. */
PT_EXTERN int pt_dev_records_sample(pt_dev_records *b, int every);

/** \brief Allocate a record buffer for a grid and zero it.
 *  \param nslots    blocks in the grid (blocks x warps with PT_DEV_PER_WARP);
 *                   0 leaves it to the first PT_LAUNCH(), which grows it to its grid
 *  \param nphases   phases per record (the `_COUNT` of a ptgen header)
 *  \param names     nphases phase names, copied; NULL names them "phase N"
 *  \param flags     PT_DEV_AGGREGATE or PT_DEV_TRACE, plus PT_DEV_HOST
 *  \param trace_cap events per slot in trace mode (ignored otherwise)
 *  \return the buffer, or NULL on failure (counted on t as PT_ENOMEM,
 *  PT_ECUDA or PT_ENODEV; PT_ERANGE for nphases or trace_cap from
 *  PT_DEV_SHAPE_MAX up). Without a device, it is made in host memory. */
PT_EXTERN pt_dev_records *pt_dev_records_create(pt_timing *t, int nslots, int nphases,
                                              const char *const *names, unsigned flags,
                                              int trace_cap);
/** \brief The kernel argument: `k<<<g, b>>>(x, pt_dev_arg(buf))`. A NULL
 *  buffer gives a buffer with no slots, which the macros skip. */
PT_EXTERN pt_dev_buf pt_dev_arg(const pt_dev_records *b);
/** \brief Zero the records on `stream` (asynchronously) for the next launch.
 *  \return 0, PT_ECUDA. */
PT_EXTERN int pt_dev_reset(pt_dev_records *b, pt_stream stream);
/** \brief Free a buffer (after pending folds that use it are resolved). NULL is a no-op. */
PT_EXTERN void pt_dev_records_free(pt_dev_records *b);
/** \brief Fold the buffer's records into the section `title` under the
 *  open section: one child per phase and an "(unattributed)" child, so
 *  the children add up to the launch's time. Copies asynchronously on the
 *  stream of the launch's pt_stop_gpu() and resolves lazily.
 *  \return 0; PT_ENOTFOUND when no such section was stopped; PT_ESTATE
 *  when the launch is still open or folded already, the records were not
 *  reset since their last fold, or no slot finished; PT_ERANGE for marks
 *  or slots out of range and records no kernel writes (left out);
 *  PT_EFULL for trace events dropped; PT_EINVAL for a NULL argument or a
 *  header that does not match the buffer; PT_ENODEV when no kernel ran;
 *  PT_ECUDA; PT_ENOMEM. Each described, and whatever could be folded is. */
PT_EXTERN int pt_dev_fold(pt_timing *t, pt_dev_records *b, const char *title);

/** \brief pt_dev_fold() into a role of the launch: the section `role`
 *  under `title`, of the launch's kind, lasting the launch, whose phases and
 *  "(unattributed)" add up to the launch as a launch's own do. For a
 *  warp-specialized kernel, one record buffer per role (a producer warp
 *  group, consumer warp groups), each with its own phases, written by the
 *  role's warps (PT_DEV_PER_WARP with PT_DEV_BEGIN_ROLE, or
 *  PT_DEV_BEGIN_IF): fold each into its role. The roles ran at once, so
 *  each is the whole launch and none is part of another. A role folds
 *  once per launch, as a launch does.
 *  \return as pt_dev_fold(); PT_EINVAL for a NULL role, or a title the
 *  launch already has for a section that is no role. */
PT_EXTERN int pt_dev_fold_role(pt_timing *t, pt_dev_records *b, const char *title,
                               const char *role);

/** \brief The kernels PT_LAUNCH captured into a CUDA graph, for
 *  pt_graph_launch() (pt_graph_capture_end()). */
typedef struct pt_graph pt_graph;
/** \brief After cudaStreamEndCapture: the kernels PT_LAUNCH captured on
 *  `stream` since the last call, in the order captured: the kernels alone
 *  (their records reset by the first pt_graph_launch(), not by each
 *  replay; records of a grid the fold reduces on the device, 65,536
 *  slots and more, with their reset captured ahead of them). A captured PT_LAUNCH makes no CUDA event
 *  and no fold; its records must hold its grid's slots already (a capture
 *  cannot resize them: said, and the kernel is captured unmeasured).
 *  \return the graph's kernels (free with pt_graph_free() before their
 *  records), or NULL for a NULL t or without memory (counted). */
PT_EXTERN pt_graph *pt_graph_capture_end(pt_timing *t, pt_stream stream);
/** \brief Replay `exec` (a cudaGraphExec_t) on `stream` as the GPU section
 *  `title`, timed by CUDA events, and fold each captured kernel's records
 *  into a child of it named as the kernel's PT_LAUNCH, which lasted from
 *  its first block's BEGIN to its last block's END: no host sync, the
 *  folds wait behind the replay's events as a launch's do. Each kernel
 *  writes the replay's own set of a ring (its records argument pointed
 *  there for the replay, CUDA 12.4 on), the sets of a batch of 8 replays
 *  copied back in one transfer beside the next batch; else its records
 *  come back in the replay by a copy node after the kernel (added under
 *  the capture, or by pt_graph_add_kernel()), pointed at the replay's own
 *  host copy; where neither serves, the stream copies them after the
 *  replay. Replays never mix records; each fold counts a slot's ENDs
 *  since the previous fold of the same memory, so a block that missed END,
 *  or a replay launched behind ptkit's back, is counted and said. The
 *  host waits only when the sets or copies in flight are all taken. The
 *  first replay is apart from the rest, as for any section. A NULL t
 *  replays untimed.
 *  \return 0; PT_EINVAL for a NULL graph, title or exec, or a graph of
 *  another timing; PT_ENODEV without cudaGraphLaunch; PT_ECUDA; or a
 *  fold's error. */
PT_EXTERN int pt_graph_launch(pt_timing *t, pt_graph *g, const char *title, void *exec,
                              pt_stream stream);
/** \brief Time g's replays by their kernels' own clocks instead of two
 *  CUDA events each: a replay lasts from the first BEGIN to the last END
 *  of the blocks of its kernels that ended in it, on %globaltimer (the gaps
 *  before its first block and after its last one are not in it), and an
 *  event recorded after every `every` replays tells when a batch has
 *  completed, so the stream carries one event per batch where it carried
 *  two per replay. Its kernels' rows and phases are as with events. A
 *  graph with no kernel of ptkit's is still timed by events. The ring
 *  made at the first replay holds two batches of `every` (64 at most);
 *  with copy nodes the host keeps up to `every` + 4 replays' copies in
 *  flight (16 at most); past them it waits for the oldest.
 *  \param every replays per event; 8 is a good start; 0 times each
 *  replay by its events again (the default).
 *  \return 0; PT_EINVAL for a NULL g or a negative every (counted,
 *  unchanged). */
PT_EXTERN int pt_graph_time_by_kernels(pt_graph *g, int every);
/** \brief An empty set of kernels, for a graph built node by node
 *  (pt_graph_add_kernel()). \return it (free with pt_graph_free()), or
 *  NULL for a NULL t or without memory (counted). */
PT_EXTERN pt_graph *pt_graph_create(pt_timing *t);
/** \brief cudaGraphAddKernelNode for an instrumented kernel: adds to
 *  `graph` (a cudaGraph_t) the kernel node after the ndeps nodes of deps
 *  (params: a cudaKernelNodeParams whose nargs arguments end in
 *  pt_dev_arg(records); records of 65,536 slots and more, which the fold
 *  reduces on the device, after their reset, a memset node; other
 *  records write the graph's ring, or get a copy node after the kernel),
 *  and notes the kernel in g as `title`, folded at each pt_graph_launch()
 *  as a captured PT_LAUNCH is. nargs is the count of params' arguments
 *  (sizeof args / sizeof *args); 0 when not known: ptkit then asks the
 *  runtime for the argument after the records, which it refuses, an API
 *  error that compute-sanitizer lists (ptkit clears it). *node receives
 *  the kernel node. Records that do not hold the grid's slots (or are in
 *  host memory) cannot be reset or resized in a graph: the kernel node is
 *  added alone after deps, and left unmeasured. \return 0; PT_EINVAL for
 *  a NULL argument, a negative nargs or a graph of another timing;
 *  PT_ESTATE for records of another size (added unmeasured); PT_ENODEV
 *  without the runtime's graph calls; PT_ECUDA (nothing noted);
 *  PT_ENOMEM. */
PT_EXTERN int pt_graph_add_kernel(pt_graph *g, void **node, void *graph, void *const *deps,
                                  size_t ndeps, const void *params, int nargs, const char *title,
                                  pt_dev_records *records);
/** \brief Free what pt_graph_capture_end() or pt_graph_create() gave
 *  (NULL is a no-op). */
PT_EXTERN void pt_graph_free(pt_graph *g);

/** \def PT_LAUNCH(t, title, records, kernel, grid, block, smem, stream, ...)
 *  \brief One launch, timed and folded: grows `records` to the grid when
 *  it is larger than they are (one slot per block, or per warp with
 *  PT_DEV_WARP_SLOTS), resets them on `stream`, opens the GPU section
 *  `title` (CUDA events on `stream`), launches `kernel` with the
 *  arguments after `stream` and the records' pt_dev_buf as its last
 *  argument, closes the section and folds the records into it once the
 *  launch's events resolve (pt_sync(), a report, or later folds). The
 *  calls it makes stay available one by one.
 *
 *  In a .cu file (nvcc) the arguments are values, as `<<< >>>` takes
 *  them, and grid and block are anything a dim3 is made from; in C (or
 *  C++ not compiled by nvcc, with <cuda_runtime.h> included) they are
 *  addresses and grid and block are dim3, as cudaLaunchKernel() takes
 *  them. A launch error is the runtime's, read with cudaGetLastError() as
 *  after `<<< >>>`. A NULL timing launches the kernel untimed; records
 *  that cannot be grown (counted) give the kernel no slots, so it runs
 *  unmeasured. A statement, not an expression; t, title, records and
 *  stream are evaluated more than once. A template kernel whose
 *  arguments hold a comma is named first (`auto k = kern<float, 4>;`).
 *
 *      PT_LAUNCH(t, "step", recs, step, blocks, 256, 0, stream, in, out, n);   // .cu
 *      PT_LAUNCH(t, "step", recs, step, grid, block, 0, stream, &in, &out, &n); // C
 */
/** \def PT_HOST_LAUNCH(t, title, records, grid, fn, ...)
 *  \brief The same on the CPU, for host mode: grows host-mode `records`
 *  (PT_DEV_HOST) to the grid's blocks, resets them, opens the CPU section
 *  `title`, calls `fn(block, args..., buf)` for each block in CUDA's
 *  order (x fastest: block = x + gx * (y + gy * z)), closes the section
 *  and folds. `grid` is a block count, or under nvcc anything a dim3 is
 *  made from (`dim3(gx, gy)`); a body of a 2D or 3D grid finds its
 *  coordinates from `block` as that formula says. `fn` is the kernel's
 *  body as a function of the block index (`__host__ __device__` to share
 *  it with the kernel), which opens the block's record with
 *  PT_DEV_BEGIN_AT(buf, block). A block is one CPU thread: the body's
 *  block-shared memory is a local array there (docs/device.md). */
/** \def PT_LAUNCH_WITH(t, title, metrics, records, kernel, grid, block, smem, stream, ...)
 *  \brief PT_LAUNCH() declaring the launch's bytes and FLOPs, as pt_start_gpu()
 *  takes them: `(pt_metrics){ .read = r, .flops = f }` in C,
 *  `pt::read(r).flops(f)` in C++. PT_HOST_LAUNCH_WITH() likewise. */

/** Where PT_LAUNCH's parts run. */
enum pt_launch_where {
    PT_LAUNCH_GPU = 0,  /**< a kernel launch on a stream, timed by CUDA events */
    PT_LAUNCH_HOST = 1  /**< host mode: a CPU loop over the blocks, timed by the CPU clock */
};
/** \brief PT_LAUNCH()'s first half: grows, resets (the first launch of a
 *  grid; later ones are folded by the END counts' differences), opens the
 *  section.
 *  \param blocks  the blocks of the grid; \param threads  per block (PT_DEV_WARP_SLOTS)
 *  \return the kernel's last argument (no slots when the records could not serve). */
PT_EXTERN pt_dev_buf pt_dev_launch_begin(pt_timing *t, const char *title, const pt_metrics *m,
                                         pt_dev_records *b, long long blocks, long long threads,
                                         pt_stream stream, int where);
/** \brief PT_LAUNCH()'s second half: closes the section and folds.
 *  \return 0, or the first error of the two (each is counted). */
PT_EXTERN int pt_dev_launch_end(pt_timing *t, const char *title, pt_dev_records *b,
                                pt_stream stream, int where);

/** How the device's cycles became time, as the report states it. */
typedef struct pt_dev_clock {
    int calibrated;         /**< 1 when the calibration ran (GPU or host mode) */
    double cycles_per_ns;   /**< calibrated SM clock (GHz) */
    double tick_ns;         /**< measured %globaltimer resolution */
    long long blocks_own;   /**< slots converted by their own measured rate */
    long long blocks_cal;   /**< slots converted by the calibrated rate */
    int device;             /**< CUDA device ordinal, -1 for host mode */
    char device_name[96];   /**< "NVIDIA H100 80GB HBM3", or "host" */
    long long folds;        /**< folds resolved */
    long long slots_skipped; /**< slots without a record: a grid smaller than its
                                  buffer, or the blocks below */
    double mark_cycles;     /**< one PT_DEV_MARK's cost, measured by the calibration
                                 kernel on this device (host mode: by the host
                                 calibration), in cycles; 0 when not measured.
                                 Each phase's time is net of hits x this. */
    long long slots_unfinished; /**< of those, the blocks of a PT_LAUNCH (whose
                                  records hold exactly its grid) that wrote no
                                  record: they returned before PT_DEV_BEGIN (or,
                                  in C, before PT_DEV_END); each fold with some
                                  is an error */
    long long untraced;     /**< marks on trace buffers (PT_DEV_TRACE) by kernels built
                                 without trace stores (no PT_DEV_TRACING): no event
                                 was stored for them; each fold with some is an error */
} pt_dev_clock;
/** \brief The clock conversion used so far by pt_dev_fold() on t.
 *  \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_dev_clock_get(const pt_timing *t, pt_dev_clock *out);

/* ------------------------------------------------------------------ */
/* Figures                                                            */
/* ------------------------------------------------------------------ */

/** Everything the report shows for one section. Times in milliseconds. */
typedef struct pt_section_stats {
    const char *name;        /**< the title (owned by the timing) */
    int depth;               /**< 1 for a top-level section */
    int open;                /**< 1 when still open (the report marks it) */
    int gpu;                 /**< 1 when timed by CUDA events */
    int phase;               /**< 1 for a phase folded from device records */
    uint64_t count;          /**< occurrences */
    double total_ms;         /**< inclusive time over all occurrences */
    double self_ms;          /**< total minus the children's totals */
    double first_ms;         /**< the first occurrence */
    double mean_ms;          /**< mean of the later occurrences (count-1 of them); 0 if none */
    double stddev_ms;        /**< their sample standard deviation; 0 if fewer than two */
    double min_ms, max_ms;   /**< their extremes; 0 if none */
    double pct_parent;       /**< total as % of the parent's total */
    double pct_total;        /**< total as % of the whole run */
    double read_bytes, written_bytes, flops;
    double read_gbs, write_gbs, gflops; /**< over total_ms; 0 when no time */
    double xfer_bytes[3];    /**< transfers: H2D, D2H, D2D */
    double xfer_gbs[3];      /**< their rates over total_ms */
    /* Folded phases only (phase == 1): per-block figures over all folds. */
    uint64_t blocks;         /**< block records folded */
    double hits;             /**< marks counted */
    double block_mean_ms, block_min_ms, block_max_ms;
    double imbalance;        /**< block_max / block_mean; 0 if no blocks */
    double block_p50_ms, block_p90_ms, block_p99_ms; /**< percentiles of the per-block
                                  times over all folds, from a histogram of 16 bins per
                                  octave: within 3.2% (and within [min, max]); 0 if no blocks */
    /* Roofline (see pt_peaks_set()); 0 where bytes, FLOPS, time or peaks are missing. */
    double ai;               /**< arithmetic intensity: flops / (read + written bytes) */
    double pct_peak_bw;      /**< (read + written) bytes per second as % of the peak bandwidth */
    double pct_peak_flops;   /**< FLOP/s as % of the peak FLOP/s */
    int bound;               /**< enum pt_bound: where ai lies against the ridge point */
    double mem_high_water;   /**< peak of the tracked total (pt_track()) while open, bytes */
    /* What ptkit's own cost and clocks mean for the figures above. */
    double overhead_ms;      /**< ptkit's measured cost taken out: for a section, its
                                  CPU children's start+stop pairs (self_ms is net of it);
                                  for a phase, its marks (total_ms is net of it) */
    uint64_t too_short;      /**< 1 when a typical occurrence (mean_ms, or first_ms for
                                  one call) is under 10x the measured pair cost; for a
                                  phase, a mark's time under 10x a mark's cost */
    uint64_t cpu_clock;      /**< occurrences of a GPU section timed by the CPU clock (no
                                  events: pt_run_stats.gpu_fallback_why says why); its
                                  rates are then 0, left out, unless a fold of host-mode
                                  records showed the work ran inside the section */
    /* Runs merged by rank (pt_unpack_merge_rank(), pt_mpi_gather()): each rank's
     * total of this section, across the ranks that have it. 0 when none were. */
    uint64_t ranks;          /**< ranks that have the section */
    double rank_min_ms, rank_mean_ms, rank_max_ms;
    uint64_t rank_slowest;   /**< the rank with the largest total */
    /* Folded phases: the SMs their blocks ran on (%smid), over all folds;
     * pt_section_sm_get() gives each SM's total. A block's time in the
     * phase counts for the SM it ran on. 0 where the records carry no SM
     * (host mode). */
    uint64_t sms;            /**< SMs whose blocks spent time in the phase */
    uint64_t sm_busiest;     /**< the %smid with the most of it (when sms > 0) */
    double sm_mean_ms;       /**< the phase's block time per such SM */
    double sm_min_ms, sm_max_ms; /**< the least and the most any of them had */
    double sm_imbalance;     /**< sm_max_ms / sm_mean_ms; 0 when sms is 0 */
    /* A launch whose block records were folded on the host: how its
     * blocks filled the device, from each block's BEGIN and END
     * (%globaltimer) and %smid, a mean over those folds unless said
     * (docs/reports.md, "Waves and tails"). In host mode the "SMs" are the
     * CPUs the blocks ran on. 0 for other sections, and for folds the
     * device summarized (grids of 65536 slots and more). */
    uint64_t shape_folds;    /**< the folds these figures are from */
    double waves;            /**< blocks / (sm_resident x device_sms): 1.0 fills every SM once */
    uint64_t sm_resident;    /**< the most blocks one SM held at once, over the folds */
    uint64_t device_sms;     /**< the device's SMs (else the SMs the blocks ran on) */
    double span_ms;          /**< the first BEGIN to the last END */
    double tail_ms;          /**< from the first SM falling idle (its last END) to the last END */
    double tail_pct;         /**< tail_ms as % of span_ms */
    double sm_idle_pct;      /**< the SMs' time without a block, % of device_sms x span_ms */
    uint64_t slowest_block;  /**< the slot of the longest block of any fold */
    double slowest_block_ms; /**< its BEGIN to END; its phases: pt_section_slowest_get() */
    uint64_t slowest_block_sm; /**< the SM it ran on */
    uint64_t stragglers;     /**< SMs whose last END came more than a tenth of the span after
                                  the median SM's: the tail's SMs (the most of any fold) */
    uint64_t straggler_sm;   /**< that fold's SM that finished last */
    /* A launch whose kernel recorded a sample (pt_dev_records_sample()):
     * its phases are the sampled blocks' shares of it, its per-block
     * figures the sample's. 0 for a launch that recorded every block. */
    uint64_t sample_every;   /**< one slot in this many was recorded (the most of any fold) */
    uint64_t sample_slots;   /**< the grid's slots (PT_LAUNCH's), of which that sample; 0 unknown */
    /* A role of a launch (pt_dev_fold_role()), or a launch with waits
     * (pt_dev_records_waits()), folded from trace records: its work beside
     * the launch's other roles, and its waits with nothing in flight, on
     * each SM (docs/device.md, "Overlap and bubbles"). Each a mean per SM
     * it ran on and per fold. 0 for other sections. */
    uint64_t overlap_folds;  /**< the folds these figures are from */
    double busy_ms;          /**< working: any of its slots in a phase that is no wait */
    double overlap_pct;      /**< % of busy_ms while another role worked on the SM */
    double wait_ms;          /**< running (BEGIN to END) with none of its slots working */
    double bubble_ms;        /**< of wait_ms, with nothing in flight: no other role working,
                                  no span (PT_DEV_SPAN_BEGIN/END) open on the SM */
} pt_section_stats;

/** pt_section_stats.bound: which roof limits a section. */
enum pt_bound {
    PT_BOUND_UNKNOWN = 0, /**< no bytes, no FLOPS, or no peaks known */
    PT_BOUND_MEMORY  = 1, /**< ai below the ridge point (peak FLOP/s / peak bytes/s) */
    PT_BOUND_COMPUTE = 2  /**< ai at or above the ridge point */
};

/** Sort orders for reports. */
enum pt_sort {
    PT_SORT_ORDER = 0, /**< order of first start (the default) */
    PT_SORT_TIME,      /**< total time, largest first */
    PT_SORT_FLOPS,     /**< FLOPS, largest first */
    PT_SORT_NAME       /**< by title */
};

/** The root: the whole run. Its children are the top-level sections. */
PT_EXTERN const pt_section *pt_root(const pt_timing *t);
/** First child in order of first start, or NULL. */
PT_EXTERN const pt_section *pt_section_child(const pt_section *s);
/** Next sibling in order of first start, or NULL. */
PT_EXTERN const pt_section *pt_section_next(const pt_section *s);
/** Parent, or NULL for the root. */
PT_EXTERN const pt_section *pt_section_parent(const pt_section *s);
/** The title ("" for NULL). */
PT_EXTERN const char *pt_section_name(const pt_section *s);
/** \brief Look a section up by its path of titles, "optimize_frame/atb_calculation".
 *  A title containing '/' is written with "\/"; an empty path and empty
 *  components name nothing ("a/" is "a"). \return the section or NULL. */
PT_EXTERN const pt_section *pt_find(const pt_timing *t, const char *path);
/** \brief Write a section's path ("a/b/c", '/' in titles escaped) into buf.
 *  \return the length it needs (without the NUL), as snprintf, or PT_EINVAL. */
PT_EXTERN int pt_section_path(const pt_section *s, char *buf, size_t n);
/** \brief Compute a section's figures, resolving pending GPU work first.
 *  \return 0, or PT_EINVAL for NULL arguments. */
PT_EXTERN int pt_section_get(pt_timing *t, const pt_section *s, pt_section_stats *out);

/** \brief Which SMs a folded phase's time went to: each SM's total of
 *  its blocks' time in the phase, over all folds, indexed by %smid (0 for
 *  an SM none of its blocks ran on). Resolves pending GPU work first.
 *  \param ms receives the first n totals, milliseconds (may be NULL when n is 0)
 *  \return how many SMs the phase has figures for (the highest %smid with
 *  time + 1; 0 for a section that is not a phase, or in host mode), or
 *  PT_EINVAL for a NULL t or s, a negative n, or a NULL ms with n > 0. */
PT_EXTERN int pt_section_sm_get(pt_timing *t, const pt_section *s, double *ms, int n);

/** \brief The phases of a launch's slowest block (pt_section_stats'
 *  slowest_block): each phase's name and that block's time in it.
 *  \param names receives the first n names (valid while the timing is;
 *  may be NULL), \param ms the first n times in milliseconds (may be NULL)
 *  \return how many phases it has (0 for a section without a shape), or
 *  PT_EINVAL for a NULL t or s, or a negative n. */
PT_EXTERN int pt_section_slowest_get(pt_timing *t, const pt_section *s, const char **names,
                                     double *ms, int n);

/** One kind of span of a launch (PT_DEV_SPAN_BEGIN/END), over its folds. */
typedef struct pt_span_stats {
    const char *name;        /**< the kind's name (pt_dev_records_spans), or "span K" */
    uint64_t count;          /**< spans closed */
    uint64_t unmatched;      /**< begins never closed and ends never opened (left out) */
    double total_ms, mean_ms;
    double p50_ms, p99_ms;   /**< from a histogram of 16 bins per octave: within 3.2% */
    double max_ms;
} pt_span_stats;
/** \brief A launch's spans, kind by kind, in the order first met.
 *  \param out receives the first n (names valid while the timing is)
 *  \return how many kinds the section has (0 for one without spans), or
 *  PT_EINVAL for a NULL t or s, a negative n, or a NULL out with n > 0. */
PT_EXTERN int pt_section_spans_get(pt_timing *t, const pt_section *s, pt_span_stats *out, int n);

/** Figures about the whole timing. */
typedef struct pt_run_stats {
    size_t section_count;    /**< sections in the tree, the root not counted */
    double total_ms;         /**< sum of the top-level sections' totals */
    uint64_t error_count;    /**< every error counted on the timing */
    int gpu_timing;          /**< 1 when CUDA events are in use */
    int gpu_fallback;        /**< 1 when GPU sections fell back to the CPU clock */
    size_t open_count;       /**< sections open now */
    uint64_t dropped;        /**< device trace events dropped, summed over folds */
    const char *clock;       /**< "tsc", "clock_gettime" or "user" */
    double clock_ghz;        /**< the TSC rate when "tsc" */
    uint64_t trace_dropped;  /**< PT_TRACE: events past pt_trace_capacity_set(), not in the trace */
    int threads;             /**< threads that timed sections into it, the creating one included */
    uint64_t note_count;     /**< notes: facts of the machine said once, such as GPU
                                  sections timed by the CPU clock for want of a device */
    const char *gpu_fallback_why; /**< why GPU sections were timed by the CPU clock; "" if not */
    double pair_ns;          /**< a pt_start+pt_stop pair's cost, measured on this machine at
                                  the first pt_create() (as its parent sees it); 0 with a user
                                  clock, whose cost is not known */
    double pair_inside_ns;   /**< the part of it inside the inner section's own time */
    size_t short_count;      /**< sections marked too_short */
    int ranks;               /**< runs merged by rank, this one included; 0 when none */
    int ranks_empty;         /**< of them, ranks that took part with nothing to merge */
} pt_run_stats;
/** \brief The timing's summary, resolving pending GPU work first; zeros
 *  (clock "") for a NULL t.
 *  \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_run_get(pt_timing *t, pt_run_stats *out);
/** \brief The n sections with the most self time, largest first.
 *  \return how many were written to out (<= n). */
PT_EXTERN size_t pt_bottlenecks(pt_timing *t, size_t n, const pt_section **out);

/* Threads. Any thread may time sections into one pt_timing at once:
 * pt_start, pt_stop, pt_add, pt_transfer, PT_SECTION and PT_FUNC take no
 * lock; each thread has its own open sections and its own tree, and the
 * reports pool the trees by path (counts and times added, mean and
 * stddev over every thread's occurrences). A stop on another thread than
 * its start is PT_ETHREAD, counted and described. GPU sections, folds
 * and memory tracking belong to the thread that created the timing (on
 * another: PT_ETHREAD). Reports, exports and pt_reset may come from any
 * thread while others time, new threads arriving included: they wait for
 * a start or stop in progress, which waits for them in turn. A reset
 * drops the sections open on every thread; a thread's later stop of one
 * is PT_ENOSTART, saying so.
 *
 * Not supported: pt_destroy while another thread times into t or may
 * still (it frees what they write; join them first), and any ptkit call
 * from a signal handler (starts and stops allocate, lock and write the
 * thread's open-section stack, which the interrupted call may be in the
 * middle of: detecting it would cost every start a check). */

/** One thread's share of a timing. */
typedef struct pt_thread_info {
    int index;               /**< 0 for the creating thread, then 1, 2, ... in order of first use */
    long tid;                /**< the OS thread id (gettid) */
    uint64_t occurrences;    /**< sections it stopped */
    double busy_ms;          /**< time in its outermost sections */
    size_t open;             /**< its sections open now */
} pt_thread_info;
/** \brief Threads that timed into t (1 until a second thread starts a section); 0 for NULL. */
PT_EXTERN int pt_threads(pt_timing *t);
/** \brief Thread i's share (0 <= i < pt_threads(t)).
 *  \return 0, PT_EINVAL, or PT_ENOTFOUND past the last. */
PT_EXTERN int pt_thread_get(pt_timing *t, int i, pt_thread_info *out);

/** One thread's part of a pooled section. Counts and times are a
 *  thread's own; the spread (stddev, min, max) exists only pooled. */
typedef struct pt_thread_part {
    int thread;              /**< the index asked: 0.., or PT_THREAD_MERGED */
    uint64_t count;          /**< the section's occurrences on that thread */
    double total_ms;         /**< their total */
    double mean_ms;          /**< total / count, the first occurrence included */
    double pct_section;      /**< % of the pooled section's total */
} pt_thread_part;
/** Thread index for what pt_unpack_merge (pt_mpi_gather) brought from other runs. */
#define PT_THREAD_MERGED (-1)
/** \brief Thread i's part of section s (from pt_find or a walk of pt_root).
 *  Thread 0's part is the creating thread's own: the pooled figures less
 *  every other thread's and the merged runs'.
 *  \return 0 (a count of 0 where the thread never ran s), PT_EINVAL, or
 *  PT_ENOTFOUND past the last thread. */
PT_EXTERN int pt_thread_part_get(pt_timing *t, const pt_section *s, int i, pt_thread_part *out);

/* ------------------------------------------------------------------ */
/* FLOPS helpers                                                      */
/* ------------------------------------------------------------------ */

/* Counts for `.flops = ...`. Each returns NaN for a negative or
 * non-finite argument, and a NaN given as a metric is rejected with
 * PT_ERANGE (counted on the timing, nothing of that call added), so a
 * wrong count is never recorded as if it were right. */

/** \brief A dense (m x k) by (k x n) product: 2·m·n·k (one multiply and one add per term). */
PT_EXTERN double pt_flops_matmul(double m, double n, double k);
/** \brief n elements, `ops` operations on each: n·ops. */
PT_EXTERN double pt_flops_elementwise(double n, double ops);
/** \brief A sparse matrix times a vector: 2·nnz. */
PT_EXTERN double pt_flops_spmv(double nnz);
/** \brief A sparse matrix times a dense matrix of `cols` columns: 2·nnz·cols. */
PT_EXTERN double pt_flops_spmm(double nnz, double cols);

/** Limits of the einsum parser: operands, and dimensions per operand. */
#define PT_EINSUM_MAX_OPS 32
#define PT_EINSUM_MAX_DIMS 64

/** \brief FLOPs of a naive evaluation of an einsum expression.
 *
 *  The subscripts follow numpy: letters a-z and A-Z, operands separated by
 *  ',', an optional "->" and the output's letters; without "->" the output
 *  is every letter that appears exactly once. A letter repeated within one
 *  operand takes its diagonal. Spaces are ignored; "..." is refused.
 *
 *  Convention: with S the size of the full index space (the product of
 *  the sizes of all distinct letters), k operands and O the output's size,
 *  FLOPs = S·(k−1) multiplies + (S − O) adds: each output element sums
 *  S/O products of k factors. "ik,ijk,jk->" with i = j = 256, k = 3 is
 *  196608·2 + 196607 = 589823. (opt_einsum's naive count, S·k here, is
 *  larger by O.) A single operand costs only its adds: "ii->" is n − 1.
 *
 *  \param out   the count, written only on success
 *  \param subscripts the expression, "ij,jk->ik"
 *  \param nops  operands (1..PT_EINSUM_MAX_OPS)
 *  \param shapes nops arrays of sizes (>= 0)
 *  \param ndims nops dimension counts (0..PT_EINSUM_MAX_DIMS)
 *  \param why   where to describe a failure (may be NULL)
 *  \param why_len its size
 *  \return 0; PT_EINVAL for NULL or out-of-range arguments; PT_EPARSE for a
 *  malformed expression or shapes that do not fit it (a letter given two
 *  sizes, a term whose letters do not match its operand's dimensions). */
PT_EXTERN int pt_flops_einsum(double *out, const char *subscripts, int nops,
                              const long long *const *shapes, const int *ndims,
                              char *why, size_t why_len);


/** \def PT_SHAPE(...)
 *  \brief One operand's shape for PT_FLOPS_EINSUM(): PT_SHAPE(256, 256, 3). C only. */
/** \def PT_SCALAR
 *  \brief A scalar operand's shape for PT_FLOPS_EINSUM(). C only. */
/** \def PT_FLOPS_EINSUM(t, subscripts, ...)
 *  \brief An einsum's FLOPs inline:
 *  `pt_stop(t, "g", .flops = PT_FLOPS_EINSUM(t, "ik,ijk,jk->", PT_SHAPE(256, 3),
 *  PT_SHAPE(256, 256, 3), PT_SHAPE(256, 3)))`, as pt_flops_einsum() counts
 *  them. A failure is counted on t as PT_EPARSE or PT_EINVAL with its
 *  description, and gives NaN, which `.flops` then rejects; a NULL t gives
 *  0 without parsing, since nothing will record it. C only (compound
 *  literals). */

/* ------------------------------------------------------------------ */
/* Roofline                                                           */
/* ------------------------------------------------------------------ */

/** \brief The machine's peaks, for % of peak and memory/compute-bound.
 *  Without them, a timing that used a CUDA device takes them from the
 *  device's attributes (FP32 FLOP/s, see host/gpu/gpu.c); a CPU run has none.
 *  \param bytes_per_s peak memory bandwidth; 0 with flops_per_s 0 forgets both
 *  \param flops_per_s peak FLOP/s
 *  \return 0, or PT_ERANGE for a negative or non-finite value, or one of them 0. */
PT_EXTERN int pt_peaks_set(pt_timing *t, double bytes_per_s, double flops_per_s);

/** The peaks in use. */
typedef struct pt_peaks {
    double bytes_per_s;      /**< 0 when unknown */
    double flops_per_s;      /**< 0 when unknown */
    const char *source;      /**< "user", "device" or "none" */
} pt_peaks;
/** \brief The peaks pt_section_get() and the reports use (queries the
 *  device once when none were set and a GPU was used).
 *  \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_peaks_get(pt_timing *t, pt_peaks *out);

/* ------------------------------------------------------------------ */
/* Memory tracking                                                    */
/* ------------------------------------------------------------------ */

/** Dimensions kept per tracked tensor. */
#define PT_TRACK_MAX_DIMS 8

/** \brief Track a tensor (or any allocation) by name: its size counts in
 *  the tracked total and its peak, and in the high-water mark of every
 *  open section. Tracking a name again replaces its entry.
 *  \param name  copied
 *  \param ptr   shown for reference only; never dereferenced; may be NULL
 *  \param bytes its size
 *  \param shape ndims sizes (NULL when ndims is 0)
 *  \param dtype "float32" and so on; copied (first 15 bytes); NULL for none
 *  \return 0; PT_EINVAL for a NULL name; PT_ERANGE for a bad size, ndims or
 *  a negative dimension; PT_ENOMEM. */
PT_EXTERN int pt_track(pt_timing *t, const char *name, const void *ptr, double bytes,
                       const long long *shape, int ndims, const char *dtype);
/** \brief Stop tracking name; its bytes leave the total (the peak stays).
 *  \return 0, PT_EINVAL for a NULL name, PT_ENOTFOUND when not tracked. */
PT_EXTERN int pt_untrack(pt_timing *t, const char *name);
/** \brief Sample the device's free and total memory (cudaMemGetInfo) at
 *  each pt_start() and pt_stop() when on is 1 (off by default: a driver
 *  call per boundary). Turning it on takes one sample at once.
 *  \return 0, PT_ENODEV when no device can be sampled (sampling stays off). */
PT_EXTERN int pt_memory_sampling_set(pt_timing *t, int on);

/** What is tracked. */
typedef struct pt_memory_stats {
    size_t tensors;          /**< tracked now */
    double total;            /**< their bytes */
    double peak;             /**< the largest total seen */
    int device_sampled;      /**< 1 when device_free/total hold a sample */
    double device_free, device_total; /**< latest cudaMemGetInfo(), bytes */
    double device_used_peak; /**< largest total - free sampled */
} pt_memory_stats;
/** \brief The tracked totals. \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_memory_get(const pt_timing *t, pt_memory_stats *out);

/* ------------------------------------------------------------------ */
/* Errors on a timing                                                 */
/* ------------------------------------------------------------------ */

/** Errors counted on t (0 for NULL). */
PT_EXTERN uint64_t pt_error_count(const pt_timing *t);
/** Errors of one code counted on t. */
PT_EXTERN uint64_t pt_error_count_of(const pt_timing *t, int code);
/** The description of the last error on t ("" if none), valid until the next error or pt_reset(). */
PT_EXTERN const char *pt_last_error(const pt_timing *t);
/** Notes counted on t (0 for NULL): what the machine is, said once each
 *  (GPU sections timed by the CPU clock without a device, record buffers in
 *  host memory), which is expected and so not an error. */
PT_EXTERN uint64_t pt_note_count(const pt_timing *t);
/** The last note on t ("" if none), valid until the next note or pt_reset(). */
PT_EXTERN const char *pt_last_note(const pt_timing *t);
/** \brief Hand each error's description to fn as it happens (NULL: stop). */
PT_EXTERN void pt_error_fn_set(pt_timing *t, pt_line_fn fn, void *ctx);

/* ------------------------------------------------------------------ */
/* Reports                                                            */
/* ------------------------------------------------------------------ */

/** What to show. */
enum pt_view {
    PT_VIEW_TREE = 0,   /**< the indented tree with every figure */
    PT_VIEW_TABLE,      /**< flat: calls, total, first, mean, min, max per section (mean, min
                             and max of the calls after the first, as in the tree); GPU
                             launches and phases marked */
    PT_VIEW_BOTTLENECKS, /**< the `top` sections by self time */
    PT_VIEW_MEMORY,     /**< tracked tensors, totals, device memory, per-section high-water */
    PT_VIEW_KERNELS     /**< GPU launches and their phases only, as PT_VIEW_TABLE */
};

/** Report options, given as designated initializers:
 *  `pt_log(t, stdout, .percentages = 1, .sort = PT_SORT_TIME)`; in C++
 *  before C++20, `pt_log(t, stdout, pt::log_opts().percentages(1).sort(PT_SORT_TIME))`. */
typedef struct pt_log_opts {
    int pt__tag PT__DEF(0);       /**< internal, always 0 */
    int percentages PT__DEF(0);   /**< show % of parent and of the whole */
    int sort PT__DEF(0);          /**< enum pt_sort, applied among siblings */
    int view PT__DEF(0);          /**< enum pt_view */
    int max_depth PT__DEF(0);     /**< 0: all */
    int top PT__DEF(0);           /**< rows for PT_VIEW_BOTTLENECKS; 0: 10 */
    int threads PT__DEF(0);       /**< a line per thread, and under the tree each thread's part of the sections (when more than one timed) */
} pt_log_opts;


/** \def pt_log(t, f, ...)
 *  \brief Print the report to f; options may follow:
 *  `pt_log(t, stdout, .percentages = 1, .sort = PT_SORT_TIME)`.
 *  \return 0; PT_EOPEN when sections are open (the report is still whole,
 *  open sections marked); PT_EINVAL for a NULL f or an unknown option;
 *  PT_EIO when writing to f fails. */
/** \def pt_log_fn(t, fn, ctx, ...)
 *  \brief Hand the report to fn(ctx, line) line by line, the same lines pt_log() prints.
 *  \return 0, PT_EOPEN as pt_log(), PT_EINVAL for a NULL fn or an unknown option. */

/** \brief One CSV row per section, depth first in order of first start:
 *  path, name, depth, kind, open, every figure of pt_section_stats (as the
 *  JSON export names them), sm_ms ("3:1.5 7:0.25": ms by SM), id and
 *  parent (the JSON export's ids: 0, 1, ... in row order; -1 at the top).
 *  A path of up to 8 titles is whole, as pt_section_path() writes it; a
 *  deeper one is its first title, "…" and its last six, so rows stay the
 *  same size at any depth (id and parent give the whole chain). Numbers
 *  read back exactly ("%.17g"); fields are quoted as RFC 4180 says. Written to a
 *  temporary file and renamed, so the target must be a regular file or new.
 *  Every export's path may hold %r, the process's rank (OMPI_COMM_WORLD_RANK,
 *  else PMI_RANK, else SLURM_PROCID: the first set and not empty; 0 when
 *  none is), %p, the process id, and %%, a %: "perf-%r.csv" gives one file
 *  per MPI rank. Any other % is refused, and so is a rank variable that is
 *  not a non-negative decimal integer.
 *  \return 0; PT_EOPEN when sections are open (the file is still written whole);
 *  PT_EINVAL for a NULL or empty path, another % than %r, %p or %%, or a
 *  malformed rank; PT_EIO when it cannot be written or the target is not a
 *  regular file (nothing left behind). */
PT_EXTERN int pt_export_csv(pt_timing *t, const char *path);
/** \brief The text report (pt_log()'s) into a file, as pt_export_csv() writes one. */
PT_EXTERN int pt_export_text(pt_timing *t, const char *path);
/** \brief The tree as JSON with a "schema" version. As pt_export_csv(). */
PT_EXTERN int pt_export_json(pt_timing *t, const char *path);
/** The JSON schema version pt_export_json() writes: 2, sections as one
 *  flat list in depth-first order, each with its "id" and its "parent"'s
 *  (schema 1 nested them, which no JSON parser reads past a depth of a
 *  few thousand). ptreport reads both. */
#define PT_JSON_SCHEMA 2
/** \brief One self-contained HTML page (no network needed to view it):
 *  the run's header, the sections as an icicle chart, the sortable table
 *  of every figure, per folded launch its phases stacked and a block x
 *  phase heatmap of its last fold, the bottlenecks, the roofline and the
 *  tracked memory. As pt_export_csv().
 *  \return 0, PT_EOPEN, PT_EINVAL or PT_EIO as pt_export_csv(); PT_ENOMEM. */
PT_EXTERN int pt_export_html(pt_timing *t, const char *path);

/** \brief A Chrome Trace Event file: open it in ui.perfetto.dev,
 *  chrome://tracing or speedscope, or put it beside a torch.profiler trace.
 *
 *  With PT_TRACE, a timeline in three processes:
 *  - host sections: one track per thread (tid: the thread's OS id, named
 *    "thread N (tid T)", N counting threads in the order they first
 *    stopped a traced section), each occurrence a complete event nested
 *    in its parent; counters (tracked and device memory) beside them;
 *  - GPU launches timed by CUDA events: one track per stream (tid 1, 2,
 *    ... in order of first use), placed on the host timeline by one
 *    offset measured at the first pt_start_gpu() (the GPU synchronized
 *    once there, so the offset is good to the wake-up latency of that
 *    synchronization, a few microseconds);
 *  - folded launches' blocks: per SM one track per block resident on it
 *    at once ("SM 12, lane 0", "SM 12, lane 1", ...), so no two events
 *    on a track cross; each launch's earliest block at the launch's
 *    start, a block as long as its clock64 span, its phases drawn inside
 *    it (as they ran with a trace buffer; otherwise each phase's total,
 *    one after another in phase order, category "phases (aggregate)").
 *
 *  Process ids: k x 10,000,000 + getpid(), k = 1 for the host, 2 for the
 *  launches, 3 for the blocks (for process 4242: 10004242, 20004242,
 *  30004242). Linux keeps process ids below 4,194,304, so these are never
 *  a process's own id, a CUDA device ordinal (torch.profiler's GPU pids
 *  0, 1, ...) or Kineto's pids from 5,000,000; traces of two processes
 *  (MPI ranks) never share a pid; a process_labels entry gives the real
 *  process id. process_sort_index is 1, 2, 3 in that order (before
 *  Kineto's processes, which sort by their pid); thread_sort_index orders
 *  the tracks as above. No event has tid 0.
 *
 *  Time base: "baseTimeNanoseconds" is the wall clock (CLOCK_REALTIME,
 *  nanoseconds since the epoch) read beside the run's origin, at
 *  pt_create() or the latest pt_clock_set(); every "ts" is microseconds
 *  after it, as torch.profiler writes its traces (on a grid of 1024ths of a
 *  microsecond, 0.977 ns, printed exactly: a viewer's sums of these are
 *  exact, so events that nest in nanoseconds nest in the viewer), so tools that merge traces by this key put the two on one
 *  timeline. After the origin, times run on ptkit's clock (the TSC,
 *  calibrated against CLOCK_MONOTONIC to about 3e-5), not the wall clock.
 *  "metadata" holds the pids, the process id, the schedule and the
 *  events dropped past pt_trace_capacity_set().
 *
 *  Without PT_TRACE no occurrence was kept: the file is the aggregate
 *  flame chart `ptreport convert --to trace` writes (each section one
 *  event as long as its total, children one after another from their
 *  parent's start, the figures in args), on one track of the host
 *  process, and "metadata" says so ("layout": "aggregate", "note_trace");
 *  its baseTimeNanoseconds is the timing's creation, though its
 *  positions are not times. Written through a temporary file and
 *  renamed, as pt_export_csv().
 *  \return 0; PT_EOPEN when sections are open (a timeline leaves them
 *  out, the flame chart marks them); PT_EINVAL for a NULL or empty path;
 *  PT_EIO as pt_export_csv(); PT_ENOMEM. */
PT_EXTERN int pt_export_trace(pt_timing *t, const char *path);
/** \brief The most events PT_TRACE keeps of each kind (host sections, GPU
 *  launches, counter samples; default 1 << 20). Later ones are counted as
 *  dropped, and the trace and the report say how many. Block records of
 *  folds are kept for at most 64 launches of at most 4096 blocks each.
 *  \return 0, PT_EINVAL for n == 0, PT_ESTATE without PT_TRACE. */
PT_EXTERN int pt_trace_capacity_set(pt_timing *t, size_t n);

/* ------------------------------------------------------------------ */
/* Step schedule                                                      */
/* ------------------------------------------------------------------ */

/** \brief Record only some steps of a loop, as torch.profiler.schedule:
 *  skip `wait` steps, run `warmup` steps unrecorded, record `active`
 *  steps, and do that `repeat` times (0: for ever); call pt_step() at the
 *  end of each step. Outside the recorded steps starts and stops behave as
 *  after pt_disable(). The state changes only at pt_step(): a section
 *  keeps what it was when it started, so one opened in a recorded step
 *  and closed after it is recorded whole, and one opened outside is not.
 *  The step counter restarts at 0 with this call.
 *  \return 0, PT_EINVAL when active is 0. */
PT_EXTERN int pt_schedule_set(pt_timing *t, unsigned wait, unsigned warmup, unsigned active,
                          unsigned repeat);
/** \brief End the current step and enter the next one of the schedule
 *  (without a schedule it only counts steps).
 *  \return 0. */
PT_EXTERN int pt_step(pt_timing *t);
/** What pt_schedule_set() has done so far. */
typedef struct pt_schedule_info {
    int on;                   /**< 1 when a schedule is set */
    unsigned wait, warmup, active, repeat;
    uint64_t steps;           /**< pt_step() calls since pt_schedule_set() */
    uint64_t recorded;        /**< steps recorded (active steps ended by pt_step()) */
    int recording;            /**< 1 when the current step records */
} pt_schedule_info;
/** \brief The schedule's figures. \return 0, or PT_EINVAL for a NULL out. */
PT_EXTERN int pt_schedule_get(const pt_timing *t, pt_schedule_info *out);

/* ------------------------------------------------------------------ */
/* Several processes: packed trees                                    */
/* ------------------------------------------------------------------ */

/** \brief The tree of t as bytes that pt_unpack_merge() merges into
 *  another timing, in another process (MPI ranks: see <pt/pt_mpi.h>):
 *  every section's title, kind, occurrences (count, total, the first
 *  apart, mean, deviation, min, max), bytes, FLOPS, transfers, memory
 *  high-water mark and per-block phase figures, in a fixed little-endian
 *  format. Pending GPU work is resolved and other threads' trees pooled
 *  first, as a report does. A NULL t packs an empty tree.
 *  \param buf receives the bytes, malloc'ed (free() them); NULL on failure
 *  \param len receives their length
 *  \return 0; PT_EOPEN when sections are open (packed whole without their
 *  running occurrences, *buf set); PT_EINVAL for a NULL buf or len;
 *  PT_ERANGE for a title longer than 4 GiB or sections nested deeper
 *  than 2^32 - 1 (no recursion: any depth short of that packs); PT_ENOMEM. */
PT_EXTERN int pt_pack(pt_timing *t, void **buf, size_t *len);
/** \brief Merge a tree packed by pt_pack() into t by path, as if its
 *  occurrences had been recorded here: counts, totals, bytes, FLOPS,
 *  transfers and per-block phase figures added, mean and deviation
 *  combined exactly, the extremes and the memory high-water mark the
 *  larger; a section t has not got is added. Call it when no other
 *  thread is timing into t, as a report.
 *  \return 0; PT_EINVAL for a NULL buf; PT_EPARSE for bytes that are not
 *  one whole packed tree (truncated, corrupt, with bytes after it, of a
 *  later format): described, and t's tree is left unchanged; PT_ENOMEM
 *  (while merging, the tree may hold part of it). */
PT_EXTERN int pt_unpack_merge(pt_timing *t, const void *buf, size_t len);
/** \brief pt_unpack_merge() of the tree rank `rank` packed, keeping each
 *  rank's total of every section: the reports then say how many ranks were
 *  merged and give each section's spread across them (min, mean and max of
 *  the ranks' totals, and the slowest rank). t's own sections count as rank
 *  0's, as pt_mpi_gather() merges into rank 0. A NULL buf with len 0 is a
 *  rank that took part with nothing to send (counted, nothing merged); a
 *  packed tree without sections (a rank's NULL timing) counts the same.
 *  \return as pt_unpack_merge(); PT_EINVAL, with nothing merged, for a
 *  negative rank, rank 0 (t's own), a rank merged into t already, or a NULL
 *  buf with a length. */
PT_EXTERN int pt_unpack_merge_rank(pt_timing *t, const void *buf, size_t len, int rank);

/* ------------------------------------------------------------------ */
/* Names of the previous release, kept for this one                   */
/* ------------------------------------------------------------------ */

/* Getters and setters are now named pt_noun_get and pt_noun_set, and the
 * host side of the records is pt_dev_records, apart from the kernel
 * argument pt_dev_buf. The old names still work and warn, naming the new
 * one; they go in the next release. */
typedef pt_dev_records pt_dev_buffer PT__DEPRECATED("use pt_dev_records");
PT_EXTERN pt_dev_records *pt_dev_buffer_create(pt_timing *t, int nslots, int nphases,
                                               const char *const *names, unsigned flags,
                                               int trace_cap)
    PT__DEPRECATED("use pt_dev_records_create");
PT_EXTERN void pt_dev_buffer_free(pt_dev_records *b) PT__DEPRECATED("use pt_dev_records_free");
PT_EXTERN pt_run_stats pt_stats(pt_timing *t) PT__DEPRECATED("use pt_run_get");
PT_EXTERN int pt_set_peaks(pt_timing *t, double bytes_per_s, double flops_per_s)
    PT__DEPRECATED("use pt_peaks_set");
PT_EXTERN int pt_set_clock(pt_timing *t, pt_clock_fn fn, void *ctx)
    PT__DEPRECATED("use pt_clock_set");
PT_EXTERN void pt_set_error_fn(pt_timing *t, pt_line_fn fn, void *ctx)
    PT__DEPRECATED("use pt_error_fn_set");
PT_EXTERN int pt_set_trace_capacity(pt_timing *t, size_t n)
    PT__DEPRECATED("use pt_trace_capacity_set");
PT_EXTERN int pt_dev_clock_info(const pt_timing *t, pt_dev_clock *out)
    PT__DEPRECATED("use pt_dev_clock_get");
PT_EXTERN int pt_thread_stats(pt_timing *t, int i, pt_thread_info *out)
    PT__DEPRECATED("use pt_thread_get");
PT_EXTERN int pt_section_thread(pt_timing *t, const pt_section *s, int i, pt_thread_part *out)
    PT__DEPRECATED("use pt_thread_part_get");
PT_EXTERN int pt_memory_sampling(pt_timing *t, int on) PT__DEPRECATED("use pt_memory_sampling_set");
PT_EXTERN int pt_schedule(pt_timing *t, unsigned wait, unsigned warmup, unsigned active,
                          unsigned repeat) PT__DEPRECATED("use pt_schedule_set");

PT__END_DECLS

#include <pt/detail/pt_host_impl.h>

#endif
