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
    "\n"
    "  line        = [blanks] [name [blanks description]] [blanks] [comment]\n"
    "  name        = [A-Za-z_][A-Za-z0-9_]*\n"
    "  description = '\"' { char other than '\"' and '\\' | '\\\"' | '\\\\' } '\"'\n"
    "              | text without '#'\n"
    "  comment     = '#' text\n"
    "\n"
    "Names become enum members as PREFIX + NAME in upper case, so they must\n"
    "differ ignoring case, and COUNT and LIST are reserved. Blank lines are\n"
    "ignored. Lines end with LF or CRLF and hold at most 1023 bytes; control\n"
    "characters other than tab are refused. A list has 1 to 256 phases.\n"
    "\n"
    "The header (no #include in it) defines:\n"
    "  enum NAME_phase { PREFIX<NAME> = 0, ... };\n"
    "  #define PREFIXCOUNT n                      the number of phases\n"
    "  #define PREFIXLIST(X)                      X(member, index, \"name\", \"description\")\n"
    "                                             for each phase\n"
    "  NAME_phase_names[], NAME_phase_descs[]     static const char *const arrays,\n"
    "                                             left out under NVRTC\n"
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
} phase;

typedef struct parser {
    const char *file;
    const char *prefix;
    phase list[PTGEN_MAX_PHASES];
    int count;
} parser;

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

/* One line, without its newline. Returns 0, or -1 after an error message. */
static int parse_line(parser *ps, const char *s, size_t n, int line)
{
    size_t i = 0, start;
    char *desc;
    phase *ph;

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
            fail(ps, line, "invalid phase name '%s': a name is a C identifier", shown);
            free(name);
            return -1;
        }
        if (ps->count == PTGEN_MAX_PHASES) {
            free(name);
            return fail(ps, line, "more than %d phases", PTGEN_MAX_PHASES);
        }
        ph = &ps->list[ps->count];
        ph->name = name;
        ph->upper = upper_dup(name);
        ph->desc = NULL;
        ph->line = line;
        ps->count++; /* owned by the list from here, freed with it */
        if (!ph->upper)
            return fail(ps, line, "out of memory");
    }
    if (strcmp(ph->upper, "COUNT") == 0 || strcmp(ph->upper, "LIST") == 0)
        return fail(ps, line, "phase name '%s' is reserved: the header defines %s%s", ph->name,
                    ps->prefix, ph->upper);
    if (reserved_by_ptkit(ps->prefix, ph->upper))
        return fail(ps, line, "phase name '%s' makes %s%s, a name ptkit's headers define, whose "
                    "macro would replace the phase; rename it or choose another --prefix",
                    ph->name, ps->prefix, ph->upper);
    for (int k = 0; k < ps->count - 1; k++) {
        if (strcmp(ps->list[k].upper, ph->upper) == 0) {
            return fail(ps, line, "duplicate phase '%s' (first on line %d)", ph->name,
                        ps->list[k].line);
        }
    }

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
    for (int i = 0; i < ps->count; i++) {
        free(ps->list[i].name);
        free(ps->list[i].upper);
        free(ps->list[i].desc);
    }
    ps->count = 0;
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
    return 0;
}

/* A C string literal's body: quotes and backslashes escaped, '?' escaped
 * so no trigraph can form, anything unprintable in octal. */
static void put_c_string(gen_buf *b, const char *s)
{
    gen_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?') {
            char e[3] = { '\\', (char)c, '\0' };
            gen_puts(b, e);
        } else if (c < 0x20 || c == 0x7f) {
            gen_printf(b, "\\%03o", c);
        } else {
            gen_putn(b, (const char *)&c, 1);
        }
    }
    gen_puts(b, "\"");
}

/* Text inside a comment: nothing may end the comment, open a nested one or
 * form a trigraph, so those two-character sequences are broken up. */
static void put_comment_text(gen_buf *b, const char *s)
{
    for (; *s; s++) {
        /* A path may hold anything; a newline would end the comment's line. */
        gen_putn(b, (unsigned char)*s < 0x20 ? " " : s, 1);
        if ((s[0] == '*' && s[1] == '/') || (s[0] == '?' && s[1] == '?') ||
            (s[0] == '/' && s[1] == '*'))
            gen_puts(b, " ");
    }
}

static void generate(gen_buf *b, const parser *ps, const char *prefix, const char *name,
                     const char *input)
{
    char *guard = upper_dup(name);
    int n = ps->count;

    gen_puts(b, "/* Generated by ptgen from ");
    put_comment_text(b, input);
    gen_puts(b, ". Do not edit: change the phase list and run ptgen again.\n"
                " * No system header is included, so NVRTC programs can use it too. */\n");
    gen_printf(b, "#ifndef PT_PHASES_%s_H\n#define PT_PHASES_%s_H\n\n", guard ? guard : "X",
               guard ? guard : "X");
    free(guard);

    gen_printf(b, "/** \\brief The phases of %s, for PT_DEV_MARK(). */\n", name);
    gen_printf(b, "enum %s_phase {\n", name);
    for (int i = 0; i < n; i++) {
        gen_printf(b, "    %s", prefix);
        gen_printf(b, "%s = %d,", ps->list[i].upper, i);
        if (ps->list[i].desc[0]) {
            gen_puts(b, " /**< ");
            put_comment_text(b, ps->list[i].desc);
            gen_puts(b, " */");
        }
        gen_puts(b, "\n");
    }
    gen_puts(b, "};\n\n");

    gen_printf(b, "/** The number of phases: the nphases of pt_dev_records_create(). */\n"
                  "#define %sCOUNT %d\n\n", prefix, n);

    gen_printf(b, "/** Every phase as X(member, index, \"name\", \"description\"). */\n"
                  "#define %sLIST(X) \\\n", prefix);
    for (int i = 0; i < n; i++) {
        gen_printf(b, "    X(%s", prefix);
        gen_printf(b, "%s, %d, ", ps->list[i].upper, i);
        put_c_string(b, ps->list[i].name);
        gen_puts(b, ", ");
        put_c_string(b, ps->list[i].desc);
        gen_puts(b, i + 1 < n ? ") \\\n" : ")\n\n");
    }

    /* pt_dev.h keeps PT_DEV_MAX_PHASES accumulators per thread, 16 unless
     * defined. A longer list raises it when this header comes first; when
     * pt_dev.h (or another list) already fixed a smaller value, a mark of
     * the last phases would only count as bad at run time, so the build
     * stops instead. */
    gen_puts(b, "/* pt_dev.h records phases below PT_DEV_MAX_PHASES (16 unless defined). */\n");
    if (n > 16)
        gen_printf(b, "#if !defined(PT_DEV_MAX_PHASES)\n#  define PT_DEV_MAX_PHASES %d\n"
                      "#elif PT_DEV_MAX_PHASES < %d\n", n, n);
    else
        gen_printf(b, "#if defined(PT_DEV_MAX_PHASES) && PT_DEV_MAX_PHASES < %d\n", n);
    gen_printf(b, "#  error \"%s has %d phases: define PT_DEV_MAX_PHASES to at least %d before "
                  "including <pt/pt_dev.h> and this header\"\n#endif\n", name, n, n);
    /* PT_DEV_PHASES is what the marks, BEGIN and END read where they
     * stand: the kernel's real count, so END writes n pairs, not the
     * default's 16. It replaces pt_dev.h's default whatever the order of the
     * includes, and only rises, so with two lists it is the longer's count. */
    gen_printf(b, "#if !defined(PT_DEV_PHASES) || defined(PT__DEV_PHASES_DEFAULT) || "
                  "PT_DEV_PHASES < %d\n"
                  "#  undef PT__DEV_PHASES_DEFAULT\n#  undef PT_DEV_PHASES\n"
                  "#  define PT_DEV_PHASES %d\n#endif\n\n", n, n);

    /* Host code reads the names; NVRTC programs are device code only, so
     * the arrays (host variables) are left out there. */
    gen_puts(b, "#if !defined(__CUDACC_RTC__)\n"
                "#  if defined(__GNUC__) || defined(__clang__)\n"
                "#    define PT_PHASES_UNUSED_ __attribute__((unused))\n"
                "#  else\n"
                "#    define PT_PHASES_UNUSED_\n"
                "#  endif\n");
    gen_printf(b, "/** The phase names, as in the list; pt_dev_records_create()'s names. */\n"
                  "static const char *const %s_phase_names[%sCOUNT] PT_PHASES_UNUSED_ = {\n",
               name, prefix);
    for (int i = 0; i < n; i++) {
        gen_puts(b, "    ");
        put_c_string(b, ps->list[i].name);
        gen_puts(b, ",\n");
    }
    gen_puts(b, "};\n");
    gen_printf(b, "/** The phase descriptions (\"\" where the list gives none). */\n"
                  "static const char *const %s_phase_descs[%sCOUNT] PT_PHASES_UNUSED_ = {\n",
               name, prefix);
    for (int i = 0; i < n; i++) {
        gen_puts(b, "    ");
        put_c_string(b, ps->list[i].desc);
        gen_puts(b, ",\n");
    }
    gen_puts(b, "};\n#  undef PT_PHASES_UNUSED_\n#endif\n\n#endif\n");
}

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
