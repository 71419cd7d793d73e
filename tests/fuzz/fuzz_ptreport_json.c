/* libFuzzer target: ptreport's reading of a saved run (jansson's parse,
 * then every check and the locating of a bad member in the text), the
 * function every command goes through. A run it accepts is also written
 * as CSV, which walks every section it loaded. */
#include <stdint.h>
#include <stdio.h>

#include "ptreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    char err[1024];
    pr_run r;

    if (!sink)
        sink = fopen("/dev/null", "w");
    if (pr_run_parse(&r, "fuzz.json", (const char *)data, size, err, sizeof err) == 0) {
        if (sink)
            pr_write_csv(&r, sink);
        pr_run_free(&r);
    }
    return 0;
}
