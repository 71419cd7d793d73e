/* pt_pack and pt_unpack_merge: a tree packed and merged into an empty
 * timing comes back figure for figure; merged into a timing that has the
 * same sections it pools as one run; bytes that are not one whole packed
 * tree (every strict prefix, trailing bytes, each field made wrong, every
 * byte flipped) are refused with PT_EPARSE and leave the tree alone. */
#include <criterion/criterion.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pt_hist.h"
#include "core/tree.h"

#define MS 1000000 /* ns */

static test_clock clk;

/* A tree with nesting, repeats, metrics, transfers, a memory high-water
 * mark and a folded phase's per-block figures. */
static pt_timing *workload(const char *name)
{
    pt_timing *t = test_timing(&clk, name, PT_CPU);
    pt_section *ph;

    cr_assert_not_null(t);
    pt_start(t, "solve", .flops = 1e6);
    for (int i = 1; i <= 3; i++) {
        pt_start(t, "step");
        TEST_SPAN(t, &clk, "gemm", i * MS, .read = 1024, .written = 512 * i, .flops = 2e6);
        TEST_SPAN(t, &clk, "launch", 2 * MS);
        pt_stop(t, "step");
    }
    pt_start(t, "upload");
    clk.now += MS / 2;
    pt_transfer(t, 4096, PT_H2D);
    pt_transfer(t, 100, PT_D2D);
    pt_stop(t, "upload");
    clk.now += 7;
    pt_stop(t, "solve");
    TEST_SPAN(t, &clk, "title with / and \"quotes\"", 3);

    /* A phase, with the figures a fold leaves (fold.c fills these). */
    ph = pt__child(t, (pt_section *)pt_find(t, "solve/step/launch"), "angular");
    cr_assert_not_null(ph);
    ph->kind = PT__K_PHASE;
    pt__record(ph, 1.5 * MS);
    pt__record(ph, 1.25 * MS);
    ph->phase = calloc(1, sizeof *ph->phase);
    cr_assert_not_null(ph->phase);
    ph->phase->blocks = 64;
    ph->phase->hits = 640;
    ph->phase->block_sum_ns = 1e7;
    ph->phase->block_min_ns = 1e5;
    ph->phase->block_max_ns = 3e5;
    ph->phase->nsm = 3;
    ph->phase->sm_ns = calloc(3, sizeof(double));
    cr_assert_not_null(ph->phase->sm_ns);
    ph->phase->sm_ns[0] = 1;
    ph->phase->sm_ns[2] = 2.5e6;
    ((pt_section *)pt_find(t, "solve"))->mem_hwm = 1 << 20;
    return t;
}

static void pack_ok(pt_timing *t, void **buf, size_t *len)
{
    int rc = pt_pack(t, buf, len);
    cr_assert_eq(rc, 0, "pt_pack: %s (%s)", pt_strerror(rc), pt_last_error(t));
    cr_assert_not_null(*buf);
}

/* Every figure of a and b, and of their subtrees, the same bit for bit. */
static void same_tree(const pt_section *a, const pt_section *b)
{
    const pt_section *x = a->child, *y = b->child;

    for (; x && y; x = x->next, y = y->next) {
        const char *n = x->name;
        cr_assert_str_eq(x->name, y->name);
        cr_assert_eq(x->kind, y->kind, "%s: kind", n);
        cr_assert_eq(x->count, y->count, "%s: count %llu, not %llu", n,
                     (unsigned long long)y->count, (unsigned long long)x->count);
#define SAME(f) cr_assert_eq(x->f, y->f, "%s: " #f " %.17g, not %.17g", n, y->f, x->f)
        SAME(total_ns); SAME(first_ns); SAME(last_ns); SAME(mean_ns); SAME(m2_ns);
        SAME(min_ns); SAME(max_ns); SAME(read); SAME(written); SAME(flops);
        SAME(xfer[0]); SAME(xfer[1]); SAME(xfer[2]); SAME(mem_hwm);
#undef SAME
        cr_assert_eq(!x->phase, !y->phase, "%s: phase figures on both or neither", n);
        if (x->phase) {
            const pt__phase_ext *p = x->phase, *q = y->phase;
            cr_assert_eq(p->blocks, q->blocks, "%s: blocks", n);
            cr_assert_eq(p->hits, q->hits, "%s: hits", n);
            cr_assert_eq(p->block_sum_ns, q->block_sum_ns, "%s: block_sum_ns", n);
            cr_assert_eq(p->block_min_ns, q->block_min_ns, "%s: block_min_ns", n);
            cr_assert_eq(p->block_max_ns, q->block_max_ns, "%s: block_max_ns", n);
            cr_assert_eq(p->nsm, q->nsm, "%s: nsm", n);
            for (int i = 0; i < p->nsm; i++)
                cr_assert_eq(p->sm_ns[i], q->sm_ns[i], "%s: sm_ns[%d]", n, i);
        }
        same_tree(x, y);
    }
    cr_assert(!x && !y, "under %s: %s has no counterpart", a->parent ? a->name : "the root",
              x ? x->name : y->name);
}

Test(pack, round_trip_into_an_empty_timing)
{
    pt_timing *a = workload("a"), *b = pt_create("b", PT_CPU);
    void *buf;
    size_t len;
    int rc;

    pack_ok(a, &buf, &len);
    rc = pt_unpack_merge(b, buf, len);
    cr_assert_eq(rc, 0, "pt_unpack_merge: %s (%s)", pt_strerror(rc), pt_last_error(b));
    same_tree(&a->root, &b->root);
    cr_assert_eq(run_stats(b).section_count, run_stats(a).section_count);
    cr_assert_eq(pt_error_count(b), 0, "%s", pt_last_error(b));
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

Test(pack, pack_of_a_merged_copy_is_the_same_bytes)
{
    pt_timing *a = workload("a"), *b = pt_create("b", PT_CPU);
    void *x, *y;
    size_t nx, ny;

    pack_ok(a, &x, &nx);
    cr_assert_eq(pt_unpack_merge(b, x, nx), 0, "%s", pt_last_error(b));
    pack_ok(b, &y, &ny);
    cr_assert_eq(nx, ny, "%zu bytes, then %zu", nx, ny);
    cr_assert(memcmp(x, y, nx) == 0, "the copy packs to the same bytes");
    free(x);
    free(y);
    pt_destroy(a);
    pt_destroy(b);
}

/* Runs of 1, 2, 3 ms here and 4, 5 ms in another process pool into the
 * figures of one run of 1..5 ms. */
Test(pack, merging_pools_like_one_run)
{
    test_clock c2, c3;
    pt_timing *a = test_timing(&clk, "a", PT_CPU), *b = test_timing(&c2, "b", PT_CPU),
              *one = test_timing(&c3, "one", PT_CPU);
    pt_section_stats x, y;
    const pt_section *only;
    void *buf;
    size_t len;

    for (int i = 1; i <= 5; i++) {
        if (i <= 3)
            TEST_SPAN(a, &clk, "work", i * MS, .read = 100, .flops = 10);
        else
            TEST_SPAN(b, &c2, "work", i * MS, .read = 100, .flops = 10);
        TEST_SPAN(one, &c3, "work", i * MS, .read = 100, .flops = 10);
    }
    pt_start(b, "only in b");
    TEST_SPAN(b, &c2, "inner", 9 * MS);
    pt_stop(b, "only in b");
    pack_ok(b, &buf, &len);
    cr_assert_eq(pt_unpack_merge(a, buf, len), 0, "%s", pt_last_error(a));

    cr_assert_eq(pt_section_get(a, pt_find(a, "work"), &x), 0);
    cr_assert_eq(pt_section_get(one, pt_find(one, "work"), &y), 0);
    cr_assert_eq(x.count, 5, "3 + 2 occurrences");
    cr_assert_eq(x.total_ms, 15, "1 + 2 + 3 + 4 + 5 ms");
    cr_assert_eq(x.first_ms, 1, "the first stays this timing's");
    cr_assert_eq(x.min_ms, 2);
    cr_assert_eq(x.max_ms, 5);
    cr_assert_eq(x.read_bytes, 500);
    cr_assert_eq(x.flops, 50);
    cr_assert(fabs(x.mean_ms - y.mean_ms) <= 1e-12 * y.mean_ms, "mean %.17g, one run %.17g",
              x.mean_ms, y.mean_ms);
    cr_assert(fabs(x.stddev_ms - y.stddev_ms) <= 1e-12 * y.stddev_ms,
              "stddev %.17g, one run %.17g", x.stddev_ms, y.stddev_ms);

    only = pt_find(a, "only in b/inner");
    cr_assert_not_null(only, "a section missing here is added, children and all");
    cr_assert_eq(pt_section_get(a, only, &x), 0);
    cr_assert_eq(x.count, 1);
    cr_assert_eq(x.total_ms, 9);
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
    pt_destroy(one);
}

Test(pack, merged_twice_counts_twice)
{
    pt_timing *a = workload("a"), *b = pt_create("b", PT_CPU);
    const pt_section *s, *r;
    void *buf;
    size_t len;

    pack_ok(a, &buf, &len);
    cr_assert_eq(pt_unpack_merge(b, buf, len), 0, "%s", pt_last_error(b));
    cr_assert_eq(pt_unpack_merge(b, buf, len), 0, "%s", pt_last_error(b));
    s = pt_find(b, "solve/step/launch/angular");
    r = pt_find(a, "solve/step/launch/angular");
    cr_assert(s && r);
    cr_assert_eq(s->count, 2 * r->count);
    cr_assert_eq(s->total_ns, 2 * r->total_ns);
    cr_assert_eq(s->phase->blocks, 128);
    cr_assert_eq(s->phase->sm_ns[2], 5e6);
    cr_assert_eq(s->phase->block_max_ns, 3e5);
    s = pt_find(b, "solve/step/gemm");
    cr_assert_eq(s->written, 2 * (512 + 1024 + 1536));
    cr_assert_eq(pt_find(b, "solve")->mem_hwm, 1 << 20, "the larger high-water mark, not a sum");
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

Test(pack, empty_and_null)
{
    pt_timing *t = workload("t");
    void *buf = (void *)1;
    size_t len = 1, before = run_stats(t).section_count;

    cr_assert_eq(pt_pack(NULL, &buf, &len), 0, "a NULL timing packs an empty tree");
    cr_assert_eq(len, 16, "the header alone: %zu bytes", len);
    cr_assert_eq(pt_unpack_merge(t, buf, len), 0, "%s", pt_last_error(t));
    cr_assert_eq(run_stats(t).section_count, before, "an empty tree adds nothing");
    cr_assert_eq(pt_unpack_merge(NULL, buf, len), 0, "NULL t: a no-op");
    free(buf);

    cr_assert_eq(pt_pack(t, NULL, &len), PT_EINVAL);
    cr_assert_eq(pt_pack(t, &buf, NULL), PT_EINVAL);
    cr_assert_eq(pt_unpack_merge(t, NULL, 16), PT_EINVAL);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 3, "each counted");
    pt_destroy(t);
}

Test(pack, open_sections_pack_what_is_recorded)
{
    pt_timing *t = test_timing(&clk, "t", PT_CPU), *u = pt_create("u", PT_CPU);
    void *buf;
    size_t len;
    int rc;

    TEST_SPAN(t, &clk, "outer", MS);
    pt_start(t, "outer");
    TEST_SPAN(t, &clk, "inner", 2 * MS);
    rc = pt_pack(t, &buf, &len);
    cr_assert_eq(rc, PT_EOPEN, "pt_pack: %s", pt_strerror(rc));
    cr_assert(strstr(pt_last_error(t), "1 open section"), "%s", pt_last_error(t));
    cr_assert_not_null(buf, "the tree is packed all the same");
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    cr_assert_eq(pt_find(u, "outer")->count, 1, "its closed occurrence only");
    cr_assert_eq(pt_find(u, "outer/inner")->count, 1);
    free(buf);
    pt_stop(t, "outer");
    pt_destroy(t);
    pt_destroy(u);
}

static void *thread_work(void *arg)
{
    pt_timing *t = arg;
    for (int i = 0; i < 3; i++) {
        pt_start(t, "from a thread");
        pt_stop(t, "from a thread");
    }
    return NULL;
}

Test(pack, other_threads_are_pooled_first)
{
    pt_timing *t = pt_create("t", PT_CPU), *u = pt_create("u", PT_CPU);
    pthread_t th;
    void *buf;
    size_t len;

    cr_assert_eq(pthread_create(&th, NULL, thread_work, t), 0);
    pthread_join(th, NULL);
    pack_ok(t, &buf, &len);
    cr_assert_eq(pt_unpack_merge(u, buf, len), 0, "%s", pt_last_error(u));
    cr_assert_not_null(pt_find(u, "from a thread"));
    cr_assert_eq(pt_find(u, "from a thread")->count, 3);
    free(buf);
    pt_destroy(t);
    pt_destroy(u);
}

/* ---- malformed bytes ------------------------------------------------------ */

/* buf[0..len) must be refused with PT_EPARSE, counted and described, and
 * leave b's tree as it was (b holds one section, "mine", once). */
static void refused(pt_timing *b, const void *buf, size_t len, const char *what)
{
    uint64_t errs = pt_error_count_of(b, PT_EPARSE);
    const pt_section *mine = pt_find(b, "mine");
    int rc = pt_unpack_merge(b, buf, len);

    cr_assert_eq(rc, PT_EPARSE, "%s (%zu bytes): %s, not PT_EPARSE", what, len, pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(b, PT_EPARSE), errs + 1, "%s: counted", what);
    cr_assert(strstr(pt_last_error(b), "nothing merged"), "%s: %s", what, pt_last_error(b));
    cr_assert_eq(pt_section_child(pt_root(b)), mine, "%s: the tree is unchanged", what);
    cr_assert_null(pt_section_next(mine), "%s: nothing added", what);
    cr_assert_null(pt_section_child(mine), "%s: nothing added", what);
    cr_assert_eq(mine->count, 1, "%s: nothing pooled", what);
}

static test_clock hold_clk;

static pt_timing *holder(void)
{
    pt_timing *b = test_timing(&hold_clk, "b", PT_CPU);
    cr_assert_not_null(b);
    TEST_SPAN(b, &hold_clk, "mine", MS);
    return b;
}

Test(pack, every_prefix_is_refused)
{
    pt_timing *a = workload("a"), *b = holder();
    unsigned char *buf;
    size_t len;

    pack_ok(a, (void **)&buf, &len);
    for (size_t n = 0; n < len; n++)
        refused(b, buf, n, "a prefix");
    cr_assert(strstr(pt_last_error(b), "end inside"), "%s", pt_last_error(b));
    cr_assert_eq(pt_error_count_of(b, PT_EPARSE), len, "one error per prefix");
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

Test(pack, trailing_bytes_are_refused)
{
    pt_timing *a = workload("a"), *b = holder();
    unsigned char *buf, *more;
    size_t len;

    pack_ok(a, (void **)&buf, &len);
    more = malloc(len + 1);
    memcpy(more, buf, len);
    more[len] = 0;
    refused(b, more, len + 1, "one byte more");
    cr_assert(strstr(pt_last_error(b), "bytes after the last section"), "%s", pt_last_error(b));
    free(more);
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

/* A one-section tree, "ab" with two occurrences, laid out as:
 * 0 magic, 4 version, 8 count, 16 depth, 20 kind, 21 flags, 22 name_len,
 * 26 name, 28 count, 36 the 14 figures (total at 36, first at 44, ...). */
static unsigned char one[1024];
static size_t one_len;

static void make_one(void)
{
    test_clock c;
    pt_timing *a = test_timing(&c, "one", PT_CPU);
    void *buf;
    TEST_SPAN(a, &c, "ab", MS);
    TEST_SPAN(a, &c, "ab", MS);
    pack_ok(a, &buf, &one_len);
    cr_assert_eq(one_len, 36 + 14 * 8 + 16, "%zu bytes", one_len);
    memcpy(one, buf, one_len);
    free(buf);
    pt_destroy(a);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

Test(pack, each_field_checked)
{
    static const struct {
        size_t at;
        unsigned char v;
        const char *says;
    } bytes[] = {
        { 0, 'X', "PTPK" },        /* magic */
        { 4, 6, "version" },       /* a later format */
        { 4, 0, "version" },       /* no format */
        { 8, 2, "end inside" },    /* two sections announced, one there */
        { 8, 0, "bytes after" },   /* none announced, one there */
        { 9, 1, "more sections than bytes" },
        { 16, 0, "depth" },        /* depth 0 */
        { 16, 2, "depth" },        /* depth 2 under nothing */
        { 20, 4, "kind" },
        { 21, 8, "flag" },         /* bit 3: no such flag */
        { 21, 4, "end inside a launch's shape" }, /* bit 2: a shape announced, none there */
        { 21, 1, "end inside" },   /* phase figures announced, none there */
        { 26, 0, "NUL" },
        { 43, 0x7f, "finite" },    /* total's top byte: 0x7ff... with its high mantissa, NaN */
    };
    pt_timing *b = holder();
    unsigned char bad[1024];

    make_one();
    cr_assert_eq(pt_unpack_merge(b, one, one_len), 0, "the buffer itself is good: %s",
                 pt_last_error(b));
    pt_destroy(b);
    b = holder();
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        memcpy(bad, one, one_len);
        bad[bytes[i].at] = bytes[i].v;
        if (bytes[i].at == 43)
            bad[42] = 0xff;
        refused(b, bad, one_len, bytes[i].says);
        cr_assert(strstr(pt_last_error(b), bytes[i].says), "byte %zu = %#x: %s",
                  bytes[i].at, bytes[i].v, pt_last_error(b));
    }
    memcpy(bad, one, one_len);
    put32(bad + 22, 0xffffffffu);
    refused(b, bad, one_len, "a title longer than the bytes");
    cr_assert(strstr(pt_last_error(b), "title longer"), "%s", pt_last_error(b));
    pt_destroy(b);
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void putd(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put64(p, v);
}

/* Figures no run records, each finite and >= 0 on its own: refused. */
Test(pack, figures_that_disagree_are_refused)
{
    static const struct {
        size_t at;      /* a u64 at 28 and 148, else a double */
        double v;
        const char *says;
    } cases[] = {
        { 28, 9223372036854775808.0, "2^63-1" },       /* the count */
        { 28, 0, "longer than the total" },            /* no occurrence, a total */
        { 148, 3, "more CPU-clocked" },                /* cpu_timed of 2 occurrences */
        { 44, 10 * MS, "longer than the total" },      /* first */
        { 52, 10 * MS, "longer than the total" },      /* last */
        { 60, 2 * MS, "out of order" },                /* mean above max */
        { 76, 2 * MS, "out of order" },                /* min above max and mean */
        { 84, 0.5 * MS, "out of order" },              /* max below min and mean */
    };
    pt_timing *b = holder();
    unsigned char bad[1024];

    make_one();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, one, one_len);
        if (cases[i].at == 28 || cases[i].at == 148)
            put64(bad + cases[i].at, (uint64_t)cases[i].v);
        else
            putd(bad + cases[i].at, cases[i].v);
        refused(b, bad, one_len, cases[i].says);
        cr_assert(strstr(pt_last_error(b), cases[i].says), "byte %zu = %g: %s", cases[i].at,
                  cases[i].v, pt_last_error(b));
    }
    /* The last bits of rounding are not a disagreement. */
    memcpy(bad, one, one_len);
    putd(bad + 60, MS * (1 + 1e-12));
    cr_assert_eq(pt_unpack_merge(b, bad, one_len), 0, "%s", pt_last_error(b));
    pt_destroy(b);
}

Test(pack, per_sm_count_beyond_the_bytes)
{
    pt_timing *a = test_timing(&clk, "a", PT_CPU), *b = holder();
    unsigned char *buf;
    pt_section *s;
    size_t len;

    TEST_SPAN(a, &clk, "p", MS);
    s = (pt_section *)pt_find(a, "p");
    s->phase = calloc(1, sizeof *s->phase);
    pack_ok(a, (void **)&buf, &len);
    /* The per-SM count is the last field but the histogram's: 0 here,
     * made 1 and then huge. */
    put32(buf + len - 8, 1);
    refused(b, buf, len, "one per-SM figure announced, none there");
    put32(buf + len - 8, 0x7fffffffu);
    refused(b, buf, len, "a huge per-SM count");
    cr_assert(strstr(pt_last_error(b), "per-SM"), "%s", pt_last_error(b));
    put32(buf + len - 8, 0);
    /* The histogram's bin count, the last field: more than there are. */
    put32(buf + len - 4, 577);
    refused(b, buf, len, "more bins than the histogram has");
    cr_assert(strstr(pt_last_error(b), "histogram bins"), "%s", pt_last_error(b));
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

/* Each byte in turn made wrong: refused, or (a changed figure that is
 * still a number, a changed title) merged; never a crash, and a refusal
 * leaves the tree alone. Run under ASan and valgrind in CI. */
Test(pack, every_byte_flipped)
{
    pt_timing *a = workload("a");
    unsigned char *buf;
    size_t len;

    pack_ok(a, (void **)&buf, &len);
    for (size_t i = 0; i < len; i++) {
        pt_timing *b = holder();
        int rc;
        buf[i] ^= 0xa5;
        rc = pt_unpack_merge(b, buf, len);
        cr_assert(rc == 0 || rc == PT_EPARSE, "byte %zu: %s", i, pt_strerror(rc));
        if (rc == PT_EPARSE)
            cr_assert_null(pt_section_next(pt_section_child(pt_root(b))),
                           "byte %zu: refused and nothing added", i);
        buf[i] ^= 0xa5;
        pt_destroy(b);
    }
    free(buf);
    pt_destroy(a);
}

/* Neither pt_pack nor pt_unpack_merge recurses: 100,000 levels pack,
 * merge (twice, into sections that exist the second time) and report. */
/* Counts lines and keeps the widest (ctx: size_t[2]). */
static void count_line(void *ctx, const char *line)
{
    size_t *n = ctx, w = strlen(line);
    n[0]++;
    if (w > n[1])
        n[1] = w;
}

Test(pack, any_depth_packs_and_merges)
{
    pt_timing *a = pt_create("a", PT_CPU), *b = pt_create("b", PT_CPU);
    const int deep = 100000;
    const pt_section *s;
    void *buf;
    size_t len;
    int i, d = 0;

    for (i = 0; i < deep; i++)
        pt_start(a, "d");
    for (i = 0; i < deep; i++)
        pt_stop(a, "d");
    pack_ok(a, &buf, &len);
    cr_assert_eq(pt_unpack_merge(b, buf, len), 0, "%d levels: %s", deep, pt_last_error(b));
    cr_assert_eq(pt_unpack_merge(b, buf, len), 0, "again: %s", pt_last_error(b));
    cr_assert_eq(run_stats(b).section_count, (size_t)deep);
    for (s = pt_section_child(pt_root(b)); s; s = pt_section_child(s), d++) {
        pt_section_stats st;
        pt_section_get(b, s, &st);
        cr_assert_eq(st.count, 2, "level %d merged twice: %llu", d + 1,
                     (unsigned long long)st.count);
    }
    cr_assert_eq(d, deep, "every level is there");
    size_t lines[2] = { 0, 0 }; /* how many, the widest */
    cr_assert_eq(pt_log_fn(b, count_line, lines), 0, "%s", pt_last_error(b));
    cr_assert_geq(lines[0], (size_t)deep, "a row for every level: %zu lines", lines[0]);
    cr_assert_lt(lines[1], 400, "no line grows with the depth: %zu bytes", lines[1]);
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

/* A negative time or a negative spread (which would make a NaN
 * deviation) is refused, and nothing is merged. */
Test(pack, negative_figures_are_refused)
{
    pt_timing *a = pt_create("a", PT_CPU), *b = pt_create("b", PT_CPU);
    static const size_t at[] = { 0, 4 }; /* total, m2 among the figures */
    void *buf;
    size_t len;

    for (int i = 0; i < 3; i++) {
        pt_start(a, "x");
        pt_stop(a, "x");
    }
    pack_ok(a, &buf, &len);
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        unsigned char *p = malloc(len);
        double v = -1;
        /* header 16, depth 4, kind 1, flags 1, name_len 4, "x", count 8 */
        size_t off = 16 + 4 + 1 + 1 + 4 + 1 + 8 + 8 * at[k];
        memcpy(p, buf, len);
        memcpy(p + off, &v, sizeof v);
        cr_assert_eq(pt_unpack_merge(b, p, len), PT_EPARSE, "figure %zu negative", at[k]);
        cr_assert(strstr(pt_last_error(b), "negative"), "%s", pt_last_error(b));
        cr_assert_eq(run_stats(b).section_count, 0, "nothing merged");
        free(p);
    }
    free(buf);
    pt_destroy(a);
    pt_destroy(b);
}

/* Figures near the largest double and counts near 2^64, merged: every
 * sum, spread and count saturates instead of becoming an infinity, a NaN
 * or a count that wrapped, so the merged tree packs into bytes that read
 * back, to the same bytes again. (Found by the pack fuzz target: finite
 * figures whose sums overflowed left a tree whose packed bytes
 * pt_unpack_merge() refused as "not a finite number".) */
static pt_timing *huge(const char *name, double sign)
{
    pt_timing *t = test_timing(&clk, name, PT_CPU);
    pt_section *s;

    TEST_SPAN(t, &clk, "big", MS);
    s = (pt_section *)pt_find(t, "big");
    s->count = INT64_MAX - 1;
    s->total_ns = s->read = s->written = s->flops = 1.5e308;
    s->xfer[0] = s->xfer[1] = s->xfer[2] = 1.5e308;
    s->first_ns = 1.5e308;
    s->mean_ns = s->min_ns = sign > 0 ? 1.7e308 : 1e-300;
    s->max_ns = 1.7e308;
    s->m2_ns = 1.7e308;
    s->kind = PT__K_PHASE;
    s->phase = calloc(1, sizeof *s->phase);
    cr_assert_not_null(s->phase);
    s->phase->blocks = INT64_MAX - 1;
    s->phase->hits = s->phase->block_sum_ns = 1.5e308;
    s->phase->sm_ns = malloc(sizeof(double));
    cr_assert_not_null(s->phase->sm_ns);
    s->phase->nsm = 1;
    s->phase->sm_ns[0] = 1.5e308;
    /* Two bins, one beyond the saturated count: merged, they hold more
     * than the saturated blocks unless cut back. */
    s->phase->hist = calloc(PT__HIST_BINS, sizeof *s->phase->hist);
    cr_assert_not_null(s->phase->hist);
    s->phase->hist[3] = INT64_MAX - 2;
    s->phase->hist[7] = 1;
    return t;
}

Test(pack, merged_figures_that_overflow_saturate)
{
    pt_timing *a = huge("a", 1), *b = huge("b", -1), *c = pt_create("c", PT_CPU);
    const pt_section *s;
    void *x, *y;
    size_t nx, ny;

    pack_ok(a, &x, &nx);
    cr_assert_eq(pt_unpack_merge(b, x, nx), 0, "%s", pt_last_error(b));
    cr_assert_eq(pt_unpack_merge(b, x, nx), 0, "%s", pt_last_error(b));
    free(x);
    s = pt_find(b, "big");
    cr_assert_eq(s->count, (uint64_t)INT64_MAX,
                 "the count saturates where every JSON reader still reads it, not wraps");
    cr_assert_eq(s->phase->blocks, (uint64_t)INT64_MAX, "the blocks saturate, not wrap");
    cr_assert(s->phase->hist[3] + s->phase->hist[7] <= s->phase->blocks,
              "the histogram holds no more than the blocks: %" PRIu64 " + %" PRIu64,
              s->phase->hist[3], s->phase->hist[7]);
#define FINITE(f) cr_assert(isfinite(s->f), #f " is %g", s->f)
    FINITE(total_ns); FINITE(first_ns); FINITE(last_ns); FINITE(mean_ns); FINITE(m2_ns);
    FINITE(min_ns); FINITE(max_ns); FINITE(read); FINITE(written); FINITE(flops);
    FINITE(xfer[0]); FINITE(xfer[1]); FINITE(xfer[2]);
    FINITE(phase->hits); FINITE(phase->block_sum_ns); FINITE(phase->sm_ns[0]);
#undef FINITE
    cr_assert_eq(s->total_ns, DBL_MAX, "the largest double");
    cr_assert_eq(s->xfer[0], DBL_MAX, "held at the largest double");

    pack_ok(b, &x, &nx);
    cr_assert_eq(pt_unpack_merge(c, x, nx), 0, "the merged tree reads back: %s",
                 pt_last_error(c));
    pack_ok(c, &y, &ny);
    cr_assert(nx == ny && memcmp(x, y, nx) == 0, "and packs to the same bytes");
    free(x);
    free(y);
    pt_destroy(a);
    pt_destroy(b);
    pt_destroy(c);
}

/* The pack fuzz target's seeds (tests/fuzz/corpus/pack/, written by
 * tests/fuzz/pack_seeds.c) are whole packed trees of this format: each
 * merges into an empty timing and packs back to its own bytes. */
Test(pack, fuzz_seeds_are_packed_trees)
{
    static const char *const seeds[] = { "nested", "metrics", "many_children", "empty" };

    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[256];
        FILE *f;
        unsigned char *buf = malloc(1 << 16);
        void *again;
        size_t len, nagain;
        pt_timing *t = pt_create("seed", PT_CPU);

        snprintf(path, sizeof path, "tests/fuzz/corpus/pack/%s", seeds[i]);
        f = fopen(path, "rb");
        cr_assert_not_null(f, "%s: cannot open (the suite runs from the repository's root)",
                           path);
        cr_assert_not_null(buf);
        len = fread(buf, 1, 1 << 16, f);
        fclose(f);
        cr_assert_eq(pt_unpack_merge(t, buf, len), 0, "%s: %s", path, pt_last_error(t));
        pack_ok(t, &again, &nagain);
        cr_assert(nagain == len && memcmp(again, buf, len) == 0, "%s packs back to itself",
                  path);
        free(again);
        free(buf);
        pt_destroy(t);
    }
}

/* Bytes of earlier versions (tests/fuzz/corpus/pack/nested_v1, before
 * the CPU-clock counts and the marks' cost were packed; nested_v2, before
 * the block histogram; nested_v3, before the launch's shape; nested_v4,
 * before the overlap) still read:
 * as the same tree with none of those, which packs as today's "nested"
 * seed. */
Test(pack, earlier_versions_read_without_the_later_figures)
{
    static const char *const old[] = { "nested_v1", "nested_v2", "nested_v3", "nested_v4" };
    size_t n2, nagain;
    char *v2 = malloc(1 << 16), *v = malloc(1 << 16);
    FILE *g = fopen("tests/fuzz/corpus/pack/nested", "rb");

    cr_assert_not_null(g, "the seeds (the suite runs from the repository's root)");
    n2 = fread(v2, 1, 1 << 16, g);
    fclose(g);
    for (int i = 0; i < 4; i++) {
        char path[128];
        void *again;
        pt_timing *t = pt_create("old", PT_CPU);
        snprintf(path, sizeof path, "tests/fuzz/corpus/pack/%s", old[i]);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        size_t n = fread(v, 1, 1 << 16, f);
        fclose(f);
        cr_assert_eq(v[4], i + 1, "a version %d file", i + 1);
        cr_assert_eq(pt_unpack_merge(t, v, n), 0, "%s: %s", path, pt_last_error(t));
        pack_ok(t, &again, &nagain);
        cr_assert(nagain == n2 && memcmp(again, v2, n2) == 0,
                  "%s read with the later figures 0: %zu bytes against %zu", path, nagain, n2);
        free(again);
        pt_destroy(t);
    }
    free(v);
    free(v2);
}

Test(pack, the_block_histogram_travels_and_adds_up)
{
    pt_timing *a = pt_create("a", PT_CPU), *b = pt_create("b", PT_CPU);
    pt_section_stats st;
    void *buf;
    size_t len;
    FILE *f = fopen("tests/fuzz/corpus/pack/metrics", "rb");
    unsigned char *seed = malloc(1 << 16);

    cr_assert_not_null(f);
    len = fread(seed, 1, 1 << 16, f);
    fclose(f);
    cr_assert_eq(pt_unpack_merge(a, seed, len), 0, "%s", pt_last_error(a));
    cr_assert_eq(pt_unpack_merge(a, seed, len), 0, "%s", pt_last_error(a));
    pt_section_get(a, pt_find(a, "solve/step/launch/angular"), &st);
    cr_assert_eq(st.blocks, 256);
    /* 16 + 200 + 40 of 256: p50 in the 150 us bin, p90 (the 231st) in the 400 us one. */
    cr_assert_float_eq(st.block_p50_ms, 0.150, 0.150 * 0.032, "%g", st.block_p50_ms);
    cr_assert_float_eq(st.block_p90_ms, 0.400, 0.400 * 0.032, "%g", st.block_p90_ms);
    pack_ok(a, &buf, &len);
    cr_assert_eq(pt_unpack_merge(b, buf, len), 0, "%s", pt_last_error(b));
    pt_section_stats sb;
    pt_section_get(b, pt_find(b, "solve/step/launch/angular"), &sb);
    cr_assert_eq(sb.block_p99_ms, st.block_p99_ms, "the same histogram after a pack");
    free(buf);
    free(seed);
    pt_destroy(a);
    pt_destroy(b);
}
