/*
 * test_bmd_model.c - BMD files read whole through the model, as a mount
 * shows them.
 *
 * A hand-made file (tests/unit/helpers.h: th_bmd_*) with every record
 * type read through the model, records out of order, hashed names with
 * and without a names file, and every truncation of it.  Then the corpus:
 * every file opens, and the two files converted from corpus HPROF dumps
 * agree with the HPROF decoder on the instance count of every class (with
 * the HPROF's class names given as names for the hashed ones).
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

/* Views render in chunks of 16 bytes, each compared with the whole view
 * (th_set_budget in main). */

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
static GByteArray *full_file(void)
{
    GByteArray *b = th_bmd_start();
    /* legacy records, ids 4 bytes, in any order: trace 7 of two frames
     * (the second one's strings absent), thread 3 named "main", thread 4
     * with a name the file lacks */
    GByteArray *body = g_byte_array_new();
    th_bmd_u4(body, 7);
    th_bmd_u4(body, 1);
    th_bmd_u4(body, 2);
    th_bmd_u4(body, 0x600);
    th_bmd_u4(body, 0x601);
    th_bmd_legacy(b, HPROF_STACK_TRACE, body);
    const uint32_t frames[2][6] = {{0x600, 0x500, 0x501, 0x502, 9, 12},
                                   {0x601, 0x5f0, 0x5f1, 0, 10, (uint32_t)-3}};
    for (int i = 0; i < 2; i++) {
        g_byte_array_set_size(body, 0);
        for (int k = 0; k < 6; k++)
            th_bmd_u4(body, frames[i][k]);
        th_bmd_legacy(b, HPROF_STACK_FRAME, body);
    }
    const uint32_t threads[2][6] = {{3, 0x99, 7, 0x504, 0, 0}, {4, 0x98, 7, 0x1234, 0, 0}};
    for (int i = 0; i < 2; i++) {
        g_byte_array_set_size(body, 0);
        for (int k = 0; k < 6; k++)
            th_bmd_u4(body, threads[i][k]);
        th_bmd_legacy(b, HPROF_START_THREAD, body);
    }
    const char *lstr[] = {"run", "()V", "Foo.java", "com/example/Foo", "main"};
    for (int i = 0; i < 5; i++) {
        g_byte_array_set_size(body, 0);
        th_bmd_u4(body, 0x500 + (uint32_t)i);
        th_bmd_raw(body, lstr[i], strlen(lstr[i]));
        th_bmd_legacy(b, HPROF_STRING, body);
    }
    g_byte_array_set_size(body, 0);
    th_bmd_u4(body, 9); /* LOAD CLASS serial 9: class 0x77 named com/example/Foo */
    th_bmd_u4(body, 0x77);
    th_bmd_u4(body, 0);
    th_bmd_u4(body, 0x503);
    th_bmd_legacy(b, HPROF_LOAD_CLASS, body);
    g_byte_array_unref(body);
    th_bmd_string(b, S_OBJECT, "java.lang.Object");
    th_bmd_string(b, S_STRING, "java.lang.String");
    th_bmd_string(b, S_CLASS, "java.lang.Class");
    th_bmd_hashed(b, S_FOO, "com.example.Foo");
    th_bmd_string(b, S_OBJARR, "java.lang.Object[]");
    th_bmd_hashed(b, S_INTARR, "int[]");
    th_bmd_hashed(b, S_NEXT, "next");
    th_bmd_string(b, S_VALUE, "value");
    const char *fn[] = {"i", "z", "b", "c", "f", "d", "j", "s"};
    for (int i = 0; i < 8; i++)
        th_bmd_string(b, S_I + i, fn[i]);
    th_bmd_string(b, S_COUNT, "COUNT");
    th_bmd_hashed(b, S_ONLY_HASH, "secretName");
    th_bmd_class(b, C_OBJECT, 0, S_OBJECT, 0, NULL, 0, NULL, 0);
    const uint64_t st[] = {S_COUNT, TH_BMD_INT, (uint64_t)-5, S_ONLY_HASH, TH_BMD_OBJ, O_FOO,
                           S_D, TH_BMD_DOUBLE, 0x4004000000000000, S_C, TH_BMD_CHAR, 'x'};
    th_bmd_class(b, C_CLASS, C_OBJECT, S_CLASS, 4, st, 0, NULL, 0);
    const uint32_t sf[] = {S_VALUE, TH_BMD_OBJ};
    th_bmd_class(b, C_STRING, C_OBJECT, S_STRING, 0, NULL, 1, sf, 8); /* hash and coder dropped */
    const uint32_t ff[] = {S_NEXT, TH_BMD_OBJ,    S_I, TH_BMD_INT,  S_Z, TH_BMD_BOOL,
                           S_B,    TH_BMD_BYTE,   S_C, TH_BMD_CHAR, S_F, TH_BMD_FLOAT,
                           S_D,    TH_BMD_DOUBLE, S_J, TH_BMD_LONG, S_S, TH_BMD_SHORT};
    th_bmd_class(b, C_FOO, C_OBJECT, S_FOO, 0, NULL, 9, ff, 4);
    th_bmd_class(b, C_OBJARR, C_OBJECT, S_OBJARR, 0, NULL, 0, NULL, 0);
    th_bmd_class(b, C_INTARR, C_OBJECT, S_INTARR, 0, NULL, 0, NULL, 0);
    /* Foo: next = Bar, i = -7, true, byte -2, 'A', 1.5f, -2.25, long -3, short -4 */
    th_bmd_instance(b, O_FOO, C_FOO);
    th_bmd_value(b, TH_BMD_OBJ, O_BAR);
    th_bmd_value(b, TH_BMD_INT, (uint32_t)-7);
    th_bmd_value(b, TH_BMD_BOOL, 1);
    th_bmd_value(b, TH_BMD_BYTE, 0xfe);
    th_bmd_value(b, TH_BMD_CHAR, 'A');
    th_bmd_value(b, TH_BMD_FLOAT, 0x3fc00000);
    th_bmd_value(b, TH_BMD_DOUBLE, 0xc002000000000000);
    th_bmd_value(b, TH_BMD_LONG, (uint64_t)-3);
    th_bmd_value(b, TH_BMD_SHORT, (uint32_t)-4);
    /* Bar's instance before Bar's class: own field next = Foo, then Foo's */
    th_bmd_instance(b, O_BAR, C_BAR);
    th_bmd_value(b, TH_BMD_OBJ, O_FOO);
    th_bmd_value(b, TH_BMD_OBJ, 0);
    th_bmd_value(b, TH_BMD_INT, 8);
    th_bmd_value(b, TH_BMD_BOOL, 0);
    th_bmd_value(b, TH_BMD_BYTE, 1);
    th_bmd_value(b, TH_BMD_CHAR, 0x263a);
    th_bmd_value(b, TH_BMD_FLOAT, 0);
    th_bmd_value(b, TH_BMD_DOUBLE, 0);
    th_bmd_value(b, TH_BMD_LONG, 1);
    th_bmd_value(b, TH_BMD_SHORT, 2);
    const uint32_t el[] = {O_FOO, 0, O_BAR};
    th_bmd_objarray(b, O_ARR, C_OBJARR, 3, el);
    th_bmd_primarray(b, O_INTS, TH_BMD_INT, 10);
    th_bmd_instance(b, O_STR, C_STRING);
    th_bmd_value(b, TH_BMD_OBJ, O_INTS);
    const uint32_t roots[] = {O_FOO, O_ARR};
    th_bmd_roots(b, 2, roots);
    const uint32_t bf[] = {S_NEXT, TH_BMD_OBJ};
    th_bmd_class(b, C_BAR, C_FOO, S_BAR, 0, NULL, 1, bf, 0);
    th_bmd_hashed(b, S_BAR, "com.example.Bar");
    return b;
}

static void test_full(void **state)
{
    GByteArray *b = full_file();
    char *path;
    hf_dump *d = th_bmd_open(b, NULL, &path);
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
    char *want = g_strdup_printf("# name\ttype\tvalue\n%s\tobject\t0x65\ni\tint\t-7\n"
                                 "z\tboolean\ttrue\nb\tbyte\t-2\nc\tchar\t'A'\nf\tfloat\t1.5\n"
                                 "d\tdouble\t-2.25\nj\tlong\t-3\ns\tshort\t-4\n", next->str);
    char *got = th_object_file(d, 0, "0x64", "fields");
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    got = th_object_file(d, 0, "0x65", "fields");
    want = g_strdup_printf("# name\ttype\tvalue\n%s\tobject\t0x64\n%s@%s\tobject\tnull\n"
                           "i\tint\t8\nz\tboolean\tfalse\nb\tbyte\t1\nc\tchar\t'\\u263a'\n"
                           "f\tfloat\t0\nd\tdouble\t0\nj\tlong\t1\ns\tshort\t2\n",
                           next->str, next->str, foo->str);
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
    want = g_strdup_printf("# name\ttype\tvalue\nCOUNT\tint\t-5\n%s\tobject\t0x64\n"
                           "d\tdouble\t2.5\nc\tchar\t'x'\n", secret->str);
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    /* object array: elements and refs */
    assert_contains(th_object_file(d, 0, "0x66", "fields"), "# index\tvalue\n0\t0x64\n1\tnull\n2\t0x65\n");
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
    assert_contains(th_snap_file(d, 0, "roots"), "unknown\t0x64\t");
    got = th_snap_file(d, 0, "strings");
    assert_non_null(strstr(got, "1\ttext\tjava.lang.Object\n"));
    want = g_strdup_printf("%u\thashed\t%s\n", S_FOO, foo->str);
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
    th_close_temp(d, path);
    g_byte_array_unref(b);
}


static void test_names_option(void **state)
{
    GByteArray *b = full_file();
    GError *e = NULL;
    const char *names = "com.example.Foo\ncom/example/Bar\nnext\nint[]\n";
    char *npath = th_write_temp(names, strlen(names));
    hf_open_opts opts = {.names_file = npath};
    char *path;
    hf_dump *d = th_bmd_open(b, &opts, &path);
    char *in = th_info(d);
    assert_non_null(strstr(in, "names resolved: 4 of 5 hashed ("));
    g_free(in);
    /* com/example/Bar matched slashed: shown dotted */
    assert_contains(th_class_file(d, 0, "com.example.Bar", "info"), "super: com.example.Foo\n");
    assert_contains(th_object_file(d, 0, "0x65", "fields"), "next\tobject\t0x64\nnext@com.example.Foo\t");
    /* int[] resolved: the arrays go to the real class */
    int64_t c = d->ops->class_find(d, 0, "int[]");
    assert_true(c >= 0);
    assert_contains(th_class_file(d, 0, "int[]", "info"), "id: 0x7\n");
    assert_contains(th_snap_file(d, 0, "strings"), "4\tresolved\tcom.example.Foo\n");
    th_close_temp(d, path);
    /* a names file that is not there: the open fails, saying why */
    opts.names_file = "/nonexistent/names.txt";
    char *p2 = th_write_temp(b->data, b->len);
    assert_null(hf_open(p2, &opts, &e));
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
    GByteArray *b = th_bmd_start();
    th_bmd_instance(b, 10, 3); /* Bar: own field a = 11, then Foo's b = 12, c = 7 */
    th_bmd_varint(b, 11);
    th_bmd_varint(b, 12);
    th_bmd_varint(b, 7);
    th_bmd_instance(b, 11, 2); /* Foo */
    th_bmd_varint(b, 0);
    th_bmd_varint(b, 300);
    th_bmd_instance(b, 12, 3);
    th_bmd_varint(b, 0);
    th_bmd_varint(b, 11);
    th_bmd_varint(b, 1);
    const uint32_t e[] = {10, 11};
    th_bmd_objarray(b, 13, 4, 2, e);
    const uint32_t barf[] = {1, TH_BMD_OBJ};
    th_bmd_class(b, 3, 2, 5, 0, NULL, 1, barf, 0);
    const uint32_t foof[] = {2, TH_BMD_OBJ, 3, TH_BMD_INT};
    th_bmd_class(b, 2, 1, 6, 0, NULL, 2, foof, 0);
    th_bmd_class(b, 1, 0, 7, 0, NULL, 0, NULL, 0);
    th_bmd_class(b, 4, 1, 8, 0, NULL, 0, NULL, 0);
    th_bmd_string(b, 1, "a");
    th_bmd_string(b, 2, "b");
    th_bmd_string(b, 3, "c");
    th_bmd_string(b, 5, "Bar");
    th_bmd_string(b, 6, "Foo");
    th_bmd_string(b, 7, "java.lang.Object");
    th_bmd_string(b, 8, "Bar[]");
    char *path;
    hf_dump *d = th_bmd_open(b, NULL, &path);
    char *pr = th_problems(d);
    if (*pr)
        fail_msg("problems:\n%s", pr);
    g_free(pr);
    assert_contains(th_object_file(d, 0, "0xa", "fields"), "a\tobject\t0xb\nb\tobject\t0xc\nc\tint\t7\n");
    assert_contains(th_object_file(d, 0, "0xb", "fields"), "b\tobject\tnull\nc\tint\t300\n");
    assert_contains(th_object_file(d, 0, "0xc", "fields"), "a\tobject\tnull\nb\tobject\t0xb\nc\tint\t1\n");
    assert_contains(th_object_file(d, 0, "0xd", "info"), "class: Bar[]\n");
    assert_contains(th_class_file(d, 0, "Bar", "instances"), "0xa\n0xc\n");
    char *in = th_info(d);
    assert_non_null(strstr(in, "instances before their class: 3\n"));
    g_free(in);
    th_close_temp(d, path);
    g_byte_array_unref(b);
}

/* An instance whose values read as records: the first pass, not knowing
 * its class yet, ends it too early (values 4 9 9 read as "instance 9 of
 * class 9"); the class comes later, the guess proves wrong, and a second
 * pass reads it right. */
static void test_second_pass(void **state)
{
    GByteArray *b = th_bmd_start();
    th_bmd_instance(b, 30, 20);
    th_bmd_varint(b, 4);
    th_bmd_varint(b, 9);
    th_bmd_varint(b, 9);
    const uint32_t f[] = {1, TH_BMD_OBJ, 2, TH_BMD_OBJ, 3, TH_BMD_OBJ};
    th_bmd_class(b, 20, 21, 4, 0, NULL, 3, f, 0);
    th_bmd_class(b, 21, 0, 5, 0, NULL, 0, NULL, 0);
    th_bmd_string(b, 1, "a");
    th_bmd_string(b, 2, "b");
    th_bmd_string(b, 3, "c");
    th_bmd_string(b, 4, "C");
    th_bmd_string(b, 5, "java.lang.Object");
    char *path;
    hf_dump *d = th_bmd_open(b, NULL, &path);
    char *pr = th_problems(d);
    if (*pr)
        fail_msg("problems:\n%s", pr);
    g_free(pr);
    assert_contains(th_info(d), "passes: 2\n");
    assert_contains(th_object_file(d, 0, "0x1e", "fields"), "a\tobject\t0x4\nb\tobject\t0x9\nc\tobject\t0x9\n");
    assert_int_equal(d->ops->object_find(d, 0, "0x9"), -1);
    assert_int_equal(d->ops->n_objects(d, 0), 3);
    th_close_temp(d, path);
    g_byte_array_unref(b);
}


/* Every cut of a file opens without a crash, and says so in problems. */
static void test_every_cut(void **state)
{
    GByteArray *b = full_file();
    const uint8_t *body = b->data;
    size_t hdr = 2 + 18;
    for (size_t n = 1; n < b->len; n++) {
        GError *e = NULL;
        char *path = th_write_temp(body, n);
        hf_dump *d = hf_open(path, NULL, &e);
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
        hf_dump *d = hf_open(p, NULL, &e);
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
    hf_dump *hd = hf_open(hprof, NULL, &e);
    if (!hd)
        skip();
    GHashTable *want = counts(hd);
    char *names = th_snap_file(hd, 0, "histogram");
    char *npath = th_write_temp(names, strlen(names));
    g_free(names);
    for (int with_names = 0; with_names < 2; with_names++) {
        hf_open_opts opts = {.names_file = with_names ? npath : NULL};
        hf_dump *bd = hf_open(bmd, &opts, &e);
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
    hf_dump *d = hf_open(p, NULL, &e);
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
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_names_option),
        cmocka_unit_test(test_any_order),
        cmocka_unit_test(test_second_pass),
        cmocka_unit_test(test_every_cut),
        cmocka_unit_test(test_corpus_opens),
        cmocka_unit_test(test_corpus_leakcanary),
        cmocka_unit_test(test_corpus_slurp),
        cmocka_unit_test(test_corpus_repeated_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
