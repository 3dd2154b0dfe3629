/*
 * test_bmd.c - the BMD decoder.
 *
 * Hand-made byte strings (a small builder below) cover varints (10-byte
 * negatives, too long, cut), every value encoding, every record type
 * (with the examples of the format document), a whole file read through
 * the model, records out of order, hashed names with and without a names
 * file, and malformed input: a varint that never ends, a length past the
 * end, an unknown tag, a class that never comes, a class chain that loops,
 * and every truncation of a small file.  Then the corpus: every file opens,
 * and the two files converted from corpus HPROF dumps agree with the HPROF
 * decoder on the instance count of every class (with the HPROF's class
 * names given as names for the hashed ones).
 *
 * Run from the project root (the corpus is tests/corpus).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/bmd/bmd.h"
#include "decoders/hprof/hprof.h"
#include "decoders/core/registry.h"

/* ---- builder ---- */

typedef GByteArray bld;

static void b1(bld *b, uint8_t v) { g_byte_array_append(b, &v, 1); }
static void bytes(bld *b, const char *hex) /* "9a81ec9a01" */
{
    for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
        if (hex[i] == ' ') {
            i--;
            continue;
        }
        char t[3] = {hex[i], hex[i + 1], 0};
        b1(b, (uint8_t)strtoul(t, NULL, 16));
    }
}
static void vu(bld *b, uint64_t v)
{
    while (v >= 0x80) {
        b1(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    b1(b, (uint8_t)v);
}
/* As Java's writeInt32: negatives sign-extended to 64 bits (10 bytes). */
static void vi(bld *b, int32_t v) { vu(b, (uint64_t)(int64_t)v); }
static void raw(bld *b, const void *p, size_t n) { g_byte_array_append(b, p, (guint)n); }

static bld *start(void)
{
    bld *b = g_byte_array_new();
    vu(b, 1);
    vu(b, 18);
    raw(b, "JAVA PROFILE 1.0.3", 18);
    return b;
}
static void rstring(bld *b, uint32_t id, const char *s)
{
    vu(b, BMD_STRING);
    vu(b, id);
    vu(b, strlen(s));
    raw(b, s, strlen(s));
}
static void rhashed(bld *b, uint32_t id, const char *s)
{
    vu(b, BMD_HASHED_STRING);
    vu(b, id);
    vu(b, strlen(s));
    vi(b, bmd_java_hash(s, strlen(s)));
}
/* BMD field types */
enum { T_OBJ, T_INT, T_BOOL, T_BYTE, T_CHAR, T_FLOAT, T_DOUBLE, T_LONG, T_SHORT };
/* Class with nf fields {name, type} (pairs), ns statics {name, type, value} (triples; values
 * written by wval), discarded bytes. */
static void wval(bld *b, int t, uint64_t v);
static void rclass(bld *b, uint32_t id, uint32_t super, uint32_t name, int ns, const uint64_t *st,
                   int nf, const uint32_t *f, uint32_t discarded)
{
    vu(b, BMD_CLASS);
    vu(b, id);
    vu(b, super);
    vu(b, name);
    vu(b, 1); /* one constant: index 7, int 99 */
    vu(b, 7);
    vu(b, T_INT);
    vu(b, 99);
    vu(b, (uint64_t)ns);
    for (int i = 0; i < ns; i++) {
        vu(b, st[3 * i]);
        vu(b, st[3 * i + 1]);
        wval(b, (int)st[3 * i + 1], st[3 * i + 2]);
    }
    vu(b, (uint64_t)nf);
    for (int i = 0; i < nf; i++) {
        vu(b, f[2 * i]);
        vu(b, f[2 * i + 1]);
    }
    vu(b, discarded);
}
static void wval(bld *b, int t, uint64_t v)
{
    switch (t) {
    case T_OBJ: case T_INT: case T_SHORT: vi(b, (int32_t)v); break;
    case T_LONG: vu(b, v); break;
    case T_FLOAT: for (int i = 0; i < 4; i++) b1(b, (uint8_t)(v >> (8 * i))); break;
    case T_DOUBLE: for (int i = 0; i < 8; i++) b1(b, (uint8_t)(v >> (8 * i))); break;
    case T_BOOL: case T_BYTE: b1(b, (uint8_t)v); break;
    case T_CHAR: b1(b, (uint8_t)(v >> 8)); b1(b, (uint8_t)v); break;
    }
}
static void rinstance(bld *b, uint32_t id, uint32_t cls)
{
    vu(b, BMD_INSTANCE);
    vu(b, id);
    vu(b, cls);
}
static void rroots(bld *b, int n, const uint32_t *ids)
{
    vu(b, BMD_ROOTS);
    vu(b, (uint64_t)n);
    for (int i = 0; i < n; i++)
        vu(b, ids[i]);
}
static void robjarray(bld *b, uint32_t id, uint32_t cls, int n, const uint32_t *el)
{
    vu(b, BMD_OBJARRAY);
    vu(b, id);
    vu(b, cls);
    vu(b, (uint64_t)n);
    for (int i = 0; i < n; i++)
        vu(b, el[i]);
}
static void rprimarray(bld *b, uint32_t id, uint32_t type, uint32_t n)
{
    vu(b, BMD_PRIMARRAY);
    vu(b, id);
    vu(b, type);
    vu(b, n);
}
static void rlegacy(bld *b, uint32_t tag, const bld *body)
{
    vu(b, BMD_LEGACY);
    vu(b, tag);
    vu(b, body->len);
    raw(b, body->data, body->len);
}
static void u4(bld *b, uint32_t v) { b1(b, v >> 24); b1(b, v >> 16); b1(b, v >> 8); b1(b, (uint8_t)v); }

/* ---- opening ---- */

/* Views render in chunks of 16 bytes, each compared with the whole view
 * (th_set_budget in main). */
static hf_dump *open_bytes_opts(const bld *bytes, char **path, const hf_open_opts *opts)
{
    GError *e = NULL;
    *path = th_write_temp(bytes->data, bytes->len);
    hf_dump *d = hf_open_with(*path, opts, &e);
    if (!d)
        fail_msg("open: %s", e->message);
    assert_string_equal(d->ops->format, "bmd");
    return d;
}
static hf_dump *open_bytes(const bld *bytes, char **path)
{
    return open_bytes_opts(bytes, path, NULL);
}
static void close_bytes(hf_dump *d, char *path)
{
    hf_dump_close(d);
    unlink(path);
    g_free(path);
}

/* ---- varints and values ---- */

static bmd_status read_hex(const char *hex, uint64_t *v, size_t *used)
{
    bld *b = g_byte_array_new();
    bytes(b, hex);
    const uint8_t *p = b->data;
    bmd_status st = bmd_varint(&p, b->data + b->len, v);
    *used = (size_t)(p - b->data);
    g_byte_array_unref(b);
    return st;
}

static void test_varints(void **state)
{
    static const struct { const char *hex; uint64_t v; size_t n; } ok[] = {
        {"00", 0, 1}, {"7f", 127, 1}, {"8001", 128, 2}, {"ac02", 300, 2},
        {"9803", 408, 2},                      /* the format document's string id */
        {"9a81ec9a01", 324731034, 5},          /* ... and its hash */
        {"ffffffffffffffffff01", UINT64_MAX, 10}, /* -1 as Java's writeInt32 writes it */
        {"80808080f8ffffffff01", (uint64_t)(int64_t)INT32_MIN, 10},
        {"a2c5f6d6b4829b85e901", UINT64_C(0xe90a6c134adda2a2), 10}, /* a long static */
        {"ff01ff", 255, 2},                    /* stops at the first byte < 0x80 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
        uint64_t v = 0;
        size_t n = 0;
        assert_int_equal(read_hex(ok[i].hex, &v, &n), BMD_OK);
        assert_true(v == ok[i].v);
        assert_int_equal(n, ok[i].n);
    }
    uint64_t v;
    size_t n;
    assert_int_equal(read_hex("", &v, &n), BMD_CUT);
    assert_int_equal(read_hex("80", &v, &n), BMD_CUT);
    assert_int_equal(read_hex("ffffffffffffffffff", &v, &n), BMD_CUT); /* 9 bytes, unfinished */
    assert_int_equal(read_hex("ffffffffffffffffffff01", &v, &n), BMD_BAD); /* 11 bytes */
    assert_int_equal(read_hex("8080808080808080808080808080", &v, &n), BMD_BAD);
    /* varint32 keeps the low 32 bits: a 10-byte negative reads back as the int */
    bld *b = g_byte_array_new();
    vi(b, -2);
    assert_int_equal(b->len, 10);
    const uint8_t *p = b->data;
    uint32_t w;
    assert_int_equal(bmd_varint32(&p, b->data + b->len, &w), BMD_OK);
    assert_int_equal((int32_t)w, -2);
    g_byte_array_unref(b);
}

static void test_values(void **state)
{
    float f = 1.5f;
    double dv = -2.25;
    uint32_t fb;
    uint64_t db;
    memcpy(&fb, &f, 4);
    memcpy(&db, &dv, 8);
    static const uint8_t types[] = {HF_T_OBJECT, HF_T_INT,  HF_T_SHORT, HF_T_LONG, HF_T_FLOAT,
                                    HF_T_DOUBLE, HF_T_BOOLEAN, HF_T_BYTE, HF_T_CHAR};
    const char *hex[] = {"ac02", "feffffffffffffffff01", "ffffffffffffffffff01",
                         "feffffffffffffffff01", "0000c03f", "0000000000000" "2c0", "01", "fe",
                         "00e9"};
    const uint64_t want[] = {300, 0xfffffffe, 0xffff, UINT64_MAX - 1, fb, db, 1, 0xfe, 0xe9};
    const size_t len[] = {2, 10, 10, 10, 4, 8, 1, 1, 2};
    for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
        bld *b = g_byte_array_new();
        bytes(b, hex[i]);
        const uint8_t *p = b->data;
        uint64_t v = 0;
        assert_int_equal(bmd_value(types[i], &p, b->data + b->len, &v), BMD_OK);
        if (v != want[i])
            fail_msg("type %u: got 0x%llx, want 0x%llx", types[i], (unsigned long long)v,
                     (unsigned long long)want[i]);
        assert_int_equal((size_t)(p - b->data), len[i]);
        /* one byte short: cut, never a read past the end */
        p = b->data;
        assert_int_equal(bmd_value(types[i], &p, b->data + b->len - 1, &v), BMD_CUT);
        /* starting past the end (a field beyond an object's bytes): cut too */
        p = b->data + 1;
        assert_int_equal(bmd_value(types[i], &p, b->data, &v), BMD_CUT);
        g_byte_array_unref(b);
    }
    const uint8_t zero = 0;
    const uint8_t *p = &zero;
    uint64_t v;
    assert_int_equal(bmd_value(0, &p, &zero + 1, &v), BMD_BAD);
    /* the type codes */
    static const unsigned map[] = {HF_T_OBJECT, HF_T_INT, HF_T_BOOLEAN, HF_T_BYTE, HF_T_CHAR,
                                   HF_T_FLOAT, HF_T_DOUBLE, HF_T_LONG, HF_T_SHORT};
    for (unsigned t = 0; t < 9; t++)
        assert_int_equal(bmd_hf_type(t), map[t]);
    assert_int_equal(bmd_hf_type(9), 0);
    assert_int_equal(bmd_hf_type(UINT64_MAX), 0);
}

/* ---- records: the format document's examples ---- */

static const uint8_t *body_of(bld *b, uint32_t tag)
{
    const uint8_t *p = b->data;
    uint32_t t;
    assert_int_equal(bmd_varint32(&p, b->data + b->len, &t), BMD_OK);
    assert_int_equal(t, tag);
    return p;
}

static void test_records(void **state)
{
    const char *why = NULL;
    bld *b = g_byte_array_new();
    bytes(b, "01 9803 17");
    raw(b, "java.lang.ref.Reference", 23);
    const uint8_t *p = body_of(b, BMD_STRING), *end = b->data + b->len;
    bmd_string s;
    assert_int_equal(bmd_parse_string(&p, end, &s, &why), BMD_OK);
    assert_int_equal(s.id, 408);
    assert_int_equal(s.len, 23);
    assert_memory_equal(s.text, "java.lang.ref.Reference", 23);
    assert_ptr_equal(p, end);
    p = body_of(b, BMD_STRING);
    assert_int_equal(bmd_parse_string(&p, end - 1, &s, &why), BMD_CUT); /* length past the end */

    g_byte_array_set_size(b, 0);
    bytes(b, "02 76 24 9a81ec9a01");
    p = body_of(b, BMD_HASHED_STRING), end = b->data + b->len;
    bmd_hashed hs;
    assert_int_equal(bmd_parse_hashed(&p, end, &hs, &why), BMD_OK);
    assert_int_equal(hs.id, 118);
    assert_int_equal(hs.len, 36);
    assert_int_equal(hs.hash, 324731034);

    g_byte_array_set_size(b, 0);
    bytes(b, "03 34 35 a842 00 02 e169 00 36 c58302 07 a2c5f6d6b4829b85e901 00 00");
    p = body_of(b, BMD_CLASS), end = b->data + b->len;
    bmd_class c;
    assert_int_equal(bmd_parse_class(&p, end, &c, &why), BMD_OK);
    assert_ptr_equal(p, end);
    assert_int_equal(c.id, 52);
    assert_int_equal(c.super, 53);
    assert_int_equal(c.name, 8488);
    assert_int_equal(c.n_consts, 0);
    assert_int_equal(c.n_statics, 2);
    assert_int_equal(c.n_fields, 0);
    assert_int_equal(c.discarded, 0);
    const uint8_t *q = c.statics;
    bmd_member m;
    assert_int_equal(bmd_next_member(&q, end, true, &m, &why), BMD_OK);
    assert_int_equal(m.name, 13537);
    assert_int_equal(m.type, HF_T_OBJECT);
    assert_int_equal(m.value, 54);
    assert_int_equal(bmd_next_member(&q, end, true, &m, &why), BMD_OK);
    assert_int_equal(m.name, 33221);
    assert_int_equal(m.type, HF_T_LONG);
    assert_true(m.value == UINT64_C(0xe90a6c134adda2a2));
    /* a field type that is not one */
    g_byte_array_set_size(b, 0);
    bytes(b, "03 34 35 a842 00 00 01 05 09 00");
    p = body_of(b, BMD_CLASS), end = b->data + b->len;
    assert_int_equal(bmd_parse_class(&p, end, &c, &why), BMD_BAD);
    assert_non_null(strstr(why, "type"));

    g_byte_array_set_size(b, 0);
    bytes(b, "04 b901 be01 00");
    p = body_of(b, BMD_INSTANCE), end = b->data + b->len;
    bmd_instance in;
    assert_int_equal(bmd_parse_instance(&p, end, &in, &why), BMD_OK);
    assert_int_equal(in.id, 185);
    assert_int_equal(in.cls, 190);
    assert_ptr_equal(p, end - 1); /* at the instance data */

    g_byte_array_set_size(b, 0);
    bytes(b, "05 02 f053 e971");
    p = body_of(b, BMD_ROOTS), end = b->data + b->len;
    bmd_roots r;
    assert_int_equal(bmd_parse_roots(&p, end, &r, &why), BMD_OK);
    assert_int_equal(r.n, 2);
    q = r.ids;
    uint32_t w;
    bmd_varint32(&q, end, &w);
    assert_int_equal(w, 10736);
    bmd_varint32(&q, end, &w);
    assert_int_equal(w, 14569);
    p = body_of(b, BMD_ROOTS);
    assert_int_equal(bmd_parse_roots(&p, end - 1, &r, &why), BMD_CUT);

    g_byte_array_set_size(b, 0);
    bytes(b, "06 d203 d603 02 00 00");
    p = body_of(b, BMD_OBJARRAY), end = b->data + b->len;
    bmd_objarray oa;
    assert_int_equal(bmd_parse_objarray(&p, end, &oa, &why), BMD_OK);
    assert_int_equal(oa.id, 466);
    assert_int_equal(oa.cls, 470);
    assert_int_equal(oa.n, 2);
    assert_ptr_equal(p, end);

    g_byte_array_set_size(b, 0);
    bytes(b, "07 9201 03 d801");
    p = body_of(b, BMD_PRIMARRAY), end = b->data + b->len;
    bmd_primarray pa;
    assert_int_equal(bmd_parse_primarray(&p, end, &pa, &why), BMD_OK);
    assert_int_equal(pa.id, 146);
    assert_int_equal(pa.type, 3);
    assert_int_equal(bmd_hf_type(pa.type), HF_T_BYTE);
    assert_int_equal(pa.n, 216);

    g_byte_array_set_size(b, 0);
    bytes(b, "08 05 0c 000000000000000000000000");
    p = body_of(b, BMD_LEGACY), end = b->data + b->len;
    bmd_legacy l;
    assert_int_equal(bmd_parse_legacy(&p, end, &l, &why), BMD_OK);
    assert_int_equal(l.tag, HPROF_STACK_TRACE);
    assert_int_equal(l.len, 12);
    hprof_trace t; /* decoded by the HPROF parser */
    assert_true(hprof_parse_stack_trace(l.body, l.len, 4, &t));
    assert_int_equal(t.n_frames, 0);
    p = body_of(b, BMD_LEGACY);
    assert_int_equal(bmd_parse_legacy(&p, end - 1, &l, &why), BMD_CUT);

    bmd_header h;
    g_byte_array_set_size(b, 0);
    bytes(b, "01 03 414243 01");
    assert_int_equal(bmd_parse_header(b->data, b->len, &h), BMD_OK);
    assert_int_equal(h.version, 1);
    assert_int_equal(h.meta_len, 3);
    assert_int_equal(h.len, 5);
    assert_int_equal(bmd_parse_header(b->data, 4, &h), BMD_CUT);
    g_byte_array_unref(b);
}

/* ---- detection ---- */

static bool detect(const bld *b)
{
    for (const hf_decoder *const *d = hf_decoders(); *d; d++)
        if ((*d)->detect(b->data, b->len))
            return strcmp((*d)->format, "bmd") == 0;
    return false;
}

static void test_detect(void **state)
{
    bld *b = start();
    rhashed(b, 1, "Foo");
    rstring(b, 2, "java.lang.Object");
    assert_true(detect(b));
    g_byte_array_set_size(b, 0);
    bytes(b, "02 12");
    raw(b, "JAVA PROFILE 1.0.3", 18); /* version 2: not the format we know */
    rstring(b, 2, "java.lang.Object");
    assert_false(detect(b));
    g_byte_array_set_size(b, 0);
    bytes(b, "01 02 4142 09 01 02"); /* tag 9 */
    assert_false(detect(b));
    g_byte_array_set_size(b, 0);
    raw(b, "JAVA PROFILE 1.0.2", 19); /* HPROF */
    u4(b, 4);
    u4(b, 0);
    u4(b, 0);
    assert_false(detect(b));
    g_byte_array_unref(b);
}

/* ---- a whole file ---- */

enum {
    S_OBJECT = 1, S_STRING, S_CLASS, S_FOO, S_BAR, S_OBJARR, S_INTARR, S_NEXT, S_VALUE,
    S_I, S_Z, S_B, S_C, S_F, S_D, S_J, S_S, S_COUNT, S_ONLY_HASH, S_NAME
};
enum {
    C_OBJECT = 1, C_STRING, C_CLASS, C_FOO, C_BAR, C_OBJARR, C_INTARR,
    O_FOO = 100, O_BAR, O_ARR, O_INTS, O_STR
};

/* Bar extends Foo extends Object.  Foo has one field of every type, Bar
 * an object field; Foo's and Bar's names are hashed, Bar is defined after
 * its instance and its name string comes last. */
static bld *full_file(void)
{
    bld *b = start();
    /* legacy records, ids 4 bytes, in any order: trace 7 of two frames
     * (the second one's strings absent), thread 3 named "main", thread 4
     * with a name the file lacks */
    bld *body = g_byte_array_new();
    u4(body, 7);
    u4(body, 1);
    u4(body, 2);
    u4(body, 0x600);
    u4(body, 0x601);
    rlegacy(b, HPROF_STACK_TRACE, body);
    const uint32_t frames[2][6] = {{0x600, 0x500, 0x501, 0x502, 9, 12},
                                   {0x601, 0x5f0, 0x5f1, 0, 10, (uint32_t)-3}};
    for (int i = 0; i < 2; i++) {
        g_byte_array_set_size(body, 0);
        for (int k = 0; k < 6; k++)
            u4(body, frames[i][k]);
        rlegacy(b, HPROF_STACK_FRAME, body);
    }
    const uint32_t threads[2][6] = {{3, 0x99, 7, 0x504, 0, 0}, {4, 0x98, 7, 0x1234, 0, 0}};
    for (int i = 0; i < 2; i++) {
        g_byte_array_set_size(body, 0);
        for (int k = 0; k < 6; k++)
            u4(body, threads[i][k]);
        rlegacy(b, HPROF_START_THREAD, body);
    }
    const char *lstr[] = {"run", "()V", "Foo.java", "com/example/Foo", "main"};
    for (int i = 0; i < 5; i++) {
        g_byte_array_set_size(body, 0);
        u4(body, 0x500 + (uint32_t)i);
        raw(body, lstr[i], strlen(lstr[i]));
        rlegacy(b, HPROF_STRING, body);
    }
    g_byte_array_set_size(body, 0);
    u4(body, 9); /* LOAD CLASS serial 9: class 0x77 named com/example/Foo */
    u4(body, 0x77);
    u4(body, 0);
    u4(body, 0x503);
    rlegacy(b, HPROF_LOAD_CLASS, body);
    g_byte_array_unref(body);
    rstring(b, S_OBJECT, "java.lang.Object");
    rstring(b, S_STRING, "java.lang.String");
    rstring(b, S_CLASS, "java.lang.Class");
    rhashed(b, S_FOO, "com.example.Foo");
    rstring(b, S_OBJARR, "java.lang.Object[]");
    rhashed(b, S_INTARR, "int[]");
    rhashed(b, S_NEXT, "next");
    rstring(b, S_VALUE, "value");
    const char *fn[] = {"i", "z", "b", "c", "f", "d", "j", "s"};
    for (int i = 0; i < 8; i++)
        rstring(b, S_I + i, fn[i]);
    rstring(b, S_COUNT, "COUNT");
    rhashed(b, S_ONLY_HASH, "secretName");
    rclass(b, C_OBJECT, 0, S_OBJECT, 0, NULL, 0, NULL, 0);
    const uint64_t st[] = {S_COUNT, T_INT, (uint64_t)-5, S_ONLY_HASH, T_OBJ, O_FOO,
                           S_D, T_DOUBLE, 0x4004000000000000, S_C, T_CHAR, 'x'};
    rclass(b, C_CLASS, C_OBJECT, S_CLASS, 4, st, 0, NULL, 0);
    const uint32_t sf[] = {S_VALUE, T_OBJ};
    rclass(b, C_STRING, C_OBJECT, S_STRING, 0, NULL, 1, sf, 8); /* hash and coder dropped */
    const uint32_t ff[] = {S_NEXT, T_OBJ, S_I, T_INT, S_Z, T_BOOL, S_B, T_BYTE, S_C, T_CHAR,
                           S_F, T_FLOAT, S_D, T_DOUBLE, S_J, T_LONG, S_S, T_SHORT};
    rclass(b, C_FOO, C_OBJECT, S_FOO, 0, NULL, 9, ff, 4);
    rclass(b, C_OBJARR, C_OBJECT, S_OBJARR, 0, NULL, 0, NULL, 0);
    rclass(b, C_INTARR, C_OBJECT, S_INTARR, 0, NULL, 0, NULL, 0);
    /* Foo: next = Bar, i = -7, true, byte -2, 'A', 1.5f, -2.25, long -3, short -4 */
    rinstance(b, O_FOO, C_FOO);
    wval(b, T_OBJ, O_BAR);
    wval(b, T_INT, (uint32_t)-7);
    wval(b, T_BOOL, 1);
    wval(b, T_BYTE, 0xfe);
    wval(b, T_CHAR, 'A');
    wval(b, T_FLOAT, 0x3fc00000);
    wval(b, T_DOUBLE, 0xc002000000000000);
    wval(b, T_LONG, (uint64_t)-3);
    wval(b, T_SHORT, (uint32_t)-4);
    /* Bar's instance before Bar's class: own field next = Foo, then Foo's */
    rinstance(b, O_BAR, C_BAR);
    wval(b, T_OBJ, O_FOO);
    wval(b, T_OBJ, 0);
    wval(b, T_INT, 8);
    wval(b, T_BOOL, 0);
    wval(b, T_BYTE, 1);
    wval(b, T_CHAR, 0x263a);
    wval(b, T_FLOAT, 0);
    wval(b, T_DOUBLE, 0);
    wval(b, T_LONG, 1);
    wval(b, T_SHORT, 2);
    const uint32_t el[] = {O_FOO, 0, O_BAR};
    robjarray(b, O_ARR, C_OBJARR, 3, el);
    rprimarray(b, O_INTS, T_INT, 10);
    rinstance(b, O_STR, C_STRING);
    wval(b, T_OBJ, O_INTS);
    const uint32_t roots[] = {O_FOO, O_ARR};
    rroots(b, 2, roots);
    const uint32_t bf[] = {S_NEXT, T_OBJ};
    rclass(b, C_BAR, C_FOO, S_BAR, 0, NULL, 1, bf, 0);
    rhashed(b, S_BAR, "com.example.Bar");
    return b;
}

static void test_full(void **state)
{
    bld *b = full_file();
    char *path;
    hf_dump *d = open_bytes(b, &path);
    char *pr = th_problems(d);
    if (*pr)
        fail_msg("problems:\n%s", pr);
    g_free(pr);
    char *in = th_info(d);
    assert_non_null(strstr(in, "format: bmd\n"));
    assert_non_null(strstr(in, "metadata: JAVA PROFILE 1.0.3\n"));
    assert_non_null(strstr(in, "records instance dump: 3\n"));
    assert_non_null(strstr(in, "records class definition: 7\n"));
    assert_non_null(strstr(in, "names resolved: 0 of 5 hashed (no -o names=FILE given)\n"));
    assert_non_null(strstr(in, "legacy records stack trace: 1\n"));
    assert_non_null(strstr(in, "legacy records string: 5\n"));
    assert_non_null(strstr(in, "identifier size: 4 "));
    assert_non_null(strstr(in, "instances before their class: 1\n"));
    g_free(in);

    /* placeholders: hash.LEN.HASH */
    GString *foo = g_string_new(NULL), *bar = g_string_new(NULL), *next = g_string_new(NULL);
    bmd_placeholder(foo, 15, bmd_java_hash("com.example.Foo", 15));
    bmd_placeholder(bar, 15, bmd_java_hash("com.example.Bar", 15));
    bmd_placeholder(next, 4, bmd_java_hash("next", 4));
    assert_string_equal(next->str, "hash.4.00338af3");
    assert_contains(th_class_file(d, 0, bar->str, "info"), foo->str); /* super */
    /* fields: every type decoded, own fields first, then the super's */
    char *want = g_strdup_printf("%s object 0x65\ni int -7\nz boolean true\nb byte -2\n"
                                 "c char 'A'\nf float 1.5\nd double -2.25\nj long -3\n"
                                 "s short -4\n", next->str);
    char *got = th_object_file(d, 0, "0x64", "fields");
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    got = th_object_file(d, 0, "0x65", "fields");
    want = g_strdup_printf("%s object 0x64\n%s@%s object null\ni int 8\nz boolean false\n"
                           "b byte 1\nc char '\\u263a'\nf float 0\nd double 0\nj long 1\n"
                           "s short 2\n", next->str, next->str, foo->str);
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    /* refs/ and for_each_ref */
    int64_t bo = d->ops->object_find(d, 0, "0x65");
    char name[HF_NAME_MAX];
    hf_target to;
    assert_int_equal(th_ref(d, 0, (uint64_t)bo, 0, name, &to), HF_REF_OK);
    assert_string_equal(name, next->str);
    assert_string_equal(to.name, "0x64");
    assert_int_equal(th_ref(d, 0, (uint64_t)bo, 1, name, &to), HF_REF_EMPTY);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)bo, next->str), 0);
    /* links: 0x65 is a Bar, whose super is Foo */
    assert_true(th_object_link(d, 0, "0x65", "class", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    assert_string_equal(to.name, bar->str);
    assert_true(th_class_link(d, 0, bar->str, "super", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    assert_string_equal(to.name, foo->str);
    /* sizes: 32-bit rule, Foo = 8 + 4+4+1+1+2+4+8+8+2 + 4 discarded = 46 -> 48 */
    assert_contains(th_class_file(d, 0, foo->str, "info"), "instance size: 48 ");
    assert_contains(th_class_file(d, 0, foo->str, "info"), "fields left out of the dump: 4 bytes");
    assert_contains(th_class_file(d, 0, "java.lang.String", "info"), "instance size: 24 ");
    /* statics of every kind, names kept or hashed */
    got = th_class_file(d, 0, "java.lang.Class", "statics");
    GString *secret = g_string_new(NULL);
    bmd_placeholder(secret, 10, bmd_java_hash("secretName", 10));
    want = g_strdup_printf("COUNT int -5\n%s object 0x64\nd double 2.5\nc char 'x'\n",
                           secret->str);
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    /* object array: elements and refs */
    assert_contains(th_object_file(d, 0, "0x66", "fields"), "[0] 0x64\n[1] null\n[2] 0x65\n");
    assert_contains(th_object_file(d, 0, "0x66", "info"), "class: java.lang.Object[]\n");
    int64_t ao = d->ops->object_find(d, 0, "0x66");
    assert_int_equal(th_ref(d, 0, (uint64_t)ao, 2, name, &to), HF_REF_OK);
    assert_string_equal(to.name, "0x65");
    assert_int_equal(th_ref(d, 0, (uint64_t)ao, 0, name, &to), HF_REF_OK);
    assert_string_equal(to.name, "0x64");
    /* primitive array: type and length, no fields or value */
    assert_contains(th_object_file(d, 0, "0x67", "info"), "length: 10 (elements not in the dump)\n");
    assert_contains(th_object_file(d, 0, "0x67", "info"), "kind: primitive array\n");
    assert_false(th_object_has(d, 0, "0x67", "value"));
    assert_false(th_object_has(d, 0, "0x67", "fields"));
    /* a String has no text in BMD: no value file */
    assert_false(th_object_has(d, 0, "0x68", "value"));
    /* int[] is hashed: the arrays go to a made-up int[] */
    assert_contains(th_class_file(d, 0, "int[]", "info"), "instance count: 1\n");
    /* roots, strings, histogram */
    assert_contains(th_snap_file(d, 0, "roots"), "unknown 0x64 ");
    got = th_snap_file(d, 0, "strings");
    assert_non_null(strstr(got, "1 text java.lang.Object\n"));
    want = g_strdup_printf("%u hashed %s\n", S_FOO, foo->str);
    assert_non_null(strstr(got, want));
    g_free(want);
    g_free(got);
    assert_contains(th_snap_file(d, 0, "histogram"), foo->str);
    /* heap.pprof and stacks.folded: live objects by class */
    assert_contains(th_snap_file(d, 0, "heap.pprof"), "heap profile: ");
    char *want_line = g_strdup_printf("%s 48\n", foo->str);
    assert_contains(th_snap_file(d, 0, "stacks.folded"), want_line);
    g_free(want_line);
    want_line = g_strdup_printf("%s 56\n", bar->str);
    assert_contains(th_snap_file(d, 0, "stacks.folded"), want_line);
    g_free(want_line);
    /* legacy records: one trace, two threads, one without a name */
    assert_int_equal(d->ops->n_traces(d), 1);
    assert_int_equal(d->ops->trace_number(d, 0), 7);
    assert_string_equal(got = th_trace(d, 0),
                        "TRACE 7: (thread=1)\n\tcom.example.Foo.run(Foo.java:12)\n"
                        "\t<unknown class>.0x5f0(Native Method)\n");
    g_free(got);
    assert_int_equal(d->ops->n_threads(d), 2);
    d->ops->thread_name(d, 0, name);
    assert_string_equal(name, "3-main");
    d->ops->thread_name(d, 1, name);
    assert_string_equal(name, "4");
    assert_contains(th_thread_file(d, 0, "stack"),
                    "\tcom.example.Foo.run(Foo.java:12)\n");
    g_string_free(foo, TRUE);
    g_string_free(bar, TRUE);
    g_string_free(next, TRUE);
    g_string_free(secret, TRUE);
    close_bytes(d, path);
    g_byte_array_unref(b);
}

/* ---- names ---- */

static void test_java_hash(void **state)
{
    assert_int_equal(bmd_java_hash("", 0), 0);
    assert_int_equal(bmd_java_hash("hello", 5), 99162322);
    assert_int_equal(bmd_java_hash("java.lang.String", 16), 1195259493);
    assert_int_equal(bmd_java_hash("\xc3\xa9", 2), 233);            /* U+00E9 */
    assert_int_equal(bmd_java_hash("\xf0\x9f\x98\x80", 4), 1772899); /* a surrogate pair */
    assert_int_equal(bmd_java_hash("Aa", 2), bmd_java_hash("BB", 2));
}

static void test_names(void **state)
{
    const char *text = "# comment\n"
                       "java.util.HashMap\n"                  /* dotted: also slashed */
                       "  int[]  \r\n"                        /* display form: also [I */
                       "java.lang.String[][]\n"               /* also [[Ljava/lang/String; */
                       "        12         345  a.b.Hist\n"   /* a histogram line */
                       "com/x/Y.class\n"                      /* a jar listing */
                       "Foo$$Lambda$1%2F0x10@0x77\n"          /* escaped, with @0xID */
                       "[B\n"                                 /* descriptor: also byte[] */
                       "Aa\nBB\n";                            /* same hash and length */
    bmd_names *n = bmd_names_from_text(text, strlen(text));
    struct { const char *s; bool found; } cases[] = {
        {"java.util.HashMap", true}, {"java/util/HashMap", true}, {"int[]", true},
        {"[I", true}, {"[[Ljava/lang/String;", true}, {"[[Ljava.lang.String;", true},
        {"a.b.Hist", true}, {"a/b/Hist", true}, {"com/x/Y", true}, {"com.x.Y", true},
        {"Foo$$Lambda$1/0x10", true}, {"byte[]", true}, {"[B", true},
        {"# comment", false}, {"comment", false}, {"12", false}, {"java.util.Map", false},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const char *s = cases[i].s;
        bool amb = true;
        const char *r = bmd_names_lookup(n, bmd_java_hash(s, strlen(s)), (uint32_t)strlen(s), &amb);
        if (cases[i].found != (r != NULL))
            fail_msg("%s: %s", s, r ? "found" : "not found");
        if (r) {
            assert_string_equal(r, s);
            assert_false(amb);
        }
    }
    /* the right hash with the wrong length does not match */
    assert_null(bmd_names_lookup(n, bmd_java_hash("int[]", 5), 6, NULL));
    bool amb = false;
    assert_string_equal(bmd_names_lookup(n, bmd_java_hash("BB", 2), 2, &amb), "Aa");
    assert_true(amb);
    assert_true(bmd_names_count(n) > 10);
    bmd_names_free(n);
    GError *e = NULL;
    assert_null(bmd_names_load("/nonexistent/names.txt", &e));
    assert_non_null(strstr(e->message, "names file"));
    g_error_free(e);
}

static void test_names_option(void **state)
{
    bld *b = full_file();
    GError *e = NULL;
    const char *names = "com.example.Foo\ncom/example/Bar\nnext\nint[]\n";
    char *npath = th_write_temp(names, strlen(names));
    hf_open_opts opts = {.names_file = npath};
    char *path;
    hf_dump *d = open_bytes_opts(b, &path, &opts);
    char *in = th_info(d);
    assert_non_null(strstr(in, "names resolved: 4 of 5 hashed ("));
    g_free(in);
    /* com/example/Bar matched slashed: shown dotted */
    assert_contains(th_class_file(d, 0, "com.example.Bar", "info"), "super: com.example.Foo\n");
    assert_contains(th_object_file(d, 0, "0x65", "fields"), "next object 0x64\nnext@com.example.Foo ");
    /* int[] resolved: the arrays go to the real class */
    int64_t c = d->ops->class_find(d, 0, "int[]");
    assert_true(c >= 0);
    assert_contains(th_class_file(d, 0, "int[]", "info"), "id: 0x7\n");
    assert_contains(th_snap_file(d, 0, "strings"), "4 resolved com.example.Foo\n");
    close_bytes(d, path);
    /* a names file that is not there: the open fails, saying why */
    opts.names_file = "/nonexistent/names.txt";
    char *p2 = th_write_temp(b->data, b->len);
    assert_null(hf_open_with(p2, &opts, &e));
    assert_non_null(strstr(e->message, "names file"));
    g_clear_error(&e);
    unlink(p2);
    g_free(p2);
    unlink(npath);
    g_free(npath);
    g_byte_array_unref(b);
}

/* ---- order ---- */

/* Every class after every instance, Foo's super after Foo, strings last. */
static void test_any_order(void **state)
{
    bld *b = start();
    rinstance(b, 10, 3); /* Bar: own field a = 11, then Foo's b = 12, c = 7 */
    vu(b, 11);
    vu(b, 12);
    vu(b, 7);
    rinstance(b, 11, 2); /* Foo */
    vu(b, 0);
    vu(b, 300);
    rinstance(b, 12, 3);
    vu(b, 0);
    vu(b, 11);
    vu(b, 1);
    const uint32_t e[] = {10, 11};
    robjarray(b, 13, 4, 2, e);
    const uint32_t barf[] = {1, T_OBJ};
    rclass(b, 3, 2, 5, 0, NULL, 1, barf, 0);
    const uint32_t foof[] = {2, T_OBJ, 3, T_INT};
    rclass(b, 2, 1, 6, 0, NULL, 2, foof, 0);
    rclass(b, 1, 0, 7, 0, NULL, 0, NULL, 0);
    rclass(b, 4, 1, 8, 0, NULL, 0, NULL, 0);
    rstring(b, 1, "a");
    rstring(b, 2, "b");
    rstring(b, 3, "c");
    rstring(b, 5, "Bar");
    rstring(b, 6, "Foo");
    rstring(b, 7, "java.lang.Object");
    rstring(b, 8, "Bar[]");
    char *path;
    hf_dump *d = open_bytes(b, &path);
    char *pr = th_problems(d);
    if (*pr)
        fail_msg("problems:\n%s", pr);
    g_free(pr);
    assert_contains(th_object_file(d, 0, "0xa", "fields"), "a object 0xb\nb object 0xc\nc int 7\n");
    assert_contains(th_object_file(d, 0, "0xb", "fields"), "b object null\nc int 300\n");
    assert_contains(th_object_file(d, 0, "0xc", "fields"), "a object null\nb object 0xb\nc int 1\n");
    assert_contains(th_object_file(d, 0, "0xd", "info"), "class: Bar[]\n");
    assert_contains(th_class_file(d, 0, "Bar", "instances"), "0xa\n0xc\n");
    char *in = th_info(d);
    assert_non_null(strstr(in, "instances before their class: 3\n"));
    g_free(in);
    close_bytes(d, path);
    g_byte_array_unref(b);
}

/* An instance whose values read as records: the first pass, not knowing
 * its class yet, ends it too early (values 4 9 9 read as "instance 9 of
 * class 9"); the class comes later, the guess proves wrong, and a second
 * pass reads it right. */
static void test_second_pass(void **state)
{
    bld *b = start();
    rinstance(b, 30, 20);
    vu(b, 4);
    vu(b, 9);
    vu(b, 9);
    const uint32_t f[] = {1, T_OBJ, 2, T_OBJ, 3, T_OBJ};
    rclass(b, 20, 21, 4, 0, NULL, 3, f, 0);
    rclass(b, 21, 0, 5, 0, NULL, 0, NULL, 0);
    rstring(b, 1, "a");
    rstring(b, 2, "b");
    rstring(b, 3, "c");
    rstring(b, 4, "C");
    rstring(b, 5, "java.lang.Object");
    char *path;
    hf_dump *d = open_bytes(b, &path);
    char *pr = th_problems(d);
    if (*pr)
        fail_msg("problems:\n%s", pr);
    g_free(pr);
    assert_contains(th_info(d), "passes: 2\n");
    assert_contains(th_object_file(d, 0, "0x1e", "fields"), "a object 0x4\nb object 0x9\nc object 0x9\n");
    assert_int_equal(d->ops->object_find(d, 0, "0x9"), -1);
    assert_int_equal(d->ops->n_objects(d, 0), 3);
    close_bytes(d, path);
    g_byte_array_unref(b);
}

/* ---- malformed input ---- */

/* a few good records to follow damage */
static void tail(bld *b)
{
    rstring(b, 1, "java.lang.Object");
    rclass(b, 1, 0, 1, 0, NULL, 0, NULL, 0);
    rinstance(b, 50, 1);
    rprimarray(b, 51, T_BYTE, 3);
    rstring(b, 2, "after");
    rhashed(b, 3, "also");
}

static hf_dump *open_damaged(bld *b, char **path, const char *want, const char *want2)
{
    hf_dump *d = open_bytes(b, path);
    char *pr = th_problems(d);
    if (!strstr(pr, want) || (want2 && !strstr(pr, want2)))
        fail_msg("want '%s' / '%s' in problems:\n%s", want, want2 ? want2 : "", pr);
    g_free(pr);
    return d;
}

static void test_malformed(void **state)
{
    char *path;
    /* a varint that never ends: the reader finds the records after it */
    bld *b = start();
    vu(b, BMD_INSTANCE);
    for (int i = 0; i < 12; i++)
        b1(b, 0xff);
    b1(b, 0);
    tail(b);
    hf_dump *d = open_damaged(b, &path, "offset 0x14: instance dump record: a varint longer "
                              "than 10 bytes; 14 bytes skipped", NULL);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    assert_contains(th_snap_file(d, 0, "strings"), "2 text after\n");
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* an unknown tag */
    b = start();
    rstring(b, 9, "x");
    vu(b, 9);
    vu(b, 1);
    tail(b);
    d = open_damaged(b, &path, "unknown record tag 9; 2 bytes skipped", NULL);
    assert_true(d->ops->object_find(d, 0, "0x33") >= 0);
    assert_contains(th_info(d), "records unreadable: 1\n");
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a length past the end: the file is cut */
    b = start();
    tail(b);
    vu(b, BMD_STRING);
    vu(b, 4);
    vu(b, 1000);
    raw(b, "abc", 3);
    d = open_damaged(b, &path, "string record cut off by the end of the file (7 bytes present)",
                     NULL);
    assert_contains(th_info(d), "warning: the file ends inside a record");
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    close_bytes(d, path);
    g_byte_array_unref(b);
    b = start();
    tail(b);
    bld *body = g_byte_array_new();
    u4(body, 1);
    vu(b, BMD_LEGACY);
    vu(b, HPROF_STACK_FRAME);
    vu(b, 24); /* 24 said, 4 there */
    raw(b, body->data, body->len);
    g_byte_array_unref(body);
    d = open_damaged(b, &path, "legacy HPROF record cut off by the end of the file", NULL);
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a class that never comes: its instances' ends are found from what follows */
    b = start();
    rinstance(b, 60, 77);
    vu(b, 61);
    vu(b, 0);
    rinstance(b, 61, 77);
    vu(b, 60);
    vu(b, 60);
    tail(b);
    d = open_damaged(b, &path, "2 instances need class 0x4d, which the file never defines",
                     "object of class 0x4d, which the dump does not define");
    assert_true(d->ops->object_find(d, 0, "0x3c") >= 0);
    assert_true(d->ops->object_find(d, 0, "0x3d") >= 0);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    assert_contains(th_object_file(d, 0, "0x3c", "info"), "class: unknown.0x4d\n");
    assert_contains(th_info(d), "instances of classes never defined: 2\n");
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a super class that never comes */
    b = start();
    tail(b);
    rclass(b, 5, 99, 1, 0, NULL, 0, NULL, 0);
    d = open_damaged(b, &path, "names super class 0x63, which the file never defines", NULL);
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a class chain that loops */
    b = start();
    rclass(b, 5, 6, 1, 0, NULL, 0, NULL, 0);
    rclass(b, 6, 5, 1, 0, NULL, 0, NULL, 0);
    rinstance(b, 70, 5);
    tail(b);
    d = open_damaged(b, &path, "instance dump record: its class chain loops", NULL);
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a bad field type */
    b = start();
    bytes(b, "03 05 00 01 00 00 01 01 0c 00");
    tail(b);
    d = open_damaged(b, &path, "class definition record: a field type that is not one", NULL);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a primitive array of objects, an object id 0 */
    b = start();
    rprimarray(b, 80, T_OBJ, 2);
    rprimarray(b, 0, T_INT, 2);
    tail(b);
    d = open_damaged(b, &path, "primitive array 0x50: element type 0 is not a primitive type",
                     NULL);
    char *pr = th_problems(d);
    assert_non_null(strstr(pr, "primitive array with object id 0 (null) left out"));
    g_free(pr);
    close_bytes(d, path);
    g_byte_array_unref(b);

    /* a legacy record too short for what it is */
    b = start();
    body = g_byte_array_new();
    u4(body, 1);
    rlegacy(b, HPROF_START_THREAD, body);
    rlegacy(b, 0x77, body);
    g_byte_array_unref(body);
    tail(b);
    d = open_damaged(b, &path, "legacy HPROF record 0x0a: body of 4 bytes too short",
                     "legacy record with unknown HPROF tag 0x77");
    close_bytes(d, path);
    g_byte_array_unref(b);
}

/* Names no Java class has, from strings a damaged or hostile file may hold:
 * empty, with '/', longer than a file name.  Every refs/ entry and class
 * directory must still be a file name that lookup finds. */
static void test_odd_names(void **state)
{
    char long_name[400];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    long_name[150] = '/';
    bld *b = start();
    rstring(b, 1, "");
    rstring(b, 2, "a/b");
    rstring(b, 3, long_name);
    rstring(b, 4, "Base");
    rstring(b, 5, "..");
    const uint32_t bf[] = {3, T_OBJ};
    rclass(b, 10, 0, 4, 0, NULL, 1, bf, 0);
    const uint32_t f[] = {1, T_OBJ, 2, T_OBJ, 3, T_OBJ, 5, T_OBJ};
    rclass(b, 11, 10, 3, 0, NULL, 4, f, 0); /* named long_name, shadows Base's field */
    rinstance(b, 20, 11);
    for (int i = 0; i < 5; i++)
        vu(b, 20);
    char *path;
    hf_dump *d = open_bytes(b, &path);
    int64_t o = d->ops->object_find(d, 0, "0x14");
    assert_true(o >= 0);
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (uint32_t slot = 0; slot < 5; slot++) {
        char name[HF_NAME_MAX];
        hf_target to;
        assert_int_equal(th_ref(d, 0, (uint64_t)o, slot, name, &to), HF_REF_OK);
        assert_true(*name && !strchr(name, '/') && strlen(name) < 230);
        assert_true(strcmp(name, ".") != 0 && strcmp(name, "..") != 0);
        assert_true(g_hash_table_add(seen, g_strdup(name))); /* unique */
        assert_int_equal(th_ref_find(d, 0, (uint64_t)o, name), slot);
    }
    for (uint64_t c = 0; c < d->ops->n_classes(d, 0); c++) {
        char dir[HF_NAME_MAX];
        d->ops->class_name(d, 0, c, dir);
        assert_true(*dir && !strchr(dir, '/') && strlen(dir) < 230);
        assert_int_equal(d->ops->class_find(d, 0, dir), (int64_t)c);
    }
    g_hash_table_destroy(seen);
    close_bytes(d, path);
    g_byte_array_unref(b);
}

/* Every cut of a file opens without a crash, and says so in problems. */
static void test_every_cut(void **state)
{
    bld *b = full_file();
    const uint8_t *body = b->data;
    size_t hdr = 2 + 18;
    for (size_t n = 1; n < b->len; n++) {
        GError *e = NULL;
        char *path = th_write_temp(body, n);
        hf_dump *d = hf_open(path, &e);
        if (n < hdr) {
            /* no whole header: not BMD (or not enough to tell) */
            if (d)
                hf_dump_close(d);
            g_clear_error(&e);
        } else {
            if (!d)
                fail_msg("cut at %zu: %s", n, e->message);
            /* the fields view of every object, whether it lists one or not */
            const hf_file *files = d->ops->object.files;
            hf_render_fn fields = files[th_file_index(files, "fields")].render;
            for (uint64_t o = 0; o < d->ops->n_objects(d, 0); o++)
                g_free(th_render(d, fields, (hf_view){.index = o}, 16));
            g_free(th_info(d));
            hf_dump_close(d);
        }
        unlink(path);
        g_free(path);
    }
    g_byte_array_unref(b);
}

/* ---- the corpus ---- */

static void test_corpus_opens(void **state)
{
    char *corpus = th_corpus("bmd", NULL);
    GDir *dir = g_dir_open(corpus, 0, NULL);
    if (!dir)
        skip();
    const char *n;
    int count = 0;
    while ((n = g_dir_read_name(dir))) {
        char *p = g_build_filename(corpus, n, NULL);
        GError *e = NULL;
        hf_dump *d = hf_open(p, &e);
        if (!d)
            fail_msg("%s: %s", p, e->message);
        assert_string_equal(d->ops->format, "bmd");
        char *pr = th_problems(d);
        if (*pr)
            fail_msg("%s:\n%s", p, pr);
        g_free(pr);
        assert_true(d->ops->n_objects(d, 0) > 1000);
        hf_dump_close(d);
        g_free(p);
        count++;
    }
    g_dir_close(dir);
    g_free(corpus);
    assert_true(count >= 3);
}

/* class name (display, without @0xID) -> instance count, from the histogram */
static GHashTable *counts(hf_dump *d)
{
    GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *h = th_snap_file(d, 0, "histogram");
    char **lines = g_strsplit(h, "\n", -1);
    for (char **l = lines; *l; l++) {
        unsigned long long n, bytes;
        char name[4096];
        if (**l == '#' || sscanf(*l, "%llu %llu %4095s", &n, &bytes, name) != 3)
            continue;
        char *at = strstr(name, "@0x");
        if (at)
            *at = '\0';
        gpointer old = g_hash_table_lookup(t, name);
        g_hash_table_replace(t, g_strdup(name), GSIZE_TO_POINTER(GPOINTER_TO_SIZE(old) + n));
    }
    g_strfreev(lines);
    g_free(h);
    return t;
}

/* The BMD converted from an HPROF dump has, class by class, the HPROF's
 * instance, object array and primitive array counts: without names for
 * the classes whose name the BMD kept, and with the HPROF's class names
 * as names file for all. */
static void compare_with_hprof(const char *hprof_name, const char *bmd_name)
{
    GError *e = NULL;
    char *hprof = th_corpus("hprof", hprof_name), *bmd = th_corpus("bmd", bmd_name);
    hf_dump *hd = hf_open(hprof, &e);
    if (!hd)
        skip();
    GHashTable *want = counts(hd);
    char *names = th_snap_file(hd, 0, "histogram");
    char *npath = th_write_temp(names, strlen(names));
    g_free(names);
    for (int with_names = 0; with_names < 2; with_names++) {
        hf_open_opts opts = {.names_file = with_names ? npath : NULL};
        hf_dump *bd = hf_open_with(bmd, &opts, &e);
        if (!bd)
            fail_msg("%s: %s", bmd, e->message);
        GHashTable *got = counts(bd);
        GHashTableIter it;
        gpointer k, v;
        unsigned compared = 0;
        g_hash_table_iter_init(&it, got);
        while (g_hash_table_iter_next(&it, &k, &v)) {
            if (g_str_has_prefix(k, "hash."))
                continue;
            if (GPOINTER_TO_SIZE(g_hash_table_lookup(want, k)) != GPOINTER_TO_SIZE(v))
                fail_msg("%s: class %s: %zu in the BMD, %zu in the HPROF", bmd, (char *)k,
                         GPOINTER_TO_SIZE(v), GPOINTER_TO_SIZE(g_hash_table_lookup(want, k)));
            compared++;
        }
        if (with_names) {
            /* every class of the HPROF, none left hashed */
            assert_int_equal(compared, g_hash_table_size(want));
            assert_int_equal(g_hash_table_size(got), g_hash_table_size(want));
        } else {
            assert_true(compared >= 40);
        }
        g_hash_table_destroy(got);
        hf_dump_close(bd);
    }
    g_hash_table_destroy(want);
    hf_dump_close(hd);
    unlink(npath);
    g_free(npath);
    g_free(hprof);
    g_free(bmd);
}

static void test_corpus_leakcanary(void **state)
{
    compare_with_hprof("leakcanary_leak_service_binder.hprof",
                       "leakcanary_leak_service_binder.bmd");
}

static void test_corpus_slurp(void **state)
{
    compare_with_hprof("slurp_hprof-32.bin", "slurp_hprof-32.bmd");
}

/* The cruncher version of the badoo file wrote its header twice. */
static void test_corpus_repeated_header(void **state)
{
    GError *e = NULL;
    char *p = th_corpus("bmd", "badoo_crunch_test_out_9dd9e94.bmd");
    hf_dump *d = hf_open(p, &e);
    g_free(p);
    if (!d)
        skip();
    char *in = th_info(d);
    assert_non_null(strstr(in, "repeated headers: 1 "));
    assert_non_null(strstr(in, "records instance dump: 160635\n"));
    g_free(in);
    assert_int_equal(d->problems->len, 0);
    hf_dump_close(d);
}

int main(void)
{
    th_set_budget(16);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_java_hash),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_names_option),
        cmocka_unit_test(test_any_order),
        cmocka_unit_test(test_second_pass),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_odd_names),
        cmocka_unit_test(test_every_cut),
        cmocka_unit_test(test_corpus_opens),
        cmocka_unit_test(test_corpus_leakcanary),
        cmocka_unit_test(test_corpus_slurp),
        cmocka_unit_test(test_corpus_repeated_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
