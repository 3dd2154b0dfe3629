/*
 * beside.c - phases beside each other (workmem.h: hf_work_beside_pays,
 * hf_work_beside_start, hf_work_beside_threaded, hf_work_beside_end): a
 * phase on a thread of its own that joins the caller's hf_work, or on the
 * caller's thread when none can be had.
 */
#include "decoders/core/workmem.h"

#define BESIDE_MIN (1u << 20) /* items */

bool hf_work_beside_pays(uint64_t items, uint64_t more)
{
    const char *force = g_getenv("HEAPFS_RETAINED_THREADS");
    if (force && *force)
        return g_ascii_strtoull(force, NULL, 10) >= 2;
    return hf_work_cpus() >= 2 && items >= BESIDE_MIN && hf_work_in_files() == 0 &&
           hf_work_in_ram(more);
}

struct hf_beside {
    bool (*fn)(void *arg);
    void *arg;
    hf_work *w; /* the computation's, joined by the thread; NULL */
    GThread *t;
    bool ok;
};

static gpointer beside_run(gpointer ud)
{
    hf_beside *b = ud;
    if (b->w)
        hf_work_join(b->w);
    b->ok = b->fn(b->arg);
    if (b->w)
        hf_work_leave();
    return NULL;
}

hf_beside *hf_work_beside_start(bool thread, bool (*fn)(void *arg), void *arg)
{
    hf_beside *b = g_new(hf_beside, 1);
    *b = (hf_beside){fn, arg, hf_work_current(), NULL, false};
    if (thread)
        b->t = g_thread_try_new("heapfs-beside", beside_run, b, NULL);
    return b;
}

bool hf_work_beside_threaded(const hf_beside *b)
{
    return b->t != NULL;
}

bool hf_work_beside_end(hf_beside *b, bool wanted)
{
    if (b->t)
        g_thread_join(b->t);
    else
        b->ok = wanted && b->fn(b->arg);
    bool ok = b->ok;
    g_free(b);
    return ok;
}
