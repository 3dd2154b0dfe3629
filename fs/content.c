/* content.c - see content.h. */
#include "fs/content.h"

/* "  WHERE  a, b, c" from a parts table: what such a directory can hold. */
static void list_parts(GString *out, const char *where, const hf_parts *p)
{
    g_string_append_printf(out, "  %-15s", where);
    const char *sep = "";
    for (const hf_file *f = p->files; f && f->name; f++, sep = ", ")
        g_string_append_printf(out, "%s%s", sep, f->name);
    for (const hf_linkdir *l = p->dirs; l && l->name; l++, sep = ", ")
        g_string_append_printf(out, "%s%s/", sep, l->name);
    for (const hf_link *l = p->links; l && l->name; l++, sep = ", ")
        g_string_append_printf(out, "%s%s ->", sep, l->name);
    g_string_append_c(out, '\n');
}

void hf_content_readme(hf_dump *d, GString *out)
{
    const hf_dump_ops *o = d->ops;
    g_string_append_printf(out,
        "This is heapfs: %s mounted read-only as files (format: %s).\n"
        "\n"
        "  info        what the file is: format, version, counts\n"
        "  errors      one line per problem found while decoding (empty when clean)\n"
        "  snapshots/  one directory per snapshot, in file order; latest -> the last one\n",
        d->path, o->format);
    if (o->n_traces && o->n_traces(d) > 0)
        g_string_append(out, "  traces/N    stack trace N\n");
    if (o->n_threads && o->n_threads(d) > 0)
        list_parts(out, "threads/T/", &o->thread);
    g_string_append(out, "\nIn each snapshot (where the snapshot has them):\n");
    list_parts(out, "", &o->snapshot);
    if (o->n_classes)
        list_parts(out, "classes/NAME/", &o->class_);
    if (o->n_objects)
        list_parts(out, "objects/ID/", &o->object);
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
