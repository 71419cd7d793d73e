/* Export paths as templates: %r the rank from OMPI_COMM_WORLD_RANK, else
 * PMI_RANK, else SLURM_PROCID (0 with none), %p the process id, %% a %;
 * anything else after a % and malformed ranks are refused with PT_EINVAL
 * and nothing written. ptreport merge joins the files of two ranks.
 * Criterion runs each test in a process of its own, so the variables set
 * here do not leak from one test into another. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define MS 1000000 /* ns */

static test_clock clk;
static pt_timing *t;
static char dir[64];

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

static void setup(void)
{
    /* The suite may itself run under a launcher that sets these. */
    for (int i = 0; i < 3; i++)
        unsetenv(rank_vars[i]);
    t = test_timing(&clk, "rank", PT_CPU);
    cr_assert_not_null(t, "pt_create failed");
    TEST_SPAN(t, &clk, "work", 2 * MS);
    snprintf(dir, sizeof dir, "/tmp/ptkit-rank-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];

    pt_destroy(t);
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(rank, .init = setup, .fini = teardown);

#define in_dir(name) test_path(dir, (name))

/* The names in dir, sorted, joined by spaces ("" when empty). */
static char *listing(void)
{
    static char out[1024];
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);

    cr_assert_geq(n, 0, "scandir(%s): %s", dir, strerror(errno));
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
            if (*out)
                strcat(out, " ");
            strncat(out, names[i]->d_name, sizeof out - strlen(out) - 1);
        }
        free(names[i]);
    }
    free(names);
    return out;
}

static void export_ok(const char *path)
{
    int rc = pt_export_json(t, path);
    cr_assert_eq(rc, 0, "pt_export_json(%s): %s (%s)", path, pt_strerror(rc), pt_last_error(t));
}

static void export_refused(const char *path, const char *says)
{
    int rc = pt_export_json(t, path);
    cr_assert_eq(rc, PT_EINVAL, "pt_export_json(%s): %s, not PT_EINVAL", path, pt_strerror(rc));
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 1, "counted once");
    cr_assert(strstr(pt_last_error(t), says), "the message says \"%s\": %s", says,
              pt_last_error(t));
    cr_assert_str_eq(listing(), "", "nothing written, no temporary file left");
}

Test(rank, no_variable_is_rank_0)
{
    export_ok(in_dir("perf-%r.json"));
    cr_assert_str_eq(listing(), "perf-0.json");
}

Test(rank, each_variable_alone)
{
    static const char *const want[] = { "r-3.json", "r-3.json r-41.json",
                                        "r-3.json r-41.json r-7.json" };
    static const char *const val[] = { "3", "41", "7" };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            unsetenv(rank_vars[j]);
        setenv(rank_vars[i], val[i], 1);
        export_ok(in_dir("r-%r.json"));
        cr_assert_str_eq(listing(), want[i], "%s=%s", rank_vars[i], val[i]);
    }
}

Test(rank, open_mpi_then_pmi_then_slurm)
{
    setenv("SLURM_PROCID", "3", 1);
    setenv("PMI_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    export_ok(in_dir("a%r.json"));
    cr_assert_str_eq(listing(), "a1.json", "OMPI_COMM_WORLD_RANK comes first");
    unsetenv("OMPI_COMM_WORLD_RANK");
    export_ok(in_dir("b%r.json"));
    cr_assert_str_eq(listing(), "a1.json b2.json", "then PMI_RANK");
    unsetenv("PMI_RANK");
    export_ok(in_dir("c%r.json"));
    cr_assert_str_eq(listing(), "a1.json b2.json c3.json", "then SLURM_PROCID");
}

Test(rank, empty_variable_is_not_set)
{
    setenv("OMPI_COMM_WORLD_RANK", "", 1);
    setenv("PMI_RANK", "5", 1);
    export_ok(in_dir("r%r.json"));
    cr_assert_str_eq(listing(), "r5.json");
}

Test(rank, largest_rank_and_leading_zeros)
{
    setenv("PMI_RANK", "2147483647", 1);
    export_ok(in_dir("r%r.json"));
    setenv("PMI_RANK", "007", 1);
    export_ok(in_dir("r%r.json"));
    cr_assert_str_eq(listing(), "r2147483647.json r7.json");
}

Test(rank, malformed_rank_is_refused)
{
    static const char *const bad[] = { "-1", "1x", " 1", "1 ", "+1", "0x10", "2147483648",
                                       "99999999999999999999", "one" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pt_reset(t);
        TEST_SPAN(t, &clk, "work", MS);
        setenv("OMPI_COMM_WORLD_RANK", bad[i], 1);
        setenv("PMI_RANK", "1", 1); /* a malformed first variable is not skipped */
        export_refused(in_dir("r%r.json"), "OMPI_COMM_WORLD_RANK");
        cr_assert(strstr(pt_last_error(t), "not a rank"), "%s", pt_last_error(t));
    }
}

Test(rank, malformed_rank_matters_only_with_percent_r)
{
    setenv("SLURM_PROCID", "bad", 1);
    export_ok(in_dir("plain.json"));
    cr_assert_str_eq(listing(), "plain.json");
    unlink(in_dir("plain.json"));
    export_refused(in_dir("r%r.json"), "SLURM_PROCID=\"bad\"");
}

Test(rank, several_conversions)
{
    char want[128];
    setenv("OMPI_COMM_WORLD_RANK", "12", 1);
    export_ok(in_dir("%r-of-%r_100%%_%r"));
    snprintf(want, sizeof want, "12-of-12_100%%_12 p%ld.json", (long)getpid());
    export_ok(in_dir("p%p.json"));
    cr_assert_str_eq(listing(), want);
}

Test(rank, percent_percent_alone)
{
    export_ok(in_dir("%%r%%.json"));
    cr_assert_str_eq(listing(), "%r%.json", "%%%% is a %%, even before r");
}

Test(rank, other_conversions_are_refused)
{
    export_refused(in_dir("perf-%d.json"), "unknown conversion %d");
    pt_reset(t);
    export_refused(in_dir("perf-%R.json"), "unknown conversion %R");
    pt_reset(t);
    export_refused(in_dir("perf.json%"), "lone %");
}

Test(rank, every_export_expands)
{
    pt_timing *u = pt_create("traced", PT_TRACE);
    int rc;
    cr_assert_not_null(u);
    pt_start(u, "x");
    pt_stop(u, "x");
    setenv("PMI_RANK", "4", 1);
    export_ok(in_dir("j%r.json"));
    rc = pt_export_csv(t, in_dir("c%r.csv"));
    cr_assert_eq(rc, 0, "pt_export_csv: %s", pt_last_error(t));
    rc = pt_export_html(t, in_dir("h%r.html"));
    cr_assert_eq(rc, 0, "pt_export_html: %s", pt_last_error(t));
    rc = pt_export_trace(u, in_dir("t%r.json"));
    cr_assert_eq(rc, 0, "pt_export_trace: %s", pt_last_error(u));
    cr_assert_str_eq(listing(), "c4.csv h4.html j4.json t4.json");
    pt_destroy(u);
}

/* Two ranks' files, as each rank of `mpirun -np 2` writes "run-%r.json",
 * joined by ptreport merge. */
Test(rank, ptreport_merge_joins_two_ranks)
{
    const char *b = getenv("PT_BUILD");
    char tool[512], cmd[2048];
    json_error_t je;
    json_t *doc, *secs, *work;
    int st;

    snprintf(tool, sizeof tool, "%s/bin/ptreport", b && *b ? b : "build");
    cr_assert_eq(access(tool, X_OK), 0, "%s: %s (run the suite with make test)", tool,
                 strerror(errno));
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    export_ok(in_dir("run-%r.json"));
    pt_reset(t);
    TEST_SPAN(t, &clk, "work", 4 * MS);
    TEST_SPAN(t, &clk, "work", 6 * MS);
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    export_ok(in_dir("run-%r.json"));
    cr_assert_str_eq(listing(), "run-0.json run-1.json");

    snprintf(cmd, sizeof cmd, "%s merge %s %s -o %s 2>%s", tool, in_dir("run-0.json"),
             in_dir("run-1.json"), in_dir("all.json"), in_dir("err.txt"));
    st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: exit %d", cmd, WEXITSTATUS(st));
    doc = json_load_file(in_dir("all.json"), 0, &je);
    cr_assert_not_null(doc, "all.json: %d:%d: %s", je.line, je.column, je.text);
    secs = json_object_get(doc, "sections");
    cr_assert_eq(json_array_size(secs), 1, "one section, work");
    work = json_array_get(secs, 0);
    cr_assert_str_eq(json_string_value(json_object_get(work, "name")), "work");
    cr_assert_eq(json_number_value(json_object_get(work, "count")), 3, "1 + 2 calls");
    cr_assert_eq(json_number_value(json_object_get(work, "total_ms")), 12, "2 + 4 + 6 ms");
    cr_assert_eq(json_number_value(json_object_get(work, "first_ms")), 2, "rank 0's first");
    cr_assert_eq(json_number_value(json_object_get(work, "mean_ms")), 5, "(4 + 6) / 2");
    cr_assert_eq(json_number_value(json_object_get(json_object_get(doc, "merged"), "inputs")),
                 2);
    json_decref(doc);
}
