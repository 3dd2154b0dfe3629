/*
 * profile.c - heap.pprof and stacks.folded of an .oemp snapshot.
 * Calls lifetimes.c (live sets, sizes, stacks); render.c calls it.
 *
 * A snapshot's live objects are grouped by where they were created (the
 * call-tree node and the line in it); each group becomes one pprof sample
 * whose stack is that node's chain of ABL procedures, leaf first, each
 * frame "NAME:LINE".  The writer is the shared one (decoders/pprof/pprof.h),
 * so google-pprof --text prints the names and its totals are the
 * snapshot's live objects and bytes.  The allocated values are the in-use ones: a
 * recording does not say what was created and freed between snapshots.
 *
 * Built profiles are kept in a memo (prof_memo, memo.h: the last
 * PROF_CACHE_MAX used) because fs/ renders a big view in several calls; a
 * rebuilt profile gives the same bytes.
 *
 * Thread-safe: the memo has its lock, built profiles are read-only.
 */
#include "decoders/oemp/oemp.h"
#include "decoders/pprof/pprof.h"
#include "decoders/pprof/flame.h"
#include "decoders/pprof/proto.h"

#include <string.h>

#define PROF_CACHE_MAX 4u

typedef struct {
    int64_t node, line;
} site_key;

typedef struct {
    site_key k;
    hf_pprof_values v;
} site;

static guint site_hash(gconstpointer p)
{
    const site_key *k = p;
    uint64_t h = (uint64_t)k->node * 0x9E3779B97F4A7C15ULL ^ (uint64_t)k->line;
    return (guint)(h ^ (h >> 29));
}

static gboolean site_equal(gconstpointer a, gconstpointer b)
{
    const site_key *x = a, *y = b;
    return x->node == y->node && x->line == y->line;
}

static hf_pprof *build(oemp_dump *d, uint32_t s)
{
    oemp_live *l = oemp_live_get(d, s);
    GArray *sites = g_array_new(FALSE, FALSE, sizeof(site));
    GHashTable *at = g_hash_table_new_full(site_hash, site_equal, g_free, NULL);
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t g = l->g[i];
        oemp_aobj a;
        oemp_aobj_parse(d, oemp_obj_at(d, g)->off, &a);
        site_key k = {a.v[OEMP_A_NODE], a.v[OEMP_A_LINE]};
        int64_t bytes = oemp_size_at(d, g, s);
        /* pprof values are unsigned: a negative Mem (bad input) counts 0 */
        uint64_t b = bytes > 0 ? (uint64_t)bytes : 0;
        gpointer v;
        site *st;
        if (g_hash_table_lookup_extended(at, &k, NULL, &v)) {
            st = &g_array_index(sites, site, GPOINTER_TO_UINT(v));
        } else {
            site n = {.k = k};
            g_array_append_val(sites, n);
            /* the table keeps its own copy of the key: `sites` may move */
            st = &g_array_index(sites, site, sites->len - 1);
            g_hash_table_insert(at, g_memdup2(&k, sizeof k), GUINT_TO_POINTER(sites->len - 1));
        }
        st->v.inuse_objects++;
        st->v.inuse_bytes += b;
    }
    oemp_live_unref(d, l);
    g_hash_table_destroy(at);

    char *bin = g_path_get_basename(d->base.path);
    hf_pprof *p = hf_pprof_new(bin);
    g_free(bin);
    GString *frames = g_string_new(NULL);
    GPtrArray *fr = g_ptr_array_new();
    for (guint i = 0; i < sites->len; i++) {
        site *st = &g_array_index(sites, site, i);
        st->v.alloc_objects = st->v.inuse_objects;
        st->v.alloc_bytes = st->v.inuse_bytes;
        g_string_truncate(frames, 0);
        g_ptr_array_set_size(fr, 0);
        oemp_stack_append(d, st->k.node, st->k.line, frames, "", "\n", OEMP_MAX_FRAMES);
        /* labels never hold a newline (oemp_append_oneline) */
        for (char *q = frames->str; *q;) {
            char *nl = strchr(q, '\n');
            *nl = '\0';
            g_ptr_array_add(fr, q);
            q = nl + 1;
        }
        hf_pprof_add(p, (const char *const *)fr->pdata, fr->len, &st->v);
    }
    g_ptr_array_free(fr, TRUE);
    g_string_free(frames, TRUE);
    g_array_free(sites, TRUE);
    return p;
}

/* The memo's make: the profile of snapshot `s`. */
static gpointer make_prof(guint64 s, gpointer d)
{
    return build(d, (uint32_t)s);
}

uint64_t oemp_render_pprof(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                           size_t budget)
{
    hf_pprof *p = oemp_memo_get(d->prof_memo, s, make_prof, d);
    uint64_t next = hf_pprof_render(p, first, out, budget);
    oemp_memo_unref(d->prof_memo, p);
    return next;
}

uint64_t oemp_render_folded(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                            size_t budget)
{
    hf_pprof *p = oemp_memo_get(d->prof_memo, s, make_prof, d);
    uint64_t next = hf_pprof_render_folded(p, HF_PPROF_INUSE_BYTES, first, out, budget);
    oemp_memo_unref(d->prof_memo, p);
    return next;
}

uint64_t oemp_render_flame(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                           size_t budget)
{
    hf_pprof *p = oemp_memo_get(d->prof_memo, s, make_prof, d);
    uint64_t next = hf_flame_render(p, HF_PPROF_INUSE_BYTES,
                                    "Flame graph: live bytes by creation stack (stacks.folded)",
                                    "bytes", first, out, budget);
    oemp_memo_unref(d->prof_memo, p);
    return next;
}

const hf_pprof *oemp_stacks(hf_dump *d, uint32_t s)
{
    oemp_dump *od = (oemp_dump *)d;
    return oemp_memo_get(od->prof_memo, s, make_prof, od);
}

void oemp_stacks_done(hf_dump *d, const hf_pprof *p)
{
    oemp_memo_unref(((oemp_dump *)d)->prof_memo, (gpointer)p);
}

uint64_t oemp_render_pb(oemp_dump *d, uint32_t s, uint64_t first, GString *out, size_t budget)
{
    hf_pprof *p = oemp_memo_get(d->prof_memo, s, make_prof, d);
    uint64_t next = hf_pprof_render_proto(p, first, out, budget);
    oemp_memo_unref(d->prof_memo, p);
    return next;
}

void oemp_pprof_init(oemp_dump *d)
{
    d->prof_memo = oemp_memo_new(PROF_CACHE_MAX, (GDestroyNotify)hf_pprof_free);
}

void oemp_pprof_free(oemp_dump *d)
{
    oemp_memo_free(d->prof_memo);
    d->prof_memo = NULL;
}
