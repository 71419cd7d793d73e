/* PT_TRACE's per-thread log (model.h's pt__tlog), kept by core/tlog.c:
 * chunks that grow without copying, each twice the last up to 2 MiB.
 * Not installed. */
#ifndef PT_CORE_TLOG_H
#define PT_CORE_TLOG_H

#include "core/model.h"

#include <stddef.h>

/* The log's next chunk, reused or made, with room within cap events in
 * all: 1; 0 when the log holds cap; -1 without memory. */
PT__HIDDEN int pt__tlog_next(pt__tlog *l, size_t cap);
/* The log emptied, its chunks kept for the events to come. */
PT__HIDDEN void pt__tlog_rewind(pt__tlog *l);
/* The log's chunks freed. */
PT__HIDDEN void pt__tlog_free(pt__tlog *l);
/* Bytes a log holds for n events, chunks and their headers included. */
PT__HIDDEN size_t pt__tlog_bytes(size_t n);

#endif
