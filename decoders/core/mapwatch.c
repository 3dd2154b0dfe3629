/* mapwatch.c - see mapwatch.h. */
#include "decoders/core/mapwatch.h"

static const hf_mapwatch *watcher;

void hf_mapwatch_set(const hf_mapwatch *w)
{
    watcher = w;
}

void hf_mapwatch_add(const void *base, size_t len)
{
    if (watcher && base && len)
        watcher->add(base, len);
}

void hf_mapwatch_remove(const void *base)
{
    if (watcher && base)
        watcher->remove(base);
}
