/* libFuzzer target: PT_OUTPUT, the environment variable a user (or a
 * hostile launcher) sets. The input is "NAME\nSPEC": a timing called NAME
 * claims SPEC's files (pt__output_init: kinds, paths, templates such as
 * %n and %p, one path for two kinds, folders), then lets them go
 * unwritten (pt__output_drop), so nothing is written wherever the input
 * points. Whatever the bytes, nothing crashes or leaks, and:
 *   - pt__output_flags() reads the variable back as it was set;
 *   - every claim is let go: a second timing of the same name claiming
 *     the same SPEC afterwards is given the same files, never "NAME-2"
 *     (which it would be while the first still held them, said as a
 *     note): both count the same errors and notes.
 * The messages pt__output_init says on stderr are sent to /dev/null
 * around each call (libFuzzer's own reports are unaffected). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/timing.h"
#include "report/output.h"

#define FUZZ_NAME "fuzz_output"
#include "fuzz_common.h"

static int devnull = -1;

/* Runs init (and drop) with stderr silenced. */
static void claim_and_drop(pt_timing *t, const char *spec)
{
    int saved = dup(2);
    if (devnull >= 0)
        dup2(devnull, 2);
    pt__output_init(t, spec);
    pt__output_drop(t);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1), *spec, *name;
    const char *got = NULL;
    uint64_t errors[2], notes[2];
    pt_timing *t[2];

    if (!in)
        return 0;
    if (devnull < 0)
        devnull = open("/dev/null", O_WRONLY);
    memcpy(in, data, size);
    in[size] = '\0';
    spec = strchr(in, '\n');
    if (spec)
        *spec++ = '\0';
    else
        spec = in;
    name = spec == in ? "fuzz" : in;
    if (setenv("PT_OUTPUT", spec, 1) != 0) {
        free(in);
        return 0;
    }
    pt__output_flags(&got);
    check(*spec ? got && strcmp(got, spec) == 0 : got == NULL,
          "pt__output_flags reads PT_OUTPUT as it was set");
    for (int i = 0; i < 2; i++) {
        t[i] = pt__create_internal(name, PT_CPU);
        check(t[i] != NULL, "pt__create_internal");
        pt_error_fn_set(t[i], quiet, NULL);
        claim_and_drop(t[i], got);
        errors[i] = pt_error_count(t[i]);
        notes[i] = pt_note_count(t[i]);
        pt_destroy(t[i]);
    }
    check(errors[0] == errors[1] && notes[0] == notes[1],
          "a second timing claiming the same files finds them free");
    unsetenv("PT_OUTPUT");
    free(in);
    return 0;
}
