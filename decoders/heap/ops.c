/*
 * heap_ops.c - the model ops (hf_dump_ops members) of a heap decoder, and
 * the object helpers they share with the renderers: field values, String
 * text, references.  Everything here only reads the finished hf_heap:
 * thread-safe.
 */
#include "decoders/heap/heap.h"
#include "decoders/core/names.h"

#include <stdlib.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))

/* ---- values ---- */

bool hf_heap_field(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t fi,
                   uint64_t *v)
{
    const hf_hclass *c = hf_heap_class(sn, ob->cls);
    if (!ob->data || !c || fi >= c->n_fields)
        return false;
    const hf_hfield *f = &c->fields[fi];
    if (h->codec->fixed_be) {
        const uint8_t *p = ob->data + f->offset;
        return p < ob->end && h->codec->value(h, f->type, &p, ob->end, v);
    }
    /* variable-width encodings: walk the values before it */
    const uint8_t *p = ob->data;
    for (uint32_t i = 0; i <= fi; i++)
        if (!h->codec->value(h, c->fields[i].type, &p, ob->end, v))
            return false;
    return true;
}

/* Element i of array ob as an unsigned integer, 0 when unreadable. */
static uint64_t elem(const hf_heap *h, const hf_hobj *ob, uint64_t i)
{
    uint64_t v = 0;
    h->codec->element(h, ob, i, &v);
    return v;
}

void hf_heap_format_value(GString *out, unsigned t, uint64_t v)
{
    switch (t) {
    case HF_T_OBJECT:
        if (v)
            g_string_append_printf(out, "0x%" G_GINT64_MODIFIER "x", (guint64)v);
        else
            g_string_append(out, "null");
        break;
    case HF_T_BOOLEAN:
        g_string_append(out, v ? "true" : "false");
        break;
    case HF_T_CHAR:
        if (v > 0x20 && v < 0x7f && v != '\\' && v != '\'')
            g_string_append_printf(out, "'%c'", (char)v);
        else
            g_string_append_printf(out, "'\\u%04x'", (unsigned)v);
        break;
    case HF_T_FLOAT: {
        uint32_t b = (uint32_t)v;
        float f;
        memcpy(&f, &b, 4);
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        /* shortest form that reads back as the same float */
        for (int prec = 6; prec <= 9; prec++) {
            g_ascii_formatd(buf, sizeof buf, prec == 6 ? "%.6g" : prec == 7 ? "%.7g"
                                             : prec == 8 ? "%.8g" : "%.9g", f);
            if ((float)g_ascii_strtod(buf, NULL) == f)
                break;
        }
        g_string_append(out, buf);
        break;
    }
    case HF_T_DOUBLE: {
        double dv;
        memcpy(&dv, &v, 8);
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_dtostr(buf, sizeof buf, dv); /* shortest round-trip form */
        g_string_append(out, buf);
        break;
    }
    case HF_T_BYTE:
        g_string_append_printf(out, "%d", (int8_t)v);
        break;
    case HF_T_SHORT:
        g_string_append_printf(out, "%d", (int16_t)v);
        break;
    case HF_T_INT:
        g_string_append_printf(out, "%d", (int32_t)v);
        break;
    case HF_T_LONG:
        g_string_append_printf(out, "%" G_GINT64_FORMAT, (gint64)v);
        break;
    default:
        g_string_append_printf(out, "?%u", t);
    }
}

/* ---- text ---- */

static void append_utf16_unit_seq(GString *out, const hf_heap *h, const hf_hobj *ob,
                                  uint64_t from, uint64_t to, bool le_bytes)
{
    /* le_bytes: a byte[] holding UTF-16 little-endian pairs (JDK 9+ coder 1) */
    for (uint64_t i = from; i < to; i++) {
        uint32_t u = le_bytes ? (uint32_t)(elem(h, ob, 2 * i) | elem(h, ob, 2 * i + 1) << 8)
                              : (uint32_t)elem(h, ob, i);
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < to) {
            uint32_t lo = le_bytes ? (uint32_t)(elem(h, ob, 2 * i + 2) | elem(h, ob, 2 * i + 3) << 8)
                                   : (uint32_t)elem(h, ob, i + 1);
            if (lo >= 0xDC00 && lo < 0xE000) {
                g_string_append_unichar(out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                i++;
                continue;
            }
        }
        if (u >= 0xD800 && u < 0xE000)
            u = 0xFFFD; /* a lone surrogate */
        g_string_append_unichar(out, u);
    }
}

static void append_latin1(GString *out, const hf_heap *h, const hf_hobj *ob, uint64_t from,
                          uint64_t to)
{
    for (uint64_t i = from; i < to; i++) {
        uint8_t c = (uint8_t)elem(h, ob, i);
        if (c < 0x80)
            g_string_append_c(out, (char)c);
        else
            g_string_append_unichar(out, c);
    }
}

bool hf_heap_text(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, GString *out)
{
    if (ob->kind == HF_K_PRIMARRAY && !ob->nodata && ob->elem == HF_T_CHAR) {
        append_utf16_unit_seq(out, h, ob, 0, ob->length, false);
        return true;
    }
    if (ob->kind == HF_K_PRIMARRAY && !ob->nodata && ob->elem == HF_T_BYTE) {
        for (uint64_t i = 0; i < ob->length; i++)
            g_string_append_c(out, (char)elem(h, ob, i));
        return true;
    }
    if (ob->kind != HF_K_INSTANCE || ob->cls != sn->string_class || sn->str_value < 0)
        return false;
    uint64_t vid = 0, coder = 0, offset = 0, count = UINT64_MAX, v;
    if (!hf_heap_field(h, sn, ob, (uint32_t)sn->str_value, &vid))
        return false;
    if (sn->str_coder >= 0 && hf_heap_field(h, sn, ob, (uint32_t)sn->str_coder, &v))
        coder = v;
    /* JDK 6 and older share value arrays: the text is value[offset, offset+count) */
    if (sn->str_offset >= 0 && hf_heap_field(h, sn, ob, (uint32_t)sn->str_offset, &v))
        offset = (uint32_t)v;
    if (sn->str_count >= 0 && hf_heap_field(h, sn, ob, (uint32_t)sn->str_count, &v))
        count = (uint32_t)v;
    if (!vid)
        return true; /* a String without its array: empty text */
    int64_t vo = hf_heap_find_id(h, sn, vid);
    hf_hobj arr;
    if (vo < 0 || !hf_heap_decode(h, sn, (uint64_t)vo, &arr) || arr.kind != HF_K_PRIMARRAY ||
        arr.nodata)
        return true;
    uint64_t units = arr.elem == HF_T_BYTE && coder == 1 ? arr.length / 2 : arr.length;
    if (offset > units)
        offset = units;
    if (count > units - offset)
        count = units - offset;
    if (arr.elem == HF_T_CHAR)
        append_utf16_unit_seq(out, h, &arr, offset, offset + count, false);
    else if (arr.elem == HF_T_BYTE && coder == 1)
        append_utf16_unit_seq(out, h, &arr, offset, offset + count, true);
    else if (arr.elem == HF_T_BYTE)
        append_latin1(out, h, &arr, offset, offset + count);
    return true;
}

/* ---- references ---- */

void hf_heap_for_each_ref(const hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_heap_ref_fn fn,
                          void *ud)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, o, &ob))
        return;
    if (ob.kind == HF_K_INSTANCE) {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        if (!h->codec->fixed_be) { /* no fixed offsets: walk the values once */
            const uint8_t *p = ob.data;
            for (uint32_t i = 0, r = 0; p && i < c->n_fields; i++) {
                uint64_t v;
                if (!h->codec->value(h, c->fields[i].type, &p, ob.end, &v))
                    return;
                if (c->fields[i].type != HF_T_OBJECT)
                    continue;
                if (v && !fn(v, r, ud))
                    return;
                r++;
            }
            return;
        }
        for (uint32_t i = 0; i < c->n_refs; i++) {
            const uint8_t *p = ob.data + c->ref_offs[i];
            uint64_t v;
            if (h->codec->value(h, HF_T_OBJECT, &p, ob.end, &v) && v && !fn(v, i, ud))
                return;
        }
    } else if (ob.kind == HF_K_OBJARRAY) {
        for (uint64_t i = 0; i < ob.length; i++) {
            uint64_t v = elem(h, &ob, i);
            if (v && !fn(v, (uint32_t)i, ud))
                return;
        }
    } else if (ob.kind == HF_K_CLASS) {
        int64_t self = hf_heap_class_by_id(sn, ob.id);
        const hf_hclass *c = self >= 0 ? hf_heap_class(sn, (uint64_t)self) : NULL;
        for (uint32_t i = 0; c && i < c->n_statics; i++)
            if (c->statics[i].type == HF_T_OBJECT && c->statics[i].value &&
                !fn(c->statics[i].value, i, ud))
                return;
    }
}

static void id_name(uint64_t id, char name[HF_NAME_MAX])
{
    g_snprintf(name, HF_NAME_MAX, "0x%" G_GINT64_MODIFIER "x", (guint64)id);
}

/* ---- model ops ---- */

uint32_t hf_heap_n_snapshots(hf_dump *d)
{
    return H(d)->snaps->len;
}

uint64_t hf_heap_snapshot_number(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->number : 0;
}

uint64_t hf_heap_n_traces(hf_dump *d)
{
    return H(d)->traces->len;
}

uint64_t hf_heap_trace_number(hf_dump *d, uint64_t t)
{
    return t < H(d)->traces->len ? g_array_index(H(d)->traces, hf_htrace, t).serial : 0;
}

uint64_t hf_heap_n_threads(hf_dump *d)
{
    return H(d)->threads->len;
}

void hf_heap_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    name[0] = '\0';
    if (t < H(d)->threads->len)
        g_strlcpy(name, g_array_index(H(d)->threads, hf_hthread, t).dir, HF_NAME_MAX);
}

uint64_t hf_heap_n_classes(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->classes->len : 0;
}

const char *hf_heap_class_name(hf_dump *d, uint32_t s, uint64_t c)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    return k ? k->dir : NULL;
}

int64_t hf_heap_class_find(hf_dump *d, uint32_t s, const char *name)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    gpointer v = sn ? g_hash_table_lookup(sn->class_by_dir, name) : NULL;
    return v ? (int64_t)GPOINTER_TO_SIZE(v) - 1 : -1;
}

int64_t hf_heap_class_super(hf_dump *d, uint32_t s, uint64_t c)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    return k ? k->super : -1;
}

uint32_t hf_heap_class_parts(hf_dump *d, uint32_t s, uint64_t c)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    if (!k)
        return 0;
    uint32_t parts = 1u << HF_CLASS_INFO | 1u << HF_CLASS_FIELDS;
    if (k->n_statics)
        parts |= 1u << HF_CLASS_STATICS;
    if (k->count)
        parts |= 1u << HF_CLASS_INSTANCES;
    return parts;
}

uint64_t hf_heap_n_objects(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->n_objects : 0;
}

void hf_heap_object_name(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX])
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    name[0] = '\0';
    if (sn && o < sn->n_objects)
        id_name(hf_heap_object_id(H(d), sn, o), name);
}

/* "0x" + lowercase hex, no leading zeros (so each id has one name). */
static bool parse_id(const char *name, uint64_t *id)
{
    if (name[0] != '0' || name[1] != 'x' || !name[2] || (name[2] == '0' && name[3]) ||
        strlen(name) > 18)
        return false;
    uint64_t v = 0;
    for (const char *p = name + 2; *p; p++) {
        int x = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (x < 0)
            return false;
        v = v << 4 | (uint64_t)x;
    }
    *id = v;
    return true;
}

int64_t hf_heap_object_find(hf_dump *d, uint32_t s, const char *name)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    uint64_t id;
    if (!sn || !parse_id(name, &id))
        return -1;
    return hf_heap_find_id(H(d), sn, id);
}

/* The class a class object describes, or NULL. */
static const hf_hclass *described(const hf_hsnap *sn, const hf_hobj *ob)
{
    int64_t self = hf_heap_class_by_id(sn, ob->id);
    return self >= 0 ? hf_heap_class(sn, (uint64_t)self) : NULL;
}

uint32_t hf_heap_object_parts(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(H(d), sn, o, &ob))
        return 0;
    uint32_t parts = 1u << HF_OBJ_INFO | HF_OBJ_HAS_CLASS;
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        parts |= 1u << HF_OBJ_FIELDS;
        if (c->n_refs)
            parts |= HF_OBJ_HAS_REFS;
        if (ob.cls == sn->string_class && sn->str_value >= 0)
            parts |= 1u << HF_OBJ_VALUE;
        break;
    }
    case HF_K_OBJARRAY:
        parts |= 1u << HF_OBJ_FIELDS;
        if (ob.length)
            parts |= HF_OBJ_HAS_REFS;
        break;
    case HF_K_PRIMARRAY:
        if (!ob.nodata)
            parts |= 1u << HF_OBJ_FIELDS | 1u << HF_OBJ_VALUE;
        break;
    case HF_K_CLASS: {
        const hf_hclass *c = described(sn, &ob);
        if (c && c->n_statics) {
            parts |= 1u << HF_OBJ_FIELDS;
            for (uint32_t i = 0; i < c->n_statics; i++)
                if (c->statics[i].type == HF_T_OBJECT)
                    parts |= HF_OBJ_HAS_REFS;
        }
        break;
    }
    }
    return parts;
}

int64_t hf_heap_object_class(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn && o < sn->n_objects ? (int64_t)sn->cls[o] : -1;
}

hf_ref_status hf_heap_object_ref(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                 char name[HF_NAME_MAX], char target[HF_NAME_MAX])
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return HF_REF_END;
    uint64_t v = 0;
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        if (slot >= c->n_fields)
            return HF_REF_END;
        const hf_hfield *f = &c->fields[slot];
        if (f->type != HF_T_OBJECT || !hf_heap_field(h, sn, &ob, slot, &v) || !v)
            return HF_REF_EMPTY;
        g_strlcpy(name, f->refname, HF_NAME_MAX);
        break;
    }
    case HF_K_OBJARRAY:
        if (slot >= ob.length)
            return HF_REF_END;
        if (!(v = elem(h, &ob, slot)))
            return HF_REF_EMPTY;
        g_snprintf(name, HF_NAME_MAX, "%u", slot);
        break;
    case HF_K_CLASS: {
        const hf_hclass *c = described(sn, &ob);
        if (!c || slot >= c->n_statics)
            return HF_REF_END;
        if (c->statics[slot].type != HF_T_OBJECT || !(v = c->statics[slot].value))
            return HF_REF_EMPTY;
        char *e = hf_name_escape(c->statics[slot].name, strlen(c->statics[slot].name));
        g_strlcpy(name, e, HF_NAME_MAX);
        g_free(e);
        break;
    }
    default:
        return HF_REF_END;
    }
    id_name(v, target);
    return HF_REF_OK;
}

int64_t hf_heap_object_ref_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return -1;
    uint64_t v = 0;
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        for (uint32_t i = 0; i < c->n_fields; i++)
            if (c->fields[i].type == HF_T_OBJECT && strcmp(c->fields[i].refname, name) == 0)
                return hf_heap_field(h, sn, &ob, i, &v) && v ? (int64_t)i : -1;
        return -1;
    }
    case HF_K_OBJARRAY: {
        char *end;
        if (!g_ascii_isdigit(name[0]) || (name[0] == '0' && name[1]))
            return -1;
        unsigned long long i = strtoull(name, &end, 10);
        if (*end || i >= ob.length || !elem(h, &ob, i))
            return -1;
        return (int64_t)i;
    }
    case HF_K_CLASS: {
        const hf_hclass *c = described(sn, &ob);
        char *un = hf_name_unescape(name);
        int64_t r = -1;
        for (uint32_t i = 0; un && c && i < c->n_statics; i++)
            if (c->statics[i].type == HF_T_OBJECT && c->statics[i].value &&
                strcmp(c->statics[i].name, un) == 0) {
                r = i;
                break;
            }
        g_free(un);
        return r;
    }
    }
    return -1;
}
