/*
 * render.c - the views of an HPROF binary dump that are HPROF's own:
 * MOUNT/info, the README paragraph, the snapshot info's record counts and
 * the sites file (the HPROF agent's SITES blocks).  Classes, objects,
 * roots, strings, traces and threads are the heap layer's
 * (decoders/heap/render.c, objects.c); decoder.c puts them in its tables.
 *
 * Read-only over the finished dump: thread-safe.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/core/names.h"
#include "decoders/core/tsv.h"
#include "decoders/heap/render.h"

#include <time.h>

static void format_time(uint64_t ms, GString *out)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    g_string_append_printf(out, "%s.%03uZ", buf, (unsigned)(ms % 1000));
}

uint64_t hprof_render_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    hf_heap *h = &d->heap;
    hf_info_format(out, base->ops->format);
    g_string_append_printf(out, "version: %s\n", d->version);
    g_string_append_printf(out, "file: %s\n", h->base.path);
    g_string_append_printf(out, "size: %zu\n", h->base.size);
    g_string_append_printf(out, "identifier size: %u\n", h->id_size);
    g_string_append(out, "time: ");
    format_time(d->time_ms, out);
    g_string_append_c(out, '\n');
    hf_heap_render_counts(h, out);
    g_string_append_printf(out, "strings: %" G_GUINT64_FORMAT "\n", d->n_strings);
    g_string_append_printf(out, "index bytes: %" G_GUINT64_FORMAT "\n", hf_heap_index_bytes(h));
    g_string_append_printf(out, "problems: %" G_GUINT64_FORMAT "\n", (guint64)h->base.n_problems);
    g_string_append(out, "size rule: ");
    hf_heap_size_rule(h, out);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "classes sized by their addresses: %" G_GUINT64_FORMAT
                           " (the rule's size would overlap the next object, or most "
                           "instances lie at one other distance from it)\n",
                           (guint64)hf_heap_n_sized_by_gaps(h));
    static const uint8_t recs[] = {
        HPROF_LOAD_CLASS, HPROF_UNLOAD_CLASS, HPROF_STACK_FRAME, HPROF_STACK_TRACE,
        HPROF_ALLOC_SITES, HPROF_HEAP_SUMMARY, HPROF_START_THREAD, HPROF_END_THREAD,
        HPROF_HEAP_DUMP, HPROF_HEAP_DUMP_SEGMENT, HPROF_HEAP_DUMP_END, HPROF_CPU_SAMPLES,
        HPROF_CONTROL_SETTINGS,
    }; /* STRING records are counted as strings above */
    for (size_t i = 0; i < G_N_ELEMENTS(recs); i++)
        g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n",
                               hprof_record_name(recs[i]), d->n_records[recs[i]]);
    if (d->truncated)
        g_string_append(out, "warning: the file ends inside a record (truncated dump)\n");
    return HF_DONE;
}

uint64_t hprof_view_snap_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    uint32_t s = v->snap;
    static const struct { uint8_t tag; const char *name; } subs[] = {
        {HPROF_GC_CLASS_DUMP, "class dump"}, {HPROF_GC_INSTANCE_DUMP, "instance dump"},
        {HPROF_GC_OBJ_ARRAY_DUMP, "object array dump"},
        {HPROF_GC_PRIM_ARRAY_DUMP, "primitive array dump"},
        {HPROF_GC_PRIM_ARRAY_NODATA, "primitive array nodata"},
    };
    hf_heap_render_snap_info(&d->heap, s, out);
    if (d->heap.snaps->len == 1)
        for (size_t i = 0; i < G_N_ELEMENTS(subs); i++)
            g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n", subs[i].name,
                                   d->n_sub[subs[i].tag]);
    return HF_DONE;
}

/* The class a site allocated, escaped (docs/views.md). */
static void append_site_class(hprof_dump *d, const hprof_site *site, GString *tmp, GString *out)
{
    g_string_truncate(tmp, 0);
    hprof_site_class(d, site, tmp);
    hf_escape_text(out, tmp->str, tmp->len);
}

/* sites: the rows of every ALLOC SITES record of snapshot s as a table
 * (docs/views.md), in the record's order; item 0 is the header, item i + 1
 * record i. */
uint64_t hprof_view_sites(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    size_t start = out->len;
    if (first == 0)
        g_string_append(out, "# trace\tinuse_objects\tinuse_space\talloc_objects\t"
                             "alloc_space\tclass\n");
    GString *tmp = g_string_new(NULL);
    hprof_sites st;
    for (uint64_t i = first ? first - 1 : 0; hprof_sites_next(d, v->snap, &i, &st); i++) {
        if (out->len - start >= budget && i + 1 > first) {
            g_string_free(tmp, TRUE);
            return i + 1;
        }
        for (uint32_t k = 0; k < st.n_sites; k++) {
            hprof_site site;
            hprof_site_at(&st, k, &site);
            g_string_append_printf(out, "%u\t%u\t%u\t%u\t%u\t", site.trace,
                                   site.live_instances, site.live_bytes, site.alloc_instances,
                                   site.alloc_bytes);
            append_site_class(d, &site, tmp, out);
            g_string_append_c(out, '\n');
        }
    }
    g_string_free(tmp, TRUE);
    return HF_DONE;
}

/* sites.agent: the HPROF agent's SITES block for every ALLOC SITES record
 * of snapshot s, as the agent writes it; item = record index. */
uint64_t hprof_view_sites_agent(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                                size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    size_t start = out->len;
    GString *tmp = g_string_new(NULL);
    hprof_sites st;
    for (uint64_t i = first; hprof_sites_next(d, v->snap, &i, &st); i++) {
        if (out->len - start >= budget && i > first) {
            g_string_free(tmp, TRUE);
            return i;
        }
        g_string_append_printf(out, "SITES BEGIN (ordered by %s)%s\n",
                               st.flags & 2 ? "allocated bytes" : "live bytes",
                               st.flags & 1 ? " incremental" : "");
        g_string_append(out, "          percent          live          alloc'ed  stack class\n"
                             " rank   self  accum     bytes objs     bytes  objs trace name\n");
        double accum = 0, total = st.live_bytes ? st.live_bytes : 1;
        for (uint32_t k = 0; k < st.n_sites; k++) {
            hprof_site site;
            hprof_site_at(&st, k, &site);
            double self = 100.0 * site.live_bytes / total;
            accum += self;
            g_string_append_printf(out, "%5u %5.2f%% %5.2f%% %9u %4u %9u %5u %5u ", k + 1, self,
                                   accum, site.live_bytes, site.live_instances, site.alloc_bytes,
                                   site.alloc_instances, site.trace);
            append_site_class(d, &site, tmp, out);
            g_string_append_c(out, '\n');
        }
        g_string_append(out, "SITES END\n");
    }
    g_string_free(tmp, TRUE);
    return HF_DONE;
}

/* tables/sites.tsv: the rows of every ALLOC SITES record (docs/tables.md),
 * their columns named and ordered as the `sites` view's (docs/views.md);
 * an item is a record (1 + its index), 0 the header. */
static const char *const site_cols[] = {"record",        "rank",        "trace",
                                        "inuse_objects", "inuse_space", "alloc_objects",
                                        "alloc_space",   "class"};

static uint64_t sites_rows(hf_dump *base, const hf_view *v, uint64_t first, hf_tsv *t,
                           size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, site_cols, G_N_ELEMENTS(site_cols));
    hprof_sites st;
    GString *cls = g_string_new(NULL);
    for (uint64_t i = first ? first - 1 : 0; hprof_sites_next(d, v->snap, &i, &st); i++) {
        if (hf_tsv_stop(t, start, budget, i + 1))
            break;
        for (uint32_t k = 0; k < st.n_sites; k++) {
            hprof_site site;
            hprof_site_at(&st, k, &site);
            const uint64_t n[7] = {i + 1, k + 1, site.trace, site.live_instances,
                                   site.live_bytes, site.alloc_instances, site.alloc_bytes};
            for (int c = 0; c < 7; c++) {
                hf_tsv_put_u64(t, n[c]);
                hf_tsv_c(t, '\t');
            }
            g_string_truncate(cls, 0);
            hprof_site_class(d, &site, cls);
            hf_tsv_put_text(t, cls->str, cls->len);
            hf_tsv_c(t, '\n');
        }
        first = i + 2; /* the item after this record */
    }
    g_string_free(cls, TRUE);
    uint64_t i = first ? first - 1 : 0;
    return hprof_sites_next(d, v->snap, &i, &st) ? i + 1 : HF_DONE;
}

HF_TSV_VIEW(hprof_sites_tsv, sites_rows)

bool hprof_has_sites(hf_dump *base, uint32_t s, uint64_t index)
{
    uint64_t i = 0;
    hprof_sites st;
    return hprof_sites_next((hprof_dump *)base, s, &i, &st);
}

void hprof_describe(hf_dump *base, GString *out)
{
    hprof_dump *d = (hprof_dump *)base;
    g_string_append_printf(
        out,
        "A Java heap dump in the HPROF binary format (%s). Each heap dump in the file is a\n"
        "snapshot (snapshots/N). In a snapshot: histogram (objects, bytes, class, by bytes),\n"
        "classes/NAME/ (info, fields, statics, instances), objects/0xID/ (info, fields, value,\n"
        "refs/, class), roots (GC roots: kind, id, thread, frame, what), strings (every\n"
        "java.lang.String: id and text, escaped), sites where the file has allocation\n"
        "sites (sites.agent: the same in the HPROF agent's SITES form), heap.pprof\n"
        "(google-pprof --text, no binary needed) and\n"
        "stacks.folded (flamegraph.pl, live bytes): the ALLOC SITES where the file has\n"
        "them, else the live objects by allocation trace, the class as the leaf frame;\n"
        "flame.svg draws stacks.folded as a flame graph (for a browser).\n"
        "traces/N are stack traces in the HPROF agent's form; threads/ hold\n"
        "each thread's info and its stack with the local variables that are GC roots.\n"
        "Class names read java.lang.String, int[], java.lang.Object[]; '/' in a name is %%2F and\n"
        "'%%' is %%25; a name used by several classes gets @0xID on the later ones.\n"
        "Sizes follow one rule, stated in info: ",
        d->version);
    hf_heap_size_rule(&d->heap, out);
    g_string_append(out, ".\n");
}
