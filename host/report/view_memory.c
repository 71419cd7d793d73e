/* The memory view: the tracked tensors, their total and peak, the
 * device's sampled memory, and each section's high-water mark. */
#include "report/views.h"

#include "gpu/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes in MB of 1e6 bytes, as the rates are in GB/s of 1e9. */
void pt__view_memory(pt_timing *t, pt__lines *k, pt__rows *r)
{
    static const char *const head[4] = { "Tensor", "Shape", "Dtype", "Size (MB)" };
    pt_memory_stats ms;
    size_t w[4], total_w = 0, n = 0;
    const char *name, *dtype;
    const void *ptr;
    const long long *shape;
    double bytes;
    int nd;
    char cell[PT__CELL], shp[PT__CELL];

    pt_memory_get(t, &ms);
    for (int c = 0; c < 4; c++)
        w[c] = strlen(head[c]);
    /* Two passes over the tensors: widths, then lines. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (int c = 0; c < 4; c++)
                total_w += w[c] + (c ? strlen(PT__GAP) : 0);
            pt__line_rule(k, '=', total_w);
            for (int c = 0; c < 4; c++) {
                if (c)
                    pt__line_str(k, PT__GAP);
                pt__line_cell(k, head[c], w[c], c == 3);
            }
            pt__line_emit(k);
            pt__line_rule(k, '-', total_w);
        }
        for (size_t at = 0; pt__memory_tensor(t, &at, &name, &ptr, &bytes, &shape, &nd, &dtype);) {
            size_t len = 0;
            char *clean = pt__clean_dup(name);
            shp[len++] = '(';
            for (int d = 0; d < nd && len < PT__CELL - 24; d++)
                len += (size_t)snprintf(shp + len, PT__CELL - len, "%s%lld", d ? ", " : "", shape[d]);
            snprintf(shp + len, PT__CELL - len, "%s)", nd == 1 ? "," : "");
            snprintf(cell, PT__CELL, "%.3f", bytes / 1e6);
            if (pass == 0) {
                size_t cw[4] = { clean ? pt__utf8_width(clean) : 0, strlen(shp), pt__utf8_width(dtype), strlen(cell) };
                for (int c = 0; c < 4; c++)
                    w[c] = cw[c] > w[c] ? cw[c] : w[c];
            } else {
                pt__line_cell(k, clean ? clean : "?", w[0], 0);
                pt__line_str(k, PT__GAP);
                pt__line_cell(k, shp, w[1], 0);
                pt__line_str(k, PT__GAP);
                pt__line_cell(k, dtype, w[2], 0);
                pt__line_str(k, PT__GAP);
                pt__line_cell(k, cell, w[3], 1);
                pt__line_emit(k);
            }
            free(clean);
            n++;
        }
    }
    if (n == 0) {
        pt__line_str(k, "(no tensors tracked)");
        pt__line_emit(k);
    }
    pt__line_rule(k, '-', total_w);
    snprintf(cell, PT__CELL, "%.3f", ms.total / 1e6);
    pt__line_cell(k, "TOTAL TRACKED", w[0] + w[1] + w[2] + 2 * strlen(PT__GAP), 0);
    pt__line_str(k, PT__GAP);
    pt__line_cell(k, cell, w[3], 1);
    pt__line_emit(k);
    snprintf(cell, PT__CELL, "%.3f", ms.peak / 1e6);
    pt__line_cell(k, "PEAK TRACKED", w[0] + w[1] + w[2] + 2 * strlen(PT__GAP), 0);
    pt__line_str(k, PT__GAP);
    pt__line_cell(k, cell, w[3], 1);
    pt__line_emit(k);
    if (ms.device_sampled) {
        pt__line_rule(k, '-', total_w);
        pt__line_printf(k, "Device memory used %.3f MB of %.3f MB (free %.3f MB); peak used %.3f MB",
            (ms.device_total - ms.device_free) / 1e6, ms.device_total / 1e6,
            ms.device_free / 1e6, ms.device_used_peak / 1e6);
        pt__line_emit(k);
    }
    /* Each section's high-water mark, where one was reached. */
    for (size_t i = 0, first = 1; i < r->n; i++) {
        const pt__row *x = &r->v[i];
        pt_section_stats st;
        pt__row_stats(r, i, &st);
        if (st.mem_high_water <= 0)
            continue;
        if (first) {
            pt__line_rule(k, '-', total_w);
            pt__line_str(k, "Section high-water (MB)");
            pt__line_emit(k);
            first = 0;
        }
        pt__line_spaces(k, 2);
        pt__line_str(k, x->label);
        pt__line_printf(k, PT__GAP "%.3f", st.mem_high_water / 1e6);
        pt__line_emit(k);
    }
    pt__line_rule(k, '=', total_w);
}
