/* The device headers embedded for NVRTC programs. The text comes from a
 * source that the build generates from include/pt/ (gen/ptembed.c), so it
 * always matches the headers installed beside the library. */
#include <pt/pt.h>
#include <pt/pt_nvrtc.h>

#include <stddef.h>

/* Defined in the generated $(BUILD)/gen/pt_dev_embed.c. */
extern const int pt__dev_embed_count;
extern const char *const pt__dev_embed_names[];
extern const char *const pt__dev_embed_sources[];

int pt_nvrtc_headers(int *count, const char *const **names, const char *const **sources)
{
    if (!count || !names || !sources)
        return PT_EINVAL;
    *count = pt__dev_embed_count;
    *names = pt__dev_embed_names;
    *sources = pt__dev_embed_sources;
    return 0;
}
