/* ptgen: a phase list becomes a header that kernels (nvcc, NVRTC) and host
 * code share: an enum of phases for PT_DEV_MARK(), their count for
 * pt_dev_records_create(), and their names and descriptions for reports.
 * The whole input is checked before anything is written, and the header
 * is written through a temporary file, so a bad list leaves no output. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_out.h"

#define PTGEN_MAX_PHASES 256  /* more than any kernel keeps in registers */
#define PTGEN_MAX_LINE   1023 /* bytes per line, newline not counted */
#define PTGEN_MAX_BYTES  (1u << 22) /* a list's bytes, comments and blank lines too: 4 MiB */

static const char usage_text[] =
    "usage: ptgen PHASES.txt -o PHASES.h [--prefix PH_] [--name NAME]\n"
    "\n"
    "Turns a phase list into a C header shared by <pt/pt_dev.h> kernels (nvcc,\n"
    "NVRTC) and host code.\n"
    "\n"
    "  -o FILE        the header to write ('-': standard output)\n"
    "  --prefix P     prefix of the enum members and macros (default PH_)\n"
    "  --name NAME    names the enum (NAME_phase), the arrays (NAME_phase_names,\n"
    "                 NAME_phase_descs) and the include guard; default: the\n"
    "                 output file's base name (\"phases\" for standard output)\n"
    "  -h, --help     this text\n"
    "\n"
    "The list: one phase per line, in order (the first is phase 0).\n"
    "\n"
    "  # a comment ('#' outside quotes starts a comment to the end of the line)\n"
    "  angular                         a name alone\n"
    "  energy   Energy loss step       a name, blanks, then a description up to\n"
    "                                  '#' or the end of the line, blanks trimmed\n"
    "  stream   \"Streaming #2, \\\"x\\\"\"  a quoted description keeps '#'; inside\n"
    "                                  quotes \\\" and \\\\ are the only escapes\n"
    "  [wait] full   Waiting           a phase that is a wait (for a barrier, a\n"
    "                                  stage, a load): pt_dev_records_waits()\n"
    "  [span] load   TMA in flight     a span kind, no phase, for\n"
    "                                  PT_DEV_SPAN_BEGIN/END\n"
    "\n"
    "  line        = [blanks] [[tag blanks] name [blanks description]] [blanks] [comment]\n"
    "  tag         = '[wait]' | '[span]'\n"
    "  name        = [A-Za-z_][A-Za-z0-9_]*\n"
    "  description = '\"' { char other than '\"' and '\\' | '\\\"' | '\\\\' } '\"'\n"
    "              | text without '#'\n"
    "  comment     = '#' text\n"
    "\n"
    "Names become enum members as PREFIX + NAME in upper case (span kinds as\n"
    "PREFIX + SPAN_ + NAME), so they must differ ignoring case, and COUNT,\n"
    "LIST, WAIT_COUNT and SPAN_COUNT are reserved. Blank lines are\n"
    "ignored. Lines end with LF or CRLF and hold at most 1023 bytes; control\n"
    "characters other than tab are refused. A list has 1 to 256 phases and\n"
    "at most 256 span kinds.\n"
    "\n"
    "The header (no #include in it) defines:\n"
    "  enum NAME_phase { PREFIX<NAME> = 0, ... };\n"
    "  #define PREFIXCOUNT n                      the number of phases\n"
    "  #define PREFIXLIST(X)                      X(member, index, \"name\", \"description\")\n"
    "                                             for each phase\n"
    "  #define PREFIXWAIT_COUNT k                 the phases tagged [wait]\n"
    "  enum NAME_span { PREFIXSPAN_<NAME> = 0, ... };  #define PREFIXSPAN_COUNT m\n"
    "                                             when the list names span kinds\n"
    "  NAME_phase_names[], NAME_phase_descs[]     static const char *const arrays,\n"
    "                                             left out under NVRTC; with them\n"
    "  NAME_phase_waits[] (int, when k > 0)       for pt_dev_records_waits()\n"
    "  NAME_span_names[] (when m > 0)             for pt_dev_records_spans()\n"
    "and PT_DEV_PHASES, the phases pt_dev.h's marks, BEGIN and END use, to n\n"
    "(or the larger count of another list); for more than 16 phases also\n"
    "PT_DEV_MAX_PHASES to n when it is not yet defined; when it is defined\n"
    "smaller, the header stops the build (#error).\n"
    "\n"
    "Errors are reported as FILE:LINE: message; the exit status is then 1 and\n"
    "no output file is written (2 for a usage error).\n";

typedef struct phase {
    char *name;  /* as written */
    char *upper; /* the enum suffix */
    char *desc;  /* unescaped, "" when none */
    int line;
    int wait;    /* a phase tagged [wait] */
} phase;

typedef struct parser {
    const char *file;
    const char *prefix;
    phase list[PTGEN_MAX_PHASES];
    int count;
    phase spans[PTGEN_MAX_PHASES]; /* the span kinds, tagged [span] */
    int nspans;
} parser;

/* What a line declares: a phase, a phase that is a wait, a span kind. */
enum { PH_PHASE, PH_WAIT, PH_SPAN };

static int is_ident_start(int c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || !is_ident_start((unsigned char)s[0]))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_ident_start((unsigned char)s[i]) && !(s[i] >= '0' && s[i] <= '9'))
            return 0;
    return 1;
}

static int is_blank(int c)
{
    return c == ' ' || c == '\t';
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static char *upper_dup(const char *s)
{
    char *p = dup_n(s, strlen(s));
    for (char *q = p; q && *q; q++)
        *q = (char)toupper((unsigned char)*q);
    return p;
}

static int fail(const parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Every error names the file and line it is about, as compilers do. The
 * fuzz target (tests/fuzz/), built with PTGEN_FUZZ, formats the message
 * but prints nothing, so millions of bad inputs do not flood its log. */
static int fail(const parser *ps, int line, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
#ifndef PTGEN_FUZZ
    fprintf(stderr, "%s:%d: %s\n", ps->file, line, msg);
#else
    (void)ps;
    (void)line;
#endif
    return -1;
}

/* s[0..n) for a message, every byte that is not printable ASCII as \xNN
 * (a byte-order mark or a stray control character would hide in the
 * terminal), cut with "..." to fit out. */
static void visible(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (k + 8 > cap) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    }
    out[k] = '\0';
}

/* ptkit's own PT_ names (generated from its headers, sorted). */
static const char *const reserved[] = {
#include "pt_reserved.h"
};

static int by_name(const void *key, const void *item)
{
    return strcmp((const char *)key, *(const char *const *)item);
}

/* 1 when prefix + upper is one of ptkit's names, or in its internal
 * PT__ namespace: the whole name is what the preprocessor sees, however
 * it is split between prefix and phase ("PT" + "_DEV_MARK"). */
static int reserved_by_ptkit(const char *prefix, const char *upper)
{
    char full[2 * PTGEN_MAX_LINE + 2];
    snprintf(full, sizeof full, "%s%s", prefix, upper);
    if (strncmp(full, "PT__", 4) == 0)
        return 1;
    return bsearch(full, reserved, sizeof reserved / sizeof *reserved, sizeof *reserved,
                   by_name) != NULL;
}

/* The line's tag, s[*i] being '[': PH_PHASE is none; *i then stands on
 * the name after it. Returns the tag, or -1 after an error message. */
static int parse_tag(parser *ps, const char *s, size_t n, size_t *i, int line)
{
    size_t e = *i + 1;
    int tag;

    while (e < n && s[e] != ']' && s[e] != '#' && !is_blank(s[e]))
        e++;
    if (e == n || s[e] != ']')
        return fail(ps, line, "a tag is one word in brackets: [wait] or [span]");
    if (e - *i - 1 == 4 && memcmp(s + *i + 1, "wait", 4) == 0)
        tag = PH_WAIT;
    else if (e - *i - 1 == 4 && memcmp(s + *i + 1, "span", 4) == 0)
        tag = PH_SPAN;
    else {
        char shown[4 * 64 + 8];
        visible(shown, sizeof shown, s + *i, e + 1 - *i);
        return fail(ps, line, "unknown tag '%s': [wait] marks a phase that is a wait, [span] "
                    "names a span kind", shown);
    }
    *i = e + 1;
    if (*i == n || !is_blank(s[*i]))
        return fail(ps, line, "a name follows the tag, after a blank");
    while (*i < n && is_blank(s[*i]))
        (*i)++;
    if (*i == n || s[*i] == '#')
        return fail(ps, line, "a tag without a name");
    return tag;
}

/* The checks on a name new to its list: a phase's enum member is
 * PREFIX + NAME, a span kind's PREFIX + SPAN_ + NAME. */
static int check_name(parser *ps, const phase *ph, int tag, int line)
{
    const phase *v = tag == PH_SPAN ? ps->spans : ps->list;
    int n = tag == PH_SPAN ? ps->nspans : ps->count;
    const char *what = tag == PH_SPAN ? "span kind" : "phase";
    char member[PTGEN_MAX_LINE + 8];

    snprintf(member, sizeof member, "%s%s", tag == PH_SPAN ? "SPAN_" : "", ph->upper);
    if (strcmp(member, "COUNT") == 0 || strcmp(member, "LIST") == 0 ||
        strcmp(member, "WAIT_COUNT") == 0 || strcmp(member, "SPAN_COUNT") == 0)
        return fail(ps, line, "%s name '%s' is reserved: the header defines %s%s", what, ph->name,
                    ps->prefix, member);
    if (reserved_by_ptkit(ps->prefix, member))
        return fail(ps, line, "%s name '%s' makes %s%s, a name ptkit's headers define, whose "
                    "macro would replace it; rename it or choose another --prefix",
                    what, ph->name, ps->prefix, member);
    for (int k = 0; k < n - 1; k++)
        if (strcmp(v[k].upper, ph->upper) == 0)
            return fail(ps, line, "duplicate %s '%s' (first on line %d)", what, ph->name,
                        v[k].line);
    return 0;
}

/* One line, without its newline. Returns 0, or -1 after an error message. */
static int parse_line(parser *ps, const char *s, size_t n, int line)
{
    size_t i = 0, start;
    char *desc;
    phase *ph;
    int tag = PH_PHASE;

    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n > PTGEN_MAX_LINE)
        return fail(ps, line, "line longer than %d bytes", PTGEN_MAX_LINE);
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail(ps, line, "control character in line");
    }
    while (i < n && is_blank(s[i]))
        i++;
    if (i == n || s[i] == '#')
        return 0;
    if (s[i] == '[' && (tag = parse_tag(ps, s, n, &i, line)) < 0)
        return -1;

    start = i;
    while (i < n && !is_blank(s[i]) && s[i] != '#')
        i++;
    {
        char *name = dup_n(s + start, i - start);
        if (!name)
            return fail(ps, line, "out of memory");
        if (!is_ident(name, i - start)) {
            char shown[4 * 64 + 8];
            visible(shown, sizeof shown, name, i - start);
            fail(ps, line, "invalid %s name '%s': a name is a C identifier",
                 tag == PH_SPAN ? "span kind" : "phase", shown);
            free(name);
            return -1;
        }
        if ((tag == PH_SPAN ? ps->nspans : ps->count) == PTGEN_MAX_PHASES) {
            free(name);
            return fail(ps, line, "more than %d %s", PTGEN_MAX_PHASES,
                        tag == PH_SPAN ? "span kinds" : "phases");
        }
        ph = tag == PH_SPAN ? &ps->spans[ps->nspans++] : &ps->list[ps->count++];
        /* owned by the list from here, freed with it */
        ph->name = name;
        ph->upper = upper_dup(name);
        ph->desc = NULL;
        ph->line = line;
        ph->wait = tag == PH_WAIT;
        if (!ph->upper)
            return fail(ps, line, "out of memory");
    }
    if (check_name(ps, ph, tag, line) < 0)
        return -1;

    while (i < n && is_blank(s[i]))
        i++;
    desc = malloc(n - i + 1);
    if (!desc)
        return fail(ps, line, "out of memory");
    ph->desc = desc;
    if (i < n && s[i] == '"') {
        size_t d = 0;
        i++;
        for (;;) {
            if (i == n)
                return fail(ps, line, "unterminated quoted description");
            if (s[i] == '"')
                break;
            if (s[i] == '\\') {
                if (i + 1 == n)
                    return fail(ps, line, "unterminated quoted description");
                if (s[i + 1] != '"' && s[i + 1] != '\\') {
                    char esc[3] = { '\\', s[i + 1], '\0' };
                    return fail(ps, line, "unknown escape '%s' in description (only \\\" and \\\\)", esc);
                }
                i++;
            }
            desc[d++] = s[i++];
        }
        desc[d] = '\0';
        i++;
        while (i < n && is_blank(s[i]))
            i++;
        if (i < n && s[i] != '#')
            return fail(ps, line, "unexpected text after the quoted description");
    } else {
        size_t e = i;
        while (e < n && s[e] != '#')
            e++;
        while (e > i && is_blank(s[e - 1]))
            e--;
        memcpy(desc, s + i, e - i);
        desc[e - i] = '\0';
    }
    return 0;
}

static void parser_free(parser *ps)
{
    for (int i = 0; i < ps->count + ps->nspans; i++) {
        phase *ph = i < ps->count ? &ps->list[i] : &ps->spans[i - ps->count];
        free(ph->name);
        free(ph->upper);
        free(ph->desc);
    }
    ps->count = ps->nspans = 0;
}

/* The whole list, from memory (a file's text, or a fuzzer's input). */
static int parse(parser *ps, const char *text, size_t len)
{
    size_t pos = 0;
    int line = 0;

    /* Editors may start a UTF-8 file with a byte-order mark: it is no part
     * of the first name. */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        pos = 3;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        line++;
        if (memchr(text + pos, '\0', end - pos))
            return fail(ps, line, "NUL byte in line");
        if (parse_line(ps, text + pos, end - pos, line) != 0)
            return -1;
        pos = end + 1;
    }
    if (ps->count == 0)
        return fail(ps, line > 0 ? line : 1, "empty phase list: no phase is named");
    /* A phase SPAN_X and a span kind X make one enum member. */
    for (int k = 0; k < ps->nspans; k++)
        for (int p = 0; p < ps->count; p++)
            if (strncmp(ps->list[p].upper, "SPAN_", 5) == 0 &&
                strcmp(ps->list[p].upper + 5, ps->spans[k].upper) == 0)
                return fail(ps, ps->list[p].line > ps->spans[k].line ? ps->list[p].line
                                                                      : ps->spans[k].line,
                            "phase '%s' (line %d) and span kind '%s' (line %d) both make %sSPAN_%s",
                            ps->list[p].name, ps->list[p].line, ps->spans[k].name,
                            ps->spans[k].line, ps->prefix, ps->spans[k].upper);
    return 0;
}

#include "ptgen_write.h"

/* The default --name: the output's base name up to its first '.', made an
 * identifier. */
static char *default_name(const char *out)
{
    const char *base = strrchr(out, '/');
    size_t n;
    char *s;

    base = base ? base + 1 : out;
    if (strcmp(out, "-") == 0 || !*base)
        base = "phases";
    n = strcspn(base, ".");
    if (n == 0)
        base = "phases", n = strlen(base);
    s = malloc(n + 2);
    if (!s)
        return NULL;
    size_t j = 0;
    if (base[0] >= '0' && base[0] <= '9')
        s[j++] = '_';
    for (size_t i = 0; i < n; i++)
        s[j++] = is_ident_start((unsigned char)base[i]) || (base[i] >= '0' && base[i] <= '9')
                     ? base[i] : '_';
    s[j] = '\0';
    return s;
}

#ifndef PTGEN_FUZZ
int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *prefix = "PH_", *name_arg = NULL;
    char *text, *name;
    size_t len;
    parser *ps;
    gen_buf b = { 0 };
    int rc;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--prefix") == 0 && i + 1 < argc) {
            prefix = argv[++i];
        } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
            name_arg = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "ptgen: unknown option or missing value: %s\n\n%s", a, usage_text);
            return 2;
        } else if (!in) {
            in = a;
        } else {
            fprintf(stderr, "ptgen: one phase list at a time (got %s and %s)\n", in, a);
            return 2;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "ptgen: %s\n\n%s", !in ? "no phase list given" : "no -o given", usage_text);
        return 2;
    }
    if (!is_ident(prefix, strlen(prefix))) {
        fprintf(stderr, "ptgen: --prefix '%s' is not the start of a C identifier\n", prefix);
        return 2;
    }
    name = name_arg ? dup_n(name_arg, strlen(name_arg)) : default_name(out);
    if (!name) {
        fprintf(stderr, "ptgen: out of memory\n");
        return 1;
    }
    if (!is_ident(name, strlen(name))) {
        fprintf(stderr, "ptgen: --name '%s' is not a C identifier\n", name);
        free(name);
        return 2;
    }

    /* Writing over the phase list would lose it. */
    if (strcmp(in, "-") != 0 && strcmp(out, "-") != 0) {
        struct stat si, so;
        if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
            si.st_ino == so.st_ino) {
            fprintf(stderr, "ptgen: -o %s is the phase list itself; name another file\n", out);
            free(name);
            return 2;
        }
    }
        text = gen_read("ptgen", in, PTGEN_MAX_BYTES, &len);
    ps = calloc(1, sizeof *ps);
    if (!text || !ps) {
        if (!ps)
            fprintf(stderr, "ptgen: out of memory\n");
        free(text);
        free(ps);
        free(name);
        return 1;
    }
    ps->file = strcmp(in, "-") == 0 ? "<stdin>" : in;
    ps->prefix = prefix;
    rc = parse(ps, text, len);
    if (rc == 0) {
        generate(&b, ps, prefix, name, ps->file);
        rc = gen_write(&b, "ptgen", out);
    }
    parser_free(ps);
    free(ps);
    free(text);
    free(name);
    free(b.p);
    return rc == 0 ? 0 : 1;
}
#endif
