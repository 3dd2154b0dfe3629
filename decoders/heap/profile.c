/*
 * profile.c - heap.pprof and stacks.folded from the heap layer (see
 * profile.h).
 */
#include "decoders/heap/profile.h"
#include "decoders/heap/render.h"
#include "decoders/pprof/flame.h"
#include "decoders/pprof/proto.h"

#include <string.h>

void hf_heap_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames,
                         void *ud)
{
    const hf_htrace *t = hf_heap_trace_by_serial(h, serial);
    for (uint32_t i = 0; t && i < t->n; i++) {
        GString *s = g_string_new(NULL);
        hf_heap_frame_text(h, g_array_index(h->trace_frames, uint32_t, t->first + i), full, s);
        g_ptr_array_add(frames, g_string_free(s, FALSE));
    }
}

void hf_heap_pprof_add(hf_heap_pprof_out *o, uint32_t serial, const char *cls,
                       const hf_pprof_values *v)
{
    for (int k = 0; k < 2; k++) {
        GPtrArray *frames = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(frames, g_strdup(cls));
        if (serial)
            o->names(o->h, serial, k == 0, frames, o->names_ud);
        hf_pprof_add(k == 0 ? o->full : o->brief, (const char *const *)frames->pdata, frames->len,
                     v);
        g_ptr_array_free(frames, TRUE);
    }
}

typedef struct {
    uint64_t key; /* trace << 32 | class index */
    uint64_t objs, bytes;
} group;

static gint cmp_group(gconstpointer a, gconstpointer b)
{
    uint64_t x = ((const group *)a)->key, y = ((const group *)b)->key;
    return x < y ? -1 : x > y;
}

void hf_heap_pprof_add_objects(hf_heap_pprof_out *o, uint32_t s)
{
    const hf_heap *h = o->h;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    if (!sn)
        return;
    GHashTable *idx = g_hash_table_new(g_int64_hash, g_int64_equal);
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(group));
    for (uint64_t i = 0; i < sn->n_objects; i++) {
        hf_hobj ob;
        if (!hf_heap_decode(h, sn, i, &ob))
            continue;
        ob.cls = hf_heap_cls(sn, i);
        uint64_t key = (uint64_t)ob.trace << 32 | ob.cls;
        gpointer g = g_hash_table_lookup(idx, &key);
        if (!g) {
            group ng = {key, 0, 0};
            g_array_append_val(groups, ng);
            g = GUINT_TO_POINTER(groups->len);
            uint64_t *k = g_new(uint64_t, 1);
            *k = key;
            g_hash_table_insert(idx, k, g);
        }
        group *gr = &g_array_index(groups, group, GPOINTER_TO_UINT(g) - 1);
        gr->objs++;
        gr->bytes += hf_heap_shallow(h, sn, &ob);
    }
    g_array_sort(groups, cmp_group);
    for (guint i = 0; i < groups->len; i++) {
        const group *gr = &g_array_index(groups, group, i);
        hf_pprof_values v = {gr->objs, gr->bytes, gr->objs, gr->bytes};
        hf_heap_pprof_add(o, (uint32_t)(gr->key >> 32),
                          hf_heap_class(sn, (uint32_t)gr->key)->name, &v);
    }
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, idx);
    while (g_hash_table_iter_next(&it, &k, NULL))
        g_free(k);
    g_hash_table_destroy(idx);
    g_array_free(groups, TRUE);
}

typedef struct {
    gsize ready;
    hf_pprof *full, *brief;
} per_snap;

struct hf_heap_pprof {
    const hf_heap *h;
    char *binary;
    hf_heap_pprof_build_fn build;
    void *build_ud;
    hf_trace_names_fn names;
    void *names_ud;
    guint n;
    per_snap *snaps;
};

hf_heap_pprof *hf_heap_pprof_new(const hf_heap *h, uint32_t n_snaps, const char *binary,
                                 hf_heap_pprof_build_fn build, void *build_ud,
                                 hf_trace_names_fn names, void *names_ud)
{
    hf_heap_pprof *p = g_new0(hf_heap_pprof, 1);
    p->h = h;
    p->binary = g_strdup(binary);
    p->build = build;
    p->build_ud = build_ud;
    p->names = names ? names : hf_heap_trace_names;
    p->names_ud = names_ud;
    p->n = n_snaps;
    p->snaps = g_new0(per_snap, p->n ? p->n : 1);
    return p;
}

void hf_heap_pprof_free(hf_heap_pprof *p)
{
    if (!p)
        return;
    for (guint i = 0; i < p->n; i++) {
        hf_pprof_free(p->snaps[i].full);
        hf_pprof_free(p->snaps[i].brief);
    }
    g_free(p->snaps);
    g_free(p->binary);
    g_free(p);
}

/* Snapshot s's builders, made the first time (s < p->n). */
static per_snap *snap_ready(hf_heap_pprof *p, uint32_t s)
{
    per_snap *ps = &p->snaps[s];
    if (g_once_init_enter(&ps->ready)) {
        hf_heap_pprof_out o = {p->h, p->names, p->names_ud, hf_pprof_new(p->binary),
                               hf_pprof_new(p->binary)};
        p->build(&o, s, p->build_ud);
        ps->full = o.full;
        ps->brief = o.brief;
        g_once_init_leave(&ps->ready, 1);
    }
    return ps;
}

uint64_t hf_heap_pprof_render(hf_heap_pprof *p, uint32_t s, bool folded, uint64_t first,
                              GString *out, size_t budget)
{
    if (s >= p->n)
        return HF_DONE;
    per_snap *ps = snap_ready(p, s);
    if (folded)
        return hf_pprof_render_folded(ps->brief, HF_PPROF_INUSE_BYTES, first, out, budget);
    return hf_pprof_render(ps->full, first, out, budget);
}

uint64_t hf_heap_view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    hf_heap_pprof *p = ((hf_heap *)d)->pprof;
    return p ? hf_heap_pprof_render(p, v->snap, false, first, out, budget) : HF_DONE;
}

uint64_t hf_heap_view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    hf_heap_pprof *p = ((hf_heap *)d)->pprof;
    return p ? hf_heap_pprof_render(p, v->snap, true, first, out, budget) : HF_DONE;
}

const hf_pprof *hf_heap_stacks(hf_dump *d, uint32_t s)
{
    hf_heap_pprof *p = ((hf_heap *)d)->pprof;
    return p && s < p->n ? snap_ready(p, s)->brief : NULL;
}

uint64_t hf_heap_view_flame(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    hf_heap_pprof *p = ((hf_heap *)d)->pprof;
    if (!p || v->snap >= p->n)
        return HF_DONE;
    return hf_flame_render(snap_ready(p, v->snap)->brief, HF_PPROF_INUSE_BYTES,
                           "Flame graph: live bytes (stacks.folded)", "bytes", first, out,
                           budget);
}

uint64_t hf_heap_view_pb(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    hf_heap_pprof *p = ((hf_heap *)d)->pprof;
    if (!p || v->snap >= p->n || first != 0)
        return HF_DONE;
    return hf_pprof_render_proto(snap_ready(p, v->snap)->full, 0, out, budget);
}
