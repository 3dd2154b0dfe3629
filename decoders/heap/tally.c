/*
 * tally.c - what a heap snapshot gives comparisons (core/compare.h): its
 * classes by name with their instances and bytes (or retained bytes), and
 * the text of its strings.
 *
 * Classes are named as classes/ names them, without the "@0xID" a name
 * repeated by several loaders gets: ids mean nothing in another dump, so
 * such classes add up under one name.
 */
#include "decoders/core/names.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"

bool hf_heap_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    hf_heap *h = (hf_heap *)d;
    /* HPROF text: a snapshot without a HEAP DUMP block has no classes. */
    if (!d->ops->n_classes || d->ops->n_classes(d, s) == 0)
        return false;
    if (!fn)
        return true;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hgraph *g = retained ? hf_heap_graph(h, s) : NULL;
    if (g && g->error)
        return false;
    GString *name = g_string_new(NULL);
    for (guint c = 0; c < sn->classes->len; c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (!k->count)
            continue;
        g_string_truncate(name, 0);
        hf_name_escape_append(name, k->name, strlen(k->name));
        fn(ud, name->str, (int64_t)k->count, (int64_t)(g ? g->class_retained[c] : k->bytes));
    }
    g_string_free(name, TRUE);
    return true;
}

bool hf_heap_text_of(hf_dump *d, uint32_t s, uint64_t o, GString *out)
{
    hf_heap *h = (hf_heap *)d;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (o >= sn->n_objects || sn->cls[o] != sn->string_class || !hf_heap_decode(h, sn, o, &ob))
        return false;
    size_t at = out->len;
    if (!hf_heap_text(h, sn, &ob, out)) {
        g_string_truncate(out, at);
        return false;
    }
    /* Escaped as `strings` writes it; most texts need nothing, so they are
     * appended in place and copied only when they do (strings-new calls
     * this for every String of two snapshots). */
    for (size_t i = at; i < out->len; i++) {
        char c = out->str[i];
        if (c == '\n' || c == '\r' || c == '\\' || c == '\0') {
            size_t n = out->len - at;
            char *raw = g_memdup2(out->str + at, n);
            g_string_truncate(out, at);
            hf_heap_escape_line(out, raw, n);
            g_free(raw);
            break;
        }
    }
    return true;
}
