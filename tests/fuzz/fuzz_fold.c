/* libFuzzer target: pt_dev_fold() of host-mode records whose every word
 * is the input's: what a kernel that overran its buffer, a stale buffer
 * or a hostile one could leave (clocks going back, spans past 2^62,
 * counts that overflow or are negative, trace events past the capacity,
 * slot and phase indices out of range, header words of any value).
 *
 * The first bytes choose the shape (slots 1-8, phases 1-6, aggregate or
 * trace mode with up to 7 events a slot, whether the header's shape words
 * are the input's too, whether phase 0 is a wait, whether the records are
 * folded as two roles of the launch, the same words in each; whether the
 * timing keeps a trace, exported after the fold) and the
 * launch's length on the CPU clock; the rest, 8 bytes a word, overwrites
 * the buffer from its first word (what it does not reach stays as the
 * reset left it).
 * Whatever the words, nothing crashes, leaks or overflows (ASan, UBSan),
 * and:
 *   - the fold returns 0 or one of the errors pt.h names for it;
 *   - every figure of every section is finite and none negative;
 *   - the folded tree packs, and its bytes merge into an empty timing
 *     (pack.c's reader refuses figures that disagree) and pack to the same
 *     bytes (fuzz_common.h's round trip);
 *   - the text report is written.
 * A broken invariant aborts, which libFuzzer reports as a crash. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pt/pt.h>
#include <pt/pt_dev.h>

#include "gpu/calibrate.h"

#define FUZZ_NAME "fuzz_fold"
#include "fuzz_common.h"

static int sane(double v)
{
    return isfinite(v) && v >= 0;
}

static void check_section(pt_timing *t, const pt_section *s)
{
    pt_section_stats st;

    check(pt_section_get(t, s, &st) == 0, "pt_section_get");
    const double v[] = { st.total_ms, st.first_ms, st.mean_ms, st.stddev_ms, st.min_ms,
                         st.max_ms, st.pct_parent, st.pct_total, st.hits, st.block_mean_ms,
                         st.block_min_ms, st.block_max_ms, st.imbalance, st.block_p50_ms,
                         st.block_p90_ms, st.block_p99_ms, st.overhead_ms, st.sm_mean_ms,
                         st.sm_min_ms, st.sm_max_ms, st.sm_imbalance, st.busy_ms,
                         st.overlap_pct, st.wait_ms, st.bubble_ms, st.waves, st.span_ms,
                         st.tail_ms, st.tail_pct, st.sm_idle_pct, st.slowest_block_ms };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(sane(v[i]), "every figure is finite and >= 0");
    check(st.overlap_pct <= 100 * (1 + 1e-9), "the overlap is a share of the work");
    check(st.bubble_ms <= st.wait_ms * (1 + 1e-9) + 1e-12, "the bubbles are part of the waits");
    check(isfinite(st.self_ms), "the self time is finite");
}

/* The section after s in preorder, climbing at most s's depth. */
static const pt_section *next_pre(const pt_section *s, const pt_section *root)
{
    if (pt_section_child(s))
        return pt_section_child(s);
    for (; s && s != root; s = pt_section_parent(s))
        if (pt_section_next(s))
            return pt_section_next(s);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int calibrated;
    pt_timing *t;
    pt_dev_records *b;
    pt_dev_buf a;
    void *p1;
    size_t n1;
    int nslots, nphases, trace_cap, hostile_header, known, rc, roles, wait, traced;
    uint64_t launch = 0;

    if (size < 11)
        return 0;
    if (!calibrated) {
        /* The host's clock at 2 cycles per ns, a 1 us globaltimer tick. */
        pt__calib_set(-1, 2.0, 1000.0);
        calibrated = 1;
    }
    nslots = 1 + data[0] % 8;
    nphases = 1 + (data[1] & 0x3f) % 6;
    wait = data[1] & 0x40;
    roles = data[1] & 0x80;
    trace_cap = data[2] & 1 ? (data[2] >> 1) % 8 : 0;
    hostile_header = data[2] & 0x80;
    traced = data[2] & 0x40;
    for (int i = 0; i < 8; i++)
        launch |= (uint64_t)data[3 + i] << (8 * i);
    launch &= ((uint64_t)1 << 50) - 1; /* up to 13 days */
    data += 11;
    size -= 11;

    t = pt_create("fold", PT_CPU | (traced ? PT_TRACE : 0));
    check(t != NULL, "pt_create");
    pt_error_fn_set(t, quiet, NULL);
    now_ns = 0;
    pt_clock_set(t, clock_read, NULL);
    b = pt_dev_records_create(t, nslots, nphases, NULL,
                              PT_DEV_HOST | (trace_cap ? PT_DEV_TRACE : PT_DEV_AGGREGATE),
                              trace_cap);
    check(b != NULL, "pt_dev_records_create");
    a = pt_dev_arg(b);
    long long words = PT_DEV_BUF_WORDS(a.nslots, a.nphases, a.trace_cap);
    size_t nbytes = size < (size_t)words * 8 ? size : (size_t)words * 8;
    long long shape[PT_DEV_HDR];
    memcpy(shape, a.data, sizeof shape);
    memcpy(a.data, data, nbytes);
    if (!(hostile_header)) {
        /* The header's shape as pt_dev_reset() writes it, so that the
         * slots are read: the fold refuses a header that does not match
         * its buffer (tried with the top bit of the mode byte). */
        static const int keep[] = { PT_DEV_H_MAGIC, PT_DEV_H_LAYOUT, PT_DEV_H_NSLOTS,
                                    PT_DEV_H_NPHASES, PT_DEV_H_TRACE_CAP, PT_DEV_H_MODE };
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            a.data[keep[i]] = shape[keep[i]];
    }

    pt_start(t, "step");
    now_ns += (int64_t)launch;
    pt_stop(t, "step");
    if (wait)
        check(pt_dev_records_waits(b, 1, (const int[]){ 0 }) == 0, "phase 0 a wait");
    if (roles) {
        /* The same words as a second role's records: their span events
         * meet the first role's on each SM. */
        pt_dev_records *c = pt_dev_records_create(t, nslots, nphases, NULL,
                                                  PT_DEV_HOST | (trace_cap ? PT_DEV_TRACE : 0),
                                                  trace_cap);
        check(c != NULL, "pt_dev_records_create");
        memcpy(pt_dev_arg(c).data, a.data, (size_t)words * 8);
        rc = pt_dev_fold_role(t, b, "step", "producer");
        int rc2 = pt_dev_fold_role(t, c, "step", "consumer");
        rc = rc ? rc : rc2;
        pt_dev_records_free(c);
    } else {
        rc = pt_dev_fold(t, b, "step");
    }
    known = rc == 0 || rc == PT_ERANGE || rc == PT_EINVAL || rc == PT_ESTATE || rc == PT_EFULL;
    if (!known)
        fprintf(stderr, "fuzz_fold: %s\n", pt_last_error(t));
    check(known, "pt_dev_fold returns 0 or an error pt.h names for it");
    check(pt_log_fn(t, quiet, NULL) >= 0, "the report is written");
    if (traced) {
        /* The blocks drawn from whatever the records hold. */
        char path[64];
        snprintf(path, sizeof path, "/tmp/ptkit-fuzz-fold-%d.json", (int)getpid());
        check(pt_export_trace(t, path) == 0, "the trace is written");
        remove(path);
    }

    for (const pt_section *s = pt_section_child(pt_root(t)); s; s = next_pre(s, pt_root(t)))
        check_section(t, s);

    check(pt_pack(t, &p1, &n1) == 0, "the folded tree packs");
    check_round_trip(p1, n1);
    free(p1);
    pt_dev_records_free(b);
    pt_destroy(t);
    return 0;
}
