/*
 * render.c - the snapshot views of the neutral heap graph (histogram,
 * roots, strings, snapshot info) and traces and threads.  Classes and
 * objects are in objects.c.
 *
 * Protocol (model.h): render from item `first`, stop after `budget` bytes,
 * return the next item or HF_DONE.  Items are lines, except where a view
 * walks the object index (instances, strings): there an item is an object
 * index, so a chunk starts where the last one stopped without rescanning.
 * The same `first` always gives the same bytes.
 *
 * Read-only over the finished graph: thread-safe.
 */
#include "decoders/core/names.h"
#include "decoders/heap/render.h"

#include <string.h>


/* Name of what object `id` is: "class NAME" for a class object, else its
 * class; "?" when the snapshot lacks it.  Escaped (docs/views.md). */
static void append_what(const hf_heap *h, const hf_hsnap *sn, uint64_t id, GString *out)
{
    int64_t o = hf_heap_find_id(h, sn, id);
    if (o < 0) {
        g_string_append_c(out, '?');
        return;
    }
    const hf_hclass *c = hf_heap_class(sn, hf_heap_cls(sn, o));
    if (hf_heap_cls(sn, o) == sn->class_class) {
        int64_t self = hf_heap_class_by_id(sn, id);
        if (self >= 0) {
            g_string_append(out, "class ");
            c = hf_heap_class(sn, (uint64_t)self);
        }
    }
    hf_escape_str(out, c->dir);
}

/* ---- snapshot files ---- */

uint64_t hf_heap_view_histogram(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    hf_heap *h = (hf_heap *)d;
    uint32_t s = v->snap;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    size_t start = out->len;
    uint64_t i = first;
    if (i == 0) {
        g_string_append(out, "# objects\tbytes\tclass\n");
        i = 1;
    }
    for (; i <= sn->n_hist; i++) {
        if (hf_budget_spent(out, start, budget))
            return i;
        const hf_hclass *c = hf_heap_class(sn, sn->hist[i - 1]);
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                               (guint64)c->count, (guint64)c->bytes);
        hf_escape_str(out, c->dir);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

/* roots: every column on every row (docs/views.md); 0, -1 and 0x0 where a
 * kind has no thread, frame, trace or reference. */
uint64_t hf_heap_view_roots(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    hf_heap *h = (hf_heap *)d;
    uint32_t s = v->snap;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    size_t start = out->len;
    uint64_t i = first;
    if (i == 0) {
        g_string_append(out, "# kind\tid\tthread\tframe\ttrace\tref\twhat\n");
        i = 1;
    }
    for (; i <= sn->roots->len; i++) {
        if (hf_budget_spent(out, start, budget))
            return i;
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i - 1);
        bool thread_obj = r->kind == HF_ROOT_THREAD_OBJECT;
        g_string_append_printf(out, "%s\t" HF_FMT_ID "\t%u\t%d\t%u\t" HF_FMT_ID "\t",
                               hf_root_names[r->kind], (guint64)r->id, r->thread,
                               (int32_t)r->frame, thread_obj ? (uint32_t)r->extra : 0,
                               (guint64)(r->kind == HF_ROOT_JNI_GLOBAL ? r->extra : 0));
        append_what(h, sn, r->id, out);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

void hf_heap_escape_line(GString *out, const char *s, size_t n)
{
    hf_escape_text(out, s, n);
}

uint64_t hf_heap_view_strings(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                size_t budget)
{
    hf_heap *h = (hf_heap *)d;
    uint32_t s = v->snap;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    if (sn->string_class == UINT32_MAX)
        return HF_DONE;
    size_t start = out->len;
    if (first == 0) /* item 0 is the header; item o + 1 is object o */
        g_string_append(out, "# id\ttext\n");
    GString *t = g_string_new(NULL);
    for (uint64_t o = first ? first - 1 : 0; o < sn->n_objects; o++) {
        if (hf_heap_cls(sn, o) != sn->string_class)
            continue;
        if (hf_budget_spent(out, start, budget)) {
            g_string_free(t, TRUE);
            return o + 1;
        }
        hf_hobj ob;
        if (!hf_heap_decode(h, sn, o, &ob))
            continue;
        g_string_truncate(t, 0);
        hf_heap_text(h, sn, &ob, t);
        g_string_append_printf(out, HF_FMT_ID "\t", (guint64)ob.id);
        hf_heap_escape_line(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_string_free(t, TRUE);
    return HF_DONE;
}

void hf_heap_render_counts(const hf_heap *h, GString *out)
{
    uint64_t classes = 0, objects = 0, roots = 0;
    for (guint s = 0; s < h->snaps->len; s++) {
        const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        classes += sn->classes->len;
        objects += sn->n_objects;
        roots += sn->roots->len;
    }
    g_string_append_printf(out, "snapshots: %u\n", h->snaps->len);
    g_string_append_printf(out, "classes: %" G_GUINT64_FORMAT "\n", classes);
    g_string_append_printf(out, "objects: %" G_GUINT64_FORMAT "\n", objects);
    /* the format's own count: V8's traces are its call trees', not the layer's */
    hf_dump *d = (hf_dump *)&h->base;
    g_string_append_printf(out, "traces: %" G_GUINT64_FORMAT "\n",
                           d->ops->n_traces ? d->ops->n_traces(d) : h->traces->len);
    g_string_append_printf(out, "threads: %u\n", h->threads->len);
    g_string_append_printf(out, "roots: %" G_GUINT64_FORMAT "\n", roots);
}

void hf_heap_render_snap_info(hf_heap *h, uint32_t s, GString *out)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    g_string_append_printf(out, "snapshot: %" G_GUINT64_FORMAT "\n", (guint64)sn->number);
    g_string_append_printf(out, "classes: %u\n", sn->classes->len);
    g_string_append_printf(out, "objects: %" G_GUINT64_FORMAT "\n", (guint64)sn->n_objects);
    static const char *const kinds[4] = {"instances", "object arrays", "primitive arrays",
                                         "class objects"};
    for (int k = 0; k < 4; k++)
        g_string_append_printf(out, "%s: %" G_GUINT64_FORMAT "\n", kinds[k],
                               (guint64)sn->n_kind[k]);
    /* what classes/java.lang.Class counts, and why a JVM's histogram says
     * more: HotSpot's dumper writes a mirror only as the CLASS DUMP of a
     * loaded class (primitive types' mirrors as instances) and leaves out
     * the CDS archive's dormant mirrors, which GC.class_histogram counts */
    if (sn->class_class < sn->classes->len) {
        uint64_t all = hf_heap_class(sn, sn->class_class)->count, cls = sn->n_kind[3];
        g_string_append_printf(out, "java.lang.Class objects: %" G_GUINT64_FORMAT " = %"
                               G_GUINT64_FORMAT " class objects (one per class the dump defines)"
                               " + %" G_GUINT64_FORMAT " other instances (the primitive types'"
                               " mirrors, int.class ...); a JVM's class histogram also counts"
                               " the mirrors its CDS archive keeps for classes not loaded, which"
                               " no heap dump holds\n", (guint64)all, (guint64)cls,
                               (guint64)(all > cls ? all - cls : 0));
    }
    g_string_append_printf(out, "bytes: %" G_GUINT64_FORMAT "\n", (guint64)sn->total_bytes);
    g_string_append_printf(out, "roots: %u\n", sn->roots->len);
    uint64_t strings = sn->string_class != UINT32_MAX
                           ? hf_heap_class(sn, sn->string_class)->count : 0;
    g_string_append_printf(out, "strings: %" G_GUINT64_FORMAT "\n", (guint64)strings);
    if (sn->heap_names->len) {
        g_string_append(out, "heaps:");
        for (guint i = 0; i < sn->heap_names->len; i++) {
            g_string_append_c(out, ' ');
            hf_escape_str(out, g_ptr_array_index(sn->heap_names, i));
        }
        g_string_append_c(out, '\n');
    }
}

/* ---- traces and threads ---- */

void hf_heap_frame_text(const hf_heap *h, uint32_t fi, bool full, GString *out)
{
    if (fi >= h->frames->len) {
        g_string_append(out, "<unknown frame>");
        return;
    }
    const hf_hframe *f = &g_array_index(h->frames, hf_hframe, fi);
    hf_escape_str(out, f->cls ? f->cls : "<unknown class>");
    g_string_append_c(out, '.');
    hf_escape_str(out, f->method ? f->method : "<unknown method>");
    if (!full)
        return;
    bool src = f->source && *f->source;
    if (f->line == -3)
        g_string_append(out, "(Native Method)");
    else if (f->line == -2)
        g_string_append(out, "(Compiled method)");
    else if (!src || f->line == -1)
        g_string_append(out, "(Unknown Source)");
    else {
        g_string_append_c(out, '(');
        hf_escape_str(out, f->source);
        if (f->line > 0)
            g_string_append_printf(out, ":%d", f->line);
        g_string_append_c(out, ')');
    }
}

/* A frame line of traces/N and a thread's stack. */
static void append_frame(const hf_heap *h, uint32_t fi, GString *out)
{
    g_string_append_c(out, '\t');
    hf_heap_frame_text(h, fi, true, out);
    g_string_append_c(out, '\n');
}

void hf_heap_render_trace(const hf_heap *h, const hf_htrace *t, GString *out)
{
    g_string_append_printf(out, "TRACE %u: (thread=%u)\n", t->serial, t->thread);
    if (!t->n)
        g_string_append(out, "\t<empty>\n");
    for (uint32_t i = 0; i < t->n; i++)
        append_frame(h, g_array_index(h->trace_frames, uint32_t, t->first + i), out);
}

static bool is_thread_root(const hf_hroot *r, uint32_t serial)
{
    if (r->thread != serial)
        return false;
    return r->kind == HF_ROOT_JNI_LOCAL || r->kind == HF_ROOT_JAVA_FRAME ||
           r->kind == HF_ROOT_NATIVE_STACK || r->kind == HF_ROOT_THREAD_BLOCK ||
           r->kind == HF_ROOT_JNI_MONITOR;
}

static void append_local(const hf_heap *h, const hf_hsnap *sn, const hf_hroot *r, GString *out)
{
    g_string_append_printf(out, "\t\t%s " HF_FMT_ID " ",
                           r->kind == HF_ROOT_JNI_LOCAL || r->kind == HF_ROOT_JAVA_FRAME
                               ? "local" : hf_root_names[r->kind],
                           (guint64)r->id);
    append_what(h, sn, r->id, out);
    g_string_append_c(out, '\n');
}

static const hf_hthread *view_thread(hf_dump *d, const hf_view *v)
{
    const hf_heap *h = (hf_heap *)d;
    return v->index < h->threads->len ? &g_array_index(h->threads, hf_hthread, v->index) : NULL;
}

uint64_t hf_heap_view_thread_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hthread *t = view_thread(d, v);
    if (t) {
        g_string_append_printf(out, "serial: %u\n", t->serial);
        g_string_append_printf(out, "object: " HF_FMT_ID "\n", (guint64)t->obj);
        hf_escape_key(out, "name", t->name);
        hf_escape_key(out, "group", t->group);
        hf_escape_key(out, "parent group", t->parent);
        g_string_append_printf(out, "trace: %u\n", t->trace);
    }
    return HF_DONE;
}

uint64_t hf_heap_view_thread_stack(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    const hf_heap *h = (hf_heap *)d;
    const hf_hthread *t = view_thread(d, v);
    if (!t)
        return HF_DONE;
    const hf_hsnap *sn = hf_heap_snap(h, t->snap);
    const hf_htrace *tr = t->trace ? hf_heap_trace_by_serial(h, t->trace) : NULL;
    uint32_t nframes = tr ? tr->n : 0;
    if (!nframes)
        g_string_append(out, "\t<empty>\n");
    for (uint32_t i = 0; i < nframes; i++) {
        append_frame(h, g_array_index(h->trace_frames, uint32_t, tr->first + i), out);
        for (guint k = 0; sn && k < sn->roots->len; k++) {
            const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, k);
            if (is_thread_root(r, t->serial) && r->frame == i)
                append_local(h, sn, r, out);
        }
    }
    bool header = false;
    for (guint k = 0; sn && k < sn->roots->len; k++) {
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, k);
        if (!is_thread_root(r, t->serial) || (r->frame < nframes && r->frame != UINT32_MAX &&
                                              r->kind != HF_ROOT_NATIVE_STACK &&
                                              r->kind != HF_ROOT_THREAD_BLOCK))
            continue;
        if (!header)
            g_string_append(out, "\t<no frame>\n");
        header = true;
        append_local(h, sn, r, out);
    }
    return HF_DONE;
}

uint64_t hf_heap_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    const hf_heap *h = (hf_heap *)d;
    if (v->index < h->traces->len)
        hf_heap_render_trace(h, &g_array_index(h->traces, hf_htrace, v->index), out);
    return HF_DONE;
}
