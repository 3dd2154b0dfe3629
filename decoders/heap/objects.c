/*
 * objects.c - the files of classes/NAME/ and objects/0xID/ for every heap
 * format: one renderer per file (model.h protocol), and the has() tests
 * that say which objects have which file.  The tables that list them are
 * in parts.c.
 *
 * Items are lines, except `instances` (an item is an object index, so a
 * chunk starts where the last one stopped without rescanning) and array
 * `fields`/`value` (an item is an element).
 *
 * Read-only over the finished graph: thread-safe.
 */
#include "decoders/core/names.h"
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* The class and object a view is about, NULL when out of range. */
static const hf_hclass *view_class(hf_dump *d, const hf_view *v, const hf_hsnap **sn)
{
    *sn = hf_heap_snap(H(d), v->snap);
    return *sn ? hf_heap_class(*sn, v->index) : NULL;
}

static bool view_object(hf_dump *d, const hf_view *v, const hf_hsnap **sn, hf_hobj *ob)
{
    *sn = hf_heap_snap(H(d), v->snap);
    return *sn && hf_heap_decode(H(d), *sn, v->index, ob);
}

/* The class a class object describes, or NULL. */
const hf_hclass *hf_heap_described(const hf_hsnap *sn, const hf_hobj *ob)
{
    if (ob->kind != HF_K_CLASS)
        return NULL;
    int64_t self = hf_heap_class_by_id(sn, ob->id);
    return self >= 0 ? hf_heap_class(sn, (uint64_t)self) : NULL;
}

/* ---- classes ---- */

static const char *class_dir(const hf_hsnap *sn, int64_t c)
{
    return c >= 0 ? hf_heap_class(sn, (uint64_t)c)->dir : "none";
}

uint64_t hf_heap_view_class_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    const hf_hsnap *sn;
    const hf_hclass *c = view_class(d, v, &sn);
    if (!c)
        return HF_DONE;
    if (c->synthetic && !c->id)
        g_string_append(out, "id: none (not in the dump)\n");
    else
        g_string_append_printf(out, "id: " HF_FMT_ID "\n", (guint64)c->id);
    hf_escape_key(out, "name", c->name);
    hf_escape_key(out, "super", class_dir(sn, c->super));
    if (c->loader_id)
        g_string_append_printf(out, "loader: " HF_FMT_ID "\n", (guint64)c->loader_id);
    else
        g_string_append(out, "loader: none (bootstrap)\n");
    if (c->elem)
        g_string_append_printf(out, "array of: %s\n",
                               c->elem == HF_T_OBJECT ? "object" : hf_btype_name(c->elem));
    else if (c->own_refs && v->index != sn->class_class &&
             hf_heap_rule_size(H(d), sn, c) != c->shallow)
        g_string_append_printf(out, "instance size: %" G_GUINT64_FORMAT " (from the object "
                               "addresses, the rule says %" G_GUINT64_FORMAT "; the dump says "
                               "%u bytes of fields)\n", (guint64)c->shallow,
                               (guint64)hf_heap_rule_size(H(d), sn, c), c->inst_size);
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
}

uint64_t hf_heap_view_class_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    const hf_hsnap *sn;
    const hf_hclass *c = view_class(d, v, &sn);
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    hf_hfields_seek(&it, (uint32_t)MIN(first, UINT32_MAX));
    if (first == 0)
        g_string_append(out, "# name\ttype\tclass\n");
    size_t start = out->len; /* after the header: the first field is always written */
    uint64_t next = HF_DONE;
    while (next == HF_DONE && hf_hfields_next(&it)) {
        if (hf_budget_spent(out, start, budget)) {
            next = it.index;
            break;
        }
        hf_escape_str(out, it.f->name);
        g_string_append_printf(out, "\t%s\t", hf_btype_name(it.f->type));
        hf_escape_str(out, hf_heap_class(sn, it.f->decl)->dir);
        g_string_append_c(out, '\n');
    }
    hf_hfields_end(&it);
    return next;
}

/* "name type value" rows, the header first. */
static void append_statics(const hf_hclass *c, GString *out)
{
    g_string_append(out, "# name\ttype\tvalue\n");
    for (uint32_t i = 0; c && i < c->n_statics; i++) {
        const hf_hstatic *st = &c->statics[i];
        hf_escape_str(out, st->name);
        g_string_append_printf(out, "\t%s\t",
                               hf_btype_name(st->type) ? hf_btype_name(st->type) : "?");
        hf_heap_format_value(out, st->type, st->value);
        g_string_append_c(out, '\n');
    }
}

uint64_t hf_heap_view_class_statics(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget)
{
    const hf_hsnap *sn;
    append_statics(view_class(d, v, &sn), out);
    return HF_DONE;
}

uint64_t hf_heap_view_class_instances(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget)
{
    const hf_hsnap *sn;
    if (!view_class(d, v, &sn))
        return HF_DONE;
    size_t start = out->len;
    for (uint64_t o = first; o < sn->n_objects; o++) {
        if (hf_heap_cls(sn, o) != v->index)
            continue;
        if (hf_budget_spent(out, start, budget))
            return o;
        g_string_append_printf(out, HF_FMT_ID "\n", (guint64)hf_heap_object_id(H(d), sn, o));
    }
    return HF_DONE;
}

bool hf_heap_has_class_statics(hf_dump *d, uint32_t s, uint64_t c)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    return k && k->n_statics;
}

bool hf_heap_has_class_instances(hf_dump *d, uint32_t s, uint64_t c)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    return k && k->count;
}

/* ---- objects ---- */

/* Elements [first, ...) of array ob as "i<TAB>value" rows under a header
 * (fields) or bare values (value). */
static uint64_t render_elements(hf_heap *h, const hf_hobj *ob, bool indexed, uint64_t first,
                                GString *out, size_t budget)
{
    if (indexed && first == 0)
        g_string_append(out, "# index\tvalue\n");
    size_t start = out->len;
    for (uint64_t i = first; i < ob->length; i++) {
        if (hf_budget_spent(out, start, budget))
            return i;
        uint64_t v = 0;
        h->codec->element(h, ob, i, &v);
        if (indexed)
            g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t", (guint64)i);
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
        if (hf_budget_spent(out, start, budget))
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

uint64_t hf_heap_view_object_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hsnap *sn;
    hf_hobj ob;
    if (!view_object(d, v, &sn, &ob))
        return HF_DONE;
    const hf_hclass *c = hf_heap_class(sn, ob.cls), *self = hf_heap_described(sn, &ob);
    g_string_append_printf(out, "id: " HF_FMT_ID "\n", (guint64)ob.id);
    hf_escape_key(out, "class", c->dir);
    g_string_append_printf(out, "kind: %s\n", hf_okind_names[ob.kind]);
    g_string_append_printf(out, "size: %" G_GUINT64_FORMAT "\n",
                           (guint64)hf_heap_shallow(H(d), sn, &ob));
    if (ob.kind == HF_K_OBJARRAY || ob.kind == HF_K_PRIMARRAY)
        g_string_append_printf(out, "length: %" G_GUINT64_FORMAT "%s\n", (guint64)ob.length,
                               ob.nodata ? " (elements not in the dump)" : "");
    if (self)
        hf_escape_key(out, "describes", self->dir);
    const char *heap = hf_heap_heap_name(sn, ob.loc);
    if (heap)
        hf_escape_key(out, "heap", heap);
    if (ob.trace)
        g_string_append_printf(out, "allocation trace: %u\n", ob.trace);
    else
        g_string_append(out, "allocation trace: none\n");
    return HF_DONE;
}

uint64_t hf_heap_view_object_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget)
{
    const hf_hsnap *sn;
    hf_hobj ob;
    if (!view_object(d, v, &sn, &ob))
        return HF_DONE;
    const hf_hclass *c = hf_heap_class(sn, ob.cls);
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        const hf_heap *h = H(d);
        hf_hfields it;
        hf_hfields_begin(&it, sn, c);
        /* variable-width values are read in turn from the first one */
        if (h->codec->fixed_be)
            hf_hfields_seek(&it, (uint32_t)MIN(first, UINT32_MAX));
        const uint8_t *p = ob.data;
        if (first == 0)
            g_string_append(out, "# name\ttype\tvalue\n");
        size_t start = out->len;
        uint64_t next = HF_DONE;
        while (hf_hfields_next(&it)) {
            uint64_t val;
            bool got = h->codec->fixed_be ? hf_heap_field(h, sn, &ob, it.index, &val)
                                          : p && h->codec->value(h, it.f->type, &p, ob.end, &val);
            if (!got)
                p = NULL; /* nor can a variable-width value after one that cannot be */
            if (it.index < first)
                continue;
            if (hf_budget_spent(out, start, budget)) {
                next = it.index;
                break;
            }
            hf_escape_str(out, hf_hfields_refname(&it));
            g_string_append_printf(out, "\t%s\t", hf_btype_name(it.f->type));
            if (got)
                hf_heap_format_value(out, it.f->type, val);
            else
                g_string_append(out, "?");
            g_string_append_c(out, '\n');
        }
        hf_hfields_end(&it);
        return next;
    }
    case HF_K_CLASS:
        append_statics(hf_heap_described(sn, &ob), out);
        return HF_DONE;
    default:
        return ob.nodata ? HF_DONE : render_elements(H(d), &ob, true, first, out, budget);
    }
}

uint64_t hf_heap_view_object_value(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    const hf_hsnap *sn;
    hf_hobj ob;
    if (!view_object(d, v, &sn, &ob))
        return HF_DONE;
    if (ob.kind == HF_K_INSTANCE) {
        hf_heap_text(H(d), sn, &ob, out); /* a String: whole */
        return HF_DONE;
    }
    if (ob.kind != HF_K_PRIMARRAY || ob.nodata)
        return HF_DONE;
    if (ob.elem == HF_T_CHAR || ob.elem == HF_T_BYTE)
        return render_array_text(H(d), &ob, first, out, budget);
    return render_elements(H(d), &ob, false, first, out, budget);
}

bool hf_heap_has_object_fields(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(H(d), sn, o, &ob))
        return false;
    switch (ob.kind) {
    case HF_K_INSTANCE:
    case HF_K_OBJARRAY:
        return true;
    case HF_K_PRIMARRAY:
        return !ob.nodata;
    default: {
        const hf_hclass *c = hf_heap_described(sn, &ob);
        return c && c->n_statics;
    }
    }
}

bool hf_heap_has_object_value(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(H(d), sn, o, &ob))
        return false;
    if (ob.kind == HF_K_INSTANCE)
        return ob.cls == sn->string_class && sn->str_value >= 0;
    return ob.kind == HF_K_PRIMARRAY && !ob.nodata;
}
