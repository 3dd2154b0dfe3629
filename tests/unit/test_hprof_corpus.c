/*
 * test_hprof_corpus.c - the HPROF binary decoder on the corpus's real
 * dumps: every file opens cleanly and every view renders (whole and in
 * chunks of 16 bytes), the two hprof-slurp oracles agree with us on record
 * counts and top-20 per-class instance counts, and Android's dump names
 * its heaps.  Hand-built files are test_hprof.c's.
 *
 * Run from the project root (the corpus is tests/corpus).
 */
#include <string.h>

#include "tests/unit/helpers.h"

#include "decoders/hprof/hprof.h"

static void test_corpus_opens(void **state)
{
    char *corpus = th_corpus("hprof", NULL);
    GDir *dir = g_dir_open(corpus, 0, NULL);
    if (!dir)
        skip();
    const char *n;
    int count = 0;
    while ((n = g_dir_read_name(dir))) {
        if (g_str_has_suffix(n, ".txt"))
            continue;
        char *p = g_build_filename(corpus, n, NULL);
        GError *e = NULL;
        hf_dump *d = hf_open(p, NULL, &e);
        if (!d)
            fail_msg("%s: %s", p, e->message);
        assert_string_equal(d->ops->format, "hprof");
        assert_true(d->ops->n_snapshots(d) >= 1);
        assert_int_equal(d->problems->len, 0);
        for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
            assert_true(d->ops->n_objects(d, s) > 0);
            /* every snapshot file, in chunks and whole */
            const hf_file *files = d->ops->snapshot.files;
            for (uint32_t f = 0; f < th_n_files(files); f++)
                g_free(th_snap_file(d, s, files[f].name));
            /* a sample of objects and classes renders */
            uint64_t no = d->ops->n_objects(d, s);
            for (uint64_t o = 0; o < no; o += no / 50 + 1)
                th_render_node(d, d->ops->object.files, s, o, 16);
            uint64_t nc = d->ops->n_classes(d, s);
            for (uint64_t c = 0; c < nc; c += nc / 20 + 1)
                th_render_node(d, d->ops->class_.files, s, c, 16);
        }
        for (uint64_t t = 0; t < d->ops->n_threads(d); t++)
            g_free(th_thread_file(d, t, "stack"));
        hf_dump_close(d);
        g_free(p);
        count++;
    }
    g_dir_close(dir);
    g_free(corpus);
    assert_true(count >= 6);
}

/* The hprof-slurp summary: "Name: N" lines, and "..GC name: N" lines. */
static const struct { const char *slurp; int sub; uint8_t tag; } slurp_keys[] = {
    {"UTF-8 Strings", 0, HPROF_STRING}, {"Classes loaded", 0, HPROF_LOAD_CLASS},
    {"Classes unloaded", 0, HPROF_UNLOAD_CLASS}, {"Stack traces", 0, HPROF_STACK_TRACE},
    {"Stack frames", 0, HPROF_STACK_FRAME}, {"Start threads", 0, HPROF_START_THREAD},
    {"Allocation sites", 0, HPROF_ALLOC_SITES}, {"End threads", 0, HPROF_END_THREAD},
    {"Control settings", 0, HPROF_CONTROL_SETTINGS}, {"CPU samples", 0, HPROF_CPU_SAMPLES},
    {"Heap summaries", 0, HPROF_HEAP_SUMMARY},
    {"..GC root unknown", 1, HPROF_GC_ROOT_UNKNOWN},
    {"..GC root thread objects", 1, HPROF_GC_ROOT_THREAD_OBJ},
    {"..GC root JNI global", 1, HPROF_GC_ROOT_JNI_GLOBAL},
    {"..GC root JNI local", 1, HPROF_GC_ROOT_JNI_LOCAL},
    {"..GC root Java frame", 1, HPROF_GC_ROOT_JAVA_FRAME},
    {"..GC root native stack", 1, HPROF_GC_ROOT_NATIVE_STACK},
    {"..GC root sticky class", 1, HPROF_GC_ROOT_STICKY_CLASS},
    {"..GC root thread block", 1, HPROF_GC_ROOT_THREAD_BLOCK},
    {"..GC root monitor used", 1, HPROF_GC_ROOT_MONITOR_USED},
    {"..GC primitive array dump", 1, HPROF_GC_PRIM_ARRAY_DUMP},
    {"..GC object array dump", 1, HPROF_GC_OBJ_ARRAY_DUMP},
    {"..GC class dump", 1, HPROF_GC_CLASS_DUMP},
    {"..GC instance dump", 1, HPROF_GC_INSTANCE_DUMP},
};

static void check_slurp(const char *bin, const char *result, bool extra_array_suffix)
{
    char *text;
    if (!g_file_get_contents(result, &text, NULL, NULL))
        skip();
    GError *e = NULL;
    hf_dump *d = hf_open(bin, NULL, &e);
    if (!d)
        fail_msg("%s: %s", bin, e->message);
    hprof_dump *hd = (hprof_dump *)d;
    char **lines = g_strsplit(text, "\n", -1);
    size_t checked = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(slurp_keys); k++) {
        char *prefix = g_strdup_printf("%s: ", slurp_keys[k].slurp);
        bool found = false;
        for (char **l = lines; *l; l++)
            if (g_str_has_prefix(*l, prefix)) {
                uint64_t want = g_ascii_strtoull(*l + strlen(prefix), NULL, 10);
                uint64_t got = slurp_keys[k].sub ? hd->n_sub[slurp_keys[k].tag]
                                                 : hd->n_records[slurp_keys[k].tag];
                if (slurp_keys[k].tag == HPROF_LOAD_CLASS && !slurp_keys[k].sub) {
                    /* hprof-slurp counts classes by id: the 64-bit file
                     * loads 57 class ids twice (531 records, 474 classes) */
                    GHashTable *ids = g_hash_table_new(g_direct_hash, g_direct_equal);
                    for (guint i = 0; i < hd->load_classes->len; i++)
                        g_hash_table_add(ids, GSIZE_TO_POINTER(
                            g_array_index(hd->load_classes, hprof_load_class, i).class_id));
                    got = g_hash_table_size(ids);
                    g_hash_table_destroy(ids);
                }
                if (want != got)
                    fail_msg("%s: %s: slurp %" G_GUINT64_FORMAT ", heapfs %" G_GUINT64_FORMAT,
                             bin, slurp_keys[k].slurp, (guint64)want, (guint64)got);
                found = true;
                checked++;
                break;
            }
        assert_true(found);
        g_free(prefix);
    }
    /* Top 20 per-class instance counts.  Two naming quirks of hprof-slurp:
     * it labels an object array with its array class's name, cleaned, plus
     * "[]".  In the 64-bit file array classes are named as descriptors
     * ("[Ljava/lang/Object;" -> "java.lang.Object[]", ours too); the 32-bit
     * file already names them "java.lang.Object[]", which slurp turns into
     * "java.lang.Object[][]" for the same instances, so one "[]" is dropped
     * there (its top 20 holds no real 2-D object array);
     * and its java.lang.Class counts only INSTANCE DUMPs of that class,
     * where we add one instance per CLASS DUMP (class objects are objects).
     * Primitive array names (char[]) agree as they are. */
    const hf_hsnap *sn = hf_heap_snap(&hd->heap, 0);
    int rows = 0;
    bool in_table = false;
    for (char **l = lines; *l; l++) {
        if (g_str_has_prefix(*l, "Top 20 raw shallow heap classes")) {
            in_table = true;
            continue;
        }
        if (!in_table)
            continue;
        if (g_str_has_prefix(*l, "Top 20 largest"))
            break;
        char **cols = g_strsplit(*l, "|", -1);
        if (g_strv_length(cols) == 6 && g_ascii_isdigit(g_strstrip(cols[2])[0])) {
            uint64_t want = g_ascii_strtoull(cols[2], NULL, 10);
            char *name = g_strdup(g_strstrip(cols[4]));
            size_t nl = strlen(name);
            if (extra_array_suffix && nl > 4 && strcmp(name + nl - 4, "[][]") == 0)
                name[nl - 2] = '\0';
            int64_t c = d->ops->class_find(d, 0, name);
            if (c < 0)
                fail_msg("%s: no class %s", bin, name);
            uint64_t got = hf_heap_class(sn, (uint64_t)c)->count;
            if (strcmp(name, "java.lang.Class") == 0)
                got -= hd->n_sub[HPROF_GC_CLASS_DUMP];
            if (got != want)
                fail_msg("%s: %s: slurp %" G_GUINT64_FORMAT " instances, heapfs %" G_GUINT64_FORMAT,
                         bin, name, (guint64)want, (guint64)got);
            rows++;
            g_free(name);
        }
        g_strfreev(cols);
    }
    assert_int_equal(rows, 20);
    assert_int_equal(checked, G_N_ELEMENTS(slurp_keys));
    g_strfreev(lines);
    g_free(text);
    hf_dump_close(d);
}

static void test_slurp_32(void **state)
{
    char *bin = th_corpus("hprof", "slurp_hprof-32.bin");
    char *result = th_corpus("hprof", "slurp_hprof-32-result.txt");
    check_slurp(bin, result, true);
    g_free(bin);
    g_free(result);
}

static void test_slurp_64(void **state)
{
    char *bin = th_corpus("hprof", "slurp_hprof-64.bin");
    char *result = th_corpus("hprof", "slurp_hprof-64-result.txt");
    check_slurp(bin, result, false);
    g_free(bin);
    g_free(result);
}

/* Android: 1.0.3 with heap names. */
static void test_android(void **state)
{
    GError *e = NULL;
    char *p = th_corpus("hprof", "leakcanary_leak_service_binder.hprof");
    hf_dump *d = hf_open(p, NULL, &e);
    g_free(p);
    if (!d)
        skip();
    char *info = th_snap_file(d, 0, "info");
    assert_non_null(strstr(info, "heaps: "));
    assert_non_null(strstr(info, "app"));
    g_free(info);
    hf_dump_close(d);
}

int main(void)
{
    th_set_budget(16);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_opens),
        cmocka_unit_test(test_slurp_32),
        cmocka_unit_test(test_slurp_64),
        cmocka_unit_test(test_android),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
