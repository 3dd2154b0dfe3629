/*
 * Unit tests for fs/tree.c, driven by a small in-memory model: lookups,
 * streaming readdir with resumable offsets, validity of any inode, links,
 * exact sizes, and the consistency NFS relies on (readdir inode numbers
 * equal lookup results; ".." of every directory is its parent).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fs/tree.h"

#define N_OBJ 1000

/* ---- the fake model ---- */

static uint32_t f_n_snapshots(hf_dump *d) { return 2; }
static uint64_t f_snapshot_number(hf_dump *d, uint32_t s) { return s ? 5 : 1; }
static const char *const files[] = {"info", "histogram", "cpu/samples", "cpu/times"};
static uint32_t f_snap_files(hf_dump *d, uint32_t s, const char *const **names)
{
    *names = files;
    return 4;
}
static uint64_t f_n_traces(hf_dump *d) { return 2; }
static uint64_t f_trace_number(hf_dump *d, uint64_t t) { return 10 * (t + 1); }
static uint64_t f_n_threads(hf_dump *d) { return 1; }
static void f_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    g_strlcpy(name, "1-main", HF_NAME_MAX);
}
static const char *const class_names[] = {"A", "B", "x%2Fy"};
static uint64_t f_n_classes(hf_dump *d, uint32_t s) { return 3; }
static const char *f_class_name(hf_dump *d, uint32_t s, uint64_t c) { return class_names[c]; }
static int64_t f_class_find(hf_dump *d, uint32_t s, const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(class_names[i], name) == 0)
            return i;
    return -1;
}
static int64_t f_class_super(hf_dump *d, uint32_t s, uint64_t c) { return c == 1 ? 0 : -1; }
static uint32_t f_class_parts(hf_dump *d, uint32_t s, uint64_t c)
{
    return (1u << HF_CLASS_INFO) | (1u << HF_CLASS_INSTANCES);
}
static uint64_t f_n_objects(hf_dump *d, uint32_t s) { return s == 0 ? N_OBJ : 10; }
static void f_object_name(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX])
{
    snprintf(name, HF_NAME_MAX, "0x%" G_GINT64_MODIFIER "x", (guint64)(o * 8 + 16));
}
static int64_t f_object_find(hf_dump *d, uint32_t s, const char *name)
{
    if (strncmp(name, "0x", 2) != 0)
        return -1;
    guint64 id = g_ascii_strtoull(name + 2, NULL, 16);
    if (id < 16 || id % 8)
        return -1;
    uint64_t o = (id - 16) / 8;
    return o < f_n_objects(d, s) ? (int64_t)o : -1;
}
static uint32_t f_object_parts(hf_dump *d, uint32_t s, uint64_t o)
{
    uint32_t p = (1u << HF_OBJ_INFO) | (1u << HF_OBJ_FIELDS) | HF_OBJ_HAS_REFS | HF_OBJ_HAS_CLASS;
    return o % 2 ? p | (1u << HF_OBJ_VALUE) : p;
}
static int64_t f_object_class(hf_dump *d, uint32_t s, uint64_t o) { return (int64_t)(o % 3); }
/* Slots: 0 -> next object, 1 empty, 2 -> object 0; three slots. */
static hf_ref_status f_object_ref(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                  char name[HF_NAME_MAX], char target[HF_NAME_MAX])
{
    if (slot > 2)
        return HF_REF_END;
    if (slot == 1)
        return HF_REF_EMPTY;
    g_strlcpy(name, slot == 0 ? "next" : "first", HF_NAME_MAX);
    f_object_name(d, s, slot == 0 ? (o + 1) % f_n_objects(d, s) : 0, target);
    return HF_REF_OK;
}
static int64_t f_object_ref_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    return strcmp(name, "next") == 0 ? 0 : strcmp(name, "first") == 0 ? 2 : -1;
}
/* Every view: 1 + index % 50 lines naming the view; resumable by line. */
static uint64_t f_render(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    uint64_t n = 1 + v->index % 50 + (v->kind == HF_V_OBJECT ? 3000 : 0);
    gsize start = out->len;
    for (uint64_t i = first; i < n; i++) {
        if (out->len - start >= budget)
            return i;
        g_string_append_printf(out, "%d %u %" G_GUINT64_FORMAT " %u line %" G_GUINT64_FORMAT "\n",
                               v->kind, v->snap, (guint64)v->index, v->file, (guint64)i);
    }
    return HF_DONE;
}
static void f_destroy(hf_dump *d) {}

static const hf_dump_ops fake_ops = {
    .format = "fake",
    .destroy = f_destroy,
    .n_snapshots = f_n_snapshots,
    .snapshot_number = f_snapshot_number,
    .snap_files = f_snap_files,
    .n_traces = f_n_traces,
    .trace_number = f_trace_number,
    .n_threads = f_n_threads,
    .thread_name = f_thread_name,
    .n_classes = f_n_classes,
    .class_name = f_class_name,
    .class_find = f_class_find,
    .class_super = f_class_super,
    .class_parts = f_class_parts,
    .n_objects = f_n_objects,
    .object_name = f_object_name,
    .object_find = f_object_find,
    .object_parts = f_object_parts,
    .object_class = f_object_class,
    .object_ref = f_object_ref,
    .object_ref_find = f_object_ref_find,
    .render = f_render,
};

/* ---- fixtures and helpers ---- */

typedef struct {
    hf_dump d;
    hf_cache *cache;
    hf_tree *t;
} fixture;

static int setup(void **state)
{
    fixture *f = g_new0(fixture, 1);
    hf_dump_init(&f->d, &fake_ops, "fake.dump", NULL);
    hf_problem(&f->d, 0x10, "first problem");
    f->cache = hf_cache_new(1 << 20);
    f->t = hf_tree_new(&f->d, f->cache);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    hf_tree_free(f->t);
    hf_cache_free(f->cache);
    hf_dump_clear(&f->d);
    g_free(f);
    return 0;
}

static hf_node walk(hf_tree *t, const char *path)
{
    hf_node n = hf_node_make(HF_N_ROOT, 0, 0, 0);
    char **parts = g_strsplit(path, "/", -1);
    for (char **p = parts; *p; p++) {
        if (!**p)
            continue;
        hf_node child;
        int rc = hf_tree_lookup(t, &n, *p, &child);
        if (rc != 0)
            fail_msg("lookup of %s in %s failed: %d", *p, path, rc);
        n = child;
    }
    g_strfreev(parts);
    return n;
}

typedef struct {
    GPtrArray *names;
    GArray *nodes;
    int limit; /* stop after this many entries (0 = no limit) */
    uint64_t last_next;
} listing;

static bool collect(void *ctx, const char *name, const hf_node *n, uint64_t next)
{
    listing *l = ctx;
    if (l->limit && (int)l->names->len >= l->limit)
        return false;
    g_ptr_array_add(l->names, g_strdup(name));
    g_array_append_val(l->nodes, *n);
    l->last_next = next;
    return true;
}

/* Lists a directory in pieces of `piece` entries, resuming by offset. */
static listing list_dir(hf_tree *t, const hf_node *dir, int piece)
{
    listing all = {g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(hf_node)), 0, 0};
    uint64_t off = 0;
    for (;;) {
        listing part = {g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(hf_node)), piece, 0};
        assert_int_equal(hf_tree_readdir(t, dir, off, collect, &part), 0);
        for (guint i = 0; i < part.names->len; i++) {
            g_ptr_array_add(all.names, g_strdup(part.names->pdata[i]));
            g_array_append_val(all.nodes, g_array_index(part.nodes, hf_node, i));
        }
        guint got = part.names->len;
        off = part.last_next;
        g_ptr_array_free(part.names, TRUE);
        g_array_free(part.nodes, TRUE);
        if ((int)got < piece)
            break;
    }
    return all;
}

static void free_listing(listing *l)
{
    g_ptr_array_free(l->names, TRUE);
    g_array_free(l->nodes, TRUE);
}

static char *read_all(hf_tree *t, const hf_node *n)
{
    uint64_t size = hf_tree_size(t, n);
    char *buf = g_malloc0(size + 1);
    uint64_t got = 0;
    while (got < size) {
        size_t k = hf_tree_read(t, n, buf + got, 4096, got);
        assert_true(k > 0);
        got += k;
    }
    assert_int_equal(hf_tree_read(t, n, buf, 10, size), 0);
    return buf;
}

/* ---- tests ---- */

static void test_root_listing(void **state)
{
    fixture *f = *state;
    hf_node root = hf_node_make(HF_N_ROOT, 0, 0, 0);
    listing l = list_dir(f->t, &root, 100);
    const char *want[] = {".", "..", "README", "info", "errors", "snapshots", "latest", "traces", "threads"};
    assert_int_equal(l.names->len, G_N_ELEMENTS(want));
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
        assert_string_equal(l.names->pdata[i], want[i]);
    free_listing(&l);
}

static void test_snapshot_dir_and_subdir(void **state)
{
    fixture *f = *state;
    hf_node s = walk(f->t, "snapshots/5");
    listing l = list_dir(f->t, &s, 100);
    const char *want[] = {".", "..", "info", "histogram", "cpu", "classes", "objects"};
    assert_int_equal(l.names->len, G_N_ELEMENTS(want));
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
        assert_string_equal(l.names->pdata[i], want[i]);
    free_listing(&l);
    hf_node times = walk(f->t, "snapshots/5/cpu/times");
    assert_int_equal(times.kind, HF_N_SNAP_FILE);
    assert_int_equal(times.a, 3);
    assert_true(hf_tree_valid(f->t, &times));
    hf_node no;
    hf_node cpu = walk(f->t, "snapshots/5/cpu");
    assert_int_equal(hf_tree_lookup(f->t, &cpu, "info", &no), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &s, "2", &no), -ENOENT);
}

static void test_big_dir_streams_and_resumes(void **state)
{
    fixture *f = *state;
    hf_node objs = walk(f->t, "snapshots/1/objects");
    listing l = list_dir(f->t, &objs, 37); /* odd pieces cross every boundary */
    assert_int_equal(l.names->len, N_OBJ + 2);
    for (guint i = 2; i < l.names->len; i++) {
        hf_node child;
        assert_int_equal(hf_tree_lookup(f->t, &objs, l.names->pdata[i], &child), 0);
        /* NFS reconnects by matching readdir inode numbers with lookups. */
        assert_true(hf_node_equal(&child, &g_array_index(l.nodes, hf_node, i)));
    }
    free_listing(&l);
}

static void test_refs_skip_empty_slots(void **state)
{
    fixture *f = *state;
    hf_node refs = walk(f->t, "snapshots/1/objects/0x18/refs");
    listing l = list_dir(f->t, &refs, 100);
    assert_int_equal(l.names->len, 4);
    assert_string_equal(l.names->pdata[2], "next");
    assert_string_equal(l.names->pdata[3], "first");
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_tree_readlink(f->t, &g_array_index(l.nodes, hf_node, 2), s), 0);
    assert_string_equal(s->str, "../../0x20");
    g_string_free(s, TRUE);
    hf_node empty = hf_node_make(HF_N_REF, 0, 1, 1);
    assert_false(hf_tree_valid(f->t, &empty));
    free_listing(&l);
}

static void test_links(void **state)
{
    fixture *f = *state;
    GString *s = g_string_new(NULL);
    hf_node latest = walk(f->t, "latest");
    hf_tree_readlink(f->t, &latest, s);
    assert_string_equal(s->str, "snapshots/5");
    g_string_truncate(s, 0);
    hf_node sup = walk(f->t, "snapshots/1/classes/B/super");
    hf_tree_readlink(f->t, &sup, s);
    assert_string_equal(s->str, "../A");
    g_string_truncate(s, 0);
    hf_node cls = walk(f->t, "snapshots/1/objects/0x18/class");
    hf_tree_readlink(f->t, &cls, s);
    assert_string_equal(s->str, "../../classes/B");
    assert_int_equal(hf_tree_size(f->t, &cls), s->len);
    g_string_free(s, TRUE);
    hf_node no;
    hf_node a = walk(f->t, "snapshots/1/classes/A");
    assert_int_equal(hf_tree_lookup(f->t, &a, "super", &no), -ENOENT);
}

static void test_exact_sizes_and_chunked_reads(void **state)
{
    fixture *f = *state;
    const char *paths[] = {"info", "errors", "README", "traces/20", "threads/1-main/stack",
                           "snapshots/5/histogram", "snapshots/1/objects/0x3f0/fields"};
    for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
        hf_node n = walk(f->t, paths[i]);
        char *text = read_all(f->t, &n);
        assert_int_equal(strlen(text), hf_tree_size(f->t, &n));
        g_free(text);
    }
    hf_node errs = walk(f->t, "errors");
    char *text = read_all(f->t, &errs);
    assert_string_equal(text, "offset 0x10: first problem\n");
    g_free(text);
}

static void test_any_inode_answers(void **state)
{
    fixture *f = *state;
    /* Every node reached by a walk is valid by its number alone, and ".."
     * of each directory is its parent. */
    const char *dirs[] = {"snapshots/5/cpu", "snapshots/1/objects/0x18/refs", "threads/1-main",
                          "snapshots/1/classes/x%2Fy", "traces"};
    for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
        hf_node n = walk(f->t, dirs[i]), back, up;
        assert_true(hf_ino_decode(hf_ino_encode(&n), &back));
        assert_true(hf_tree_valid(f->t, &back));
        assert_int_equal(hf_tree_lookup(f->t, &n, "..", &up), 0);
        listing l = list_dir(f->t, &up, 1000);
        bool found = false;
        for (guint k = 0; k < l.nodes->len; k++)
            found |= hf_node_equal(&g_array_index(l.nodes, hf_node, k), &n);
        assert_true(found);
        free_listing(&l);
    }
    hf_node bad[] = {
        hf_node_make(HF_N_OBJECT, 1, 10, 0),   /* snapshot 2 has 10 objects */
        hf_node_make(HF_N_SNAP, 2, 0, 0),      /* no third snapshot */
        hf_node_make(HF_N_CLASS_SUPER, 0, 0, 0), /* A has no super */
        hf_node_make(HF_N_OBJ_FILE, 0, 2, HF_OBJ_VALUE), /* even objects lack value */
        hf_node_make(HF_N_INFO, 1, 0, 0),      /* root files carry no snapshot */
        hf_node_make(HF_N_TRACE, 0, 2, 0),
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        assert_false(hf_tree_valid(f->t, &bad[i]));
}

static void test_lookup_rejects_bad_names(void **state)
{
    fixture *f = *state;
    hf_node out;
    hf_node snaps = walk(f->t, "snapshots"), traces = walk(f->t, "traces");
    assert_int_equal(hf_tree_lookup(f->t, &snaps, "01", &out), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &snaps, "2", &out), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &traces, "15", &out), -ENOENT);
    hf_node info = walk(f->t, "info");
    assert_int_equal(hf_tree_lookup(f->t, &info, "x", &out), -ENOTDIR);
    hf_node root = hf_node_make(HF_N_ROOT, 0, 0, 0);
    assert_int_equal(hf_tree_lookup(f->t, &root, ".stats", &out), 0);
    assert_true(hf_tree_volatile(&out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_root_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_dir_and_subdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_dir_streams_and_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refs_skip_empty_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact_sizes_and_chunked_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_inode_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup_rejects_bad_names, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
