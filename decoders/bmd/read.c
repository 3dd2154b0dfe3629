/*
 * read.c - BMD varints, values, the header and record bodies: pure
 * functions over a pointer and an end (see bmd.h) that never read at or
 * past `end`, and say BMD_CUT when the bytes end first and BMD_BAD (with a
 * reason in *why) when the bytes cannot be what they should.  Then the
 * codec, which reads objects back from their records with them.
 * Thread-safe.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/heap/fields.h"

#include <stdarg.h>
#include <string.h>

const char *const bmd_tag_names[BMD_NTAGS] = {
    "unknown",      "string",       "hashed string", "class definition", "instance dump",
    "root objects", "object array", "primitive array placeholder", "legacy HPROF",
};

unsigned bmd_hf_type(uint64_t t)
{
    static const uint8_t map[9] = {HF_T_OBJECT, HF_T_INT,    HF_T_BOOLEAN, HF_T_BYTE, HF_T_CHAR,
                                   HF_T_FLOAT,  HF_T_DOUBLE, HF_T_LONG,    HF_T_SHORT};
    return t < 9 ? map[t] : 0;
}

static inline bmd_status raw(const uint8_t **p, const uint8_t *end, size_t n, const uint8_t **at)
{
    if (*p > end || (size_t)(end - *p) < n)
        return BMD_CUT;
    *at = *p;
    *p += n;
    return BMD_OK;
}

bmd_status bmd_value(unsigned t, const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *b;
    bmd_status st;
    switch (t) {
    case HF_T_OBJECT:
    case HF_T_INT: {
        uint32_t w;
        st = bmd_varint32(p, end, &w);
        *v = w;
        return st;
    }
    case HF_T_SHORT: {
        uint32_t w;
        st = bmd_varint32(p, end, &w);
        *v = (uint16_t)w;
        return st;
    }
    case HF_T_LONG:
        return bmd_varint(p, end, v);
    case HF_T_FLOAT:
        if ((st = raw(p, end, 4, &b)) == BMD_OK)
            *v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
        return st;
    case HF_T_DOUBLE:
        if ((st = raw(p, end, 8, &b)) == BMD_OK) {
            *v = 0;
            for (int i = 7; i >= 0; i--)
                *v = *v << 8 | b[i];
        }
        return st;
    case HF_T_BOOLEAN:
    case HF_T_BYTE:
        if ((st = raw(p, end, 1, &b)) == BMD_OK)
            *v = b[0];
        return st;
    case HF_T_CHAR:
        if ((st = raw(p, end, 2, &b)) == BMD_OK)
            *v = (uint64_t)b[0] << 8 | b[1];
        return st;
    default:
        return BMD_BAD;
    }
}

/* Reads varint32s into the given places, stopping at the first failure. */
static bmd_status v32s(const uint8_t **p, const uint8_t *end, const char **why, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    bmd_status st = BMD_OK;
    for (int i = 0; i < n && st == BMD_OK; i++)
        st = bmd_varint32(p, end, va_arg(ap, uint32_t *));
    va_end(ap);
    if (st == BMD_BAD)
        *why = "a varint longer than 10 bytes";
    return st;
}

/* Skips n varints (ids of roots and object arrays). */
static bmd_status skip_varints(const uint8_t **p, const uint8_t *end, uint32_t n, const char **why)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v;
        bmd_status st = bmd_varint(p, end, &v);
        if (st != BMD_OK) {
            if (st == BMD_BAD)
                *why = "a varint longer than 10 bytes";
            return st;
        }
    }
    return BMD_OK;
}

bmd_status bmd_parse_header(const uint8_t *b, size_t len, bmd_header *out)
{
    const uint8_t *p = b, *end = b + len;
    const char *why;
    bmd_status st = v32s(&p, end, &why, 2, &out->version, &out->meta_len);
    if (st != BMD_OK)
        return st;
    if ((size_t)(end - p) < out->meta_len)
        return BMD_CUT;
    out->meta = p;
    out->len = (size_t)(p - b) + out->meta_len;
    return BMD_OK;
}

bmd_status bmd_parse_string(const uint8_t **p, const uint8_t *end, bmd_string *out,
                            const char **why)
{
    bmd_status st = v32s(p, end, why, 2, &out->id, &out->len);
    if (st != BMD_OK)
        return st;
    return raw(p, end, out->len, &out->text);
}

bmd_status bmd_parse_hashed(const uint8_t **p, const uint8_t *end, bmd_hashed *out,
                            const char **why)
{
    uint32_t h = 0;
    bmd_status st = v32s(p, end, why, 3, &out->id, &out->len, &h);
    out->hash = (int32_t)h;
    return st;
}

bmd_status bmd_next_member(const uint8_t **p, const uint8_t *end, bool with_value,
                           bmd_member *m, const char **why)
{
    uint32_t type;
    bmd_status st = v32s(p, end, why, 2, &m->name, &type);
    if (st != BMD_OK)
        return st;
    m->type = (uint8_t)bmd_hf_type(type);
    if (!m->type) {
        *why = "a field type that is not one (0..8)";
        return BMD_BAD;
    }
    m->value = 0;
    if (with_value && (st = bmd_value(m->type, p, end, &m->value)) == BMD_BAD)
        *why = "a varint longer than 10 bytes";
    return st;
}

/* Skips n members, checking each. */
static bmd_status skip_members(const uint8_t **p, const uint8_t *end, uint32_t n, bool with_value,
                               const char **why)
{
    for (uint32_t i = 0; i < n; i++) {
        bmd_member m;
        bmd_status st = bmd_next_member(p, end, with_value, &m, why);
        if (st != BMD_OK)
            return st;
    }
    return BMD_OK;
}

bmd_status bmd_parse_class(const uint8_t **p, const uint8_t *end, bmd_class *out,
                           const char **why)
{
    bmd_status st = v32s(p, end, why, 4, &out->id, &out->super, &out->name, &out->n_consts);
    if (st != BMD_OK)
        return st;
    out->consts = *p;
    if ((st = skip_members(p, end, out->n_consts, true, why)) != BMD_OK)
        return st;
    if ((st = v32s(p, end, why, 1, &out->n_statics)) != BMD_OK)
        return st;
    out->statics = *p;
    if ((st = skip_members(p, end, out->n_statics, true, why)) != BMD_OK)
        return st;
    if ((st = v32s(p, end, why, 1, &out->n_fields)) != BMD_OK)
        return st;
    out->fields = *p;
    if ((st = skip_members(p, end, out->n_fields, false, why)) != BMD_OK)
        return st;
    return v32s(p, end, why, 1, &out->discarded);
}

bmd_status bmd_parse_instance(const uint8_t **p, const uint8_t *end, bmd_instance *out,
                              const char **why)
{
    return v32s(p, end, why, 2, &out->id, &out->cls);
}

bmd_status bmd_parse_roots(const uint8_t **p, const uint8_t *end, bmd_roots *out,
                           const char **why)
{
    bmd_status st = v32s(p, end, why, 1, &out->n);
    if (st != BMD_OK)
        return st;
    out->ids = *p;
    return skip_varints(p, end, out->n, why);
}

bmd_status bmd_parse_objarray(const uint8_t **p, const uint8_t *end, bmd_objarray *out,
                              const char **why)
{
    bmd_status st = v32s(p, end, why, 3, &out->id, &out->cls, &out->n);
    if (st != BMD_OK)
        return st;
    out->elems = *p;
    return skip_varints(p, end, out->n, why);
}

bmd_status bmd_parse_primarray(const uint8_t **p, const uint8_t *end, bmd_primarray *out,
                               const char **why)
{
    return v32s(p, end, why, 3, &out->id, &out->type, &out->n);
}

bmd_status bmd_parse_legacy(const uint8_t **p, const uint8_t *end, bmd_legacy *out,
                            const char **why)
{
    bmd_status st = v32s(p, end, why, 2, &out->tag, &out->len);
    if (st != BMD_OK)
        return st;
    return raw(p, end, out->len, &out->body);
}

/* ---- the codec: objects back from their records ----
 *
 * Locators are file offsets of records (the tag).  Values are varints, so
 * the codec is not fixed_be: the heap layer walks fields one by one.
 * Object array elements are varints too; reading element i means skipping
 * i varints, so each thread keeps a cursor into the last array it read and
 * sequential reads (refs/, fields, for_each_ref) cost O(1) each. */

static const uint8_t *file_end(const hf_heap *h)
{
    return h->base.data + h->base.size;
}

/* Tag and first id of the record at loc. */
static bool record_head(const hf_heap *h, uint64_t loc, uint32_t *tag, uint32_t *id,
                        const uint8_t **rest)
{
    const uint8_t *p = h->base.data + loc, *end = file_end(h);
    if (loc >= h->base.size || bmd_varint32(&p, end, tag) != BMD_OK ||
        bmd_varint32(&p, end, id) != BMD_OK)
        return false;
    *rest = p;
    return true;
}

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    uint32_t tag, id = 0;
    const uint8_t *p;
    record_head(h, loc, &tag, &id, &p);
    return id;
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    uint32_t tag, id, a = 0, b = 0;
    const uint8_t *p, *end = file_end(h);
    if (!record_head(h, loc, &tag, &id, &p))
        return false;
    switch (tag) {
    case BMD_CLASS:
        out->kind = HF_K_CLASS;
        return true;
    case BMD_INSTANCE:
        out->kind = HF_K_INSTANCE;
        out->class_id = bmd_varint32(&p, end, &a) == BMD_OK ? a : 0;
        return true;
    case BMD_OBJARRAY:
        bmd_varint32(&p, end, &a);
        bmd_varint32(&p, end, &b);
        out->kind = HF_K_OBJARRAY;
        out->class_id = a;
        out->length = b;
        return true;
    case BMD_PRIMARRAY:
        bmd_varint32(&p, end, &a);
        bmd_varint32(&p, end, &b);
        out->kind = HF_K_PRIMARRAY;
        out->elem = (uint8_t)bmd_hf_type(a);
        out->length = b;
        return true;
    }
    return false;
}

static bool codec_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                        uint64_t *v)
{
    return *p && bmd_value(t, p, end, v) == BMD_OK;
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    uint32_t tag, id, a = 0, b = 0;
    const uint8_t *p, *end = file_end(h);
    if (!record_head(h, loc, &tag, &id, &p))
        return false;
    ob->id = id;
    ob->loc = loc;
    switch (tag) {
    case BMD_CLASS:
        ob->kind = HF_K_CLASS;
        return true;
    case BMD_INSTANCE: {
        if (bmd_varint32(&p, end, &a) != BMD_OK)
            return false;
        ob->kind = HF_K_INSTANCE;
        ob->data = p;
        /* the values end after those of the class chain's fields */
        const hf_hsnap *sn = hf_heap_snap(h, 0);
        int64_t ci = sn ? hf_heap_class_by_id(sn, a) : -1;
        hf_hfields it;
        hf_hfields_begin(&it, sn, ci >= 0 ? hf_heap_class(sn, (uint64_t)ci) : NULL);
        uint64_t v;
        bool more = true;
        while (more && hf_hfields_next(&it))
            more = bmd_value(it.f->type, &p, end, &v) == BMD_OK;
        hf_hfields_end(&it);
        ob->end = p;
        return true;
    }
    case BMD_OBJARRAY:
        if (bmd_varint32(&p, end, &a) != BMD_OK || bmd_varint32(&p, end, &b) != BMD_OK)
            return false;
        ob->kind = HF_K_OBJARRAY;
        ob->elem = HF_T_OBJECT;
        /* each element takes a byte at least: a length past the file's
         * end (a dump rewritten under the mapping) is cut to what is there,
         * so a walk of the elements ends with the file */
        ob->length = MIN((uint64_t)b, (uint64_t)(end - p));
        ob->data = p;
        ob->end = end; /* elements are read one by one (codec_element) */
        return true;
    case BMD_PRIMARRAY:
        if (bmd_varint32(&p, end, &a) != BMD_OK || bmd_varint32(&p, end, &b) != BMD_OK)
            return false;
        ob->kind = HF_K_PRIMARRAY;
        ob->elem = (uint8_t)bmd_hf_type(a);
        ob->length = b;
        ob->nodata = true; /* BMD keeps type and length only */
        return true;
    }
    return false;
}

/* Per-thread position in the last object array read.  Keyed by the dump's
 * serial, not its address: a dump closed and another opened (tests,
 * fuzzers) may reuse both the struct's and the map's addresses. */
static __thread struct {
    uint64_t serial;     /* bmd_dump.serial; 0 = none */
    const uint8_t *data; /* the array's first element */
    uint64_t i;          /* index of the element at p */
    const uint8_t *p;
} cursor;

static bool codec_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v)
{
    if (ob->kind != HF_K_OBJARRAY || !ob->data || i >= ob->length)
        return false;
    const uint8_t *p = ob->data, *end = file_end(h);
    uint64_t k = 0, serial = ((const bmd_dump *)h)->serial;
    if (cursor.serial == serial && cursor.data == ob->data && cursor.i <= i) {
        p = cursor.p;
        k = cursor.i;
    }
    for (uint64_t skip; k < i; k++)
        if (bmd_varint(&p, end, &skip) != BMD_OK)
            return false;
    uint32_t w;
    if (bmd_varint32(&p, end, &w) != BMD_OK)
        return false;
    *v = w;
    cursor.serial = serial;
    cursor.data = ob->data;
    cursor.i = i + 1;
    cursor.p = p;
    return true;
}

const hf_heap_codec bmd_codec = {
    .fixed_be = false,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = codec_value,
    .element = codec_element,
};
