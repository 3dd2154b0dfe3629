/*
 * threadsviews.c - what each thread keeps alive (MAT's thread overview):
 *
 *   threads/T/retained            the thread object's shallow and retained
 *                                 bytes and how many locals its stack holds
 *   threads/T/locals              one row per object its stack holds (a GC
 *                                 root of the thread: Java frame, JNI local,
 *                                 native stack, thread block, JNI monitor):
 *                                 the frame, the object, its sizes
 *   snapshots/S/thread-overview   one row per thread of the snapshot
 *
 * Every one computes the snapshot's retained sizes (retained.h) on first
 * read.  A thread's locals hang under its thread object in the graph, so
 * what only a thread's stack holds counts in the thread's retained bytes.
 * Read-only over the finished graph: thread-safe.
 */
#include "decoders/heap/collections.h"
#include "decoders/heap/inspect.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"

#define H(d) ((hf_heap *)(d))

static bool is_local(const hf_hroot *r, uint32_t serial)
{
    return r->thread == serial &&
           (r->kind == HF_ROOT_JNI_LOCAL || r->kind == HF_ROOT_JAVA_FRAME ||
            r->kind == HF_ROOT_NATIVE_STACK || r->kind == HF_ROOT_THREAD_BLOCK ||
            r->kind == HF_ROOT_JNI_MONITOR);
}

/* Shallow and retained bytes of the object of id; false when the snapshot
 * lacks it. */
static bool sizes_of(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint64_t id,
                     uint64_t *shallow, uint64_t *retained)
{
    int64_t o = id ? hf_heap_find_id(h, sn, id) : -1;
    hf_hobj ob;
    if (o < 0 || (uint64_t)o >= g->n || !hf_heap_decode(h, sn, (uint64_t)o, &ob))
        return false;
    *shallow = hf_heap_shallow(h, sn, &ob);
    *retained = hf_hgraph_retained(g, o);
    return true;
}

/* The thread of view v, its snapshot and graph; NULL after writing why
 * there are no retained sizes. */
static const hf_hthread *thread_of(hf_dump *d, uint64_t t, const hf_hsnap **sn,
                                   const hf_hgraph **g, GString *out)
{
    hf_heap *h = H(d);
    if (t >= h->threads->len)
        return NULL;
    const hf_hthread *th = &g_array_index(h->threads, hf_hthread, t);
    *sn = hf_heap_snap(h, th->snap);
    if (!*sn)
        return NULL;
    *g = hf_heap_graph(h, th->snap);
    if ((*g)->error) {
        g_string_append_printf(out, "# no retained sizes: %s\n", (*g)->error);
        return NULL;
    }
    return th;
}

static uint64_t count_locals(const hf_hsnap *sn, uint32_t serial)
{
    uint64_t n = 0;
    for (guint k = 0; k < sn->roots->len; k++)
        n += is_local(&g_array_index(sn->roots, hf_hroot, k), serial);
    return n;
}

uint64_t hf_heap_view_thread_retained(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget)
{
    const hf_hsnap *sn;
    const hf_hgraph *g;
    const hf_hthread *t = thread_of(d, v->index, &sn, &g, out);
    uint64_t shallow, retained;
    if (!t)
        return HF_DONE;
    g_string_append_printf(out, "object: " HF_FMT_ID "\n", (guint64)t->obj);
    if (sizes_of(H(d), sn, g, t->obj, &shallow, &retained))
        g_string_append_printf(out, "shallow: %" G_GUINT64_FORMAT "\nretained: %" G_GUINT64_FORMAT
                               "\n", (guint64)shallow, (guint64)retained);
    else
        g_string_append(out, "retained: none: the snapshot lacks the thread object\n");
    g_string_append_printf(out, "locals: %" G_GUINT64_FORMAT "\n", (guint64)count_locals(sn, t->serial));
    return HF_DONE;
}

/* By frame (none last), then kind, then id. */
static gint cmp_frames(gconstpointer a, gconstpointer b)
{
    const hf_hroot *x = a, *y = b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const char *const locals_cols[] = {"frame", "kind", "id", "shallow", "retained", "what"};

uint64_t hf_heap_view_thread_locals(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn;
    const hf_hgraph *g;
    const hf_hthread *t = thread_of(d, v->index, &sn, &g, out);
    if (!t)
        return HF_DONE;
    hf_tsv tv = {out, 0, 0};
    hf_heap_put_header(&tv, locals_cols, G_N_ELEMENTS(locals_cols));
    hf_hcolls *cc = hf_hcolls_new(h, sn);
    GArray *locals = g_array_new(FALSE, FALSE, sizeof(hf_hroot));
    for (guint k = 0; k < sn->roots->len; k++)
        if (is_local(&g_array_index(sn->roots, hf_hroot, k), t->serial))
            g_array_append_val(locals, g_array_index(sn->roots, hf_hroot, k));
    g_array_sort(locals, cmp_frames);
    for (guint k = 0; k < locals->len; k++) {
        const hf_hroot *r = &g_array_index(locals, hf_hroot, k);
        uint64_t shallow = 0, retained = 0;
        sizes_of(h, sn, g, r->id, &shallow, &retained);
        hf_tsv_put_i64(&tv, r->frame == UINT32_MAX ? -1 : (int64_t)r->frame);
        g_string_append_printf(out, "\t%s\t", hf_root_names[r->kind]);
        hf_tsv_put_id(&tv, r->id);
        g_string_append_c(out, '\t');
        const uint64_t nums[] = {shallow, retained};
        for (unsigned i = 0; i < G_N_ELEMENTS(nums); i++) {
            hf_tsv_put_u64(&tv, nums[i]);
            hf_tsv_c(&tv, '\t');
        }
        hf_heap_describe(cc, r->id, out);
        g_string_append_c(out, '\n');
    }
    g_array_free(locals, TRUE);
    hf_hcolls_free(cc);
    return HF_DONE;
}

static const char *const overview_cols[] = {"serial", "id",     "shallow",
                                            "retained", "locals", "name"};

uint64_t hf_heap_view_thread_overview(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_heap_graph(h, v->snap);
    if (g->error) {
        g_string_append_printf(out, "# no retained sizes: %s\n", g->error);
        return HF_DONE;
    }
    hf_tsv tv = {out, 0, 0};
    hf_heap_put_header(&tv, overview_cols, G_N_ELEMENTS(overview_cols));
    for (guint i = 0; i < h->threads->len; i++) {
        const hf_hthread *t = &g_array_index(h->threads, hf_hthread, i);
        uint64_t shallow = 0, retained = 0;
        if (t->snap != v->snap)
            continue;
        sizes_of(h, sn, g, t->obj, &shallow, &retained);
        hf_tsv_put_u64(&tv, t->serial);
        hf_tsv_c(&tv, '\t');
        hf_tsv_put_id(&tv, t->obj);
        hf_tsv_c(&tv, '\t');
        const uint64_t nums[] = {shallow, retained, count_locals(sn, t->serial)};
        hf_heap_put_row(&tv, nums, G_N_ELEMENTS(nums), t->name ? t->name : "");
    }
    return HF_DONE;
}

bool hf_heap_has_threads(hf_dump *d, uint32_t s, uint64_t index)
{
    const hf_heap *h = H(d);
    for (guint i = 0; i < h->threads->len; i++)
        if (g_array_index(h->threads, hf_hthread, i).snap == s)
            return true;
    return false;
}
