/*
 * test_gperf.c - the gperftools heap profile decoder.
 *
 * Oracles: google/pprof's .heap.string files (their expected decode of the
 * same profiles: scaled values per line, stack addresses), the header
 * totals of gperftools' own files, and Debian's google-pprof reading the
 * original and our heap.pprof (skipped when not installed).  Symbolization
 * is checked on a profile made here of this very program's PCs with its
 * own /proc/self/maps.
 */
#include "decoders/gperf/gperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

static char *corpus(const char *name)
{
    return th_corpus("pprof-heap", name);
}

static gperf_dump *open_corpus(const char *name)
{
    char *p = corpus(name);
    GError *e = NULL;
    hf_dump *d = hf_open(p, NULL, &e);
    if (!d)
        fail_msg("%s: %s", p, e ? e->message : "?");
    assert_string_equal(d->ops->format, "gperftools");
    g_free(p);
    return (gperf_dump *)d;
}

static gperf_snap *snap0(gperf_dump *g)
{
    return &g_array_index(g->snaps, gperf_snap, 0);
}

/* ---- sampling rule ---- */

static void test_scale(void **state)
{
    uint64_t c, b;
    gperf_scale(1, 9216, 524288, &c, &b); /* cppbench line 1: .heap.string 57 528909 */
    assert_int_equal(c, 57);
    assert_int_equal(b, 528909);
    gperf_scale(0, 0, 524288, &c, &b);
    assert_int_equal(c, 0);
    assert_int_equal(b, 0);
    gperf_scale(3, 300, 1, &c, &b);
    assert_int_equal(c, 3);
    assert_int_equal(b, 300);
    gperf_scale(5, 0, 524288, &c, &b);
    assert_int_equal(c, 0);
    /* Hostile values scale past 2^64: clamped, not undefined (found by the
     * fuzz smoke with the dump changing underneath). */
    gperf_scale(UINT64_C(1) << 63, UINT64_C(1) << 63, UINT64_C(1) << 40, &c, &b);
    assert_true(c == UINT64_MAX && b == UINT64_MAX);

    uint64_t rate;
    bool same;
    assert_true(gperf_kind_rate("heapz_v2/524288", &rate, &same));
    assert_int_equal(rate, 524288);
    assert_true(same);
    assert_true(gperf_kind_rate("heap/1048576", &rate, &same));
    assert_int_equal(rate, 524288);
    assert_false(same);
    assert_true(gperf_kind_rate("heapprofile", &rate, &same));
    assert_int_equal(rate, 0);
    assert_true(gperf_kind_rate("growthz", &rate, &same));
    assert_false(gperf_kind_rate("heap_v9/5", &rate, &same));
    assert_int_equal(rate, 0);
}

/* ---- google/pprof's expected decode ---- */

typedef struct {
    GArray *vals;  /* uint64_t, n_vals per sample */
    GArray *locs;  /* per sample: GArray of uint64 addresses */
    int n_vals;
} heap_string;

static void hs_free(heap_string *h)
{
    g_array_free(h->vals, TRUE);
    for (guint i = 0; i < h->locs->len; i++)
        g_array_free(g_array_index(h->locs, GArray *, i), TRUE);
    g_array_free(h->locs, TRUE);
}

/* Reads the Samples (values, location ids) and Locations (id -> address)
 * sections of a .heap.string file. */
static heap_string hs_read(const char *name)
{
    char *p = corpus(name), *text = NULL;
    assert_true(g_file_get_contents(p, &text, NULL, NULL));
    g_free(p);
    heap_string h = {g_array_new(FALSE, FALSE, 8), g_array_new(FALSE, FALSE, sizeof(GArray *)), 0};
    GHashTable *addr = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    char **lines = g_strsplit(text, "\n", -1);
    int sec = 0;
    for (char **l = lines; *l; l++) {
        if (g_str_has_prefix(*l, "Samples:")) {
            sec = 1;
            continue;
        }
        if (g_str_has_prefix(*l, "Locations")) {
            sec = 2;
            continue;
        }
        if (g_str_has_prefix(*l, "Mappings")) {
            sec = 3;
            continue;
        }
        if (sec == 1 && strchr(*l, '/') && !strchr(*l, ':')) {
            char **w = g_strsplit_set(g_strstrip(*l), " ", -1);
            h.n_vals = 0;
            for (char **x = w; *x; x++)
                h.n_vals += **x != 0;
            g_strfreev(w);
            continue;
        }
        if (sec == 1 && strchr(*l, ':') && !strstr(*l, "bytes:[")) {
            char *colon = strchr(*l, ':');
            *colon = 0;
            char **w = g_strsplit_set(*l, " ", -1);
            for (char **x = w; *x; x++)
                if (**x) {
                    uint64_t v = g_ascii_strtoull(*x, NULL, 10);
                    g_array_append_val(h.vals, v);
                }
            g_strfreev(w);
            g_ptr_array_add(ids, g_strdup(colon + 1));
        }
        if (sec == 2 && strchr(*l, ':') && strstr(*l, "0x")) {
            uint64_t *k = g_new(uint64_t, 1), *v = g_new(uint64_t, 1);
            *k = g_ascii_strtoull(*l, NULL, 10);
            *v = g_ascii_strtoull(strstr(*l, "0x") + 2, NULL, 16);
            g_hash_table_insert(addr, k, v);
        }
    }
    for (guint i = 0; i < ids->len; i++) {
        GArray *a = g_array_new(FALSE, FALSE, 8);
        char **w = g_strsplit(g_strstrip(ids->pdata[i]), " ", -1);
        for (char **x = w; *x; x++) {
            if (!**x)
                continue;
            uint64_t id = g_ascii_strtoull(*x, NULL, 10);
            uint64_t *v = g_hash_table_lookup(addr, &id);
            assert_non_null(v);
            g_array_append_val(a, *v);
        }
        g_strfreev(w);
        g_array_append_val(h.locs, a);
    }
    g_ptr_array_free(ids, TRUE);
    g_strfreev(lines);
    g_hash_table_destroy(addr);
    g_free(text);
    return h;
}

/* Every line: the scaled values and the stack (google/pprof shows each
 * address minus 1) equal google/pprof's. */
static void check_heap_string(const char *profile, const char *expected, bool has_alloc)
{
    gperf_dump *g = open_corpus(profile);
    heap_string h = hs_read(expected);
    gperf_snap *sn = snap0(g);
    assert_int_equal(h.locs->len, sn->lines->len);
    assert_int_equal(h.n_vals, has_alloc ? 4 : 2);
    for (guint i = 0; i < sn->lines->len; i++) {
        const gperf_line *ln = &g_array_index(sn->lines, gperf_line, i);
        const uint64_t *v = &g_array_index(h.vals, uint64_t, i * h.n_vals);
        if (has_alloc) { /* alloc_objects alloc_space inuse_objects inuse_space */
            assert_int_equal(ln->scaled[GP_AL_OBJ], v[0]);
            assert_int_equal(ln->scaled[GP_AL_BYTES], v[1]);
            assert_int_equal(ln->scaled[GP_IN_OBJ], v[2]);
            assert_int_equal(ln->scaled[GP_IN_BYTES], v[3]);
        } else { /* objects space */
            assert_int_equal(ln->scaled[GP_IN_OBJ], v[0]);
            assert_int_equal(ln->scaled[GP_IN_BYTES], v[1]);
        }
        GArray *want = g_array_index(h.locs, GArray *, i);
        const gperf_trace *t = &g_array_index(g->traces, gperf_trace, ln->trace);
        assert_int_equal(t->n, want->len);
        for (uint32_t k = 0; k < t->n; k++)
            assert_int_equal(g_array_index(g->pcs, uint64_t, t->first + k) - 1,
                             g_array_index(want, uint64_t, k));
    }
    hs_free(&h);
    hf_dump_close(&g->base);
}

static void test_heap_string_cppbench(void **state)
{
    check_heap_string("googlepprof_cppbench.heap", "googlepprof_cppbench.heap.string", false);
}

static void test_heap_string_gobench(void **state)
{
    check_heap_string("googlepprof_gobench.heap", "googlepprof_gobench.heap.string", true);
}

/* ---- every corpus file ---- */

static void test_corpus_all(void **state)
{
    static const struct {
        const char *file, *kind;
        unsigned problems, lines, n_maps;
    } cases[] = {
        {"googlepprof_cppbench.heap", "heapz_v2/524288", 0, 31, 12},
        {"googlepprof_cppbench.growth", "growthz", 0, 85, 12},
        /* Go writes MemStats totals in the header and no memory map. */
        {"googlepprof_gobench.heap", "heap/1048576", 2, 15, 0},
        {"local_tcmalloc_hp.0001.heap", "heapprofile", 0, 3, 64},
        {"local_tcmalloc_hp.0002.heap", "heapprofile", 0, 4, 64},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        gperf_dump *g = open_corpus(cases[i].file);
        gperf_snap *sn = snap0(g);
        assert_string_equal(sn->kind, cases[i].kind);
        assert_int_equal(g->base.problems->len, cases[i].problems);
        assert_int_equal(sn->lines->len, cases[i].lines);
        assert_int_equal(sn->n_maps, cases[i].n_maps);
        if (cases[i].problems == 0) /* header totals = sum of the lines */
            assert_memory_equal(sn->header, sn->sum_raw, sizeof sn->header);
        /* Every view renders, and in small pieces gives the same bytes. */
        const hf_file *files = g->base.ops->snapshot.files;
        for (uint32_t f = 0; f < th_n_files(files); f++) {
            if (!th_has_file(&g->base, files, 0, 0, files[f].name))
                continue;
            char *whole = th_render_chunked(&g->base, files[f].render, (hf_view){.file = f}, 64);
            assert_true(strlen(whole) > 0);
            g_free(whole);
        }
        /* maps: only with a memory map */
        assert_int_equal(th_has_file(&g->base, files, 0, 0, "maps"), cases[i].n_maps > 0);
        for (uint64_t t = 0; t < g->base.ops->n_traces(&g->base); t++) {
            char *s = th_trace(&g->base, t);
            char want[32];
            snprintf(want, sizeof want, "TRACE %" G_GUINT64_FORMAT ":\n", t + 1);
            assert_true(g_str_has_prefix(s, want));
            g_free(s);
        }
        hf_dump_close(&g->base);
    }
}

static void test_gobench_problems(void **state)
{
    gperf_dump *g = open_corpus("googlepprof_gobench.heap");
    GPtrArray *p = g->base.problems;
    assert_non_null(strstr(p->pdata[0], "no memory map trailer"));
    assert_non_null(strstr(p->pdata[1], "disagree with the sum of the lines"));
    char *sites = th_snap_file(&g->base, 0, "sites");
    /* the line with no stack ("1: 288 [2: 296] @") is kept */
    assert_non_null(strstr(sites, "\t1820\t524432\t7085\t1048724\t<empty>\n"));
    g_free(sites);
    hf_dump_close(&g->base);
}

/* ---- a series ---- */

/* The files as a mount opens them: one dump, or NULL with *err set. */
static hf_dump *open_series(const char *const *paths, int n, GError **err)
{
    GPtrArray *got = g_ptr_array_new();
    hf_dump *d = NULL;
    if (hf_open_files(paths, n, NULL, got, err)) {
        assert_int_equal(got->len, 1); /* a series is one dump */
        d = g_ptr_array_index(got, 0);
    }
    g_ptr_array_free(got, TRUE);
    return d;
}

static void test_series(void **state)
{
    char *a = corpus("local_tcmalloc_hp.0001.heap"), *b = corpus("local_tcmalloc_hp.0002.heap");
    const char *paths[] = {a, b};
    GError *e = NULL;
    hf_dump *d = open_series(paths, 2, &e);
    assert_non_null(d);
    assert_int_equal(d->ops->n_snapshots(d), 2);
    assert_int_equal(d->ops->snapshot_number(d, 1), 2);
    assert_int_equal(d->ops->n_traces(d), 4); /* 3 shared + 1 new */
    char *s1 = th_snap_file(d, 0, "sites"), *s2 = th_snap_file(d, 1, "sites");
    /* snapshot 2 = snapshot 1 plus one line for the new trace 4 */
    assert_true(g_str_has_prefix(s2, s1));
    assert_true(g_str_has_prefix(s2 + strlen(s1), "4\t1\t4096\t"));
    g_free(s1);
    g_free(s2);
    char *info = th_info(d);
    assert_non_null(strstr(info, "snapshots: 2\n"));
    g_free(info);
    hf_dump_close(d);

    /* a series whose second file is not a profile is refused, clearly */
    char *bad = th_write_temp("hello\n", 6);
    const char *paths2[] = {a, bad};
    d = open_series(paths2, 2, &e);
    assert_null(d);
    assert_non_null(e);
    g_clear_error(&e);
    unlink(bad);
    g_free(bad);
    g_free(a);
    g_free(b);
}

/* ---- malformed input ---- */

static hf_dump *open_text(const char *text, char **file)
{
    *file = th_write_temp(text, strlen(text));
    GError *e = NULL;
    hf_dump *d = hf_open(*file, NULL, &e);
    g_clear_error(&e);
    return d;
}

static void test_malformed(void **state)
{
    char *file;
    hf_dump *d = open_text("heap profile:    3:   300 [   9:   900] @ heapprofile\n"
                           "     1:   100 [   2:   200] @ 0x10 0x20\n"
                           "  garbage here\n"
                           "     1:   100 [   2: ] @ 0x10\n"
                           "     1:   100 [   2:   200] @ 0x10 0xzz\n"
                           "     1:   100 [   2:   200] @ 0x30\n",
                           &file);
    assert_non_null(d);
    gperf_snap *sn = snap0((gperf_dump *)d);
    assert_int_equal(sn->lines->len, 2);
    char *all = th_problems(d);
    assert_non_null(strstr(all, "line 3: malformed line"));
    assert_non_null(strstr(all, "line 4: malformed line"));
    assert_non_null(strstr(all, "line 5: bad address \"0xzz\""));
    assert_non_null(strstr(all, "no memory map trailer"));
    assert_non_null(strstr(all, "header totals 3: 300 [9: 900] disagree with the sum of the "
                                "lines 2: 200 [4: 400]"));
    g_free(all);
    hf_dump_close(d);
    unlink(file);
    g_free(file);

    /* not a profile at all: refused with one line */
    char *f2 = th_write_temp("--- symbol\nbinary=x\n---\nnothing\n", 33);
    GError *e = NULL;
    assert_null(hf_open(f2, NULL, &e));
    assert_non_null(e);
    g_clear_error(&e);
    unlink(f2);
    g_free(f2);
}

/* Every prefix of a real profile (a truncated file) opens or is refused
 * cleanly, and renders; sanitizers catch what a bare run would not. */
static void test_truncations(void **state)
{
    char *p = corpus("local_tcmalloc_hp.0002.heap"), *text = NULL;
    size_t len = 0;
    assert_true(g_file_get_contents(p, &text, &len, NULL));
    for (size_t cut = 0; cut < len; cut += (cut < 800 ? 1 : 97)) {
        char *file = th_write_temp(text, cut);
        GError *e = NULL;
        hf_dump *d = cut ? hf_open(file, NULL, &e) : NULL;
        if (d) {
            th_render_node(d, d->ops->snapshot.files, 0, 0, 100);
            hf_dump_close(d);
        }
        g_clear_error(&e);
        unlink(file);
        g_free(file);
    }
    g_free(text);
    g_free(p);
}

/* ---- symbolization, on this program's own PCs ---- */

/* A function whose code is surely longer than 4 bytes. */
__attribute__((noinline)) static uint64_t a_known_function(volatile uint64_t *x)
{
    uint64_t s = 0;
    for (int i = 0; i < 10; i++)
        s += x[i] * (uint64_t)i;
    return s;
}

static void test_symbolize_self(void **state)
{
    volatile uint64_t x[10] = {1};
    assert_int_equal(a_known_function(x), 0);
    /* A PC 2 bytes into the function: as the leaf it is looked up as is,
     * as a caller at PC - 1; both lie inside. */
    uint64_t pc = (uint64_t)(uintptr_t)&a_known_function + 2;
    char *maps = NULL;
    assert_true(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
    GString *prof = g_string_new(NULL);
    g_string_append_printf(prof,
                           "heap profile:    1:   64 [   1:   64] @ heapprofile\n"
                           "     1:   64 [   1:   64] @ 0x%" G_GINT64_MODIFIER "x 0x%"
                           G_GINT64_MODIFIER "x\n\nMAPPED_LIBRARIES:\n%s",
                           pc, pc, maps);
    char *file;
    hf_dump *d = open_text(prof->str, &file);
    assert_non_null(d);
    assert_int_equal(d->problems->len, 0);
    char *t = th_trace(d, 0);
    /* leaf: the PC itself; caller: PC - 1, both inside a_known_function */
    assert_non_null(strstr(t, "\ta_known_function(test_gperf.c:"));
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    assert_non_null(strstr(t, exe));
    char *pp = th_snap_file(d, 0, "heap.pprof");
    assert_non_null(strstr(pp, " a_known_function(test_gperf.c:"));
    char *fold = th_snap_file(d, 0, "stacks.folded");
    assert_string_equal(fold, "a_known_function;a_known_function 64\n");
    g_free(fold);
    g_free(pp);
    g_free(exe);
    g_free(t);
    hf_dump_close(d);
    unlink(file);
    g_free(file);
    g_string_free(prof, TRUE);
    g_free(maps);

    /* a mapping whose offset fits no segment of the file: not trusted */
    hf_mapping m;
    assert_true(hf_mapping_parse("00400000-00500000 r-xp 00abc000 08:01 12 /proc/self/exe", NULL, &m));
    hf_symbolizer *s = hf_sym_new();
    hf_frame_info fi;
    hf_sym_lookup(s, &m, 1, 0x400100, false, &fi);
    assert_null(fi.func);
    assert_string_equal(fi.lib, "/proc/self/exe");
    assert_int_equal(fi.off, 0xabc100);
    hf_sym_free(s);
    g_free((char *)m.path);
}

static void test_mapping_parse(void **state)
{
    hf_mapping m;
    GHashTable *vars = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(vars, "source", "/home");
    assert_true(hf_mapping_parse("  00400000-00fcb000: $source/cppbench_server_main", vars, &m));
    assert_int_equal(m.start, 0x400000);
    assert_int_equal(m.end, 0xfcb000);
    assert_false(m.has_offset);
    assert_string_equal(m.path, "/home/cppbench_server_main");
    g_free((char *)m.path);
    assert_true(hf_mapping_parse("7f4fea244000-7f4fea39a000 r-xp 00026000 00:00 332835      "
                                 "/usr/lib/x86_64-linux-gnu/libc.so.6",
                                 NULL, &m));
    assert_true(m.has_offset);
    assert_string_equal(m.perms, "r-xp");
    assert_int_equal(m.offset, 0x26000);
    assert_int_equal(m.inode, 332835);
    g_free((char *)m.path);
    assert_true(hf_mapping_parse("7f4fea214000-7f4fea21e000 rw-p 00000000 00:00 0 ", NULL, &m));
    assert_null(m.path);
    assert_false(hf_mapping_parse("hello", NULL, &m));
    assert_false(hf_mapping_parse("10-5 r-xp 0 0 0 x", NULL, &m));
    g_hash_table_destroy(vars);
}

/* ---- google-pprof: totals of the original and of heap.pprof ---- */

static char *pprof_totals(const char *file, bool with_binary)
{
    GString *all = g_string_new(NULL);
    const char *opts[][2] = {{"--inuse_objects", NULL},
                             {"--show_bytes", "--inuse_space"},
                             {"--alloc_objects", NULL},
                             {"--show_bytes", "--alloc_space"}};
    for (int i = 0; i < 4; i++) {
        const char *argv[8];
        int n = 0;
        argv[n++] = "/usr/bin/google-pprof";
        argv[n++] = "--text";
        argv[n++] = opts[i][0];
        if (opts[i][1])
            argv[n++] = opts[i][1];
        if (with_binary)
            argv[n++] = "/bin/true";
        argv[n++] = file;
        argv[n] = NULL;
        char *out = NULL;
        gint status;
        assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                 NULL, &out, NULL, &status, NULL));
        char *nl = strchr(out, '\n');
        if (nl)
            *nl = 0;
        g_string_append_printf(all, "%s; ", out);
        g_free(out);
    }
    return g_string_free(all, FALSE);
}

static void test_google_pprof(void **state)
{
    if (access("/usr/bin/google-pprof", X_OK) != 0) {
        print_message("google-pprof not installed (package google-perftools): skipped\n");
        skip();
    }
    static const char *const files[] = {"googlepprof_cppbench.heap", "googlepprof_cppbench.growth",
                                        "local_tcmalloc_hp.0001.heap",
                                        "local_tcmalloc_hp.0002.heap", "googlepprof_gobench.heap"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        gperf_dump *g = open_corpus(files[i]);
        char *pp = th_snap_file(&g->base, 0, "heap.pprof");
        char *tmp = th_write_temp(pp, strlen(pp));
        char *ours = pprof_totals(tmp, false);
        gperf_snap *sn = snap0(g);
        if (sn->pprof_same) {
            char *p = corpus(files[i]);
            char *orig = pprof_totals(p, true);
            assert_string_equal(ours, orig);
            g_free(orig);
            g_free(p);
        } else {
            /* google-pprof cannot read the original (it divides by zero on
             * Go's heap/N); heap.pprof holds the values sites shows, which
             * equal google/pprof's decode (test_heap_string_gobench). */
            char *want = g_strdup_printf(
                "Total: %" G_GUINT64_FORMAT " objects; Total: %" G_GUINT64_FORMAT
                " B; Total: %" G_GUINT64_FORMAT " objects; Total: %" G_GUINT64_FORMAT " B; ",
                sn->sum_scaled[0], sn->sum_scaled[1], sn->sum_scaled[2], sn->sum_scaled[3]);
            assert_string_equal(ours, want);
            g_free(want);
        }
        g_free(ours);
        unlink(tmp);
        g_free(tmp);
        g_free(pp);
        hf_dump_close(&g->base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_heap_string_cppbench),
        cmocka_unit_test(test_heap_string_gobench),
        cmocka_unit_test(test_corpus_all),
        cmocka_unit_test(test_gobench_problems),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_mapping_parse),
        cmocka_unit_test(test_symbolize_self),
        cmocka_unit_test(test_google_pprof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
