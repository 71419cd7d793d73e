/* The GPU suite (tests/gpu/gpu.c) runs only where a GPU is lent, so its
 * expectations of what the library says can drift from the library
 * unseen: a fold message rewritten for the CPU suite once left a GPU test
 * waiting for the old words. Here every text the GPU suite looks for in
 * a message (strstr's needle, the format of `want`) must fit a message
 * the library (host/, tools/) or the suite's probe can write: its words,
 * in order, against the words of one of their string literals (adjacent
 * literals joined), where a word holding a conversion (%d, block%s) on
 * either side stands for any one word, and the first and last words may
 * be the end and the start of the library's. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct lits {
    char **v;
    size_t n, cap;
} lits;

static void lits_add(lits *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    l->v[l->n++] = s;
}

/* The string literal at *p ('"'), unescaped (\" \\ \n \t), and any that
 * follow it with only blanks between (C joins them); *p after them. */
static char *literal(const char **p)
{
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    while (**p == '"') {
        for ((*p)++; **p && **p != '"'; (*p)++) {
            char c = **p;
            if (c == '\\' && (*p)[1]) {
                c = *++*p;
                c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            }
            if (n + 2 > cap)
                cr_assert_not_null(s = realloc(s, cap *= 2));
            s[n++] = c;
        }
        if (**p)
            (*p)++;
        const char *q = *p;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q != '"')
            break;
        *p = q;
    }
    s[n] = '\0';
    return s;
}

/* Every literal of the C text, outside comments and character constants. */
static void all_literals(const char *text, lits *out)
{
    for (const char *p = text; *p;) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (*p == '\'') {
            for (p++; *p && *p != '\''; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else if (*p == '"') {
            lits_add(out, literal(&p));
        } else {
            p++;
        }
    }
}

static void read_dir(const char *dir, lits *out)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    cr_assert_not_null(d, "opendir(%s) (run the suite from the source tree)", dir);
    while ((e = readdir(d))) {
        char path[512];
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s%s", dir, e->d_name);
        if (n > 2 && strcmp(e->d_name + n - 2, ".c") == 0) {
            char *text = test_read_file(path);
            cr_assert_not_null(text, "%s", path);
            all_literals(text, out);
            free(text);
        } else if (!strchr(e->d_name, '.')) {
            strcat(path, "/");
            read_dir(path, out);
        }
    }
    closedir(d);
}

/* Splits s into its blank-separated words, in place. */
static size_t words(char *s, char **w, size_t cap)
{
    size_t n = 0;
    for (char *t = strtok(s, " \t\n"); t && n < cap; t = strtok(NULL, " \t\n"))
        w[n++] = t;
    return n;
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && strcmp(s + a - b, end) == 0;
}

/* Whether the words of want fit the words of a library literal. */
static int fits(char **g, size_t ng, char **h, size_t nh)
{
    for (size_t i = 0; i + ng <= nh; i++) {
        size_t j = 0;
        for (; j < ng; j++) {
            const char *x = g[j], *y = h[i + j];
            if (strchr(x, '%') || strchr(y, '%'))
                continue;
            if (ng == 1 ? strstr(y, x) != NULL
                : j == 0 ? ends_with(y, x)
                : j == ng - 1 ? strncmp(y, x, strlen(x)) == 0
                : strcmp(x, y) == 0)
                continue;
            break;
        }
        if (j == ng)
            return 1;
    }
    return 0;
}

/* The GPU suite's needles: the literal after the first comma of each
 * strstr( and the format of each snprintf(want, sizeof want, . */
static void needles(const char *text, lits *out)
{
    static const char *const calls[] = { "strstr(", "snprintf(want, sizeof want," };
    for (size_t c = 0; c < 2; c++)
        for (const char *p = strstr(text, calls[c]); p; p = strstr(p + 1, calls[c])) {
            const char *q = p + strlen(calls[c]);
            if (c == 0) {
                int depth = 0;
                for (; *q && !(depth == 0 && *q == ','); q++)
                    depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                if (*q)
                    q++;
            }
            while (*q == ' ' || *q == '\n')
                q++;
            if (*q == '"')
                lits_add(out, literal(&q));
        }
}

Test(gpu_words, the_gpu_suite_looks_only_for_what_the_library_says)
{
    lits lib = { 0 }, want = { 0 };
    char *suite = test_read_file("tests/gpu/gpu.c"), *probe = test_read_file("tests/gpu/probe.c");
    cr_assert_not_null(suite, "tests/gpu/gpu.c (run the suite from the source tree)");
    cr_assert_not_null(probe);
    read_dir("host/", &lib);
    read_dir("tools/", &lib);
    all_literals(probe, &lib);
    needles(suite, &want);
    cr_assert_geq(want.n, 10, "the suite's needles found: %zu", want.n);
    for (size_t i = 0; i < want.n; i++) {
        char *g[64], *copy = strdup(want.v[i]);
        size_t ng = words(copy, g, 64), k = 0;
        for (; k < lib.n; k++) {
            char *h[512], *lc = strdup(lib.v[k]);
            size_t nh = words(lc, h, 512);
            int ok = fits(g, ng, h, nh);
            free(lc);
            if (ok)
                break;
        }
        cr_expect_lt(k, lib.n, "tests/gpu/gpu.c looks for \"%s\", which nothing in host/, "
                     "tools/ or the probe says", want.v[i]);
        free(copy);
    }
    for (size_t i = 0; i < lib.n; i++)
        free(lib.v[i]);
    for (size_t i = 0; i < want.n; i++)
        free(want.v[i]);
    free(lib.v);
    free(want.v);
    free(suite);
    free(probe);
}

/* The matching itself: the old bad-slot words do not fit the message the
 * fold writes now, the new ones do. */
Test(gpu_words, a_rewritten_message_is_told_apart)
{
    char lib[] = "pt_dev_fold(\"%s\"): %lld block%s began at a slot out of range [0, %d) "
                 "(PT_DEV_BEGIN_AT's slot): %sslot %lld%s; nothing of %s was recorded";
    char old[] = "1 blocks with a slot index out of range [0, %d)";
    char now[] = "1 block began at a slot out of range [0, %d) (PT_DEV_BEGIN_AT's slot): slot %d;";
    char *h[64], *g[64];
    size_t nh = words(lib, h, 64), ng = words(old, g, 64);
    cr_assert_not(fits(g, ng, h, nh));
    ng = words(now, g, 64);
    cr_assert(fits(g, ng, h, nh));
}
