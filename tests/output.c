/* PT_OUTPUT: the reports a run writes, chosen by the environment at
 * pt_create() and written at pt_destroy(), each where it was asked, a
 * trace recorded without PT_TRACE in the code, ptkit's own timings
 * untouched; what is wrong with the spec said on stderr at once (and
 * counted), no two timings and no two kinds writing one file, a forked
 * child writing none of its parent's files, a timing never destroyed
 * still writing its own at exit. */
#define _GNU_SOURCE /* setenv */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* stderr, while fn(arg) runs, as a string (malloc'ed). */
static char *stderr_of(void (*fn)(void *), void *arg)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(test_path(dir, "stderr"), "w");
    cr_assert_not_null(f);
    dup2(fileno(f), 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    return test_read_file(test_path(dir, "stderr"));
}

static void create_destroy(void *name)
{
    pt_timing *t = pt_create(name, PT_CPU);
    cr_assert_not_null(t);
    pt_destroy(t);
}

Test(output, what_names_no_output_is_said_at_once_and_the_rest_written)
{
    char spec[512];
    /* A typo, a kind with no path, and a comma meant as part of a path. */
    snprintf(spec, sizeof spec, "jsn,json=%s/ok.json,html=,csv=%s/a,b.csv", dir, dir);
    setenv("PT_OUTPUT", spec, 1);
    pt_timing *t = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(test_path(dir, "stderr"), "w");
    dup2(fileno(f), 2);
    t = pt_create("bad", PT_CPU);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    char *err = test_read_file(test_path(dir, "stderr"));
    cr_assert_eq(pt_error_count_of(t, PT_EINVAL), 3, "jsn, html= and b.csv: %s", err);
    cr_assert(strstr(err, "ptkit: PT_OUTPUT: \"jsn\" is no output"), "said at pt_create: %s", err);
    cr_assert(strstr(err, "\"html=\" is no output"), "%s", err);
    cr_assert(strstr(err, "\"b.csv\" is no output"), "%s", err);
    cr_assert(strstr(err, "a path holds no comma"), "%s", err);
    free(err);
    pt_destroy(t);
    cr_assert_eq(access(test_path(dir, "ok.json"), R_OK), 0);
}

Test(output, the_log_goes_to_stderr_and_a_missing_folder_is_said_there)
{
    char spec[512], *err;
    snprintf(spec, sizeof spec, "log,json=%s/no/such/dir/x.json,html=%s", dir, dir);
    setenv("PT_OUTPUT", spec, 1);
    err = stderr_of(create_destroy, "to stderr");
    cr_assert(strstr(err, "ptkit report \"to stderr\""), "%s", err);
    cr_assert(strstr(err, "ptkit: PT_OUTPUT json: no folder "), "%s", err);
    cr_assert(strstr(err, "is a folder: name a file in it"), "%s", err);
    free(err);
}

Test(output, two_timings_and_two_kinds_never_share_a_file)
{
    char spec[512], *err;
    snprintf(spec, sizeof spec, "json=%s/%%n.json,csv=%s/%%n.json", dir, dir);
    setenv("PT_OUTPUT", spec, 1);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(test_path(dir, "stderr"), "w");
    dup2(fileno(f), 2);
    /* "solver A" and "solver/A" give one file name. */
    pt_timing *a = pt_create("solver A", PT_CPU), *b = pt_create("solver/A", PT_CPU);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    err = test_read_file(test_path(dir, "stderr"));
    cr_assert(strstr(err, "is named for json and csv; only json is written there"), "%s", err);
    cr_assert(strstr(err, "solver_A.json is another timing's file; \"solver/A\" writes "), "%s",
              err);
    cr_assert(strstr(pt_last_note(b), "solver_A-2.json"), "%s", pt_last_note(b));
    pt_destroy(b);
    pt_destroy(a);
    json_error_t e;
    json_t *ja = json_load_file(test_path(dir, "solver_A.json"), 0, &e);
    json_t *jb = json_load_file(test_path(dir, "solver_A-2.json"), 0, &e);
    cr_assert(ja && jb, "both written: %s", e.text);
    cr_assert_str_eq(json_string_value(json_object_get(ja, "name")), "solver A");
    cr_assert_str_eq(json_string_value(json_object_get(jb, "name")), "solver/A");
    json_decref(ja);
    json_decref(jb);
    free(err);
}

Test(output, a_forked_child_writes_none_of_its_parents_files)
{
    char spec[512];
    test_clock clk;
    snprintf(spec, sizeof spec, "json=%s/run.json", dir);
    setenv("PT_OUTPUT", spec, 1);
    pt_timing *t = test_timing(&clk, "parent", PT_CPU);
    TEST_SPAN(t, &clk, "before fork", 1000);
    pid_t pid = fork();
    if (pid == 0) {
        pt_destroy(t); /* the child's copy: its exit too */
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert_eq(access(test_path(dir, "run.json"), F_OK), -1, "the child wrote the parent's file");
    TEST_SPAN(t, &clk, "after fork", 1000);
    pt_destroy(t);
    char *j = test_read_file(test_path(dir, "run.json"));
    cr_assert(j && strstr(j, "after fork"), "the parent's report, whole: %s", j);
    free(j);
}

static void *time_forever(void *arg)
{
    (void)arg;
    for (;;) {
        pt_start(pt_default(), "loop");
        pt_stop(pt_default(), "loop");
    }
    return NULL;
}

Test(output, at_exit_timings_never_destroyed_write_and_threads_still_timing_survive)
{
    char spec[512];
    snprintf(spec, sizeof spec, "json=%s/%%n.json", dir);
    setenv("PT_OUTPUT", spec, 1);
    pid_t pid = fork();
    if (pid == 0) {
        /* The program just exits: a timing never destroyed, and detached
         * threads timing into the default one while main returns. */
        pt_timing *t;
        /* What the exit says goes to a file, read below, not the suite's output. */
        if (!freopen(test_path(dir, "exit-stderr.txt"), "w", stderr))
            _exit(3);
        t = pt_create("forgotten", PT_CPU);
        pt_start(t, "work");
        pt_stop(t, "work");
        for (int i = 0; i < 4; i++) {
            pthread_t th;
            pthread_create(&th, NULL, time_forever, NULL);
            pthread_detach(th);
        }
        usleep(2000);
        exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the program ended normally (status %d)", st);
    char *j = test_read_file(test_path(dir, "forgotten.json"));
    cr_assert(j && strstr(j, "\"work\""), "the timing never destroyed wrote its report: %s", j);
    free(j);
    cr_assert_eq(access(test_path(dir, "ptkit.json"), R_OK), 0, "so did the default timing");
    /* What ptkit said: at most that the threads' sections were open at
     * exit; never that the default timing's file was another's (threads
     * making the default at once each claimed it). Other lines are not
     * ptkit's (a sanitizer's). */
    char *said = test_read_file(test_path(dir, "exit-stderr.txt")), *save = NULL;
    cr_assert_not_null(said, "no stderr file");
    for (char *l = strtok_r(said, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (strncmp(l, "ptkit:", 6) == 0 && !strstr(l, "open section")) {
            char line[512];
            snprintf(line, sizeof line, "%s", l);
            free(said);
            cr_assert_fail("the exit said something else: %s", line);
        }
    free(said);
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
