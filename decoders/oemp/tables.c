/*
 * tables.c - tables/objects.tsv of an OEMP snapshot (docs/tables.md): one
 * row per object live in it, as objects/ID/info says: id, type, bytes,
 * the snapshot it was created in, and its name (text, last).
 *
 * Read-only over the finished index: thread-safe.
 */
#include "decoders/oemp/oemp.h"

#include "decoders/core/tsv.h"

#include <string.h>

static const char *const object_cols[] = {"id", "type", "bytes", "created", "name"};

static void object_row(oemp_dump *d, uint32_t s, uint64_t o, GString *text, hf_tsv *t)
{
    uint32_t g = oemp_live_obj(d, s, o);
    if (g == OEMP_NOOBJ)
        return;
    const oemp_obj *ob = oemp_obj_at(d, g);
    const oemp_group *gr = &g_array_index(d->groups, oemp_group, ob->group);
    hf_tsv_put_u64(t, ob->id);
    hf_tsv_c(t, '\t');
    g_string_truncate(text, 0);
    oemp_type_name(d, gr->type, text);
    hf_tsv_put_text(t, text->str, text->len);
    hf_tsv_c(t, '\t');
    hf_tsv_put_i64(t, oemp_size_at(d, g, s));
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, oemp_snap_at(d, ob->created)->seq);
    hf_tsv_c(t, '\t');
    hf_tsv_put_str(t, gr->name);
    hf_tsv_c(t, '\n');
}

static uint64_t objects_rows(hf_dump *hd, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget)
{
    oemp_dump *d = (oemp_dump *)hd;
    uint64_t n = hd->ops->n_objects(hd, v->snap), start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, object_cols, G_N_ELEMENTS(object_cols));
    GString *text = g_string_new(NULL);
    for (uint64_t o = first ? first - 1 : 0; o < n; o++) {
        if (hf_tsv_stop(t, start, budget, o + 1)) {
            g_string_free(text, TRUE);
            return o + 1;
        }
        object_row(d, v->snap, o, text, t);
    }
    g_string_free(text, TRUE);
    return HF_DONE;
}

HF_TSV_VIEW(oemp_objects_tsv, objects_rows)
