/*
 * hprofbld.h - a tiny builder of HPROF binary files for unit tests
 * (test_hprof.c, test_tables.c, test_bitmap.c): records and heap dump
 * sub-records written big-endian into a GByteArray, as a JVM writes them.  Static functions:
 * include it in one test file each.
 */
#ifndef HF_TEST_HPROFBLD_H
#define HF_TEST_HPROFBLD_H

#include "decoders/heap/heap.h"
#include "decoders/hprof/hprof.h"

#include <glib.h>
#include <string.h>

typedef struct {
    GByteArray *b;
    unsigned idsz;
    size_t rec; /* offset of the open record's length field */
} bld;

static inline void u1(bld *b, uint8_t v) { g_byte_array_append(b->b, &v, 1); }
static inline void u2(bld *b, uint16_t v) { u1(b, v >> 8); u1(b, (uint8_t)v); }
static inline void u4(bld *b, uint32_t v) { u2(b, v >> 16); u2(b, (uint16_t)v); }
static inline void u8(bld *b, uint64_t v) { u4(b, (uint32_t)(v >> 32)); u4(b, (uint32_t)v); }
static inline void id(bld *b, uint64_t v) { if (b->idsz == 8) u8(b, v); else u4(b, (uint32_t)v); }

static inline bld start(unsigned idsz, const char *version)
{
    bld b = {g_byte_array_new(), idsz, 0};
    g_byte_array_append(b.b, (const uint8_t *)version, (guint)strlen(version) + 1);
    u4(&b, idsz);
    u8(&b, UINT64_C(1136073600000)); /* 2006-01-01T00:00:00Z */
    return b;
}
static inline void rec(bld *b, uint8_t tag)
{
    u1(b, tag);
    u4(b, 0);
    b->rec = b->b->len;
    u4(b, 0);
}
static inline void end(bld *b)
{
    uint32_t n = b->b->len - b->rec - 4;
    uint8_t *p = b->b->data + b->rec;
    p[0] = n >> 24, p[1] = n >> 16, p[2] = n >> 8, p[3] = (uint8_t)n;
}
static inline void str(bld *b, uint64_t sid, const char *s)
{
    rec(b, HPROF_STRING);
    id(b, sid);
    g_byte_array_append(b->b, (const uint8_t *)s, (guint)strlen(s));
    end(b);
}
static inline void load_class(bld *b, uint32_t serial, uint64_t cid, uint64_t name)
{
    rec(b, HPROF_LOAD_CLASS);
    u4(b, serial);
    id(b, cid);
    u4(b, 0);
    id(b, name);
    end(b);
}
/* CLASS DUMP with n fields {name id, type} and statics {name, type, value}. */
static inline void class_dump(bld *b, uint64_t cid, uint64_t super, uint32_t isize, int nstat,
                       const uint64_t *stat, int nf, const uint64_t *f)
{
    u1(b, HPROF_GC_CLASS_DUMP);
    id(b, cid);
    u4(b, 7);
    id(b, super);
    for (int i = 0; i < 5; i++)
        id(b, 0);
    u4(b, isize);
    u2(b, 1); /* one constant pool entry: u2 index, type int, value */
    u2(b, 3);
    u1(b, HF_T_INT);
    u4(b, 99);
    u2(b, (uint16_t)nstat);
    for (int i = 0; i < nstat; i++) {
        id(b, stat[3 * i]);
        u1(b, (uint8_t)stat[3 * i + 1]);
        if (stat[3 * i + 1] == HF_T_OBJECT)
            id(b, stat[3 * i + 2]);
        else
            u4(b, (uint32_t)stat[3 * i + 2]); /* tests use ints only */
    }
    u2(b, (uint16_t)nf);
    for (int i = 0; i < nf; i++) {
        id(b, f[2 * i]);
        u1(b, (uint8_t)f[2 * i + 1]);
    }
}
static inline void instance(bld *b, uint64_t oid, uint64_t cid, const uint8_t *data, uint32_t n)
{
    u1(b, HPROF_GC_INSTANCE_DUMP);
    id(b, oid);
    u4(b, 1);
    id(b, cid);
    u4(b, n);
    g_byte_array_append(b->b, data, n);
}
G_GNUC_UNUSED static void obj_array(bld *b, uint64_t oid, uint64_t cls, uint32_t n, const uint64_t *ids)
{
    u1(b, HPROF_GC_OBJ_ARRAY_DUMP);
    id(b, oid);
    u4(b, 0);
    u4(b, n);
    id(b, cls);
    for (uint32_t i = 0; i < n; i++)
        id(b, ids[i]);
}
static inline void prim_array(bld *b, uint64_t oid, uint8_t type, uint32_t n, const uint8_t *data,
                       unsigned width)
{
    u1(b, HPROF_GC_PRIM_ARRAY_DUMP);
    id(b, oid);
    u4(b, 0);
    u4(b, n);
    u1(b, type);
    g_byte_array_append(b->b, data, n * width);
}

#endif
