/*
 * test_pprof.c - the heap.pprof / stacks.folded writer.
 *
 * Checks the exact text, the name rewrites, merging, budgeted rendering
 * (pieces concatenate to the whole), and, when /usr/bin/google-pprof is
 * installed, that google-pprof --text reads the file with no binary, names
 * the frames and reports the totals written.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/core/model.h"
#include "decoders/pprof/pprof.h"

#include <stdio.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

static hf_pprof *sample_profile(void)
{
    hf_pprof *p = hf_pprof_new("java");
    const char *a[] = {"java.util.ArrayList.<init>(ArrayList.java:12)", "Main.main(Main.java:3)"};
    const char *b[] = {"Main.run(Main.java:9)", "Main.main(Main.java:3)"};
    hf_pprof_values va = {2, 200, 5, 500};
    hf_pprof_values vb = {1, 4096, 1, 4096};
    hf_pprof_add(p, a, 2, &va);
    hf_pprof_add(p, b, 2, &vb);
    hf_pprof_add(p, a, 2, &va); /* merges with the first */
    return p;
}

static char *render_all(const hf_pprof *p)
{
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_pprof_render(p, 0, s, SIZE_MAX), HF_DONE);
    return g_string_free(s, FALSE);
}

static void test_exact_text(void **state)
{
    hf_pprof *p = sample_profile();
    char *text = render_all(p);
    assert_string_equal(text, "--- symbol\n"
                              "binary=java\n"
                              "0x0000000000100000 java.util.ArrayList.[init](ArrayList.java:12)\n"
                              "0x0000000000100010 Main.main(Main.java:3)\n"
                              "0x0000000000100020 Main.run(Main.java:9)\n"
                              "---\n"
                              "heap profile:      5:     4496 [    11:     5096] @ heapprofile\n"
                              "     4:      400 [    10:     1000] @ 0x0000000000100000 "
                              "0x0000000000100010\n"
                              "     1:     4096 [     1:     4096] @ 0x0000000000100020 "
                              "0x0000000000100010\n");
    hf_pprof_values t;
    hf_pprof_totals(p, &t);
    assert_int_equal(t.inuse_bytes, 4496);
    assert_int_equal(t.alloc_objects, 11);
    assert_int_equal(hf_pprof_n_stacks(p), 2);
    assert_int_equal(hf_pprof_n_frames(p), 3);
    g_free(text);
    hf_pprof_free(p);
}

static void test_folded(void **state)
{
    hf_pprof *p = sample_profile();
    const char *c[] = {"only;alloc"};
    hf_pprof_values vc = {0, 0, 3, 30};
    hf_pprof_add(p, c, 1, &vc);
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_pprof_render_folded(p, HF_PPROF_INUSE_BYTES, 0, s, SIZE_MAX), HF_DONE);
    assert_string_equal(s->str, "Main.main(Main.java:3);java.util.ArrayList.<init>(ArrayList.java:12) 400\n"
                                "Main.main(Main.java:3);Main.run(Main.java:9) 4096\n");
    g_string_truncate(s, 0);
    hf_pprof_render_folded(p, HF_PPROF_ALLOC_OBJECTS, 0, s, SIZE_MAX);
    assert_non_null(strstr(s->str, "\nonly:alloc 3\n"));
    g_string_free(s, TRUE);
    hf_pprof_free(p);
}

static void test_names(void **state)
{
    static const struct {
        const char *in, *sym, *folded;
    } cases[] = {
        {"Foo.<clinit>", "Foo.[clinit]", "Foo.<clinit>"},
        {"<init>", "[init]", "<init>"},
        {"std::vector<int>::push_back", "std::vector<int>::push_back",
         "std::vector<int>::push_back"},
        {"Foo::operator--()", "Foo::operator- -()", "Foo::operator--()"},
        {"  a\tb\n ", "a b", "  a b  "},
        {"", "[unnamed]", "[unnamed]"},
        {" \t", "[unnamed]", "  "},
        {"x;y", "x;y", "x:y"},
        {"Foo.<bar", "Foo.<bar", "Foo.<bar"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GString *a = g_string_new(NULL), *b = g_string_new(NULL);
        hf_pprof_append_symbol(a, cases[i].in);
        hf_pprof_append_folded_frame(b, cases[i].in);
        assert_string_equal(a->str, cases[i].sym);
        assert_string_equal(b->str, cases[i].folded);
        g_string_free(a, TRUE);
        g_string_free(b, TRUE);
    }
}

static void test_empty_stack_and_empty_profile(void **state)
{
    hf_pprof *p = hf_pprof_new(NULL);
    char *text = render_all(p);
    assert_string_equal(text, "--- symbol\nbinary=heapfs\n---\n"
                              "heap profile:      0:        0 [     0:        0] @ heapprofile\n");
    g_free(text);
    hf_pprof_values v = {1, 8, 1, 8};
    hf_pprof_add(p, NULL, 0, &v);
    text = render_all(p);
    assert_non_null(strstr(text, "0x0000000000100000 [no stack]\n"));
    assert_non_null(strstr(text, "@ 0x0000000000100000\n"));
    g_free(text);
    hf_pprof_free(p);
}

/* keep_lines: no merging, the given kind, empty stacks stay empty. */
static void test_keep_lines(void **state)
{
    hf_pprof_opts o = {"prog", "heapz_v2/524288", true};
    hf_pprof *p = hf_pprof_new_opts(&o);
    const char *a[] = {"f", "main"};
    hf_pprof_values v = {1, 100, 1, 100};
    hf_pprof_add(p, a, 2, &v);
    hf_pprof_add(p, a, 2, &v);
    hf_pprof_add(p, NULL, 0, &v);
    char *text = render_all(p);
    assert_string_equal(text, "--- symbol\nbinary=prog\n"
                              "0x0000000000100000 f\n"
                              "0x0000000000100010 main\n"
                              "---\n"
                              "heap profile:      3:      300 [     3:      300] @ heapz_v2/524288\n"
                              "     1:      100 [     1:      100] @ 0x0000000000100000 0x0000000000100010\n"
                              "     1:      100 [     1:      100] @ 0x0000000000100000 0x0000000000100010\n"
                              "     1:      100 [     1:      100] @\n");
    assert_int_equal(hf_pprof_n_stacks(p), 3);
    g_free(text);
    hf_pprof_free(p);
}

/* Pieces rendered with a tiny budget concatenate to the whole, and the same
 * `first` always gives the same bytes. */
static void test_budget(void **state)
{
    hf_pprof *p = hf_pprof_new("x");
    for (int i = 0; i < 200; i++) {
        char f0[32], f1[32];
        snprintf(f0, sizeof f0, "leaf%d", i % 37);
        snprintf(f1, sizeof f1, "root%d", i % 5);
        const char *fr[] = {f0, f1};
        hf_pprof_values v = {(uint64_t)i, (uint64_t)i * 10, (uint64_t)i + 1, (uint64_t)i * 20};
        hf_pprof_add(p, fr, 2, &v);
    }
    char *whole = render_all(p);
    GString *pieces = g_string_new(NULL);
    uint64_t next = 0;
    int calls = 0;
    while (next != HF_DONE) {
        GString *again = g_string_new(NULL);
        size_t before = pieces->len;
        uint64_t n2 = hf_pprof_render(p, next, again, 100);
        next = hf_pprof_render(p, next, pieces, 100);
        assert_int_equal(n2, next);
        assert_string_equal(again->str, pieces->str + before);
        g_string_free(again, TRUE);
        calls++;
    }
    assert_true(calls > 10);
    assert_string_equal(pieces->str, whole);

    GString *fw = g_string_new(NULL), *fp = g_string_new(NULL);
    hf_pprof_render_folded(p, HF_PPROF_ALLOC_BYTES, 0, fw, SIZE_MAX);
    for (next = 0; next != HF_DONE;)
        next = hf_pprof_render_folded(p, HF_PPROF_ALLOC_BYTES, next, fp, 50);
    assert_string_equal(fw->str, fp->str);
    g_string_free(fw, TRUE);
    g_string_free(fp, TRUE);
    g_string_free(pieces, TRUE);
    g_free(whole);
    hf_pprof_free(p);
}

/* google-pprof reads the file with no binary and sums to our totals. */
static char *run_pprof(const char *file, const char *opt1, const char *opt2)
{
    const char *argv[] = {"/usr/bin/google-pprof", "--text", opt1, opt2, file, NULL};
    if (!opt2) {
        argv[3] = file;
        argv[4] = NULL;
    }
    char *out = NULL;
    gint status = 0;
    gboolean ok = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, &out, NULL, &status, NULL);
    assert_true(ok);
    return out;
}

static void test_google_pprof(void **state)
{
    if (access("/usr/bin/google-pprof", X_OK) != 0) {
        print_message("google-pprof not installed (package google-perftools): skipped\n");
        skip();
    }
    hf_pprof *p = sample_profile();
    char *text = render_all(p);
    char *file = th_write_temp(text, strlen(text));

    char *o = run_pprof(file, "--inuse_objects", NULL);
    assert_non_null(strstr(o, "Total: 5 objects"));
    assert_non_null(strstr(o, "java.util.ArrayList.[init]\n"));
    assert_non_null(strstr(o, "Main.run\n"));
    assert_non_null(strstr(o, "Main.main\n"));
    g_free(o);
    o = run_pprof(file, "--show_bytes", "--inuse_space");
    assert_non_null(strstr(o, "Total: 4496 B"));
    g_free(o);
    o = run_pprof(file, "--alloc_objects", NULL);
    assert_non_null(strstr(o, "Total: 11 objects"));
    g_free(o);
    o = run_pprof(file, "--show_bytes", "--alloc_space");
    assert_non_null(strstr(o, "Total: 5096 B"));
    g_free(o);

    unlink(file);
    g_free(file);
    g_free(text);
    hf_pprof_free(p);
}

/* ---- heap.pprof of every format ---- */

static uint64_t info_value(const char *info, const char *key)
{
    const char *p = strstr(info, key);
    return p ? g_ascii_strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

static void check_dump(const char *path, bool have_pprof, unsigned *checked)
{
    GError *e = NULL;
    hf_dump *d = hf_open(path, NULL, &e);
    if (!d) {
        g_clear_error(&e);
        return; /* not a dump (a corpus oracle file) */
    }
    for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
        const hf_file *files = d->ops->snapshot.files;
        bool sites = th_has_file(d, files, s, 0, "sites");
        if (!th_has_file(d, files, s, 0, "heap.pprof"))
            continue;
        assert_true(th_has_file(d, files, s, 0, "stacks.folded"));
        int pp = th_file_index(files, "heap.pprof");
        char *text = th_render_chunked(d, files[pp].render,
                                       (hf_view){.snap = s, .file = (uint32_t)pp}, 512);
        const char *hdr = strstr(text, "\nheap profile:");
        assert_non_null(hdr);
        uint64_t t[4];
        char kind[64] = "";
        assert_int_equal(sscanf(hdr, "\nheap profile: %" SCNu64 ": %" SCNu64 " [%" SCNu64
                                     ": %" SCNu64 "] @ %63s",
                                t, t + 1, t + 2, t + 3, kind),
                         5);
        char *info = th_snap_file(d, s, "info");
        assert_non_null(info);
        if (strcmp(d->ops->format, "hprof") == 0) {
            if (!sites) { /* live objects: the snapshot's objects and bytes */
                assert_int_equal(t[0], info_value(info, "\nobjects: "));
                assert_int_equal(t[1], info_value(info, "\nbytes: "));
            } else { /* the ALLOC SITES record's totals */
                hprof_dump *hd = (hprof_dump *)d;
                for (guint i = 0; i < hd->sites->len; i++) {
                    uint64_t off = g_array_index(hd->sites, uint64_t, i);
                    hprof_sites st;
                    assert_true(hprof_parse_alloc_sites(hd->heap.base.data + off,
                                                        hprof_u4(hd->heap.base.data + off - 4),
                                                        hd->heap.id_size, &st));
                    assert_int_equal(t[0], st.live_instances);
                    assert_int_equal(t[1], st.live_bytes);
                    assert_int_equal(t[2], st.alloc_instances);
                    assert_int_equal(t[3], st.alloc_bytes);
                }
            }
        } else if (strcmp(d->ops->format, "hprof-text") == 0) {
            if (sites) {
                assert_int_equal(t[0], info_value(info, "live objects: "));
                assert_int_equal(t[1], info_value(info, "live bytes: "));
                assert_int_equal(t[3], info_value(info, "allocated bytes: "));
            } else {
                assert_int_equal(t[0], info_value(info, "\nobjects: "));
                assert_int_equal(t[1], info_value(info, "\nbytes: "));
            }
        } else if (strcmp(d->ops->format, "v8") == 0) { /* every node, live */
            assert_int_equal(t[0], info_value(info, "\nobjects: "));
            assert_int_equal(t[1], info_value(info, "\nbytes: "));
        }
        if (strcmp(kind, "heapprofile") == 0) { /* folded: the same in-use bytes */
            char *f = th_snap_file(d, s, "stacks.folded");
            uint64_t sum = 0;
            for (char *l = f; *l;) {
                char *nl = strchr(l, '\n');
                assert_non_null(nl);
                char *sp = nl;
                while (sp > l && sp[-1] != ' ')
                    sp--;
                assert_true(sp > l + 1);
                sum += g_ascii_strtoull(sp, NULL, 10);
                l = nl + 1;
            }
            assert_int_equal(sum, t[1]);
            g_free(f);
        }
        if (have_pprof) {
            char *file = th_write_temp(text, strlen(text));
            if (strcmp(kind, "heapprofile") == 0) {
                char *o = run_pprof(file, "--show_bytes", "--inuse_space");
                char *want = g_strdup_printf("Total: %" PRIu64 " B\n", t[1]);
                if (!g_str_has_prefix(o, want))
                    fail_msg("%s snapshot %u: google-pprof says %.40s, header %s", path, s + 1, o,
                             want);
                g_free(want);
                g_free(o);
                o = run_pprof(file, "--alloc_objects", NULL);
                want = g_strdup_printf("Total: %" PRIu64 " objects\n", t[2]);
                assert_true(g_str_has_prefix(o, want));
                g_free(want);
                g_free(o);
            }
            unlink(file);
            g_free(file);
        }
        g_free(info);
        g_free(text);
        (*checked)++;
    }
    hf_dump_close(d);
}

static void test_every_format(void **state)
{
    bool have_pprof = access("/usr/bin/google-pprof", X_OK) == 0;
    unsigned checked = 0;
    const char *subdirs[] = {"hprof", "hprof-txt", "pprof-heap", "bmd", "v8"};
    for (size_t i = 0; i < G_N_ELEMENTS(subdirs); i++) {
        char *sub = th_corpus(subdirs[i], NULL);
        GDir *gd = g_dir_open(sub, 0, NULL);
        const char *name;
        while (gd && (name = g_dir_read_name(gd))) {
            char *p = g_build_filename(sub, name, NULL);
            check_dump(p, have_pprof, &checked);
            g_free(p);
        }
        if (gd)
            g_dir_close(gd);
        g_free(sub);
    }
    print_message("heap.pprof checked in %u snapshots\n", checked);
    assert_true(checked >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_folded),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_empty_stack_and_empty_profile),
        cmocka_unit_test(test_keep_lines),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_google_pprof),
        cmocka_unit_test(test_every_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
