/* A saved run's sections: read from the file (schema 2's flat list, or
 * schema 1's nesting), walked and freed, all without recursion beyond
 * what jansson's own depth limit bounds. */
#include "sections.h"

#include "members.h"

#include "api/tool.h"

#include <stdlib.h>
#include <string.h>

/* ---- walking the tree ----------------------------------------------- */

void pr_walk_begin(pr_walk *w, const pr_sec *v, size_t n)
{
    memset(w, 0, sizeof *w);
    w->st = malloc(16 * sizeof *w->st);
    if (!w->st) {
        w->oom = 1;
        return;
    }
    w->cap = 16;
    w->st[0] = (struct pr_level){ v, n, 0 };
    w->top = 1;
}

const pr_sec *pr_walk_next(pr_walk *w, int *depth)
{
    while (w->top > 0) {
        struct pr_level *l = &w->st[w->top - 1];
        const pr_sec *s;
        if (l->i == l->n) {
            w->top--;
            continue;
        }
        s = &l->v[l->i++];
        *depth = (int)w->top;
        if (s->nkids) {
            if (w->top == w->cap) {
                struct pr_level *st = realloc(w->st, w->cap * 2 * sizeof *st);
                if (!st) {
                    w->oom = 1;
                    w->top = 0;
                    return NULL;
                }
                w->st = st;
                w->cap *= 2;
            }
            w->st[w->top++] = (struct pr_level){ s->kids, s->nkids, 0 };
        }
        return s;
    }
    return NULL;
}

const char *pr_walk_path(pr_walk *w, const pr_sec *s, int depth)
{
    size_t need = strlen(s->name) * 2 + 2, len;

    if (s->path)
        return s->path;
    size_t *end = pt__depth_grow(w->end, &w->ecap, (size_t)depth, sizeof *end);
    if (!end)
        return NULL;
    w->end = end;
    len = depth > 1 ? w->end[depth - 1] : 0;
    if (len + need >= w->pcap) {
        size_t n = w->pcap ? w->pcap : 256;
        while (n <= len + need)
            n *= 2;
        char *p = realloc(w->path, n);
        if (!p)
            return NULL;
        w->path = p;
        w->pcap = n;
    }
    if (depth > 1)
        w->path[len++] = '/';
    for (const char *c = s->name; *c; c++) {
        if (*c == '/' || *c == '\\')
            w->path[len++] = '\\';
        w->path[len++] = *c;
    }
    w->path[len] = '\0';
    w->end[depth] = len;
    return w->path;
}

void pr_walk_end(pr_walk *w)
{
    free(w->st);
    free(w->path);
    free(w->end);
    memset(w, 0, sizeof *w);
}

/* ---- sections -------------------------------------------------------- */

/* Frees every level below v, without recursion: each kids array once its
 * sections are done with. */
void pr_secs_free(pr_sec *v, size_t n)
{
    struct pr_level *st;
    size_t top = 0, cap = 16;

    if (!v)
        return;
    st = malloc(cap * sizeof *st);
    if (st)
        st[top++] = (struct pr_level){ v, n, 0 };
    while (top > 0) {
        struct pr_level *l = &st[top - 1];
        pr_sec *s;
        if (l->i == l->n) {
            if (top > 1)
                free((void *)l->v);
            top--;
            continue;
        }
        s = (pr_sec *)&l->v[l->i++];
        free(s->own_name);
        free(s->sm_ms);
        free(s->hist);
        pr_launch_free(s);
        if (s->kids) {
            if (top == cap) {
                struct pr_level *more = realloc(st, cap * 2 * sizeof *more);
                if (!more) /* leaks what is left rather than recurse */
                    break;
                st = more;
                cap *= 2;
            }
            st[top++] = (struct pr_level){ s->kids, s->nkids, 0 };
        }
    }
    free(st);
}

/* "name_bytes": a title that is not UTF-8, its bytes in hex. The title
 * then comes from here, byte for byte, so titles that differ only in
 * such bytes (which "name" shows alike, as U+FFFD) stay distinct. */
static int load_name_bytes(pr_where *c, json_t *o, pr_sec *s)
{
    json_t *v = json_object_get(o, "name_bytes");
    const char *h;
    size_t n;

    if (!v)
        return 0;
    h = json_string_value(v);
    n = h ? strlen(h) : 0;
    if (!h || n == 0 || n % 2) {
        pr_enter_key(c, "name_bytes");
        pr_fail_at(c, "\"name_bytes\" must be the title's bytes in hex (two digits a byte)");
        pr_leave(c);
        return -1;
    }
    s->own_name = malloc(n / 2 + 1);
    if (!s->own_name)
        return pr_fail_at(c, "out of memory");
    for (size_t i = 0; i < n / 2; i++) {
        unsigned b = 0;
        for (int k = 0; k < 2; k++) {
            char d = h[2 * i + (size_t)k];
            int x = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
                    : d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
            if (x < 0) {
                pr_enter_key(c, "name_bytes");
                pr_fail_at(c, "\"name_bytes\" must be hex digits");
                pr_leave(c);
                return -1;
            }
            b = b * 16 + (unsigned)x;
        }
        if (b == 0) {
            pr_enter_key(c, "name_bytes");
            pr_fail_at(c, "\"name_bytes\" holds a NUL byte");
            pr_leave(c);
            return -1;
        }
        s->own_name[i] = (char)b;
    }
    s->own_name[n / 2] = '\0';
    s->name = s->own_name;
    return 0;
}

/* A folded phase's per-block time histogram: [lower edge ns, count]
 * pairs, edges rising, at most one per bin there is; absent elsewhere. */
static int load_hist(pr_where *c, json_t *o, pr_sec *s)
{
    return pr_load_hist(c, o, "block_hist", &s->hist, &s->nhist);
}

/* A folded phase's time by SM: an array of numbers >= 0 by %smid, as
 * long as the fold allows SMs (65536); absent for other sections. */
static int load_sm(pr_where *c, json_t *o, pr_sec *s)
{
    json_t *v = json_object_get(o, "sm_ms"), *x;
    size_t i, n;

    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > 65536)
        return pr_wrong_type(c, "sm_ms", "an array of at most 65536 numbers");
    n = json_array_size(v);
    s->sm_ms = calloc(n ? n : 1, sizeof *s->sm_ms);
    if (!s->sm_ms)
        return pr_fail_at(c, "out of memory");
    json_array_foreach(v, i, x) {
        if (!json_is_number(x) || !(json_number_value(x) >= 0)) {
            pr_enter_key(c, "sm_ms");
            pr_enter_index(c, i);
            pr_fail_at(c, "an SM's time must be a number >= 0");
            pr_leave(c);
            pr_leave(c);
            return -1;
        }
        s->sm_ms[i] = json_number_value(x);
    }
    s->nsm = (int)n;
    return 0;
}

/* A section's members but its children (schema 1) or its place (schema
 * 2), at depth. */
static int load_fields(pr_where *c, json_t *o, int depth, int schema, pr_sec *s)
{
    static const char *const kinds[] = { "cpu", "gpu", "phase", "unattributed" };
    uint64_t d;
    json_t *merged;
    int ok = 0;

    if (!json_is_object(o))
        return pr_fail_at(c, "a section must be an object");
    if (pr_get_string(c, o, "name", (const char **)&s->name) ||
        (schema == 1 && pr_get_string(c, o, "path", (const char **)&s->path)) ||
        pr_get_uint(c, o, "depth", &d) || pr_get_string(c, o, "kind", (const char **)&s->kind) ||
        pr_get_bool(c, o, "open", &s->st.open) || load_name_bytes(c, o, s))
        return -1;
    s->st.name = s->name;
    if (d != (uint64_t)depth) {
        pr_enter_key(c, "depth");
        pr_fail_at(c, "depth %llu where the %s gives %d", (unsigned long long)d,
                   schema == 1 ? "nesting" : "parent", depth);
        pr_leave(c);
        return -1;
    }
    s->st.depth = depth;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        ok |= strcmp(s->kind, kinds[i]) == 0;
    if (!ok) {
        pr_enter_key(c, "kind");
        pr_fail_at(c, "unknown kind \"%s\" (cpu, gpu, phase or unattributed)", s->kind);
        pr_leave(c);
        return -1;
    }
    /* Every figure by the library's list; those that came later within
     * schema 1 may be missing from older runs, and read as 0. */
    for (size_t i = 0; i < pt__nfigures; i++) {
        const pt__figure *f = &pt__figures[i];
        void *at = pt__figure_at(&s->st, f);
        int bad;
        if (f->later && !json_object_get(o, f->name))
            continue;
        switch (f->type) {
        case PT__FIG_U64: bad = pr_get_uint(c, o, f->name, (uint64_t *)at); break;
        case PT__FIG_F64: bad = pr_get_number(c, o, f->name, (double *)at); break;
        default: bad = pr_get_bound(c, o, f->name, (int *)at); break;
        }
        if (bad)
            return -1;
    }
    merged = json_object_get(o, "merged");
    if (merged && !json_is_object(merged)) {
        pr_enter_key(c, "merged");
        pr_fail_at(c, "\"merged\" must be an object");
        pr_leave(c);
        return -1;
    }
    s->merged = merged;
    s->host_mode = json_is_true(json_object_get(o, "host_mode"));
    return load_sm(c, o, s) < 0 || pr_load_launch(c, o, s) < 0 ? -1 : load_hist(c, o, s);
}

/* Siblings by title, for finding one title twice. */
static const pr_sec *const *dup_base;
static int by_title(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(dup_base[x]->name, dup_base[y]->name);
    return c ? c : x < y ? -1 : x > y;
}

/* Among the n siblings v[i], two of one title: 1 with *first and *second
 * (in the file's order), else 0; -1 without memory. O(n log n). */
static int find_dup(const pr_sec *const *v, size_t n, size_t *first, size_t *second)
{
    size_t *ix;
    int found = 0;

    if (n < 2)
        return 0;
    ix = malloc(n * sizeof *ix);
    if (!ix)
        return -1;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    dup_base = v;
    qsort(ix, n, sizeof *ix, by_title);
    for (size_t i = 1; i < n && !found; i++)
        if (strcmp(v[ix[i - 1]]->name, v[ix[i]]->name) == 0) {
            *first = ix[i - 1];
            *second = ix[i];
            found = 1;
        }
    free(ix);
    return found;
}

static int dup_message(pr_where *c, const pr_sec *s)
{
    return pr_fail_at(c, "a second section titled \"%s\" under the same parent: a run holds a "
                      "title once under a parent (runs saved before titles kept their bytes "
                      "that are not UTF-8 may show two such titles alike; export them again)",
                      s->name);
}

/* Schema 1: an array of sections, each with its "children", at depth.
 * Recurses once per level, which jansson's depth limit bounds. */
int pr_load_nested(pr_where *c, json_t *arr, int depth, pr_sec **out, size_t *nout)
{
    const pr_sec **sib;
    size_t n, a, b;
    pr_sec *v;
    int dup;

    *out = NULL;
    *nout = 0;
    if (!json_is_array(arr))
        return pr_fail_at(c, "sections must be an array");
    n = json_array_size(arr);
    if (n == 0)
        return 0;
    v = calloc(n, sizeof *v);
    if (!v)
        return pr_fail_at(c, "out of memory");
    *out = v;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i), *kids;
        if (pr_enter_index(c, i))
            return -1;
        v[i].order = i;
        /* Counted before loading, so a failure part way frees what was made. */
        *nout = i + 1;
        if (load_fields(c, o, depth, 1, &v[i]) || !(kids = pr_member(c, o, "children"))) {
            pr_leave(c);
            return -1;
        }
        if (pr_enter_key(c, "children")) {
            pr_leave(c);
            return -1;
        }
        if (pr_load_nested(c, kids, depth + 1, &v[i].kids, &v[i].nkids)) {
            pr_leave(c);
            pr_leave(c);
            return -1;
        }
        pr_leave(c);
        pr_leave(c);
    }
    sib = malloc(n * sizeof *sib);
    if (!sib)
        return pr_fail_at(c, "out of memory");
    for (size_t i = 0; i < n; i++)
        sib[i] = &v[i];
    dup = find_dup(sib, n, &a, &b);
    free(sib);
    if (dup < 0)
        return pr_fail_at(c, "out of memory");
    if (dup > 0) {
        pr_enter_index(c, b);
        dup_message(c, &v[b]);
        pr_leave(c);
        return -1;
    }
    (void)a;
    return 0;
}

/* Schema 2: one flat list, depth first, each section with its "id" (its
 * place) and its "parent"'s (-1 at the top, else an earlier one). Read in
 * one pass, then each section moved into its parent's array of children,
 * the last first, so every section carries its own children when it
 * moves. Linear in the sections, however deep. */
int pr_load_flat(pr_where *c, json_t *arr, pr_run *r)
{
    size_t n, *slot = NULL, *nkids = NULL, a, b;
    long long *parent = NULL;
    const pr_sec **sib = NULL;
    pr_sec *v = NULL, **kids = NULL;
    int rc = -1;

    if (!json_is_array(arr))
        return pr_fail_at(c, "sections must be an array");
    n = json_array_size(arr);
    if (n == 0)
        return 0;
    v = calloc(n, sizeof *v);
    parent = malloc(n * sizeof *parent);
    slot = malloc(n * sizeof *slot);
    nkids = calloc(n + 1, sizeof *nkids); /* [0]: the top; [i + 1]: section i's */
    kids = calloc(n + 1, sizeof *kids);
    if (!v || !parent || !slot || !nkids || !kids) {
        pr_fail_at(c, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i), *id, *up;
        int depth;
        if (pr_enter_index(c, i))
            goto done;
        if (!json_is_object(o)) {
            pr_fail_at(c, "a section must be an object");
            pr_leave(c);
            goto done;
        }
        id = pr_member(c, o, "id");
        up = id ? pr_member(c, o, "parent") : NULL;
        if (!up) {
            pr_leave(c);
            goto done;
        }
        if (!json_is_integer(id) || json_integer_value(id) != (json_int_t)i) {
            pr_enter_key(c, "id");
            pr_fail_at(c, "\"id\" must be the section's place in the list, %zu", i);
            pr_leave(c);
            pr_leave(c);
            goto done;
        }
        if (!json_is_integer(up) || json_integer_value(up) < -1 ||
            json_integer_value(up) >= (json_int_t)i) {
            pr_enter_key(c, "parent");
            pr_fail_at(c, "\"parent\" must be -1 (the top) or the id of an earlier section");
            pr_leave(c);
            pr_leave(c);
            goto done;
        }
        parent[i] = (long long)json_integer_value(up);
        depth = parent[i] < 0 ? 1 : v[parent[i]].st.depth + 1;
        v[i].order = nkids[parent[i] + 1];
        slot[i] = nkids[parent[i] + 1]++;
        if (load_fields(c, o, depth, 2, &v[i])) {
            pr_leave(c);
            goto done;
        }
        pr_leave(c);
    }
    for (size_t p = 0; p <= n; p++)
        if (nkids[p] && !(kids[p] = calloc(nkids[p], sizeof **kids))) {
            pr_fail_at(c, "out of memory");
            goto done;
        }
    /* Siblings differ in title: checked per parent, from the flat list. */
    sib = malloc(n * sizeof *sib);
    if (!sib) {
        pr_fail_at(c, "out of memory");
        goto done;
    }
    {
        size_t *first = calloc(n + 1, sizeof *first), at = 0;
        size_t *ids = malloc(n * sizeof *ids);
        if (!first || !ids) {
            free(first);
            free(ids);
            pr_fail_at(c, "out of memory");
            goto done;
        }
        /* The ids grouped by parent, in order: a counting sort. */
        for (size_t p = 0; p <= n; p++) {
            first[p] = at;
            at += nkids[p];
        }
        for (size_t i = 0; i < n; i++)
            ids[first[parent[i] + 1] + slot[i]] = i;
        for (size_t p = 0; p <= n && rc != -2; p++) {
            int dup;
            if (nkids[p] < 2)
                continue;
            for (size_t k = 0; k < nkids[p]; k++)
                sib[k] = &v[ids[first[p] + k]];
            dup = find_dup(sib, nkids[p], &a, &b);
            if (dup) {
                if (dup < 0) {
                    pr_fail_at(c, "out of memory");
                } else {
                    pr_enter_index(c, ids[first[p] + b]);
                    dup_message(c, &v[ids[first[p] + b]]);
                    pr_leave(c);
                }
                rc = -2;
            }
        }
        free(first);
        free(ids);
        if (rc == -2) {
            rc = -1;
            goto done;
        }
    }
    for (size_t i = n; i-- > 0;) {
        v[i].kids = kids[i + 1];
        v[i].nkids = nkids[i + 1];
        kids[i + 1] = NULL;
        kids[parent[i] + 1][slot[i]] = v[i];
    }
    r->secs = kids[0];
    r->nsecs = nkids[0];
    kids[0] = NULL;
    rc = 0;
done:
    if (rc) {
        /* Sections not moved yet own their names and figures; arrays not handed on are freed. */
        for (size_t i = 0; v && i < n; i++) {
            free(v[i].own_name);
            free(v[i].sm_ms);
            free(v[i].hist);
            pr_launch_free(&v[i]);
        }
        for (size_t p = 0; kids && p <= n; p++)
            free(kids[p]);
    }
    free(v);
    free(parent);
    free(slot);
    free(nkids);
    free(kids);
    free(sib);
    return rc;
}

