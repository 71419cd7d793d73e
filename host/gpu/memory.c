/* Memory tracking: named tensors with their size, shape and dtype, the
 * tracked total and its peak, each section's high-water mark, and opt-in
 * samples of the device's free and total memory.
 *
 * Only metadata is kept: the pointer is shown, never dereferenced. The
 * high-water mark of a section is the largest tracked total while it was
 * open: a change of the total raises it on every open section, and the
 * boundary hook (attached to the timing with the tracked state, and
 * called from the first pt_track() or pt_memory_sampling_set() on) gives a
 * section opened since the last change the total it opened with. Each
 * change of the total and each device sample is also a counter sample for
 * the trace.
 *
 * Tensors are found by name through a hash index, and an untracked one
 * leaves a hole the next compaction closes (when holes are half the
 * array), so tracking and untracking n tensors is O(n), in the order
 * tracked. The total saturates at the largest double, said once; after
 * that it is summed again from the tensors whenever one is untracked. */
#include "gpu/memory.h"

#include "core/clock.h"
#include "core/errors.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/trace.h"
#include "gpu/gpu.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pt__tensor {
    char *name;
    const void *ptr;
    double bytes;
    long long shape[PT_TRACK_MAX_DIMS];
    int ndims;
    char dtype[16];
} pt__tensor;

struct pt__memory {
    pt__tensor *v;            /* in the order tracked; name NULL: untracked (a hole) */
    size_t n, cap;            /* slots used, holes included */
    size_t alive;             /* tensors tracked */
    size_t *index;            /* hash of names: slot + 1, 0 empty, HOLE deleted */
    size_t index_cap;         /* a power of two, at least twice n; 0 before the first */
    int saturated;            /* the total passed the largest double */
    double total, peak;
    int sampling;
    int sampled;
    double dev_free, dev_total, dev_used_peak;
};

static const pt__ext_ops ops;

static struct pt__memory *mem_of(const pt_timing *t)
{
    return pt__ext_state(t, PT__EXT_MEMORY);
}

static struct pt__memory *mem_get(pt_timing *t)
{
    struct pt__memory *m = mem_of(t);

    if (!m && (m = calloc(1, sizeof *m)) != NULL)
        pt__ext_attach(t, PT__EXT_MEMORY, &ops, m);
    return m;
}

static void mem_free(struct pt__memory *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].name);
    free(m->v);
    free(m->index);
    free(m);
}

#define HOLE ((size_t)-1)

static size_t hash_name(const char *s)
{
    size_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The index entry of name, or the empty one where it would go. */
static size_t *index_at(const struct pt__memory *m, const char *name)
{
    size_t mask = m->index_cap - 1, i = hash_name(name) & mask, *grave = NULL;
    for (;; i = (i + 1) & mask) {
        size_t e = m->index[i];
        if (e == 0)
            return grave ? grave : &m->index[i];
        if (e == HOLE) {
            if (!grave)
                grave = &m->index[i];
        } else if (strcmp(m->v[e - 1].name, name) == 0) {
            return &m->index[i];
        }
    }
}

/* Closes the holes and rebuilds the index for at least `want` slots.
 * 0, or PT_ENOMEM (nothing changed). */
static int reindex(struct pt__memory *m, size_t want)
{
    size_t cap = 16, k = 0;
    size_t *idx;
    while (cap < 2 * want + 2)
        cap *= 2;
    idx = calloc(cap, sizeof *idx);
    if (!idx)
        return PT_ENOMEM;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].name)
            m->v[k++] = m->v[i];
    m->n = k;
    free(m->index);
    m->index = idx;
    m->index_cap = cap;
    for (size_t i = 0; i < m->n; i++)
        *index_at(m, m->v[i].name) = i + 1;
    return 0;
}

static void destroy(pt_timing *t)
{
    mem_free(mem_of(t));
    pt__ext_attach(t, PT__EXT_MEMORY, NULL, NULL);
}

static void raise_open(pt_timing *t, double total)
{
    for (size_t i = 0; i < t->main.depth; i++) {
        pt_section *s = t->main.stack[i].node;
        if (s && s->mem_hwm < total)
            s->mem_hwm = total;
    }
}

static void set_total(pt_timing *t, double total)
{
    struct pt__memory *m = mem_of(t);
    m->total = total > 0 ? total : 0;
    if (m->total > m->peak)
        m->peak = m->total;
    raise_open(t, m->total);
    t->hooks |= PT__HOOK_EXT;
    pt__trace_counter(t, "tracked memory (B)", pt__now(t), m->total);
}

static pt__tensor *find(struct pt__memory *m, const char *name)
{
    size_t *at;
    if (!m || !m->index_cap)
        return NULL;
    at = index_at(m, name);
    return *at && *at != HOLE ? &m->v[*at - 1] : NULL;
}

/* The total after a change of `bytes_before` to `bytes`: exact while it
 * stays below the largest double, held there past it (said once), and
 * summed again from the tensors once a change follows a saturation. */
static double new_total(pt_timing *t, struct pt__memory *m, const char *name, double before,
                        double bytes, int *rc)
{
    double sum = 0;
    if (!m->saturated) {
        double v = m->total - before + bytes;
        if (v <= DBL_MAX)
            return v;
        m->saturated = 1;
        *rc = pt__fail(t, PT_ERANGE, "pt_track(\"%s\"): the tracked total passes the largest "
                       "double; held at %g (saturated)", name, DBL_MAX);
        return DBL_MAX;
    }
    (void)before;
    for (size_t i = 0; i < m->n && sum <= DBL_MAX; i++)
        if (m->v[i].name && strcmp(m->v[i].name, name) != 0)
            sum += m->v[i].bytes;
    sum += bytes;
    m->saturated = !(sum <= DBL_MAX);
    return m->saturated ? DBL_MAX : sum;
}

int pt_track(pt_timing *t, const char *name, const void *ptr, double bytes,
             const long long *shape, int ndims, const char *dtype)
{
    struct pt__memory *m;
    pt__tensor *e;
    int rc = 0;

    if (!t)
        return 0;
    if (pt__owner_only(t, "pt_track") < 0)
        return PT_ETHREAD;
    if (!name)
        return pt__fail(t, PT_EINVAL, "pt_track: NULL name");
    if (!isfinite(bytes) || bytes < 0)
        return pt__fail(t, PT_ERANGE, "pt_track(\"%s\"): bytes must be finite and >= 0 (%g)",
                        name, bytes);
    if (ndims < 0 || ndims > PT_TRACK_MAX_DIMS || (ndims > 0 && !shape))
        return pt__fail(t, PT_ERANGE, "pt_track(\"%s\"): %d dimensions%s (0 to %d)", name, ndims,
                        ndims > 0 && !shape ? " with a NULL shape" : "", PT_TRACK_MAX_DIMS);
    for (int d = 0; d < ndims; d++)
        if (shape[d] < 0)
            return pt__fail(t, PT_ERANGE, "pt_track(\"%s\"): dimension %d is negative (%lld)",
                            name, d, shape[d]);
    m = mem_get(t);
    if (!m)
        return pt__fail(t, PT_ENOMEM, "pt_track(\"%s\"): out of memory", name);
    e = find(m, name);
    if (!e) {
        char *copy = strdup(name);
        if (!copy)
            return pt__fail(t, PT_ENOMEM, "pt_track(\"%s\"): out of memory", name);
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 8;
            pt__tensor *v = realloc(m->v, cap * sizeof *v);
            if (!v) {
                free(copy);
                return pt__fail(t, PT_ENOMEM, "pt_track(\"%s\"): out of memory", name);
            }
            m->v = v;
            m->cap = cap;
        }
        if (2 * (m->n + 1) + 2 > m->index_cap && reindex(m, m->alive + 1) < 0) {
            free(copy);
            return pt__fail(t, PT_ENOMEM, "pt_track(\"%s\"): out of memory", name);
        }
        e = &m->v[m->n];
        memset(e, 0, sizeof *e);
        e->name = copy;
        *index_at(m, copy) = ++m->n;
        m->alive++;
    }
    /* Tracking a name again replaces its entry, as assigning a new array
     * to the same variable would. */
    set_total(t, new_total(t, m, name, e->bytes, bytes, &rc));
    e->ptr = ptr;
    e->bytes = bytes;
    e->ndims = ndims;
    for (int d = 0; d < ndims; d++)
        e->shape[d] = shape[d];
    snprintf(e->dtype, sizeof e->dtype, "%s", dtype ? dtype : "");
    return rc;
}

int pt_untrack(pt_timing *t, const char *name)
{
    struct pt__memory *m;
    pt__tensor *e;
    int rc = 0;

    if (!t)
        return 0;
    if (pt__owner_only(t, "pt_untrack") < 0)
        return PT_ETHREAD;
    if (!name)
        return pt__fail(t, PT_EINVAL, "pt_untrack: NULL name");
    m = mem_of(t);
    e = find(m, name);
    if (!e)
        return pt__fail(t, PT_ENOTFOUND, "pt_untrack(\"%s\"): not tracked", name);
    set_total(t, new_total(t, m, name, e->bytes, 0, &rc));
    /* A hole keeps the order of tracking; half of them are closed at once. */
    *index_at(m, name) = HOLE;
    free(e->name);
    e->name = NULL;
    m->alive--;
    if (m->alive == 0) {
        m->total = 0; /* no rounding residue once nothing is tracked */
        m->saturated = 0;
    }
    if (2 * m->alive < m->n)
        reindex(m, m->alive); /* without memory the holes stay: only slower */
    return rc;
}

static int sample(pt_timing *t)
{
    struct pt__memory *m = mem_of(t);
    const pt__cuda_api *cu = pt__gpu_api(t);
    size_t fr = 0, tot = 0;
    pt__cuerr e;

    if (!cu || cu->unavailable || !cu->MemGetInfo)
        return PT_ENODEV;
    e = cu->MemGetInfo(&fr, &tot);
    if (e)
        return pt__fail(t, PT_ECUDA, "cudaMemGetInfo: %s", pt__cuda_errstr(cu, e));
    m->sampled = 1;
    m->dev_free = (double)fr;
    m->dev_total = (double)tot;
    if (tot >= fr && (double)(tot - fr) > m->dev_used_peak)
        m->dev_used_peak = (double)(tot - fr);
    if (tot >= fr)
        pt__trace_counter(t, "device memory used (B)", pt__now(t), (double)(tot - fr));
    return 0;
}

int pt_memory_sampling_set(pt_timing *t, int on)
{
    struct pt__memory *m;
    int rc;

    if (!t)
        return 0;
    if (pt__owner_only(t, "pt_memory_sampling_set") < 0)
        return PT_ETHREAD;
    m = mem_get(t);
    if (!m)
        return pt__fail(t, PT_ENOMEM, "pt_memory_sampling_set: out of memory");
    if (!on) {
        m->sampling = 0;
        return 0;
    }
    if (!pt__gpu_device(t))
        return pt__fail(t, PT_ENODEV, "pt_memory_sampling_set: no CUDA device to sample");
    rc = sample(t);
    if (rc == PT_ENODEV)
        return pt__fail(t, PT_ENODEV, "pt_memory_sampling_set: the CUDA runtime has no cudaMemGetInfo");
    if (rc)
        return rc;
    m->sampling = 1;
    t->hooks |= PT__HOOK_EXT;
    return 0;
}

/* A section boundary while the hooks are on: raise node's high-water
 * mark to the tracked total, sample the device when asked. */
static void boundary(pt_timing *t, pt_section *node, int stop)
{
    struct pt__memory *m = mem_of(t);

    if (!m)
        return;
    if (!stop && node && node->mem_hwm < m->total)
        node->mem_hwm = m->total;
    if (m->sampling)
        sample(t);
}

int pt_memory_get(const pt_timing *t, pt_memory_stats *out)
{
    const struct pt__memory *m;

    if (!out)
        return PT_EINVAL;
    memset(out, 0, sizeof *out);
    if (!t || !(m = mem_of(t)))
        return 0;
    out->tensors = m->alive;
    out->total = m->total;
    out->peak = m->peak;
    out->device_sampled = m->sampled;
    out->device_free = m->dev_free;
    out->device_total = m->dev_total;
    out->device_used_peak = m->dev_used_peak;
    return 0;
}

int pt__memory_tensor(const pt_timing *t, size_t *at, const char **name, const void **ptr,
                      double *bytes, const long long **shape, int *ndims, const char **dtype)
{
    const struct pt__memory *m = mem_of(t);
    const pt__tensor *e;

    while (m && *at < m->n && !m->v[*at].name)
        ++*at;
    if (!m || *at >= m->n)
        return 0;
    e = &m->v[(*at)++];
    *name = e->name;
    *ptr = e->ptr;
    *bytes = e->bytes;
    *shape = e->shape;
    *ndims = e->ndims;
    *dtype = e->dtype;
    return 1;
}

/* A saved run's tracked memory (restore.c's companion for memory): the
 * tensors, total and peak as the JSON export wrote them, not recomputed,
 * so a rebuilt timing reports the figures the run had, the peak of
 * tensors untracked before the save included. Everything is checked and
 * built aside first; only then does it replace what t tracked. */
int pt__restore_memory(pt_timing *t, const pt__restored_memory *r)
{
    struct pt__memory *m;

    if (!t || !r || (r->ntensors && !r->tensors))
        return PT_EINVAL;
    if (!isfinite(r->total) || r->total < 0 || !isfinite(r->peak) || r->peak < 0)
        return PT_ERANGE;
    if (r->device_sampled && (!isfinite(r->device_free) || !isfinite(r->device_total) ||
                              !isfinite(r->device_used_peak)))
        return PT_ERANGE;
    for (size_t i = 0; i < r->ntensors; i++) {
        const pt__restored_tensor *x = &r->tensors[i];
        if (!x->name)
            return PT_EINVAL;
        if (!isfinite(x->bytes) || x->bytes < 0 || x->ndims < 0 ||
            x->ndims > PT_TRACK_MAX_DIMS || (x->ndims > 0 && !x->shape))
            return PT_ERANGE;
        for (int d = 0; d < x->ndims; d++)
            if (x->shape[d] < 0)
                return PT_ERANGE;
    }

    m = calloc(1, sizeof *m);
    if (!m || (r->ntensors && !(m->v = calloc(r->ntensors, sizeof *m->v)))) {
        free(m);
        return PT_ENOMEM;
    }
    m->cap = r->ntensors;
    for (; m->n < r->ntensors; m->n++) {
        const pt__restored_tensor *x = &r->tensors[m->n];
        pt__tensor *e = &m->v[m->n];
        if (!(e->name = strdup(x->name))) {
            for (size_t i = 0; i < m->n; i++)
                free(m->v[i].name);
            free(m->v);
            free(m);
            return PT_ENOMEM;
        }
        e->bytes = x->bytes;
        e->ndims = x->ndims;
        for (int d = 0; d < x->ndims; d++)
            e->shape[d] = x->shape[d];
        snprintf(e->dtype, sizeof e->dtype, "%s", x->dtype ? x->dtype : "");
    }
    m->alive = m->n;
    if (reindex(m, m->n) < 0) {
        mem_free(m);
        return PT_ENOMEM;
    }
    m->total = r->total;
    m->peak = r->peak;
    if (r->device_sampled) {
        m->sampled = 1;
        m->dev_free = r->device_free;
        m->dev_total = r->device_total;
        m->dev_used_peak = r->device_used_peak;
    }
    if (mem_of(t))
        mem_free(mem_of(t));
    pt__ext_attach(t, PT__EXT_MEMORY, &ops, m);
    return 0;
}

static const pt__ext_ops ops = { .boundary = boundary, .destroy = destroy };

/* The previous name, kept for one release (pt.h). */
int pt_memory_sampling(pt_timing *t, int on)
{
    return pt_memory_sampling_set(t, on);
}
