/*
 * decoder.c - the OpenEdge memory profiler recording (.oemp) decoder:
 * detection, open and close, and the model ops (see oemp.h for the parts).
 * The top of the folder's call order: calls every other file, none calls it.
 *
 * Model mapping: snapshots are the recording's snapshots in file order,
 * named by SnapshotSeq; objects of snapshot s are those live after s is
 * replayed, in creation order, named by their AppObjId in decimal; traces
 * are the call-tree nodes, named by NodeId.  No classes, threads, fields or
 * refs: the format has none.  An object with ScopedTo set has a `scope`
 * symlink while the object it names is live.
 *
 * Ownership: open returns a dump the caller frees with hf_dump_close.
 * Thread safety: every op may run on several threads after open.
 */
#include "decoders/oemp/oemp.h"
#include "decoders/pprof/flamediff.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const hf_dump_ops oemp_ops;

static oemp_dump *D(hf_dump *d)
{
    return (oemp_dump *)d;
}

static void oemp_free(hf_dump *hd)
{
    oemp_dump *d = D(hd);
    oemp_pprof_free(d);
    oemp_index_free(d);
    GArray *arrays[] = {d->snaps, d->objs, d->chgs, d->dels, d->plats, d->nodes, d->groups};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        if (arrays[i])
            g_array_free(arrays[i], TRUE);
    for (int t = 0; t < OEMP_T_N; t++)
        if (d->tables[t])
            g_array_free(d->tables[t], TRUE);
    if (d->strs)
        g_string_chunk_free(d->strs);
    hf_dump_clear(&d->base);
    g_free(d);
}

static hf_dump *oemp_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                          GError **err)
{
    oemp_dump *d = g_new0(oemp_dump, 1);
    hf_dump_init(&d->base, &oemp_ops, path, map);
    d->text = (const char *)d->base.data;
    d->size = d->base.size;
    d->strs = g_string_chunk_new(1 << 16);
    d->snaps = g_array_new(FALSE, FALSE, sizeof(oemp_snap));
    d->objs = g_array_new(FALSE, FALSE, sizeof(oemp_obj));
    d->chgs = g_array_new(FALSE, FALSE, sizeof(oemp_chg));
    d->dels = g_array_new(FALSE, FALSE, sizeof(oemp_del));
    d->plats = g_array_new(FALSE, FALSE, sizeof(oemp_plat));
    d->nodes = g_array_new(FALSE, FALSE, sizeof(oemp_node));
    d->groups = g_array_new(FALSE, FALSE, sizeof(oemp_group));
    for (int t = 0; t < OEMP_T_N; t++)
        d->tables[t] = g_array_new(FALSE, FALSE, sizeof(oemp_named));
    if (!oemp_parse(d, err)) {
        oemp_free(&d->base);
        return NULL;
    }
    oemp_index_build(d);
    oemp_problems_flush(d);
    oemp_pprof_init(d);
    return &d->base;
}

static bool oemp_detect(const uint8_t *head, size_t len)
{
    return oemp_detect_head(head, len);
}

const hf_decoder hf_decoder_oemp = {
    .format = "oemp",
    .detect = oemp_detect,
    .open = oemp_open,
};

/* ---- model ops --------------------------------------------------------- */

static uint32_t op_n_snapshots(hf_dump *d)
{
    return oemp_n_snaps(D(d));
}

static uint64_t op_snapshot_number(hf_dump *d, uint32_t s)
{
    return s < oemp_n_snaps(D(d)) ? oemp_snap_at(D(d), s)->seq : 0;
}

static uint64_t op_n_traces(hf_dump *d)
{
    return D(d)->nodes->len;
}

static uint64_t op_trace_number(hf_dump *d, uint64_t t)
{
    GArray *a = D(d)->nodes;
    return t < a->len ? (uint64_t)g_array_index(a, oemp_node, t).id : 0;
}

static uint64_t op_n_objects(hf_dump *d, uint32_t s)
{
    return s < oemp_n_snaps(D(d)) ? oemp_snap_at(D(d), s)->live : 0;
}

static void op_object_name(hf_dump *hd, uint32_t s, uint64_t o, char name[HF_NAME_MAX])
{
    uint32_t g = oemp_live_obj(D(hd), s, o);
    if (g == OEMP_NOOBJ)
        snprintf(name, HF_NAME_MAX, "?");
    else
        snprintf(name, HF_NAME_MAX, "%" PRIu64, oemp_obj_at(D(hd), g)->id);
}

/* Decimal AppObjId as object_name writes it (no sign, no leading 0).  Not
 * hf_parse_decimal (names.h), which stops at 19 digits: scan.c reads an
 * AppObjId as any uint64_t, up to 20 digits, and docs/formats.md sets no
 * smaller bound, so every listed name must find its object (test_big_ids). */
static bool parse_id(const char *name, uint64_t *id)
{
    size_t len = strlen(name);
    if (len == 0 || len > 20 || (len > 1 && name[0] == '0'))
        return false;
    oemp_tok t = {.p = name, .len = (uint32_t)len, .kind = OEMP_NUM};
    for (size_t i = 0; i < len; i++)
        if (name[i] < '0' || name[i] > '9')
            return false;
    return oemp_tok_u64(&t, id);
}

static int64_t op_object_find(hf_dump *hd, uint32_t s, const char *name)
{
    uint64_t id;
    if (!parse_id(name, &id))
        return -1;
    return oemp_live_pos(D(hd), s, id);
}

/* ScopedTo of object o of s when that object is live at s too, else 0.
 * A scope whose object is gone (deleted, or never recorded) has no link,
 * since a link must lead somewhere; info still names it. */
static uint64_t scope_of(oemp_dump *d, uint32_t s, uint64_t o)
{
    uint32_t g = oemp_live_obj(d, s, o);
    if (g == OEMP_NOOBJ)
        return 0;
    oemp_aobj a;
    oemp_aobj_parse(d, oemp_obj_at(d, g)->off, &a);
    if (a.unk[OEMP_A_SCOPE] || a.v[OEMP_A_SCOPE] <= 0)
        return 0;
    uint64_t id = (uint64_t)a.v[OEMP_A_SCOPE];
    return oemp_find_live(d, s, id) >= 0 ? id : 0;
}

static bool link_scope(hf_dump *hd, uint32_t s, uint64_t o, hf_target *to)
{
    uint64_t id = scope_of(D(hd), s, o);
    if (!id)
        return false;
    to->kind = HF_TO_OBJECT;
    snprintf(to->name, HF_NAME_MAX, "%" PRIu64, id);
    return true;
}

static const hf_link object_links[] = {
    {"scope", link_scope},
    {NULL},
};

static const hf_dump_ops oemp_ops = {
    .format = "oemp",
    .destroy = oemp_free,
    .describe = oemp_describe,
    .render_info = oemp_view_info,
    .render_trace = oemp_view_trace,
    .n_snapshots = op_n_snapshots,
    .snapshot_number = op_snapshot_number,
    .n_traces = op_n_traces,
    .trace_number = op_trace_number,
    .n_objects = op_n_objects,
    .object_name = op_object_name,
    .object_find = op_object_find,
    .tally = oemp_tally,
    .stacks = oemp_stacks,
    .stacks_done = oemp_stacks_done,
    .flame_diff = hf_flame_diff_render,
    .snapshot = {.files = oemp_snap_files},
    .object = {.files = oemp_object_files, .links = object_links},
};
