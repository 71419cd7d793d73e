/* PT_OUTPUT: the reports a run writes, chosen by the environment at
 * pt_create() and written at pt_destroy(), each where it was asked, a
 * trace recorded without PT_TRACE in the code, a kind that is none
 * counted, ptkit's own timings untouched. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "records_fake.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ptkit-output-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    unsetenv("PT_OUTPUT");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(output, .init = setup, .fini = teardown);

static void run(const char *name)
{
    test_clock clk;
    pt_timing *t = test_timing(&clk, name, PT_CPU);
    cr_assert_not_null(t);
    TEST_SPAN(t, &clk, "solve", 2000000);
    TEST_SPAN(t, &clk, "solve", 1000000);
    cr_assert_eq(pt_error_count(t), 0, "%s", pt_last_error(t));
    pt_destroy(t);
}

Test(output, every_kind_is_written_where_it_was_asked)
{
    char spec[1024];
    snprintf(spec, sizeof spec, "log=%s/run.txt,json=%s/run.json,csv=%s/%%n.csv,html=%s/run.html,"
             "trace=%s/run.trace.json", dir, dir, dir, dir, dir);
    setenv("PT_OUTPUT", spec, 1);
    run("my run");
    char *txt = test_read_file(test_path(dir, "run.txt"));
    cr_assert(txt && strstr(txt, "ptkit report \"my run\"") && strstr(txt, "solve"), "%s", txt);
    json_error_t e;
    json_t *j = json_load_file(test_path(dir, "run.json"), 0, &e);
    cr_assert_not_null(j, "run.json: %s", e.text);
    json_decref(j);
    char *csv = test_read_file(test_path(dir, "my_run.csv"));
    cr_assert(csv && strstr(csv, "\nsolve,"), "%%n is the name as a file name: %s", csv);
    char *html = test_read_file(test_path(dir, "run.html"));
    cr_assert(html && strstr(html, "<html"), "the page");
    j = json_load_file(test_path(dir, "run.trace.json"), 0, &e);
    cr_assert_not_null(j, "run.trace.json: %s", e.text);
    size_t i, spans = 0;
    json_t *ev;
    json_array_foreach(json_object_get(j, "traceEvents"), i, ev)
        spans += json_is_string(json_object_get(ev, "name")) &&
                 strcmp(json_string_value(json_object_get(ev, "name")), "solve") == 0;
    cr_assert_eq(spans, 2, "each occurrence traced, PT_TRACE on from the first section");
    json_decref(j);
    free(txt);
    free(csv);
    free(html);
}

Test(output, bare_kinds_take_the_timings_name_in_the_working_directory)
{
    char *cwd = getcwd(NULL, 0);
    cr_assert_eq(chdir(dir), 0);
    setenv("PT_OUTPUT", "json,csv", 1);
    run("solver/a b");
    cr_assert_eq(access("solver_a_b.json", R_OK), 0, "solver_a_b.json");
    cr_assert_eq(access("solver_a_b.csv", R_OK), 0, "solver_a_b.csv");
    cr_assert_eq(chdir(cwd), 0);
    free(cwd);
}

Test(output, a_kind_that_is_none_is_counted_and_the_rest_written)
{
    char spec[512];
    snprintf(spec, sizeof spec, "jsn,json=%s/ok.json,html=", dir);
    setenv("PT_OUTPUT", spec, 1);
    pt_timing *t = pt_create("bad", PT_CPU);
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 1);
    cr_assert(strstr(pt_last_error(t), "\"jsn\" is no output"), "%s", pt_last_error(t));
    pt_destroy(t);
    cr_assert_eq(access(test_path(dir, "ok.json"), R_OK), 0);
}

Test(output, the_log_goes_to_stderr_and_a_failure_is_said_there)
{
    char spec[512], *err;
    snprintf(spec, sizeof spec, "log,json=%s/no/such/dir/x.json", dir);
    setenv("PT_OUTPUT", spec, 1);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(test_path(dir, "stderr"), "w");
    cr_assert_not_null(f);
    dup2(fileno(f), 2);
    run("to stderr");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    err = test_read_file(test_path(dir, "stderr"));
    cr_assert(strstr(err, "ptkit report \"to stderr\""), "%s", err);
    cr_assert(strstr(err, "ptkit: PT_OUTPUT json: "), "%s", err);
    free(err);
}

Test(output, unset_writes_nothing)
{
    char *cwd = getcwd(NULL, 0);
    cr_assert_eq(chdir(dir), 0);
    unsetenv("PT_OUTPUT");
    run("quiet");
    setenv("PT_OUTPUT", "", 1);
    run("quiet");
    cr_assert_eq(chdir(cwd), 0);
    free(cwd);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    cr_assert_eq(system(cmd), 0, "nothing written");
}
