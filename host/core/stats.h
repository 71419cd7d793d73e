/* A section's figures as the reports show them, and the one list of
 * those figures every writer and reader goes by (stats.c). Not installed. */
#ifndef PT_CORE_STATS_H
#define PT_CORE_STATS_H

#include "core/model.h"

#include <stddef.h>

/* Every figure of a section after its identity (name, path, depth, kind,
 * open), by the names all exports use and in their order, so CSV, JSON
 * and HTML write one list and ptreport reads it back. */
enum { PT__FIG_F64, PT__FIG_U64, PT__FIG_BOUND };
typedef struct pt__figure {
    const char *name;
    int type;                 /* PT__FIG_*: double, uint64_t, or int bound */
    size_t off;               /* in pt_section_stats */
    int later;                /* came later within schema 1: a reader takes a run without it as 0 */
} pt__figure;
PT__HIDDEN extern const pt__figure pt__figures[];
PT__HIDDEN extern const size_t pt__nfigures;
/* A figure's value as a double (the bound as its enum value). */
/* a / b, finite whatever the two are (a saved run or a user's peaks may
 * hold extreme figures): 0 when either is not positive, the largest
 * double past it. */
PT__HIDDEN double pt__ratio(double a, double b);
PT__HIDDEN double pt__figure_value(const pt_section_stats *st, const pt__figure *f);
/* A PT__FIG_U64 figure exactly, and where any figure lies in st. */
static inline uint64_t pt__figure_u64(const pt_section_stats *st, const pt__figure *f)
{
    return *(const uint64_t *)(const void *)((const char *)st + f->off);
}
static inline void *pt__figure_at(pt_section_stats *st, const pt__figure *f)
{
    return (char *)st + f->off;
}
/* "cpu", "gpu", "phase" or "unattributed" for enum pt__kind. */
PT__HIDDEN const char *pt__kind_name(int kind);

/* Why GPU sections were timed by the CPU clock, in words; "" if they were not. */
PT__HIDDEN const char *pt__fallback_why(const pt_timing *t);
/* For a folded phase: the SMs it has totals for, up to the last one with
 * time (s->phase->sm_ns[0..n), ns); 0 for any other section, and for a
 * phase folded in host mode, whose blocks ran on host CPUs, not SMs. */
PT__HIDDEN int pt__sm_count(const pt_section *s);
PT__HIDDEN int pt__sm_count_of(const pt__phase_ext *p);

/* Fill figures (pending GPU work must be resolved first). */
PT__HIDDEN void pt__stats_of(const pt_timing *t, const pt_section *s, pt_section_stats *o);
/* Siblings of parent's children in the order asked; returns count, *out malloc'ed. */
PT__HIDDEN size_t pt__sorted_children(const pt_section *parent, int sort,
                                      const pt_section ***out);

#endif
