/*
 * test_v8_index.c - a V8 snapshot's index file (decoders/v8/store.c): a
 * snapshot opened, its index file written, opened again from that file
 * (no JSON read), every view the same; gzipped and cut snapshots too; a
 * damaged file refused (the .stats line says why) and the snapshot read
 * again; a series writes none.
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

/* Everything the dump shows, as one text: info, problems, every
 * snapshot file, every object's name and files. */
static char *everything(hf_dump *d)
{
    GString *all = g_string_new(NULL);
    append_file(all, "info", th_info(d));
    append_file(all, "problems", th_problems(d));
    char *files = th_snap_files(d, 0);
    char **names = g_strsplit(files, " ", -1);
    for (char **n = names; *n; n++)
        if (**n)
            append_file(all, *n, th_snap_file(d, 0, *n));
    g_strfreev(names);
    g_free(files);
    char *objects = th_object_names(d, 0);
    g_string_append_printf(all, "== objects\n%s\n", objects);
    char **obj = g_strsplit(objects, " ", -1);
    const char *ofiles[] = {"info", "edges", "value", "retained"};
    for (char **o = obj; *o; o++)
        for (size_t f = 0; f < G_N_ELEMENTS(ofiles); f++)
            if (th_object_has(d, 0, *o, ofiles[f]))
                append_file(all, ofiles[f], th_object_file(d, 0, *o, ofiles[f]));
    g_strfreev(obj);
    g_free(objects);
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
        fail_msg("'%s' lacks '%s'", text, part);
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

/* Several snapshots of one process: read every time, no index file. */
static void test_series_none(void **state)
{
    char *dir = tmpdir();
    char *a = g_build_filename(dir, "a.heapsnapshot", NULL);
    char *b = g_build_filename(dir, "b.heapsnapshot", NULL);
    assert_true(g_file_set_contents(a, snap, sizeof snap - 1, NULL));
    assert_true(g_file_set_contents(b, snap, sizeof snap - 1, NULL));
    const char *paths[] = {a, b};
    hf_open_opts opts = {0};
    GPtrArray *dumps = g_ptr_array_new();
    assert_true(hf_open_files(paths, 2, &opts, dumps, NULL));
    assert_int_equal(dumps->len, 1);
    hf_dump *d = g_ptr_array_index(dumps, 0);
    assert_null(d->ops->after_mount);
    hf_dump_close(d);
    g_ptr_array_free(dumps, TRUE);
    char *left = g_strdup_printf("%s.heapfs-index", a);
    assert_false(g_file_test(left, G_FILE_TEST_EXISTS));
    g_free(left);
    unlink(a);
    unlink(b);
    g_free(a);
    g_free(b);
    rmdir(dir);
    g_free(dir);
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
