/*
 * render.c - the views of a BMD dump that are BMD's own: MOUNT/info, the
 * README paragraph, the snapshot info and the strings file (every string
 * record, kept, hashed or resolved).  Classes, objects, roots, traces and
 * threads are the heap layer's (decoders/heap/); decoder.c puts them in its
 * tables.
 *
 * Read-only over the finished dump: thread-safe.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/heap/render.h"
#include "decoders/core/names.h"
#include "decoders/hprof/records.h"

#include <string.h>

uint64_t bmd_render_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    bmd_dump *d = (bmd_dump *)base;
    hf_heap *h = &d->heap;
    hf_info_format(out, base->ops->format);
    g_string_append_printf(out, "version: %u\n", d->version);
    g_string_append(out, "metadata: ");
    hf_escape_str(out, d->metadata);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "file: %s\n", h->base.path);
    g_string_append_printf(out, "size: %zu\n", h->base.size);
    g_string_append_printf(out, "identifier size: %u (legacy HPROF records)\n", d->legacy_idsz);
    hf_heap_render_counts(h, out);
    g_string_append_printf(out, "strings: %u (%" G_GUINT64_FORMAT " kept as text, %"
                           G_GUINT64_FORMAT " only as a hash)\n",
                           d->n_strings, d->n_strings - d->n_hashed, d->n_hashed);
    if (d->names_file)
        g_string_append_printf(out, "names resolved: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " hashed (%" G_GUINT64_FORMAT " candidate names from %s; %"
                               G_GUINT64_FORMAT " ambiguous, first candidate taken)\n",
                               d->n_resolved, d->n_hashed, d->n_candidates, d->names_file,
                               d->n_ambiguous);
    else
        g_string_append_printf(out, "names resolved: 0 of %" G_GUINT64_FORMAT
                               " hashed (no -o names=FILE given)\n", d->n_hashed);
    g_string_append_printf(out, "index bytes: %" G_GUINT64_FORMAT "\n", hf_heap_index_bytes(h));
    g_string_append_printf(out, "passes: %u\n", d->passes);
    g_string_append_printf(out, "instances before their class: %" G_GUINT64_FORMAT "\n",
                           d->n_forward);
    if (d->n_guessed)
        g_string_append_printf(out, "instances of classes never defined: %" G_GUINT64_FORMAT
                               "\n", d->n_guessed);
    g_string_append_printf(out, "problems: %" G_GUINT64_FORMAT "\n", (guint64)h->base.n_problems);
    g_string_append(out, "size rule: ");
    hf_heap_size_rule(h, out);
    g_string_append(out, "; primitive fields the dump left out counted by their size\n");
    for (int t = 1; t < BMD_NTAGS; t++)
        g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n", bmd_tag_names[t],
                               d->n_records[t]);
    if (d->n_headers)
        g_string_append_printf(out, "repeated headers: %" G_GUINT64_FORMAT " (the cruncher "
                               "wrote one per pass)\n", d->n_headers);
    if (d->n_records[0])
        g_string_append_printf(out, "records unreadable: %" G_GUINT64_FORMAT "\n",
                               d->n_records[0]);
    for (uint32_t tag = 0; tag < G_N_ELEMENTS(d->n_legacy); tag++)
        if (d->n_legacy[tag] && hprof_record_name(tag))
            g_string_append_printf(out, "legacy records %s: %" G_GUINT64_FORMAT "\n",
                                   hprof_record_name(tag), d->n_legacy[tag]);
    if (d->truncated)
        g_string_append(out, "warning: the file ends inside a record (truncated dump)\n");
    return HF_DONE;
}

/* snapshots/1/strings: every string record, by id: "ID text TEXT",
 * "ID hashed hash.LEN.HASH" or "ID resolved NAME", TAB-separated under a
 * header (docs/views.md).  Item 0 is the header, item i + 1 string i. */
uint64_t bmd_view_strings(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    bmd_dump *d = (bmd_dump *)base;
    size_t start = out->len;
    if (first == 0)
        g_string_append(out, "# id\tkind\ttext\n");
    for (uint64_t i = first ? first - 1 : 0; i < d->n_strings; i++) {
        if (hf_budget_spent(out, start, budget))
            return i + 1;
        const bmd_str *s = &d->strings[i];
        g_string_append_printf(out, "%u\t", s->id);
        if (!s->hashed) {
            g_string_append(out, "text\t");
            hf_heap_escape_line(out, (const char *)d->heap.base.data + s->off, s->len);
        } else if (s->resolved) {
            g_string_append(out, "resolved\t");
            hf_heap_escape_line(out, s->resolved, strlen(s->resolved));
        } else {
            g_string_append(out, "hashed\t");
            bmd_placeholder(out, s->len, s->hash);
        }
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

uint64_t bmd_view_snap_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    hf_heap_render_snap_info((hf_heap *)base, v->snap, out);
    return HF_DONE;
}

void bmd_describe(hf_dump *base, GString *out)
{
    bmd_dump *d = (bmd_dump *)base;
    g_string_append(
        out,
        "A BMD binary memory dump, the compact form the hprof-tools cruncher makes of an\n"
        "HPROF heap dump");
    if (*d->metadata) {
        g_string_append(out, " (");
        hf_escape_str(out, d->metadata);
        g_string_append_c(out, ')');
    }
    g_string_append(
        out,
        ". It is one snapshot (snapshots/1): histogram (objects, bytes,\n"
        "class, by bytes), classes/NAME/ (info, fields, statics, instances), objects/0xID/\n"
        "(info, fields, refs/, class), roots (GC roots: BMD keeps their ids, not their kind),\n"
        "strings (every string record: id, then \"text\" and the text, \"hashed\" and a\n"
        "placeholder, or \"resolved\" and the name a hash matched), heap.pprof (google-pprof\n"
        "--text, no binary needed) and stacks.folded (flamegraph.pl): live objects and bytes by\n"
        "class, as BMD keeps no allocation traces; flame.svg draws stacks.folded (for a\n"
        "browser). BMD drops the elements of\n"
        "primitive arrays (objects show type and length only) and most primitive instance\n"
        "fields (classes/NAME/info says how many bytes; sizes count them). Ids are the BMD\n"
        "file's own, not the original dump's.\n"
        "Most class and field names are kept only as a length and Java's String.hashCode():\n"
        "they show as hash.LEN.HHHHHHHH (8 hex digits). Mount with -o names=FILE (one candidate\n"
        "name per line: class names from a jar listing, a heapfs histogram, field names) to\n"
        "resolve every hash that matches; info says how many did.\n"
        "traces/N and threads/ come from the legacy HPROF records the file carries, with the\n"
        "original dump's ids: frame names whose strings the file lacks show as 0xID, thread\n"
        "names are left out.\n"
        "Class names read java.lang.String, int[]; '/' in a name is %2F and '%' is %25; a name\n"
        "used by several classes gets @0xID on the later ones. Sizes follow one rule, stated in\n"
        "info: ");
    hf_heap_size_rule(&d->heap, out);
    g_string_append(out, ".\n");
}
