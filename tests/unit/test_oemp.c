/*
 * test_oemp.c - the OpenEdge memory profiler recording (.oemp) decoder:
 * its tokenizer, the readable recordings and the lifetime index.
 *
 * Oracles: the two hand-written recordings in tests/fixtures (small-v1.oemp and
 * its version 2 twin small-v2.oemp, readable by eye, expected values worked
 * out by hand in the comments below); and, for the lifetime index, a
 * brute-force replay of a generated recording big enough to have several
 * checkpoints.  test_oemp_built.c reads recordings built line by line.
 */
#include "decoders/oemp/oemp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

/* ---- helpers -------------------------------------------------------------- */

static hf_dump *open_data(const char *name)
{
    char *p = th_fixture(name);
    GError *e = NULL;
    hf_dump *d = hf_open(p, NULL, &e);
    if (!d)
        fail_msg("%s: %s", p, e ? e->message : "?");
    assert_string_equal(d->ops->format, "oemp");
    g_free(p);
    return d;
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
    char *h = th_snap_file_needed(d, s, "histogram"),
         *hn = th_snap_file_needed(d, s, "histogram-by-name");
    parse_hist(h, "# objects\tbytes\ttype\n", tc, tb, false);
    parse_hist(hn, "# objects\tbytes\ttype\tname\n", nc, nb, true);
    char *info = th_snap_file_needed(d, s, "info");
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
    assert_string_equal(s->str, "a\\nb\\tc\\\\d\\x01");
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
    char *names = th_object_names(d, 0);
    assert_string_equal(names, "1001 1002 1003 1004 1005 1006");
    g_free(names);
    names = th_object_names(d, 1);
    assert_string_equal(names, "1001 1002 1003 1004 1006 1007 1008");
    g_free(names);
    names = th_object_names(d, 2);
    assert_string_equal(names, "1001 1002 1003 1007 1008 1009");
    g_free(names);
    assert_int_equal(d->ops->object_find(d, 2, "1004"), -1);
    assert_int_equal(d->ops->object_find(d, 2, "01001"), -1);
    assert_int_equal(d->ops->object_find(d, 2, "1001x"), -1);

    char *info = th_snap_file_needed(d, 0, "info");
    assert_true(th_has_line(info, "live objects: 6"));
    assert_true(th_has_line(info, "live bytes: 7340"));
    assert_true(th_has_line(info, "complete: yes"));
    assert_true(th_has_line(info, "Tag: _AUTO"));
    assert_true(th_has_line(info, "CPU: 22.45"));
    assert_true(th_has_line(info, "appMemTot: 7340"));
    g_free(info);
    info = th_snap_file_needed(d, 1, "info");
    assert_true(th_has_line(info, "live bytes: 11308"));
    assert_true(th_has_line(info, "changed bytes: 1024"));
    g_free(info);
    info = th_snap_file_needed(d, 2, "info");
    assert_true(th_has_line(info, "live objects: 6"));
    assert_true(th_has_line(info, "live bytes: 15324"));
    assert_true(th_has_line(info, "CPU: ?"));
    assert_true(th_has_line(info, "deleted objects: 2"));
    assert_true(th_has_line(info, "deleted bytes: 556"));
    g_free(info);

    /* histogram: by type; histogram-by-name: by type and name */
    char *h = th_snap_file_needed(d, 1, "histogram");
    assert_true(th_has_line(h, "2\t6144\tProcedure"));
    assert_true(th_has_line(h, "1\t1024\tTemp-Table"));
    assert_true(th_has_line(h, "1\t300\tDynamic Query")); /* unnamed too */
    assert_null(strstr(h, "main.p")); /* no names: by type only */
    g_free(h);
    h = th_snap_file_needed(d, 1, "histogram-by-name");
    assert_true(th_has_line(h, "1\t4096\tProcedure\tmain.p"));
    assert_true(th_has_line(h, "1\t2048\tProcedure\torders.p"));
    assert_true(th_has_line(h, "1\t1024\tTemp-Table\ttt \"quoted\" name"));
    assert_true(th_has_line(h, "1\t256\tOO Builtin\tProgress.Collections.List<Order>"));
    assert_true(th_has_line(h, "1\t3072\tOOABL Obj\tOrderMgr.cls"));
    assert_true(th_has_line(h, "1\t512\tNamed Widget Pool\tmy pool"));
    assert_null(strstr(h, "Dynamic Query")); /* no name, no by-name line */
    g_free(h);
    h = th_snap_file_needed(d, 0, "histogram-by-name");
    assert_true(th_has_line(h, "1\t128\tOO Builtin\tProgress.Lang.Object"));
    g_free(h);
    h = th_snap_file_needed(d, 0, "histogram");
    assert_true(th_has_line(h, "2\t384\tOO Builtin"));
    g_free(h);
    for (uint32_t s = 0; s < 3; s++)
        check_histograms(d, s);

    char *c = th_snap_file_needed(d, 1, "created");
    assert_string_equal(c, "# id\tbytes\ttype\tname\n1007\t1024\tTemp-Table\ttt \"quoted\" name\n"
                           "1008\t2048\tProcedure\torders.p\n");
    g_free(c);
    c = th_snap_file_needed(d, 1, "changed");
    assert_string_equal(c, "# id\tbytes_before\tbytes_after\tdelta\ttype\tname\n"
                           "1002\t2048\t3072\t1024\tOOABL Obj\tOrderMgr.cls\n");
    g_free(c);
    c = th_snap_file_needed(d, 2, "deleted");
    assert_string_equal(c, "# id\tbytes\tdeltime\ttype\tname\n1006\t300\t3100\tDynamic Query\t\n"
                           "1004\t256\t3200\tOO Builtin\tProgress.Collections.List<Order>\n");
    g_free(c);
    c = th_snap_file_needed(d, 1, "platform");
    assert_true(th_has_line(c, "3\t8192\t16384\t8192\tTemp-table DB (-Bt)"));
    g_free(c);

    char *o = th_object_file(d, 2, "1007", "info");
    assert_true(th_has_line(o, "name: tt \"quoted\" name"));
    assert_true(th_has_line(o, "bytes: 4096"));
    assert_true(th_has_line(o, "temp-table: 5"));
    assert_true(th_has_line(o, "scope: 1002"));
    assert_true(th_has_line(o, "created in snapshot: 2"));
    assert_true(th_has_line(o, "changed in snapshot: 3"));
    assert_null(strstr(o, "OrderMgr")); /* the creation stack is in stack, not info */
    g_free(o);
    o = th_object_file(d, 2, "1007", "stack");
    assert_string_equal(o, "ProcessOrder OrderMgr.cls:60\nOrderMgr.cls:20\nmain.p:12\n");
    g_free(o);
    o = th_object_file(d, 1, "1007", "info"); /* the same object one snapshot earlier */
    assert_true(th_has_line(o, "bytes: 1024"));
    assert_true(th_has_line(o, "temp-table: 0"));
    g_free(o);
    o = th_object_file(d, 2, "1009", "info");
    assert_true(th_has_line(o, "name: Say \"Hi\" proc.p"));
    assert_true(th_has_line(o, "abk: ?"));
    g_free(o);
    o = th_object_file(d, 2, "1009", "stack");
    assert_string_equal(o, "orders.p:7\nmain.p:30\n");
    g_free(o);
    o = th_object_file(d, 0, "1005", "info");
    assert_true(th_has_line(o, "name: Progress.Lang.Object"));
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

    char *p = th_snap_file_needed(d, 2, "heap.pprof");
    assert_non_null(strstr(p, "heap profile:      6:    15324 [     6:    15324] @ heapprofile"));
    assert_non_null(strstr(p, " orders.p:7\n"));
    g_free(p);
    char *f = th_snap_file_needed(d, 2, "stacks.folded");
    assert_true(th_has_line(f, "main.p:30;orders.p:7 1500"));
    assert_true(th_has_line(f, "main.p:12;OrderMgr.cls:20;ProcessOrder OrderMgr.cls:60 4096"));
    g_free(f);
    char *i = th_info(d);
    assert_true(th_has_line(i, "snapshots: 3"));
    assert_true(th_has_line(i, "time span: 4.000000 s"));
    assert_true(th_has_line(i, "process: 3277"));
    assert_true(th_has_line(i, "uuid: 9f2c1e4a-8d1b-4c36-b7e0-1a2b3c4d5e6f"));
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
    char *info = th_snap_file_needed(d, 0, "info");
    assert_true(th_has_line(info, "OEVersion: 12.8.3"));
    assert_true(th_has_line(info, "Description: nightly run"));
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
            char *x = th_snap_file_needed(a, s, files[f]), *y = th_snap_file_needed(b, s, files[f]);
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

static void test_bom_crlf(void **state)
{
    /* small-v2.oemp as a Windows tool might leave it: BOM and CRLF */
    char *p = th_fixture("small-v2.oemp");
    gchar *text;
    assert_true(g_file_get_contents(p, &text, NULL, NULL));
    g_free(p);
    char **lines = g_strsplit(text, "\n", -1);
    char *crlf = g_strjoinv("\r\n", lines);
    char *all = g_strconcat("\xEF\xBB\xBF", crlf, NULL);
    hf_dump *d = th_open_temp(all, strlen(all), NULL, NULL, NULL);
    check_small(d);
    hf_dump_close(d);
    g_free(all);
    g_free(crlf);
    g_strfreev(lines);
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
            th_oemp_aobj(a, id, 1, mem, 1, 1, 0, 0, 0, 0);
            g_array_append_val(keep, id);
            int64_t *k = g_new(int64_t, 1), *v = g_new(int64_t, 1);
            *k = (int64_t)id;
            *v = mem;
            g_hash_table_insert(size, k, v);
        }
        g_array_free(live, TRUE);
        live = keep;
        th_oemp_snap(t, s, "", s == 1 ? TH_OEMP_ACAT : "", "", "", s == 1 ? "1 \"x.p\" 0\n" : "",
                     "", s == 1 ? "1 1 0 0\n" : "", a->str, chg->str, del->str);
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
    hf_dump *d = th_open_temp(t->str, t->len, NULL, NULL, NULL);
    assert_int_equal(d->problems->len, 0);
    assert_true(((oemp_dump *)d)->checkpoints->len >= 2);
    /* out of order, twice, so both cache hits and rebuilds are checked */
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < SNAPS; i++) {
            uint32_t s = (uint32_t)((i * 37 + round * 11) % SNAPS);
            char *names = th_object_names(d, s);
            assert_string_equal(names, g_ptr_array_index(want_names, s));
            g_free(names);
            char *info = th_snap_file_needed(d, s, "info");
            char *line = g_strdup_printf("live bytes: %" G_GINT64_FORMAT,
                                         g_array_index(want_bytes, int64_t, s));
            assert_true(th_has_line(info, line));
            g_free(line);
            g_free(info);
        }
    }
    /* the histogram and the pprof totals agree with the replay */
    char *h = th_snap_file_needed(d, SNAPS - 1, "histogram");
    char *want = g_strdup_printf("\t%" G_GINT64_FORMAT "\tProcedure",
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
        char *names = th_object_names(a->d, s);
        if (strcmp(names, a->expect[s]) != 0)
            return GINT_TO_POINTER(1);
        g_free(names);
        g_free(th_snap_file_needed(a->d, s, i % 2 ? "heap.pprof" : "histogram"));
    }
    return NULL;
}

static void test_threads(void **state)
{
    hf_dump *d = open_data("small-v2.oemp");
    char *expect[3];
    for (uint32_t s = 0; s < 3; s++)
        expect[s] = th_object_names(d, s);
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
        cmocka_unit_test(test_versions_agree), cmocka_unit_test(test_bom_crlf),
        cmocka_unit_test(test_lifetime_index), cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
