/* content.c - see content.h. */
#include "fs/content.h"

void hf_content_readme(hf_dump *d, GString *out)
{
    const hf_dump_ops *o = d->ops;
    g_string_append_printf(out,
        "This is heapfs: %s mounted read-only as files (format: %s).\n"
        "\n"
        "  info        what the file is: format, version, counts, the size rule\n"
        "  errors      one line per problem found while decoding (empty when clean)\n"
        "  snapshots/  one directory per snapshot, in file order; latest -> the last one\n",
        d->path, o->format);
    if (o->n_traces && o->n_traces(d) > 0)
        g_string_append(out, "  traces/N    stack trace N, in the HPROF agent's \"TRACE N:\" form\n");
    if (o->n_threads && o->n_threads(d) > 0)
        g_string_append(out, "  threads/    one directory per thread: info, stack\n");
    g_string_append(out, "\nIn each snapshot:\n");
    if (o->n_classes)
        g_string_append(out,
            "  classes/NAME/  info, fields, statics, instances; super -> the super class\n"
            "                 NAME escapes '%' as %25 and '/' as %2F; a repeated name gets @0xID\n");
    if (o->n_objects)
        g_string_append(out,
            "  objects/ID/    info, fields, refs/ (one link per reference), class, value\n");
    g_string_append(out, "\n");
    if (o->describe)
        o->describe(d, out);
    g_string_append(out,
        "\nNothing here changes while mounted.  Cache counters: cat .stats (not listed).\n"
        "Unmount with: fusermount3 -u MOUNTPOINT\n");
}

uint64_t hf_content_errors(hf_dump *d, uint64_t first, GString *out, size_t budget)
{
    gsize start = out->len;
    uint64_t i = first;
    for (; i < d->problems->len; i++) {
        if (out->len - start >= budget)
            return i;
        g_string_append(out, g_ptr_array_index(d->problems, i));
        g_string_append_c(out, '\n');
    }
    if (i == d->problems->len && d->n_problems > d->problems->len)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT " more problems, not listed\n",
                               (guint64)(d->n_problems - d->problems->len));
    return HF_DONE;
}
