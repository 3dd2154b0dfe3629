/*
 * Unit tests for the views of what Eclipse MAT answers in one click
 * (decoders/heap/suspects.c, biggest.c, consumers.c, mergedpaths.c), on
 * HPROF files built here (hprofbld.h) whose shape fixes the answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decoders/core/registry.h"
#include "decoders/heap/retviews.h"
#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

/* ---- a heap of three classes, each holding a byte[600] in a static field,
 * each class a GC root (sticky class), and a byte[9000] held by a root of
 * its own: each class retains under 10% of the heap, the three together
 * more ---- */

enum { S_OBJECT = 1, S_CLASS, S_A, S_B, S_C, S_ARR, S_BYTES };
enum { C_OBJECT = 0x100, C_CLASS = 0x200, C_A = 0x300, C_B = 0x400, C_C = 0x500, C_BYTES = 0x600 };
enum { BIG_ID = 0x9000 };

static void root(bld *b, uint8_t kind, uint64_t oid)
{
    u1(b, kind);
    id(b, oid);
}

static GByteArray *statics_file(void)
{
    bld b = start(8, "JAVA PROFILE 1.0.2");
    const char *names[] = {NULL, "java/lang/Object", "java/lang/Class", "A", "B", "C", "arr", "[B"};
    for (int i = 1; i <= S_BYTES; i++)
        str(&b, (uint64_t)i, names[i]);
    const uint64_t classes[] = {C_OBJECT, C_CLASS, C_A, C_B, C_C, C_BYTES};
    for (int i = 0; i < 6; i++)
        load_class(&b, (uint32_t)i + 1, classes[i], (uint64_t)i + 1);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    for (int i = 2; i < 5; i++)
        root(&b, HPROF_GC_ROOT_STICKY_CLASS, classes[i]);
    root(&b, HPROF_GC_ROOT_UNKNOWN, BIG_ID);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    class_dump(&b, C_CLASS, C_OBJECT, 0, 0, NULL, 0, NULL);
    uint8_t zeros[9000] = {0};
    for (int i = 2; i < 5; i++) {
        const uint64_t st[] = {S_ARR, HF_T_OBJECT, classes[i] * 16};
        class_dump(&b, classes[i], C_OBJECT, 0, 1, st, 0, NULL);
        prim_array(&b, classes[i] * 16, HF_T_BYTE, 600, zeros, 1);
    }
    prim_array(&b, BIG_ID, HF_T_BYTE, 9000, zeros, 1);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

static hf_dump *open_bytes(GByteArray *bytes, char **path)
{
    *path = th_write_temp(bytes->data, bytes->len);
    g_byte_array_unref(bytes);
    GError *e = NULL;
    hf_dump *d = hf_open(*path, NULL, &e);
    assert_non_null(d);
    return d;
}

static void close_dump(hf_dump *d, char *path)
{
    hf_dump_close(d);
    unlink(path);
    g_free(path);
}

/* "KEY: N" of a view's line, as an integer. */
static uint64_t key_value(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    assert_non_null(p);
    return g_ascii_strtoull(p + strlen(key), NULL, 10);
}

/* No suspect is "all instances of java.lang.Class": the classes retain
 * 10% only together, and each is a class of its own; in suspects-report
 * and in the suspects table alike. */
static void test_suspects_no_class_group(void **state)
{
    char *path;
    hf_dump *d = open_bytes(statics_file(), &path);
    char *sus = th_snap_file_needed(d, 0, "suspects-report");
    uint64_t total = key_value(sus, "at least 10% of the "), sum = 0;
    const char *cls[] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        char *r = th_class_file(d, 0, cls[i], "retained");
        uint64_t st = key_value(r, "\nstatics: ");
        assert_true(st >= 616 && st < total / 10); /* each under the limit */
        sum += st;
        g_free(r);
    }
    assert_true(sum >= total / 10); /* together over it */
    assert_null(strstr(sus, "java.lang.Class"));
    assert_non_null(strstr(sus, "suspect 1: 0x9000 byte[] retains 9016 bytes"));
    assert_null(strstr(sus, "suspect 2"));
    g_free(sus);
    /* the table: the same single suspect, one row */
    char *tab = th_snap_file_needed(d, 0, "suspects");
    char **rows = g_strsplit(tab, "\n", -1);
    assert_string_equal(rows[0], "# retained\tpercent\tobjects\tid\taccumulation\twhat");
    assert_true(g_str_has_prefix(rows[1], "9016\t"));
    assert_true(g_str_has_suffix(rows[1], "\t1\t0x9000\t0x9000\tbyte[]"));
    assert_string_equal(rows[2], "");
    assert_null(strstr(tab, "java.lang.Class"));
    g_strfreev(rows);
    g_free(tab);
    close_dump(d, path);
}

/* classes/NAME/paths merges the four byte[]'s paths: three through a
 * class's static field, one a root of its own. */
static void test_paths(void **state)
{
    char *path;
    hf_dump *d = open_bytes(statics_file(), &path);
    char *p = th_class_file(d, 0, "byte[]", "paths");
    assert_non_null(p);
    assert_string_equal(p, "# instances\tobjects\tpath\n"
                           "1\t1\tclass A (root: sticky-class)\n"
                           "1\t1\t  byte[] via arr\n"
                           "1\t1\tclass B (root: sticky-class)\n"
                           "1\t1\t  byte[] via arr\n"
                           "1\t1\tclass C (root: sticky-class)\n"
                           "1\t1\t  byte[] via arr\n"
                           "1\t1\tbyte[] (root: unknown)\n"); /* ties: by class name */
    g_free(p);
    assert_false(th_class_has(d, 0, "A", "paths")); /* no instances */
    close_dump(d, path);
}

/* hf_rv_top keeps the n greatest keys, ties by the node added first,
 * whatever the order of the keys: against a sort of all of them. */
static int cmp_desc(const void *a, const void *b)
{
    const hf_rv_ranked *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static void test_top(void **state)
{
    enum { N = 5000 };
    hf_rv_ranked all[N];
    GRand *r = g_rand_new_with_seed(24);
    const uint32_t caps[] = {0, 1, 7, 1000, N, N + 3};
    for (size_t c = 0; c < G_N_ELEMENTS(caps); c++) {
        hf_rv_top t;
        hf_rv_top_init(&t, caps[c]);
        for (uint32_t v = 0; v < N; v++) {
            all[v] = (hf_rv_ranked){g_rand_int_range(r, 0, 300), v}; /* many ties */
            hf_rv_top_add(&t, all[v].key, v);
        }
        qsort(all, N, sizeof *all, cmp_desc);
        hf_rv_top_sort(&t);
        assert_int_equal(t.len, MIN(caps[c], N));
        for (uint32_t i = 0; i < t.len; i++) {
            assert_int_equal(t.a[i].key, all[i].key);
            assert_int_equal(t.a[i].v, all[i].v);
        }
        hf_rv_top_free(&t);
    }
    g_rand_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suspects_no_class_group),
        cmocka_unit_test(test_top),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
