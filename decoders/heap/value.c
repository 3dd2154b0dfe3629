/*
 * value.c - what an object holds: field values, array elements, the text of
 * Strings and char/byte arrays, and its outgoing references.  Read-only over
 * the finished hf_heap: thread-safe.
 */
#include "decoders/heap/heap.h"
#include "decoders/heap/fields.h"

#include <string.h>

/* ---- values ---- */

bool hf_heap_field(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t fi,
                   uint64_t *v)
{
    const hf_hclass *c = hf_heap_class(sn, ob->cls);
    if (!ob->data || !c || fi >= c->n_fields)
        return false;
    if (h->codec->fixed_be) {
        uint32_t off;
        const hf_hfield *f = hf_hfield_at(sn, c, fi, &off);
        /* an instance may hold fewer bytes than its class's fields */
        if (!f || off >= (size_t)(ob->end - ob->data))
            return false;
        const uint8_t *p = ob->data + off;
        return h->codec->value(h, f->type, &p, ob->end, v);
    }
    /* variable-width encodings: walk the values before it */
    const uint8_t *p = ob->data;
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    bool ok = true;
    while (ok && it.index != fi && hf_hfields_next(&it))
        ok = h->codec->value(h, it.f->type, &p, ob->end, v);
    hf_hfields_end(&it);
    return ok && it.index == fi;
}

uint64_t hf_heap_element(const hf_heap *h, const hf_hobj *ob, uint64_t i)
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

bool hf_codec_no_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                       uint64_t *v)
{
    return false;
}

bool hf_codec_no_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v)
{
    return false;
}

/* ---- text ---- */

static void append_utf16_unit_seq(GString *out, const hf_heap *h, const hf_hobj *ob,
                                  uint64_t from, uint64_t to, bool le_bytes)
{
    /* le_bytes: a byte[] holding UTF-16 little-endian pairs (JDK 9+ coder 1) */
    for (uint64_t i = from; i < to; i++) {
        uint32_t u = le_bytes ? (uint32_t)(hf_heap_element(h, ob, 2 * i) | hf_heap_element(h, ob, 2 * i + 1) << 8)
                              : (uint32_t)hf_heap_element(h, ob, i);
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < to) {
            uint32_t lo = le_bytes ? (uint32_t)(hf_heap_element(h, ob, 2 * i + 2) | hf_heap_element(h, ob, 2 * i + 3) << 8)
                                   : (uint32_t)hf_heap_element(h, ob, i + 1);
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
        uint8_t c = (uint8_t)hf_heap_element(h, ob, i);
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
            g_string_append_c(out, (char)hf_heap_element(h, ob, i));
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

void hf_heap_for_each_ref_of(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *obp,
                             hf_heap_ref_fn fn, void *ud)
{
    hf_hobj ob = *obp;
    if (h->codec->refs) {
        h->codec->refs(h, sn, &ob, fn, ud);
        return;
    }
    if (ob.kind == HF_K_INSTANCE) {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        if (!c || !ob.data)
            return;
        if (!h->codec->fixed_be) { /* no fixed offsets: walk the values once */
            const uint8_t *p = ob.data;
            hf_hfields it;
            hf_hfields_begin(&it, sn, c);
            uint64_t v;
            while (hf_hfields_next(&it) && h->codec->value(h, it.f->type, &p, ob.end, &v))
                if (it.f->type == HF_T_OBJECT && v && !fn(v, it.ref, ud))
                    break;
            hf_hfields_end(&it);
            return;
        }
        /* each class's part in turn, its own references at ascending
         * offsets: the first one past the instance's data (it may hold
         * fewer bytes than its class's fields) ends the walk */
        size_t len = (size_t)(ob.end - ob.data);
        uint32_t base = 0, slot = 0, left = c->n_fields;
        for (unsigned levels = 0; c && levels <= HF_HCHAIN_MAX; levels++) {
            for (uint32_t i = 0; i < c->n_own_refs; i++, slot++) {
                if ((size_t)base + c->own_refs[i] >= len)
                    return;
                const uint8_t *p = ob.data + base + c->own_refs[i];
                uint64_t v;
                if (h->codec->value(h, HF_T_OBJECT, &p, ob.end, &v) && v && !fn(v, slot, ud))
                    return;
            }
            if (left <= c->n_decl)
                return; /* the chain as laid out ends here */
            left -= c->n_decl;
            c = hf_hclass_next_part(sn, c, &base);
        }
    } else if (ob.kind == HF_K_OBJARRAY) {
        /* Stop at the first element that cannot be read: past it none can,
         * and a length read from a dump changed since it was indexed may
         * be billions. */
        uint64_t v;
        for (uint64_t i = 0; i < ob.length && h->codec->element(h, &ob, i, &v); i++)
            if (v && !fn(v, (uint32_t)i, ud))
                return;
    } else if (ob.kind == HF_K_CLASS) {
        int64_t self = hf_heap_class_by_id(sn, ob.id);
        const hf_hclass *c = self >= 0 ? hf_heap_class(sn, (uint64_t)self) : NULL;
        for (uint32_t i = 0; c && i < c->n_statics; i++)
            if (c->statics[i].type == HF_T_OBJECT && c->statics[i].value &&
                !fn(c->statics[i].value, i, ud))
                return;
    }
}

void hf_heap_for_each_ref(const hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_heap_ref_fn fn,
                          void *ud)
{
    hf_hobj ob;
    if (hf_heap_decode(h, sn, o, &ob))
        hf_heap_for_each_ref_of(h, sn, &ob, fn, ud);
}
