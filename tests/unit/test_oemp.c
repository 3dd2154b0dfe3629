/*
 * test_oemp.c - the OpenEdge memory profiler recording (.oemp) decoder.
 *
 * Oracles: the two hand-written recordings in tests/fixtures (small-v1.oemp and
 * its version 2 twin small-v2.oemp, readable by eye, expected values worked
 * out by hand in the comments below); recordings built here line by line
 * for each section kind and each kind of damage; and, for the lifetime
 * index, a brute-force replay of a generated recording big enough to have
 * several checkpoints.
 */
#include "decoders/oemp/oemp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

/* ---- helpers -------------------------------------------------------------- */

static char *data_path(const char *name)
{
    /* tests run from the project root (tests/run.sh, make check) */
    return th_fixture(name);
}

static hf_dump *open_data(const char *name)
{
    char *p = data_path(name);
    GError *e = NULL;
    hf_dump *d = hf_open(p, &e);
    if (!d)
        fail_msg("%s: %s", p, e ? e->message : "?");
    assert_string_equal(d->ops->format, "oemp");
    g_free(p);
    return d;
}

/* Writes text (len bytes) to a temporary file and opens it. */
static hf_dump *open_len(const char *text, size_t len, GError **err)
{
    char *path = th_write_temp(text, len);
    hf_dump *d = hf_open(path, err);
    unlink(path);
    g_free(path);
    return d;
}

static hf_dump *open_text(const char *text)
{
    GError *e = NULL;
    hf_dump *d = open_len(text, strlen(text), &e);
    if (!d)
        fail_msg("open: %s", e ? e->message : "?");
    return d;
}

/* Every OEMP snapshot has every file. */
static char *snap_file(hf_dump *d, uint32_t s, const char *name)
{
    char *text = th_snap_file(d, s, name);
    if (!text)
        fail_msg("no snapshot file %s", name);
    return text;
}

static char *object_info(hf_dump *d, uint32_t s, const char *id)
{
    return th_object_file(d, s, id, "info");
}

static char *object_stack(hf_dump *d, uint32_t s, const char *id)
{
    return th_object_file(d, s, id, "stack");
}

static bool has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

static bool has_problem(hf_dump *d, const char *what)
{
    for (guint i = 0; i < d->problems->len; i++)
        if (strstr(g_ptr_array_index(d->problems, i), what))
            return true;
    return false;
}

/* Space-separated ids of the objects of snapshot s, in index order. */
static char *object_names(hf_dump *d, uint32_t s)
{
    GString *out = g_string_new(NULL);
    uint64_t n = d->ops->n_objects(d, s);
    for (uint64_t o = 0; o < n; o++) {
        char name[HF_NAME_MAX];
        d->ops->object_name(d, s, o, name);
        g_string_append_printf(out, "%s%s", o ? " " : "", name);
    }
    return g_string_free(out, FALSE);
}

/* Everything a mount can show, rendered with a small budget, so no view
 * may crash or loop (used on damaged input); every object's name finds it,
 * and a scope link leads to an object of the snapshot. */
static void render_everything(hf_dump *d)
{
    th_render_everything(d, 64);
    for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
        for (uint64_t o = 0; o < d->ops->n_objects(d, s); o++) {
            char name[HF_NAME_MAX];
            hf_target to;
            d->ops->object_name(d, s, o, name);
            assert_int_equal(d->ops->object_find(d, s, name), (int64_t)o);
            if (th_link(d, d->ops->object.links, "scope", s, o, &to)) {
                assert_int_equal(to.kind, HF_TO_OBJECT);
                assert_true(d->ops->object_find(d, s, to.name) >= 0);
            }
        }
    }
}

/* Snapshot s's histogram (one line per type) and histogram-by-name (per
 * type and name, named objects only) tell the same numbers: the types sum
 * to the live totals of info, and the names of a type to at most the
 * type's line (unnamed objects are in the type's line only). */
static void parse_hist(const char *text, const char *header, GHashTable *count,
                       GHashTable *bytes, bool names)
{
    if (!g_str_has_prefix(text, header))
        fail_msg("histogram does not start with \"%s\":\n%s", header, text);
    char **lines = g_strsplit(text + strlen(header), "\n", -1);
    for (char **l = lines; *l && **l; l++) {
        unsigned long long n;
        long long b;
        int used = 0;
        if (sscanf(*l, "%llu %lld  %n", &n, &b, &used) != 2 || !used)
            fail_msg("histogram line \"%s\"", *l);
        char *type = g_strdup(*l + used), *tab = strchr(type, '\t');
        if ((tab != NULL) != names)
            fail_msg("histogram line \"%s\": %s", *l, names ? "no name" : "a name");
        if (tab)
            *tab = '\0';
        gpointer c = g_hash_table_lookup(count, type), y = g_hash_table_lookup(bytes, type);
        g_hash_table_replace(count, g_strdup(type), GSIZE_TO_POINTER(GPOINTER_TO_SIZE(c) + n));
        g_hash_table_replace(bytes, type, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(y) + (gsize)b));
    }
    g_strfreev(lines);
}

static uint64_t info_number(const char *info, const char *key)
{
    const char *p = strstr(info, key);
    if (!p)
        fail_msg("info lacks %s", key);
    return g_ascii_strtoull(p + strlen(key), NULL, 10);
}

static void check_histograms(hf_dump *d, uint32_t s)
{
    GHashTable *tc = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *tb = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *nc = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *nb = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *h = snap_file(d, s, "histogram"), *hn = snap_file(d, s, "histogram-by-name");
    parse_hist(h, "# objects bytes type\n", tc, tb, false);
    parse_hist(hn, "# objects bytes type<TAB>name (named objects only)\n", nc, nb, true);
    char *info = snap_file(d, s, "info");
    uint64_t objects = 0, bytes = 0;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, tc);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        objects += GPOINTER_TO_SIZE(v);
        bytes += GPOINTER_TO_SIZE(g_hash_table_lookup(tb, k));
    }
    assert_int_equal(objects, info_number(info, "\nlive objects: "));
    assert_int_equal(bytes, info_number(info, "\nlive bytes: "));
    g_hash_table_iter_init(&it, nc);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        if (!g_hash_table_contains(tc, k))
            fail_msg("histogram-by-name has type %s, histogram not", (char *)k);
        assert_true(GPOINTER_TO_SIZE(v) <= GPOINTER_TO_SIZE(g_hash_table_lookup(tc, k)));
        assert_true(GPOINTER_TO_SIZE(g_hash_table_lookup(nb, k)) <=
                    GPOINTER_TO_SIZE(g_hash_table_lookup(tb, k)));
    }
    g_free(info);
    g_free(h);
    g_free(hn);
    g_hash_table_destroy(tc);
    g_hash_table_destroy(tb);
    g_hash_table_destroy(nc);
    g_hash_table_destroy(nb);
}

/* ---- tokenizer -------------------------------------------------------------- */

static oemp_rec rec_of(const char *line)
{
    oemp_rec r;
    assert_true(oemp_read_record(line, strlen(line), 0, &r));
    return r;
}

static char *tok_text(const oemp_tok *t)
{
    return oemp_tok_dup(t);
}

static void test_tokens_basic(void **state)
{
    oemp_rec r = rec_of("12 -3 22.45 .5 \"AS-4\" ? word\n");
    assert_int_equal(r.ntok, 7);
    assert_false(r.cut);
    assert_false(r.dot);
    assert_int_equal(r.tok[0].kind, OEMP_NUM);
    assert_int_equal(r.tok[1].kind, OEMP_NUM);
    assert_int_equal(r.tok[2].kind, OEMP_NUM);
    assert_int_equal(r.tok[3].kind, OEMP_NUM);
    assert_int_equal(r.tok[4].kind, OEMP_STR);
    assert_int_equal(r.tok[5].kind, OEMP_UNK);
    assert_int_equal(r.tok[6].kind, OEMP_WORD);
    int64_t v;
    uint64_t u;
    assert_true(oemp_tok_i64(&r.tok[0], &v));
    assert_int_equal(v, 12);
    assert_true(oemp_tok_i64(&r.tok[1], &v));
    assert_int_equal(v, -3);
    assert_false(oemp_tok_u64(&r.tok[1], &u));
    assert_false(oemp_tok_i64(&r.tok[2], &v)); /* a decimal is no integer */
    assert_false(oemp_tok_i64(&r.tok[4], &v));
    assert_false(oemp_tok_i64(&r.tok[5], &v)); /* ? */
    char *s = tok_text(&r.tok[4]);
    assert_string_equal(s, "AS-4");
    g_free(s);
    s = tok_text(&r.tok[5]);
    assert_string_equal(s, "?");
    g_free(s);
    assert_int_equal(r.next, strlen("12 -3 22.45 .5 \"AS-4\" ? word\n"));
}

static void test_tokens_quotes(void **state)
{
    /* "" inside a string is one quote; "" alone is the empty string */
    oemp_rec r = rec_of("\"Say \"\"Hi\"\" proc.p\" \"\" \"\"\"\" \"a b  c\" \"?\"\n");
    assert_int_equal(r.ntok, 5);
    const char *want[] = {"Say \"Hi\" proc.p", "", "\"", "a b  c", "?"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r.tok[i].kind, OEMP_STR);
        char *s = tok_text(&r.tok[i]);
        assert_string_equal(s, want[i]);
        g_free(s);
    }
    assert_false(r.bad);
}

static void test_tokens_bad(void **state)
{
    oemp_rec r = rec_of("1 \"open string 2 3\n");
    assert_int_equal(r.ntok, 2); /* the string runs to the end of the line only */
    assert_int_equal(r.tok[1].kind, OEMP_BAD);
    assert_true(r.bad);
    r = rec_of("\"glued\"x 5\n");
    assert_int_equal(r.ntok, 2);
    assert_int_equal(r.tok[0].kind, OEMP_BAD);
    assert_int_equal(r.tok[1].kind, OEMP_NUM);
    r = rec_of("1-2 1.2.3 - . \n");
    assert_int_equal(r.ntok, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r.tok[i].kind, OEMP_WORD);
    uint64_t u;
    r = rec_of("18446744073709551615 18446744073709551616 9223372036854775808\n");
    assert_true(oemp_tok_u64(&r.tok[0], &u));
    assert_true(u == UINT64_MAX);
    assert_false(oemp_tok_u64(&r.tok[1], &u)); /* overflow */
    int64_t v;
    assert_false(oemp_tok_i64(&r.tok[2], &v));
    r = rec_of("-9223372036854775808\n");
    assert_true(oemp_tok_i64(&r.tok[0], &v));
    assert_true(v == INT64_MIN);
}

static void test_lines(void **state)
{
    const char *text = ".\r\n  .  \n\n1 2\r\n3 4";
    size_t len = strlen(text);
    oemp_rec r;
    assert_true(oemp_read_record(text, len, 0, &r));
    assert_true(r.dot); /* CRLF: Windows recordings */
    assert_true(oemp_read_record(text, len, r.next, &r));
    assert_true(r.dot);
    assert_true(oemp_read_record(text, len, r.next, &r));
    assert_true(r.blank);
    assert_true(oemp_read_record(text, len, r.next, &r));
    assert_int_equal(r.ntok, 2);
    assert_false(r.cut);
    assert_true(oemp_read_record(text, len, r.next, &r));
    assert_int_equal(r.ntok, 2);
    assert_true(r.cut); /* no newline: the file ends in this line */
    assert_false(oemp_read_record(text, len, r.next, &r));
    /* more tokens than are kept are still counted */
    GString *many = g_string_new(NULL);
    for (int i = 0; i < 40; i++)
        g_string_append(many, "1 ");
    r = rec_of(many->str);
    assert_int_equal(r.ntok, 40);
    g_string_free(many, TRUE);
}

static void test_oneline(void **state)
{
    GString *s = g_string_new(NULL);
    oemp_append_oneline(s, "a\nb\tc\\d\x01", 8);
    assert_string_equal(s->str, "a\\nb\\tc\\d\\x01");
    g_string_free(s, TRUE);
}

static void test_detect(void **state)
{
    const char *v1 = "1 3277 1 \"2022-02-01T08:01:39.967+05:00\" \"AS-4\" \"_AUTO\" \"??:??\" \"\"";
    assert_true(oemp_detect_head((const uint8_t *)v1, strlen(v1)));
    const char *hprof = "JAVA PROFILE 1.0.2";
    assert_false(oemp_detect_head((const uint8_t *)hprof, strlen(hprof) + 1));
    const char *gperf = "heap profile:    1:  2 [ 3: 4] @ heapprofile\n";
    assert_false(oemp_detect_head((const uint8_t *)gperf, strlen(gperf)));
    const char *bom = "\xEF\xBB\xBF" "2 1 1 \"t\" \"s\" \"tag\"\n";
    assert_true(oemp_detect_head((const uint8_t *)bom, strlen(bom)));
    const char *nums = "1 2 3 4 5 6\n";
    assert_false(oemp_detect_head((const uint8_t *)nums, strlen(nums)));
}

/* ---- the readable recordings ---------------------------------------------- */

/*
 * small-v1.oemp by hand:
 *   1: creates 1001 Procedure main.p 4096, 1002 OOABL Obj OrderMgr.cls 2048,
 *      1003 Named Widget Pool "my pool" 512 (scope 1002), 1004 OO Builtin
 *      with NameId "Progress.Collections.List<Order>" 256, 1005 OO Builtin
 *      by BioTypId "Progress.Lang.Object" 128, 1006 Dynamic Query 300
 *      (scope 1003): 6 objects, 7340 bytes
 *   2: 1002 -> 3072; creates 1007 Temp-Table `tt "quoted" name` 1024 and
 *      1008 Procedure orders.p 2048; deletes 1005: 7 objects, 11308 bytes
 *   3: 1007 -> 4096 (TempTableNum 5); creates 1009 `Say "Hi" proc.p` 1500;
 *      deletes 1006 and 1004: 6 objects, 15324 bytes
 */
static void check_small(hf_dump *d)
{
    assert_int_equal(d->ops->n_snapshots(d), 3);
    for (uint32_t s = 0; s < 3; s++)
        assert_int_equal(d->ops->snapshot_number(d, s), s + 1);
    assert_int_equal(d->problems->len, 0);
    char *names = object_names(d, 0);
    assert_string_equal(names, "1001 1002 1003 1004 1005 1006");
    g_free(names);
    names = object_names(d, 1);
    assert_string_equal(names, "1001 1002 1003 1004 1006 1007 1008");
    g_free(names);
    names = object_names(d, 2);
    assert_string_equal(names, "1001 1002 1003 1007 1008 1009");
    g_free(names);
    assert_int_equal(d->ops->object_find(d, 2, "1004"), -1);
    assert_int_equal(d->ops->object_find(d, 2, "01001"), -1);
    assert_int_equal(d->ops->object_find(d, 2, "1001x"), -1);

    char *info = snap_file(d, 0, "info");
    assert_true(has_line(info, "live objects: 6"));
    assert_true(has_line(info, "live bytes: 7340"));
    assert_true(has_line(info, "complete: yes"));
    assert_true(has_line(info, "Tag: _AUTO"));
    assert_true(has_line(info, "CPU: 22.45"));
    assert_true(has_line(info, "appMemTot: 7340"));
    g_free(info);
    info = snap_file(d, 1, "info");
    assert_true(has_line(info, "live bytes: 11308"));
    assert_true(has_line(info, "changed bytes: +1024"));
    g_free(info);
    info = snap_file(d, 2, "info");
    assert_true(has_line(info, "live objects: 6"));
    assert_true(has_line(info, "live bytes: 15324"));
    assert_true(has_line(info, "CPU: ?"));
    assert_true(has_line(info, "deleted objects: 2"));
    assert_true(has_line(info, "deleted bytes: 556"));
    g_free(info);

    /* histogram: by type; histogram-by-name: by type and name */
    char *h = snap_file(d, 1, "histogram");
    assert_true(has_line(h, "         2           6144  Procedure"));
    assert_true(has_line(h, "         1           1024  Temp-Table"));
    assert_true(has_line(h, "         1            300  Dynamic Query")); /* unnamed too */
    assert_null(strchr(h, '\t'));
    g_free(h);
    h = snap_file(d, 1, "histogram-by-name");
    assert_true(has_line(h, "         1           4096  Procedure\tmain.p"));
    assert_true(has_line(h, "         1           2048  Procedure\torders.p"));
    assert_true(has_line(h, "         1           1024  Temp-Table\ttt \"quoted\" name"));
    assert_true(has_line(h, "         1            256  OO Builtin\tProgress.Collections.List<Order>"));
    assert_true(has_line(h, "         1           3072  OOABL Obj\tOrderMgr.cls"));
    assert_true(has_line(h, "         1            512  Named Widget Pool\tmy pool"));
    assert_null(strstr(h, "Dynamic Query")); /* no name, no by-name line */
    g_free(h);
    h = snap_file(d, 0, "histogram-by-name");
    assert_true(has_line(h, "         1            128  OO Builtin\tProgress.Lang.Object"));
    g_free(h);
    h = snap_file(d, 0, "histogram");
    assert_true(has_line(h, "         2            384  OO Builtin"));
    g_free(h);
    for (uint32_t s = 0; s < 3; s++)
        check_histograms(d, s);

    char *c = snap_file(d, 1, "created");
    assert_string_equal(c, "# id bytes type<TAB>name\n1007 1024 Temp-Table\ttt \"quoted\" name\n"
                           "1008 2048 Procedure\torders.p\n");
    g_free(c);
    c = snap_file(d, 1, "changed");
    assert_string_equal(c, "# id bytes-before bytes-after delta type<TAB>name\n"
                           "1002 2048 3072 +1024 OOABL Obj\tOrderMgr.cls\n");
    g_free(c);
    c = snap_file(d, 2, "deleted");
    assert_string_equal(c, "# id bytes DelTime type<TAB>name\n1006 300 3100 Dynamic Query\t\n"
                           "1004 256 3200 OO Builtin\tProgress.Collections.List<Order>\n");
    g_free(c);
    c = snap_file(d, 1, "platform");
    assert_true(has_line(c, "     3           8192          16384           8192  Temp-table DB (-Bt)"));
    g_free(c);

    char *o = object_info(d, 2, "1007");
    assert_true(has_line(o, "name: tt \"quoted\" name"));
    assert_true(has_line(o, "bytes: 4096"));
    assert_true(has_line(o, "temp-table: 5"));
    assert_true(has_line(o, "scope: 1002"));
    assert_true(has_line(o, "created in snapshot: 2"));
    assert_true(has_line(o, "changed in snapshot: 3"));
    assert_null(strstr(o, "OrderMgr")); /* the creation stack is in stack, not info */
    g_free(o);
    o = object_stack(d, 2, "1007");
    assert_string_equal(o, "ProcessOrder OrderMgr.cls:60\nOrderMgr.cls:20\nmain.p:12\n");
    g_free(o);
    o = object_info(d, 1, "1007"); /* the same object one snapshot earlier */
    assert_true(has_line(o, "bytes: 1024"));
    assert_true(has_line(o, "temp-table: 0"));
    g_free(o);
    o = object_info(d, 2, "1009");
    assert_true(has_line(o, "name: Say \"Hi\" proc.p"));
    assert_true(has_line(o, "abk: ?"));
    g_free(o);
    o = object_stack(d, 2, "1009");
    assert_string_equal(o, "orders.p:7\nmain.p:30\n");
    g_free(o);
    o = object_info(d, 0, "1005");
    assert_true(has_line(o, "name: Progress.Lang.Object"));
    g_free(o);

    /* scope symlinks, including one to an object deleted meanwhile */
    hf_target to;
    assert_true(th_object_link(d, 0, "1006", "scope", &to));
    assert_int_equal(to.kind, HF_TO_OBJECT);
    assert_string_equal(to.name, "1003");
    assert_false(th_object_link(d, 0, "1001", "scope", &to));

    assert_int_equal(d->ops->n_traces(d), 4);
    assert_int_equal(d->ops->trace_number(d, 3), 4);
    char *t = th_trace(d, 2);
    assert_string_equal(t, "TRACE 3:\n\tProcessOrder OrderMgr.cls\n\tOrderMgr.cls:20\n\tmain.p:12\n");
    g_free(t);

    char *p = snap_file(d, 2, "heap.pprof");
    assert_non_null(strstr(p, "heap profile:      6:    15324 [     6:    15324] @ heapprofile"));
    assert_non_null(strstr(p, " orders.p:7\n"));
    g_free(p);
    char *f = snap_file(d, 2, "stacks.folded");
    assert_true(has_line(f, "main.p:30;orders.p:7 1500"));
    assert_true(has_line(f, "main.p:12;OrderMgr.cls:20;ProcessOrder OrderMgr.cls:60 4096"));
    g_free(f);
    char *i = th_info(d);
    assert_true(has_line(i, "snapshots: 3"));
    assert_true(has_line(i, "time span: 4.000000 s"));
    assert_true(has_line(i, "process: 3277"));
    assert_true(has_line(i, "uuid: 9f2c1e4a-8d1b-4c36-b7e0-1a2b3c4d5e6f"));
    g_free(i);
}

static void test_small_v1(void **state)
{
    hf_dump *d = open_data("small-v1.oemp");
    check_small(d);
    /* the format specification's example header line, as the first line */
    const char *seed = "1 3277 1 \"2022-02-01T08:01:39.967+05:00\" \"AS-4\" \"_AUTO\" \"??:??\" \"\"";
    assert_memory_equal(d->data, seed, strlen(seed));
    hf_dump_close(d);
}

static void test_small_v2(void **state)
{
    hf_dump *d = open_data("small-v2.oemp");
    check_small(d);
    char *info = snap_file(d, 0, "info");
    assert_true(has_line(info, "OEVersion: 12.8.3"));
    assert_true(has_line(info, "Description: nightly run"));
    assert_null(strstr(info, "Trailer.Tag")); /* same as the header's */
    g_free(info);
    hf_dump_close(d);
}

/* Both versions of one scenario show the same tree but for the header. */
static void test_versions_agree(void **state)
{
    hf_dump *a = open_data("small-v1.oemp"), *b = open_data("small-v2.oemp");
    const char *files[] = {"histogram", "histogram-by-name", "platform", "created", "changed",
                           "deleted", "heap.pprof", "stacks.folded"};
    for (uint32_t s = 0; s < 3; s++) {
        for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
            if (strcmp(files[f], "heap.pprof") == 0)
                continue; /* binary= names the file */
            char *x = snap_file(a, s, files[f]), *y = snap_file(b, s, files[f]);
            assert_string_equal(x, y);
            g_free(x);
            g_free(y);
        }
        for (uint64_t o = 0; o < a->ops->n_objects(a, s); o++) {
            char *x = th_file(a, a->ops->object.files, s, o, "info");
            char *y = th_file(b, b->ops->object.files, s, o, "info");
            assert_string_equal(x, y);
            g_free(x);
            g_free(y);
        }
    }
    hf_dump_close(a);
    hf_dump_close(b);
}

/* ---- recordings built here ------------------------------------------------ */

#define V2_HDR(seq) \
    "2 77 " #seq " \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" \"\" \"\" 0 " \
    "\"u-1\" \"\" 0 \"app\" \"\" 1.5 \"12.8\" \"\" \"\"\n.\n"
#define V2_TRL(seq) "1000 0 0 0 0 0 0 0 0 \"_PROG\" " #seq "\n.\n"
#define V1_HDR(seq) \
    "1 77 " #seq " \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" \"\" \"\" 0 " \
    "\"u-1\" \"\" 0 \"\" \"\" 1.5\n.\n"
#define V1_TRL "1000 0 0 0 0 0 0\n.\n"

/* Version 2 snapshot from its section bodies (each "" or lines ending in \n). */
static void v2_snap(GString *out, int seq, const char *pcat, const char *acat, const char *bcat,
                    const char *pdata, const char *abln, const char *othn, const char *nodes,
                    const char *aobj, const char *chg, const char *del)
{
    g_string_append_printf(out,
                           "2 77 %d \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" "
                           "\"\" \"\" 0 \"u-1\" \"\" 0 \"app\" \"\" 1.5 \"12.8\" \"\" \"\"\n.\n",
                           seq);
    const char *secs[] = {pcat, acat, bcat, pdata, abln, othn, nodes, aobj, chg, del};
    for (size_t i = 0; i < G_N_ELEMENTS(secs); i++)
        g_string_append_printf(out, "%s.\n", secs[i]);
    g_string_append_printf(out, "1000 0 0 0 0 0 0 0 0 \"_PROG\" %d\n.\n", seq);
}

static const char *ACAT = "\"Procedure\" 1\n\"OOABL Obj\" 2\n\"OO Builtin\" 3\n"
                          "\"DB Connection\" 4\n\"Buffer\" 5\n";

/* An AppObjData line: id type mem node line src scope nameid biotyp. */
static void aobj(GString *out, uint64_t id, int type, int64_t mem, int node, int line, int src,
                 uint64_t scope, int nameid, int bio)
{
    g_string_append_printf(out,
                           "%" G_GUINT64_FORMAT " %d %" G_GINT64_FORMAT " 0 0 %" G_GUINT64_FORMAT
                           " %d %d %d 0 %" G_GUINT64_FORMAT " 0 %d 0 %d 0\n",
                           id, type, mem, id * 10, node, line, src, scope, nameid, bio);
}

static void test_sections(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    aobj(a, 1, 1, 100, 1, 0, 1, 0, 0, 0);   /* Procedure: SrcId 1 */
    aobj(a, 2, 2, 200, 2, 5, 2, 1, 0, 0);   /* OOABL Obj: SrcId 2, scope 1 */
    aobj(a, 3, 3, 300, 2, 6, 0, 0, 0, 1);   /* builtin by BioTypId 1 */
    aobj(a, 4, 3, 400, 2, 7, 0, 0, 2, 1);   /* builtin with NameId 2 */
    aobj(a, 5, 4, 500, 1, 3, 0, 0, 1, 0);   /* DB Connection NameId 1 */
    aobj(a, 6, 5, 600, 1, 4, 0, 0, 0, 0);   /* Buffer: no name */
    aobj(a, 7, 9, 700, 1, 4, 0, 0, 0, 0);   /* type not in the catalog */
    aobj(a, 8, 4, 800, 1, 4, 0, 0, 99, 0);  /* NameId not in the list */
    v2_snap(t, 1, "\"General\" 1\n", ACAT, "\"Progress.Lang.Object\" 1\n", "1 1000 1 1\n",
            "1 \"start.p\" 0\n2 \"Foo.cls\" 0\n", "1 \"sports2000\"\n2 \"List<Foo>\"\n",
            "1 1 0 0\n2 2 1 9\n", a->str, "", "");
    v2_snap(t, 2, "", "", "", "1 2000 1 1\n", "", "", "", "", "2 2 250 0 0 0\n5 4 550 0 0 0\n",
            "6 123\n");
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_snapshots(d), 2);
    const char *want[] = {"1 Procedure\tstart.p",   "2 OOABL Obj\tFoo.cls",
                          "3 OO Builtin\tProgress.Lang.Object", "4 OO Builtin\tList<Foo>",
                          "5 DB Connection\tsports2000", "6 Buffer\t",
                          "7 type 9\t",             "8 DB Connection\t<NameId 99 unknown>"};
    char *c = snap_file(d, 0, "created");
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        /* "ID BYTES TYPE\tNAME" */
        char *line = g_strdup_printf("%.*s %d %s", 1, want[i], (int)(i + 1) * 100, want[i] + 2);
        if (!has_line(c, line))
            fail_msg("created lacks '%s':\n%s", line, c);
        g_free(line);
    }
    g_free(c);
    assert_true(has_problem(d, "type 9 is not in AppObjCatalog"));
    assert_true(has_problem(d, "NameId 99 is not in OtherNameList"));
    c = snap_file(d, 1, "changed");
    assert_string_equal(c, "# id bytes-before bytes-after delta type<TAB>name\n"
                           "2 200 250 +50 OOABL Obj\tFoo.cls\n"
                           "5 500 550 +50 DB Connection\tsports2000\n");
    g_free(c);
    c = snap_file(d, 1, "deleted");
    assert_string_equal(c, "# id bytes DelTime type<TAB>name\n6 600 123 Buffer\t\n");
    g_free(c);
    c = snap_file(d, 1, "platform");
    assert_true(has_line(c, "     1           2000              1              1  General"));
    g_free(c);
    c = snap_file(d, 1, "info");
    assert_true(has_line(c, "live objects: 7"));
    assert_true(has_line(c, "live bytes: 3100")); /* 3600 + 50 + 50 - 600 */
    g_free(c);
    char *o = object_info(d, 1, "2");
    assert_true(has_line(o, "scope: 1"));
    g_free(o);
    o = object_stack(d, 1, "2");
    assert_string_equal(o, "Foo.cls:5\nstart.p:9\n");
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

/* A scope whose object is gone: named in info, no link (it would dangle). */
static void test_scope_gone(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    aobj(a, 1, 1, 100, 0, 0, 0, 0, 0, 0);
    aobj(a, 2, 5, 10, 0, 0, 0, 1, 0, 0);
    aobj(a, 3, 5, 10, 0, 0, 0, 999, 0, 0); /* never recorded */
    v2_snap(t, 1, "", ACAT, "", "", "", "", "", a->str, "", "");
    v2_snap(t, 2, "", "", "", "", "", "", "", "", "", "1 5\n");
    hf_dump *d = open_text(t->str);
    hf_target to;
    assert_true(th_object_link(d, 0, "2", "scope", &to));
    assert_string_equal(to.name, "1");
    assert_false(th_object_link(d, 1, "2", "scope", &to));
    char *info = object_info(d, 1, "2");
    assert_true(has_line(info, "scope: 1 (not live in this snapshot)"));
    g_free(info);
    assert_false(th_object_link(d, 0, "3", "scope", &to));
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

/* AppObjIds are read as any unsigned 64-bit number, so object names have
 * up to 20 digits, and each finds its object; only the one spelling of a
 * number is a name (decoder.c's parse_id, not hf_parse_decimal, which stops
 * at 19 digits). */
static void test_big_ids(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    aobj(a, 9999999999999999999ull, 1, 100, 0, 0, 0, 0, 0, 0);  /* 19 digits */
    aobj(a, 10000000000000000000ull, 1, 200, 0, 0, 0, 0, 0, 0); /* 20 */
    aobj(a, UINT64_MAX, 1, 300, 0, 0, 0, 0, 0, 0);
    v2_snap(t, 1, "", ACAT, "", "", "", "", "", a->str, "", "");
    hf_dump *d = open_text(t->str);
    char *names = object_names(d, 0);
    assert_string_equal(names, "9999999999999999999 10000000000000000000 18446744073709551615");
    g_free(names);
    assert_int_equal(d->ops->object_find(d, 0, "18446744073709551615"), 2);
    assert_int_equal(d->ops->object_find(d, 0, "18446744073709551616"), -1); /* too big */
    assert_int_equal(d->ops->object_find(d, 0, "010000000000000000000"), -1);
    assert_int_equal(d->ops->object_find(d, 0, "+9999999999999999999"), -1);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_wrong_columns(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    aobj(a, 1, 1, 100, 1, 0, 1, 0, 0, 0);
    g_string_append(a, "2 1 200 0 0 0 1 0 1 0 0 0 0 0 0\n");        /* 15 columns */
    g_string_append(a, "3 1 300 0 0 0 1 0 1 0 0 0 0 0 0 0 77\n");   /* 17 columns */
    g_string_append(a, "4 1 \"four hundred\" 0 0 0 1 0 1 0 0 0 0 0 0 0\n"); /* not a number */
    g_string_append(a, "\"x\" 1 500 0 0 0 1 0 1 0 0 0 0 0 0 0\n");  /* id not a number */
    v2_snap(t, 1, "", ACAT, "", "1 1 1\n", "1 \"a.p\" 0\n", "", "1 1 0 0\n", a->str, "",
            "9\n");
    hf_dump *d = open_text(t->str);
    char *names = object_names(d, 0);
    assert_string_equal(names, "1 3 4");
    g_free(names);
    assert_true(has_problem(d, "15 columns, expected 16; line skipped"));
    assert_true(has_problem(d, "17 columns, expected 16; the first 16 read"));
    assert_true(has_problem(d, "column 3 is not an integer"));
    assert_true(has_problem(d, "id in column 1 is not a number"));
    assert_true(has_problem(d, "PlatObjData): 3 columns, expected 4"));
    assert_true(has_problem(d, "DeletedObjs): 1 columns, expected 2"));
    char *o = object_info(d, 0, "4");
    assert_true(has_line(o, "bytes: 0"));
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_unknown_values(void **state)
{
    GString *t = g_string_new(NULL);
    v2_snap(t, 1, "", ACAT, "", "", "1 ? 0\n", "", "1 1 0 0\n",
            "1 1 ? ? ? ? 1 ? 1 ? ? ? ? ? ? ?\n", "", "");
    v2_snap(t, 2, "", "", "", "", "", "", "", "", "1 1 ? 5 5 0\n", "");
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_objects(d, 0), 1);
    char *o = object_info(d, 1, "1");
    assert_true(has_line(o, "bytes: 0"));
    assert_true(has_line(o, "created: ?"));
    assert_true(has_line(o, "line: ?"));
    assert_true(has_line(o, "name: ?")); /* SrcName is the unknown value */
    assert_true(has_line(o, "abk: 5"));  /* from the change line */
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

/* Version 1: AppObjData holds new and changed objects; names and nodes come
 * after the objects that use them in the same snapshot. */
static void test_v1_order(void **state)
{
    GString *t = g_string_new(NULL);
    g_string_append(t, V1_HDR(5));
    g_string_append(t, ".\n\"Procedure\" 1\n\"OOABL Obj\" 2\n.\n.\n"); /* catalogs */
    g_string_append(t, "10 2 64 0 0 1 3 4 7 0 0 0 0 0 0 0\n.\n");    /* AppObjData */
    g_string_append(t, ".\n.\n3 7 0 0\n.\n7 \"Late.cls\" 0\n.\n.\n");   /* PData Del Nodes ABL Other */
    g_string_append(t, V1_TRL);
    g_string_append(t, V1_HDR(9));
    g_string_append(t, ".\n.\n.\n10 2 96 0 0 1 3 4 7 0 0 0 0 0 0 0\n.\n.\n.\n.\n.\n.\n");
    g_string_append(t, V1_TRL);
    g_string_append(t, V1_HDR(12));
    g_string_append(t, ".\n.\n.\n.\n.\n10 7\n.\n.\n.\n.\n");
    g_string_append(t, V1_TRL);
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->problems->len, 0);
    assert_int_equal(d->ops->snapshot_number(d, 1), 9);
    char *o = object_info(d, 0, "10");
    assert_true(has_line(o, "name: Late.cls"));
    assert_true(has_line(o, "bytes: 64"));
    g_free(o);
    o = object_info(d, 1, "10");
    assert_true(has_line(o, "bytes: 96"));
    g_free(o);
    char *c = snap_file(d, 1, "changed");
    assert_true(has_line(c, "10 64 96 +32 OOABL Obj\tLate.cls"));
    g_free(c);
    assert_int_equal(d->ops->n_objects(d, 2), 0);
    c = snap_file(d, 2, "deleted");
    assert_true(has_line(c, "10 96 7 OOABL Obj\tLate.cls"));
    g_free(c);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

static void test_object_events(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    aobj(a, 1, 1, 10, 0, 0, 0, 0, 0, 0);
    aobj(a, 2, 1, 20, 0, 0, 0, 0, 0, 0);
    v2_snap(t, 1, "", ACAT, "", "", "", "", "", a->str, "", "");
    g_string_truncate(a, 0);
    aobj(a, 1, 1, 11, 0, 0, 0, 0, 0, 0); /* created again while live (V2) */
    aobj(a, 3, 1, 30, 0, 0, 0, 0, 0, 0); /* created and deleted here */
    v2_snap(t, 2, "", "", "", "", "", "", "", a->str, "77 1 5 0 0 0\n", "2 1\n3 2\n2 3\n99 4\n");
    g_string_truncate(a, 0);
    aobj(a, 2, 1, 22, 0, 0, 0, 0, 0, 0); /* id used again after deletion */
    v2_snap(t, 4, "", "", "", "", "", "", "", a->str, "3 1 5 0 0 0\n", "");
    hf_dump *d = open_text(t->str);
    assert_true(has_problem(d, "object 1 created again; read as a change"));
    assert_true(has_problem(d, "changed object 77 was never created"));
    assert_true(has_problem(d, "deleted object 2 was deleted in snapshot 2"));
    assert_true(has_problem(d, "deleted object 99 was never created"));
    assert_true(has_problem(d, "object id 2 used again after its deletion in snapshot 2"));
    assert_true(has_problem(d, "changed object 3 was deleted in snapshot 2"));
    char *names = object_names(d, 1);
    assert_string_equal(names, "1");
    g_free(names);
    char *c = snap_file(d, 1, "created");
    assert_true(has_line(c, "3 30 Procedure\t")); /* listed, though gone at the end */
    g_free(c);
    c = snap_file(d, 1, "deleted");
    assert_true(has_line(c, "3 30 2 Procedure\t"));
    g_free(c);
    names = object_names(d, 2);
    assert_string_equal(names, "1 2");
    g_free(names);
    char *o = object_info(d, 2, "2");
    assert_true(has_line(o, "bytes: 22"));
    assert_true(has_line(o, "created in snapshot: 4"));
    g_free(o);
    o = object_info(d, 1, "1");
    assert_true(has_line(o, "bytes: 11"));
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_structure(void **state)
{
    /* A lost '.' damages one snapshot; the next header starts the next. */
    GString *t = g_string_new(NULL);
    g_string_append(t, V2_HDR(1));
    g_string_append(t, ".\n\"Procedure\" 1\n.\n.\n.\n.\n.\n.\n");        /* to AppObjData */
    g_string_append(t, "1 1 10 0 0 0 0 0 0 0 0 0 0 0 0 0\n");          /* no '.' after it */
    g_string_append(t, V2_HDR(2));
    g_string_append(t, ".\n.\n.\n.\n.\n.\n.\n2 1 20 0 0 0 0 0 0 0 0 0 0 0 0 0\n.\n.\n.\n");
    g_string_append(t, V2_TRL(2));
    g_string_append(t, "stray line\n");
    g_string_append(t, V2_HDR(2)); /* sequence number repeated */
    g_string_append(t, ".\n.\n.\n.\n.\n.\n.\n.\n.\n.\n");
    g_string_append(t, V2_TRL(2));
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_snapshots(d), 3);
    assert_int_equal(d->ops->snapshot_number(d, 2), 3);
    assert_true(has_problem(d, "a new snapshot begins before this one ended"));
    assert_true(has_problem(d, "line outside any snapshot"));
    assert_true(has_problem(d, "sequence number 2 does not follow 2; shown as 3"));
    char *names = object_names(d, 1);
    assert_string_equal(names, "1 2");
    g_free(names);
    char *info = snap_file(d, 2, "info");
    assert_true(has_line(info, "SnapshotSeq: 2"));
    assert_true(has_line(info, "directory: 3 (SnapshotSeq missing or out of order)"));
    g_free(info);
    info = snap_file(d, 0, "info");
    assert_true(has_line(info, "complete: no (8 of 12 sections; ends in AppObjData)"));
    g_free(info);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

static void test_bom_crlf(void **state)
{
    /* small-v2.oemp as a Windows tool might leave it: BOM and CRLF */
    char *p = data_path("small-v2.oemp");
    gchar *text;
    assert_true(g_file_get_contents(p, &text, NULL, NULL));
    g_free(p);
    char **lines = g_strsplit(text, "\n", -1);
    char *crlf = g_strjoinv("\r\n", lines);
    char *all = g_strconcat("\xEF\xBB\xBF", crlf, NULL);
    hf_dump *d = open_text(all);
    check_small(d);
    hf_dump_close(d);
    g_free(all);
    g_free(crlf);
    g_strfreev(lines);
    g_free(text);
}

static void test_refused(void **state)
{
    GError *e = NULL;
    const char *v3 = "3 1 1 \"t\" \"s\" \"tag\" \"\" \"\" 0 \"u\"\n.\n";
    assert_null(open_len(v3, strlen(v3), &e));
    assert_non_null(strstr(e->message, "version 3 is not supported"));
    g_clear_error(&e);
    const char *cut = "1 3277 1 \"2022\" \"AS-4\" \"_AUTO\" \"";
    assert_null(open_len(cut, strlen(cut), &e));
    assert_non_null(e);
    g_clear_error(&e);
}

/* Cutting small-v1.oemp at every byte: never a crash, never a live count
 * that disagrees with the objects listed; complete snapshots stay right. */
static void test_truncation(void **state)
{
    char *p = data_path("small-v1.oemp");
    gchar *text;
    gsize len;
    assert_true(g_file_get_contents(p, &text, &len, NULL));
    g_free(p);
    /* the end of the third snapshot's header line */
    const char *third = strstr(text, "1 3277 3 ");
    assert_non_null(third);
    size_t third_end = (size_t)(strchr(third, '\n') - text) + 1;
    for (size_t n = 1; n < len; n++) {
        GError *e = NULL;
        hf_dump *d = open_len(text, n, &e);
        if (!d) {
            assert_non_null(e);
            g_clear_error(&e);
            continue;
        }
        uint32_t ns = d->ops->n_snapshots(d);
        assert_true(ns >= 1 && ns <= 3);
        /* a cut between two snapshots (or before the last newline) leaves
         * a clean recording; anywhere else it is a problem */
        bool between = (text[n - 1] == '\n' && strncmp(text + n, "1 3277 ", 7) == 0) ||
                       (text[n] == '\n' && strncmp(text + n + 1, "1 3277 ", 7) == 0) ||
                       n == len - 1;
        if (!between && d->problems->len == 0)
            fail_msg("cut at %zu: no problem reported", n);
        if (n >= third_end) {
            assert_int_equal(ns, 3);
            char *names = object_names(d, 1);
            assert_string_equal(names, "1001 1002 1003 1004 1006 1007 1008");
            g_free(names);
        }
        render_everything(d);
        hf_dump_close(d);
    }
    g_free(text);
}

/* ---- the lifetime index -------------------------------------------------- */

/* A generated recording with enough objects for several checkpoints: each
 * snapshot creates `per` objects, resizes some and deletes a pseudo-random
 * choice of the live ones.  Every snapshot's live set, object sizes and
 * totals are checked against a replay done here. */
static void test_lifetime_index(void **state)
{
    enum { SNAPS = 60, PER = 4000 };
    GString *t = g_string_new(NULL);
    GArray *live = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    GHashTable *size = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GPtrArray *want_names = g_ptr_array_new_with_free_func(g_free);
    GArray *want_bytes = g_array_new(FALSE, FALSE, sizeof(int64_t));
    uint64_t next_id = 5, rng = 42;
    for (int s = 1; s <= SNAPS; s++) {
        GString *a = g_string_new(NULL), *chg = g_string_new(NULL), *del = g_string_new(NULL);
        GArray *keep = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        for (guint i = 0; i < live->len; i++) {
            uint64_t id = g_array_index(live, uint64_t, i);
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned r = (unsigned)(rng >> 33) % 100;
            if (r < 20) {
                g_string_append_printf(del, "%" G_GUINT64_FORMAT " %d\n", id, s);
                g_hash_table_remove(size, &id);
            } else {
                if (r < 25) {
                    int64_t *m = g_hash_table_lookup(size, &id);
                    *m += 8;
                    g_string_append_printf(chg, "%" G_GUINT64_FORMAT " 1 %" G_GINT64_FORMAT
                                           " 0 0 0\n", id, *m);
                }
                g_array_append_val(keep, id);
            }
        }
        for (int i = 0; i < PER; i++) {
            uint64_t id = next_id;
            next_id += 3;
            int64_t mem = (int64_t)(id % 97) + 1;
            aobj(a, id, 1, mem, 1, 1, 0, 0, 0, 0);
            g_array_append_val(keep, id);
            int64_t *k = g_new(int64_t, 1), *v = g_new(int64_t, 1);
            *k = (int64_t)id;
            *v = mem;
            g_hash_table_insert(size, k, v);
        }
        g_array_free(live, TRUE);
        live = keep;
        v2_snap(t, s, "", s == 1 ? ACAT : "", "", "", s == 1 ? "1 \"x.p\" 0\n" : "", "",
                s == 1 ? "1 1 0 0\n" : "", a->str, chg->str, del->str);
        GString *names = g_string_new(NULL);
        int64_t bytes = 0;
        for (guint i = 0; i < live->len; i++) {
            uint64_t id = g_array_index(live, uint64_t, i);
            bytes += *(int64_t *)g_hash_table_lookup(size, &id);
            g_string_append_printf(names, "%s%" G_GUINT64_FORMAT, i ? " " : "", id);
        }
        g_ptr_array_add(want_names, g_string_free(names, FALSE));
        g_array_append_val(want_bytes, bytes);
        g_string_free(a, TRUE);
        g_string_free(chg, TRUE);
        g_string_free(del, TRUE);
    }
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->problems->len, 0);
    assert_true(((oemp_dump *)d)->checkpoints->len >= 2);
    /* out of order, twice, so both cache hits and rebuilds are checked */
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < SNAPS; i++) {
            uint32_t s = (uint32_t)((i * 37 + round * 11) % SNAPS);
            char *names = object_names(d, s);
            assert_string_equal(names, g_ptr_array_index(want_names, s));
            g_free(names);
            char *info = snap_file(d, s, "info");
            char *line = g_strdup_printf("live bytes: %" G_GINT64_FORMAT,
                                         g_array_index(want_bytes, int64_t, s));
            assert_true(has_line(info, line));
            g_free(line);
            g_free(info);
        }
    }
    /* the histogram and the pprof totals agree with the replay */
    char *h = snap_file(d, SNAPS - 1, "histogram");
    char *want = g_strdup_printf("%" G_GINT64_FORMAT "  Procedure",
                                 g_array_index(want_bytes, int64_t, SNAPS - 1));
    assert_non_null(strstr(h, want));
    g_free(want);
    g_free(h);
    check_histograms(d, SNAPS - 1);
    /* a big list in pieces gives the same bytes as in one go */
    const hf_file *files = d->ops->snapshot.files;
    int created = th_file_index(files, "created");
    assert_true(created >= 0);
    g_free(th_render_chunked(d, files[created].render,
                             (hf_view){.snap = 10, .file = (uint32_t)created}, 100));
    hf_dump_close(d);
    g_ptr_array_free(want_names, TRUE);
    g_array_free(want_bytes, TRUE);
    g_hash_table_destroy(size);
    g_array_free(live, TRUE);
    g_string_free(t, TRUE);
}

/* Several threads at once on one dump (the FUSE daemon's situation). */
typedef struct {
    hf_dump *d;
    char **expect; /* per snapshot: object names */
    int seed;
} thread_arg;

static gpointer worker(gpointer p)
{
    thread_arg *a = p;
    uint32_t n = a->d->ops->n_snapshots(a->d);
    for (int i = 0; i < 200; i++) {
        uint32_t s = (uint32_t)((i * 7 + a->seed * 13) % n);
        char *names = object_names(a->d, s);
        if (strcmp(names, a->expect[s]) != 0)
            return GINT_TO_POINTER(1);
        g_free(names);
        g_free(snap_file(a->d, s, i % 2 ? "heap.pprof" : "histogram"));
    }
    return NULL;
}

static void test_threads(void **state)
{
    hf_dump *d = open_data("small-v2.oemp");
    char *expect[3];
    for (uint32_t s = 0; s < 3; s++)
        expect[s] = object_names(d, s);
    GThread *th[6];
    thread_arg args[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (thread_arg){d, expect, i};
        th[i] = g_thread_new("w", worker, &args[i]);
    }
    for (int i = 0; i < 6; i++)
        assert_null(g_thread_join(th[i]));
    for (uint32_t s = 0; s < 3; s++)
        g_free(expect[s]);
    hf_dump_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens_basic),   cmocka_unit_test(test_tokens_quotes),
        cmocka_unit_test(test_tokens_bad),     cmocka_unit_test(test_lines),
        cmocka_unit_test(test_oneline),        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_small_v1),       cmocka_unit_test(test_small_v2),
        cmocka_unit_test(test_versions_agree), cmocka_unit_test(test_sections),
        cmocka_unit_test(test_wrong_columns),  cmocka_unit_test(test_unknown_values),
        cmocka_unit_test(test_v1_order),       cmocka_unit_test(test_object_events),
        cmocka_unit_test(test_structure),      cmocka_unit_test(test_refused),
        cmocka_unit_test(test_truncation),     cmocka_unit_test(test_lifetime_index),
        cmocka_unit_test(test_threads),        cmocka_unit_test(test_scope_gone),
        cmocka_unit_test(test_bom_crlf),       cmocka_unit_test(test_big_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
