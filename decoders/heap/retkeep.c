/*
 * retkeep.c - see retained.h: a heap's graphs, one per snapshot, each
 * mapped from its results file (graphfile.h) or computed once
 * (retcompute.h) and then written to one by a thread of its own, and what
 * .stats says of them.
 */
#include "decoders/heap/retained.h"
#include "decoders/heap/retcompute.h"

#include "decoders/core/workmem.h"
#include "decoders/heap/graphfile.h"

#include <string.h>
#include <sys/stat.h>

/* Where a snapshot's results file goes: named after the file the
 * snapshot is in and its position there, keyed to that file. */
typedef struct {
    char *path;      /* NULL: none kept */
    uint32_t number; /* the snapshot's position in the file, from 1 */
    hf_keepkey key;  /* the file's (graph_key makes a graph's); key.source
                        guarded by lock: hf_heap_graphs_source */
} place;

struct hf_hgraphs {
    uint32_t n;
    gsize *once;     /* per snapshot: the hf_hgraph *, set once */
    place *at;       /* per snapshot (hf_heap_graphs_keep*) */
    char *index_opt;
    hf_keepr **files;   /* per snapshot: the file its graph was loaded from */
    double *load_secs;  /* per snapshot: how long loading took */
    GThread **writers;  /* per snapshot: the thread writing its file */
    GMutex lock;        /* guards kept and key.source */
    char **kept;        /* per snapshot: where its file was written, or why not */
    char **refused;     /* per snapshot: why a file found was not loaded */
};

hf_hgraphs *hf_heap_graphs_new(uint32_t n_snaps)
{
    hf_hgraphs *g = g_new0(hf_hgraphs, 1);
    uint32_t n = n_snaps ? n_snaps : 1;
    g->n = n_snaps;
    g->once = g_new0(gsize, n);
    g->at = g_new0(place, n);
    g->files = g_new0(hf_keepr *, n);
    g->load_secs = g_new0(double, n);
    g->writers = g_new0(GThread *, n);
    g->kept = g_new0(char *, n);
    g->refused = g_new0(char *, n);
    g_mutex_init(&g->lock);
    return g;
}

void hf_heap_graphs_keep(hf_hgraphs *g, const char *dump_path, const char *index_opt,
                         const hf_keepkey *key)
{
    for (uint32_t s = 0; s < g->n; s++)
        hf_heap_graphs_keep_file(g, s, dump_path, s + 1, index_opt, key);
}

void hf_heap_graphs_keep_file(hf_hgraphs *g, uint32_t s, const char *path, uint32_t number,
                              const char *index_opt, const hf_keepkey *key)
{
    g_assert(s < g->n && !g->at[s].path);
    if (!g->index_opt)
        g->index_opt = g_strdup(index_opt);
    g->at[s] = (place){g_strdup(path), number, *key};
}

void hf_heap_graphs_source(hf_hgraphs *g, uint64_t index_id)
{
    for (uint32_t s = 0; s < g->n; s++)
        hf_heap_graphs_source_of(g, s, index_id);
}

void hf_heap_graphs_source_of(hf_hgraphs *g, uint32_t s, uint64_t index_id)
{
    g_mutex_lock(&g->lock);
    g->at[s].key.source = index_id;
    g_mutex_unlock(&g->lock);
}

/* Snapshot s's results files' key as it is now. */
static hf_keepkey key_now(hf_hgraphs *g, uint32_t s)
{
    g_mutex_lock(&g->lock);
    hf_keepkey k = g->at[s].key;
    g_mutex_unlock(&g->lock);
    return k;
}

static void graph_free(hf_hgraph *g, bool mapped)
{
    g_free(g->error);
    g_free(g->work);
    if (mapped) { /* the arrays are the index file's */
        g_free(g);
        return;
    }
    hf_csr_free(&g->pred);
    hf_work_free(g->kids);
    hf_work_free(g->idom);
    hf_parents_free(&g->parent);
    hf_work_free(g->retained);
    g_free(g->class_retained);
    g_free(g);
}

void hf_heap_graphs_free(hf_hgraphs *g)
{
    if (!g)
        return;
    for (uint32_t s = 0; s < g->n; s++) {
        if (g->writers[s])
            g_thread_join(g->writers[s]); /* it reads the graph */
        if (g->once[s])
            graph_free((hf_hgraph *)g->once[s], g->files[s] != NULL);
        hf_keepr_free(g->files[s]);
        g_free(g->kept[s]);
        g_free(g->refused[s]);
        g_free(g->at[s].path);
    }
    g_free(g->at);
    g_free(g->once);
    g_free(g->files);
    g_free(g->load_secs);
    g_free(g->writers);
    g_free(g->kept);
    g_free(g->refused);
    g_mutex_clear(&g->lock);
    g_free(g->index_opt);
    g_free(g);
}

/* Where working arrays past the RAM budget go: the directory of the index
 * file of snapshot s's file (beside it or the cache directory), else the
 * cache directory. */
static char *work_dir(const hf_heap *h, uint32_t s)
{
    const place *at = &h->graphs->at[s];
    GPtrArray *paths = at->path ? hf_keep_candidates(at->path, h->graphs->index_opt, "") : NULL;
    const char *place = paths ? hf_keep_place(paths) : NULL;
    char *dir = place ? g_path_get_dirname(place)
                      : g_build_filename(g_get_user_cache_dir(), "heapfs", NULL);
    if (paths)
        g_ptr_array_free(paths, TRUE);
    return dir;
}

/* ---- the index file of a snapshot's graph (graphfile.h) ---- */

/* The files of snapshot s's graph at the mount's level (hf_dump.reach, set
 * after open, so read here rather than by hf_heap_graphs_keep). */
static GPtrArray *graph_paths(const hf_heap *h, uint32_t s)
{
    const place *at = &h->graphs->at[s];
    char *suffix = g_strdup_printf(".retained-%s.%u", hf_reach_names[h->base.reach], at->number);
    GPtrArray *p = hf_keep_candidates(at->path, h->graphs->index_opt, suffix);
    g_free(suffix);
    return p;
}

/* Their key: the dump's, never the index's own (variant 0). */
static hf_keepkey graph_key(const hf_heap *h, uint32_t s)
{
    hf_keepkey k = key_now(h->graphs, s);
    k.variant = 1 + h->base.reach;
    return k;
}

static hf_hgraph *load(hf_heap *h, uint32_t s)
{
    hf_hgraphs *gs = h->graphs;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    if (!gs->at[s].path || !sn || sn->n_objects >= UINT32_MAX - 2)
        return NULL;
    double t0 = g_get_monotonic_time() / 1e6;
    GPtrArray *paths = graph_paths(h, s);
    char *why = NULL; /* why a file found was not used: for .stats */
    hf_keepkey key = graph_key(h, s);
    hf_keepr *r = hf_keepr_open(&key, paths, &why);
    g_ptr_array_free(paths, TRUE);
    hf_hgraph *g = g_new0(hf_hgraph, 1);
    if (r && !hf_graphfile_load(g, r, (uint32_t)sn->n_objects, sn->classes->len)) {
        g_free(why);
        why = g_strdup_printf("%s: damaged (inconsistent contents)", hf_keepr_path(r));
        g_clear_pointer(&r, hf_keepr_free);
    }
    if (!r) {
        gs->refused[s] = why; /* read by .stats once the graph is set */
        g_free(g);
        return NULL;
    }
    g_free(why);
    gs->files[s] = r;
    gs->load_secs[s] = g_get_monotonic_time() / 1e6 - t0;
    return g;
}

typedef struct {
    hf_heap *h; /* only its dump mapping and graphs: snapshots may be freed */
    uint32_t s, n_classes;
    const hf_hgraph *g;
} writer;

static void set_kept(hf_hgraphs *gs, uint32_t s, char *what)
{
    g_mutex_lock(&gs->lock);
    g_free(gs->kept[s]);
    gs->kept[s] = what;
    g_mutex_unlock(&gs->lock);
}

/* Writes snapshot s's graph to its file, if the dump is still the one
 * indexed (a thread of its own: the graph is read-only by now). */
static gpointer write_graph(gpointer ud)
{
    writer *wr = ud;
    hf_hgraphs *gs = wr->h->graphs;
    const hf_dump *d = &wr->h->base;
    const place *at = &gs->at[wr->s];
    hf_keepkey key = graph_key(wr->h, wr->s), again;
    struct stat st;
    /* a dump of several files maps none as its own: the file is mapped
     * again to be keyed (a few blocks of it are read) */
    GMappedFile *own = d->data ? NULL : g_mapped_file_new(at->path, FALSE, NULL);
    bool same = (d->data || own) &&
                hf_keep_key(&again, at->path,
                            own ? (const uint8_t *)g_mapped_file_get_contents(own) : d->data,
                            own ? g_mapped_file_get_length(own) : d->size, key.format,
                            key.variant);
    if (own)
        g_mapped_file_unref(own);
    again.source = key.source; /* not the dump's */
    if (!same || memcmp(&again, &key, sizeof again) != 0 || stat(at->path, &st) != 0) {
        set_kept(gs, wr->s, g_strdup("not kept: the dump changed"));
        g_free(wr);
        return NULL;
    }
    double t0 = g_get_monotonic_time() / 1e6;
    hf_keepw *w = hf_keepw_new();
    hf_graphfile_save(wr->g, wr->n_classes, w);
    GPtrArray *paths = graph_paths(wr->h, wr->s);
    char *why = NULL;
    char *to = hf_keepw_write(w, &key, paths, st.st_mode & 0644, &why);
    set_kept(gs, wr->s, to ? g_strdup_printf("kept in %s (%.2f s)", to,
                                             g_get_monotonic_time() / 1e6 - t0)
                           : g_strdup_printf("not kept (%s)", why ? why : "no place"));
    g_free(to);
    g_free(why);
    g_ptr_array_free(paths, TRUE);
    hf_keepw_free(w);
    g_free(wr);
    return NULL;
}

const hf_hgraph *hf_heap_graph(hf_heap *h, uint32_t s)
{
    hf_hgraphs *gs = h->graphs;
    g_assert(gs && s < gs->n);
    if (g_once_init_enter(&gs->once[s])) {
        /* the index file being written: its results are keyed to it, and
         * once written the index is page cache, the RAM budget larger */
        hf_dump_await_after_mount(&h->base);
        hf_hgraph *g = load(h, s);
        bool computed = !g;
        if (computed) {
            char *dir = work_dir(h, s);
            g = hf_hgraph_compute(h, s, dir);
            g_free(dir);
        }
        g_once_init_leave(&gs->once[s], (gsize)g);
        if (computed && !g->error && gs->at[s].path) {
            writer *wr = g_new(writer, 1);
            *wr = (writer){h, s, hf_heap_snap(h, s)->classes->len, g};
            gs->writers[s] = g_thread_new("heapfs-graph", write_graph, wr);
        }
    }
    return (const hf_hgraph *)gs->once[s];
}

bool hf_heap_graph_ready(const hf_heap *h, uint32_t s)
{
    return h->graphs && s < h->graphs->n && g_atomic_pointer_get(&h->graphs->once[s]);
}

void hf_heap_graph_status(hf_dump *d, GString *out)
{
    hf_dump_index_figures(d, out);
    const hf_heap *h = (const hf_heap *)d;
    for (uint32_t s = 0; h->graphs && s < h->graphs->n; s++) {
        if (!hf_heap_graph_ready(h, s))
            continue;
        const hf_hgraph *g = (const hf_hgraph *)h->graphs->once[s];
        if (g->error)
            g_string_append_printf(out, "retained sizes, snapshot %u: none (%s)\n",
                                   hf_heap_snap(h, s)->number ? (unsigned)hf_heap_snap(h, s)->number : s + 1,
                                   g->error);
        else if (h->graphs->files[s])
            g_string_append_printf(out, "retained sizes, snapshot %u: loaded from %s in "
                                   "%.2f s, not computed (computing took %.2f s), "
                                   "%" G_GUINT64_FORMAT " references\n",
                                   (unsigned)hf_heap_snap(h, s)->number,
                                   hf_keepr_path(h->graphs->files[s]), h->graphs->load_secs[s],
                                   g->seconds, (guint64)g->edges);
        else
            g_string_append_printf(out, "retained sizes, snapshot %u: computed in %.2f s, "
                                   "%" G_GUINT64_FORMAT " bytes kept, %" G_GUINT64_FORMAT
                                   " references, %s\n", (unsigned)hf_heap_snap(h, s)->number,
                                   g->seconds, (guint64)g->bytes, (guint64)g->edges, g->work);
        if (h->graphs->refused[s])
            g_string_append_printf(out, "retained sizes, snapshot %u: file not used (%s)\n",
                                   (unsigned)hf_heap_snap(h, s)->number, h->graphs->refused[s]);
        g_mutex_lock(&h->graphs->lock);
        if (h->graphs->kept[s])
            g_string_append_printf(out, "retained sizes, snapshot %u: %s\n",
                                   (unsigned)hf_heap_snap(h, s)->number, h->graphs->kept[s]);
        g_mutex_unlock(&h->graphs->lock);
    }
}
