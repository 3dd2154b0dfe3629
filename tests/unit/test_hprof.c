/*
 * test_hprof.c - the HPROF binary decoder and the neutral heap graph.
 *
 * Hand-built files (a tiny builder below) cover every top-level record and
 * heap dump sub-record, id sizes 4 and 8, two heap dumps, truncation, an
 * unknown tag, damage, Strings in JDK 6/8 and JDK 9+ layouts, and the
 * size rule read from object addresses.  The corpus's real dumps are
 * test_hprof_corpus.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/hprof/hprof.h"
#include "decoders/heap/build.h"
#include "tests/unit/hprofbld.h"

/* ---- builder: tests/unit/hprofbld.h ---- */

/* Views render in chunks of 16 bytes (resumption), each compared with the
 * whole view (th_set_budget in main). */
static hf_dump *open_bytes(GByteArray *bytes, char **path)
{
    GError *e = NULL;
    *path = th_write_temp(bytes->data, bytes->len);
    hf_dump *d = hf_open(*path, NULL, &e);
    if (!d)
        fail_msg("open: %s", e->message);
    return d;
}
static void close_bytes(hf_dump *d, char *path)
{
    hf_dump_close(d);
    unlink(path);
    g_free(path);
}

/* ---- the full file ---- */

enum {
    S_OBJECT = 1, S_STRING, S_CLASS, S_FOO, S_OBJARR, S_VALUE, S_CODER, S_HASH, S_A, S_NEXT,
    S_STATIC, S_MAIN, S_GROUP, S_RUN, S_SIG, S_SRC, S_HEAP, S_BAR, S_NAME, S_BYTEARR
};
enum {
    C_OBJECT = 0x100, C_STRING = 0x200, C_CLASS = 0x300, C_FOO = 0x400, C_OBJARR = 0x500,
    C_BAR = 0x600, C_BYTEARR = 0x700
};

/* Every record type; id size idsz.  Foo's instance comes before Foo's class
 * dump, and Bar (extends Foo) shadows Foo's field "a". */
static GByteArray *full_file(unsigned idsz)
{
    bld b = start(idsz, "JAVA PROFILE 1.0.2");
    const char *names[] = {NULL, "java/lang/Object", "java/lang/String", "java/lang/Class",
                           "Foo", "[Ljava/lang/Object;", "value", "coder", "hash", "a", "next",
                           "COUNT", "main", "system", "run", "()V", "Foo.java", "app", "Bar",
                           "name", "[B"};
    for (int i = 1; i <= S_BYTEARR; i++)
        str(&b, (uint64_t)i, names[i]);
    load_class(&b, 1, C_OBJECT, S_OBJECT);
    load_class(&b, 2, C_STRING, S_STRING);
    load_class(&b, 3, C_CLASS, S_CLASS);
    load_class(&b, 4, C_FOO, S_FOO);
    load_class(&b, 5, C_OBJARR, S_OBJARR);
    load_class(&b, 6, C_BAR, S_BAR);
    load_class(&b, 7, C_BYTEARR, S_BYTEARR);
    rec(&b, HPROF_UNLOAD_CLASS); u4(&b, 99); end(&b);
    /* frames: line 12, native */
    rec(&b, HPROF_STACK_FRAME); id(&b, 0x51); id(&b, S_RUN); id(&b, S_SIG); id(&b, S_SRC);
    u4(&b, 4); u4(&b, 12); end(&b);
    rec(&b, HPROF_STACK_FRAME); id(&b, 0x52); id(&b, S_RUN); id(&b, S_SIG); id(&b, 0);
    u4(&b, 4); u4(&b, (uint32_t)-3); end(&b);
    rec(&b, HPROF_STACK_TRACE); u4(&b, 300); u4(&b, 1); u4(&b, 2); id(&b, 0x51); id(&b, 0x52);
    end(&b);
    rec(&b, HPROF_STACK_TRACE); u4(&b, 301); u4(&b, 0); u4(&b, 0); end(&b);
    rec(&b, HPROF_START_THREAD); u4(&b, 1); id(&b, 0x9000); u4(&b, 300); id(&b, S_MAIN);
    id(&b, S_GROUP); id(&b, 0); end(&b);
    rec(&b, HPROF_END_THREAD); u4(&b, 7); end(&b);
    rec(&b, HPROF_CONTROL_SETTINGS); u4(&b, 3); u2(&b, 4); end(&b);
    rec(&b, HPROF_CPU_SAMPLES); u4(&b, 5); u4(&b, 1); u4(&b, 5); u4(&b, 300); end(&b);
    rec(&b, HPROF_HEAP_SUMMARY); u4(&b, 100); u4(&b, 3); u8(&b, 200); u8(&b, 6); end(&b);
    rec(&b, HPROF_ALLOC_SITES); u2(&b, 0); u4(&b, 0); u4(&b, 100); u4(&b, 3); u8(&b, 200);
    u8(&b, 6); u4(&b, 1);
    u1(&b, 0); u4(&b, 4); u4(&b, 300); u4(&b, 48); u4(&b, 2); u4(&b, 96); u4(&b, 4); end(&b);

    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    /* roots of every kind */
    u1(&b, HPROF_GC_ROOT_UNKNOWN); id(&b, 0x1000);
    u1(&b, HPROF_GC_ROOT_JNI_GLOBAL); id(&b, 0x1000); id(&b, 0x77);
    u1(&b, HPROF_GC_ROOT_JNI_LOCAL); id(&b, 0x1000); u4(&b, 1); u4(&b, 0);
    u1(&b, HPROF_GC_ROOT_JAVA_FRAME); id(&b, 0x2000); u4(&b, 1); u4(&b, 1);
    u1(&b, HPROF_GC_ROOT_NATIVE_STACK); id(&b, 0x1000); u4(&b, 1);
    u1(&b, HPROF_GC_ROOT_STICKY_CLASS); id(&b, C_FOO);
    u1(&b, HPROF_GC_ROOT_THREAD_BLOCK); id(&b, 0x1000); u4(&b, 1);
    u1(&b, HPROF_GC_ROOT_MONITOR_USED); id(&b, 0x1000);
    u1(&b, HPROF_GC_ROOT_THREAD_OBJ); id(&b, 0x9000); u4(&b, 1); u4(&b, 300);
    for (uint8_t t = HPROF_GC_ROOT_INTERNED_STRING; t <= HPROF_GC_ROOT_VM_INTERNAL; t++) {
        u1(&b, t); id(&b, 0x1000);
    }
    u1(&b, HPROF_GC_ROOT_JNI_MONITOR); id(&b, 0x1000); u4(&b, 1); u4(&b, 0);
    u1(&b, HPROF_GC_UNREACHABLE); id(&b, 0x3000);
    u1(&b, HPROF_GC_HEAP_DUMP_INFO); u4(&b, 'A'); id(&b, S_HEAP);
    /* Foo instance before Foo's class dump: a = 42, next = 0x1000 */
    {
        bld t = {g_byte_array_new(), idsz, 0};
        u4(&t, 42);
        id(&t, 0x1000);
        instance(&b, 0x2000, C_FOO, t.b->data, t.b->len);
        g_byte_array_unref(t.b);
    }
    /* Bar: b.a = 7 (declared, shadows Foo.a), then Foo's a = 8, next = 0x2000 */
    {
        bld t = {g_byte_array_new(), idsz, 0};
        u4(&t, 7);
        u4(&t, 8);
        id(&t, 0x2000);
        instance(&b, 0x2100, C_BAR, t.b->data, t.b->len);
        g_byte_array_unref(t.b);
    }
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    const uint64_t sf[] = {S_VALUE, HF_T_OBJECT, S_CODER, HF_T_BYTE, S_HASH, HF_T_INT};
    class_dump(&b, C_STRING, C_OBJECT, 9, 0, NULL, 3, sf);
    class_dump(&b, C_CLASS, C_OBJECT, 0, 0, NULL, 0, NULL);
    const uint64_t ff[] = {S_A, HF_T_INT, S_NEXT, HF_T_OBJECT};
    const uint64_t fs[] = {S_STATIC, HF_T_INT, 5, S_NAME, HF_T_OBJECT, 0x1000};
    class_dump(&b, C_FOO, C_OBJECT, 8, 2, fs, 2, ff);
    const uint64_t bf[] = {S_A, HF_T_INT};
    class_dump(&b, C_BAR, C_FOO, 4, 0, NULL, 1, bf);
    class_dump(&b, C_OBJARR, C_OBJECT, 0, 0, NULL, 0, NULL);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    /* String "hi\n\\" JDK 9 Latin-1: value byte[] 0x1100, coder 0 */
    {
        bld t = {g_byte_array_new(), idsz, 0};
        id(&t, 0x1100);
        u1(&t, 0);
        u4(&t, 0);
        instance(&b, 0x1000, C_STRING, t.b->data, t.b->len);
        g_byte_array_unref(t.b);
    }
    prim_array(&b, 0x1100, HF_T_BYTE, 4, (const uint8_t *)"hi\n\\", 1);
    /* String "é€" JDK 9 UTF-16 (coder 1, little-endian) */
    {
        bld t = {g_byte_array_new(), idsz, 0};
        id(&t, 0x1300);
        u1(&t, 1);
        u4(&t, 0);
        instance(&b, 0x1200, C_STRING, t.b->data, t.b->len);
        g_byte_array_unref(t.b);
    }
    prim_array(&b, 0x1300, HF_T_BYTE, 4, (const uint8_t *)"\xe9\x00\xac\x20", 1);
    const uint8_t ints[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 3};
    prim_array(&b, 0x3000, HF_T_INT, 3, ints, 4);
    u1(&b, HPROF_GC_OBJ_ARRAY_DUMP); id(&b, 0x4000); u4(&b, 0); u4(&b, 3); id(&b, C_OBJARR);
    id(&b, 0x1000); id(&b, 0); id(&b, 0x2000);
    u1(&b, HPROF_GC_PRIM_ARRAY_NODATA); id(&b, 0x5000); u4(&b, 0); u4(&b, 1000);
    u1(&b, HF_T_LONG);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

typedef struct {
    uint64_t *got;
    int *n;
} collect_ctx;

static bool collect(uint64_t t, uint32_t slot, void *ud)
{
    collect_ctx *c = ud;
    c->got[(*c->n)++] = t;
    return *c->n < 4;
}

static void check_full(unsigned idsz)
{
    char *path;
    GByteArray *bytes = full_file(idsz);
    hf_dump *d = open_bytes(bytes, &path);
    hprof_dump *hd = (hprof_dump *)d;
    assert_string_equal(d->ops->format, "hprof");
    for (guint i = 0; i < d->problems->len; i++)
        fail_msg("problem: %s", (char *)g_ptr_array_index(d->problems, i));
    /* every top-level record was seen */
    const uint8_t tags[] = {1, 2, 3, 4, 5, 6, 7, 0x0A, 0x0B, 0x0D, 0x0E, 0x1C, 0x2C};
    for (size_t i = 0; i < sizeof tags; i++)
        assert_true(hd->n_records[tags[i]] > 0);
    assert_int_equal(d->ops->n_snapshots(d), 1);

    char *info = th_info(d);
    const char *keys[] = {"format: hprof\nformat name: HPROF heap dump\n", "version: JAVA PROFILE 1.0.2\n", "file: ", "size: ",
                          "time: 2006-01-01T00:00:00.000Z\n", "snapshots: 1\n", "classes: ",
                          "objects: 15\n", "traces: 2\n", "threads: 1\n", "roots: 16\n",
                          "strings: 20\n", "index bytes: ", "problems: 0\n", "size rule: "};
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        if (!strstr(info, keys[i]))
            fail_msg("info lacks %s:\n%s", keys[i], info);
    char want[32];
    g_snprintf(want, sizeof want, "identifier size: %u\n", idsz);
    assert_non_null(strstr(info, want));
    g_free(info);

    /* histogram: ids are small, so compressed oops with idsz 8 */
    char *hist = th_snap_file(d, 0, "histogram");
    assert_true(g_str_has_prefix(hist, "# objects\tbytes\tclass\n"));
    /* Foo: a int, next ref = 8 bytes of fields */
    const char *foo = idsz == 8 ? "\n1\t24\tFoo\n" : "\n1\t16\tFoo\n";
    if (!strstr(hist, foo))
        fail_msg("histogram:\n%s", hist);
    assert_non_null(strstr(hist, "\n6\t"));        /* six class objects */
    assert_non_null(strstr(hist, "\tjava.lang.Class\n"));
    assert_non_null(strstr(hist, "\tint[]\n"));           /* synthesized */
    assert_non_null(strstr(hist, "\tlong[]\n"));          /* NODATA */
    assert_non_null(strstr(hist, "\tjava.lang.Object[]\n"));
    g_free(hist);

    /* classes */
    assert_contains(th_class_file(d, 0, "Bar", "fields"), "a\tint\tBar\na\tint\tFoo\nnext\tobject\tFoo\n");
    assert_contains(th_class_file(d, 0, "Foo", "statics"), "# name\ttype\tvalue\nCOUNT\tint\t5\nname\tobject\t0x1000\n");
    assert_contains(th_class_file(d, 0, "Foo", "info"), "super: java.lang.Object\n");
    assert_contains(th_class_file(d, 0, "Foo", "instances"), "0x2000\n");
    int64_t bar = d->ops->class_find(d, 0, "Bar");
    hf_target to;
    assert_true(th_class_link(d, 0, "Bar", "super", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    assert_int_equal(d->ops->class_find(d, 0, to.name), d->ops->class_find(d, 0, "Foo"));
    assert_true(th_class_link(d, 0, "Foo", "super", &to));
    assert_string_equal(to.name, "java.lang.Object");
    assert_false(th_class_link(d, 0, "java.lang.Object", "super", &to));
    assert_int_equal(d->ops->class_find(d, 0, "int[]") >= 0, 1);

    /* objects */
    assert_contains(th_object_file(d, 0, "0x2100", "fields"),
                    "# name\ttype\tvalue\na\tint\t7\na@Foo\tint\t8\nnext\tobject\t0x2000\n");
    assert_contains(th_object_file(d, 0, "0x2000", "info"), "kind: instance\n");
    assert_contains(th_object_file(d, 0, "0x2000", "info"), "heap: app\n");
    assert_contains(th_object_file(d, 0, "0x1000", "value"), "hi\n\\");
    assert_contains(th_object_file(d, 0, "0x1200", "value"), "\xc3\xa9\xe2\x82\xac");
    assert_contains(th_object_file(d, 0, "0x3000", "fields"), "# index\tvalue\n0\t1\n1\t-2\n2\t3\n");
    assert_contains(th_object_file(d, 0, "0x3000", "value"), "1\n-2\n3\n");
    assert_contains(th_object_file(d, 0, "0x4000", "fields"), "# index\tvalue\n0\t0x1000\n1\tnull\n2\t0x2000\n");
    assert_contains(th_object_file(d, 0, "0x5000", "info"), "length: 1000 (elements not in the dump)");
    assert_contains(th_object_file(d, 0, "0x400", "info"), "kind: class\n");
    assert_int_equal(d->ops->object_find(d, 0, "0x02000"), -1);
    assert_int_equal(d->ops->object_find(d, 0, "0x2001"), -1);
    char oname[HF_NAME_MAX], name[HF_NAME_MAX];
    int64_t o = d->ops->object_find(d, 0, "0x2100");
    d->ops->object_name(d, 0, (uint64_t)o, oname);
    assert_string_equal(oname, "0x2100");
    assert_true(th_object_link(d, 0, "0x2100", "class", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    assert_int_equal(d->ops->class_find(d, 0, to.name), bar);
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 0, name, &to), HF_REF_EMPTY);
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 2, name, &to), HF_REF_OK);
    assert_string_equal(name, "next");
    assert_string_equal(to.name, "0x2000");
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 3, name, &to), HF_REF_END);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "next"), 2);
    o = d->ops->object_find(d, 0, "0x4000");
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 2, name, &to), HF_REF_OK);
    assert_string_equal(name, "2");
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 1, name, &to), HF_REF_EMPTY);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "2"), 2);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "1"), -1);
    o = d->ops->object_find(d, 0, "0x400"); /* Foo's class object: statics */
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "name"), 1);
    assert_true(th_has_refs(d, 0, (uint64_t)o));

    /* the reference walker */
    {
        const hf_heap *h = &hd->heap;
        const hf_hsnap *sn = hf_heap_snap(h, 0);
        uint64_t got[4] = {0};
        int n = 0;
        int64_t bo = hf_heap_find_id(h, sn, 0x2100);
        collect_ctx ctx = {got, &n};
        hf_heap_for_each_ref(h, sn, (uint64_t)bo, collect, &ctx);
        assert_int_equal(n, 1);
        assert_int_equal(got[0], 0x2000);
    }

    /* roots, strings, sites */
    char *roots = th_snap_file(d, 0, "roots");
    assert_true(g_str_has_prefix(roots, "# kind\tid\tthread\tframe\ttrace\tref\twhat\n"));
    /* every row has every column: kind id thread frame trace ref what */
    const char *kinds[] = {"\nunknown\t0x1000\t0\t-1\t0\t0x0\t",
                           "\njni-global\t0x1000\t0\t-1\t0\t0x77\t",
                           "\njni-local\t0x1000\t1\t0\t0\t0x0\t",
                           "\njava-frame\t0x2000\t1\t1\t0\t0x0\tFoo\n",
                           "\nnative-stack\t0x1000\t1\t-1\t0\t0x0\t",
                           "\nsticky-class\t0x400\t0\t-1\t0\t0x0\tclass Foo\n",
                           "\nthread-block\t0x1000\t1\t-1\t", "\nmonitor-used\t0x1000\t",
                           "\nthread-object\t0x9000\t1\t-1\t300\t0x0\t",
                           "\ninterned-string\t0x1000\t", "\nfinalizing\t0x1000\t",
                           "\ndebugger\t0x1000\t", "\nreference-cleanup\t0x1000\t",
                           "\nvm-internal\t0x1000\t", "\njni-monitor\t0x1000\t1\t0\t",
                           "\nunreachable\t0x3000\t0\t-1\t0\t0x0\tint[]\n"};
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        if (!strstr(roots, kinds[i]))
            fail_msg("roots lack %s:\n%s", kinds[i], roots);
    g_free(roots);
    assert_contains(th_snap_file(d, 0, "strings"), "# id\ttext\n0x1000\thi\\n\\\\\n0x1200\t\xc3\xa9\xe2\x82\xac\n");
    char *sites = th_snap_file(d, 0, "sites");
    assert_non_null(sites);
    assert_contains(sites, "# trace\tinuse_objects\tinuse_space\talloc_objects\talloc_space\t"
                           "class\n300\t2\t48\t4\t96\tFoo\n");
    assert_contains(th_snap_file(d, 0, "sites.agent"), "SITES BEGIN");
    assert_contains(th_snap_file(d, 0, "sites.agent"),
                    "    1 48.00% 48.00%        48    2        96     4   300 Foo\n");
    assert_contains(th_snap_file(d, 0, "info"), "heaps: app\n");

    /* traces and threads */
    assert_int_equal(d->ops->n_traces(d), 2);
    assert_int_equal(d->ops->trace_number(d, 0), 300);
    assert_contains(th_trace(d, 0),
                    "TRACE 300: (thread=1)\n\tFoo.run(Foo.java:12)\n\tFoo.run(Native Method)\n");
    assert_contains(th_trace(d, 1),
                    "TRACE 301: (thread=0)\n\t<empty>\n");
    assert_int_equal(d->ops->n_threads(d), 1);
    d->ops->thread_name(d, 0, name);
    assert_string_equal(name, "1-main");
    assert_contains(th_thread_file(d, 0, "info"),
                    "name: main\ngroup: system\n");
    assert_contains(th_thread_file(d, 0, "stack"),
                    "\tFoo.run(Foo.java:12)\n\t\tlocal 0x1000 java.lang.String\n"
                    "\t\tjni-monitor 0x1000 java.lang.String\n"
                    "\tFoo.run(Native Method)\n\t\tlocal 0x2000 Foo\n"
                    "\t<no frame>\n\t\tnative-stack 0x1000 java.lang.String\n");
    GString *readme = g_string_new(NULL);
    d->ops->describe(d, readme);
    assert_true(readme->len > 100);
    g_string_free(readme, TRUE);
    close_bytes(d, path);
    g_byte_array_unref(bytes);
}

static void test_full_id4(void **state) { check_full(4); }
static void test_full_id8(void **state) { check_full(8); }

static void test_detect(void **state)
{
    bld b = start(8, "JAVA PROFILE 1.0.3");
    assert_true(hf_decoder_hprof.detect(b.b->data, b.b->len));
    b.b->data[b.b->len - 9] = 5; /* id size 5 */
    assert_false(hf_decoder_hprof.detect(b.b->data, b.b->len));
    assert_false(hf_decoder_hprof.detect((const uint8_t *)"JAVA PROFILE 1.0.9", 19));
    assert_false(hf_decoder_hprof.detect((const uint8_t *)"JAVA", 4));
    g_byte_array_unref(b.b);
}

/* Two HEAP DUMP records: two snapshots, each with its own objects. */
static void test_two_snapshots(void **state)
{
    bld b = start(4, "JAVA PROFILE 1.0.1");
    str(&b, 1, "java/lang/Object");
    load_class(&b, 1, C_OBJECT, 1);
    for (int k = 0; k < 2; k++) {
        rec(&b, HPROF_HEAP_DUMP);
        class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
        for (int i = 0; i <= k; i++)
            instance(&b, 0x1000 + 0x10 * (uint64_t)i, C_OBJECT, NULL, 0);
        end(&b);
    }
    char *path;
    hf_dump *d = open_bytes(b.b, &path);
    assert_int_equal(d->ops->n_snapshots(d), 2);
    assert_int_equal(d->ops->snapshot_number(d, 0), 1);
    assert_int_equal(d->ops->snapshot_number(d, 1), 2);
    assert_int_equal(d->ops->n_objects(d, 0), 2); /* the class object and one instance */
    assert_int_equal(d->ops->n_objects(d, 1), 3);
    assert_contains(th_snap_file(d, 1, "histogram"), "\n2\t16\tjava.lang.Object\n");
    /* no ALLOC SITES record: no sites file */
    char *files = th_snap_files(d, 0);
    assert_true(g_str_has_prefix(files, "info histogram roots strings heap.pprof heap.pb.gz stacks.folded "));
    assert_null(strstr(files, "sites"));
    g_free(files);
    assert_null(th_snap_file(d, 1, "sites"));
    assert_int_equal(d->problems->len, 0);
    close_bytes(d, path);
    g_byte_array_unref(b.b);
}

/* A dump cut in the middle of a sub-record: a problem with the record's
 * offset, and everything before it kept. */
static void test_truncated(void **state)
{
    GByteArray *full = full_file(8);
    for (guint cut = full->len - 40; cut > full->len - 140; cut -= 7) {
        GByteArray *part = g_byte_array_sized_new(cut);
        g_byte_array_append(part, full->data, cut);
        char *path;
        hf_dump *d = open_bytes(part, &path);
        assert_true(d->problems->len >= 1);
        const char *p = g_ptr_array_index(d->problems, 0);
        assert_true(g_str_has_prefix(p, "offset 0x"));
        assert_non_null(strstr(p, "cut off"));
        assert_int_equal(d->ops->n_snapshots(d), 1);
        /* the first segment (Foo, Bar and the class dumps) is whole */
        assert_true(d->ops->class_find(d, 0, "Bar") >= 0);
        assert_true(d->ops->object_find(d, 0, "0x2100") >= 0);
        char *info = th_info(d);
        assert_non_null(strstr(info, "truncated"));
        g_free(info);
        g_free(th_snap_file(d, 0, "histogram"));
        g_free(th_snap_file(d, 0, "strings"));
        close_bytes(d, path);
        g_byte_array_unref(part);
    }
    /* cut inside the record header */
    GByteArray *part = g_byte_array_new();
    g_byte_array_append(part, full->data, 31 + 4);
    char *path;
    hf_dump *d = open_bytes(part, &path);
    assert_int_equal(d->problems->len, 1);
    assert_non_null(strstr(g_ptr_array_index(d->problems, 0), "offset 0x1f: record header"));
    close_bytes(d, path);
    g_byte_array_unref(part);
    g_byte_array_unref(full);
}

/* Unknown top-level tags are skipped by their length; a known record too
 * short for its tag is named; an unknown sub-record ends its record; all
 * are problems with offsets. */
static void test_unknown_tags(void **state)
{
    bld b = start(4, "JAVA PROFILE 1.0.2");
    rec(&b, 0x55);
    u4(&b, 1234);
    end(&b);
    rec(&b, HPROF_HEAP_SUMMARY); /* 24 bytes of totals: only 4 */
    u4(&b, 7);
    end(&b);
    str(&b, 1, "java/lang/Object");
    load_class(&b, 1, C_OBJECT, 1);
    rec(&b, HPROF_HEAP_DUMP);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    size_t bad = b.b->len;
    u1(&b, 0x77);
    u4(&b, 0);
    end(&b);
    char *path;
    hf_dump *d = open_bytes(b.b, &path);
    assert_int_equal(d->problems->len, 3);
    assert_string_equal(g_ptr_array_index(d->problems, 0),
                        "offset 0x1f: unknown record tag 0x55 (4 bytes) skipped");
    assert_string_equal(g_ptr_array_index(d->problems, 1),
                        "offset 0x2c: record 0x07: body of 4 bytes too short for its contents");
    char want[100];
    g_snprintf(want, sizeof want, "offset 0x%zx: unknown heap dump sub-record 0x77", bad);
    assert_true(g_str_has_prefix(g_ptr_array_index(d->problems, 2), want));
    assert_int_equal(d->ops->n_objects(d, 0), 1);
    assert_true(d->ops->class_find(d, 0, "java.lang.Object") >= 0);
    close_bytes(d, path);
    g_byte_array_unref(b.b);
}

/* ---- the size rule from object addresses ---- */

static uint64_t align_up(uint64_t x, unsigned a)
{
    return (x + a - 1) / a * a;
}

/* A 64-bit dump of 40 rounds of an Object[i % 7], an int[i % 5] and a
 * java.lang.Object.  step 0: they sit back to back from address base on,
 * as a JVM with array header hdr, references ref bytes and alignment align
 * places them; else each starts step bytes after the one before.  *objarr
 * (when not NULL) gets the bytes of the Object[]s under that layout. */
static GByteArray *layout_file(unsigned hdr, unsigned ref, unsigned align, uint64_t base,
                               uint64_t step, uint64_t *objarr)
{
    bld b = start(8, "JAVA PROFILE 1.0.2");
    str(&b, S_OBJECT, "java/lang/Object");
    str(&b, S_OBJARR, "[Ljava/lang/Object;");
    load_class(&b, 1, C_OBJECT, S_OBJECT);
    load_class(&b, 2, C_OBJARR, S_OBJARR);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    class_dump(&b, C_OBJARR, C_OBJECT, 0, 0, NULL, 0, NULL);
    static const uint8_t zeros[64];
    uint64_t at = base, sum = 0;
    for (uint32_t i = 0; i < 40; i++) {
        uint32_t no = i % 7, ni = i % 5;
        uint64_t sizes[3] = {align_up(hdr + no * ref, align), align_up(hdr + 4 * ni, align),
                             align_up(hdr - 4, align)};
        u1(&b, HPROF_GC_OBJ_ARRAY_DUMP); id(&b, at); u4(&b, 0); u4(&b, no); id(&b, C_OBJARR);
        g_byte_array_append(b.b, zeros, no * 8);
        at += step ? step : sizes[0];
        sum += sizes[0];
        prim_array(&b, at, HF_T_INT, ni, zeros, 4);
        at += step ? step : sizes[1];
        instance(&b, at, C_OBJECT, NULL, 0);
        at += step ? step : sizes[2];
    }
    end(&b);
    if (objarr)
        *objarr = sum;
    return b.b;
}

/* Opens a layout_file; checks that the rule decided has array header hdr,
 * references ref bytes and alignment align, and that info states it with
 * `said`; and that the Object[]s' bytes follow the rule. */
static void check_layout(GByteArray *bytes, uint64_t objarr, unsigned hdr, unsigned ref,
                         unsigned align, const char *said)
{
    char *path;
    hf_dump *d = open_bytes(bytes, &path);
    const hf_heap *h = &((hprof_dump *)d)->heap;
    assert_int_equal(d->n_problems, 0);
    assert_int_equal(h->arr_header, hdr);
    assert_int_equal(h->obj_header, hdr == 16 ? 12 : 16);
    assert_int_equal(h->ref_size, ref);
    assert_int_equal(h->align, align);
    assert_contains(th_info(d), said);
    if (objarr) {
        const hf_hsnap *sn = hf_heap_snap(h, 0);
        int64_t c = d->ops->class_find(d, 0, "java.lang.Object[]");
        assert_true(c >= 0);
        assert_int_equal(hf_heap_class(sn, (uint64_t)c)->bytes, objarr);
    }
    close_bytes(d, path);
    g_byte_array_unref(bytes);
}

/* Object arrays that start before the one before would end with 8-byte
 * references prove 4-byte ones, and int[]s that start before a 24-byte
 * header would end prove 16-byte array headers: even at addresses above
 * 32 GiB, where the default guessed 8-byte references. */
static void test_rule_proves_refs4(void **state)
{
    uint64_t sum;
    GByteArray *f = layout_file(16, 4, 8, UINT64_C(0x7f0000000000), 0, &sum);
    check_layout(f, sum, 16, 4, 8,
                 "size rule: 64-bit JVM, layout from the object addresses: references 4 bytes "
                 "(proven: with 8-byte ones an object array would overlap the object after it), "
                 "headers 12 bytes, array headers 16 (proven: with 24-byte array headers an array "
                 "would overlap the object after it), alignment 8 (the least; no more is proven): "
                 "instance = align8(12 + fields), array = align8(16 + length * element size);");
}

/* Object arrays that end exactly where the next object starts with 8-byte
 * references (and more so than with 4-byte ones) give 8-byte references,
 * below 32 GiB too: -XX:-UseCompressedOops on JDK 15+ (12-byte headers) and
 * JDK 6 before update 23 (16-byte headers, 24-byte array headers). */
static void test_rule_fits_refs8(void **state)
{
    uint64_t sum;
    GByteArray *f = layout_file(16, 8, 8, 0x10000000, 0, &sum);
    check_layout(f, sum, 16, 8, 8, "references 8 bytes (40 object arrays end exactly where the "
                                   "next object starts, 12 with 4-byte ones)");
    f = layout_file(24, 8, 8, 0x10000000, 0, &sum);
    check_layout(f, sum, 24, 8, 8, "headers 16 bytes, array headers 24 (80 arrays end exactly "
                                   "where the next object starts, 0 with 16-byte headers)");
    f = layout_file(24, 4, 8, 0x10000000, 0, &sum); /* -XX:-UseCompressedClassPointers */
    check_layout(f, sum, 24, 4, 8, "references 4 bytes (proven");
}

/* Addresses all multiples of 16 give 16-byte alignment
 * (-XX:ObjectAlignmentInBytes=16), and sizes are rounded to it. */
static void test_rule_alignment16(void **state)
{
    uint64_t sum;
    GByteArray *f = layout_file(16, 4, 16, 0x10000000, 0, &sum);
    check_layout(f, sum, 16, 4, 16, "alignment 16 (every object address is a multiple of 16): "
                                    "instance = align16(12 + fields), array = align16(16 + ");
}

/* Where the addresses prove nothing, the default (all ids below 32 GiB:
 * compressed oops) with the reason: ids one apart are no addresses (no
 * object fits in a byte); objects 4 KiB apart fit no header exactly; a
 * dump without arrays has nothing to measure. */
static void test_rule_fallback(void **state)
{
    check_layout(layout_file(16, 4, 8, 0x10000000, 1, NULL), 0, 16, 4, 8,
                 "64-bit JVM, compressed oops by default (the ids are not addresses; all ids "
                 "below 32 GiB): instance = align8(12 + fields), array = align8(16 + length * "
                 "element size), references 4 bytes;");
    check_layout(layout_file(16, 4, 8, UINT64_C(0x900000000), 4096, NULL), 0, 24, 8, 8,
                 "64-bit JVM, uncompressed oops by default (no array ends where the next object "
                 "starts; ids above 32 GiB): instance = align8(16 + fields), array = align8(24 + ");
    bld b = start(8, "JAVA PROFILE 1.0.2");
    str(&b, S_OBJECT, "java/lang/Object");
    load_class(&b, 1, C_OBJECT, S_OBJECT);
    rec(&b, HPROF_HEAP_DUMP);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    for (uint64_t i = 0; i < 40; i++)
        instance(&b, 0x10000000 + 16 * i, C_OBJECT, NULL, 0);
    end(&b);
    check_layout(b.b, 0, 16, 4, 8, "compressed oops by default (the dump has no arrays to measure");
}

/* JDK 8 String (char[] value) and JDK 6 String (value, offset, count). */
static void test_string_layouts(void **state)
{
    for (int jdk6 = 0; jdk6 < 2; jdk6++) {
        bld b = start(8, "JAVA PROFILE 1.0.1");
        str(&b, 1, "java/lang/String");
        str(&b, 2, "value");
        str(&b, 3, "offset");
        str(&b, 4, "count");
        str(&b, 5, "hash");
        load_class(&b, 1, C_STRING, 1);
        rec(&b, HPROF_HEAP_DUMP);
        const uint64_t f8[] = {2, HF_T_OBJECT, 5, HF_T_INT};
        const uint64_t f6[] = {2, HF_T_OBJECT, 3, HF_T_INT, 4, HF_T_INT, 5, HF_T_INT};
        class_dump(&b, C_STRING, 0, 0, 0, NULL, jdk6 ? 4 : 2, jdk6 ? f6 : f8);
        bld t = {g_byte_array_new(), 8, 0};
        id(&t, 0x1100);
        if (jdk6) {
            u4(&t, 2); /* offset */
            u4(&t, 2); /* count */
        }
        u4(&t, 0);
        instance(&b, 0x1000, C_STRING, t.b->data, t.b->len);
        /* "xx" + "a\xe9" + U+1F600 as a surrogate pair */
        const uint8_t chars[] = {0, 'x', 0, 'x', 0, 'a', 0, 0xe9, 0xd8, 0x3d, 0xde, 0x00};
        prim_array(&b, 0x1100, HF_T_CHAR, 6, chars, 2);
        end(&b);
        char *path;
        hf_dump *d = open_bytes(b.b, &path);
        assert_int_equal(d->problems->len, 0);
        const char *want = jdk6 ? "0x1000\ta\xc3\xa9\n" : "0x1000\txxa\xc3\xa9\xf0\x9f\x98\x80\n";
        assert_contains(th_snap_file(d, 0, "strings"), want);
        assert_contains(th_object_file(d, 0, "0x1100", "value"), "xxa\xc3\xa9\xf0\x9f\x98\x80");
        close_bytes(d, path);
        g_byte_array_unref(t.b);
        g_byte_array_unref(b.b);
    }
}

/* Every cut and every single-byte corruption of the full file: open
 * succeeds or fails cleanly, and every view renders (ASan watches).  A
 * dump of a few KB is scanned on the calling thread alone (thousands of
 * opens here, each starting scan threads, made this test wait on a loaded
 * machine), while a big one gets every processor. */
static void test_damage(void **state)
{
    g_unsetenv("HEAPFS_THREADS");
    unsigned procs = CLAMP(g_get_num_processors(), 1, 64);
    assert_int_equal(hprof_heapscan_threads((uint64_t)64 << 20), procs);
    GByteArray *full = full_file(4);
    GError *e = NULL;
    char *path = th_write_temp((const char *)full->data, full->len);
    hf_dump *whole = hf_open(path, NULL, &e);
    assert_non_null(whole);
    assert_int_equal(whole->index_threads, 1);
    hf_dump_close(whole);
    for (guint i = 0; i < full->len; i++) {
        for (int mode = 0; mode < 3; mode++) {
            GByteArray *b = g_byte_array_new();
            g_byte_array_append(b, full->data, mode == 0 ? i : full->len);
            if (mode == 1)
                b->data[i] ^= 0xff;
            if (mode == 2)
                b->data[i] = (uint8_t)(b->data[i] + 1);
            if (b->len == 0) {
                g_byte_array_unref(b);
                continue;
            }
            FILE *f = fopen(path, "wb"); /* not g_file_set_contents: it may fsync */
            assert_non_null(f);
            assert_int_equal(fwrite(b->data, 1, b->len, f), b->len);
            fclose(f);
            hf_dump *d = hf_open(path, NULL, &e);
            if (d) {
                th_render_everything(d, 16);
                hf_dump_close(d);
            } else {
                g_clear_error(&e);
            }
            g_byte_array_unref(b);
        }
    }
    unlink(path);
    g_free(path);
    g_byte_array_unref(full);
}

/* Display names of internal class names. */
static void test_display_names(void **state)
{
    hf_heap h = {0};
    h.chunk = g_string_chunk_new(256);
    const char *cases[][2] = {
        {"java/lang/String", "java.lang.String"}, {"[I", "int[]"}, {"[[I", "int[][]"},
        {"[Ljava/lang/Object;", "java.lang.Object[]"}, {"[[Ljava/util/Map$Entry;", "java.util.Map$Entry[][]"},
        {"Foo$$Lambda$14+0x0000000800c03000", "Foo$$Lambda$14/0x0000000800c03000"},
        {"a+b", "a+b"}, {"[Z", "boolean[]"}, {"[J", "long[]"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        assert_string_equal(hf_heap_display_name(&h, cases[i][0], strlen(cases[i][0])), cases[i][1]);
    g_string_chunk_free(h.chunk);
}

int main(void)
{
    th_set_budget(16);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_display_names),
        cmocka_unit_test(test_full_id4),
        cmocka_unit_test(test_full_id8),
        cmocka_unit_test(test_two_snapshots),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_unknown_tags),
        cmocka_unit_test(test_string_layouts),
        cmocka_unit_test(test_rule_proves_refs4),
        cmocka_unit_test(test_rule_fits_refs8),
        cmocka_unit_test(test_rule_alignment16),
        cmocka_unit_test(test_rule_fallback),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
