/*
 * render.c - the views of a gperftools heap profile (or a series of them).
 * Tree:
 *
 *   info                   the files, counts
 *   traces/N               each distinct stack: "TRACE N:" then one line
 *                          per frame, leaf first: name, PC, library+offset
 *   snapshots/S/info       file, header kind, sampling rule, totals
 *   snapshots/S/sites      one row per stack (docs/views.md): trace, in-use
 *                          objects and bytes, allocated objects and bytes
 *                          (scaled), the first frame that is not an allocator
 *   snapshots/S/heap.pprof for google-pprof (see build_pprof() below)
 *   snapshots/S/heap.pb.gz the same samples as gzipped profile.proto
 *   snapshots/S/stacks.folded  in-use bytes per stack, for flamegraph.pl
 *   snapshots/S/maps       the memory map, where the file has one
 *
 * Names of frames are made once for the whole dump, the first time a view
 * that shows them is rendered (g_once), then only read.
 */
#include "decoders/gperf/gperf.h"
#include "decoders/core/tsv.h"
#include "decoders/pprof/flame.h"
#include "decoders/core/names.h"
#include "decoders/pprof/proto.h"

#include <inttypes.h>
#include <string.h>

static gperf_dump *G(hf_dump *d)
{
    return (gperf_dump *)d;
}

static gperf_snap *snap(gperf_dump *g, uint32_t s)
{
    return &g_array_index(g->snaps, gperf_snap, s);
}

/* ---- frame names ---- */

static void name_all(gperf_dump *g)
{
    g->names = g_new0(hf_frame_info, g->pcs->len ? g->pcs->len : 1);
    for (guint t = 0; t < g->traces->len; t++) {
        const gperf_trace *tr = &g_array_index(g->traces, gperf_trace, t);
        const gperf_snap *sn = snap(g, tr->snap);
        for (uint32_t i = 0; i < tr->n; i++) {
            uint64_t pc = g_array_index(g->pcs, uint64_t, tr->first + i);
            hf_frame_info *f = &g->names[tr->first + i];
            if (sn->symbols) {
                /* A symbolized profile: its names (held by the snapshot). */
                f->func = g_hash_table_lookup(sn->symbols, &pc);
            } else {
                hf_sym_lookup(g->sym, sn->maps, sn->n_maps, pc, i > 0, f);
            }
        }
    }
}

const hf_frame_info *gperf_trace_names(gperf_dump *g, uint32_t t)
{
    if (g_once_init_enter(&g->names_ready)) {
        name_all(g);
        g_once_init_leave(&g->names_ready, 1);
    }
    return g->names + g_array_index(g->traces, gperf_trace, t).first;
}

static uint64_t trace_pc(gperf_dump *g, uint32_t t, uint32_t i)
{
    return g_array_index(g->pcs, uint64_t, g_array_index(g->traces, gperf_trace, t).first + i);
}

/* ---- heap.pprof and stacks.folded ---- */

static const char *binary_name(const gperf_snap *sn)
{
    if (sn->binary)
        return sn->binary;
    for (size_t i = 0; i < sn->n_maps; i++)
        if (sn->maps[i].path && sn->maps[i].path[0] != '[')
            return sn->maps[i].path;
    return sn->path;
}

static void add_stack(gperf_dump *g, hf_pprof *p, uint32_t t, bool full, const uint64_t v[GP_NV])
{
    const gperf_trace *tr = &g_array_index(g->traces, gperf_trace, t);
    const hf_frame_info *names = gperf_trace_names(g, t);
    GPtrArray *frames = g_ptr_array_new_with_free_func(g_free);
    for (uint32_t i = 0; i < tr->n; i++) {
        GString *s = g_string_new(NULL);
        if (full)
            hf_frame_full_name(s, &names[i], trace_pc(g, t, i));
        else
            hf_frame_short_name(s, &names[i], trace_pc(g, t, i));
        g_ptr_array_add(frames, g_string_free(s, FALSE));
    }
    hf_pprof_values pv = {v[0], v[1], v[2], v[3]};
    hf_pprof_add(p, (const char *const *)frames->pdata, frames->len, &pv);
    g_ptr_array_free(frames, TRUE);
}

/*
 * heap.pprof: when google-pprof scales this kind exactly as we do (or not
 * at all), the file's own lines are kept, raw, one per line, under the
 * file's own header kind: google-pprof then reports for heap.pprof exactly
 * what it reports for the original.  Otherwise (Go's heap/N, unknown
 * kinds) the lines are written scaled, under "heapprofile", so pprof
 * reports the values sites shows.
 */
static void build_pprof(gperf_dump *g, gperf_snap *sn)
{
    hf_pprof_opts o = {binary_name(sn), sn->pprof_same ? sn->kind : NULL, true};
    if (!sn->pprof_same)
        o.keep_lines = false;
    sn->pp_file = hf_pprof_new_opts(&o);
    sn->pp_folded = hf_pprof_new(o.binary);
    for (guint i = 0; i < sn->lines->len; i++) {
        const gperf_line *ln = &g_array_index(sn->lines, gperf_line, i);
        add_stack(g, sn->pp_file, ln->trace, true, sn->pprof_same ? ln->raw : ln->scaled);
        add_stack(g, sn->pp_folded, ln->trace, false, ln->scaled);
    }
}

static void need_pprof(gperf_dump *g, gperf_snap *sn)
{
    if (g_once_init_enter(&sn->pprof_ready)) {
        build_pprof(g, sn);
        g_once_init_leave(&sn->pprof_ready, 1);
    }
}

/* ---- views ---- */

static void render_info(gperf_dump *g, GString *out)
{
    uint64_t size = 0;
    for (guint i = 0; i < g->snaps->len; i++)
        size += snap(g, i)->size;
    hf_info_format(out, g->base.ops->format);
    if (g->snaps->len == 1) {
        g_string_append_printf(out, "file: %s\n", snap(g, 0)->path);
    } else {
        for (guint i = 0; i < g->snaps->len; i++)
            g_string_append_printf(out, "file %u: %s\n", i + 1, snap(g, i)->path);
    }
    g_string_append_printf(out, "size: %" PRIu64 "\n", size);
    g_string_append_printf(out, "snapshots: %u\n", g->snaps->len);
    g_string_append_printf(out, "traces: %u\n", g->traces->len);
    g_string_append_printf(out, "warnings: %" G_GUINT64_FORMAT "\n", (guint64)g->base.n_problems);
}

static const char *trailer_name(gperf_trailer t)
{
    switch (t) {
    case GP_TRAILER_PROC: return "MAPPED_LIBRARIES:";
    case GP_TRAILER_DUMP: return "--- Memory map:";
    default: return "none";
    }
}

static void values_line(GString *out, const char *key, const uint64_t v[GP_NV])
{
    g_string_append_printf(out, "%s: %" PRIu64 ": %" PRIu64 " [%" PRIu64 ": %" PRIu64 "]\n", key,
                           v[0], v[1], v[2], v[3]);
}

static void render_snap_info(gperf_snap *sn, GString *out)
{
    g_string_append_printf(out, "file: %s\n", sn->path);
    g_string_append_printf(out, "size: %" PRIu64 "\n", sn->size);
    g_string_append_printf(out, "kind: %s\n", *sn->kind ? sn->kind : "(none)");
    if (sn->rate)
        g_string_append_printf(out,
                               "sampling: Poisson, one sample per %" PRIu64
                               " bytes on average; values scaled as google/pprof scales them\n",
                               sn->rate);
    else
        g_string_append(out, "sampling: none (every allocation recorded); values as in the file\n");
    if (sn->has_header)
        values_line(out, "header", sn->header);
    values_line(out, "sum of lines", sn->sum_raw);
    g_string_append_printf(out, "in-use objects: %" PRIu64 "\n", sn->sum_scaled[GP_IN_OBJ]);
    g_string_append_printf(out, "in-use bytes: %" PRIu64 "\n", sn->sum_scaled[GP_IN_BYTES]);
    g_string_append_printf(out, "allocated objects: %" PRIu64 "\n", sn->sum_scaled[GP_AL_OBJ]);
    g_string_append_printf(out, "allocated bytes: %" PRIu64 "\n", sn->sum_scaled[GP_AL_BYTES]);
    g_string_append_printf(out, "lines: %u\n", sn->lines->len);
    g_string_append_printf(out, "stacks: %u\n", sn->sites->len);
    g_string_append_printf(out, "memory map: %s, %zu mappings\n", trailer_name(sn->trailer),
                           sn->n_maps);
    if (sn->symbols)
        g_string_append_printf(out, "symbols: %u (from the file's symbol section)\n",
                               g_hash_table_size(sn->symbols));
}

/* The frame sites names: the first that is not an allocator function
 * (unescaped: growth escapes its own names). */
static void site_frame(gperf_dump *g, uint32_t t, GString *out)
{
    const gperf_trace *tr = &g_array_index(g->traces, gperf_trace, t);
    if (tr->n == 0) {
        g_string_append(out, "<empty>");
        return;
    }
    const hf_frame_info *names = gperf_trace_names(g, t);
    uint32_t i = 0;
    while (i + 1 < tr->n && hf_frame_is_allocator(names[i].func))
        i++;
    hf_frame_full_name(out, &names[i], trace_pc(g, t, i));
}

static uint64_t render_sites(gperf_dump *g, gperf_snap *sn, uint64_t first, GString *out,
                             size_t budget)
{
    size_t start = out->len;
    uint64_t n = (uint64_t)sn->sites->len + 1;
    g_autoptr(GString) tmp = g_string_new(NULL);
    for (uint64_t item = first; item < n; item++) {
        if (item == 0) {
            g_string_append(out, "# trace\tinuse_objects\tinuse_space\talloc_objects\t"
                                 "alloc_space\tframe\n");
        } else {
            const gperf_site *s = &g_array_index(sn->sites, gperf_site, item - 1);
            g_string_append_printf(out, "%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
                                   s->trace + 1, s->v[0], s->v[1], s->v[2], s->v[3]);
            g_string_truncate(tmp, 0);
            site_frame(g, s->trace, tmp);
            hf_escape_text(out, tmp->str, tmp->len);
            g_string_append_c(out, '\n');
        }
        if (out->len - start >= budget && item + 1 < n)
            return item + 1;
    }
    return HF_DONE;
}

/* tables/sites.tsv: render_sites as a table (docs/tables.md), with its
 * column names (docs/views.md). */
static const char *const site_cols[] = {"trace",         "inuse_objects", "inuse_space",
                                        "alloc_objects", "alloc_space",   "frame"};

static uint64_t sites_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                           size_t budget)
{
    gperf_snap *sn = snap(G(d), v->snap);
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, site_cols, G_N_ELEMENTS(site_cols));
    GString *frame = g_string_new(NULL);
    for (uint64_t i = first ? first - 1 : 0; i < sn->sites->len; i++) {
        if (hf_tsv_stop(t, start, budget, i + 1)) {
            g_string_free(frame, TRUE);
            return i + 1;
        }
        const gperf_site *s = &g_array_index(sn->sites, gperf_site, i);
        hf_tsv_put_u64(t, (uint64_t)s->trace + 1);
        for (int k = 0; k < GP_NV; k++) {
            hf_tsv_c(t, '\t');
            hf_tsv_put_u64(t, s->v[k]);
        }
        hf_tsv_c(t, '\t');
        g_string_truncate(frame, 0);
        site_frame(G(d), s->trace, frame);
        hf_tsv_put_text(t, frame->str, frame->len);
        hf_tsv_c(t, '\n');
    }
    g_string_free(frame, TRUE);
    return HF_DONE;
}

HF_TSV_VIEW(gperf_sites_tsv, sites_rows)

/* maps: "start end perms offset inode path" (docs/views.md); a map in
 * the "start-end: path" form has "-", 0x0 and 0 for what it lacks.  Item 0
 * is the header, item i + 1 mapping i. */
static uint64_t render_maps(gperf_snap *sn, uint64_t first, GString *out, size_t budget)
{
    size_t start = out->len;
    if (first == 0)
        g_string_append(out, "# start\tend\tperms\toffset\tinode\tpath\n");
    for (uint64_t i = first ? first - 1 : 0; i < sn->n_maps; i++) {
        const hf_mapping *m = &sn->maps[i];
        g_string_append_printf(out, "0x%" PRIx64 "\t0x%" PRIx64 "\t", m->start, m->end);
        if (m->has_offset) {
            hf_escape_str(out, m->perms[0] ? m->perms : "-");
            g_string_append_printf(out, "\t0x%" PRIx64 "\t%" PRIu64 "\t", m->offset, m->inode);
        } else {
            g_string_append(out, "-\t0x0\t0\t");
        }
        hf_escape_str(out, m->path);
        g_string_append_c(out, '\n');
        if (out->len - start >= budget && i + 1 < sn->n_maps)
            return i + 2;
    }
    return HF_DONE;
}

static void render_trace(gperf_dump *g, uint32_t t, GString *out)
{
    const gperf_trace *tr = &g_array_index(g->traces, gperf_trace, t);
    g_string_append_printf(out, "TRACE %u:\n", t + 1);
    if (tr->n == 0)
        g_string_append(out, "\t<empty>\n");
    const hf_frame_info *names = tr->n ? gperf_trace_names(g, t) : NULL;
    g_autoptr(GString) tmp = g_string_new(NULL);
    for (uint32_t i = 0; i < tr->n; i++) {
        uint64_t pc = trace_pc(g, t, i);
        g_string_append_c(out, '\t');
        g_string_truncate(tmp, 0);
        if (names[i].func)
            hf_frame_full_name(tmp, &names[i], pc);
        else
            g_string_append(tmp, "??");
        hf_escape_text(out, tmp->str, tmp->len); /* names may come from the file */
        g_string_append_printf(out, " 0x%" PRIx64, pc);
        if (names[i].lib) {
            g_string_append_c(out, ' ');
            hf_escape_str(out, names[i].lib);
            g_string_append_printf(out, "+0x%" PRIx64, names[i].off);
        }
        g_string_append_c(out, '\n');
    }
}

/* growth by site frame (escaped), as sites names a stack: stacks that
 * allocate from one frame add up in one row. */
bool gperf_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    if (retained)
        return false;
    if (!fn)
        return true;
    gperf_snap *sn = snap(G(d), s);
    GString *frame = g_string_new(NULL), *name = g_string_new(NULL);
    for (guint i = 0; i < sn->sites->len; i++) {
        const gperf_site *site = &g_array_index(sn->sites, gperf_site, i);
        g_string_truncate(frame, 0);
        site_frame(G(d), site->trace, frame);
        g_string_truncate(name, 0);
        hf_escape_text(name, frame->str, frame->len);
        fn(ud, name->str, (int64_t)site->v[0], (int64_t)site->v[1]);
    }
    g_string_free(frame, TRUE);
    g_string_free(name, TRUE);
    return true;
}

/* ---- the views, as the model calls them ---- */

uint64_t gperf_view_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    render_info(G(d), out);
    return HF_DONE;
}

uint64_t gperf_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    if (v->index < G(d)->traces->len)
        render_trace(G(d), (uint32_t)v->index, out);
    return HF_DONE;
}

uint64_t gperf_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    render_snap_info(snap(G(d), v->snap), out);
    return HF_DONE;
}

uint64_t gperf_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    return render_sites(G(d), snap(G(d), v->snap), first, out, budget);
}

uint64_t gperf_view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    gperf_snap *sn = snap(G(d), v->snap);
    need_pprof(G(d), sn);
    return hf_pprof_render(sn->pp_file, first, out, budget);
}

uint64_t gperf_view_pb(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget)
{
    gperf_snap *sn = snap(G(d), v->snap);
    need_pprof(G(d), sn);
    return hf_pprof_render_proto(sn->pp_file, first, out, budget);
}

uint64_t gperf_view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    gperf_snap *sn = snap(G(d), v->snap);
    need_pprof(G(d), sn);
    return hf_pprof_render_folded(sn->pp_folded, HF_PPROF_INUSE_BYTES, first, out, budget);
}

uint64_t gperf_view_flame(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    gperf_snap *sn = snap(G(d), v->snap);
    need_pprof(G(d), sn);
    return hf_flame_render(sn->pp_folded, HF_PPROF_INUSE_BYTES,
                           "Flame graph: in-use bytes (stacks.folded)", "bytes", first, out,
                           budget);
}

const hf_pprof *gperf_stacks(hf_dump *d, uint32_t s)
{
    gperf_snap *sn = snap(G(d), s);
    need_pprof(G(d), sn);
    return sn->pp_folded;
}

uint64_t gperf_view_maps(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    return render_maps(snap(G(d), v->snap), first, out, budget);
}

bool gperf_has_maps(hf_dump *d, uint32_t s, uint64_t index)
{
    return snap(G(d), s)->n_maps > 0;
}

void gperf_describe(hf_dump *d, GString *out)
{
    g_string_append(
        out,
        "A gperftools heap profile (or a series of them, one snapshot per file, in the\n"
        "order given). traces/N is each distinct call stack, leaf first: function(file:line)\n"
        "where the library exists on this machine with symbols (\"??\" otherwise), the PC,\n"
        "and library+offset from the profile's memory map. In snapshots/S: info (header,\n"
        "sampling, totals), sites (one line per stack, in trace order so two snapshots\n"
        "diff line by line: trace, in-use objects and bytes, allocated objects and bytes,\n"
        "and the first frame that is not an allocator), heap.pprof (for google-pprof\n"
        "--text, no binary needed), stacks.folded (in-use bytes, for flamegraph.pl),\n"
        "flame.svg (stacks.folded drawn, for a browser) and maps (the memory map). Sampled profiles (heap_v2/N, heapz_v2/N, Go heap/N) are\n"
        "scaled as google/pprof scales them: each line times 1/(1-exp(-avg/rate)),\n"
        "avg = bytes/objects, rate = N (N/2 for Go heap/N), truncated.\n");
}
