/* Runs merged by rank: what pt_mpi_gather() (through
 * pt_unpack_merge_rank) keeps beside the pooled tree, so the reports can
 * say how many ranks there were and how each section's time spread over
 * them, as `ptreport merge` does for files.
 *
 * A section keeps, over the ranks that have it, the least, the largest
 * and the sum of their totals, and the rank with the largest. The
 * receiving timing's own sections are rank 0's, taken at the first rank
 * merged, before anything of another rank is pooled into them. Both
 * walks are depth first without recursion, linear in the sections. */
#include "core/ranks.h"

#include "core/tree.h"

#include <stdlib.h>
#include <string.h>

static int add(pt_section *s, double ns, long long rank)
{
    pt__ranks *k = s->ranks;

    if (!k) {
        k = calloc(1, sizeof *k);
        if (!k)
            return PT_ENOMEM;
        s->ranks = k;
    }
    if (k->n == 0 || ns < k->min_ns)
        k->min_ns = ns;
    if (k->n == 0 || ns > k->max_ns) {
        k->max_ns = ns;
        k->slowest = rank;
    }
    k->sum_ns += ns;
    k->n++;
    return 0;
}

int pt__ranks_begin(pt_timing *t)
{
    if (t->ranks > 0)
        return 0;
    for (pt_section *s = t->root.child; s; s = (pt_section *)pt__tree_next(s, &t->root))
        if (s->count > 0 && add(s, s->total_ns, 0) < 0)
            return PT_ENOMEM;
    t->ranks = 1;
    return 0;
}

int pt__ranks_add(pt_timing *t, const pt_section *root, int rank)
{
    /* The section of t at each depth of the path to the one being read. */
    pt_section **at;
    size_t cap = 64;
    int rc = 0;

    at = malloc(cap * sizeof *at);
    if (!at)
        return PT_ENOMEM;
    at[0] = &t->root;
    for (const pt_section *s = root->child; s && rc == 0; s = pt__tree_next(s, root)) {
        size_t d = (size_t)s->depth;
        pt_section *dst;
        if (d >= cap) {
            pt_section **v = realloc(at, 2 * cap * sizeof *v);
            if (!v) {
                rc = PT_ENOMEM;
                break;
            }
            at = v;
            cap *= 2;
        }
        dst = at[d - 1] ? pt__child_find(at[d - 1], s->name) : NULL;
        at[d] = dst;
        if (dst && s->count > 0)
            rc = add(dst, s->total_ns, rank);
    }
    free(at);
    t->ranks++;
    /* A NULL timing on that rank, or one that timed nothing, packs an empty tree. */
    if (!root->child)
        t->ranks_empty++;
    return rc;
}

/* The first index of t->rank_ids not below rank (binary search). */
static size_t rank_at(const pt_timing *t, int rank)
{
    size_t lo = 0, hi = t->nrank_ids;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rank_ids[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int pt__ranks_seen(const pt_timing *t, int rank)
{
    size_t i = rank_at(t, rank);
    return i < t->nrank_ids && t->rank_ids[i] == rank;
}

/* pt_mpi_gather() merges in rank order, so the insertion is an append:
 * linear in the ranks overall. */
int pt__ranks_note(pt_timing *t, int rank)
{
    size_t i = rank_at(t, rank);

    if (i < t->nrank_ids && t->rank_ids[i] == rank)
        return 0;
    if (t->nrank_ids == t->rank_ids_cap) {
        size_t cap = t->rank_ids_cap ? 2 * t->rank_ids_cap : 16;
        int *v = realloc(t->rank_ids, cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        t->rank_ids = v;
        t->rank_ids_cap = cap;
    }
    memmove(t->rank_ids + i + 1, t->rank_ids + i, (t->nrank_ids - i) * sizeof *t->rank_ids);
    t->rank_ids[i] = rank;
    t->nrank_ids++;
    return 0;
}

void pt__ranks_free(pt_timing *t)
{
    free(t->rank_ids);
    t->rank_ids = NULL;
    t->nrank_ids = t->rank_ids_cap = 0;
}
