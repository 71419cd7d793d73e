/* What a tool built on libptkit may use beyond <pt/pt.h>: the one named
 * internal interface for ptreport (tools/) and any tool after it. A tool
 * includes this header and the public ones, nothing else of host/ (the
 * layer check, tests/layers.c, holds it to that, includes and symbols).
 * Not installed.
 *
 * What it gives, that a program timing itself does not need:
 *   - a saved run read back into a timing (core/restore.h: the sections,
 *     their figures and memory samples; gpu/memory.h for the latter), and
 *     a timing made without PT_OUTPUT (core/timing.h);
 *   - runs merged into one (core/merge.h) and a tree walked and grown
 *     (core/tree.h: children by name, depth, bounded names);
 *   - the figures a report computes for a section (core/stats.h,
 *     core/roofline.h) and the histogram of block times (pt_hist.h);
 *   - the writers' parts, so that a converted or merged run is written as
 *     the library writes one (report/: JSON, CSV, HTML, flame graph, the
 *     all-or-nothing file, UTF-8 widths, the numbers as the reports
 *     write them). */
#ifndef PT_API_TOOL_H
#define PT_API_TOOL_H

#include "core/merge.h"
#include "core/restore.h"
#include "core/roofline.h"
#include "core/stats.h"
#include "core/timing.h"
#include "core/tree.h"
#include "gpu/memory.h"
#include "pt_hist.h"
#include "report/atomic_file.h"
#include "report/export_csv.h"
#include "report/export_html.h"
#include "report/export_json.h"
#include "report/flame.h"
#include "report/format.h"
#include "report/json.h"
#include "report/utf8.h"

#endif
