/* libFuzzer target: ptgen's phase-list parser on arbitrary bytes, and the
 * header writer on every list it accepts. ptgen.c is compiled into this
 * file with PTGEN_FUZZ, which leaves out its main() and its messages. */
#define PTGEN_FUZZ 1
#include "../../gen/ptgen.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static parser ps; /* large (256 phases): kept off the stack */
    gen_buf b = { 0 };

    memset(&ps, 0, sizeof ps);
    ps.file = "fuzz";
    ps.prefix = "PH_";
    if (parse(&ps, (const char *)data, size) == 0)
        generate(&b, &ps, "PH_", "fuzz", "fuzz.txt");
    parser_free(&ps);
    free(b.p);
    return 0;
}
