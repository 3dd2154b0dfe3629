/*
 * test_bmd.c - the BMD decoder's reading: varints, values, records,
 * detection, names, and malformed input.
 *
 * Hand-made byte strings (tests/unit/helpers.h: th_bmd_*) cover varints
 * (10-byte negatives, too long, cut), every value encoding, every record
 * type (with the examples of the format document), hashed names and the
 * names file, and malformed input: a varint that never ends, a length
 * past the end, an unknown tag, a class that never comes, a class chain
 * that loops.  test_bmd_model.c reads whole files through the model.
 *
 * Run from the project root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/bmd/bmd.h"
#include "decoders/hprof/hprof.h"
#include "decoders/core/registry.h"

/* Views render in chunks of 16 bytes, each compared with the whole view
 * (th_set_budget in main). */

/* ---- varints and values ---- */

static bmd_status read_hex(const char *hex, uint64_t *v, size_t *used)
{
    GByteArray *b = g_byte_array_new();
    th_bmd_hex(b, hex);
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
    GByteArray *b = g_byte_array_new();
    th_bmd_int(b, -2);
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
        GByteArray *b = g_byte_array_new();
        th_bmd_hex(b, hex[i]);
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

static const uint8_t *body_of(GByteArray *b, uint32_t tag)
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
    GByteArray *b = g_byte_array_new();
    th_bmd_hex(b, "01 9803 17");
    th_bmd_raw(b, "java.lang.ref.Reference", 23);
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
    th_bmd_hex(b, "02 76 24 9a81ec9a01");
    p = body_of(b, BMD_HASHED_STRING), end = b->data + b->len;
    bmd_hashed hs;
    assert_int_equal(bmd_parse_hashed(&p, end, &hs, &why), BMD_OK);
    assert_int_equal(hs.id, 118);
    assert_int_equal(hs.len, 36);
    assert_int_equal(hs.hash, 324731034);

    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "03 34 35 a842 00 02 e169 00 36 c58302 07 a2c5f6d6b4829b85e901 00 00");
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
    th_bmd_hex(b, "03 34 35 a842 00 00 01 05 09 00");
    p = body_of(b, BMD_CLASS), end = b->data + b->len;
    assert_int_equal(bmd_parse_class(&p, end, &c, &why), BMD_BAD);
    assert_non_null(strstr(why, "type"));

    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "04 b901 be01 00");
    p = body_of(b, BMD_INSTANCE), end = b->data + b->len;
    bmd_instance in;
    assert_int_equal(bmd_parse_instance(&p, end, &in, &why), BMD_OK);
    assert_int_equal(in.id, 185);
    assert_int_equal(in.cls, 190);
    assert_ptr_equal(p, end - 1); /* at the instance data */

    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "05 02 f053 e971");
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
    th_bmd_hex(b, "06 d203 d603 02 00 00");
    p = body_of(b, BMD_OBJARRAY), end = b->data + b->len;
    bmd_objarray oa;
    assert_int_equal(bmd_parse_objarray(&p, end, &oa, &why), BMD_OK);
    assert_int_equal(oa.id, 466);
    assert_int_equal(oa.cls, 470);
    assert_int_equal(oa.n, 2);
    assert_ptr_equal(p, end);

    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "07 9201 03 d801");
    p = body_of(b, BMD_PRIMARRAY), end = b->data + b->len;
    bmd_primarray pa;
    assert_int_equal(bmd_parse_primarray(&p, end, &pa, &why), BMD_OK);
    assert_int_equal(pa.id, 146);
    assert_int_equal(pa.type, 3);
    assert_int_equal(bmd_hf_type(pa.type), HF_T_BYTE);
    assert_int_equal(pa.n, 216);

    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "08 05 0c 000000000000000000000000");
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
    th_bmd_hex(b, "01 03 414243 01");
    assert_int_equal(bmd_parse_header(b->data, b->len, &h), BMD_OK);
    assert_int_equal(h.version, 1);
    assert_int_equal(h.meta_len, 3);
    assert_int_equal(h.len, 5);
    assert_int_equal(bmd_parse_header(b->data, 4, &h), BMD_CUT);
    g_byte_array_unref(b);
}

/* ---- detection ---- */

static bool detect(const GByteArray *b)
{
    for (const hf_decoder *const *d = hf_decoders(); *d; d++)
        if ((*d)->detect(b->data, b->len))
            return strcmp((*d)->format, "bmd") == 0;
    return false;
}

static void test_detect(void **state)
{
    GByteArray *b = th_bmd_start();
    th_bmd_hashed(b, 1, "Foo");
    th_bmd_string(b, 2, "java.lang.Object");
    assert_true(detect(b));
    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "02 12");
    th_bmd_raw(b, "JAVA PROFILE 1.0.3", 18); /* version 2: not the format we know */
    th_bmd_string(b, 2, "java.lang.Object");
    assert_false(detect(b));
    g_byte_array_set_size(b, 0);
    th_bmd_hex(b, "01 02 4142 09 01 02"); /* tag 9 */
    assert_false(detect(b));
    g_byte_array_set_size(b, 0);
    th_bmd_raw(b, "JAVA PROFILE 1.0.2", 19); /* HPROF */
    th_bmd_u4(b, 4);
    th_bmd_u4(b, 0);
    th_bmd_u4(b, 0);
    assert_false(detect(b));
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

/* ---- malformed input ---- */

/* a few good records to follow damage */
static void tail(GByteArray *b)
{
    th_bmd_string(b, 1, "java.lang.Object");
    th_bmd_class(b, 1, 0, 1, 0, NULL, 0, NULL, 0);
    th_bmd_instance(b, 50, 1);
    th_bmd_primarray(b, 51, TH_BMD_BYTE, 3);
    th_bmd_string(b, 2, "after");
    th_bmd_hashed(b, 3, "also");
}

static hf_dump *open_damaged(GByteArray *b, char **path, const char *want, const char *want2)
{
    hf_dump *d = th_bmd_open(b, NULL, path);
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
    GByteArray *b = th_bmd_start();
    th_bmd_varint(b, BMD_INSTANCE);
    for (int i = 0; i < 12; i++)
        th_bmd_u8(b, 0xff);
    th_bmd_u8(b, 0);
    tail(b);
    hf_dump *d = open_damaged(b, &path, "offset 0x14: instance dump record: a varint longer "
                              "than 10 bytes; 14 bytes skipped", NULL);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    assert_contains(th_snap_file(d, 0, "strings"), "2\ttext\tafter\n");
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* an unknown tag */
    b = th_bmd_start();
    th_bmd_string(b, 9, "x");
    th_bmd_varint(b, 9);
    th_bmd_varint(b, 1);
    tail(b);
    d = open_damaged(b, &path, "unknown record tag 9; 2 bytes skipped", NULL);
    assert_true(d->ops->object_find(d, 0, "0x33") >= 0);
    assert_contains(th_info(d), "records unreadable: 1\n");
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a length past the end: the file is cut */
    b = th_bmd_start();
    tail(b);
    th_bmd_varint(b, BMD_STRING);
    th_bmd_varint(b, 4);
    th_bmd_varint(b, 1000);
    th_bmd_raw(b, "abc", 3);
    d = open_damaged(b, &path, "string record cut off by the end of the file (7 bytes present)",
                     NULL);
    assert_contains(th_info(d), "warning: the file ends inside a record");
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    th_close_temp(d, path);
    g_byte_array_unref(b);
    b = th_bmd_start();
    tail(b);
    GByteArray *body = g_byte_array_new();
    th_bmd_u4(body, 1);
    th_bmd_varint(b, BMD_LEGACY);
    th_bmd_varint(b, HPROF_STACK_FRAME);
    th_bmd_varint(b, 24); /* 24 said, 4 there */
    th_bmd_raw(b, body->data, body->len);
    g_byte_array_unref(body);
    d = open_damaged(b, &path, "legacy HPROF record cut off by the end of the file", NULL);
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a class that never comes: its instances' ends are found from what follows */
    b = th_bmd_start();
    th_bmd_instance(b, 60, 77);
    th_bmd_varint(b, 61);
    th_bmd_varint(b, 0);
    th_bmd_instance(b, 61, 77);
    th_bmd_varint(b, 60);
    th_bmd_varint(b, 60);
    tail(b);
    d = open_damaged(b, &path, "2 instances need class 0x4d, which the file never defines",
                     "object of class 0x4d, which the dump does not define");
    assert_true(d->ops->object_find(d, 0, "0x3c") >= 0);
    assert_true(d->ops->object_find(d, 0, "0x3d") >= 0);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    assert_contains(th_object_file(d, 0, "0x3c", "info"), "class: unknown.0x4d\n");
    assert_contains(th_info(d), "instances of classes never defined: 2\n");
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a super class that never comes */
    b = th_bmd_start();
    tail(b);
    th_bmd_class(b, 5, 99, 1, 0, NULL, 0, NULL, 0);
    d = open_damaged(b, &path, "names super class 0x63, which the file never defines", NULL);
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a class chain that loops */
    b = th_bmd_start();
    th_bmd_class(b, 5, 6, 1, 0, NULL, 0, NULL, 0);
    th_bmd_class(b, 6, 5, 1, 0, NULL, 0, NULL, 0);
    th_bmd_instance(b, 70, 5);
    tail(b);
    d = open_damaged(b, &path, "instance dump record: its class chain loops", NULL);
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a bad field type */
    b = th_bmd_start();
    th_bmd_hex(b, "03 05 00 01 00 00 01 01 0c 00");
    tail(b);
    d = open_damaged(b, &path, "class definition record: a field type that is not one", NULL);
    assert_true(d->ops->object_find(d, 0, "0x32") >= 0);
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a primitive array of objects, an object id 0 */
    b = th_bmd_start();
    th_bmd_primarray(b, 80, TH_BMD_OBJ, 2);
    th_bmd_primarray(b, 0, TH_BMD_INT, 2);
    tail(b);
    d = open_damaged(b, &path, "primitive array 0x50: element type 0 is not a primitive type",
                     NULL);
    char *pr = th_problems(d);
    assert_non_null(strstr(pr, "primitive array with object id 0 (null) left out"));
    g_free(pr);
    th_close_temp(d, path);
    g_byte_array_unref(b);

    /* a legacy record too short for what it is */
    b = th_bmd_start();
    body = g_byte_array_new();
    th_bmd_u4(body, 1);
    th_bmd_legacy(b, HPROF_START_THREAD, body);
    th_bmd_legacy(b, 0x77, body);
    g_byte_array_unref(body);
    tail(b);
    d = open_damaged(b, &path, "legacy HPROF record 0x0a: body of 4 bytes too short",
                     "legacy record with unknown HPROF tag 0x77");
    th_close_temp(d, path);
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
    GByteArray *b = th_bmd_start();
    th_bmd_string(b, 1, "");
    th_bmd_string(b, 2, "a/b");
    th_bmd_string(b, 3, long_name);
    th_bmd_string(b, 4, "Base");
    th_bmd_string(b, 5, "..");
    const uint32_t bf[] = {3, TH_BMD_OBJ};
    th_bmd_class(b, 10, 0, 4, 0, NULL, 1, bf, 0);
    const uint32_t f[] = {1, TH_BMD_OBJ, 2, TH_BMD_OBJ, 3, TH_BMD_OBJ, 5, TH_BMD_OBJ};
    th_bmd_class(b, 11, 10, 3, 0, NULL, 4, f, 0); /* named long_name, shadows Base's field */
    th_bmd_instance(b, 20, 11);
    for (int i = 0; i < 5; i++)
        th_bmd_varint(b, 20);
    char *path;
    hf_dump *d = th_bmd_open(b, NULL, &path);
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
    th_close_temp(d, path);
    g_byte_array_unref(b);
}


int main(void)
{
    th_set_budget(16);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_java_hash),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_odd_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
