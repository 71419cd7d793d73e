/* The layers of docs/layout.md in the calls the code makes (tests/layout.c
 * checks the includes): core -> gpu -> report -> api -> tools, each
 * calling only its own layer and the ones below it; a tool calling the
 * public API and what the one named internal header, api/tool.h, declares;
 * and no circle of library files calling each other. The calls are read
 * from the objects of this build ($PT_BUILD/obj, through nm), so a call
 * through a public header counts too. */
#define _GNU_SOURCE /* popen */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* The library's layers, lowest first; tools sit above them all. */
static const char *const layers[] = { "core", "gpu", "report", "api" };
enum { NLAYERS = 4, TOOLS = NLAYERS };

static int layer_of(const char *name, size_t len)
{
    for (int i = 0; i < NLAYERS; i++)
        if (strlen(layers[i]) == len && strncmp(name, layers[i], len) == 0)
            return i;
    return -1;
}

/* ---- calls, from the objects --------------------------------------- */

enum { MAXOBJ = 256, MAXSYM = 8192 };

typedef struct objs {
    int n;
    char name[MAXOBJ][128];   /* "core/tree", "tools/ptreport/read" */
    int rank[MAXOBJ];         /* a layer, or TOOLS */
    int nsym;
    char sym[MAXSYM][128];     /* defined symbols and where */
    int def[MAXSYM];
    int nref;
    int ref_from[4 * MAXSYM];
    char ref[4 * MAXSYM][128]; /* undefined symbols and who needs them */
} objs;

static objs O;

static int obj_index(const char *path)
{
    /* .../obj/host/core/tree.o or .../obj/tools/ptreport/read.o */
    const char *h = strstr(path, "/obj/host/"), *t = strstr(path, "/obj/tools/");
    const char *name = h ? h + strlen("/obj/host/") : t ? t + strlen("/obj/") : NULL;
    cr_assert_not_null(name, "%s", path);
    size_t len = strlen(name) - 2; /* ".o" */
    for (int i = 0; i < O.n; i++)
        if (strlen(O.name[i]) == len && strncmp(O.name[i], name, len) == 0)
            return i;
    cr_assert_lt(O.n, MAXOBJ);
    snprintf(O.name[O.n], sizeof O.name[0], "%.*s", (int)len, name);
    O.rank[O.n] = t ? TOOLS : layer_of(name, (size_t)(strchr(name, '/') - name));
    cr_assert_geq(O.rank[O.n], 0, "%s: a folder of host/ that is no layer", path);
    return O.n++;
}

static void read_objects(void)
{
    const char *b = getenv("PT_BUILD");
    char cmd[1024], line[1024];
    FILE *p;
    if (O.n)
        return;
    snprintf(cmd, sizeof cmd, "nm -A %1$s/obj/host/*/*.o %1$s/obj/tools/ptreport/*.o 2>&1",
             b ? b : "build");
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof line, p)) {
        char *colon = strstr(line, ".o:"), type, sym[128];
        if (!colon)
            continue;
        colon[2] = '\0';
        int i = obj_index(line);
        char *rest = colon + 3;
        if (sscanf(rest, "%*s %c %127s", &type, sym) == 2 && type >= 'A' && type <= 'Z' &&
            type != 'U') {
            cr_assert_lt(O.nsym, MAXSYM);
            snprintf(O.sym[O.nsym], sizeof O.sym[0], "%s", sym);
            O.def[O.nsym++] = i;
        } else if (sscanf(rest, " U %127s", sym) == 1) {
            cr_assert_lt(O.nref, 4 * MAXSYM);
            snprintf(O.ref[O.nref], sizeof O.ref[0], "%s", sym);
            O.ref_from[O.nref++] = i;
        }
    }
    pclose(p);
    cr_assert_gt(O.n, 20, "%d objects read from %s/obj: build the library and ptreport first",
                 O.n, b ? b : "build");
}

/* The object defining sym, or -1 (the C library, CUDA, ...). */
static int defined_in(const char *sym)
{
    for (int i = 0; i < O.nsym; i++)
        if (!strcmp(O.sym[i], sym))
            return O.def[i];
    return -1;
}

Test(layers, no_call_reaches_a_layer_above)
{
    read_objects();
    int bad = 0;
    char first[512] = "";
    for (int r = 0; r < O.nref; r++) {
        int from = O.ref_from[r], to = defined_in(O.ref[r]);
        if (to >= 0 && O.rank[from] < TOOLS && O.rank[to] > O.rank[from] && !bad++)
            snprintf(first, sizeof first, "%s calls %s of %s", O.name[from], O.ref[r], O.name[to]);
    }
    cr_assert_eq(bad, 0, "%d calls against the layers; first: %s", bad, first);
}

/* text with the contents of path appended (path must exist). */
static char *append_file(char *text, const char *path)
{
    char *more = test_read_file(path);
    cr_assert_not_null(more, "%s", path);
    text = realloc(text, strlen(text) + strlen(more) + 1);
    cr_assert_not_null(text);
    strcat(text, more);
    free(more);
    return text;
}

/* 1 when the identifier name stands in text, not inside a longer one. */
static int names(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += n) {
        char before = p > text ? p[-1] : ' ', after = p[n];
        if (!(before == '_' || (before >= 'a' && before <= 'z') || (before >= '0' && before <= '9')) &&
            !(after == '_' || (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9')))
            return 1;
    }
    return 0;
}

/* 1 when name is declared by the public headers (some pt__ names are,
 * for their macros), by api/tool.h or by a header it includes. */
static int tool_may_use(const char *name)
{
    static char *text;
    if (!text) {
        static const char *const pub[] = { "include/pt/pt.h", "include/pt/detail/pt_api.h",
                                           "include/pt/detail/pt_host_impl.h" };
        char *tool = test_read_file("host/api/tool.h");
        cr_assert_not_null(tool);
        text = strdup(tool);
        for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++)
            text = append_file(text, pub[i]);
        for (char *p = tool; (p = strstr(p, "#include \"")) != NULL; p++) {
            char path[256];
            const char *name0 = p + strlen("#include \""), *end = strchr(name0, '"');
            const char *slash = memchr(name0, '/', (size_t)(end - name0));
            snprintf(path, sizeof path, "%s%.*s", slash ? "host/" : "device/",
                     (int)(end - name0), name0);
            text = append_file(text, path);
        }
        free(tool);
    }
    return names(text, name);
}

Test(layers, a_tool_uses_the_public_api_and_the_tool_header_alone)
{
    read_objects();
    int tools = 0, bad = 0;
    char first[512] = "";
    for (int r = 0; r < O.nref; r++) {
        int from = O.ref_from[r], to = defined_in(O.ref[r]);
        if (O.rank[from] != TOOLS)
            continue;
        tools++;
        if (to < 0 || O.rank[to] == TOOLS || strncmp(O.ref[r], "pt__", 4) != 0)
            continue; /* the C library, the tool's own, or public */
        if (!tool_may_use(O.ref[r]) && !bad++)
            snprintf(first, sizeof first, "%s calls %s of %s, which api/tool.h does not declare",
                     O.name[from], O.ref[r], O.name[to]);
    }
    cr_assert_gt(tools, 0, "no tool object read (ptreport not built?)");
    cr_assert_eq(bad, 0, "%d internal calls outside api/tool.h; first: %s", bad, first);
}

/* Depth-first search for a circle among the library's objects. */
static int color[MAXOBJ], parent[MAXOBJ];

static int circle_from(int v, char *out, size_t n)
{
    color[v] = 1;
    for (int r = 0; r < O.nref; r++) {
        if (O.ref_from[r] != v)
            continue;
        int w = defined_in(O.ref[r]);
        if (w < 0 || w == v || O.rank[w] == TOOLS)
            continue;
        if (color[w] == 1) {
            size_t len = (size_t)snprintf(out, n, "%s", O.name[w]);
            for (int u = v; u != w && u >= 0 && len < n; u = parent[u])
                len += (size_t)snprintf(out + len, n - len, " <- %s", O.name[u]);
            return 1;
        }
        if (color[w] == 0) {
            parent[w] = v;
            if (circle_from(w, out, n))
                return 1;
        }
    }
    color[v] = 2;
    return 0;
}

Test(layers, no_circle_of_library_files)
{
    char circle[2048] = "";
    read_objects();
    memset(color, 0, sizeof color);
    for (int v = 0; v < O.n; v++) {
        if (O.rank[v] == TOOLS || color[v])
            continue;
        parent[v] = -1;
        cr_assert_not(circle_from(v, circle, sizeof circle), "files that call each other: %s",
                      circle);
    }
}
