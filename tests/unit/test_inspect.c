/*
 * test_inspect.c - the class loader and thread views (decoders/heap/
 * loaders.c, threadsviews.c) on a small HPROF file built here: my.Plugin
 * defined by two loaders, one held by the static Holder.kept, the other
 * only through a Plugin instance (a JNI global); a thread whose frame 1
 * holds a byte[100] nothing else holds.
 */
#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

#include "decoders/heap/build.h"
#include "decoders/heap/render.h"

enum {
    S_OBJECT = 1, S_CLASS, S_LOADERBASE, S_LOADER, S_HOLDER, S_PLUGIN, S_THREAD, S_BYTES,
    S_KEPT, S_MAIN, S_RUN, S_SIG, S_SRC, S_N
};
static const char *const names[S_N] = {
    NULL, "java/lang/Object", "java/lang/Class", "java/lang/ClassLoader", "my/Loader", "Holder",
    "my/Plugin", "java/lang/Thread", "[B", "kept", "main", "run", "()V", "Holder.java"};
enum {
    C_OBJECT = 0x100, C_CLASS = 0x200, C_LOADERBASE = 0x300, C_LOADER = 0x400, C_HOLDER = 0x500,
    C_PLUGIN1 = 0x600, C_PLUGIN2 = 0x700, C_THREAD = 0x800, C_BYTES = 0x900
};
enum { L1 = 0x5000, L2 = 0x5100, PLUGIN = 0x6000, THREAD = 0x9000, PAYLOAD = 0x9100 };

/* A CLASS DUMP of a class with no fields, its loader and statics given. */
static void class_of(bld *b, uint64_t cid, uint64_t super, uint64_t loader, int nstat,
                     const uint64_t *stat)
{
    u1(b, HPROF_GC_CLASS_DUMP);
    id(b, cid);
    u4(b, 7);
    id(b, super);
    id(b, loader);
    for (int i = 0; i < 4; i++)
        id(b, 0);
    u4(b, 0);
    u2(b, 0);
    u2(b, (uint16_t)nstat);
    for (int i = 0; i < nstat; i++) {
        id(b, stat[2 * i]);
        u1(b, HF_T_OBJECT);
        id(b, stat[2 * i + 1]);
    }
    u2(b, 0);
}

static GByteArray *loaders_file(void)
{
    bld b = start(8, "JAVA PROFILE 1.0.2");
    for (int i = 1; i < S_N; i++)
        str(&b, (uint64_t)i, names[i]);
    const struct { uint64_t cid, name; } loads[] = {
        {C_OBJECT, S_OBJECT}, {C_CLASS, S_CLASS}, {C_LOADERBASE, S_LOADERBASE},
        {C_LOADER, S_LOADER}, {C_HOLDER, S_HOLDER}, {C_PLUGIN1, S_PLUGIN},
        {C_PLUGIN2, S_PLUGIN}, {C_THREAD, S_THREAD}, {C_BYTES, S_BYTES}};
    for (unsigned i = 0; i < G_N_ELEMENTS(loads); i++)
        load_class(&b, i + 1, loads[i].cid, loads[i].name);
    rec(&b, HPROF_STACK_FRAME); id(&b, 0x51); id(&b, S_RUN); id(&b, S_SIG); id(&b, S_SRC);
    u4(&b, 5); u4(&b, 12); end(&b);
    rec(&b, HPROF_STACK_FRAME); id(&b, 0x52); id(&b, S_MAIN); id(&b, S_SIG); id(&b, S_SRC);
    u4(&b, 5); u4(&b, 20); end(&b);
    rec(&b, HPROF_STACK_TRACE); u4(&b, 300); u4(&b, 1); u4(&b, 2); id(&b, 0x51); id(&b, 0x52);
    end(&b);
    rec(&b, HPROF_START_THREAD); u4(&b, 1); id(&b, THREAD); u4(&b, 300); id(&b, S_MAIN);
    id(&b, 0); id(&b, 0); end(&b);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    for (uint64_t c = C_OBJECT; c <= C_BYTES; c += 0x100) /* classes held, not retained */
        if (c != C_PLUGIN1 && c != C_PLUGIN2) {
            u1(&b, HPROF_GC_ROOT_STICKY_CLASS);
            id(&b, c);
        }
    u1(&b, HPROF_GC_ROOT_JNI_GLOBAL); id(&b, PLUGIN); id(&b, 0x77);
    u1(&b, HPROF_GC_ROOT_THREAD_OBJ); id(&b, THREAD); u4(&b, 1); u4(&b, 300);
    u1(&b, HPROF_GC_ROOT_JAVA_FRAME); id(&b, PAYLOAD); u4(&b, 1); u4(&b, 1);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    class_of(&b, C_CLASS, C_OBJECT, 0, 0, NULL);
    class_of(&b, C_LOADERBASE, C_OBJECT, 0, 0, NULL);
    class_of(&b, C_LOADER, C_LOADERBASE, 0, 0, NULL);
    const uint64_t kept[] = {S_KEPT, L1};
    class_of(&b, C_HOLDER, C_OBJECT, 0, 1, kept);
    class_of(&b, C_PLUGIN1, C_OBJECT, L1, 0, NULL);
    class_of(&b, C_PLUGIN2, C_OBJECT, L2, 0, NULL);
    class_of(&b, C_THREAD, C_OBJECT, 0, 0, NULL);
    class_of(&b, C_BYTES, C_OBJECT, 0, 0, NULL);
    instance(&b, L1, C_LOADER, NULL, 0);
    instance(&b, L2, C_LOADER, NULL, 0);
    instance(&b, PLUGIN, C_PLUGIN2, NULL, 0);
    instance(&b, THREAD, C_THREAD, NULL, 0);
    const uint8_t payload[100] = {1};
    prim_array(&b, PAYLOAD, HF_T_BYTE, 100, payload, 1);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

/* The row of file text whose first column is `first`, or "". */
static char *row_of(const char *text, const char *col, unsigned k)
{
    char **lines = g_strsplit(text, "\n", -1);
    char *found = g_strdup("");
    for (char **l = lines; *l; l++) {
        char **cols = g_strsplit(*l, "\t", -1);
        if (g_strv_length(cols) > k && strcmp(cols[k], col) == 0) {
            g_free(found);
            found = g_strdup(*l);
        }
        g_strfreev(cols);
    }
    g_strfreev(lines);
    return found;
}

#define assert_row(text, col, k, want)                                                     \
    do {                                                                                   \
        char *r_ = row_of(text, col, k);                                                   \
        assert_string_equal(r_, want);                                                     \
        g_free(r_);                                                                        \
    } while (0)

static void test_loaders(void **state)
{
    th_set_budget(40);
    GByteArray *bytes = loaders_file();
    hf_dump *d = th_open_temp(bytes->data, bytes->len, NULL, NULL, NULL);
    hf_heap *h = (hf_heap *)d;
    uint64_t lsize = hf_heap_class(hf_heap_snap(h, 0), th_class(d, 0, "my.Loader"))->shallow;
    char *cl = th_snap_file_needed(d, 0, "classloaders");
    /* L1 retains itself: its Plugin's class object is no reference of its */
    char *want = g_strdup_printf("0x5000\t1\t0\t0\t%" G_GUINT64_FORMAT "\tmy.Loader",
                                 (guint64)lsize);
    assert_row(cl, "0x5000", 0, want);
    g_free(want);
    assert_true(g_str_has_prefix(cl, "# id\tclasses\tobjects\tbytes\tretained\tclass\n"));
    char *l2 = row_of(cl, "0x5100", 0);
    assert_true(g_str_has_prefix(l2, "0x5100\t1\t1\t"));
    g_free(l2);
    assert_true(strstr(cl, "\n0x0\t") && strstr(cl, "\t<bootstrap>\n"));
    g_free(cl);

    char *dup = th_snap_file_needed(d, 0, "duplicate-classes");
    char *r1 = row_of(dup, "0x5000", 3), *r2 = row_of(dup, "0x5100", 3);
    assert_true(g_str_has_prefix(r1, "2\t0x600\t0\t0x5000\t"));
    assert_true(g_str_has_suffix(r1, "\tsticky-class 0x500 class Holder .kept 0x5000 my.Loader"));
    assert_true(g_str_has_prefix(r2, "2\t0x700\t1\t0x5100\t"));
    assert_non_null(strstr(r2, "\tjni-global 0x6000 my.Plugin"));
    assert_true(g_str_has_suffix(r2, " .<class> 0x700 class my.Plugin@0x700 .<loader> 0x5100 my.Loader") ||
                g_str_has_suffix(r2, " .<class> 0x700 class my.Plugin .<loader> 0x5100 my.Loader"));
    g_free(r1);
    g_free(r2);
    g_free(dup);
    hf_dump_close(d);
    g_byte_array_unref(bytes);
}

static void test_threads(void **state)
{
    GByteArray *bytes = loaders_file();
    hf_dump *d = th_open_temp(bytes->data, bytes->len, NULL, NULL, NULL);
    hf_heap *h = (hf_heap *)d;
    uint64_t arr = hf_heap_array_size(h, HF_T_BYTE, 100);
    uint64_t th = hf_heap_class(hf_heap_snap(h, 0), th_class(d, 0, "java.lang.Thread"))->shallow;
    char *want = g_strdup_printf("# frame\tkind\tid\tshallow\tretained\twhat\n"
                                 "1\tjava-frame\t0x9100\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
                                 "\tbyte[100]\n", (guint64)arr, (guint64)arr);
    char *got = th_thread_file(d, 0, "locals");
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    want = g_strdup_printf("object: 0x9000\nshallow: %" G_GUINT64_FORMAT "\nretained: %"
                           G_GUINT64_FORMAT "\nlocals: 1\n", (guint64)th, (guint64)(th + arr));
    got = th_thread_file(d, 0, "retained");
    assert_string_equal(got, want); /* the thread retains what only its stack holds */
    g_free(got);
    g_free(want);
    want = g_strdup_printf("# serial\tid\tshallow\tretained\tlocals\tname\n1\t0x9000\t%"
                           G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t1\tmain\n",
                           (guint64)th, (guint64)(th + arr));
    got = th_snap_file_needed(d, 0, "thread-overview");
    assert_string_equal(got, want);
    g_free(got);
    g_free(want);
    th_render_everything(d, 64);
    hf_dump_close(d);
    g_byte_array_unref(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loaders),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
