/* ptgen: the header it makes, compiled into this file (the build generates
 * pt_test_phases.h from tests/kernels/phases.txt), the outcomes of
 * compiling its headers with pt_dev.h in every order (made by the build,
 * read here), and the tool run on good and bad lists. A bad list must give
 * FILE:LINE: message, a non-zero exit and no output file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#include "pt_test_phases.h"

TestSuite(ptgen);

/* ---- the generated header, compiled ---------------------------------- */

Test(ptgen, enum_count_and_names)
{
    enum test_phase p = PH_STORE;
    cr_assert_eq(PH_LOAD, 0);
    cr_assert_eq(PH_COMPUTE, 1);
    cr_assert_eq(PH_REDUCE, 2);
    cr_assert_eq(p, 3);
    cr_assert_eq(PH_FLUSH, 4);
    cr_assert_eq(PH_COUNT, 5, "PH_COUNT is %d", PH_COUNT);
    cr_assert_eq((int)(sizeof test_phase_names / sizeof test_phase_names[0]), PH_COUNT);
    cr_assert_str_eq(test_phase_names[PH_LOAD], "load");
    cr_assert_str_eq(test_phase_names[PH_COMPUTE], "compute");
    cr_assert_str_eq(test_phase_names[PH_STORE], "store");
    cr_assert_str_eq(test_phase_descs[PH_LOAD], "Load the inputs");
    cr_assert_str_eq(test_phase_descs[PH_COMPUTE], "Arithmetic in registers",
                     "an unquoted description ends before the comment, blanks trimmed");
    cr_assert_str_eq(test_phase_descs[PH_REDUCE], "Warp reduction #1", "'#' inside quotes is kept");
    cr_assert_str_eq(test_phase_descs[PH_STORE], "", "no description gives \"\"");
    cr_assert_str_eq(test_phase_descs[PH_FLUSH], "Flush */ ?\?= \\ tab\t\"end\"",
                     "escaped text came back as \"%s\"", test_phase_descs[PH_FLUSH]);
}

Test(ptgen, waits_and_span_kinds)
{
    enum test_span k = PH_SPAN_COMMIT;
    cr_assert_eq(PH_WAIT_COUNT, 1, "one phase tagged [wait]");
    cr_assert_eq((int)(sizeof test_phase_waits / sizeof test_phase_waits[0]), PH_WAIT_COUNT);
    cr_assert_eq(test_phase_waits[0], PH_REDUCE);
    cr_assert_eq(PH_SPAN_FETCH, 0);
    cr_assert_eq(k, 1);
    cr_assert_eq(PH_SPAN_COUNT, 2);
    cr_assert_str_eq(test_span_names[PH_SPAN_FETCH], "fetch");
    cr_assert_str_eq(test_span_names[PH_SPAN_COMMIT], "commit");
    cr_assert_eq(PH_COUNT, 5, "span kinds are no phases");
}

Test(ptgen, list_macro_gives_every_phase)
{
    struct row {
        int member, index;
        const char *name, *desc;
    } rows[] = {
#define ROW(member, index, name, desc) { member, index, name, desc },
        PH_LIST(ROW)
#undef ROW
    };
    cr_assert_eq((int)(sizeof rows / sizeof rows[0]), PH_COUNT);
    for (int i = 0; i < PH_COUNT; i++) {
        cr_assert_eq(rows[i].member, i, "row %d member %d", i, rows[i].member);
        cr_assert_eq(rows[i].index, i, "row %d index %d", i, rows[i].index);
        cr_assert_str_eq(rows[i].name, test_phase_names[i]);
        cr_assert_str_eq(rows[i].desc, test_phase_descs[i]);
    }
}

/* ---- ptgen headers and pt_dev.h together, compiled by the build ------- */

static const char *build_dir(void)
{
    const char *b = getenv("PT_BUILD");
    return b && *b ? b : "build";
}


/* The exit status of compiling tests/kernels/header_cases.c with CASE=c, and
 * its diagnostics. */
static int header_case(int c, char **log)
{
    char path[512], *all, *line;
    int rc = -1;
    snprintf(path, sizeof path, "%s/kernels/header_cases.txt", build_dir());
    all = test_read_file(path);
    cr_assert_not_null(all, "%s is missing: run the suite with make test, which builds it", path);
    for (line = all; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        int k, r;
        if (sscanf(line, "%d %d", &k, &r) == 2 && k == c)
            rc = r;
    }
    free(all);
    cr_assert_neq(rc, -1, "case %d not in %s", c, path);
    snprintf(path, sizeof path, "%s/kernels/header_cases.%d.log", build_dir(), c);
    *log = test_read_file(path);
    cr_assert_not_null(*log, "%s is missing", path);
    return rc;
}

Test(ptgen, long_list_first_raises_the_maximum)
{
    char *log;
    cr_assert_eq(header_case(1, &log), 0, "20 phases, then pt_dev.h:\n%s", log);
    free(log);
    cr_assert_eq(header_case(4, &log), 0, "PT_DEV_MAX_PHASES=24 for lists of 20 and 24:\n%s",
                 log);
    free(log);
}

Test(ptgen, the_list_sets_the_phase_count_in_any_order)
{
    static const char *const what[] = {
        "pt_dev.h, then a list of 5", "a list of 5, then pt_dev.h",
        "lists of 20 and 5", "PT_DEV_PHASES 3, then a list of 5",
    };
    for (int c = 8; c <= 11; c++) {
        char *log;
        cr_assert_eq(header_case(c, &log), 0, "case %d (%s) does not build:\n%s", c, what[c - 8],
                     log);
        free(log);
    }
}

Test(ptgen, too_small_a_maximum_stops_the_build)
{
    static const struct {
        int c;
        const char *why;
    } cases[] = {
        { 2, "many20 has 20 phases: define PT_DEV_MAX_PHASES to at least 20" },
        { 3, "many24 has 24 phases: define PT_DEV_MAX_PHASES to at least 24" },
        { 5, "test has 5 phases: define PT_DEV_MAX_PHASES to at least 5" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *log;
        int rc = header_case(cases[i].c, &log);
        cr_assert_neq(rc, 0, "case %d compiled", cases[i].c);
        cr_assert(strstr(log, cases[i].why), "case %d: expected \"%s\" in:\n%s", cases[i].c,
                  cases[i].why, log);
        free(log);
    }
}

/* ---- the tool --------------------------------------------------------- */

typedef struct run {
    int status;      /* exit status */
    char *err;       /* what it wrote on stderr */
    char *out;       /* the output file, NULL when there is none */
    int leftovers;   /* files in the directory other than the input, stderr and output */
} run;

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/pt_ptgen_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(ptgen_tool, .init = make_dir, .fini = remove_dir);

static void write_input(const char *text, size_t len)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/phases.txt", dir);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Runs ptgen in dir: `ptgen phases.txt -o OUT ARGS`, from inside dir so
 * that messages name "phases.txt". */
static run ptgen_run_n(const char *text, size_t len, const char *out, const char *args)
{
    char cmd[2048], path[512], bin[512];
    run r = { 0, NULL, NULL, 0 };
    DIR *d;
    struct dirent *e;
    int st;

    if (text)
        write_input(text, len);
    if (build_dir()[0] == '/')
        snprintf(bin, sizeof bin, "%s/bin/ptgen", build_dir());
    else
        snprintf(bin, sizeof bin, "%s/%s/bin/ptgen", getcwd(path, sizeof path), build_dir());
    cr_assert_eq(access(bin, X_OK), 0, "%s is missing: run the suite with make test", bin);
    snprintf(cmd, sizeof cmd, "cd %s && '%s' phases.txt -o %s %s 2> stderr.txt", dir, bin, out,
             args ? args : "");
    st = system(cmd);
    cr_assert(WIFEXITED(st), "ptgen did not exit normally: %d", st);
    r.status = WEXITSTATUS(st);
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    r.err = test_read_file(path);
    cr_assert_not_null(r.err);
    snprintf(path, sizeof path, "%s/%s", dir, out);
    r.out = test_read_file(path);
    d = opendir(dir);
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "phases.txt") != 0 &&
            strcmp(e->d_name, "stderr.txt") != 0 && strcmp(e->d_name, out) != 0)
            r.leftovers++;
    closedir(d);
    return r;
}

static run ptgen_run(const char *text, const char *args)
{
    return ptgen_run_n(text, text ? strlen(text) : 0, "out.h", args);
}

static void run_free(run *r)
{
    free(r->err);
    free(r->out);
}

/* A bad list: exit status 1, the message, no output, no temporary left. */
static void expect_error_n(const char *text, size_t len, const char *message)
{
    run r = ptgen_run_n(text, len, "out.h", NULL);
    cr_assert_eq(r.status, 1, "exit status %d for a bad list; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, message), "expected \"%s\" on stderr, got: %s", message, r.err);
    cr_assert_null(r.out, "an output file was written for a bad list");
    cr_assert_eq(r.leftovers, 0, "%d stray files left behind", r.leftovers);
    run_free(&r);
}

static void expect_error(const char *text, const char *message)
{
    expect_error_n(text, strlen(text), message);
}

Test(ptgen_tool, good_list_gives_the_header)
{
    run r = ptgen_run("# transport\r\n"
                      "angular   Angular scattering\r\n"
                      "\r\n"
                      "\tenergy\t\"Energy #2, \\\"loss\\\"\"   # comment\r\n"
                      "stream", /* no final newline */
                      NULL);
    cr_assert_eq(r.status, 0, "exit status %d: %s", r.status, r.err);
    cr_assert_str_eq(r.err, "", "stderr: %s", r.err);
    cr_assert_not_null(r.out);
    cr_assert(strstr(r.out, "PH_ANGULAR = 0,"), "%s", r.out);
    cr_assert(strstr(r.out, "PH_ENERGY = 1,"), "%s", r.out);
    cr_assert(strstr(r.out, "PH_STREAM = 2,"), "%s", r.out);
    cr_assert(strstr(r.out, "#define PH_COUNT 3\n"), "%s", r.out);
    cr_assert(strstr(r.out, "enum out_phase {"), "the default name is the output's: %s", r.out);
    cr_assert(strstr(r.out, "\"Energy #2, \\\"loss\\\"\""), "%s", r.out);
    cr_assert(strstr(r.out, "\"Angular scattering\""), "%s", r.out);
    cr_assert(strstr(r.out, "X(PH_STREAM, 2, \"stream\", \"\")"), "%s", r.out);
    cr_assert_null(strstr(r.out, "#include"), "the header includes something");
    cr_assert_null(strstr(r.out, "\r"), "a carriage return reached the header");
    cr_assert_eq(r.leftovers, 0, "%d stray files", r.leftovers);
    run_free(&r);
}

Test(ptgen_tool, prefix_and_name)
{
    run r = ptgen_run("a\nb\n", "--prefix TS_ --name solver");
    cr_assert_eq(r.status, 0, "exit status %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "#ifndef PT_PHASES_SOLVER_H"), "%s", r.out);
    cr_assert(strstr(r.out, "enum solver_phase {"), "%s", r.out);
    cr_assert(strstr(r.out, "TS_A = 0,"), "%s", r.out);
    cr_assert(strstr(r.out, "#define TS_COUNT 2"), "%s", r.out);
    cr_assert(strstr(r.out, "#define TS_LIST(X)"), "%s", r.out);
    cr_assert(strstr(r.out, "solver_phase_names[TS_COUNT]"), "%s", r.out);
    cr_assert(strstr(r.out, "solver_phase_descs[TS_COUNT]"), "%s", r.out);
    run_free(&r);
}

Test(ptgen_tool, standard_output)
{
    char cmd[1024], cwd[512], *out;
    FILE *p;
    size_t n;
    write_input("x\n", 2);
    snprintf(cmd, sizeof cmd, "%s%s%s/bin/ptgen %s/phases.txt -o -",
             build_dir()[0] == '/' ? "" : getcwd(cwd, sizeof cwd),
             build_dir()[0] == '/' ? "" : "/", build_dir(), dir);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    out = calloc(1, 65536);
    cr_assert_not_null(out);
    n = fread(out, 1, 65535, p);
    cr_assert_eq(pclose(p), 0, "ptgen -o - failed");
    cr_assert_gt(n, 0);
    cr_assert(strstr(out, "enum phases_phase {"), "the name for -o - is \"phases\": %s", out);
    cr_assert(strstr(out, "PH_X = 0,"), "%s", out);
    free(out);
}

Test(ptgen_tool, most_phases_and_longest_line_are_accepted)
{
    char *text = malloc(256 * 8 + 1100), *p = text;
    cr_assert_not_null(text);
    for (int i = 0; i < 255; i++)
        p += sprintf(p, "p%d\n", i);
    memset(p, 'n', 1023); /* a 1023-byte name: the longest line */
    p[1023] = '\n';
    p[1024] = '\0';
    run r = ptgen_run(text, NULL);
    cr_assert_eq(r.status, 0, "256 phases, a 1023-byte line: exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "#define PH_COUNT 256\n"), "count");
    run_free(&r);
    free(text);
}

Test(ptgen_tool, tags_are_checked)
{
    expect_error("[foo] x\n", "phases.txt:1: unknown tag '[foo]'");
    expect_error("[wait]x\n", "phases.txt:1: a name follows the tag, after a blank");
    expect_error("a\n[wait]  # nothing\n", "phases.txt:2: a tag without a name");
    expect_error("a\n[wait\n", "phases.txt:2: a tag is one word in brackets");
    expect_error("a\n[span] count\n", "phases.txt:2: span kind name 'count' is reserved");
    expect_error("wait_count\n", "phases.txt:1: phase name 'wait_count' is reserved");
    expect_error("a\n[span] x\n[span] X\n", "phases.txt:3: duplicate span kind 'X' (first on "
                                               "line 2)");
    expect_error("[span] load\nspan_load\n", "phases.txt:2: phase 'span_load' (line 2) and "
                                             "span kind 'load' (line 1) both make PH_SPAN_LOAD");
    expect_error("[span] only\n", "phases.txt:1: empty phase list");
    run r = ptgen_run("a\nb\n", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "#define PH_WAIT_COUNT 0\n"), "no wait: %s", r.out);
    cr_assert_null(strstr(r.out, "_phase_waits"), "no empty array: %s", r.out);
    cr_assert_null(strstr(r.out, "SPAN"), "no span kinds: %s", r.out);
    run_free(&r);
}

Test(ptgen_tool, invalid_identifier)
{
    expect_error("load\n\n# ok so far\n2fast\n", "phases.txt:4: invalid phase name '2fast'");
    expect_error("load\nfetch-add\n", "phases.txt:2: invalid phase name 'fetch-add'");
    expect_error("na\xc3\xafve\n", "phases.txt:1: invalid phase name");
}

Test(ptgen_tool, duplicate_name)
{
    expect_error("load\ncompute\nload\n", "phases.txt:3: duplicate phase 'load' (first on line 1)");
    expect_error("load\n\nLoad  same enum member\n",
                 "phases.txt:3: duplicate phase 'Load' (first on line 1)");
}

Test(ptgen_tool, reserved_name)
{
    expect_error("a\ncount\n", "phases.txt:2: phase name 'count' is reserved: the header defines PH_COUNT");
    expect_error("LIST\n", "phases.txt:1: phase name 'LIST' is reserved");
}

Test(ptgen_tool, empty_list)
{
    expect_error("# nothing but comments\n\n   \n", "phases.txt:3: empty phase list");
    expect_error("", "phases.txt:1: empty phase list");
}

Test(ptgen_tool, too_many_phases)
{
    char *text = malloc(257 * 8), *p = text;
    cr_assert_not_null(text);
    for (int i = 0; i < 257; i++)
        p += sprintf(p, "p%d\n", i);
    expect_error(text, "phases.txt:257: more than 256 phases");
    free(text);
}

Test(ptgen_tool, overlong_line)
{
    char text[1100];
    strcpy(text, "a\n");
    memset(text + 2, 'x', 1024);
    strcpy(text + 2 + 1024, "\n");
    expect_error(text, "phases.txt:2: line longer than 1023 bytes");
}

Test(ptgen_tool, unterminated_quote)
{
    expect_error("load \"Load the inputs\n", "phases.txt:1: unterminated quoted description");
    expect_error("a\nb \"ends in a backslash\\\n", "phases.txt:2: unterminated quoted description");
}

Test(ptgen_tool, bad_quoted_descriptions)
{
    expect_error("a \"x\\ty\"\n", "phases.txt:1: unknown escape '\\t'");
    expect_error("a \"x\" y\n", "phases.txt:1: unexpected text after the quoted description");
}

Test(ptgen_tool, control_characters)
{
    expect_error("a\nb bell\a\n", "phases.txt:2: control character");
    expect_error_n("a\nb\0c\n", 6, "phases.txt:2: NUL byte");
    expect_error_n("\0\0\0\0", 4, "phases.txt:1: NUL byte: not a text file");
}

Test(ptgen_tool, a_bad_list_leaves_an_existing_header_alone)
{
    char path[512];
    run r = ptgen_run("good\n", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = ptgen_run("bad-name\n", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert_not_null(r.out, "the earlier header was removed");
    cr_assert(strstr(r.out, "PH_GOOD = 0"), "the earlier header was changed: %s", r.out);
    run_free(&r);
    snprintf(path, sizeof path, "%s/out.h", dir);
    unlink(path);
}

/* ptkit's names are refused however the prefix and the phase split them:
 * "PT" + "_DEV_PHASES" is PT_DEV_PHASES, whose macro would replace the
 * phase (marking "phase 0" would record another). */
Test(ptgen_tool, ptkit_names_split_across_the_prefix_are_refused)
{
    static const char *const cases[][2] = {
        { "--prefix PT", "_DEV_PHASES\n" },
        { "--prefix P", "T_DEV_MARK\n" },
        { "--prefix PT_", "DEV_BEGIN\n" },
        { "--prefix PT_", "_DEV_N\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r = ptgen_run(cases[i][1], cases[i][0]);
        cr_assert_eq(r.status, 1, "%s with %s: exit %d", cases[i][0], cases[i][1], r.status);
        cr_assert(strstr(r.err, "a name ptkit's headers define") || strstr(r.err, "PT__"),
                  "%s", r.err);
        cr_assert_null(r.out, "a header was written");
        run_free(&r);
    }
    run r = ptgen_run("dev_mark\n", "--prefix PTX_");
    cr_assert_eq(r.status, 0, "PTX_DEV_MARK is the user's: %s", r.err);
    run_free(&r);
}

Test(ptgen_tool, missing_input_and_usage_errors)
{
    run r = ptgen_run(NULL, NULL); /* phases.txt was never written */
    cr_assert_eq(r.status, 1, "missing input: exit %d", r.status);
    cr_assert(strstr(r.err, "phases.txt"), "the message does not name the file: %s", r.err);
    cr_assert_null(r.out);
    run_free(&r);

    r = ptgen_run("a\n", "--prefix 9x");
    cr_assert_eq(r.status, 2, "a bad prefix: exit %d", r.status);
    cr_assert(strstr(r.err, "--prefix"), "%s", r.err);
    cr_assert_null(r.out);
    run_free(&r);

    r = ptgen_run("a\n", "--name bad-name");
    cr_assert_eq(r.status, 2, "a bad name: exit %d", r.status);
    cr_assert_null(r.out);
    run_free(&r);

    r = ptgen_run("a\n", "--bogus");
    cr_assert_eq(r.status, 2, "an unknown option: exit %d", r.status);
    cr_assert(strstr(r.err, "usage: ptgen"), "no usage text: %s", r.err);
    run_free(&r);
}

/* `cd dir && ptgen ARGS`: the exit status, stderr into *err (malloc'ed). */
static int ptgen_args(const char *args, char **err)
{
    char cmd[2048], cwd[512], bin[1024], path[600];
    int st;

    if (build_dir()[0] == '/')
        snprintf(bin, sizeof bin, "%s/bin/ptgen", build_dir());
    else
        snprintf(bin, sizeof bin, "%s/%s/bin/ptgen", getcwd(cwd, sizeof cwd), build_dir());
    snprintf(cmd, sizeof cmd, "cd %s && '%s' %s 2> stderr.txt", dir, bin, args);
    st = system(cmd);
    cr_assert(WIFEXITED(st), "ptgen did not exit normally: %d", st);
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    *err = test_read_file(path);
    cr_assert_not_null(*err);
    return WEXITSTATUS(st);
}

Test(ptgen_tool, only_a_regular_file_is_replaced)
{
    char path[600], *err;
    struct stat st;

    write_input("a\n", 2);
    /* A FIFO (or a device: as root, -o /dev/null) is not made a file. */
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    cr_assert_eq(ptgen_args("phases.txt -o fifo", &err), 1);
    cr_assert(strstr(err, "ptgen: fifo: not a regular file"), "%s", err);
    free(err);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "still a FIFO");
    unlink(path);
    /* Nor is the phase list itself, under any name. */
    cr_assert_eq(ptgen_args("phases.txt -o ./phases.txt", &err), 2);
    cr_assert(strstr(err, "is the phase list itself"), "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/phases.txt", dir);
    char *in = test_read_file(path);
    cr_assert_str_eq(in, "a\n", "the list is kept");
    free(in);
    /* A read-only file is refused, even for root, and kept. */
    snprintf(path, sizeof path, "%s/ro.h", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("kept\n", f);
    fclose(f);
    cr_assert_eq(chmod(path, 0444), 0);
    cr_assert_eq(ptgen_args("phases.txt -o ro.h", &err), 1);
    cr_assert(strstr(err, "ptgen: ro.h: a read-only file"), "%s", err);
    free(err);
    in = test_read_file(path);
    cr_assert_str_eq(in, "kept\n");
    free(in);
    unlink(path);
}

Test(ptgen_tool, a_name_of_250_bytes_is_written)
{
    /* Its temporary name would pass NAME_MAX beside it. */
    char name[251], args[400], *err;

    memset(name, 'h', 248);
    memcpy(name + 248, ".h", 3);
    write_input("a\n", 2);
    snprintf(args, sizeof args, "phases.txt -o %s --name long", name);
    cr_assert_eq(ptgen_args(args, &err), 0, "%s", err);
    free(err);
    snprintf(args, sizeof args, "%s/%s", dir, name);
    char *out = test_read_file(args);
    cr_assert_not_null(out);
    cr_assert(strstr(out, "enum long_phase"), "%s", out);
    free(out);
    unlink(args);
}

Test(ptgen_tool, a_byte_order_mark_is_no_part_of_a_name)
{
    run r = ptgen_run("\xef\xbb\xbf" "first\nsecond\n", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "PH_FIRST = 0,"), "%s", r.out);
    run_free(&r);
    char path[600];
    snprintf(path, sizeof path, "%s/out.h", dir);
    unlink(path);
    /* Elsewhere it is a bad byte, and the message shows it. */
    expect_error("first\n\xef\xbb\xbfsecond\n", "phases.txt:2: invalid phase name '\\xef\\xbb\\xbfsecond'");
}
