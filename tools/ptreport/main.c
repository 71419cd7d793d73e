/* ptreport: reads runs saved by pt_export_json() (schemas 1 and 2).
 *
 *   ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]
 *   ptreport diff BASE.json NEW.json [--threshold 5%]
 *   ptreport merge A.json B.json ... -o ALL.json
 *   ptreport convert RUN.json --to csv|html|trace -o OUT
 *
 * Exit status: 0 success; 1 when diff finds a regression; 2 for a usage
 * error or an input that cannot be read (the message says where). */
#include "ptreport.h"

#include <string.h>

/* The newest schema this build reads, as text. */
#define SCHEMA_STR(n) #n
#define SCHEMA_OF(n) SCHEMA_STR(n)
#define SCHEMA SCHEMA_OF(PT_JSON_SCHEMA)

static const char usage[] =
    "usage: ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]\n"
    "       ptreport diff BASE.json NEW.json [--threshold 5%]\n"
    "       ptreport merge A.json B.json ... -o ALL.json\n"
    "       ptreport convert RUN.json --to csv|html|trace -o OUT\n"
    "\n"
    "Reads runs saved by pt_export_json() (schemas 1 to " SCHEMA "). Exit status: 0;\n"
    "1 when diff finds a regression; 2 for a usage error or an unreadable input.\n";

int main(int argc, char **argv)
{
    if (argc < 2)
        return fputs(usage, stderr), 2;
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return fputs(usage, stdout), 0;
    if (strcmp(argv[1], "show") == 0)
        return pr_show(argc - 2, argv + 2);
    if (strcmp(argv[1], "diff") == 0)
        return pr_diff(argc - 2, argv + 2);
    if (strcmp(argv[1], "merge") == 0)
        return pr_merge(argc - 2, argv + 2);
    if (strcmp(argv[1], "convert") == 0)
        return pr_convert(argc - 2, argv + 2);
    fprintf(stderr, "ptreport: unknown command '%s'\n\n%s", argv[1], usage);
    return 2;
}
