/*
 * retobjects.c - see retcompute.h: the passes of the retained computation
 * over every object of a snapshot (its id, its shallow size), on a second
 * thread too when there are many.
 */
#include "decoders/heap/retcompute.h"

#include "decoders/core/cancel.h"
#include "decoders/core/workmem.h"
#include "decoders/heap/graph.h"

typedef struct objects_job objects_job;
struct objects_job {
    hf_heap *h;
    const hf_hsnap *sn;
    void (*one)(objects_job *j, uint64_t v); /* reads object v into out */
    uint64_t *out;
    gint next; /* the next chunk of objects (hf_chunk_take) */
};

static gpointer objects_range(gpointer ud)
{
    objects_job *j = ud;
    uint64_t lo, hi, step = 0;
    bool stop = false;
    while (!stop && hf_chunk_take(&j->next, j->sn->n_objects, &lo, &hi))
        for (uint64_t v = lo; v < hi && !(stop = hf_cancel_due(step++)); v++)
            j->one(j, v);
    return NULL;
}

/* Below this many objects a second thread costs more than it saves. */
#define OBJECTS_THREAD_MIN (1u << 20)

/* one(j, v) for every object v, on this thread and, with `two` and many
 * objects, a second one; given up when cancelled (the caller asks
 * hf_cancelled()). */
static void objects_run(objects_job *j, bool two)
{
    GThread *t = !two || j->sn->n_objects < OBJECTS_THREAD_MIN
                     ? NULL
                     : g_thread_try_new("heapfs-objects", objects_range, j, NULL);
    objects_range(j);
    if (t)
        g_thread_join(t);
}

static void shallow_one(objects_job *j, uint64_t v)
{
    hf_hobj ob;
    bool decoded = hf_heap_decode(j->h, j->sn, v, &ob);
    j->out[v] = decoded ? hf_heap_shallow(j->h, j->sn, &ob) : 0; /* no zeroing first */
}

static void id_one(objects_job *j, uint64_t v)
{
    j->out[v] = hf_heap_object_id(j->h, j->sn, v);
}

void hf_objects_ids(hf_heap *h, const hf_hsnap *sn, uint64_t *ids)
{
    objects_run(&(objects_job){h, sn, id_one, ids, 0}, true);
}

uint64_t *hf_objects_shallow(hf_heap *h, const hf_hsnap *sn, bool two)
{
    uint32_t n = (uint32_t)sn->n_objects;
    uint64_t *size = hf_work_alloc_seq(sizeof(uint64_t) * ((size_t)n + 1));
    if (!size)
        return NULL;
    size[n] = 0;
    objects_run(&(objects_job){h, sn, shallow_one, size, 0}, two);
    return size;
}
