/*
 * heap_render.c - the views of the neutral heap graph: histogram, roots,
 * strings, snapshot info, classes, objects, traces and threads.
 *
 * Protocol (model.h): render from item `first`, stop after `budget` bytes,
 * return the next item or HF_DONE.  Items are lines, except where a view
 * walks the object index (instances, strings): there an item is an object
 * index, so a chunk starts where the last one stopped without rescanning.
 * The same `first` always gives the same bytes.
 *
 * Read-only over the finished graph: thread-safe.
 */
#include "decoders/heap/heap.h"

#include <string.h>

#define FMT_ID "0x%" G_GINT64_MODIFIER "x"

/* Stop once budget bytes were added, but never before the first item:
 * every call makes progress, even with a budget of 0. */
static bool full(const GString *out, size_t start, size_t budget)
{
    return out->len > start && out->len - start >= budget;
}

/* Name of what object `id` is: the class it describes for a class object,
 * else its class; "?" when the snapshot lacks it. */
static void append_what(const hf_heap *h, const hf_hsnap *sn, uint64_t id, GString *out)
{
    int64_t o = hf_heap_find_id(h, sn, id);
    if (o < 0) {
        g_string_append_c(out, '?');
        return;
    }
    const hf_hclass *c = hf_heap_class(sn, sn->cls[o]);
    if (sn->cls[o] == sn->class_class) {
        int64_t self = hf_heap_class_by_id(sn, id);
        if (self >= 0) {
            g_string_append(out, "class ");
            c = hf_heap_class(sn, (uint64_t)self);
        }
    }
    g_string_append(out, c->dir);
}

/* ---- snapshot files ---- */

uint64_t hf_heap_render_histogram(hf_heap *h, uint32_t s, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    size_t start = out->len;
    uint64_t i = first;
    if (i == 0) {
        g_string_append(out, "#  instances        bytes  class\n");
        i = 1;
    }
    for (; i <= sn->n_hist; i++) {
        if (full(out, start, budget))
            return i;
        const hf_hclass *c = hf_heap_class(sn, sn->hist[i - 1]);
        g_string_append_printf(out, "%12" G_GUINT64_FORMAT "%13" G_GUINT64_FORMAT "  %s\n",
                               (guint64)c->count, (guint64)c->bytes, c->dir);
    }
    return HF_DONE;
}

uint64_t hf_heap_render_roots(hf_heap *h, uint32_t s, uint64_t first, GString *out,
                              size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    size_t start = out->len;
    for (uint64_t i = first; i < sn->roots->len; i++) {
        if (full(out, start, budget))
            return i;
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i);
        g_string_append_printf(out, "%s " FMT_ID, hf_root_names[r->kind], (guint64)r->id);
        switch (r->kind) {
        case HF_ROOT_JNI_LOCAL:
        case HF_ROOT_JAVA_FRAME:
        case HF_ROOT_JNI_MONITOR:
            g_string_append_printf(out, " thread=%u", r->thread);
            if (r->frame != UINT32_MAX)
                g_string_append_printf(out, " frame=%d", (int32_t)r->frame);
            break;
        case HF_ROOT_NATIVE_STACK:
        case HF_ROOT_THREAD_BLOCK:
            g_string_append_printf(out, " thread=%u", r->thread);
            break;
        case HF_ROOT_THREAD_OBJECT:
            g_string_append_printf(out, " thread=%u trace=%u", r->thread, (uint32_t)r->extra);
            break;
        case HF_ROOT_JNI_GLOBAL:
            g_string_append_printf(out, " ref=" FMT_ID, (guint64)r->extra);
            break;
        }
        g_string_append_c(out, ' ');
        append_what(h, sn, r->id, out);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

void hf_heap_escape_line(GString *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            g_string_append(out, "\\n");
        else if (s[i] == '\r')
            g_string_append(out, "\\r");
        else if (s[i] == '\\')
            g_string_append(out, "\\\\");
        else if (s[i] == '\0') /* a NUL byte makes grep call the file binary */
            g_string_append(out, "\\0");
        else
            g_string_append_c(out, s[i]);
    }
}

uint64_t hf_heap_render_strings(hf_heap *h, uint32_t s, uint64_t first, GString *out,
                                size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    if (sn->string_class == UINT32_MAX)
        return HF_DONE;
    size_t start = out->len;
    GString *t = g_string_new(NULL);
    for (uint64_t o = first; o < sn->n_objects; o++) {
        if (sn->cls[o] != sn->string_class)
            continue;
        if (full(out, start, budget)) {
            g_string_free(t, TRUE);
            return o;
        }
        hf_hobj ob;
        if (!hf_heap_decode(h, sn, o, &ob))
            continue;
        g_string_truncate(t, 0);
        hf_heap_text(h, sn, &ob, t);
        g_string_append_printf(out, FMT_ID " ", (guint64)ob.id);
        hf_heap_escape_line(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_string_free(t, TRUE);
    return HF_DONE;
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
    g_string_append_printf(out, "bytes: %" G_GUINT64_FORMAT "\n", (guint64)sn->total_bytes);
    g_string_append_printf(out, "roots: %u\n", sn->roots->len);
    uint64_t strings = sn->string_class != UINT32_MAX
                           ? hf_heap_class(sn, sn->string_class)->count : 0;
    g_string_append_printf(out, "strings: %" G_GUINT64_FORMAT "\n", (guint64)strings);
    if (sn->heap_names->len) {
        g_string_append(out, "heaps:");
        for (guint i = 0; i < sn->heap_names->len; i++)
            g_string_append_printf(out, " %s", (const char *)g_ptr_array_index(sn->heap_names, i));
        g_string_append_c(out, '\n');
    }
}

/* ---- classes ---- */

static const char *class_dir(const hf_hsnap *sn, int64_t c)
{
    return c >= 0 ? hf_heap_class(sn, (uint64_t)c)->dir : "none";
}

static uint64_t render_class(hf_heap *h, const hf_hsnap *sn, uint64_t ci, uint32_t file,
                             uint64_t first, GString *out, size_t budget)
{
    const hf_hclass *c = hf_heap_class(sn, ci);
    if (!c)
        return HF_DONE;
    switch (file) {
    case HF_CLASS_INFO:
        if (c->synthetic && !c->id)
            g_string_append(out, "id: none (not in the dump)\n");
        else
            g_string_append_printf(out, "id: " FMT_ID "\n", (guint64)c->id);
        g_string_append_printf(out, "name: %s\n", c->name);
        g_string_append_printf(out, "super: %s\n", class_dir(sn, c->super));
        if (c->loader_id)
            g_string_append_printf(out, "loader: " FMT_ID "\n", (guint64)c->loader_id);
        else
            g_string_append(out, "loader: none (bootstrap)\n");
        if (c->elem)
            g_string_append_printf(out, "array of: %s\n",
                                   c->elem == HF_T_OBJECT ? "object" : hf_btype_name(c->elem));
        else
            g_string_append_printf(out, "instance size: %" G_GUINT64_FORMAT
                                   " (size rule; the dump says %u bytes of fields)\n",
                                   (guint64)c->shallow, c->inst_size);
        if (c->omitted)
            g_string_append_printf(out, "fields left out of the dump: %u bytes (counted in "
                                   "the instance size, not listed in fields)\n", c->omitted);
        g_string_append_printf(out, "instance count: %" G_GUINT64_FORMAT "\n", (guint64)c->count);
        g_string_append_printf(out, "total bytes: %" G_GUINT64_FORMAT "\n", (guint64)c->bytes);
        if (c->trace)
            g_string_append_printf(out, "trace: %u\n", c->trace);
        return HF_DONE;
    case HF_CLASS_FIELDS:
        for (uint32_t i = 0; i < c->n_fields; i++) {
            const hf_hfield *f = &c->fields[i];
            g_string_append_printf(out, "%s %s", f->name, hf_btype_name(f->type));
            if (f->decl != ci)
                g_string_append_printf(out, " from %s", hf_heap_class(sn, f->decl)->dir);
            g_string_append_c(out, '\n');
        }
        return HF_DONE;
    case HF_CLASS_STATICS:
        for (uint32_t i = 0; i < c->n_statics; i++) {
            const hf_hstatic *st = &c->statics[i];
            g_string_append_printf(out, "%s %s ", st->name,
                                   hf_btype_name(st->type) ? hf_btype_name(st->type) : "?");
            hf_heap_format_value(out, st->type, st->value);
            g_string_append_c(out, '\n');
        }
        return HF_DONE;
    case HF_CLASS_INSTANCES: {
        size_t start = out->len;
        for (uint64_t o = first; o < sn->n_objects; o++) {
            if (sn->cls[o] != ci)
                continue;
            if (full(out, start, budget))
                return o;
            g_string_append_printf(out, FMT_ID "\n", (guint64)hf_heap_object_id(h, sn, o));
        }
        return HF_DONE;
    }
    }
    return HF_DONE;
}

/* ---- objects ---- */

/* Elements [first, ...) of array ob as "[i] value" lines or bare values. */
static uint64_t render_elements(hf_heap *h, const hf_hobj *ob, bool indexed, uint64_t first,
                                GString *out, size_t budget)
{
    size_t start = out->len;
    for (uint64_t i = first; i < ob->length; i++) {
        if (full(out, start, budget))
            return i;
        uint64_t v = 0;
        h->codec->element(h, ob, i, &v);
        if (indexed)
            g_string_append_printf(out, "[%" G_GUINT64_FORMAT "] ", (guint64)i);
        hf_heap_format_value(out, ob->elem, v);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

/* value of a char[] or byte[] in chunks of elements; item = element index. */
static uint64_t render_array_text(hf_heap *h, const hf_hobj *ob, uint64_t first, GString *out,
                                  size_t budget)
{
    size_t start = out->len;
    uint64_t i = first;
    while (i < ob->length) {
        if (full(out, start, budget))
            return i;
        uint64_t n = ob->length - i < 4096 ? ob->length - i : 4096;
        uint64_t v;
        if (ob->elem == HF_T_CHAR) {
            /* never end a chunk between the halves of a surrogate pair */
            if (i + n < ob->length && h->codec->element(h, ob, i + n - 1, &v) && v >= 0xD800 &&
                v < 0xDC00)
                n++;
            for (uint64_t k = i; k < i + n; k++) {
                h->codec->element(h, ob, k, &v);
                uint32_t u = (uint32_t)v;
                uint64_t lo;
                if (u >= 0xD800 && u < 0xDC00 && k + 1 < i + n &&
                    h->codec->element(h, ob, k + 1, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    g_string_append_unichar(out, 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)lo - 0xDC00));
                    k++;
                    continue;
                }
                g_string_append_unichar(out, u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
            }
        } else if (h->codec->fixed_be) {
            g_string_append_len(out, (const char *)ob->data + i, (gssize)n);
        } else {
            for (uint64_t k = i; k < i + n; k++) {
                h->codec->element(h, ob, k, &v);
                g_string_append_c(out, (char)v);
            }
        }
        i += n;
    }
    return HF_DONE;
}

static uint64_t render_object(hf_heap *h, const hf_hsnap *sn, uint64_t o, uint32_t file,
                              uint64_t first, GString *out, size_t budget)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, o, &ob))
        return HF_DONE;
    const hf_hclass *c = hf_heap_class(sn, ob.cls);
    const hf_hclass *self = NULL;
    if (ob.kind == HF_K_CLASS) {
        int64_t k = hf_heap_class_by_id(sn, ob.id);
        self = k >= 0 ? hf_heap_class(sn, (uint64_t)k) : NULL;
    }
    switch (file) {
    case HF_OBJ_INFO: {
        g_string_append_printf(out, "id: " FMT_ID "\n", (guint64)ob.id);
        g_string_append_printf(out, "class: %s\n", c->dir);
        g_string_append_printf(out, "kind: %s\n", hf_okind_names[ob.kind]);
        g_string_append_printf(out, "size: %" G_GUINT64_FORMAT "\n",
                               (guint64)hf_heap_shallow(h, sn, &ob));
        if (ob.kind == HF_K_OBJARRAY || ob.kind == HF_K_PRIMARRAY)
            g_string_append_printf(out, "length: %" G_GUINT64_FORMAT "%s\n", (guint64)ob.length,
                                   ob.nodata ? " (elements not in the dump)" : "");
        if (self)
            g_string_append_printf(out, "describes: %s\n", self->dir);
        const char *heap = hf_heap_heap_name(sn, ob.loc);
        if (heap)
            g_string_append_printf(out, "heap: %s\n", heap);
        if (ob.trace)
            g_string_append_printf(out, "allocation trace: %u\n", ob.trace);
        else
            g_string_append(out, "allocation trace: none\n");
        return HF_DONE;
    }
    case HF_OBJ_FIELDS:
        if (ob.kind == HF_K_INSTANCE) {
            for (uint32_t i = 0; i < c->n_fields; i++) {
                const hf_hfield *f = &c->fields[i];
                uint64_t v;
                g_string_append_printf(out, "%s %s ", f->refname, hf_btype_name(f->type));
                if (hf_heap_field(h, sn, &ob, i, &v))
                    hf_heap_format_value(out, f->type, v);
                else
                    g_string_append(out, "?");
                g_string_append_c(out, '\n');
            }
            return HF_DONE;
        }
        if (ob.kind == HF_K_CLASS) {
            for (uint32_t i = 0; self && i < self->n_statics; i++) {
                const hf_hstatic *st = &self->statics[i];
                g_string_append_printf(out, "%s %s ", st->name,
                                       hf_btype_name(st->type) ? hf_btype_name(st->type) : "?");
                hf_heap_format_value(out, st->type, st->value);
                g_string_append_c(out, '\n');
            }
            return HF_DONE;
        }
        return ob.nodata ? HF_DONE : render_elements(h, &ob, true, first, out, budget);
    case HF_OBJ_VALUE:
        if (ob.kind == HF_K_INSTANCE) {
            hf_heap_text(h, sn, &ob, out); /* a String: whole */
            return HF_DONE;
        }
        if (ob.kind != HF_K_PRIMARRAY || ob.nodata)
            return HF_DONE;
        if (ob.elem == HF_T_CHAR || ob.elem == HF_T_BYTE)
            return render_array_text(h, &ob, first, out, budget);
        return render_elements(h, &ob, false, first, out, budget);
    }
    return HF_DONE;
}

/* ---- traces and threads ---- */

static void append_frame(const hf_heap *h, uint32_t fi, GString *out)
{
    if (fi >= h->frames->len) {
        g_string_append(out, "\t<unknown frame>\n");
        return;
    }
    const hf_hframe *f = &g_array_index(h->frames, hf_hframe, fi);
    g_string_append_printf(out, "\t%s.%s(", f->cls ? f->cls : "<unknown class>", f->method);
    bool src = f->source && *f->source;
    if (f->line == -3)
        g_string_append(out, "Native Method");
    else if (f->line == -2)
        g_string_append(out, "Compiled method");
    else if (!src || f->line == -1)
        g_string_append(out, "Unknown Source");
    else if (f->line > 0)
        g_string_append_printf(out, "%s:%d", f->source, f->line);
    else
        g_string_append(out, f->source);
    g_string_append(out, ")\n");
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
    g_string_append_printf(out, "\t\t%s " FMT_ID " ",
                           r->kind == HF_ROOT_JNI_LOCAL || r->kind == HF_ROOT_JAVA_FRAME
                               ? "local" : hf_root_names[r->kind],
                           (guint64)r->id);
    append_what(h, sn, r->id, out);
    g_string_append_c(out, '\n');
}

static void render_thread(const hf_heap *h, const hf_hthread *t, uint32_t file, GString *out)
{
    const hf_hsnap *sn = hf_heap_snap(h, t->snap);
    const hf_htrace *tr = t->trace ? hf_heap_trace_by_serial(h, t->trace) : NULL;
    if (file == HF_THREAD_INFO) {
        g_string_append_printf(out, "serial: %u\n", t->serial);
        g_string_append_printf(out, "object: " FMT_ID "\n", (guint64)t->obj);
        if (t->name)
            g_string_append_printf(out, "name: %s\n", t->name);
        if (t->group)
            g_string_append_printf(out, "group: %s\n", t->group);
        if (t->parent)
            g_string_append_printf(out, "parent group: %s\n", t->parent);
        g_string_append_printf(out, "trace: %u\n", t->trace);
        return;
    }
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
}

uint64_t hf_heap_render(hf_heap *h, const hf_view *v, uint64_t first, GString *out,
                        size_t budget)
{
    switch (v->kind) {
    case HF_V_TRACE:
        if (v->index < h->traces->len)
            hf_heap_render_trace(h, &g_array_index(h->traces, hf_htrace, v->index), out);
        return HF_DONE;
    case HF_V_THREAD:
        if (v->index < h->threads->len)
            render_thread(h, &g_array_index(h->threads, hf_hthread, v->index), v->file, out);
        return HF_DONE;
    case HF_V_CLASS: {
        const hf_hsnap *sn = hf_heap_snap(h, v->snap);
        return sn ? render_class(h, sn, v->index, v->file, first, out, budget) : HF_DONE;
    }
    case HF_V_OBJECT: {
        const hf_hsnap *sn = hf_heap_snap(h, v->snap);
        return sn ? render_object(h, sn, v->index, v->file, first, out, budget) : HF_DONE;
    }
    default:
        return HF_DONE;
    }
}
