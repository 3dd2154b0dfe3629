/*
 * render.c - the views of a profile.proto mount (gopprof.h).
 */
#include "decoders/gopprof/gopprof.h"
#include "decoders/core/names.h"

#include "decoders/core/tsv.h"
#include "decoders/pprof/flame.h"
#include "decoders/pprof/proto.h"

#include <inttypes.h>
#include <string.h>

#define D(d) ((gopprof_dump *)(d))

static gopprof_snap *snap(hf_dump *d, uint32_t s)
{
    return g_ptr_array_index(D(d)->snaps, s);
}

static const uint32_t *trace_frames(gopprof_dump *d, uint32_t t, uint32_t *n)
{
    const gopprof_trace *tr = &g_array_index(d->traces, gopprof_trace, t);
    *n = tr->n;
    return &g_array_index(d->trace_frames, uint32_t, tr->first);
}

static void snap_head(const gopprof_snap *sn, GString *out)
{
    g_string_append(out, "sample types:");
    for (guint i = 0; i < sn->types->len; i++) {
        g_string_append_c(out, ' ');
        hf_escape_str(out, g_ptr_array_index(sn->types, i));
    }
    g_string_append(out, "\nperiod type: ");
    hf_escape_str(out, sn->period_type);
    g_string_append_printf(out, "\nperiod: %" PRId64 "\n", sn->period);
    g_string_append_printf(out, "duration: %" PRId64 " ns\n", sn->duration_nanos);
    if (sn->time_nanos) {
        GDateTime *t = g_date_time_new_from_unix_utc(sn->time_nanos / 1000000000);
        char *iso = t ? g_date_time_format(t, "%Y-%m-%dT%H:%M:%SZ") : NULL;
        g_string_append_printf(out, "time: %" PRId64 " ns since the epoch (%s)\n", sn->time_nanos,
                               iso ? iso : "?");
        g_free(iso);
        if (t)
            g_date_time_unref(t);
    } else {
        g_string_append(out, "time: unknown\n");
    }
}

uint64_t gopprof_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    gopprof_dump *g = D(d);
    hf_info_format(out, d->ops->format);
    g_string_append_printf(out, "snapshots: %u\n", g->snaps->len);
    for (guint i = 0; i < g->snaps->len; i++) {
        gopprof_snap *sn = g_ptr_array_index(g->snaps, i);
        g_string_append_printf(out, "file %u: %s%s\n", i + 1, sn->path, sn->gzipped ? " (gzipped)" : "");
    }
    if (g->snaps->len)
        snap_head(g_ptr_array_index(g->snaps, 0), out);
    g_string_append_printf(out, "traces: %u\nframes: %u\n", g->traces->len, g->frames->len);
    g_string_append_printf(out, "problems: %" PRIu64 "\n", d->n_problems);
    return HF_DONE;
}

static uint64_t view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    g_string_append_printf(out, "file: %s\n", sn->path);
    snap_head(sn, out);
    g_string_append_printf(out, "samples: %" PRIu64 "\nstacks: %u\n", sn->n_raw, sn->samples->len);
    for (guint i = 0; i < sn->types->len; i++) {
        g_string_append(out, "total ");
        hf_escape_str(out, g_ptr_array_index(sn->types, i));
        g_string_append_printf(out, ": %" PRId64 "\n", sn->totals[i]);
    }
    return HF_DONE;
}

/* The order of the value columns of sites: Go's four heap types first, in
 * the order of the other formats' sites (docs/views.md), then the rest in
 * the file's order.  Fills col[] with value indices; returns how many. */
static guint site_columns(const gopprof_snap *sn, guint *col)
{
    static const char *const heap[4] = {"inuse_objects/", "inuse_space/", "alloc_objects/",
                                        "alloc_space/"};
    guint n = 0, nt = sn->types->len;
    bool *used = g_new0(bool, nt ? nt : 1);
    for (int k = 0; k < 4; k++)
        for (guint i = 0; i < nt; i++)
            if (!used[i] && g_str_has_prefix(g_ptr_array_index(sn->types, i), heap[k])) {
                used[i] = true;
                col[n++] = i;
                break;
            }
    for (guint i = 0; i < nt; i++)
        if (!used[i])
            col[n++] = i;
    g_free(used);
    return n;
}

/* What names stack t to a user in sites and growth: its leaf frame as
 * traces/N writes it, "function (file:line)" ("<empty>": no frames). */
static const char *leaf_frame(gopprof_dump *g, uint32_t t)
{
    uint32_t n;
    const uint32_t *fr = trace_frames(g, t, &n);
    return n ? g_ptr_array_index(g->frames, fr[0]) : "<empty>";
}

/* sites: a header, then one row per stack: the trace, every value (a
 * column per sample type, named without its unit), the leaf frame. */
static uint64_t view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    size_t start = out->len;
    guint *col = g_new(guint, sn->types->len + 1), nc = site_columns(sn, col);
    if (first == 0) {
        g_string_append(out, "# trace");
        for (guint k = 0; k < nc; k++) {
            const char *t = g_ptr_array_index(sn->types, col[k]);
            const char *slash = strchr(t, '/');
            g_string_append_c(out, '\t');
            hf_escape_text(out, t, slash ? (size_t)(slash - t) : strlen(t));
        }
        g_string_append(out, "\tframe\n");
        first = 1;
    }
    for (uint64_t i = first - 1; i < sn->samples->len; i++) {
        if (hf_budget_spent(out, start, budget)) {
            g_free(col);
            return i + 1;
        }
        const gopprof_sample *s = &g_array_index(sn->samples, gopprof_sample, i);
        g_string_append_printf(out, "%u", s->trace + 1);
        for (guint k = 0; k < nc; k++)
            g_string_append_printf(out, "\t%" PRId64,
                                   g_array_index(sn->vals, int64_t, s->vals + col[k]));
        g_string_append_c(out, '\t');
        hf_escape_str(out, leaf_frame(D(d), s->trace));
        g_string_append_c(out, '\n');
    }
    g_free(col);
    return HF_DONE;
}

/* tables/samples.tsv: one row per stack: every sample type's value, the
 * trace number and the leaf function (docs/tables.md). */
static uint64_t samples_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    uint64_t start = hf_tsv_pos(t);
    if (first == 0) {
        for (guint i = 0; i < sn->types->len; i++) {
            hf_tsv_put_str(t, g_ptr_array_index(sn->types, i));
            hf_tsv_c(t, '\t');
        }
        hf_tsv_put_str(t, "trace");
        hf_tsv_c(t, '\t');
        hf_tsv_put_str(t, "leaf");
        hf_tsv_c(t, '\n');
        first = 1;
    }
    for (uint64_t i = first - 1; i < sn->samples->len; i++) {
        if (hf_tsv_stop(t, start, budget, i + 1))
            return i + 1;
        const gopprof_sample *s = &g_array_index(sn->samples, gopprof_sample, i);
        for (guint k = 0; k < sn->types->len; k++) {
            hf_tsv_put_i64(t, g_array_index(sn->vals, int64_t, s->vals + k));
            hf_tsv_c(t, '\t');
        }
        uint32_t n;
        const uint32_t *fr = trace_frames(D(d), s->trace, &n);
        hf_tsv_put_u64(t, (uint64_t)s->trace + 1);
        hf_tsv_c(t, '\t');
        if (n)
            hf_tsv_put_str(t, g_ptr_array_index(D(d)->funcs, fr[0]));
        hf_tsv_c(t, '\n');
    }
    return HF_DONE;
}

HF_TSV_VIEW(gopprof_samples_tsv, samples_rows)

static uint64_t u(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

/* growth by leaf frame (escaped), as sites names stacks: stacks that
 * allocate in one function at one line add up (go tool pprof -top -lines
 * groups them so); in-use objects and bytes (or what stands for them:
 * scan.c's idx). */
bool gopprof_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    if (retained)
        return false;
    if (!fn)
        return true;
    gopprof_snap *sn = snap(d, s);
    GString *name = g_string_new(NULL);
    for (guint i = 0; i < sn->samples->len; i++) {
        const gopprof_sample *smp = &g_array_index(sn->samples, gopprof_sample, i);
        g_string_truncate(name, 0);
        hf_escape_str(name, leaf_frame(D(d), smp->trace));
        fn(ud, name->str, gopprof_value(sn, smp, 0), gopprof_value(sn, smp, 1));
    }
    g_string_free(name, TRUE);
    return true;
}

static void need_pprof(gopprof_dump *g, gopprof_snap *sn)
{
    if (!g_once_init_enter(&sn->pprof_ready))
        return;
    char *bin = g_path_get_basename(sn->path);
    sn->pp_full = hf_pprof_new(bin);
    sn->pp_brief = hf_pprof_new(bin);
    GPtrArray *full = g_ptr_array_new(), *brief = g_ptr_array_new();
    for (guint i = 0; i < sn->samples->len; i++) {
        const gopprof_sample *s = &g_array_index(sn->samples, gopprof_sample, i);
        hf_pprof_values pv = {u(gopprof_value(sn, s, 0)), u(gopprof_value(sn, s, 1)),
                              u(gopprof_value(sn, s, 2)), u(gopprof_value(sn, s, 3))};
        uint32_t n;
        const uint32_t *fr = trace_frames(g, s->trace, &n);
        g_ptr_array_set_size(full, 0);
        g_ptr_array_set_size(brief, 0);
        for (uint32_t k = 0; k < n; k++) {
            g_ptr_array_add(full, g_ptr_array_index(g->frames, fr[k]));
            g_ptr_array_add(brief, g_ptr_array_index(g->funcs, fr[k]));
        }
        hf_pprof_add(sn->pp_full, (const char *const *)full->pdata, n, &pv);
        hf_pprof_add(sn->pp_brief, (const char *const *)brief->pdata, n, &pv);
    }
    g_ptr_array_free(full, TRUE);
    g_ptr_array_free(brief, TRUE);
    g_free(bin);
    g_once_init_leave(&sn->pprof_ready, 1);
}

static uint64_t view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    need_pprof(D(d), sn);
    return hf_pprof_render(sn->pp_full, first, out, budget);
}

static uint64_t view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    need_pprof(D(d), sn);
    return hf_pprof_render_folded(sn->pp_brief, HF_PPROF_INUSE_BYTES, first, out, budget);
}

static uint64_t view_flame(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    need_pprof(D(d), sn);
    return hf_flame_render(sn->pp_brief, HF_PPROF_INUSE_BYTES,
                           "Flame graph: stacks.folded", "bytes", first, out, budget);
}

const hf_pprof *gopprof_stacks(hf_dump *d, uint32_t s)
{
    gopprof_snap *sn = snap(d, s);
    need_pprof(D(d), sn);
    return sn->pp_brief;
}

/* heap.pb.gz: the file as given when it is gzipped, else gzipped here. */
static uint64_t view_pb(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                        size_t budget)
{
    gopprof_snap *sn = snap(d, v->snap);
    if (first != 0)
        return HF_DONE;
    gsize len;
    const uint8_t *data = g_bytes_get_data(sn->file, &len);
    if (sn->gzipped)
        g_string_append_len(out, (const char *)data, (gssize)len);
    else
        hf_gzip_append(data, len, out);
    return HF_DONE;
}

uint64_t gopprof_render_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    gopprof_dump *g = D(d);
    if (v->index >= g->traces->len)
        return HF_DONE;
    uint32_t n;
    const uint32_t *fr = trace_frames(g, (uint32_t)v->index, &n);
    for (uint32_t k = 0; k < n; k++) {
        hf_escape_str(out, g_ptr_array_index(g->frames, fr[k]));
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

void gopprof_describe(hf_dump *d, GString *out)
{
    g_string_append(
        out,
        "A pprof profile (profile.proto, gzipped or not: Go's runtime/pprof heap profiles\n"
        "and others).  Each file is a snapshot: info (sample types, period, duration,\n"
        "time, totals), sites (one row per stack: the trace number, every sample type's\n"
        "value, the leaf frame), heap.pprof (google-pprof --text), stacks.folded\n"
        "(in-use bytes, or the profile's bytes value), flame.svg (stacks.folded drawn, for\n"
        "a browser) and heap.pb.gz (the file itself, gzipped).  traces/N: the frames of stack N, leaf first, as \"function\n"
        "(file:line)\"; trace numbers are shared by every file of the series.\n");
}

const hf_file gopprof_snap_files[] = {
    {"info", view_snap_info, NULL},
    {"sites", view_sites, NULL},
    {"heap.pprof", view_pprof, NULL},
    {"heap.pb.gz", view_pb, NULL},
    {"stacks.folded", view_folded, NULL},
    {"flame.svg", view_flame, NULL},
    {"tables/samples.tsv", gopprof_samples_tsv_view, NULL, gopprof_samples_tsv_measure},
    {NULL},
};
