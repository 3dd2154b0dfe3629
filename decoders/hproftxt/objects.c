/*
 * objects.c - objects of a text heap dump (an extra of this format): their
 * fields and refs/ are read from the lines under each OBJ / ARR record
 * ("\tname\t\tID", "\t[i]\t\tID"), since the text has only the non-null
 * references (see heap.c); everything else about classes and objects is
 * the heap layer's.  Also the model ops that hide classes/ and objects/ in
 * snapshots without a HEAP DUMP.  decoder.c puts these in its tables.
 *
 * Thread-safe: reads the mapped file and the finished index only.
 */
#include "decoders/hproftxt/hproftxt.h"

#include "decoders/core/names.h"
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"

#include <inttypes.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))

static bool has_heap(hf_dump *d, uint32_t s)
{
    return hproftxt_has_heap(d, s, 0);
}

/* Calls fn(name, len, id) for each sub-line of the record at loc. */
typedef bool (*sub_fn)(const char *name, size_t len, uint64_t id, void *ud);

static void each_sub(const hf_heap *h, uint64_t loc, sub_fn fn, void *ud)
{
    const char *d = (const char *)h->base.data;
    size_t size = h->base.size;
    if (loc >= size)
        return;
    const char *nl = memchr(d + loc, '\n', size - loc);
    size_t pos = nl ? (size_t)(nl - d) + 1 : size;
    while (pos < size && d[pos] == '\t') {
        nl = memchr(d + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - d) : size;
        size_t len = end - pos;
        if (len && d[pos + len - 1] == '\r')
            len--;
        const char *name;
        size_t n;
        uint64_t id;
        if (hproftxt_sub_line(d + pos, len, &name, &n, &id) && !fn(name, n, id, ud))
            return;
        pos = end + 1;
    }
}

typedef struct {
    const char *name; /* wanted field name, or NULL: element index */
    uint64_t index;   /* name: how many lines of that name to pass first */
    uint64_t id;      /* found: the target, 0 when none */
} find_ud;

static bool find_cb(const char *name, size_t len, uint64_t id, void *ud)
{
    find_ud *f = ud;
    if (f->name) {
        if (strlen(f->name) == len && memcmp(f->name, name, len) == 0 && f->index-- == 0) {
            f->id = id;
            return false;
        }
        return true;
    }
    /* "[i]" */
    if (len >= 3 && name[0] == '[' && name[len - 1] == ']' &&
        g_ascii_strtoull(name + 1, NULL, 10) == f->index) {
        f->id = id;
        return false;
    }
    return true;
}

static uint64_t sub_value(const hf_heap *h, uint64_t loc, const char *name, uint64_t index)
{
    find_ud f = {name, index, 0};
    each_sub(h, loc, find_cb, &f);
    return f.id;
}

/* Value of field i of an instance of c at loc, 0 when its line is absent.
 * Fields of one name (a shadowed one) are listed by the agent super class
 * first, the layer's fields nearest class first: field i is the line that
 * has as many lines of its name before it as c has fields of that name
 * after i.  (The text lists only non-null values: when one of them is
 * null, the one line left is taken for the farthest class's.) */
static uint64_t field_value(const hf_heap *h, const hf_hsnap *sn, const hf_hclass *c, uint32_t i,
                            uint64_t loc)
{
    uint32_t off;
    const hf_hfield *f = hf_hfield_at(sn, c, i, &off);
    if (!f)
        return 0;
    uint64_t later = 0;
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    while (hf_hfields_next(&it))
        later += it.index > i && strcmp(it.f->name, f->name) == 0;
    hf_hfields_end(&it);
    return sub_value(h, loc, f->name, later);
}

/* ---- fields view ---- */

static bool elem_cb(const char *name, size_t len, uint64_t id, void *ud)
{
    GArray *a = ud;
    if (len >= 3 && name[0] == '[' && name[len - 1] == ']') {
        uint64_t i = g_ascii_strtoull(name + 1, NULL, 10);
        if (i < a->len)
            g_array_index(a, uint64_t, i) = id;
    }
    return true;
}

/* Instances: every reference field of the class with its value (null when
 * the text lists none); object arrays: "i value" for every element; the
 * binary formats' columns (decoders/heap/objects.c). */
static bool render_fields(hproftxt_dump *t, uint32_t s, uint64_t o, GString *out)
{
    hf_heap *h = &t->heap;
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return false;
    if (ob.kind == HF_K_INSTANCE) {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        hf_hfields it;
        hf_hfields_begin(&it, sn, c);
        g_string_append(out, "# name\ttype\tvalue\n");
        while (hf_hfields_next(&it)) {
            uint64_t v = field_value(h, sn, c, it.index, ob.loc);
            hf_escape_str(out, hf_hfields_refname(&it));
            g_string_append(out, "\tobject\t");
            hf_heap_format_value(out, HF_T_OBJECT, v);
            g_string_append_c(out, '\n');
        }
        hf_hfields_end(&it);
        return true;
    }
    if (ob.kind == HF_K_OBJARRAY) {
        GArray *a = g_array_new(FALSE, TRUE, sizeof(uint64_t));
        g_array_set_size(a, (guint)MIN(ob.length, (uint64_t)G_MAXUINT32));
        each_sub(h, ob.loc, elem_cb, a);
        g_string_append(out, "# index\tvalue\n");
        for (guint i = 0; i < a->len; i++) {
            g_string_append_printf(out, "%u\t", i);
            hf_heap_format_value(out, HF_T_OBJECT, g_array_index(a, uint64_t, i));
            g_string_append_c(out, '\n');
        }
        g_array_free(a, TRUE);
        return true;
    }
    return false; /* class objects: the layer's statics */
}

uint64_t hproftxt_view_object_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget)
{
    if (render_fields((hproftxt_dump *)d, v->snap, v->index, out))
        return HF_DONE;
    return hf_heap_view_object_fields(d, v, first, out, budget);
}

/* ---- ops ---- */

uint64_t hproftxt_n_classes(hf_dump *d, uint32_t s)
{
    return has_heap(d, s) ? hf_heap_n_classes(d, s) : 0;
}

int64_t hproftxt_class_find(hf_dump *d, uint32_t s, const char *name)
{
    return has_heap(d, s) ? hf_heap_class_find(d, s, name) : -1;
}

uint64_t hproftxt_n_objects(hf_dump *d, uint32_t s)
{
    return has_heap(d, s) ? hf_heap_n_objects(d, s) : 0;
}

int64_t hproftxt_object_find(hf_dump *d, uint32_t s, const char *name)
{
    return has_heap(d, s) ? hf_heap_object_find(d, s, name) : -1;
}

hf_ref_status hproftxt_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                  char name[HF_NAME_MAX], hf_target *to)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return HF_REF_END;
    uint64_t v;
    if (ob.kind == HF_K_INSTANCE) {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        if (slot >= c->n_fields)
            return HF_REF_END;
        if (!(v = field_value(h, sn, c, slot, ob.loc)) || !hf_hfield_refname(sn, c, slot, name))
            return HF_REF_EMPTY;
    } else if (ob.kind == HF_K_OBJARRAY) {
        if (slot >= ob.length)
            return HF_REF_END;
        if (!(v = sub_value(h, ob.loc, NULL, slot)))
            return HF_REF_EMPTY;
        g_snprintf(name, HF_NAME_MAX, "%u", slot);
    } else {
        return hf_heap_refs_entry(d, s, o, slot, name, to);
    }
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(v, to->name);
    return HF_REF_OK;
}

int64_t hproftxt_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return -1;
    if (ob.kind == HF_K_INSTANCE) {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        int64_t i = hf_hfield_ref_named(sn, c, name);
        return i >= 0 && field_value(h, sn, c, (uint32_t)i, ob.loc) ? i : -1;
    }
    if (ob.kind == HF_K_OBJARRAY) {
        uint64_t i;
        if (!hf_parse_decimal(name, &i) || i >= ob.length || !sub_value(h, ob.loc, NULL, i))
            return -1;
        return (int64_t)i;
    }
    return hf_heap_refs_find(d, s, o, name);
}
