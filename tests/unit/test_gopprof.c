/*
 * test_gopprof.c - pprof's profile.proto, out and in.
 *
 * The writer (decoders/pprof/proto.c): a builder's profile, gunzipped and
 * unpacked with protobuf-c, holds the sample types, names and values that
 * were added (worked out by hand below), and renders the same bytes twice.
 * The decoder (decoders/gopprof/): a profile packed here with protobuf-c
 * mounts with the sites and traces it describes; hostile variants (string
 * indices out of range, missing location and function ids, wrong value
 * counts, no sample types, cut files, a gzip bomb against a small cap) give
 * problems or a clear refusal, never a crash.
 */
#include "tests/unit/helpers.h"

#include "build/gen/pprof/profile.pb-c.h"
#include "decoders/gopprof/gopprof.h"
#include "decoders/pprof/proto.h"

#include <string.h>

typedef Perftools__Profiles__Profile Profile;

/* ---- the writer ---- */

static Profile *unpack_gz(const GString *gz)
{
    bool truncated;
    GByteArray *raw = hf_gunzip((const uint8_t *)gz->str, gz->len, 1 << 20, &truncated, NULL);
    assert_non_null(raw);
    assert_false(truncated);
    Profile *p = perftools__profiles__profile__unpack(NULL, raw->len, raw->data);
    g_byte_array_free(raw, TRUE);
    assert_non_null(p);
    return p;
}

static void test_writer_round_trip(void **state)
{
    hf_pprof *b = hf_pprof_new("prog");
    const char *s1[] = {"java.util.ArrayList.<init>", "Main.run", "Main.main"};
    const char *s2[] = {"byte[]", "Main.main"};
    hf_pprof_values v1 = {2, 96, 5, 240}, v2 = {1, 4400, 6, 4856};
    hf_pprof_add(b, s1, 3, &v1);
    hf_pprof_add(b, s2, 2, &v2);
    hf_pprof_add(b, s1, 3, &v1); /* merged: 4 192 10 480 */
    GString *gz = g_string_new(NULL), *again = g_string_new(NULL);
    assert_int_equal(hf_pprof_render_proto(b, 0, gz, 10), HF_DONE);
    hf_pprof_render_proto(b, 0, again, 10);
    assert_int_equal(gz->len, again->len);
    assert_memory_equal(gz->str, again->str, gz->len); /* deterministic */
    assert_int_equal((uint8_t)gz->str[4] | (uint8_t)gz->str[5] | (uint8_t)gz->str[6] |
                         (uint8_t)gz->str[7],
                     0); /* gzip mtime 0 */
    Profile *p = unpack_gz(gz);
    assert_int_equal(p->n_sample_type, 4);
    const char *want[4] = {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(p->string_table[p->sample_type[i]->type], want[i]);
    assert_string_equal(p->string_table[p->default_sample_type], "inuse_space");
    assert_int_equal(p->n_sample, 2);
    assert_int_equal(p->sample[0]->n_value, 4);
    assert_int_equal(p->sample[0]->value[0], 10);
    assert_int_equal(p->sample[0]->value[1], 480);
    assert_int_equal(p->sample[0]->value[2], 4);
    assert_int_equal(p->sample[0]->value[3], 192);
    assert_int_equal(p->sample[1]->value[3], 4400);
    assert_int_equal(p->n_location, 4);
    assert_int_equal(p->n_function, 4);
    /* leaf first; names as heap.pprof writes them */
    uint64_t leaf = p->sample[0]->location_id[0];
    const Perftools__Profiles__Location *l = p->location[leaf - 1];
    assert_int_equal(l->id, leaf);
    assert_int_equal(l->address, HF_PPROF_ADDR_BASE);
    const Perftools__Profiles__Function *f = p->function[l->line[0]->function_id - 1];
    assert_string_equal(p->string_table[f->name], "java.util.ArrayList.[init]");
    assert_string_equal(p->string_table[p->function[2]->name], "Main.main");
    assert_string_equal(p->string_table[p->mapping[0]->filename], "prog");
    perftools__profiles__profile__free_unpacked(p, NULL);
    g_string_free(gz, TRUE);
    g_string_free(again, TRUE);
    hf_pprof_free(b);
}

/* A raw heapz_v2/N builder is written scaled as google/pprof scales it. */
static void test_writer_scales_v2(void **state)
{
    hf_pprof_opts o = {"x", "heapz_v2/524288", true};
    hf_pprof *b = hf_pprof_new_opts(&o);
    const char *s[] = {"f"};
    hf_pprof_values v = {1, 1024, 1, 1024};
    hf_pprof_add(b, s, 1, &v);
    hf_pprof_add(b, NULL, 0, &v); /* no frames: left out, as google-pprof does */
    GString *gz = g_string_new(NULL);
    hf_pprof_render_proto(b, 0, gz, 0);
    Profile *p = unpack_gz(gz);
    assert_int_equal(p->n_sample, 1);
    assert_int_equal(p->period, 524288);
    /* 1 / (1 - exp(-1024/524288)) = 512.50...: 512 objects, 524800 bytes */
    assert_int_equal(p->sample[0]->value[2], 512);
    assert_int_equal(p->sample[0]->value[3], 524800);
    perftools__profiles__profile__free_unpacked(p, NULL);
    g_string_free(gz, TRUE);
    hf_pprof_free(b);
}

static void test_gunzip_cap(void **state)
{
    size_t n = 4 << 20;
    uint8_t *zeros = g_malloc0(n);
    GString *gz = g_string_new(NULL);
    hf_gzip_append(zeros, n, gz);
    bool truncated;
    GError *e = NULL;
    assert_null(hf_gunzip((const uint8_t *)gz->str, gz->len, 1 << 20, &truncated, &e));
    assert_non_null(strstr(e->message, "limit"));
    g_clear_error(&e);
    GByteArray *all = hf_gunzip((const uint8_t *)gz->str, gz->len, n, &truncated, &e);
    assert_non_null(all);
    assert_int_equal(all->len, n);
    g_byte_array_free(all, TRUE);
    all = hf_gunzip((const uint8_t *)gz->str, gz->len / 2, n, &truncated, &e);
    assert_non_null(all);
    assert_true(truncated);
    g_byte_array_free(all, TRUE);
    g_string_free(gz, TRUE);
    g_free(zeros);
}

/* ---- the decoder: a profile packed here ---- */

typedef struct {
    int64_t bad_string;   /* a function name index, normally 5 */
    uint64_t bad_loc;     /* a sample's second location id, normally 2 */
    uint64_t bad_func;    /* location 2's function id, normally 2 */
    size_t n_values;      /* values per sample, normally 2 */
    size_t n_types;       /* normally 2 */
    bool no_go_names;     /* both types space/bytes: neither Go's nor a count */
} variant;

/* Two samples: [leaf keepBig (heap.go:10), main (heap.go:20)] 8 8388608,
 * and [main] 1 64.  Returns the packed bytes (g_free). */
static uint8_t *make_profile(const variant *w, size_t *len)
{
    static char *strs[] = {"", "inuse_objects", "count", "inuse_space", "bytes",
                           "main.keepBig", "main.main", "heap.go", "space"};
    Perftools__Profiles__ValueType t[2], pt;
    Perftools__Profiles__ValueType *tp[2] = {&t[0], &t[1]};
    for (int i = 0; i < 2; i++) {
        perftools__profiles__value_type__init(&t[i]);
        t[i].type = w->no_go_names ? 8 : 1 + 2 * i;
        t[i].unit = w->no_go_names ? 4 : 2 + 2 * i;
    }
    perftools__profiles__value_type__init(&pt);
    pt.type = 8;
    pt.unit = 4;
    Perftools__Profiles__Function fn[2], *fnp[2] = {&fn[0], &fn[1]};
    Perftools__Profiles__Line ln[2], *lnp[2] = {&ln[0], &ln[1]};
    Perftools__Profiles__Location lc[2], *lcp[2] = {&lc[0], &lc[1]};
    for (int i = 0; i < 2; i++) {
        perftools__profiles__function__init(&fn[i]);
        fn[i].id = i + 1;
        fn[i].name = 5 + i;
        fn[i].filename = 7;
        perftools__profiles__line__init(&ln[i]);
        ln[i].function_id = i + 1;
        ln[i].line = 10 * (i + 1);
        perftools__profiles__location__init(&lc[i]);
        lc[i].id = i + 1;
        lc[i].n_line = 1;
        lc[i].line = &lnp[i];
    }
    fn[0].name = w->bad_string;
    ln[1].function_id = w->bad_func;
    uint64_t ids0[2] = {1, w->bad_loc}, ids1[1] = {2};
    int64_t v0[3] = {8, 8388608, 7}, v1[3] = {1, 64, 7};
    Perftools__Profiles__Sample s[2], *sp[2] = {&s[0], &s[1]};
    for (int i = 0; i < 2; i++) {
        perftools__profiles__sample__init(&s[i]);
        s[i].n_value = w->n_values;
        s[i].value = i ? v1 : v0;
    }
    s[0].n_location_id = 2;
    s[0].location_id = ids0;
    s[1].n_location_id = 1;
    s[1].location_id = ids1;
    Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
    p.n_sample_type = w->n_types;
    p.sample_type = tp;
    p.period_type = &pt;
    p.period = 524288;
    p.n_sample = 2;
    p.sample = sp;
    p.n_location = 2;
    p.location = lcp;
    p.n_function = 2;
    p.function = fnp;
    p.n_string_table = G_N_ELEMENTS(strs);
    p.string_table = strs;
    *len = perftools__profiles__profile__get_packed_size(&p);
    uint8_t *buf = g_malloc(*len);
    perftools__profiles__profile__pack(&p, buf);
    return buf;
}

static const variant good = {5, 2, 2, 2, 2};

static hf_dump *open_bytes(const uint8_t *data, size_t len, bool gzip, char **err)
{
    GString *gz = g_string_new(NULL);
    if (gzip)
        hf_gzip_append(data, len, gz);
    else
        g_string_append_len(gz, (const char *)data, (gssize)len);
    char *path = th_write_temp(gz->str, gz->len);
    GError *e = NULL;
    hf_dump *d = hf_open(path, NULL, &e);
    if (err)
        *err = e ? g_strdup(e->message) : NULL;
    g_clear_error(&e);
    unlink(path);
    g_free(path);
    g_string_free(gz, TRUE);
    return d;
}

/* A gzipped profile whose CRC (or length) at the end is wrong: refused as
 * damaged gzip, not as a format heapfs does not know. */
static void test_decoder_bad_crc(void **state)
{
    size_t len;
    uint8_t *buf = make_profile(&good, &len);
    for (int k = 8; k >= 1; k -= 7) { /* the CRC's first byte, the length's last */
        GString *gz = g_string_new(NULL);
        hf_gzip_append(buf, len, gz);
        gz->str[gz->len - k] ^= 0x5a;
        char *path = th_write_temp(gz->str, gz->len);
        GError *e = NULL;
        assert_null(hf_open(path, NULL, &e));
        if (!e || !strstr(e->message, "gzip stream damaged"))
            fail_msg("%s", e ? e->message : "no error");
        g_clear_error(&e);
        unlink(path);
        g_free(path);
        g_string_free(gz, TRUE);
    }
    g_free(buf);
}

static void collect_tally(void *ud, const char *name, int64_t count, int64_t bytes)
{
    g_string_append_printf(ud, "%s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", name, count,
                           bytes);
}

/* The growth tally of the two samples of make_profile. */
static void assert_tally(hf_dump *d)
{
    GString *tl = g_string_new(NULL);
    assert_true(d->ops->tally(d, 0, false, collect_tally, tl));
    assert_string_equal(tl->str, "main.keepBig (heap.go:10) 8 8388608\n"
                                 "main.main (heap.go:20) 1 64\n");
    g_string_free(tl, TRUE);
}

static void test_decoder_good(void **state)
{
    size_t len;
    uint8_t *buf = make_profile(&good, &len);
    for (int gz = 0; gz < 2; gz++) {
        hf_dump *d = open_bytes(buf, len, gz, NULL);
        assert_non_null(d);
        assert_string_equal(d->ops->format, "gopprof");
        char *p = th_problems(d);
        assert_string_equal(p, "");
        g_free(p);
        char *info = th_info(d);
        /* the decoder's name for tools, then the one users know */
        assert_true(g_str_has_prefix(info, "format: gopprof\nformat name: Go pprof (profile.proto)\n"));
        assert_non_null(strstr(info, "sample types: inuse_objects/count inuse_space/bytes\n"));
        assert_non_null(strstr(info, "period type: space/bytes\nperiod: 524288\n"));
        g_free(info);
        char *sites = th_snap_file(d, 0, "sites");
        assert_string_equal(sites, "# trace\tinuse_objects\tinuse_space\tframe\n"
                                   "1\t8\t8388608\tmain.keepBig (heap.go:10)\n"
                                   "2\t1\t64\tmain.main (heap.go:20)\n");
        g_free(sites);
        /* growth names a stack as sites does: its leaf frame, no trace= */
        assert_tally(d);
        char *tsv = th_snap_file(d, 0, "tables/samples.tsv");
        assert_string_equal(tsv, "inuse_objects/count\tinuse_space/bytes\ttrace\tleaf\n"
                                 "8\t8388608\t1\tmain.keepBig\n"
                                 "1\t64\t2\tmain.main\n");
        g_free(tsv);
        assert_int_equal(d->ops->n_traces(d), 2);
        char *t = th_trace(d, 0);
        assert_string_equal(t, "main.keepBig (heap.go:10)\nmain.main (heap.go:20)\n");
        g_free(t);
        char *pp = th_snap_file(d, 0, "heap.pprof");
        assert_non_null(strstr(pp, "heap profile:      9:  8388672 [     9:  8388672] @ heapprofile"));
        g_free(pp);
        char *f = th_snap_file(d, 0, "stacks.folded");
        assert_string_equal(f, "main.main;main.keepBig 8388608\nmain.main 64\n");
        g_free(f);
        th_render_everything(d, 100);
        hf_dump_close(d);
    }
    g_free(buf);
}

static void test_decoder_hostile(void **state)
{
    struct {
        variant w;
        const char *problem; /* NULL: refused */
    } cases[] = {
        {{99, 2, 2, 2, 2}, "string table indices out of range"},
        {{-3, 2, 2, 2, 2}, "string table indices out of range"},
        {{5, 77, 2, 2, 2}, "location id that does not exist"},
        {{5, 2, 42, 2, 2}, "function id that does not exist"},
        {{5, 2, 2, 3, 2}, "do not have one value per sample type"},
        {{5, 2, 2, 0, 0}, NULL},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        size_t len;
        uint8_t *buf = make_profile(&cases[i].w, &len);
        char *err = NULL;
        hf_dump *d = open_bytes(buf, len, true, &err);
        if (!cases[i].problem) {
            /* no sample types: not detected as a profile, or refused */
            assert_null(d);
            g_free(err);
            g_free(buf);
            continue;
        }
        assert_non_null(d);
        char *p = th_problems(d);
        if (!strstr(p, cases[i].problem))
            fail_msg("case %zu: problems %s", i, p);
        g_free(p);
        th_render_everything(d, 64);
        hf_dump_close(d);
        g_free(buf);
    }
    /* every cut of the gzipped file: refused or opened, never a crash */
    size_t len;
    uint8_t *buf = make_profile(&good, &len);
    GString *gz = g_string_new(NULL);
    hf_gzip_append(buf, len, gz);
    for (size_t cut = 1; cut < gz->len; cut++) {
        char *path = th_write_temp(gz->str, cut);
        GError *e = NULL;
        hf_dump *d = hf_open(path, NULL, &e);
        if (d) {
            th_render_everything(d, 64);
            hf_dump_close(d);
        }
        g_clear_error(&e);
        unlink(path);
        g_free(path);
    }
    /* and of the raw bytes */
    for (size_t cut = 1; cut < len; cut++) {
        hf_dump *d = open_bytes(buf, cut, false, NULL);
        if (d)
            hf_dump_close(d);
    }
    g_string_free(gz, TRUE);
    g_free(buf);
}

/* Sample types with neither Go's names nor a "count" unit: objects from
 * the first type, bytes from the last "bytes" one (a fuzzed profile read
 * before the first value once, tests/fuzz/regress/gopprof/no-count-type). */
static void test_decoder_no_count_type(void **state)
{
    size_t len;
    variant w = good;
    w.no_go_names = true;
    uint8_t *buf = make_profile(&w, &len);
    hf_dump *d = open_bytes(buf, len, false, NULL);
    assert_non_null(d);
    assert_tally(d);
    char *pp = th_snap_file(d, 0, "heap.pprof");
    assert_non_null(strstr(pp, "heap profile:      9:  8388672 [     9:  8388672] @ heapprofile"));
    g_free(pp);
    th_render_everything(d, 100);
    hf_dump_close(d);
    g_free(buf);
}

/* Other formats' corpus files are not claimed. */
static void test_detect_strict(void **state)
{
    const char *subdirs[] = {"hprof", "hprof-txt", "pprof-heap", "bmd"};
    for (size_t i = 0; i < G_N_ELEMENTS(subdirs); i++) {
        char *sub = th_corpus(subdirs[i], NULL);
        GDir *gd = g_dir_open(sub, 0, NULL);
        const char *name;
        while (gd && (name = g_dir_read_name(gd))) {
            char *p = g_build_filename(sub, name, NULL);
            gchar *data;
            gsize n;
            assert_true(g_file_get_contents(p, &data, &n, NULL));
            assert_false(gopprof_head_is_profile((const uint8_t *)data, n < 4096 ? n : 4096));
            g_free(data);
            g_free(p);
        }
        if (gd)
            g_dir_close(gd);
        g_free(sub);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_writer_scales_v2),
        cmocka_unit_test(test_gunzip_cap),
        cmocka_unit_test(test_decoder_good),
        cmocka_unit_test(test_decoder_bad_crc),
        cmocka_unit_test(test_decoder_hostile),
        cmocka_unit_test(test_decoder_no_count_type),
        cmocka_unit_test(test_detect_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
