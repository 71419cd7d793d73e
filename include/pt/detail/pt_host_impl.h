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
/* For header-only helpers (pt_mpi.h): count the error code on t and
 * describe it with msg (NULL: pt_strerror(code)). Returns code. */
PT_EXTERN int pt__error(pt_timing *t, int code, const char *msg);

/* ---- metrics and options as designated initializers --------------- */

/* pt__tag lets a call give no metric at all: PT__M() is { .pt__tag = 0 }. */
#define PT__M(...) ((pt_metrics){ .pt__tag = 0, __VA_ARGS__ })
#define PT__LOGOPTS(...) ((pt_log_opts){ .pt__tag = 0, __VA_ARGS__ })

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
#  define pt_start(t, title, ...) pt__start_i((t), (title), PT__M(__VA_ARGS__))
#  define pt_stop(t, title, ...) pt__stop_i((t), (title), PT__M(__VA_ARGS__))
#  define pt_add(t, ...) pt__add_i((t), PT__M(__VA_ARGS__))
#else
#  define pt_start(t, title, ...) ((void)sizeof(t), (void)sizeof(title), 0)
#  define pt_stop(t, title, ...) ((void)sizeof(t), (void)sizeof(title), 0)
#  define pt_add(t, ...) ((void)sizeof(t), 0)
#endif

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
#  define PT_SECTION(t, title, ...)                                              \
    for (pt__scope PT__CAT(pt__s_, __LINE__) PT__CLEANUP =                       \
             pt__scope_begin((t), (title), PT__M(__VA_ARGS__));                  \
         PT__CAT(pt__s_, __LINE__).once; PT__SCOPE_STEP(PT__CAT(pt__s_, __LINE__)))
#  define PT_FUNC(t)                                                             \
    pt__scope PT__CAT(pt__f_, __LINE__) PT__CLEANUP PT__UNUSED =                \
        pt__scope_begin((t), __func__, PT__M())
#else
#  define PT_SECTION(t, title, ...) if ((void)sizeof(t), 1)
#  define PT_FUNC(t) ((void)sizeof(t))
#endif

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
#  define pt_start_gpu(t, title, stream, ...) \
    pt__start_gpu_i((t), (title), (pt_stream)(stream), PT__M(__VA_ARGS__))
#  define pt_stop_gpu(t, title, stream, ...) \
    pt__stop_gpu_i((t), (title), (pt_stream)(stream), PT__M(__VA_ARGS__))
#else
#  define pt_start_gpu(t, title, stream, ...) ((void)sizeof(t), (void)sizeof(stream), 0)
#  define pt_stop_gpu(t, title, stream, ...) ((void)sizeof(t), (void)sizeof(stream), 0)
#endif

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
#define pt_log(t, f, ...) pt__log_i((t), (f), PT__LOGOPTS(__VA_ARGS__))
#define pt_log_fn(t, fn, ctx, ...) pt__log_fn_i((t), (fn), (ctx), PT__LOGOPTS(__VA_ARGS__))

/* ---- -DPT_DISABLE -------------------------------------------------- */

/* A timing is never made, so every remaining call is on NULL and does
 * nothing; the calls above compile to nothing at all. */
#ifdef PT_DISABLE
#  define pt_create(name, flags) ((void)sizeof(name), (void)sizeof(flags), (pt_timing *)0)
#endif

PT__END_DECLS

#endif
