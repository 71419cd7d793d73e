/* Input at the edges: titles of 1 MiB, a deep path of 64 KiB titles,
 * titles that are not UTF-8 or hold control characters, the empty
 * title, and 10^9 occurrences of one section. Each goes through the
 * calls and the writers that keep it (lookup, path, the flat report,
 * CSV, JSON, HTML, and ptreport back from the JSON): nothing is cut
 * where the format keeps it, JSON stays valid, CSV stays RFC 4180, and
 * counts and sums stay exact.
 *
 * 10^9 occurrences through pt_start()/pt_stop() would take about a
 * minute (some 60 ns a pair); so a run of 10^7 real pairs checks the
 * path from the calls, and the statistics are driven through
 * pt__record(), the update every stop ends in, for exactly 10^9
 * occurrences (about 9 ns each: one dependent division per update).
 * Under AddressSanitizer both are 10 times fewer. */
#include <criterion/criterion.h>
#include <elf.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "core/model.h"

/* The sanitizer build (.ci/run: -fsanitize=address,undefined) runs the
 * occurrence loops 10 times shorter, and valgrind's memcheck (make
 * test-valgrind), which runs code some 50 times slower, 1000 times
 * shorter: the figures are checked the same. */
#if defined(__SANITIZE_ADDRESS__)
#  define LIMITS_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#    define LIMITS_SANITIZED 1
#  endif
#endif
#ifndef LIMITS_SANITIZED
#  define LIMITS_SANITIZED 0
#endif

#if defined(__has_include)
#  if __has_include(<valgrind/valgrind.h>)
#    include <valgrind/valgrind.h>
#  endif
#endif
#ifndef RUNNING_ON_VALGRIND
#  define RUNNING_ON_VALGRIND 0
#endif

static uint64_t fewer(void)
{
    return RUNNING_ON_VALGRIND ? 1000 : LIMITS_SANITIZED ? 10 : 1;
}

static const char *fewer_why(void)
{
    return RUNNING_ON_VALGRIND ? " (under valgrind: 1000 times fewer)"
           : LIMITS_SANITIZED  ? " (sanitizer build: 10 times fewer)"
                               : "";
}

#define RECORDED (1000000000ULL / fewer())
#define REAL_PAIRS (10000000ULL / fewer())

#define KIB 1024
#define MIB (1024 * 1024)

static test_clock clk;
static pt_timing *t;
static char dir[64];
static char tool[512];

static void setup(void)
{
    const char *b = getenv("PT_BUILD");
    snprintf(tool, sizeof tool, "%s/bin/ptreport", b && *b ? b : "build");
    snprintf(dir, sizeof dir, "/tmp/ptkit-limits-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    t = test_timing(&clk, "limits", PT_CPU);
    cr_assert_not_null(t);
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];

    pt_destroy(t);
    if (!d)
        return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

TestSuite(limits, .init = setup, .fini = teardown);

#define in_dir(name) test_path(dir, (name))

static char *slurp(const char *path)
{
    char *s = test_read_file(path);
    cr_assert_not_null(s, "reading %s: %s", path, strerror(errno));
    return s;
}

/* ---- titles ---------------------------------------------------------- */

/* A title of exactly n bytes, distinct per tag, holding every character
 * the writers treat specially ('/' and '\' in paths, ',' and '"' in CSV
 * and JSON) and multi-byte UTF-8, never cut inside a character. */
static char *long_title(size_t n, int tag)
{
    static const char piece[] = "lorem/ipsum, \"dolor\" \\ sit \xC3\xA9t \xE2\x82\xAC ";
    char *s = malloc(n + 1);
    size_t at;

    cr_assert_not_null(s);
    at = (size_t)snprintf(s, n + 1, "title %d: ", tag);
    while (at + sizeof piece - 1 <= n) {
        memcpy(s + at, piece, sizeof piece - 1);
        at += sizeof piece - 1;
    }
    memset(s + at, 'x', n - at);
    s[n] = '\0';
    return s;
}

/* A title as a path component: '/' and '\' escaped with '\'. */
static void append_escaped(char **path, size_t *len, const char *title)
{
    size_t n = strlen(title), extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += title[i] == '/' || title[i] == '\\';
    *path = realloc(*path, *len + n + extra + 2);
    cr_assert_not_null(*path);
    for (size_t i = 0; i < n; i++) {
        if (title[i] == '/' || title[i] == '\\')
            (*path)[(*len)++] = '\\';
        (*path)[(*len)++] = title[i];
    }
    (*path)[*len] = '\0';
}

static char *path_of(const char *const *titles, int depth)
{
    char *p = NULL;
    size_t len = 0;
    for (int d = 0; d < depth; d++) {
        if (d) {
            p[len++] = '/';
            p[len] = '\0';
        }
        append_escaped(&p, &len, titles[d]);
    }
    return p;
}

/* ---- reading the writers' output back --------------------------------- */

/* RFC 4180: records of fields, a field quoted when it holds ',', '"',
 * CR or LF, '"' doubled inside. Each record is a NULL-ended array of
 * malloc'ed fields; the records end with a NULL. */
static char ***csv_parse(const char *s)
{
    char ***rows = NULL;
    size_t nrows = 0;

    while (*s) {
        char **f = NULL;
        size_t nf = 0;
        for (;;) {
            size_t cap = 64, n = 0;
            char *v = malloc(cap);
            cr_assert_not_null(v);
            if (*s == '"') {
                for (s++;; s++) {
                    cr_assert(*s, "a quoted field is not closed");
                    if (*s == '"' && s[1] != '"')
                        break;
                    if (*s == '"')
                        s++;
                    if (n + 1 >= cap)
                        v = realloc(v, cap *= 2);
                    v[n++] = *s;
                }
                s++;
                cr_assert(*s == ',' || *s == '\n', "text after a closing quote: %.20s", s);
            } else {
                for (; *s && *s != ',' && *s != '\n'; s++) {
                    cr_assert(*s != '"' && *s != '\r', "a bare '\"' or CR in an unquoted field");
                    if (n + 1 >= cap)
                        v = realloc(v, cap *= 2);
                    v[n++] = *s;
                }
            }
            v[n] = '\0';
            f = realloc(f, (nf + 2) * sizeof *f);
            f[nf++] = v;
            f[nf] = NULL;
            if (*s == ',') {
                s++;
                continue;
            }
            cr_assert_eq(*s, '\n', "every record ends in LF");
            s++;
            break;
        }
        rows = realloc(rows, (nrows + 2) * sizeof *rows);
        rows[nrows++] = f;
        rows[nrows] = NULL;
    }
    return rows;
}

static void csv_free(char ***rows)
{
    for (char ***r = rows; r && *r; r++) {
        for (char **f = *r; *f; f++)
            free(*f);
        free(*r);
    }
    free(rows);
}

/* The CSV export's row whose "path" column is path (NULL if none). */
static char **csv_row(char ***rows, const char *path)
{
    cr_assert_str_eq(rows[0][0], "path");
    cr_assert_str_eq(rows[0][1], "name");
    for (char ***r = rows + 1; *r; r++)
        if (strcmp((*r)[0], path) == 0)
            return *r;
    return NULL;
}

/* The path of section x of a flat list (the JSON export's, the page's)
 * from its parents, '/' and '\\' in titles escaped as pt_section_path()
 * does; malloc'ed. */
static char *path_in(json_t *secs, json_t *x)
{
    size_t len = 0, cap = 64;
    char *p = malloc(cap);
    int first = 1;

    cr_assert_not_null(p);
    p[0] = '\0';
    for (; x; x = json_integer_value(json_object_get(x, "parent")) < 0 ? NULL
             : json_array_get(secs, (size_t)json_integer_value(json_object_get(x, "parent")))) {
        const char *n = json_string_value(json_object_get(x, "name"));
        size_t k = 0, m = strlen(n) * 2 + 1;
        char *part = malloc(m + len + 1);
        cr_assert_not_null(part);
        for (; *n; n++) {
            if (*n == '/' || *n == '\\')
                part[k++] = '\\';
            part[k++] = *n;
        }
        if (!first)
            part[k++] = '/';
        first = 0;
        memcpy(part + k, p, len + 1);
        free(p);
        p = part;
        len += k;
    }
    return p;
}

static json_t *load_json(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s is not JSON (jansson: %s at %d:%d)", path, e.text, e.line,
                       e.column);
    return j;
}

/* The HTML page's data element, parsed; its sections are a flat list. */
static json_t *html_data(const char *path)
{
    static const char open[] = "<script type=\"application/json\" id=\"pt-data\">";
    char *html = slurp(path), *a = strstr(html, open), *b;
    json_error_t e;
    json_t *j;

    cr_assert_not_null(a);
    a += strlen(open);
    b = strstr(a, "</script>");
    cr_assert_not_null(b, "the data element is closed");
    j = json_loadb(a, (size_t)(b - a), 0, &e);
    cr_assert_not_null(j, "the page's data is not JSON: %s", e.text);
    cr_assert(strstr(b, "</html>"), "the page is whole");
    free(html);
    return j;
}

static const char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    cr_assert_not_null(s, "\"%s\" is not a string", key);
    return s;
}

/* Runs ptreport with the arguments (safe paths); returns its exit status. */
static int ptreport(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ptreport(const char *fmt, ...)
{
    char args[1024], cmd[2048];
    va_list ap;
    int st;

    cr_assert_eq(access(tool, X_OK), 0, "%s: %s (run the suite with make test)", tool,
                 strerror(errno));
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>%s/err.txt", tool, args, dir);
    st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit normally", cmd);
    return WEXITSTATUS(st);
}

static void log_to(const char *path, pt_log_opts o)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    pt__log(t, f, &o);
    fclose(f);
}

/* Every writer, and ptreport reading the JSON back: CSV from the file is
 * pt_export_csv()'s byte for byte, show is pt_log()'s tree. */
static void export_all(void)
{
    char *a, *b;

    cr_assert_eq(pt_export_csv(t, in_dir("run.csv")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0, "%s", pt_last_error(t));
    cr_assert_eq(ptreport("convert %s --to csv -o %s", in_dir("run.json"), in_dir("back.csv")), 0,
                 "convert failed");
    a = slurp(in_dir("run.csv"));
    b = slurp(in_dir("back.csv"));
    cr_assert(strcmp(a, b) == 0, "ptreport's CSV from the JSON differs from pt_export_csv's");
    free(a);
    free(b);
    log_to(in_dir("want.txt"), (pt_log_opts){ 0 });
    cr_assert_eq(ptreport("show %s > %s", in_dir("run.json"), in_dir("show.txt")), 0);
    a = slurp(in_dir("want.txt"));
    b = slurp(in_dir("show.txt"));
    cr_assert(strcmp(a, b) == 0, "ptreport show differs from pt_log:\n%.2000s\nwanted:\n%.2000s",
              b, a);
    free(a);
    free(b);
}

/* What export_all() wrote, read back once. */
typedef struct exported {
    char *csv;
    char ***rows;
    json_t *doc, *page;
} exported;

static void exported_load(exported *e)
{
    e->csv = slurp(in_dir("run.csv"));
    e->rows = csv_parse(e->csv);
    e->doc = load_json(in_dir("run.json"));
    e->page = html_data(in_dir("run.html"));
}

static void exported_free(exported *e)
{
    csv_free(e->rows);
    free(e->csv);
    json_decref(e->doc);
    json_decref(e->page);
}

/* Checks one section (titles[0..depth-1]) in every export: its name and
 * path whole, its depth and count. */
static void check_section(const exported *e, const char *const *titles, int depth, uint64_t count)
{
    char *path = path_of(titles, depth);
    char **row = csv_row(e->rows, path);
    json_t *s = NULL, *x;
    size_t i;
    char num[32];

    cr_assert_not_null(row, "the CSV has a row with the whole path (%zu bytes)", strlen(path));
    cr_assert_str_eq(row[1], titles[depth - 1], "the CSV's name field is the whole title");
    snprintf(num, sizeof num, "%d", depth);
    cr_assert_str_eq(row[2], num, "depth");
    snprintf(num, sizeof num, "%llu", (unsigned long long)count);
    cr_assert_str_eq(row[5], num, "count");

    json_array_foreach(json_object_get(e->doc, "sections"), i, x) {
        char *p = path_in(json_object_get(e->doc, "sections"), x);
        if (!s && strcmp(p, path) == 0)
            s = x;
        free(p);
    }
    cr_assert_not_null(s, "the JSON has the whole path");
    cr_assert_str_eq(str_of(s, "name"), titles[depth - 1], "the JSON's name is the whole title");
    cr_assert_eq(json_integer_value(json_object_get(s, "count")), (json_int_t)count);

    s = NULL;
    json_array_foreach(json_object_get(e->page, "sections"), i, x) {
        char *p = path_in(json_object_get(e->page, "sections"), x);
        if (!s && strcmp(p, path) == 0)
            s = x;
        free(p);
    }
    cr_assert_not_null(s, "the page has the whole path");
    cr_assert_str_eq(str_of(s, "name"), titles[depth - 1], "the page's name is the whole title");
    free(path);
}

/* ---- long titles ------------------------------------------------------ */

Test(limits, a_one_mebibyte_title_is_kept_whole)
{
    char *title = long_title(MIB, 1), *copy = strdup(title), *path, buf[16];
    const char *titles[1] = { title };
    const pt_section *s;
    test_text text = { 0 };
    int len;

    cr_assert_eq(pt_start(t, title), 0);
    clk.now += 1000;
    cr_assert_eq(pt_stop(t, copy), 0, "stopped by equal text in another buffer");
    TEST_SPAN(t, &clk, copy, 500);
    path = path_of(titles, 1);
    s = pt_find(t, path);
    cr_assert_not_null(s, "pt_find by the escaped path (%zu bytes)", strlen(path));
    cr_assert_str_eq(pt_section_name(s), title);
    cr_assert_eq(run_stats(t).section_count, 1, "one section, found twice by content");

    len = pt_section_path(s, NULL, 0);
    cr_assert_eq(len, (int)strlen(path), "the length it needs");
    {
        char *whole = malloc((size_t)len + 1);
        cr_assert_eq(pt_section_path(s, whole, (size_t)len + 1), len);
        cr_assert_str_eq(whole, path);
        free(whole);
    }
    cr_assert_eq(pt_section_path(s, buf, sizeof buf), len, "snprintf's contract when cut");
    cr_assert_eq(strncmp(buf, path, sizeof buf - 1), 0);
    cr_assert_eq(buf[sizeof buf - 1], '\0');

    /* The flat table shows whole paths; the tree cuts its name column
     * with a visible ellipsis. */
    cr_assert_eq(pt_log_fn(t, test_text_line, &text, .view = PT_VIEW_TABLE), 0);
    cr_assert_not_null(strstr(text.s, path), "the table row holds the whole path");
    free(text.s);
    text = (test_text){ 0 };
    cr_assert_eq(pt_log_fn(t, test_text_line, &text), 0);
    cr_assert_not_null(strstr(text.s, "title 1: lorem/ipsum"), "the tree starts the title");
    cr_assert_not_null(strstr(text.s, "\xE2\x80\xA6"), "and says where it cut it");
    cr_assert(text.n < 4096, "the tree stays readable (%zu bytes)", text.n);
    free(text.s);

    /* A stop of another long title is a mismatch, described without
     * overrunning anything; the right one then closes the section. */
    {
        char *other = strdup(title);
        other[MIB - 1] = 'y';
        cr_assert_eq(pt_start(t, title), 0);
        cr_assert_eq(pt_stop(t, other), PT_EMISMATCH);
        cr_assert(strlen(pt_last_error(t)) > 0 && strlen(pt_last_error(t)) < 4096);
        cr_assert_eq(pt_stop(t, copy), 0);
        cr_assert_eq(pt_error_count(t), 1);
        free(other);
    }

    export_all();
    {
        exported e;
        exported_load(&e);
        check_section(&e, titles, 1, 3);
        exported_free(&e);
    }
    free(path);
    free(title);
    free(copy);
}

Test(limits, a_deep_path_of_64_kib_titles)
{
    enum { DEEP = 128, EXPORTED = 8 };
    char *titles[DEEP], *path;
    const pt_section *s;

    for (int d = 0; d < DEEP; d++)
        titles[d] = long_title(64 * KIB, d);
    /* DEEP levels for lookup and paths (an 8 MiB path), then a second
     * tree EXPORTED deep for the writers, whose every row holds its
     * whole path. */
    for (int d = 0; d < DEEP; d++)
        cr_assert_eq(pt_start(t, titles[d]), 0, "depth %d", d + 1);
    clk.now += 7;
    for (int d = DEEP; d-- > 0;)
        cr_assert_eq(pt_stop(t, titles[d]), 0, "depth %d", d + 1);
    path = path_of((const char *const *)titles, DEEP);
    s = pt_find(t, path);
    cr_assert_not_null(s, "found by a %zu-byte path", strlen(path));
    cr_assert_str_eq(pt_section_name(s), titles[DEEP - 1]);
    cr_assert_eq(pt_section_path(s, NULL, 0), (int)strlen(path));
    {
        char *whole = malloc(strlen(path) + 1);
        pt_section_path(s, whole, strlen(path) + 1);
        cr_assert_str_eq(whole, path, "the whole path, every '/' in a title escaped");
        free(whole);
    }
    free(path);
    pt_reset(t);

    for (int d = 0; d < EXPORTED; d++)
        pt_start(t, titles[d]);
    clk.now += 1000;
    for (int d = EXPORTED; d-- > 0;)
        pt_stop(t, titles[d]);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    export_all();
    {
        exported e;
        exported_load(&e);
        check_section(&e, (const char *const *)titles, 1, 1);
        check_section(&e, (const char *const *)titles, EXPORTED / 2, 1);
        check_section(&e, (const char *const *)titles, EXPORTED, 1);
        exported_free(&e);
    }
    for (int d = 0; d < DEEP; d++)
        free(titles[d]);
}

/* ---- bytes that are not UTF-8, control characters, the empty title ---- */

static const struct {
    const char *title;        /* as given */
    const char *json;         /* as JSON gives it back */
} odd[] = {
    { "bad \xff\xfe bytes", "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes" },
    { "ctl \x01\x02\x1f\x7f end", "ctl \x01\x02\x1f\x7f end" },
    { "tab\tnl\ncr\r", "tab\tnl\ncr\r" },
    { "overlong \xc0\xaf", "overlong \xEF\xBF\xBD\xEF\xBF\xBD" },
    { "surrogate \xed\xa0\x80", "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
    { "past U+10FFFF \xf4\x90\x80\x80", "past U+10FFFF \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
    { "cut short \xe2\x82", "cut short \xEF\xBF\xBD" },
    { "quote \" back \\ comma , end", "quote \" back \\ comma , end" },
    { "fine \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "fine \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
};
#define NODD (sizeof odd / sizeof odd[0])

Test(limits, odd_bytes_give_valid_json_and_quoted_csv)
{
    json_t *doc, *page, *x;
    char *csv, ***rows;
    size_t i;
    test_text text = { 0 };

    for (i = 0; i < NODD; i++)
        TEST_SPAN(t, &clk, odd[i].title, 1000 * (i + 1));
    cr_assert_eq(run_stats(t).section_count, NODD);
    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0);
    cr_assert_eq(pt_export_csv(t, in_dir("run.csv")), 0);
    cr_assert_eq(pt_export_html(t, in_dir("run.html")), 0);

    /* jansson refuses text that is not UTF-8, so parsing is the check. */
    doc = load_json(in_dir("run.json"));
    page = html_data(in_dir("run.html"));
    json_array_foreach(json_object_get(doc, "sections"), i, x) {
        char *path = path_of(&odd[i].json, 1);
        cr_assert_str_eq(str_of(x, "name"), odd[i].json, "JSON name %zu", i);
        char *got = path_in(json_object_get(doc, "sections"), x);
        cr_assert_str_eq(got, path, "JSON path %zu", i);
        free(got);
        free(path);
        cr_assert_str_eq(str_of(json_array_get(json_object_get(page, "sections"), i), "name"),
                         odd[i].json, "page name %zu", i);
    }
    cr_assert_eq(i, NODD);
    json_decref(doc);
    json_decref(page);

    /* The CSV keeps titles byte for byte, quoted where RFC 4180 says. */
    csv = slurp(in_dir("run.csv"));
    cr_assert_not_null(strstr(csv, "\n\"tab\tnl\ncr\r\",\"tab\tnl\ncr\r\",1,"),
                       "a title with CR and LF is quoted");
    cr_assert_not_null(strstr(csv, "\n\"quote \"\" back \\\\ comma , end\","),
                       "'\"' doubled inside quotes (and the path's '\\' escaped)");
    cr_assert_not_null(strstr(csv, "\nbad \xff\xfe bytes,bad \xff\xfe bytes,1,"),
                       "plain bytes unquoted, as given");
    rows = csv_parse(csv);
    for (i = 0; i < NODD; i++) {
        char **row = rows[i + 1];
        char *path = path_of(&odd[i].title, 1);
        cr_assert_not_null(row, "row %zu", i);
        cr_assert_str_eq(row[0], path, "CSV path %zu read back", i);
        free(path);
        cr_assert_str_eq(row[1], odd[i].title, "CSV name %zu read back", i);
    }
    cr_assert_null(rows[NODD + 1], "one row per section");
    csv_free(rows);
    free(csv);

    /* The text report shows every title on its own line, escaped. */
    cr_assert_eq(pt_log_fn(t, test_text_line, &text, .view = PT_VIEW_TABLE), 0);
    for (const unsigned char *p = (const unsigned char *)text.s; *p; p++)
        cr_assert(*p >= 0x20 || *p == '\n', "a raw control byte 0x%02X in the report", *p);
    cr_assert_not_null(strstr(text.s, "bad \\xFF\\xFE bytes"), "%s", text.s);
    cr_assert_not_null(strstr(text.s, "tab\\tnl\\ncr\\r"), "%s", text.s);
    cr_assert_not_null(strstr(text.s, "ctl \\x01\\x02\\x1F\\x7F end"), "%s", text.s);
    free(text.s);
}

Test(limits, the_empty_title_is_a_title)
{
    /* pt.h refuses a NULL title only: "" names a section like any other,
     * at the top and under a parent, and the writers keep it. */
    json_t *doc, *top, *kid;
    char *csv, ***rows;
    const pt_section *s;

    cr_assert_eq(pt_start(t, ""), 0);
    clk.now += 1000;
    cr_assert_eq(pt_stop(t, ""), 0);
    pt_start(t, "a");
    TEST_SPAN(t, &clk, "", 500);
    TEST_SPAN(t, &clk, "", 500);
    pt_stop(t, "a");
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(run_stats(t).section_count, 3);
    s = pt_section_child(pt_root(t));
    cr_assert_str_eq(pt_section_name(s), "");
    cr_assert_eq(pt_section_path(s, NULL, 0), 0, "the top-level \"\" has the empty path");
    cr_assert_null(pt_find(t, ""), "and the empty path is not a section (tree suite)");
    s = pt_section_child(pt_section_next(s));
    cr_assert_str_eq(pt_section_name(s), "");
    {
        char p[8];
        cr_assert_eq(pt_section_path(s, p, sizeof p), 2);
        cr_assert_str_eq(p, "a/");
    }
    pt_start(t, "a");
    cr_assert_eq(pt_stop(t, ""), PT_EMISMATCH, "\"\" is compared like any title");
    cr_assert_eq(pt_stop(t, "a"), 0);
    clk.now += 1;

    cr_assert_eq(pt_export_json(t, in_dir("run.json")), 0);
    cr_assert_eq(pt_export_csv(t, in_dir("run.csv")), 0);
    doc = load_json(in_dir("run.json"));
    top = json_array_get(json_object_get(doc, "sections"), 0);
    cr_assert_str_eq(str_of(top, "name"), "");
    {
        char *p = path_in(json_object_get(doc, "sections"), top);
        cr_assert_str_eq(p, "");
        free(p);
    }
    cr_assert_eq(json_integer_value(json_object_get(top, "count")), 1);
    kid = json_array_get(json_object_get(doc, "sections"), 2);
    cr_assert_str_eq(str_of(kid, "name"), "");
    {
        char *p = path_in(json_object_get(doc, "sections"), kid);
        cr_assert_str_eq(p, "a/");
        free(p);
    }
    cr_assert_eq(json_integer_value(json_object_get(kid, "count")), 2);
    json_decref(doc);
    csv = slurp(in_dir("run.csv"));
    rows = csv_parse(csv);
    cr_assert_str_eq(rows[1][0], "");
    cr_assert_str_eq(rows[1][1], "");
    cr_assert_str_eq(rows[3][0], "a/");
    cr_assert_str_eq(rows[3][1], "");
    cr_assert_str_eq(rows[3][5], "2", "count");
    csv_free(rows);
    free(csv);
}

Test(limits, the_empty_title_in_every_text_view)
{
    /* The text cleaner's copy of "" ends with its NUL (pt_log read past
     * it once: ASan, valgrind); every view shows the row whole. */
    static const int views[] = { PT_VIEW_TREE, PT_VIEW_TABLE, PT_VIEW_BOTTLENECKS,
                                     PT_VIEW_MEMORY };
    TEST_SPAN(t, &clk, "", 1000);
    pt_start(t, "a");
    TEST_SPAN(t, &clk, "", 500);
    pt_stop(t, "a");
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        test_text b = { 0 };
        cr_assert_eq(pt_log_fn(t, test_text_line, &b, .view = views[v]), 0, "%s",
                     pt_last_error(t));
        cr_assert_not_null(b.s);
        for (const char *c = b.s; *c; c++)
            cr_assert((unsigned char)*c >= 0x20 || *c == '\n', "view %zu: byte 0x%02x:\n%s", v,
                      (unsigned char)*c, b.s);
        free(b.s);
    }
    test_text b = { 0 };
    pt_log_fn(t, test_text_line, &b);
    int untitled = 0;
    for (const char *l = b.s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        untitled += l[0] == ' ' && strncmp(l + strspn(l, " "), "1     0.001", 11) == 0;
    cr_assert_eq(untitled, 2, "both \"\" rows, at the top and under a:\n%s", b.s);
    free(b.s);
}

/* ---- deep and wide trees on a small stack ------------------------------ */

/* Every report of the timing, once: pt_log, JSON, HTML, CSV. */
static void *every_report(void *arg)
{
    static int rc[4];
    FILE *null = fopen("/dev/null", "w");

    (void)arg;
    rc[0] = null ? pt_log(t, null) : -1;
    rc[1] = pt_export_json(t, in_dir("edge.json"));
    rc[2] = pt_export_html(t, in_dir("edge.html"));
    rc[3] = pt_export_csv(t, in_dir("edge.csv"));
    if (null)
        fclose(null);
    return rc;
}

Test(limits, a_deep_chain_and_a_wide_level_report_on_a_small_stack)
{
    /* A chain N deep and N sections at the top, every report made on a
     * thread with a 128 KiB stack and ptreport show run with 256 KiB: a
     * walk that recursed, or an array on the stack that grew with the
     * sections, would overflow it here (bench_scale makes them at
     * 100,000 deep and 1,000,000 wide). */
    long n = 20000 / (long)fewer();
    char title[32], cmd[2048];
    pthread_attr_t a;
    pthread_t th;
    void *res;
    int *rc, st;

    for (long d = 0; d < n; d++)
        cr_assert_eq(pt_start(t, "deep"), 0, "depth %ld", d + 1);
    clk.now += 1000;
    for (long d = 0; d < n; d++)
        pt_stop(t, "deep");
    for (long i = 0; i < n; i++) {
        snprintf(title, sizeof title, "w%ld", i);
        TEST_SPAN(t, &clk, title, 10);
    }
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    cr_assert_eq(pthread_attr_init(&a), 0);
    cr_assert_eq(pthread_attr_setstacksize(&a, 128 * KIB), 0);
    cr_assert_eq(pthread_create(&th, &a, every_report, NULL), 0);
    cr_assert_eq(pthread_join(th, &res), 0);
    pthread_attr_destroy(&a);
    rc = res;
    for (int k = 0; k < 4; k++)
        cr_assert_eq(rc[k], 0, "report %d: %s", k, pt_last_error(t));
    cr_assert_eq(access(tool, X_OK), 0, "%s: %s (run the suite with make test)", tool,
                 strerror(errno));
    snprintf(cmd, sizeof cmd, "ulimit -s 256 && %s show %s >%s/show.txt 2>%s/err.txt", tool,
             in_dir("edge.json"), dir, dir);
    st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %d%s", cmd, st, fewer_why());
    char *out = slurp(in_dir("show.txt"));
    snprintf(title, sizeof title, "%ld sections", 2 * n);
    cr_assert_not_null(strstr(out, title), "%.300s", out);
    free(out);
}

/* ---- 10^9 occurrences ---------------------------------------------------- */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The figures of n occurrences: the first of `first` ns, then `na` of a
 * and `nb` of b ns (the later ones, whose mean and deviation the
 * statistics keep). Exact arithmetic in long double. */
static void check_figures(const pt_section *s, uint64_t n, double first, uint64_t na, double a,
                          uint64_t nb, double b)
{
    pt_section_stats st;
    long double rest = (long double)na + nb;
    long double mean = ((long double)na * a + (long double)nb * b) / rest;
    long double m2 = (long double)na * nb * ((long double)b - a) * ((long double)b - a) / rest;
    long double sd = sqrtl(m2 / (rest - 1));
    double total_ns = first + (double)na * a + (double)nb * b; /* integers below 2^53 */

    cr_assert_eq(pt_section_get(t, s, &st), 0);
    cr_assert_eq(st.count, n, "count %llu, not %llu", (unsigned long long)st.count,
                 (unsigned long long)n);
    cr_assert(total_ns < 9007199254740992.0);
    cr_assert_eq(st.total_ms * 1e6, total_ns, "the total to the nanosecond: %.17g ms, not %.17g",
                 st.total_ms, total_ns / 1e6);
    cr_assert_eq(st.first_ms, first / 1e6);
    cr_assert(fabsl((long double)st.mean_ms * 1e6L - mean) <= 1e-9L * mean,
              "mean %.17g ns, exact %.17Lg", st.mean_ms * 1e6, mean);
    cr_assert(fabsl((long double)st.stddev_ms * 1e6L - sd) <= 1e-9L * sd,
              "deviation %.17g ns, exact %.17Lg", st.stddev_ms * 1e6, sd);
    cr_assert_eq(st.min_ms, (a < b ? a : b) / 1e6);
    cr_assert_eq(st.max_ms, (a < b ? b : a) / 1e6);
}

/* What the writers make of a count: the JSON integer and the CSV field. */
static void check_count_written(uint64_t n, double total_ms)
{
    json_t *doc, *s;
    char *csv, ***rows, num[32];
    test_text text = { 0 };

    cr_assert_eq(pt_export_json(t, in_dir("n.json")), 0, "%s", pt_last_error(t));
    cr_assert_eq(pt_export_csv(t, in_dir("n.csv")), 0);
    doc = load_json(in_dir("n.json"));
    s = json_array_get(json_object_get(doc, "sections"), 0);
    cr_assert(json_is_integer(json_object_get(s, "count")), "the count is a JSON integer");
    cr_assert_eq((uint64_t)json_integer_value(json_object_get(s, "count")), n);
    cr_assert_eq(json_number_value(json_object_get(s, "total_ms")), total_ms);
    json_decref(doc);
    snprintf(num, sizeof num, "%llu", (unsigned long long)n);
    csv = slurp(in_dir("n.csv"));
    rows = csv_parse(csv);
    cr_assert_str_eq(rows[1][5], num, "the CSV's count");
    cr_assert_eq(strtod(rows[1][6], NULL), total_ms, "the CSV's total");
    csv_free(rows);
    free(csv);
    cr_assert_eq(pt_log_fn(t, test_text_line, &text, .view = PT_VIEW_TABLE), 0);
    cr_assert_not_null(strstr(text.s, num), "the report shows every digit:\n%s", text.s);
    free(text.s);
    /* ptreport reads the count back whole. */
    cr_assert_eq(ptreport("convert %s --to csv -o %s", in_dir("n.json"), in_dir("back.csv")), 0);
    csv = slurp(in_dir("back.csv"));
    rows = csv_parse(csv);
    cr_assert_str_eq(rows[1][5], num, "the count through ptreport");
    csv_free(rows);
    free(csv);
}

Test(limits, a_billion_occurrences_keep_count_and_sum_exact)
{
    const uint64_t n = RECORDED;
    pt_section *s;
    double t0, dt;

    /* The first occurrence through the calls, then n - 1 through the
     * statistics' own update: 3000 and 1000 ns in turn. */
    TEST_SPAN(t, &clk, "hot", 1000);
    s = (pt_section *)pt_find(t, "hot");
    cr_assert_not_null(s);
    t0 = seconds();
    {
        /* On a copy the compiler may keep in registers; the node gets it
         * back whole (nothing else touches it meanwhile). */
        pt_section hot = *s;
        for (uint64_t i = 1; i < n; i++)
            pt__record(&hot, (i & 1) ? 3000.0 : 1000.0);
        *s = hot;
    }
    dt = seconds() - t0;
    cr_log_info("limits: %llu occurrences recorded in %.2f s (%.2f ns each)%s",
                (unsigned long long)n, dt, dt / (double)n * 1e9, fewer_why());
    /* n even: (n/2) of 3000 ns after the first, n/2 - 1 of 1000 ns. */
    check_figures(s, n, 1000, n / 2 - 1, 1000, n / 2, 3000);
    check_count_written(n, (double)n * 2000 / 1e6);
}

/* A clock that moves by a fixed pattern of ticks per read: pt_start()
 * reads it once at its end, pt_stop() once at its start, so occurrences
 * alternate 1000 and 3000 ns exactly. */
static int64_t stepping_clock(void *ctx)
{
    static const int64_t step[4] = { 17, 1000, 17, 3000 };
    uint64_t *reads = ctx;
    static int64_t now;
    if (*reads == 0)
        now = 0;
    now += step[(*reads)++ & 3];
    return now;
}

Test(limits, many_real_pairs_are_counted_exactly)
{
    const uint64_t n = REAL_PAIRS;
    uint64_t reads = 0;
    const pt_section *s;
    double t0, dt;

    cr_assert_eq(pt_clock_set(t, stepping_clock, &reads), 0);
    reads = 0;
    t0 = seconds();
    for (uint64_t i = 0; i < n; i++) {
        pt_start(t, "pair");
        pt_stop(t, "pair");
    }
    dt = seconds() - t0;
    cr_log_info("limits: %llu pt_start/pt_stop pairs in %.2f s (%.1f ns a pair)%s",
                (unsigned long long)n, dt, dt / (double)n * 1e9, fewer_why());
    cr_assert_eq(reads, 2 * n, "one clock read per call");
    s = pt_find(t, "pair");
    /* 1000, 3000, 1000, 3000, ...: the first 1000, then n/2 of 3000 and n/2 - 1 of 1000. */
    check_figures(s, n, 1000, n / 2 - 1, 1000, n / 2, 3000);
    check_count_written(n, (double)n * 2000 / 1e6);
}

/* A shared library's thread-locals that use the initial-exec model come
 * out of the process's small static TLS reserve when the library is
 * opened with dlopen (as Python opens libptkit): past it, dlopen fails
 * ("cannot allocate memory in static TLS block"). libptkit keeps its
 * thread-local block small; what is large is allocated per thread. */
Test(limits, the_shared_librarys_thread_local_block_is_small)
{
    const char *b = getenv("PT_BUILD");
    char path[512];
    snprintf(path, sizeof path, "%s/lib/libptkit.so", b && *b ? b : "build");
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    Elf64_Ehdr eh;
    cr_assert_eq(fread(&eh, sizeof eh, 1, f), 1);
    cr_assert(memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64);
    Elf64_Xword tls = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        cr_assert_eq(fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize), SEEK_SET), 0);
        cr_assert_eq(fread(&ph, sizeof ph, 1, f), 1);
        if (ph.p_type == PT_TLS)
            tls = ph.p_memsz;
    }
    fclose(f);
    cr_assert_leq(tls, 512, "%s: %lu bytes of thread-locals", path, (unsigned long)tls);
}
