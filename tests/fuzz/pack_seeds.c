/* The seeds of the pack fuzz target: trees pt_pack() writes, one file
 * each, into the folder named on the command line. tests/fuzz/corpus/pack/
 * holds what `make fuzz-pack-seeds` writes; run it again and copy the
 * files there when the packed format changes. Every figure comes from a
 * clock moved by hand, so the bytes are the same on every run. The titles
 * are partly those of fuzz_pack.c's holder, so merging a seed reaches
 * existing nodes as well as new ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_hist.h"
#include "core/shape.h"
#include "core/spans.h"
#include "core/tree.h"

static int64_t now_ns;

static int64_t clock_read(void *ctx)
{
    (void)ctx;
    return now_ns;
}

#define SPAN(t, title, ns, ...)                    \
    do {                                           \
        pt_start((t), (title));                    \
        now_ns += (ns);                            \
        pt_stop((t), (title), __VA_ARGS__);        \
    } while (0)

static pt_timing *timing(const char *name)
{
    pt_timing *t = pt_create(name, PT_CPU);
    if (!t) {
        fprintf(stderr, "pack_seeds: out of memory\n");
        exit(1);
    }
    now_ns = 0;
    pt_clock_set(t, clock_read, NULL);
    return t;
}

static int write_seed(const char *dir, const char *name, pt_timing *t)
{
    char path[4096];
    void *buf;
    size_t len;
    FILE *f;
    int rc = pt_pack(t, &buf, &len);

    if (rc != 0) {
        fprintf(stderr, "pack_seeds: %s: pt_pack: %s\n", name, pt_last_error(t));
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "pack_seeds: %s: cannot write\n", path);
        free(buf);
        return 1;
    }
    printf("%s: %zu bytes\n", path, len);
    free(buf);
    pt_destroy(t);
    return 0;
}

/* Sections nested four deep, repeated, under the holder's titles and new ones. */
static pt_timing *nested(void)
{
    pt_timing *t = timing("nested");

    pt_start(t, "solve");
    for (int i = 1; i <= 4; i++) {
        pt_start(t, "step");
        SPAN(t, "gemm", i * 1000000, );
        pt_start(t, "launch");
        SPAN(t, "inner", 300 * i, );
        now_ns += 1000;
        pt_stop(t, "launch");
        pt_stop(t, "step");
    }
    pt_stop(t, "solve");
    SPAN(t, "post", 42, );
    return t;
}

/* Bytes, FLOPS, transfers, a memory high-water mark, a GPU-timed kind,
 * phases with per-block and per-SM figures, and the launch's shape. */
static pt_timing *metrics(void)
{
    pt_timing *t = timing("metrics");
    pt_section *launch, *ph, *un;

    pt_start(t, "solve", .flops = 1e6);
    pt_start(t, "upload");
    now_ns += 500000;
    pt_transfer(t, 4096, PT_H2D);
    pt_transfer(t, 100, PT_D2D);
    pt_stop(t, "upload");
    pt_start(t, "step");
    SPAN(t, "gemm", 3000000, .read = 1 << 20, .written = 4096, .flops = 2e9);
    SPAN(t, "launch", 2000000, .flops = 5e8);
    SPAN(t, "launch", 2500000, );
    pt_stop(t, "step");
    pt_stop(t, "solve");

    launch = (pt_section *)pt_find(t, "solve/step/launch");
    launch->kind = PT__K_GPU;
    ((pt_section *)pt_find(t, "solve"))->mem_hwm = 3 << 20;
    /* The figures a fold leaves (fold.c fills these). */
    ph = pt__child(t, launch, "angular");
    un = pt__child(t, launch, "(unattributed)");
    if (!ph || !un || !(ph->phase = calloc(1, sizeof *ph->phase)) ||
        !(un->phase = calloc(1, sizeof *un->phase)) ||
        !(ph->phase->sm_ns = calloc(4, sizeof(double)))) {
        fprintf(stderr, "pack_seeds: out of memory\n");
        exit(1);
    }
    ph->kind = PT__K_PHASE;
    pt__record(ph, 1.5e6);
    pt__record(ph, 1.25e6);
    pt__record(ph, 1.75e6);
    ph->phase->blocks = 128;
    ph->phase->hits = 1280;
    ph->phase->block_sum_ns = 2e7;
    ph->phase->block_min_ns = 1e5;
    ph->phase->block_max_ns = 4e5;
    ph->phase->nsm = 4;
    /* 128 block times in three bins of the histogram (device/pt_hist.h). */
    if (!(ph->phase->hist = calloc(PT__HIST_BINS, sizeof *ph->phase->hist))) {
        fprintf(stderr, "pack_seeds: out of memory\n");
        exit(1);
    }
    ph->phase->hist[pt__hist_bin(1e5)] = 8;
    ph->phase->hist[pt__hist_bin(1.5e5)] = 100;
    ph->phase->hist[pt__hist_bin(4e5)] = 20;
    ph->phase->sm_ns[0] = 1e6;
    ph->phase->sm_ns[3] = 3.5e6;
    un->kind = PT__K_UNATTR;
    pt__record(un, 2e5);
    un->phase->blocks = 128;
    un->phase->block_sum_ns = 2.5e7;
    un->phase->block_min_ns = 1.5e5;
    un->phase->block_max_ns = 2.5e5;
    /* Two folds' shape (gpu/shape.c fills it), the slowest block's phases. */
    pt__shape *sh = pt__shape_of(launch);
    const char *names[] = { "angular" };
    if (!sh || pt__shape_slowest(sh, 4.5e5, 17, 3, 1, names, (double[]){ 4e5 }) < 0) {
        fprintf(stderr, "pack_seeds: out of memory\n");
        exit(1);
    }
    sh->folds = 2;
    sh->waves_sum = 2.5;
    sh->span_ns_sum = 4e6;
    sh->tail_ns_sum = 1e6;
    sh->idle_sum = 0.5;
    sh->resident = 2;
    sh->sms = 4;
    sh->stragglers = 1;
    sh->straggler_sm = 3;
    /* A kind of span: three closed, one left unmatched. */
    pt__span *sp = pt__span_of(sh, "tma");
    if (!sp || pt__span_add(sp, 5e5) < 0 || pt__span_add(sp, 5e5) < 0 || pt__span_add(sp, 2e6) < 0) {
        fprintf(stderr, "pack_seeds: out of memory\n");
        exit(1);
    }
    sp->unmatched = 1;
    /* Its work and waits over one fold (core/overlap.c). */
    sh->ovl_folds = 1;
    sh->busy_ns = 3e6;
    sh->overlap_ns = 1e6;
    sh->wait_ns = 1e6;
    sh->bubble_ns = 2.5e5;
    return t;
}

/* One parent with more children than its lookup table starts at, some
 * the holder's, and the empty title. */
static pt_timing *many_children(void)
{
    pt_timing *t = timing("many children");
    char title[16];

    pt_start(t, "many");
    for (int i = 0; i < 24; i++) {
        snprintf(title, sizeof title, "c%d", i);
        SPAN(t, title, 10 + i, .read = i);
    }
    SPAN(t, "", 7, );
    pt_stop(t, "many");
    SPAN(t, "", 3, );
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pack_seeds DIR\n");
        return 2;
    }
    return write_seed(argv[1], "nested", nested()) || write_seed(argv[1], "metrics", metrics()) ||
           write_seed(argv[1], "many_children", many_children()) ||
           write_seed(argv[1], "empty", timing("empty"));
}
