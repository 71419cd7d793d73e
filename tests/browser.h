/* Headless Chromium for the suites that render what ptkit writes (the
 * HTML page, a trace in a viewer). A test without Chromium skips, saying
 * how to get it (`make test BROWSER=1` installs it as root). Header-only. */
#ifndef PT_TEST_BROWSER_H
#define PT_TEST_BROWSER_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* $PT_CHROMIUM, else chromium, chromium-browser or google-chrome on PATH; NULL if none. */
static const char *test_chromium(void)
{
    static char found[256];
    const char *env = getenv("PT_CHROMIUM");
    const char *names[] = { "chromium", "chromium-browser", "google-chrome" };
    const char *path = getenv("PATH");

    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
        for (char *d = strtok(buf, ":"); d; d = strtok(NULL, ":")) {
            snprintf(found, sizeof found, "%s/%s", d, names[i]);
            if (access(found, X_OK) == 0)
                return found;
        }
    }
    return NULL;
}

/* Runs Chromium headless on url with extra arguments, a profile in dir:
 * out gets its stdout, dir/chromium.log its stderr. Skips the test
 * without Chromium; fails it when Chromium fails. */
static void test_browse(const char *dir, const char *url, const char *args, const char *out)
{
    const char *c = test_chromium();
    char cmd[4096];
    if (!c)
        cr_skip_test("no Chromium found (chromium, chromium-browser, google-chrome or "
                     "$PT_CHROMIUM): the browser tests are skipped; `make test BROWSER=1` "
                     "installs it as root");
    snprintf(cmd, sizeof cmd,
             "timeout 90 '%s' --headless --no-sandbox --disable-gpu --disable-quic "
             "--no-first-run --disable-background-networking --disable-component-update "
             "--disable-sync --hide-scrollbars --user-data-dir='%s/profile' %s '%s' "
             "> '%s' 2> '%s/chromium.log'",
             c, dir, args, url, out, dir);
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "chromium failed (%d): see %s/chromium.log", rc, dir);
}

#endif
