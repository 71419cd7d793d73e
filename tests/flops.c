/* The FLOPS helpers: closed-form counts and the einsum parser, against
 * counts worked out by hand; malformed expressions and shapes that do not
 * fit are refused with a message that names the fault. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "core/flops.h"

TestSuite(flops);

Test(flops, closed_forms_are_exact)
{
    cr_assert_eq(pt_flops_matmul(2, 3, 4), 48.0, "2·m·n·k = 48, got %g", pt_flops_matmul(2, 3, 4));
    cr_assert_eq(pt_flops_elementwise(1000, 3), 3000.0, "n·ops");
    cr_assert_eq(pt_flops_spmv(12345), 24690.0, "2·nnz");
    cr_assert_eq(pt_flops_spmm(100, 8), 1600.0, "2·nnz·cols");
    cr_assert_eq(pt_flops_matmul(0, 3, 4), 0.0, "an empty product costs nothing");
}

Test(flops, closed_forms_give_nan_for_bad_arguments)
{
    cr_assert(isnan(pt_flops_matmul(-1, 3, 4)), "negative m");
    cr_assert(isnan(pt_flops_elementwise(INFINITY, 1)), "infinite n");
    cr_assert(isnan(pt_flops_spmv(NAN)), "NaN nnz");
    cr_assert(isnan(pt_flops_spmm(10, -2)), "negative cols");
}

/* Runs the parser on operands given as -1-ended arrays. */
static int einsum(double *out, const char *sub, char *why, size_t n, int nops, ...)
{
    const long long *shapes[PT_EINSUM_MAX_OPS];
    int ndims[PT_EINSUM_MAX_OPS];
    va_list ap;

    va_start(ap, nops);
    for (int i = 0; i < nops; i++) {
        shapes[i] = va_arg(ap, const long long *);
        ndims[i] = 0;
        while (shapes[i][ndims[i]] != -1)
            ndims[i]++;
    }
    va_end(ap);
    return pt_flops_einsum(out, sub, nops, shapes, ndims, why, n);
}

#define S(...) ((const long long[]){ __VA_ARGS__, -1 })

/* The seeds' g·(AᵀA)·g: S = 256·256·3 = 196608, two multiplies per point
 * and S − 1 adds into the scalar. */
Test(flops, seed_quadratic_form)
{
    double f = -1;
    char why[256];
    int rc = einsum(&f, "ik,ijk,jk->", why, sizeof why, 3, S(256, 3), S(256, 256, 3), S(256, 3));
    cr_assert_eq(rc, 0, "einsum: %s", why);
    cr_assert_eq(f, 196608.0 * 2 + 196607.0, "589823 FLOPs, got %.17g", f);
}

Test(flops, matmul_matches_the_closed_form_less_the_output)
{
    double f = -1;
    char why[256];
    /* S = m·n·k; one multiply each; S − m·n adds: 2mnk − mn. */
    int rc = einsum(&f, "ij,jk->ik", why, sizeof why, 2, S(4, 5), S(5, 6));
    cr_assert_eq(rc, 0, "einsum: %s", why);
    cr_assert_eq(f, 2.0 * 4 * 5 * 6 - 4 * 6, "216, got %g", f);
}

Test(flops, implicit_output_keeps_letters_seen_once)
{
    double f = -1, g = -1;
    char why[256];
    /* "ij,jk" is "ij,jk->ik" by numpy's rule. */
    cr_assert_eq(einsum(&f, "ij,jk", why, sizeof why, 2, S(4, 5), S(5, 6)), 0, "%s", why);
    cr_assert_eq(einsum(&g, "ij,jk->ik", why, sizeof why, 2, S(4, 5), S(5, 6)), 0, "%s", why);
    cr_assert_eq(f, g, "implicit %g == explicit %g", f, g);
    /* "ii" repeats i: no output letter, a trace: n − 1 adds. */
    cr_assert_eq(einsum(&f, "ii", why, sizeof why, 1, S(7, 7)), 0, "%s", why);
    cr_assert_eq(f, 6.0, "trace of 7x7: 6 adds, got %g", f);
}

Test(flops, diagonal_repeated_index_in_one_operand)
{
    double f = -1;
    char why[256];
    /* "ii->i" copies the diagonal: nothing to multiply, nothing to add. */
    cr_assert_eq(einsum(&f, "ii->i", why, sizeof why, 1, S(5, 5)), 0, "%s", why);
    cr_assert_eq(f, 0.0, "a diagonal costs no FLOPs, got %g", f);
    /* "iij,j->i": S = 3·4 = 12, one multiply each, 12 − 3 adds. */
    cr_assert_eq(einsum(&f, "iij,j->i", why, sizeof why, 2, S(3, 3, 4), S(4)), 0, "%s", why);
    cr_assert_eq(f, 12.0 + 9.0, "21, got %g", f);
}

Test(flops, outer_product_and_scalars_and_spaces)
{
    double f = -1;
    char why[256];
    cr_assert_eq(einsum(&f, "i,j->ij", why, sizeof why, 2, S(3), S(4)), 0, "%s", why);
    cr_assert_eq(f, 12.0, "outer product: 12 multiplies, no adds, got %g", f);
    cr_assert_eq(einsum(&f, " ,i -> i", why, sizeof why, 2, S(-1), S(8)), 0, "%s", why);
    cr_assert_eq(f, 8.0, "scalar times vector: 8, got %g", f);
    cr_assert_eq(einsum(&f, "aB,Ba->", why, sizeof why, 2, S(2, 3), S(3, 2)), 0, "%s", why);
    cr_assert_eq(f, 6.0 + 5.0, "upper-case letters are distinct indices: 11, got %g", f);
}

/* Each malformed input: the code and a word the message must hold. */
Test(flops, malformed_expressions_are_refused_with_a_message)
{
    static const struct {
        const char *sub, *word;
    } bad[] = {
        { "ij,jk->ik->", "second" },
        { "ij,jk-ik", "stray" },
        { "ij,jk>ik", "stray" },
        { "i1,jk->ik", "invalid character" },
        { "...ij,jk->ik", "ellipsis" },
        { "ij,jk->ii", "repeated" },
        { "ij,jk->iz", "in no operand" },
        { "ij,jk,k->ik", "more operand terms" },
        { "ij->ij", "operands given" },
        { "ij,jk->i,k", "',' at" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double f = 42;
        char why[256] = "";
        int rc = einsum(&f, bad[i].sub, why, sizeof why, 2, S(4, 5), S(5, 6));
        cr_expect_eq(rc, PT_EPARSE, "\"%s\": PT_EPARSE expected, got %s (%s)", bad[i].sub,
                     pt_err_name(rc), why);
        cr_expect(strstr(why, bad[i].word), "\"%s\": message \"%s\" lacks \"%s\"", bad[i].sub,
                  why, bad[i].word);
        cr_expect_eq(f, 42.0, "\"%s\": out untouched on failure", bad[i].sub);
    }
}

Test(flops, shapes_that_do_not_fit_are_refused)
{
    double f = 42;
    char why[256];
    int rc = einsum(&f, "ij,jk->ik", why, sizeof why, 2, S(4, 5), S(6, 6));
    cr_assert_eq(rc, PT_EPARSE, "j is 5 and 6: %s", pt_err_name(rc));
    cr_assert(strstr(why, "'j' is 5") && strstr(why, "6"), "message names j and sizes: %s", why);
    rc = einsum(&f, "ij,jk->ik", why, sizeof why, 2, S(4, 5, 1), S(5, 6));
    cr_assert_eq(rc, PT_EPARSE, "3 dims for 2 letters: %s", pt_err_name(rc));
    cr_assert(strstr(why, "2 letters but the operand has 3 dimensions"), "message: %s", why);
    rc = einsum(&f, "ijk,jk->i", why, sizeof why, 2, S(4, 5), S(5, 6));
    cr_assert_eq(rc, PT_EPARSE, "3 letters for 2 dims: %s", pt_err_name(rc));
    cr_assert(strstr(why, "more letters"), "message: %s", why);
    rc = einsum(&f, "ii->", why, sizeof why, 1, S(3, 4));
    cr_assert_eq(rc, PT_EPARSE, "a diagonal of a 3x4: %s", pt_err_name(rc));
    cr_assert_eq(f, 42.0, "out untouched");
}

Test(flops, bad_arguments_are_einval)
{
    double f;
    char why[128];
    const long long *shapes[1] = { S(3) };
    int nd[1] = { 1 }, neg[1] = { -1 };

    cr_assert_eq(pt_flops_einsum(&f, NULL, 1, shapes, nd, why, sizeof why), PT_EINVAL, "NULL");
    cr_assert_eq(pt_flops_einsum(&f, "i", 0, shapes, nd, why, sizeof why), PT_EINVAL, "0 ops");
    cr_assert_eq(pt_flops_einsum(&f, "i", 33, shapes, nd, why, sizeof why), PT_EINVAL, "33 ops");
    cr_assert_eq(pt_flops_einsum(&f, "i", 1, shapes, neg, why, sizeof why), PT_EINVAL, "ndims");
    cr_assert_eq(pt_flops_einsum(NULL, "i", 1, shapes, nd, NULL, 0), PT_EINVAL, "NULL out");
    const long long *negshape[1] = { (const long long[]){ -5 } };
    cr_assert_eq(pt_flops_einsum(&f, "i->", 1, negshape, nd, why, sizeof why), PT_EINVAL,
                 "negative size");
    cr_assert(strstr(why, "negative"), "message: %s", why);
}

Test(flops, inline_form_feeds_flops_and_counts_failures)
{
    test_clock clk;
    pt_timing *t = test_timing(&clk, "einsum", PT_CPU);
    pt_section_stats st;

    TEST_SPAN(t, &clk, "g", 1000, .flops = PT_FLOPS_EINSUM(t, "ik,ijk,jk->", PT_SHAPE(256, 3),
                                                            PT_SHAPE(256, 256, 3),
                                                            PT_SHAPE(256, 3)));
    cr_assert_eq(pt_error_count(t), 0, "no error: %s", pt_last_error(t));
    pt_section_get(t, pt_find(t, "g"), &st);
    cr_assert_eq(st.flops, 589823.0, "flops recorded: %.17g", st.flops);

    double bad = PT_FLOPS_EINSUM(t, "ij,jk->ik", PT_SHAPE(4, 5), PT_SHAPE(6, 6));
    cr_assert(isnan(bad), "a failure is NaN");
    cr_assert_eq(pt_error_count_of(t, PT_EPARSE), 1, "counted as PT_EPARSE");
    cr_assert(strstr(pt_last_error(t), "'j' is 5"), "described: %s", pt_last_error(t));
    cr_assert_eq(PT_FLOPS_EINSUM(NULL, "garbage!", PT_SCALAR), 0.0, "NULL timing: 0, no parse");
    pt_destroy(t);
}

Test(flops, parser_handles_long_and_odd_input_within_bounds)
{
    char sub[5000];
    double f = 42;
    char why[256];
    pt__einsum e;
    const long long *shapes[1] = { S(2) };
    int nd[1] = { 1 };

    memset(sub, ' ', sizeof sub - 1);
    sub[0] = 'i';
    sub[sizeof sub - 1] = '\0';
    cr_assert_eq(pt_flops_einsum(&f, sub, 1, shapes, nd, why, sizeof why), PT_EPARSE,
                 "over the length limit");
    cr_assert(strstr(why, "longer than"), "message: %s", why);
    cr_assert_eq(pt__einsum_parse("i\xff", 1, shapes, nd, &e, why, sizeof why), PT_EPARSE,
                 "a high byte");
    cr_assert_eq(pt__einsum_parse("i->i", 1, shapes, nd, &e, NULL, 0), 0, "no message buffer");
    cr_assert_eq(e.space, 2.0, "space %g", e.space);
    cr_assert_eq(e.out_size, 2.0, "out %g", e.out_size);
}
