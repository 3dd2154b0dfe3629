/*
 * read.c - HPROF parsers: the names and bodies of top-level records
 * (records.h), values, and heap dump sub-records (hprof.h).  Pure functions
 * over a body pointer and length; no state, thread-safe.  BMD's legacy HPROF
 * records use the record parsers too, so they must not assume the body is
 * inside an HPROF file.  Then the codec, which reads objects back from
 * their sub-records with them.
 */
#include "decoders/hprof/hprof.h"

const char *hprof_record_name(uint32_t tag)
{
    switch (tag) {
    case HPROF_STRING: return "string";
    case HPROF_LOAD_CLASS: return "load class";
    case HPROF_UNLOAD_CLASS: return "unload class";
    case HPROF_STACK_FRAME: return "stack frame";
    case HPROF_STACK_TRACE: return "stack trace";
    case HPROF_ALLOC_SITES: return "alloc sites";
    case HPROF_HEAP_SUMMARY: return "heap summary";
    case HPROF_START_THREAD: return "start thread";
    case HPROF_END_THREAD: return "end thread";
    case HPROF_HEAP_DUMP: return "heap dump";
    case HPROF_CPU_SAMPLES: return "cpu samples";
    case HPROF_CONTROL_SETTINGS: return "control settings";
    case HPROF_HEAP_DUMP_SEGMENT: return "heap dump segment";
    case HPROF_HEAP_DUMP_END: return "heap dump end";
    default: return NULL;
    }
}

uint64_t hprof_value(const uint8_t *p, unsigned t, unsigned idsz)
{
    switch (t) {
    case HF_T_OBJECT:
        return hprof_id(p, idsz);
    case HF_T_BOOLEAN:
    case HF_T_BYTE:
        return p[0];
    case HF_T_CHAR:
    case HF_T_SHORT:
        return hprof_u2(p);
    case HF_T_FLOAT:
    case HF_T_INT:
        return hprof_u4(p);
    case HF_T_DOUBLE:
    case HF_T_LONG:
        return hprof_u8(p);
    default:
        return 0;
    }
}

bool hprof_parse_string(const uint8_t *b, size_t len, unsigned idsz, hprof_string *out)
{
    if (len < idsz || len - idsz > UINT32_MAX)
        return false;
    out->id = hprof_id(b, idsz);
    out->text = b + idsz;
    out->len = (uint32_t)(len - idsz);
    return true;
}

bool hprof_parse_load_class(const uint8_t *b, size_t len, unsigned idsz, hprof_load_class *out)
{
    if (len < 8 + 2 * (size_t)idsz)
        return false;
    out->serial = hprof_u4(b);
    out->class_id = hprof_id(b + 4, idsz);
    out->trace = hprof_u4(b + 4 + idsz);
    out->name_id = hprof_id(b + 8 + idsz, idsz);
    return true;
}

bool hprof_parse_stack_frame(const uint8_t *b, size_t len, unsigned idsz, hprof_frame *out)
{
    if (len < 8 + 4 * (size_t)idsz)
        return false;
    out->id = hprof_id(b, idsz);
    out->method = hprof_id(b + idsz, idsz);
    out->sig = hprof_id(b + 2 * idsz, idsz);
    out->source = hprof_id(b + 3 * idsz, idsz);
    out->class_serial = hprof_u4(b + 4 * idsz);
    out->line = (int32_t)hprof_u4(b + 4 * idsz + 4);
    return true;
}

bool hprof_parse_stack_trace(const uint8_t *b, size_t len, unsigned idsz, hprof_trace *out)
{
    if (len < 12)
        return false;
    out->serial = hprof_u4(b);
    out->thread = hprof_u4(b + 4);
    out->n_frames = hprof_u4(b + 8);
    out->frames = b + 12;
    return (len - 12) / idsz >= out->n_frames;
}

bool hprof_parse_alloc_sites(const uint8_t *b, size_t len, unsigned idsz, hprof_sites *out)
{
    if (len < 34)
        return false;
    out->flags = hprof_u2(b);
    uint32_t bits = hprof_u4(b + 2);
    memcpy(&out->cutoff, &bits, 4);
    out->live_bytes = hprof_u4(b + 6);
    out->live_instances = hprof_u4(b + 10);
    out->alloc_bytes = hprof_u8(b + 14);
    out->alloc_instances = hprof_u8(b + 22);
    out->n_sites = hprof_u4(b + 30);
    out->sites = b + 34;
    return (len - 34) / 25 >= out->n_sites;
}

void hprof_site_at(const hprof_sites *s, uint32_t i, hprof_site *out)
{
    const uint8_t *p = s->sites + (size_t)i * 25;
    out->array = p[0];
    out->class_serial = hprof_u4(p + 1);
    out->trace = hprof_u4(p + 5);
    out->live_bytes = hprof_u4(p + 9);
    out->live_instances = hprof_u4(p + 13);
    out->alloc_bytes = hprof_u4(p + 17);
    out->alloc_instances = hprof_u4(p + 21);
}

bool hprof_parse_heap_summary(const uint8_t *b, size_t len, unsigned idsz,
                              hprof_heap_summary *out)
{
    if (len < 24)
        return false;
    out->live_bytes = hprof_u4(b);
    out->live_instances = hprof_u4(b + 4);
    out->alloc_bytes = hprof_u8(b + 8);
    out->alloc_instances = hprof_u8(b + 16);
    return true;
}

bool hprof_parse_start_thread(const uint8_t *b, size_t len, unsigned idsz, hprof_thread *out)
{
    if (len < 8 + 4 * (size_t)idsz)
        return false;
    out->serial = hprof_u4(b);
    out->obj = hprof_id(b + 4, idsz);
    out->trace = hprof_u4(b + 4 + idsz);
    out->name = hprof_id(b + 8 + idsz, idsz);
    out->group = hprof_id(b + 8 + 2 * idsz, idsz);
    out->parent = hprof_id(b + 8 + 3 * idsz, idsz);
    return true;
}

bool hprof_parse_serial(const uint8_t *b, size_t len, unsigned idsz, uint32_t *out)
{
    if (len < 4)
        return false;
    *out = hprof_u4(b);
    return true;
}

bool hprof_parse_cpu_samples(const uint8_t *b, size_t len, unsigned idsz, hprof_cpu_samples *out)
{
    if (len < 8)
        return false;
    out->total = hprof_u4(b);
    out->n = hprof_u4(b + 4);
    out->samples = b + 8;
    return (len - 8) / 8 >= out->n;
}

bool hprof_parse_control(const uint8_t *b, size_t len, unsigned idsz, hprof_control *out)
{
    if (len < 6)
        return false;
    out->flags = hprof_u4(b);
    out->depth = hprof_u2(b + 4);
    return true;
}

hprof_body hprof_check_body(uint8_t tag, const uint8_t *b, size_t len, unsigned idsz)
{
    union {
        hprof_string s;
        hprof_load_class lc;
        hprof_frame f;
        hprof_trace t;
        hprof_thread th;
        hprof_sites si;
        hprof_heap_summary hs;
        hprof_cpu_samples c;
        hprof_control ct;
        uint32_t serial;
    } u;
    bool ok;
    switch (tag) {
    case HPROF_STRING:
        ok = hprof_parse_string(b, len, idsz, &u.s);
        break;
    case HPROF_LOAD_CLASS:
        ok = hprof_parse_load_class(b, len, idsz, &u.lc);
        break;
    case HPROF_STACK_FRAME:
        ok = hprof_parse_stack_frame(b, len, idsz, &u.f);
        break;
    case HPROF_STACK_TRACE:
        ok = hprof_parse_stack_trace(b, len, idsz, &u.t);
        break;
    case HPROF_START_THREAD:
        ok = hprof_parse_start_thread(b, len, idsz, &u.th);
        break;
    case HPROF_END_THREAD:
    case HPROF_UNLOAD_CLASS:
        ok = hprof_parse_serial(b, len, idsz, &u.serial);
        break;
    case HPROF_ALLOC_SITES:
        ok = hprof_parse_alloc_sites(b, len, idsz, &u.si);
        break;
    case HPROF_HEAP_SUMMARY:
        ok = hprof_parse_heap_summary(b, len, idsz, &u.hs);
        break;
    case HPROF_CPU_SAMPLES:
        ok = hprof_parse_cpu_samples(b, len, idsz, &u.c);
        break;
    case HPROF_CONTROL_SETTINGS:
        ok = hprof_parse_control(b, len, idsz, &u.ct);
        break;
    case HPROF_HEAP_DUMP:
    case HPROF_HEAP_DUMP_SEGMENT:
    case HPROF_HEAP_DUMP_END:
        ok = true;
        break;
    default:
        return HPROF_BODY_UNKNOWN_TAG;
    }
    return ok ? HPROF_BODY_OK : HPROF_BODY_SHORT;
}

/* ---- heap dump sub-records ---- */

bool hprof_parse_class_dump(const uint8_t *p, const uint8_t *end, unsigned idsz,
                            hprof_class_dump *out)
{
    size_t avail = (size_t)(end - p);
    size_t n = 1 + 7 * (size_t)idsz + 8 + 2;
    if (avail < n)
        return false;
    const uint8_t *q = p + 1;
    out->id = hprof_id(q, idsz);
    out->trace = hprof_u4(q + idsz);
    q += idsz + 4;
    out->super = hprof_id(q, idsz);
    out->loader = hprof_id(q + idsz, idsz);
    out->signers = hprof_id(q + 2 * idsz, idsz);
    out->domain = hprof_id(q + 3 * idsz, idsz);
    q += 6 * idsz; /* and two reserved ids */
    out->inst_size = hprof_u4(q);
    q += 4;
    uint16_t ncp = hprof_u2(q);
    q += 2;
    for (uint16_t i = 0; i < ncp; i++) {
        if (end - q < 3)
            return false;
        unsigned w = hf_btype_size(q[2], idsz);
        if (!w || (size_t)(end - q) < 3 + (size_t)w)
            return false;
        q += 3 + w;
    }
    if (end - q < 2)
        return false;
    out->n_statics = hprof_u2(q);
    q += 2;
    out->statics = q;
    for (uint16_t i = 0; i < out->n_statics; i++) {
        if ((size_t)(end - q) < idsz + 1u)
            return false;
        unsigned w = hf_btype_size(q[idsz], idsz);
        if (!w || (size_t)(end - q) < idsz + 1u + w)
            return false;
        q += idsz + 1 + w;
    }
    if (end - q < 2)
        return false;
    out->n_fields = hprof_u2(q);
    q += 2;
    out->fields = q;
    for (uint16_t i = 0; i < out->n_fields; i++) {
        if ((size_t)(end - q) < idsz + 1u || !hf_btype_size(q[idsz], idsz))
            return false;
        q += idsz + 1;
    }
    out->len = (size_t)(q - p);
    return true;
}

size_t hprof_subrecord_len(const uint8_t *p, const uint8_t *end, unsigned idsz)
{
    size_t avail = (size_t)(end - p), n;
    if (avail < 1)
        return 0;
    switch (p[0]) {
    case HPROF_GC_ROOT_UNKNOWN:
    case HPROF_GC_ROOT_STICKY_CLASS:
    case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_UNREACHABLE:
        n = 1 + idsz;
        break;
    case HPROF_GC_ROOT_JNI_GLOBAL:
        n = 1 + 2 * (size_t)idsz;
        break;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_THREAD_OBJ:
    case HPROF_GC_ROOT_JNI_MONITOR:
        n = 1 + idsz + 8;
        break;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK:
        n = 1 + idsz + 4;
        break;
    case HPROF_GC_HEAP_DUMP_INFO:
        n = 1 + 4 + idsz;
        break;
    case HPROF_GC_CLASS_DUMP: {
        hprof_class_dump cd;
        return hprof_parse_class_dump(p, end, idsz, &cd) ? cd.len : 0;
    }
    case HPROF_GC_INSTANCE_DUMP:
        n = 1 + 2 * (size_t)idsz + 8;
        if (avail < n)
            return 0;
        n += hprof_u4(p + 1 + 2 * idsz + 4);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        n = 1 + 2 * (size_t)idsz + 8;
        if (avail < n)
            return 0;
        n += (size_t)hprof_u4(p + 1 + idsz + 4) * idsz;
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        n = 1 + idsz + 9;
        if (avail < n)
            return 0;
        unsigned w = hf_btype_size(p[n - 1], idsz);
        if (!w || p[n - 1] == HF_T_OBJECT)
            return 0;
        n += (size_t)hprof_u4(p + 1 + idsz + 4) * w;
        break;
    }
    case HPROF_GC_PRIM_ARRAY_NODATA:
        n = 1 + idsz + 9;
        break;
    default:
        return 0;
    }
    return n <= avail ? n : 0;
}

/* ---- the codec: objects back from their sub-records ---- */

/* Whether n bytes at loc lie in the file.  Locators come from the index,
 * which may have been read from an index file (heap/persist.h): checked at
 * every use, so a damaged one is a miss, never a read outside the map. */
static inline bool in_file(const hf_heap *h, uint64_t loc, uint64_t n)
{
    return loc < h->base.size && n <= h->base.size - loc;
}

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    if (G_UNLIKELY(!in_file(h, loc, 1 + h->id_size)))
        return 0;
    return hprof_id(h->base.data + loc + 1, h->id_size);
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    const uint8_t *p = h->base.data + loc;
    const unsigned idsz = h->id_size;
    if (G_UNLIKELY(!in_file(h, loc, 1 + (uint64_t)idsz + 9)) ||
        ((p[0] == HPROF_GC_INSTANCE_DUMP || p[0] == HPROF_GC_OBJ_ARRAY_DUMP) &&
         G_UNLIKELY(!in_file(h, loc, 1 + 2 * (uint64_t)idsz + 8))))
        return false;
    const uint8_t *q = p + 1 + idsz + 4; /* past tag, id, stack serial */
    switch (p[0]) {
    case HPROF_GC_INSTANCE_DUMP:
        out->kind = HF_K_INSTANCE;
        out->class_id = hprof_id(q, idsz);
        return true;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        out->kind = HF_K_OBJARRAY;
        out->length = hprof_u4(q);
        out->class_id = hprof_id(q + 4, idsz);
        return true;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_NODATA:
        out->kind = HF_K_PRIMARRAY;
        out->length = hprof_u4(q);
        out->elem = q[4];
        return true;
    case HPROF_GC_CLASS_DUMP:
        out->kind = HF_K_CLASS;
        return true;
    }
    return false;
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    const uint8_t *p = h->base.data + loc;
    const uint8_t *fend = h->base.data + h->base.size;
    const unsigned idsz = h->id_size;
    if (G_UNLIKELY(loc >= h->base.size))
        return false;
    size_t n = hprof_subrecord_len(p, fend, idsz);
    if (!n)
        return false;
    const uint8_t *q = p + 1 + idsz + 4;
    ob->loc = loc;
    ob->id = hprof_id(p + 1, idsz);
    ob->trace = hprof_u4(p + 1 + idsz);
    switch (p[0]) {
    case HPROF_GC_INSTANCE_DUMP:
        ob->kind = HF_K_INSTANCE;
        ob->length = hprof_u4(q + idsz);
        ob->data = q + idsz + 4;
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        ob->kind = HF_K_OBJARRAY;
        ob->elem = HF_T_OBJECT;
        ob->length = hprof_u4(q);
        ob->data = q + 4 + idsz;
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_NODATA:
        ob->kind = HF_K_PRIMARRAY;
        ob->length = hprof_u4(q);
        ob->elem = q[4];
        ob->nodata = p[0] == HPROF_GC_PRIM_ARRAY_NODATA;
        ob->data = ob->nodata ? NULL : q + 5;
        break;
    case HPROF_GC_CLASS_DUMP:
        ob->kind = HF_K_CLASS;
        ob->data = NULL;
        ob->end = NULL;
        return true;
    default:
        return false;
    }
    ob->end = ob->data ? p + n : NULL;
    return true;
}

static bool codec_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                        uint64_t *v)
{
    unsigned w = hf_btype_size(t, h->id_size);
    /* *p may lie past end (a field beyond an instance's data): compared
     * first, so end - *p is never negative */
    if (!w || !*p || *p > end || (size_t)(end - *p) < w)
        return false;
    *v = hprof_value(*p, t, h->id_size);
    *p += w;
    return true;
}

static bool codec_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v)
{
    unsigned w = hf_btype_size(ob->elem, h->id_size);
    if (!ob->data || i >= ob->length || !w || (i + 1) * w > (uint64_t)(ob->end - ob->data))
        return false;
    *v = hprof_value(ob->data + i * w, ob->elem, h->id_size);
    return true;
}

const hf_heap_codec hprof_codec = {
    .fixed_be = true,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = codec_value,
    .element = codec_element,
};
