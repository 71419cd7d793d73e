/* A saved run's sections (sections.c): loading schema 2's flat list or
 * schema 1's nesting into the tree the commands walk (ptreport.h's
 * pr_walk), and freeing it. */
#ifndef PT_PTREPORT_SECTIONS_H
#define PT_PTREPORT_SECTIONS_H

#include "ptreport.h"
#include "where.h"

/* Schema 1: an array of sections at depth, each with its "children";
 * recurses once a level, which jansson's depth limit bounds. 0, or -1
 * (said) with what was made in *out for pr_secs_free(). */
int pr_load_nested(pr_where *c, json_t *arr, int depth, pr_sec **out, size_t *nout);
/* Schema 2: the flat list, each with its "id" and "parent", into r->secs.
 * Linear in the sections however deep; 0, or -1 (said), nothing kept. */
int pr_load_flat(pr_where *c, json_t *arr, pr_run *r);
/* A histogram o[key] (device/pt_hist.h), [ [ lower edge ns, count ] ] in
 * rising edges, counts > 0, into *out (n pairs, malloc'ed); absent: none. */
int pr_load_hist(pr_where *c, json_t *o, const char *key, double **out, int *n);
/* A launch's members (launch.c): "slowest_phases" and "spans"; 0 or -1
 * (said), and pr_launch_free() frees what they hold. */
int pr_load_launch(pr_where *c, json_t *o, pr_sec *s);
void pr_launch_free(pr_sec *s);
/* Frees every level below v (n sections), without recursion; not v. */
void pr_secs_free(pr_sec *v, size_t n);

#endif
