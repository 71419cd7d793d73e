/* The layout of the sources, checked so that it cannot rot: host/ holds the
 * library in layers (core, then the GPU side, then the reports, then the
 * public life cycle that composes them, api/), tools/ the programs built
 * on it; a file includes headers of its own layer or below, never above;
 * device code includes nothing of host/; a tool includes of host/ only
 * api/tool.h, the named interface for tools (tests/layers.c checks the
 * calls too); no two modules (x.c with x.h) include each other,
 * however far round; no file grows past LINE_LIMIT lines; pt.h holds no
 * machinery and the detail headers beside it refuse direct inclusion.
 * Run from the source tree (make test does). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* A file holding one idea stays under this many lines. */
#define LINE_LIMIT 600
#define MAX_FILES 512
#define MAX_INCLUDES 48

/* Folders and their layers; a file includes headers of its own layer or
 * below. device/ (the kernels and the headers the host shares with them,
 * the fold's arithmetic and the histogram) sits under the core: the host
 * may include it, it includes nothing of host/. */
static const struct {
    const char *dir;
    int layer;
} layers[] = {
    { "device/", 0 },       { "host/core/", 1 }, { "host/gpu/", 2 }, { "host/report/", 3 },
    { "host/api/", 4 },     { "tools/", 5 },
};
/* The one header of host/ a tool includes. */
#define TOOL_HEADER "host/api/tool.h"

typedef struct src {
    char path[256];
    char module[256];         /* the path without its extension */
    int layer;
    int lines;
    int ninc;
    int inc[MAX_INCLUDES];    /* indices of the files it includes */
} src;

static src files[MAX_FILES];
static int nfiles;

static int layer_of(const char *path)
{
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
        if (strncmp(path, layers[i].dir, strlen(layers[i].dir)) == 0)
            return layers[i].layer;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    cr_assert_not_null(d, "opendir(%s): %s (run the suite from the source tree)", dir,
                       strerror(errno));
    while ((e = readdir(d))) {
        char p[256];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s%s", dir, e->d_name);
        cr_assert_eq(stat(p, &st), 0, "stat(%s)", p);
        if (S_ISDIR(st.st_mode)) {
            strcat(p, "/");
            walk(p);
        } else if (ends_with(p, ".c") || ends_with(p, ".h")) {
            src *f = &files[nfiles++];
            cr_assert_lt(nfiles, MAX_FILES, "more sources than the check holds");
            snprintf(f->path, sizeof f->path, "%s", p);
            snprintf(f->module, sizeof f->module, "%.*s", (int)strlen(p) - 2, p);
            f->layer = layer_of(p);
        }
    }
    closedir(d);
}

static int find(const char *path)
{
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i].path, path) == 0)
            return i;
    return -1;
}

/* The file `name` names from f: "core/x.h" under host/, a sibling, or a
 * header of device/ (-Ihost -Idevice). -1 when there is none. */
static int resolve(const src *f, const char *name)
{
    char p[512];
    const char *slash = strrchr(f->path, '/');
    int i;

    snprintf(p, sizeof p, "host/%s", name);
    if ((i = find(p)) >= 0)
        return i;
    snprintf(p, sizeof p, "%.*s/%s", (int)(slash - f->path), f->path, name);
    if ((i = find(p)) >= 0)
        return i;
    snprintf(p, sizeof p, "device/%s", name);
    return find(p);
}

static void scan(src *f)
{
    FILE *in = fopen(f->path, "r");
    char line[1024];

    cr_assert_not_null(in, "fopen(%s): %s", f->path, strerror(errno));
    while (fgets(line, sizeof line, in)) {
        char name[256];
        f->lines++;
        if (sscanf(line, " # include \"%255[^\"]\"", name) == 1) {
            int i = resolve(f, name);
            cr_assert_geq(i, 0, "%s:%d: #include \"%s\" names no file of the tree", f->path,
                          f->lines, name);
            cr_assert_lt(f->ninc, MAX_INCLUDES, "%s includes too many headers", f->path);
            f->inc[f->ninc++] = i;
        }
    }
    fclose(in);
}

static void load(void)
{
    nfiles = 0;
    memset(files, 0, sizeof files);
    walk("host/");
    walk("tools/");
    walk("device/");
    for (int i = 0; i < nfiles; i++)
        scan(&files[i]);
}

TestSuite(layout, .init = load);

Test(layout, every_library_file_sits_in_a_layer)
{
    for (int i = 0; i < nfiles; i++)
        cr_assert_geq(files[i].layer, 0, "%s: not in a layer's folder (device/, host/core, "
                      "host/gpu, host/report, host/api, tools/)", files[i].path);
    cr_assert_gt(nfiles, 40, "the walk found the sources");
}

Test(layout, files_include_only_their_layer_and_below)
{
    for (int i = 0; i < nfiles; i++)
        for (int k = 0; k < files[i].ninc; k++) {
            const src *h = &files[files[i].inc[k]];
            cr_assert_leq(h->layer, files[i].layer, "%s (layer %d) includes %s (layer %d), a "
                          "layer above it", files[i].path, files[i].layer, h->path, h->layer);
            if (strncmp(files[i].path, "tools/", 6) == 0 && strncmp(h->path, "host/", 5) == 0)
                cr_assert_str_eq(h->path, TOOL_HEADER, "%s includes %s: a tool includes of "
                                 "host/ only " TOOL_HEADER, files[i].path, h->path);
        }
}

/* The modules (x.c and x.h as one) and their includes: a depth-first walk
 * that meets a module still on its path has found a cycle. */
static int state[MAX_FILES];  /* by module leader: 0 new, 1 on the path, 2 done */
static int path_of[MAX_FILES];

static int leader(int i)
{
    for (int k = 0; k < nfiles; k++)
        if (strcmp(files[k].module, files[i].module) == 0)
            return k;
    return i;
}

static void visit(int m, int depth)
{
    state[m] = 1;
    path_of[depth] = m;
    for (int i = 0; i < nfiles; i++) {
        if (leader(i) != m)
            continue;
        for (int k = 0; k < files[i].ninc; k++) {
            int to = leader(files[i].inc[k]);
            if (to == m)
                continue;
            if (state[to] == 1) {
                char cycle[2048] = "";
                int from = depth;
                while (from > 0 && path_of[from] != to)
                    from--;
                for (int j = from; j <= depth; j++) {
                    strcat(cycle, files[path_of[j]].module);
                    strcat(cycle, " -> ");
                }
                strcat(cycle, files[to].module);
                cr_assert_fail("an include cycle: %s", cycle);
            }
            if (state[to] == 0)
                visit(to, depth + 1);
        }
    }
    state[m] = 2;
}

Test(layout, no_include_cycle_among_modules)
{
    memset(state, 0, sizeof state);
    for (int i = 0; i < nfiles; i++)
        if (state[leader(i)] == 0)
            visit(leader(i), 0);
}

Test(layout, no_file_past_the_line_limit)
{
    for (int i = 0; i < nfiles; i++)
        cr_assert_leq(files[i].lines, LINE_LIMIT,
                      "%s: %d lines; a file holds one idea, which fits in %d", files[i].path,
                      files[i].lines, LINE_LIMIT);
}

Test(layout, pt_h_declares_and_its_detail_headers_refuse_direct_inclusion)
{
    static const char *const detail[] = { "pt/detail/pt_api.h", "pt/detail/pt_host_impl.h" };
    FILE *in = fopen("include/pt/pt.h", "r");
    char line[1024], cmd[512];
    int n = 0;

    cr_assert_not_null(in, "include/pt/pt.h: %s", strerror(errno));
    while (fgets(line, sizeof line, in)) {
        n++;
        cr_assert_null(strstr(line, "static inline"),
                       "include/pt/pt.h:%d: machinery belongs in pt/detail/: %s", n, line);
    }
    fclose(in);
    for (size_t i = 0; i < sizeof detail / sizeof detail[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "printf '#include <%s>\\n' | ${CC:-cc} -Iinclude -fsyntax-only -x c - 2>&1 | "
                 "grep -q 'include <pt/pt.h>'", detail[i]);
        cr_assert_eq(system(cmd), 0, "<%s> included alone does not refuse with "
                     "#error \"include <pt/pt.h>\"", detail[i]);
    }
}

/* docs/python.md installs what python/python.mk installs (its tests'
 * pytest apart), and makes the venv from the same python3. */
Test(layout, the_python_install_lines_are_the_makefiles)
{
    FILE *f = fopen("python/python.mk", "r");
    char line[512], deps[1024] = "", *doc, *apt, *end;
    int in_deps = 0;
    cr_assert_not_null(f, "python/python.mk: %s", strerror(errno));
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "PY_DEPS", 7) == 0)
            in_deps = 1;
        if (in_deps) {
            char *s = strstr(line, ":=");
            strncat(deps, s ? s + 2 : line, sizeof deps - strlen(deps) - 1);
            in_deps = strchr(line, '\\') != NULL;
        }
    }
    fclose(f);
    cr_assert(deps[0], "PY_DEPS not found in python/python.mk");
    f = fopen("docs/python.md", "r");
    cr_assert_not_null(f, "docs/python.md: %s", strerror(errno));
    doc = calloc(1, 1 << 16);
    cr_assert_not_null(doc);
    cr_assert_gt(fread(doc, 1, (1 << 16) - 1, f), 0);
    fclose(f);
    apt = strstr(doc, "apt-get install");
    cr_assert_not_null(apt, "docs/python.md has no apt-get line");
    end = strchr(apt, '\n');
    *end = '\0';
    for (char *save = NULL, *p = strtok_r(deps, " \t\\\n", &save); p;
         p = strtok_r(NULL, " \t\\\n", &save))
        if (strcmp(p, "python3-pytest") != 0)
            cr_assert(strstr(apt, p), "docs/python.md does not install %s, which "
                      "python/python.mk installs: %s", p, apt);
    *end = '\n';
    cr_assert(strstr(doc, "/usr/bin/python3 -m venv"), "the docs' venv is not Debian's python3");
    free(doc);
}
