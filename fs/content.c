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

/* Whether a format has tables (snapshot files under tables/). */
static bool has_tables(const hf_dump_ops *o)
{
    for (const hf_file *f = o->snapshot.files; f && f->name; f++)
        if (g_str_has_prefix(f->name, "tables/"))
            return true;
    return false;
}

/* The tables' convention (docs/tables.md), once per README. */
static void describe_tables(GString *out)
{
    g_string_append(
        out,
        "\nTables (tables/*.tsv, classes/NAME/table.tsv): for awk -F'\\t', sort -t$'\\t',\n"
        "sqlite3 (.mode ascii, .separator \"\\t\" \"\\n\", .import) and DuckDB (read_csv(F,\n"
        "delim='\\t', header=true, quote='')).  The first row names the columns; one TAB\n"
        "between columns, no padding, no quoting; integers plain; ids as objects/ names them\n"
        "(0x...), class names as classes/ does; an empty column is null or none; in text,\n"
        "TAB, newline, CR, backslash and NUL are written \\t \\n \\r \\\\ \\0, so every row\n"
        "is one line.  Sizes are exact without the tables being written; retained.tsv\n"
        "computes retained sizes on first use (like dominators), the others never do.\n");
}

/* What the dumps of format `o` hold. */
static void describe_format(hf_dump *d, bool several, GString *out)
{
    const hf_dump_ops *o = d->ops;
    if (o->n_traces && o->n_traces(d) > 0)
        g_string_append_printf(out, "  %s    stack trace N\n",
                               several ? "snapshots/N/traces/N" : "traces/N");
    if (o->n_threads && o->n_threads(d) > 0)
        list_parts(out, several ? "snapshots/N/threads/T/" : "threads/T/", &o->thread);
    g_string_append(out, "\nIn each snapshot (where the snapshot has them):\n");
    list_parts(out, "", &o->snapshot);
    if (o->n_classes)
        list_parts(out, "classes/NAME/", &o->class_);
    if (o->n_objects)
        list_parts(out, "objects/ID/", &o->object);
    if (o->tally)
        g_string_append(out, "  growth           from the second snapshot on: per class, site "
                             "or type, the change\n"
                             "                   since the snapshot before (growth-retained: "
                             "retained bytes)\n");
    if (o->text)
        g_string_append(out, "  strings-new      strings whose text the snapshot before lacks\n");
    if (o->flame_diff)
        g_string_append(out, "  flame-diff.svg   from the second snapshot on: flame.svg coloured by "
                             "the change\n"
                             "                   since the snapshot before (red grew, blue shrank)\n");
    g_string_append(out, "\n");
    if (o->describe)
        o->describe(d, out);
}

void hf_content_readme(hf_mount *m, GString *out)
{
    uint32_t n = hf_mount_n_dumps(m);
    hf_dump *d0 = hf_mount_dump(m, 0);
    if (n == 1) {
        g_string_append_printf(out, "This is heapfs: %s mounted read-only as files (%s).\n",
                               d0->path, hf_format_label(d0->ops->format));
    } else {
        g_string_append_printf(out, "This is heapfs: %u dumps mounted read-only as files, their "
                                    "snapshots one after another:\n", n);
        for (uint32_t k = 0; k < n; k++)
            g_string_append_printf(out, "  %s (%s)\n", hf_mount_dump(m, k)->path,
                                   hf_format_label(hf_mount_dump(m, k)->ops->format));
    }
    g_string_append(out,
        "\n"
        "  info        what the file is: format, version, counts\n"
        "  errors      one line per problem found while decoding (empty when clean)\n"
        "  snapshots/  one directory per snapshot, in file order; latest -> the last one\n");
    if (hf_mount_has_growth_chart(m))
        g_string_append(out, "  growth.svg  bytes per snapshot charted (the total and what grew most), "
                             "for a browser\n");
    /* Each format once, in the order the files came. */
    bool tables = false;
    for (uint32_t k = 0; k < n; k++) {
        tables |= has_tables(hf_mount_dump(m, k)->ops);
        bool seen = false;
        for (uint32_t j = 0; j < k; j++)
            seen |= hf_mount_dump(m, j)->ops == hf_mount_dump(m, k)->ops;
        if (seen)
            continue;
        if (n > 1)
            g_string_append_printf(out, "\n%s files:\n",
                                   hf_format_label(hf_mount_dump(m, k)->ops->format));
        describe_format(hf_mount_dump(m, k), n > 1, out);
    }
    if (tables)
        describe_tables(out);
    g_string_append(out,
        "\nTables (histogram, sites, roots, dominators, strings, ...): the first line is\n"
        "'# ' and the column names; columns are separated by one TAB, and every row has as\n"
        "many as the header; counts and sizes are plain integers (sort -n reads them), a\n"
        "percent column has a dot and two decimals, ids are 0x and hex; the free-text\n"
        "column (a class, a frame, a text) is last, with TAB, newline, backslash and\n"
        "control bytes written \\t, \\n, \\\\ and \\xHH.  awk -F'\\t', cut -f and\n"
        "sort -t$'\\t' read them; heapfs's docs/views.md lists every table's columns.\n");
    g_string_append(out,
        "\nNothing here changes while mounted.  Cache counters: cat .stats (not listed).\n"
        "Unmount with: fusermount3 -u MOUNTPOINT\n");
}
