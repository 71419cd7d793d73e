/* A launch's shape (model.h's pt__shape): what the fold (gpu/shape.c),
 * merges, packs and restores share. Not installed. */
#ifndef PT_CORE_SHAPE_H
#define PT_CORE_SHAPE_H

#include "core/model.h"

PT__HIDDEN void pt__shape_free(pt__shape *sh);
/* s's shape, made empty when it has none; NULL without memory. */
PT__HIDDEN pt__shape *pt__shape_of(pt_section *s);
/* Keeps a block as the slowest when it is slower than the one kept (or
 * none is): its time, slot, SM and its n phases' names and times, copied.
 * Returns 0, or PT_ENOMEM with the one kept before left whole. */
PT__HIDDEN int pt__shape_slowest(pt__shape *sh, double ns, long long block, long long sm, int n,
                                 const char *const *names, const double *phase_ns);
/* Pools src into dst's shape (made when dst has none): 0 or PT_ENOMEM. */
PT__HIDDEN int pt__shape_merge(pt_section *dst, const pt__shape *src);
/* The shape's figures in o (pt_section_stats' shape_folds ... straggler_sm). */
PT__HIDDEN void pt__shape_stats(const pt__shape *sh, pt_section_stats *o);

#endif
