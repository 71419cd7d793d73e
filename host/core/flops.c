/* FLOPS helpers: counts for the usual operations, and an einsum parser.
 *
 * The einsum parser is a pure function over the expression and the shapes:
 * no allocation, everything on the stack in fixed-size tables, and every
 * loop bounded by the expression's length (itself capped) or by the fixed
 * limits, so it can be fuzzed and can never be made to run away. It
 * refuses what it does not understand rather than guess: a wrong FLOP
 * count printed beside a right time is worse than none. */
#include "core/flops.h"

#include "core/errors.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Longer expressions are refused; 52 letters per operand and 32 operands
 * fit well within it. */
#define EXPR_MAX 4096
#define NLETTERS 52

static double nonneg(double v)
{
    return isfinite(v) && v >= 0 ? v : NAN;
}

double pt_flops_matmul(double m, double n, double k)
{
    return nonneg(2.0 * nonneg(m) * nonneg(n) * nonneg(k));
}

double pt_flops_elementwise(double n, double ops)
{
    return nonneg(nonneg(n) * nonneg(ops));
}

double pt_flops_spmv(double nnz)
{
    return nonneg(2.0 * nonneg(nnz));
}

double pt_flops_spmm(double nnz, double cols)
{
    return nonneg(2.0 * nonneg(nnz) * nonneg(cols));
}

/* ---- einsum ------------------------------------------------------ */

static int letter_index(char c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= 'A' && c <= 'Z')
        return 26 + (c - 'A');
    return -1;
}

static char letter_of(int i)
{
    return (char)(i < 26 ? 'a' + i : 'A' + (i - 26));
}

#define FAIL(code, ...)                                   \
    do {                                                  \
        if (why && why_len)                               \
            snprintf(why, why_len, __VA_ARGS__);          \
        return (code);                                    \
    } while (0)

int pt__einsum_parse(const char *sub, int nops, const long long *const *shapes, const int *ndims,
                     pt__einsum *res, char *why, size_t why_len)
{
    long long size[NLETTERS];     /* -1: not seen yet */
    int count[NLETTERS];          /* appearances over all inputs */
    int in_out[NLETTERS];         /* appearances in the output */
    int op = 0, dim = 0, arrow = 0;
    size_t i;

    if (why && why_len)
        why[0] = '\0';
    if (!sub || !res)
        FAIL(PT_EINVAL, "einsum: NULL %s", sub ? "result" : "subscripts");
    if (nops < 1 || nops > PT_EINSUM_MAX_OPS)
        FAIL(PT_EINVAL, "einsum: %d operands (1 to %d)", nops, PT_EINSUM_MAX_OPS);
    if (!shapes || !ndims)
        FAIL(PT_EINVAL, "einsum: NULL %s", shapes ? "ndims" : "shapes");
    for (int k = 0; k < nops; k++) {
        if (ndims[k] < 0 || ndims[k] > PT_EINSUM_MAX_DIMS)
            FAIL(PT_EINVAL, "einsum: operand %d has %d dimensions (0 to %d)", k, ndims[k],
                 PT_EINSUM_MAX_DIMS);
        if (ndims[k] > 0 && !shapes[k])
            FAIL(PT_EINVAL, "einsum: operand %d has a NULL shape", k);
        for (int d = 0; d < ndims[k]; d++)
            if (shapes[k][d] < 0)
                FAIL(PT_EINVAL, "einsum: operand %d dimension %d is negative (%lld)", k, d,
                     shapes[k][d]);
    }
    for (int l = 0; l < NLETTERS; l++) {
        size[l] = -1;
        count[l] = in_out[l] = 0;
    }

    for (i = 0; sub[i]; i++) {
        char c = sub[i];
        int l;

        if (i >= EXPR_MAX)
            FAIL(PT_EPARSE, "einsum: subscripts longer than %d characters", EXPR_MAX);
        if (c == ' ')
            continue;
        if (c == '.')
            FAIL(PT_EPARSE, "einsum \"%.64s\": ellipsis ('...') is not supported; name every "
                 "dimension", sub);
        if (c == '-' || c == '>') {
            if (c == '>' || sub[i + 1] != '>')
                FAIL(PT_EPARSE, "einsum \"%.64s\": stray '%c' at %zu (the output is \"->\")",
                     sub, c, i);
            if (arrow)
                FAIL(PT_EPARSE, "einsum \"%.64s\": a second \"->\" at %zu", sub, i);
            if (op != nops - 1)
                FAIL(PT_EPARSE, "einsum \"%.64s\": %d operand term%s before \"->\" but %d "
                     "operands given", sub, op + 1, op ? "s" : "", nops);
            if (dim != ndims[op])
                FAIL(PT_EPARSE, "einsum \"%.64s\": operand %d's term has %d letters but the "
                     "operand has %d dimensions", sub, op, dim, ndims[op]);
            arrow = 1;
            i++;
            continue;
        }
        if (c == ',') {
            if (arrow)
                FAIL(PT_EPARSE, "einsum \"%.64s\": ',' at %zu in the output", sub, i);
            if (dim != ndims[op])
                FAIL(PT_EPARSE, "einsum \"%.64s\": operand %d's term has %d letters but the "
                     "operand has %d dimensions", sub, op, dim, ndims[op]);
            if (++op >= nops)
                FAIL(PT_EPARSE, "einsum \"%.64s\": more operand terms than the %d operands "
                     "given", sub, nops);
            dim = 0;
            continue;
        }
        l = letter_index(c);
        if (l < 0)
            FAIL(PT_EPARSE, "einsum \"%.64s\": invalid character 0x%02X at %zu (letters, ',', "
                 "\"->\" only)", sub, (unsigned char)c, i);
        if (arrow) {
            if (in_out[l]++)
                FAIL(PT_EPARSE, "einsum \"%.64s\": output letter '%c' repeated", sub, c);
            continue;
        }
        if (dim >= ndims[op])
            FAIL(PT_EPARSE, "einsum \"%.64s\": operand %d's term has more letters than its %d "
                 "dimensions", sub, op, ndims[op]);
        if (size[l] >= 0 && size[l] != shapes[op][dim])
            FAIL(PT_EPARSE, "einsum \"%.64s\": '%c' is %lld in one place and %lld in operand "
                 "%d dimension %d", sub, c, size[l], shapes[op][dim], op, dim);
        size[l] = shapes[op][dim];
        count[l]++;
        dim++;
    }
    if (!arrow) {
        if (op != nops - 1)
            FAIL(PT_EPARSE, "einsum \"%.64s\": %d operand term%s but %d operands given", sub,
                 op + 1, op ? "s" : "", nops);
        if (dim != ndims[op])
            FAIL(PT_EPARSE, "einsum \"%.64s\": operand %d's term has %d letters but the operand "
                 "has %d dimensions", sub, op, dim, ndims[op]);
        /* numpy's implicit output: the letters that appear exactly once. */
        for (int l = 0; l < NLETTERS; l++)
            in_out[l] = count[l] == 1;
    }

    res->nops = nops;
    res->space = 1;
    res->out_size = 1;
    for (int l = 0; l < NLETTERS; l++) {
        if (in_out[l] && size[l] < 0)
            FAIL(PT_EPARSE, "einsum \"%.64s\": output letter '%c' is in no operand", sub,
                 letter_of(l));
        if (size[l] < 0)
            continue;
        res->space *= (double)size[l];
        if (in_out[l])
            res->out_size *= (double)size[l];
    }
    res->flops = res->space * (double)(nops - 1) + (res->space - res->out_size);
    return 0;
}

int pt_flops_einsum(double *out, const char *subscripts, int nops,
                    const long long *const *shapes, const int *ndims, char *why, size_t why_len)
{
    pt__einsum e;
    int rc;

    if (!out) {
        if (why && why_len)
            snprintf(why, why_len, "einsum: NULL out");
        return PT_EINVAL;
    }
    rc = pt__einsum_parse(subscripts, nops, shapes, ndims, &e, why, why_len);
    if (rc == 0)
        *out = e.flops;
    return rc;
}

double pt__flops_einsum_list(pt_timing *t, const char *subscripts, const long long *const *shapes)
{
    int ndims[PT_EINSUM_MAX_OPS];
    int nops = 0, rc;
    char why[256];
    double f;

    if (!t)
        return 0;
    if (!shapes)
        return pt__fail(t, PT_EINVAL, "einsum: NULL shapes"), NAN;
    /* The lists end in NULL and -1; a list longer than the limits is
     * refused when the limit is reached, before reading further. */
    for (; shapes[nops]; nops++) {
        int d = 0;
        if (nops == PT_EINSUM_MAX_OPS)
            return pt__fail(t, PT_EINVAL, "einsum \"%.64s\": more than %d operands",
                            subscripts ? subscripts : "(null)", PT_EINSUM_MAX_OPS), NAN;
        while (shapes[nops][d] != -1) {
            if (++d > PT_EINSUM_MAX_DIMS)
                return pt__fail(t, PT_EINVAL, "einsum \"%.64s\": operand %d has more than %d "
                                "dimensions", subscripts ? subscripts : "(null)", nops,
                                PT_EINSUM_MAX_DIMS), NAN;
        }
        ndims[nops] = d;
    }
    rc = pt_flops_einsum(&f, subscripts, nops, shapes, ndims, why, sizeof why);
    if (rc)
        return pt__fail(t, rc, "%s", why), NAN;
    return f;
}
