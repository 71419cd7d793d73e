/* See kstat.h. The cubin is read as the ELF64 file it is: the section
 * headers, their names, and the .text.<kernel> section's bytes. */
#include "kstat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char entry_tag[] = "Compiling entry function '";

int kstat_ptxas_next(const char *report, size_t *pos, char *name, size_t size)
{
    const char *p = strstr(report + *pos, entry_tag);
    size_t n;
    if (!p)
        return 0;
    p += strlen(entry_tag);
    n = strcspn(p, "'");
    snprintf(name, size, "%.*s", (int)n, p);
    *pos = (size_t)(p - report) + n;
    return 1;
}

int kstat_ptxas(const char *report, const char *kernel, kstat_regs *out)
{
    size_t pos = 0;
    char name[512];
    while (kstat_ptxas_next(report, &pos, name, sizeof name)) {
        const char *p = report + pos, *next = strstr(p, entry_tag);
        const char *props = strstr(p, "bytes stack frame"), *used = strstr(p, "Used ");
        if (strcmp(name, kernel) != 0)
            continue;
        if (!props || !used || (next && (props > next || used > next)))
            return -1;
        while (props > p && props[-1] != '\n')
            props--;
        if (sscanf(props, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                   &out->stack, &out->spill_stores, &out->spill_loads) != 3 ||
            sscanf(used, "Used %d registers", &out->regs) != 1)
            return -1;
        const char *eol = strchr(used, '\n'), *sm = strstr(used, " bytes smem");
        out->smem = 0;
        if (sm && (!eol || sm < eol)) {
            while (sm > used && sm[-1] >= '0' && sm[-1] <= '9')
                sm--;
            out->smem = atoi(sm);
        }
        return 0;
    }
    return -1;
}

int kstat_ptxas_arch(const char *report, const char *kernel, const char *arch, kstat_regs *out)
{
    char want[600];
    const char *p;
    snprintf(want, sizeof want, "Compiling entry function '%s' for '%s'", kernel, arch);
    p = strstr(report, want);
    /* From there on, so that kstat_ptxas meets this entry first. */
    return p ? kstat_ptxas(p, kernel, out) : -1;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

unsigned char *kstat_text(const char *cubin_path, const char *kernel, size_t *n)
{
    FILE *f = fopen(cubin_path, "rb");
    unsigned char *d = NULL, *out = NULL;
    long size;
    char want[512];

    snprintf(want, sizeof want, ".text.%s", kernel);
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0x40 && fseek(f, 0, SEEK_SET) == 0 &&
        (d = malloc((size_t)size)) != NULL && fread(d, 1, (size_t)size, f) == (size_t)size &&
        memcmp(d, "\177ELF", 4) == 0 && d[4] == 2 /* ELF64 */) {
        uint64_t shoff = le(d + 0x28, 8);
        unsigned shentsize = (unsigned)le(d + 0x3a, 2), shnum = (unsigned)le(d + 0x3c, 2),
                 shstrndx = (unsigned)le(d + 0x3e, 2);
        if (shoff + (uint64_t)shnum * shentsize <= (uint64_t)size && shstrndx < shnum) {
            const unsigned char *strh = d + shoff + (uint64_t)shstrndx * shentsize;
            uint64_t stroff = le(strh + 0x18, 8);
            for (unsigned i = 0; i < shnum && !out; i++) {
                const unsigned char *h = d + shoff + (uint64_t)i * shentsize;
                uint64_t nm = stroff + le(h, 4), off = le(h + 0x18, 8), sz = le(h + 0x20, 8);
                if (nm >= (uint64_t)size || off + sz > (uint64_t)size)
                    continue;
                if (strnlen((const char *)d + nm, (size_t)((uint64_t)size - nm)) ==
                        strlen(want) &&
                    strcmp((const char *)d + nm, want) == 0 && (out = malloc(sz ? sz : 1))) {
                    memcpy(out, d + off, sz);
                    *n = (size_t)sz;
                }
            }
        }
    }
    free(d);
    fclose(f);
    return out;
}

long kstat_code(const char *cubin_path, const char *kernel)
{
    /* sm_70 and later: NOP is this one encoding; the code ends with a
     * branch to itself (BRA, offset -16), then NOPs to the alignment. */
    static const unsigned char nop[16] = { 0x18, 0x79, 0, 0, 0, 0, 0, 0,
                                           0,    0,    0, 0, 0, 0xc0, 0x0f, 0 };
    size_t n = 0, k;
    unsigned char *t = kstat_text(cubin_path, kernel, &n);
    if (!t)
        return -1;
    k = n / 16;
    while (k > 0 && memcmp(t + 16 * (k - 1), nop, 16) == 0)
        k--;
    if (k > 0) {
        const unsigned char *b = t + 16 * (k - 1);
        if (b[0] == 0x47 && b[1] == 0x79 && b[4] == 0xfc && b[5] == 0xff && b[6] == 0xff &&
            b[7] == 0xff)
            k--;
    }
    free(t);
    return (long)k;
}

const char *kstat_ptx_entry(const char *ptx, const char *kernel, size_t *len)
{
    size_t kl = strlen(kernel);
    for (const char *p = ptx; (p = strstr(p, ".entry ")) != NULL; p += 7) {
        const char *name = p + 7, *next;
        if (strncmp(name, kernel, kl) != 0 || strchr("( \n", name[kl]) == NULL)
            continue;
        next = strstr(name, ".entry ");
        *len = next ? (size_t)(next - p) : strlen(p);
        return p;
    }
    return NULL;
}

int kstat_count(const char *s, size_t len, const char *needle)
{
    int n = 0;
    size_t nl = strlen(needle);
    for (const char *p = s, *end = s + len; (p = strstr(p, needle)) != NULL && p + nl <= end;
         p += nl)
        n++;
    return n;
}

int kstat_ptx_ops(const char *s, size_t len, const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);
    const char *end = s + len;
    for (const char *line = s; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *t = line + strspn(line, " \t");
        if (*t == '@') /* a predicate: @%p1 or @!%p1 */
            t += strcspn(t, " \t"), t += strspn(t, " \t");
        if ((size_t)(end - t) >= pl && strncmp(t, prefix, pl) == 0)
            n++;
        line = nl ? nl + 1 : end;
    }
    return n;
}

char *kstat_ptx_code(const char *ptx)
{
    char *out = malloc(strlen(ptx) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *line = ptx; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        const char *t = line + strspn(line, " \t");
        if (strncmp(t, "//", 2) != 0 && strncmp(t, ".file", 5) != 0) {
            memcpy(o, line, len);
            o += len;
        }
        line += len;
    }
    *o = '\0';
    return out;
}

/* Whether s[0..n) holds the 4 bytes of w. */
static int holds4(const char *s, size_t n, const char *w)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(s + i, w, 4) == 0)
            return 1;
    return 0;
}

char *kstat_ptx_float_ops(const char *ptx, size_t len)
{
    static const char *const ops[] = { "fma.", "mul.", "add.", "sub.", "div.", "rcp.", "sqrt.",
                                       "rsqrt.", "ex2.", "lg2.", "sin.", "cos.", "tanh.",
                                       "max.", "min.", "neg.", "abs.", "cvt.", "testp." };
    char *out = malloc(len + 1), *o = out;
    const char *end = ptx + len;

    if (!out)
        return NULL;
    for (const char *line = ptx; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *t = line + strspn(line, " \t"), *stop = nl ? nl : end;
        size_t tl;
        if (*t == '@') /* a predicate: @%p1 or @!%p1 */
            t += strcspn(t, " \t"), t += strspn(t, " \t");
        tl = strcspn(t, " \t\n;");
        for (size_t i = 0; i < sizeof ops / sizeof ops[0] && t < stop; i++) {
            size_t ol = strlen(ops[i]);
            if (tl > ol && strncmp(t, ops[i], ol) == 0 &&
                (holds4(t, tl, ".f32") || holds4(t, tl, ".f64") || holds4(t, tl, ".f16"))) {
                memcpy(o, t, tl);
                o += tl;
                *o++ = '\n';
                break;
            }
        }
        line = nl ? nl + 1 : end;
    }
    *o = '\0';
    return out;
}
