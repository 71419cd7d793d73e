/* PT_OUTPUT (output.c): the reports a run writes, chosen by the
 * environment, read at pt_create() and written at pt_destroy(). Not
 * installed. */
#ifndef PT_REPORT_OUTPUT_H
#define PT_REPORT_OUTPUT_H

#include "core/model.h"

/* PT_OUTPUT's value in *spec (NULL when unset or empty), and the flags
 * its outputs need on the timing (PT_TRACE for a trace). */
PT__HIDDEN unsigned pt__output_flags(const char **spec);
/* Claims the files spec names for t (templates expanded): what names no
 * output, one path for two kinds, a folder or a missing folder is said on
 * stderr and counted on t, at once; a file another live timing claimed
 * becomes name-2.ext (said, and a note). */
PT__HIDDEN void pt__output_init(pt_timing *t, const char *spec);
/* Writes t's outputs, once, and lets go of its files; what fails is said
 * on stderr. A forked child writes none of its parent's. */
PT__HIDDEN void pt__output_write(pt_timing *t);
/* Lets go of t's files without writing them (a timing never used). */
PT__HIDDEN void pt__output_drop(pt_timing *t);
/* At exit: the outputs of every timing of this process never destroyed. */
PT__HIDDEN void pt__output_write_all(void);

#endif
