/*
 * decoder.c - the gperftools decoder: detection, open (one file or a
 * series), destroy, the table of snapshot files and the ops table.  Each
 * file is parsed by scan.c; the views are render.c's.
 *
 * The dump is read-only after open, but for what render.c makes once on
 * first use (see gperf.h).
 */
#include "decoders/gperf/gperf.h"
#include "decoders/pprof/flamediff.h"

#include <string.h>

static const hf_dump_ops gperf_ops;

/* ---- detection, open, destroy ---- */

static bool detect(const uint8_t *head, size_t len)
{
    size_t i = 0;
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    const char *h = (const char *)head + i;
    size_t n = len - i;
    return (n >= 13 && memcmp(h, "heap profile:", 13) == 0) ||
           (n >= 10 && memcmp(h, "--- symbol", 10) == 0 &&
            g_strstr_len(h, (gssize)n, "heap profile:") != NULL);
}

static void snap_clear(gperf_snap *sn)
{
    g_free(sn->path);
    g_free(sn->kind);
    g_free(sn->binary);
    g_array_free(sn->lines, TRUE);
    g_array_free(sn->sites, TRUE);
    for (size_t i = 0; i < sn->n_maps; i++)
        g_free((char *)sn->maps[i].path);
    g_free(sn->maps);
    if (sn->symbols)
        g_hash_table_destroy(sn->symbols);
    hf_pprof_free(sn->pp_file);
    hf_pprof_free(sn->pp_folded);
}

static void gperf_destroy(hf_dump *d)
{
    gperf_dump *g = (gperf_dump *)d;
    for (guint i = 0; i < g->snaps->len; i++)
        snap_clear(&g_array_index(g->snaps, gperf_snap, i));
    g_array_free(g->snaps, TRUE);
    g_array_free(g->traces, TRUE);
    g_array_free(g->pcs, TRUE);
    g_hash_table_destroy(g->trace_by_stack);
    hf_sym_free(g->sym);
    g_free(g->names);
    hf_dump_clear(d);
    g_free(g);
}

static gperf_dump *dump_new(const char *path, GMappedFile *map)
{
    gperf_dump *g = g_new0(gperf_dump, 1);
    hf_dump_init(&g->base, &gperf_ops, path, map);
    g->snaps = g_array_new(FALSE, FALSE, sizeof(gperf_snap));
    g->traces = g_array_new(FALSE, FALSE, sizeof(gperf_trace));
    g->pcs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g->trace_by_stack = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                              (GDestroyNotify)g_bytes_unref, NULL);
    g->sym = hf_sym_new();
    return g;
}

static hf_dump *gperf_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                           GError **err)
{
    gperf_dump *g = dump_new(path, map);
    if (!gperf_parse_file(g, path, g->base.data, g->base.size, false, err)) {
        gperf_destroy(&g->base);
        return NULL;
    }
    return &g->base;
}

static hf_dump *gperf_open_series(const char *const *paths, int n, const hf_open_opts *opts,
                                  GError **err)
{
    gperf_dump *g = dump_new(paths[0], NULL);
    for (int i = 0; i < n; i++) {
        GError *e = NULL;
        GMappedFile *map = g_mapped_file_new(paths[i], FALSE, &e);
        if (!map) {
            g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s", e->message);
            g_error_free(e);
            gperf_destroy(&g->base);
            return NULL;
        }
        bool ok = gperf_parse_file(g, paths[i], (const uint8_t *)g_mapped_file_get_contents(map),
                             g_mapped_file_get_length(map), true, err);
        g_mapped_file_unref(map);
        if (!ok) {
            gperf_destroy(&g->base);
            return NULL;
        }
    }
    return &g->base;
}

const hf_decoder hf_decoder_gperf = {
    .format = "gperftools",
    .detect = detect,
    .open = gperf_open,
    .open_series = gperf_open_series,
};

/* ---- the model ---- */

static const hf_file snap_files[] = {
    {"info", gperf_view_snap_info, NULL},
    {"sites", gperf_view_sites, NULL},
    {"heap.pprof", gperf_view_pprof, NULL},
    {"heap.pb.gz", gperf_view_pb, NULL},
    {"stacks.folded", gperf_view_folded, NULL},
    {"flame.svg", gperf_view_flame, NULL},
    {"maps", gperf_view_maps, gperf_has_maps},
    {"tables/sites.tsv", gperf_sites_tsv_view, NULL, gperf_sites_tsv_measure},
    {NULL},
};

static uint32_t gperf_n_snapshots(hf_dump *d)
{
    return ((gperf_dump *)d)->snaps->len;
}

static uint64_t gperf_n_traces(hf_dump *d)
{
    return ((gperf_dump *)d)->traces->len;
}

static const hf_dump_ops gperf_ops = {
    .format = "gperftools",
    .destroy = gperf_destroy,
    .describe = gperf_describe,
    .n_snapshots = gperf_n_snapshots,
    .snapshot_number = hf_snapshot_ordinal,
    .n_traces = gperf_n_traces,
    .trace_number = hf_trace_ordinal,
    .render_info = gperf_view_info,
    .render_trace = gperf_view_trace,
    .tally = gperf_tally,
    .stacks = gperf_stacks,
    .flame_diff = hf_flame_diff_render,
    .snapshot = {.files = snap_files},
};
