/*
 * test_v8_index.c - a V8 snapshot's index file (decoders/v8/store.c): a
 * snapshot opened, its index file written, opened again from that file
 * (no JSON read), every view the same; gzipped and cut snapshots too; a
 * damaged file refused (the .stats line says why) and the snapshot read
 * again.  A series: an index file per snapshot file, the one a mount of
 * that file alone reads and writes; loaded, every view the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/core/keepfmt.h"
#include "decoders/pprof/proto.h"
#include "decoders/v8/v8.h"

/* A snapshot of 5 nodes with a string that needs decoding, a weak edge
 * and an allocation call tree of two functions (traces.c). */
static const char snap[] =
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
    "\"edge_count\",\"trace_node_id\"],\"node_types\":[[\"hidden\",\"array\",\"string\","
    "\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],"
    "\"string\",\"number\",\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\","
    "\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\","
    "\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"],"
    "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\","
    "\"script_id\",\"line\",\"column\"],\"trace_node_fields\":[\"id\","
    "\"function_info_index\",\"count\",\"size\",\"children\"]},\"node_count\":5,"
    "\"edge_count\":5,\"trace_function_count\":2},\n"
    "\"nodes\":[9,0,1,0,2,0,\n3,1,3,10,2,2,\n3,2,5,20,1,3,\n2,3,7,16,0,3,\n3,4,9,40,0,0],\n"
    "\"edges\":[5,5,6,1,1,12,\n2,6,12,6,7,24,\n2,6,18],\n"
    "\"trace_function_infos\":[1,8,9,1,3,5,2,10,9,1,7,2],\n"
    "\"trace_tree\":[1,0,0,0,[2,0,1,10,[3,1,2,36,[]]]],\n"
    "\"strings\":[\"\",\"Global\",\"Thing\",\"h\\u00e9llo\\n\\\"q\\\"\",\"Weak\","
    "\"g\",\"x\",\"w\",\"outer\",\"app.js\",\"inner\"]}";

static char *tmpdir(void)
{
    char *d = g_strdup("/tmp/test_v8_index.XXXXXX");
    assert_non_null(g_mkdtemp(d));
    return d;
}

static char *status(hf_dump *d)
{
    GString *s = g_string_new(NULL);
    d->ops->status(d, s);
    return g_string_free(s, FALSE);
}

static void append_file(GString *all, const char *name, char *text)
{
    g_string_append_printf(all, "== %s\n%s", name, text);
    g_free(text);
}

/* Everything the dump shows, as one text: info, problems, traces, every
 * snapshot's files, every object's name and files. */
static char *everything(hf_dump *d)
{
    GString *all = g_string_new(NULL);
    append_file(all, "info", th_info(d));
    append_file(all, "problems", th_problems(d));
    for (uint64_t t = 0; t < d->ops->n_traces(d); t++)
        append_file(all, "trace", th_trace(d, t));
    for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
        char *files = th_snap_files(d, s);
        char **names = g_strsplit(files, " ", -1);
        for (char **n = names; *n; n++)
            if (**n)
                append_file(all, *n, th_snap_file(d, s, *n));
        g_strfreev(names);
        g_free(files);
        char *objects = th_object_names(d, s);
        g_string_append_printf(all, "== objects of %u\n%s\n", s + 1, objects);
        char **obj = g_strsplit(objects, " ", -1);
        const char *ofiles[] = {"info", "edges", "value", "retained"};
        for (char **o = obj; *o; o++)
            for (size_t f = 0; f < G_N_ELEMENTS(ofiles); f++)
                if (th_object_has(d, s, *o, ofiles[f]))
                    append_file(all, ofiles[f], th_object_file(d, s, *o, ofiles[f]));
        g_strfreev(obj);
        g_free(objects);
    }
    return g_string_free(all, FALSE);
}

/* Opens path with its index file at ix; *line gets the .stats line. */
static hf_dump *open_ix(const char *path, const char *ix, char **line)
{
    hf_open_opts opts = {.index = ix};
    GError *e = NULL;
    hf_dump *d = hf_open(path, &opts, &e);
    if (!d)
        fail_msg("open %s: %s", path, e ? e->message : "?");
    *line = status(d);
    return d;
}

static void assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("no '%s' in '%.2000s'", part, text); /* (the part first: texts are long) */
}

/* contents written as DIR/s.heapsnapshot, opened, its index file written,
 * opened again from it: the same views.  Returns the dump's text. */
static char *round_trip(const char *dir, const void *contents, size_t len, char **path,
                        char **ix)
{
    *path = g_build_filename(dir, "s.heapsnapshot", NULL);
    *ix = g_build_filename(dir, "s.ix", NULL);
    assert_true(g_file_set_contents(*path, contents, (gssize)len, NULL));
    char *line;
    hf_dump *d = open_ix(*path, *ix, &line);
    assert_has(line, "index: built in");
    g_free(line);
    d->ops->after_mount(d);
    line = status(d);
    assert_has(line, "written to");
    g_free(line);
    char *first = everything(d);
    hf_dump_close(d);
    d = open_ix(*path, *ix, &line);
    assert_has(line, "index: loaded from");
    g_free(line);
    char *second = everything(d);
    assert_string_equal(first, second);
    d->ops->after_mount(d); /* loaded: nothing to write */
    hf_dump_close(d);
    g_free(second);
    return first;
}

/* Removes what round_trip made, the retained sizes' results file beside
 * the index file too (and frees the names). */
static void remove_all(char *dir, char *path, char *ix)
{
    char *results = g_strconcat(ix, ".retained-strong.1", NULL);
    unlink(results);
    g_free(results);
    unlink(ix);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else was written */
    g_free(ix);
    g_free(path);
    g_free(dir);
}

static void test_round_trip(void **state)
{
    char *dir = tmpdir(), *path, *ix;
    char *text = round_trip(dir, snap, sizeof snap - 1, &path, &ix);
    /* what the file gives was decoded and derived: a string, the weak
     * edge's target under the root, the call tree */
    assert_has(text, "h\xc3\xa9llo\\n\"q\"");
    assert_has(text, "inner (app.js:7:2)");
    assert_has(text, "under the root for want of a strong retainer: 1");
    g_free(text);
    remove_all(dir, path, ix);
}

/* Gzipped: the index holds the strings, so the second open inflates
 * nothing and still shows them. */
static void test_gzip(void **state)
{
    GString *gz = g_string_new(NULL);
    hf_gzip_append((const uint8_t *)snap, sizeof snap - 1, gz);
    char *dir = tmpdir(), *path, *ix;
    char *text = round_trip(dir, gz->str, gz->len, &path, &ix);
    assert_has(text, "gzip: yes");
    assert_has(text, "h\xc3\xa9llo");
    g_free(text);
    remove_all(dir, path, ix);
    g_string_free(gz, TRUE);
}

/* Cut anywhere after the nodes: the partial snapshot and its problems
 * come back from the index file as they were. */
static void test_cut(void **state)
{
    size_t from = (size_t)(strstr(snap, "\"edges\"") - snap);
    for (size_t len = from; len < sizeof snap - 1; len += 7) {
        char *dir = tmpdir(), *path, *ix;
        g_free(round_trip(dir, snap, len, &path, &ix));
        remove_all(dir, path, ix);
    }
}

/* Flips a byte in the middle of every section checked whole (kind 2:
 * CRC-32), one at a time: the next open refuses the file, says why,
 * reads the snapshot and writes the file anew. */
static void test_damaged(void **state)
{
    char *dir = tmpdir(), *path, *ix;
    char *want = round_trip(dir, snap, sizeof snap - 1, &path, &ix);
    gchar *good;
    gsize len;
    assert_true(g_file_get_contents(ix, &good, &len, NULL));
    const hf_keephdr *hd = (const hf_keephdr *)(const void *)good;
    unsigned damaged = 0;
    for (uint32_t i = 0; i < hd->n_sections; i++) {
        hf_keepent e;
        memcpy(&e, good + sizeof *hd + i * sizeof e, sizeof e);
        if (e.kind != 2 || !e.len)
            continue;
        char *bad = g_memdup2(good, len);
        bad[e.off + e.len / 2] ^= 0x5a;
        assert_true(g_file_set_contents(ix, bad, (gssize)len, NULL));
        g_free(bad);
        char *line;
        hf_dump *d = open_ix(path, ix, &line);
        assert_has(line, "index: built in");
        assert_has(line, "damaged (checksum)");
        g_free(line);
        char *text = everything(d);
        assert_string_equal(text, want);
        g_free(text);
        d->ops->after_mount(d);
        hf_dump_close(d);
        d = open_ix(path, ix, &line);
        assert_has(line, "index: loaded from");
        g_free(line);
        hf_dump_close(d);
        damaged++;
    }
    assert_true(damaged >= 8); /* types, targets, ranges, bits, orphans, the call tree */
    /* cut short: refused too */
    assert_true(g_file_set_contents(ix, good, (gssize)len - 1000, NULL));
    char *line;
    hf_dump *d = open_ix(path, ix, &line);
    assert_has(line, "truncated or damaged");
    g_free(line);
    hf_dump_close(d);
    g_free(good);
    g_free(want);
    remove_all(dir, path, ix);
}

/* ---- a series ---- */

/* Three snapshots of one process: a, then b with node 9 gone and 11 new,
 * then c with node 7 gone and 13 new (so new and leaks have rows); b is
 * cut in its strings, so it has problems. */
typedef struct {
    char *dir, *path[3];
} series;

static char *variant(const char *from, const char *to, size_t cut)
{
    GString *s = g_string_new_len(snap, sizeof snap - 1);
    char *at = strstr(s->str, from);
    assert_non_null(at);
    size_t pos = (size_t)(at - s->str);
    g_string_erase(s, (gssize)pos, (gssize)strlen(from));
    g_string_insert(s, (gssize)pos, to);
    if (cut)
        g_string_truncate(s, s->len - cut);
    return g_string_free(s, FALSE);
}

static series make_series(void)
{
    series sr = {tmpdir()};
    char *text[3] = {g_strdup(snap), variant("3,4,9,40", "3,4,11,40", 30),
                     variant("2,3,7,16", "2,3,13,16", 0)};
    for (int i = 0; i < 3; i++) {
        char name[32];
        g_snprintf(name, sizeof name, "%c.heapsnapshot", 'a' + i);
        sr.path[i] = g_build_filename(sr.dir, name, NULL);
        assert_true(g_file_set_contents(sr.path[i], text[i], -1, NULL));
        g_free(text[i]);
    }
    return sr;
}

/* The series opened (index=NULL: the files' default places); *line gets
 * its .stats lines. */
static hf_dump *open_series(const series *sr, const char *index, char **line)
{
    hf_open_opts opts = {.index = index};
    GPtrArray *dumps = g_ptr_array_new();
    GError *e = NULL;
    if (!hf_open_files((const char *const *)sr->path, 3, &opts, dumps, &e))
        fail_msg("open the series: %s", e ? e->message : "?");
    assert_int_equal(dumps->len, 1);
    hf_dump *d = g_ptr_array_index(dumps, 0);
    g_ptr_array_free(dumps, TRUE);
    *line = status(d);
    return d;
}

static char *index_of(const series *sr, int i)
{
    return g_strconcat(sr->path[i], ".heapfs-index", NULL);
}

/* Whether each line "index: snapshot N: " of text (N = 1, 2, 3) has
 * what[N - 1] in it. */
static void assert_lines(const char *text, const char *const what[3])
{
    for (int i = 0; i < 3; i++) {
        char *head = g_strdup_printf("index: snapshot %d: ", i + 1);
        const char *at = strstr(text, head);
        if (!at)
            fail_msg("'%s' lacks '%s'", text, head);
        const char *end = strchr(at, '\n');
        char *line = g_strndup(at, (gsize)(end - at));
        assert_has(line, what[i]);
        g_free(line);
        g_free(head);
    }
}

/* The series opened from its index files: loaded, every view as wanted. */
static void assert_loads(const series *sr, const char *want)
{
    char *line;
    hf_dump *d = open_series(sr, NULL, &line);
    assert_lines(line, (const char *const[]){"loaded from", "loaded from", "loaded from"});
    g_free(line);
    char *text = everything(d);
    assert_string_equal(text, want);
    g_free(text);
    d->ops->after_mount(d); /* loaded: nothing to write */
    hf_dump_close(d);
}

/* The series read, its index files written; returns what it shows. */
static char *first_mount(const series *sr, const char *const built[3])
{
    char *line;
    hf_dump *d = open_series(sr, NULL, &line);
    assert_lines(line, built);
    g_free(line);
    char *text = everything(d);
    d->ops->after_mount(d);
    line = status(d);
    for (int i = 0; i < 3; i++)
        if (strstr(built[i], "built in")) {
            char *ix = index_of(sr, i), *w = g_strdup_printf("written to %s ", ix);
            assert_has(line, w);
            g_free(w);
            g_free(ix);
        }
    g_free(line);
    hf_dump_close(d);
    return text;
}

static void remove_series(series *sr)
{
    for (int i = 0; i < 3; i++) {
        char *ix = index_of(sr, i), *results = g_strconcat(ix, ".retained-strong.1", NULL);
        unlink(results);
        unlink(ix);
        unlink(sr->path[i]);
        g_free(results);
        g_free(ix);
        g_free(sr->path[i]);
    }
    assert_int_equal(rmdir(sr->dir), 0); /* nothing else was written */
    g_free(sr->dir);
}

/* A file's views opened alone, from its index file and read. */
static void assert_alone_same(const char *path)
{
    char *ix = g_strconcat(path, ".heapfs-index", NULL), *line;
    hf_dump *d = open_ix(path, ix, &line);
    assert_has(line, "index: loaded from");
    g_free(line);
    char *loaded = everything(d);
    hf_dump_close(d);
    d = open_ix(path, "none", &line);
    char *read = everything(d);
    hf_dump_close(d);
    assert_string_equal(loaded, read);
    g_free(loaded);
    g_free(read);
    g_free(line);
    g_free(ix);
}

static const char *const all_built[3] = {"built in", "built in", "built in"};

/* Read once, writing a file per snapshot file; then loaded, the same
 * views, new and leaks included; and each file, opened alone, loads the
 * file the series wrote and shows what reading it shows. */
static void test_series_round_trip(void **state)
{
    series sr = make_series();
    char *want = first_mount(&sr, all_built);
    assert_has(want, "== new"); /* the views that compare snapshots (growth: fs/) */
    assert_has(want, "== leaks");
    assert_has(want, "b.heapsnapshot: the file ends here"); /* b's problems */
    assert_loads(&sr, want);
    for (int i = 0; i < 3; i++)
        assert_alone_same(sr.path[i]);
    g_free(want);
    remove_series(&sr);
}

/* b mounted alone first: the series loads nothing (a and c have no file)
 * but keeps b's, writes a's and c's, and then loads all three. */
static void test_series_reuses_single(void **state)
{
    series sr = make_series();
    char *ix = index_of(&sr, 1), *line;
    hf_dump *d = open_ix(sr.path[1], ix, &line);
    d->ops->after_mount(d);
    hf_dump_close(d);
    g_free(line);
    gchar *before, *after;
    gsize len_before, len_after;
    assert_true(g_file_get_contents(ix, &before, &len_before, NULL));
    char *want = first_mount(&sr, (const char *const[]){"built in", "valid, not used", "built in"});
    assert_true(g_file_get_contents(ix, &after, &len_after, NULL));
    assert_true(len_before == len_after && memcmp(before, after, len_after) == 0);
    assert_loads(&sr, want);
    g_free(before);
    g_free(after);
    g_free(want);
    g_free(ix);
    remove_series(&sr);
}

/* b's index file damaged in a section checked whole: refused, with why,
 * the series read again (a's and c's kept) and b's written anew. */
static void test_series_damaged(void **state)
{
    series sr = make_series();
    char *want = first_mount(&sr, all_built);
    char *ix = index_of(&sr, 1);
    gchar *good;
    gsize len;
    assert_true(g_file_get_contents(ix, &good, &len, NULL));
    const hf_keephdr *hd = (const hf_keephdr *)(const void *)good;
    uint32_t i = 0;
    hf_keepent e = {0};
    while (i < hd->n_sections && (e.kind != 2 || !e.len))
        memcpy(&e, good + sizeof *hd + i++ * sizeof e, sizeof e);
    assert_int_equal(e.kind, 2);
    good[e.off + e.len / 2] ^= 0x5a;
    assert_true(g_file_set_contents(ix, good, (gssize)len, NULL));
    char *text = first_mount(&sr, (const char *const[]){"valid, not used",
                                                        "damaged (checksum)", "valid, not used"});
    assert_string_equal(text, want);
    assert_loads(&sr, want);
    g_free(text);
    g_free(good);
    g_free(ix);
    g_free(want);
    remove_series(&sr);
}

/* -o index=none: read, nothing written; -o index=FILE names one file. */
static void test_series_none(void **state)
{
    series sr = make_series();
    char *line;
    hf_dump *d = open_series(&sr, "none", &line);
    assert_lines(line, (const char *const[]){"no index file (-o index=none)",
                                             "no index file", "no index file"});
    g_free(line);
    d->ops->after_mount(d);
    hf_dump_close(d);
    hf_open_opts opts = {.index = "/tmp/one.ix"};
    GPtrArray *dumps = g_ptr_array_new();
    GError *e = NULL;
    assert_false(hf_open_files((const char *const *)sr.path, 3, &opts, dumps, &e));
    assert_has(e->message, "names one file");
    g_error_free(e);
    g_ptr_array_free(dumps, TRUE);
    remove_series(&sr); /* (rmdir: nothing was written) */
}

int main(void)
{
    char *cache = tmpdir(); /* nothing may go to the user's cache directory */
    g_setenv("XDG_CACHE_HOME", cache, TRUE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_series_round_trip),
        cmocka_unit_test(test_series_reuses_single),
        cmocka_unit_test(test_series_damaged),
        cmocka_unit_test(test_series_none),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (rmdir(cache) != 0) {
        fprintf(stderr, "%s: something was written into the cache directory\n", cache);
        rc = 1;
    }
    g_free(cache);
    return rc;
}
