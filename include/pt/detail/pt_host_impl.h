/** \file pt_host_impl.h
 *  \brief Internal: the machinery behind the calls <pt/pt.h> documents as
 *  macros. Metrics and report options are designated initializers of a
 *  struct passed by value to an inline function, which tests the timing
 *  for NULL before it calls into the library; -DPT_DISABLE turns every
 *  call into nothing. Include <pt/pt.h> instead. */
#ifndef PT_DETAIL_PT_HOST_IMPL_H
#define PT_DETAIL_PT_HOST_IMPL_H

#ifndef PT_PT_H
#  error "include <pt/pt.h>"
#endif

PT__BEGIN_DECLS

/* ---- the exported entry points the macros call --------------------- */

PT_EXTERN int pt__start(pt_timing *t, const char *title, const pt_metrics *m);
PT_EXTERN int pt__stop(pt_timing *t, const char *title, const pt_metrics *m);
PT_EXTERN int pt__add(pt_timing *t, const pt_metrics *m);
PT_EXTERN int pt__start_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m);
PT_EXTERN int pt__stop_gpu(pt_timing *t, const char *title, pt_stream s, const pt_metrics *m);
PT_EXTERN int pt__log(pt_timing *t, FILE *f, const pt_log_opts *o);
PT_EXTERN int pt__log_fn(pt_timing *t, pt_line_fn fn, void *ctx, const pt_log_opts *o);
/* pt_flops_einsum() for inline use, with the shapes as a NULL-ended list
 * of -1-ended arrays (PT_FLOPS_EINSUM()). A failure is counted on t as
 * PT_EPARSE or PT_EINVAL with its description. Returns the count; NaN on
 * failure; 0 for a NULL t without parsing. */
PT_EXTERN double pt__flops_einsum_list(pt_timing *t, const char *subscripts,
                                       const long long *const *shapes);
/* pt_dev_launch_end() told how many arguments PT_LAUNCH gave the kernel,
 * its records the last: a captured kernel's are found without asking the
 * runtime past them (graph_ring.c). */
PT_EXTERN int pt__dev_launch_end_n(pt_timing *t, const char *title, pt_dev_records *b,
                                   pt_stream stream, int where, int nargs);
/* For header-only helpers (pt_mpi.h): count the error code on t and
 * describe it with msg (NULL: pt_strerror(code)). Returns code. */
PT_EXTERN int pt__error(pt_timing *t, int code, const char *msg);

/* ---- metrics and options ------------------------------------------ */

/* Every call that takes metrics or options is a variadic macro of its
 * whole argument list: `pt_stop(...)` hands `__VA_ARGS__, ` (with one
 * empty argument after it) to a macro that names the leading arguments,
 * so `pt_stop(t, "x")` gives the "..." an (empty) argument and reads the
 * same in C11 -Wpedantic and in every C++ standard. What follows the
 * leading arguments becomes the struct:
 *   C         (pt_metrics){ .pt__tag = 0, .read = 1, }  designated initializers
 *   C++20     pt_metrics{ .read = 1, }                  designated initializers
 *   C++11 on  pt_metrics{ pt::read(1).flops(2), }       one pt::metrics, copied
 *   none      (pt_metrics){ .pt__tag = 0 } / pt_metrics{}
 * "None" is told by the first of them being empty, so a macro of the
 * user's that forwards an empty __VA_ARGS__ (`pt_stop(t, "x", )`) gives
 * no metric too. pt__tag lets a C call give none without empty braces. */
#define PT__ARG3(a, b, c, ...) c
#define PT__HAS_COMMA(...) PT__ARG3(__VA_ARGS__, 1, 0, 0)
#define PT__PROBE() ,
#define PT__FIRST(a, ...) a
#define PT__EMPTY_(x) PT__HAS_COMMA(PT__PROBE x ())
/* 1 when the first of the arguments is empty, else 0. */
#define PT__EMPTY_FIRST(...) PT__EMPTY_(PT__FIRST(__VA_ARGS__, ~))
#define PT__M(...) PT__CAT(PT__M_, PT__EMPTY_FIRST(__VA_ARGS__))(__VA_ARGS__)
#define PT__LOGOPTS(...) PT__CAT(PT__LOGOPTS_, PT__EMPTY_FIRST(__VA_ARGS__))(__VA_ARGS__)
#ifdef __cplusplus
#  define PT__M_1(...) pt_metrics{}
#  define PT__M_0(...) pt_metrics{ __VA_ARGS__ }
#  define PT__LOGOPTS_1(...) pt_log_opts{}
#  define PT__LOGOPTS_0(...) pt_log_opts{ __VA_ARGS__ }
#else
#  define PT__M_1(...) ((pt_metrics){ .pt__tag = 0 })
#  define PT__M_0(...) ((pt_metrics){ .pt__tag = 0, __VA_ARGS__ })
#  define PT__LOGOPTS_1(...) ((pt_log_opts){ .pt__tag = 0 })
#  define PT__LOGOPTS_0(...) ((pt_log_opts){ .pt__tag = 0, __VA_ARGS__ })
#endif

/* -DPT_DISABLE: a call is this, an int 0 as the call would return. The
 * arguments stay inside sizeof, unevaluated, so a variable used only in
 * timing calls is still used and draws no unused-variable warning; a
 * function call as a statement draws no "statement with no effect". */
static inline int pt__off(size_t n)
{
    (void)n;
    return 0;
}
static inline pt_timing *pt__off_timing(size_t n)
{
    (void)n;
    return NULL;
}

/* ---- sections ------------------------------------------------------ */

#ifndef PT_DISABLE
/* The metrics travel by value: C++ may not take a compound literal's
 * address. A NULL timing costs this test and no call. */
static inline int pt__start_i(pt_timing *t, const char *title, pt_metrics m)
{
    return t ? pt__start(t, title, &m) : 0;
}
static inline int pt__stop_i(pt_timing *t, const char *title, pt_metrics m)
{
    return t ? pt__stop(t, title, &m) : 0;
}
static inline int pt__add_i(pt_timing *t, pt_metrics m)
{
    return t ? pt__add(t, &m) : 0;
}
#  define PT__START(t, title, ...) pt__start_i((t), (title), PT__M(__VA_ARGS__))
#  define PT__STOP(t, title, ...) pt__stop_i((t), (title), PT__M(__VA_ARGS__))
#  define PT__ADD(t, ...) pt__add_i((t), PT__M(__VA_ARGS__))
#else
#  define PT__START(t, title, ...) pt__off(sizeof(t) + sizeof(title) + sizeof(PT__M(__VA_ARGS__)))
#  define PT__STOP(t, title, ...) pt__off(sizeof(t) + sizeof(title) + sizeof(PT__M(__VA_ARGS__)))
#  define PT__ADD(t, ...) pt__off(sizeof(t) + sizeof(PT__M(__VA_ARGS__)))
#endif
#define pt_start(...) PT__START(__VA_ARGS__, )
#define pt_stop(...) PT__STOP(__VA_ARGS__, )
#define pt_add(...) PT__ADD(__VA_ARGS__, )

/* ---- scoped sections ----------------------------------------------- */

/* A one-pass for loop around the block: its scope variable starts the
 * section, and the cleanup attribute stops it however control leaves. */
typedef struct pt__scope {
    pt_timing *t;
    const char *title;
    int once;
} pt__scope;

static inline pt__scope pt__scope_begin(pt_timing *t, const char *title, pt_metrics m)
{
    pt__scope s = { t, title, 1 };
    if (t)
        pt__start(t, title, &m);
    return s;
}
static inline void pt__scope_end(pt__scope *s)
{
    if (s->t)
        pt__stop(s->t, s->title, NULL);
    s->t = NULL;
}

#define PT__CAT2(a, b) a##b
#define PT__CAT(a, b) PT__CAT2(a, b)
#if defined(__GNUC__) || defined(__clang__)
#  define PT__CLEANUP __attribute__((cleanup(pt__scope_end)))
#  define PT__UNUSED __attribute__((unused))
#  define PT__SCOPE_STEP(s) ((s).once = 0)
#else
#  define PT__CLEANUP
#  define PT__UNUSED
#  define PT__SCOPE_STEP(s) ((s).once = 0, pt__scope_end(&(s)))
#endif

#ifndef PT_DISABLE
#  define PT__SECTION(t, title, ...)                                             \
    for (pt__scope PT__CAT(pt__s_, __LINE__) PT__CLEANUP =                       \
             pt__scope_begin((t), (title), PT__M(__VA_ARGS__));                  \
         PT__CAT(pt__s_, __LINE__).once; PT__SCOPE_STEP(PT__CAT(pt__s_, __LINE__)))
#  define PT_FUNC(t)                                                             \
    pt__scope PT__CAT(pt__f_, __LINE__) PT__CLEANUP PT__UNUSED =                \
        pt__scope_begin((t), __func__, PT__M())
#else
/* The same one-pass loop, so the block runs once and break leaves it. */
#  define PT__SECTION(t, title, ...)                                             \
    for (int PT__CAT(pt__s_, __LINE__) =                                         \
             1 + pt__off(sizeof(t) + sizeof(title) + sizeof(PT__M(__VA_ARGS__))); \
         PT__CAT(pt__s_, __LINE__); PT__CAT(pt__s_, __LINE__) = 0)
#  define PT_FUNC(t) ((void)sizeof(t))
#endif
#define PT_SECTION(...) PT__SECTION(__VA_ARGS__, )

/* ---- GPU sections -------------------------------------------------- */

#ifndef PT_DISABLE
static inline int pt__start_gpu_i(pt_timing *t, const char *title, pt_stream s, pt_metrics m)
{
    return t ? pt__start_gpu(t, title, s, &m) : 0;
}
static inline int pt__stop_gpu_i(pt_timing *t, const char *title, pt_stream s, pt_metrics m)
{
    return t ? pt__stop_gpu(t, title, s, &m) : 0;
}
#  define PT__START_GPU(t, title, stream, ...) \
    pt__start_gpu_i((t), (title), (pt_stream)(stream), PT__M(__VA_ARGS__))
#  define PT__STOP_GPU(t, title, stream, ...) \
    pt__stop_gpu_i((t), (title), (pt_stream)(stream), PT__M(__VA_ARGS__))
#else
#  define PT__START_GPU(t, title, stream, ...) \
    pt__off(sizeof(t) + sizeof(title) + sizeof(stream) + sizeof(PT__M(__VA_ARGS__)))
#  define PT__STOP_GPU(t, title, stream, ...) \
    pt__off(sizeof(t) + sizeof(title) + sizeof(stream) + sizeof(PT__M(__VA_ARGS__)))
#endif
#define pt_start_gpu(...) PT__START_GPU(__VA_ARGS__, )
#define pt_stop_gpu(...) PT__STOP_GPU(__VA_ARGS__, )

/* ---- one launch in one call ----------------------------------------- */

/* The macros' arguments end in an empty one (PT_LAUNCH(...) adds it), so
 * `__VA_ARGS__ buf` is "a, b, buf" after arguments and "buf" after none,
 * in C11 and every C++ alike. The launch itself is written here, in the
 * program's translation unit: it goes through the CUDA runtime the
 * program links, which registered the kernel. */
#define PT__LAUNCHED(a, recs) ((a).nslots > 0 ? (recs) : (pt_dev_records *)0)
#if defined(__CUDACC__)
/* How many arguments a call has, counted unevaluated. */
extern "C++" template <class... A> char (&pt__nargs_of(const A &...))[sizeof...(A)];
#  define PT__NARGS(...) ((int)sizeof(pt__nargs_of(__VA_ARGS__)))
#  define PT__LAUNCH_M(t, title, m, recs, kernel, grid, block, smem, stream, ...)        \
    do {                                                                                  \
        const dim3 pt__g_(grid), pt__b_(block);                                           \
        const pt_dev_buf pt__a_ = pt_dev_launch_begin(                                    \
            (t), (title), (m), (recs), (long long)pt__g_.x * pt__g_.y * pt__g_.z,         \
            (long long)pt__b_.x * pt__b_.y * pt__b_.z, (pt_stream)(stream), PT_LAUNCH_GPU); \
        kernel<<<pt__g_, pt__b_, (smem), (stream)>>>(__VA_ARGS__ pt__a_);                 \
        pt__dev_launch_end_n((t), (title), PT__LAUNCHED(pt__a_, recs), (pt_stream)(stream), \
                             PT_LAUNCH_GPU, PT__NARGS(__VA_ARGS__ pt__a_));               \
    } while (0)
#else
#  define PT__LAUNCH_M(t, title, m, recs, kernel, grid, block, smem, stream, ...)        \
    do {                                                                                  \
        pt_dev_buf pt__a_ = pt_dev_launch_begin(                                          \
            (t), (title), (m), (recs), (long long)(grid).x * (grid).y * (grid).z,         \
            (long long)(block).x * (block).y * (block).z, (pt_stream)(stream), PT_LAUNCH_GPU); \
        void *pt__args_[] = { __VA_ARGS__ &pt__a_ };                                      \
        (void)cudaLaunchKernel((const void *)(kernel), (grid), (block), pt__args_, (smem), \
                               (stream));                                                 \
        pt__dev_launch_end_n((t), (title), PT__LAUNCHED(pt__a_, recs), (pt_stream)(stream), \
                             PT_LAUNCH_GPU, (int)(sizeof pt__args_ / sizeof pt__args_[0])); \
    } while (0)
#endif
/* The blocks of PT_HOST_LAUNCH's grid: under nvcc anything a dim3 is
 * made from (a count, a dim3 of 2 or 3 dimensions), in C a count. */
#if defined(__CUDACC__)
#  define PT__HOST_BLOCKS(grid) \
    ((long long)dim3(grid).x * (long long)dim3(grid).y * (long long)dim3(grid).z)
#else
#  define PT__HOST_BLOCKS(grid) ((long long)(grid))
#endif
#define PT__HOST_LAUNCH_M(t, title, m, recs, nblocks, fn, ...)                            \
    do {                                                                                  \
        const long long pt__n_ = PT__HOST_BLOCKS(nblocks);                                \
        const pt_dev_buf pt__a_ = pt_dev_launch_begin((t), (title), (m), (recs), pt__n_, 1, \
                                                      0, PT_LAUNCH_HOST);                 \
        for (long long pt__i_ = 0; pt__i_ < pt__n_; pt__i_++)                             \
            fn((int)pt__i_, __VA_ARGS__ pt__a_);                                          \
        pt_dev_launch_end((t), (title), PT__LAUNCHED(pt__a_, recs), 0, PT_LAUNCH_HOST);   \
    } while (0)
/* The metrics travel as a local copy's address: C++ may not take a
 * temporary's. */
#define PT__WITH(macro, t, title, metrics, ...)                                           \
    do {                                                                                  \
        const pt_metrics pt__m_ = (metrics);                                              \
        macro((t), (title), &pt__m_, __VA_ARGS__);                                        \
    } while (0)
#define PT__LAUNCH(t, title, ...) PT__LAUNCH_M(t, title, (const pt_metrics *)0, __VA_ARGS__)
#define PT__HOST_LAUNCH(t, title, ...) \
    PT__HOST_LAUNCH_M(t, title, (const pt_metrics *)0, __VA_ARGS__)
#define PT_LAUNCH(...) PT__LAUNCH(__VA_ARGS__, )
#define PT_HOST_LAUNCH(...) PT__HOST_LAUNCH(__VA_ARGS__, )
#define PT_LAUNCH_WITH(...) PT__WITH(PT__LAUNCH_M, __VA_ARGS__, )
#define PT_HOST_LAUNCH_WITH(...) PT__WITH(PT__HOST_LAUNCH_M, __VA_ARGS__, )

/* ---- einsum FLOPs inline ------------------------------------------- */

#ifndef __cplusplus
#  define PT_SHAPE(...) ((const long long[]){ __VA_ARGS__, -1 })
#  define PT_SCALAR ((const long long[]){ -1 })
#  define PT_FLOPS_EINSUM(t, subscripts, ...) \
    pt__flops_einsum_list((t), (subscripts), (const long long *const[]){ __VA_ARGS__, NULL })
#endif

/* ---- reports ------------------------------------------------------- */

static inline int pt__log_i(pt_timing *t, FILE *f, pt_log_opts o)
{
    return pt__log(t, f, &o);
}
static inline int pt__log_fn_i(pt_timing *t, pt_line_fn fn, void *ctx, pt_log_opts o)
{
    return pt__log_fn(t, fn, ctx, &o);
}
#define PT__LOG(t, f, ...) pt__log_i((t), (f), PT__LOGOPTS(__VA_ARGS__))
#define PT__LOG_FN(t, fn, ctx, ...) pt__log_fn_i((t), (fn), (ctx), PT__LOGOPTS(__VA_ARGS__))
#define pt_log(...) PT__LOG(__VA_ARGS__, )
#define pt_log_fn(...) PT__LOG_FN(__VA_ARGS__, )

/* ---- -DPT_DISABLE -------------------------------------------------- */

/* A timing is never made, so every remaining call is on NULL and does
 * nothing; the calls above compile to nothing at all. */
#ifdef PT_DISABLE
#  define pt_create(name, flags) pt__off_timing(sizeof(name) + sizeof(flags))
#endif

PT__END_DECLS

/* ---- C++ before C++20: metrics and options by name ----------------- */

#ifdef __cplusplus
namespace pt {
/* A pt_metrics with setters named after its members, each returning the
 * object, so `pt::read(1024).flops(5)` is one value the macros copy into
 * their pt_metrics (a class derived from it). The setters hide the data
 * members of the same names; the base class's are set. */
struct metrics : pt_metrics {
    metrics &read(double v) { pt_metrics::read = v; return *this; }
    metrics &written(double v) { pt_metrics::written = v; return *this; }
    metrics &flops(double v) { pt_metrics::flops = v; return *this; }
};
inline metrics read(double v) { return metrics().read(v); }
inline metrics written(double v) { return metrics().written(v); }
inline metrics flops(double v) { return metrics().flops(v); }

/* pt_log()'s options the same way: pt::log_opts().percentages(1).sort(PT_SORT_TIME). */
struct log_opts : pt_log_opts {
    log_opts &percentages(int v) { pt_log_opts::percentages = v; return *this; }
    log_opts &sort(int v) { pt_log_opts::sort = v; return *this; }
    log_opts &view(int v) { pt_log_opts::view = v; return *this; }
    log_opts &max_depth(int v) { pt_log_opts::max_depth = v; return *this; }
    log_opts &top(int v) { pt_log_opts::top = v; return *this; }
    log_opts &threads(int v) { pt_log_opts::threads = v; return *this; }
};
} /* namespace pt */
#endif


#endif
