/* libFuzzer target: pt_unpack_merge(), which reads the bytes another
 * process sent (pt_mpi_gather() merges every rank's packed tree this way).
 * The input is merged into a timing that already holds sections (nested,
 * repeated, with metrics, a folded phase with per-SM figures, a parent
 * with enough children for its lookup table), so merges into existing
 * nodes are reached as well as new ones. Whatever the bytes, nothing
 * crashes or leaks, and:
 *   - refused bytes (PT_EPARSE) leave the tree as it was: it packs to the
 *     bytes it packed to before;
 *   - merged bytes leave a tree that packs, whose header counts every
 *     section, and whose packed bytes merged into an empty timing pack to
 *     the same bytes again (pack and merge are each other's inverse). The
 *     reader refuses figures that disagree (pack.c's consistent()), so this
 *     also holds every merge to figures that agree: saturated counts,
 *     histograms within their blocks, means within their extremes.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * The seeds in tests/fuzz/corpus/pack/ are trees pt_pack() wrote, made by
 * tests/fuzz/pack_seeds.c (make fuzz-pack-seeds; see fuzz.mk). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tree.h"

#define FUZZ_NAME "fuzz_pack"
#include "fuzz_common.h"

/* A section of exactly ns on the clock. */
#define SPAN(t, title, ns, ...)                                              \
    do {                                                                     \
        pt_start((t), (title));                                              \
        now_ns += (ns);                                                      \
        check(pt_stop((t), (title), __VA_ARGS__) == 0, "the holder records"); \
    } while (0)

/* The same few sections every run, on a clock moved by hand. */
static pt_timing *holder(void)
{
    pt_timing *t = pt_create("holder", PT_CPU);
    pt_section *ph;
    char title[16];

    check(t != NULL, "pt_create");
    pt_error_fn_set(t, quiet, NULL);
    now_ns = 0;
    pt_clock_set(t, clock_read, NULL);
    pt_start(t, "solve");
    for (int i = 1; i <= 3; i++) {
        pt_start(t, "step");
        SPAN(t, "gemm", i * 1000000, .read = 1024, .written = 512.0 * i, .flops = 2e6);
        SPAN(t, "launch", 2000000, );
        pt_stop(t, "step");
    }
    pt_stop(t, "solve");
    pt_start(t, "many");
    for (int i = 0; i < 12; i++) {
        snprintf(title, sizeof title, "c%d", i);
        SPAN(t, title, 10 + i, .flops = i);
    }
    pt_stop(t, "many");
    SPAN(t, "", 5, );

    /* A phase with the figures a fold leaves (fold.c fills these). */
    ph = pt__child(t, (pt_section *)pt_find(t, "solve/step/launch"), "angular");
    check(ph != NULL, "pt__child");
    ph->kind = PT__K_PHASE;
    pt__record(ph, 1.5e6);
    pt__record(ph, 1.25e6);
    ph->phase = calloc(1, sizeof *ph->phase);
    check(ph->phase != NULL, "calloc");
    ph->phase->blocks = 64;
    ph->phase->hits = 640;
    ph->phase->block_sum_ns = 1e7;
    ph->phase->block_min_ns = 1e5;
    ph->phase->block_max_ns = 3e5;
    ph->phase->sm_ns = calloc(2, sizeof(double));
    check(ph->phase->sm_ns != NULL, "calloc");
    ph->phase->nsm = 2;
    ph->phase->sm_ns[1] = 2.5e6;
    ((pt_section *)pt_find(t, "solve"))->mem_hwm = 1 << 20;
    return t;
}

static size_t sections_below(const pt_section *s)
{
    size_t n = 0;
    for (const pt_section *c = pt_section_child(s); c; c = pt_section_next(c))
        n += 1 + sections_below(c);
    return n;
}

static uint64_t header_count(const unsigned char *p)
{
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)p[8 + i] << (8 * i);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pt_timing *t = holder();
    void *before, *after;
    size_t nbefore, nafter;
    int rc;

    check(pt_pack(t, &before, &nbefore) == 0, "the holder packs");
    rc = pt_unpack_merge(t, data, size);
    check(rc == 0 || rc == PT_EPARSE || rc == PT_ENOMEM, "pt_unpack_merge returns 0, "
          "PT_EPARSE or PT_ENOMEM");
    if (rc == PT_ENOMEM)
        goto out;
    check(pt_pack(t, &after, &nafter) == 0 && after != NULL, "the merged tree packs");
    check(nafter >= 16 && memcmp(after, "PTPK", 4) == 0, "a packed tree has its header");
    check(header_count(after) == sections_below(pt_root(t)),
          "the header counts every section");
    if (rc == PT_EPARSE) {
        check(nafter == nbefore && memcmp(after, before, nbefore) == 0,
              "refused bytes leave the tree as it was");
        free(after);
        goto out;
    }
    check_round_trip(after, nafter);
    free(after);
out:
    free(before);
    pt_destroy(t);
    return 0;
}
