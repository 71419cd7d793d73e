/* The aggregate flame chart (flame.c): a timing's figures as a Chrome
 * Trace Event file, for a timing that kept aggregates and not
 * occurrences: pt_export_trace() without PT_TRACE, and a saved run
 * rebuilt by ptreport (convert --to trace). Not installed. */
#ifndef PT_REPORT_FLAME_H
#define PT_REPORT_FLAME_H

#include "core/restore.h"

#include <stdio.h>

/* The chart of t on f: every section one complete ("X") event as long as
 * its total over all its occurrences, a section's children laid one after
 * another from its start in order of first start, the top-level sections
 * one after another from 0. One track, so viewers draw the tree as a
 * flame chart; each event's "args" hold the section's figures and
 * "metadata" says the layout is aggregate. Where children's totals add up
 * to more than their parent's (a CUDA-event-timed launch still running
 * after the host section that queued it ended; rounding aside), the
 * parent is drawn as long as its children and its args say so. `from`
 * names the saved run t was rebuilt from; NULL for a live timing, whose
 * chart then starts at its creation on the wall clock
 * (baseTimeNanoseconds). Settles t first. Linear in the sections, without
 * recursion. Returns 0 or PT_ENOMEM; a failed write is left on f's error
 * flag. */
PT__HIDDEN int pt__flame_write(pt_timing *t, FILE *f, const pt__saved *from);

#endif
