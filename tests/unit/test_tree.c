/*
 * Unit tests for fs/tree.c, driven by a small in-memory model declared as
 * parts tables (model.h): lookups, streaming readdir with resumable
 * offsets, validity of any inode, links (a class's, objects'), link
 * directories with empty slots, snapshot files in subdirectories, parts
 * a node lacks (has() false, target() false: neither listed, found nor
 * valid), exact sizes, and the consistency NFS relies on (readdir inode
 * numbers equal lookup results; ".." of every directory is its parent),
 * and the kind table (fs/kinds.h): a row per kind, and what each row says
 * of a kind agrees with what the listings give.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fs/inode.h"
#include "fs/kinds.h"
#include "fs/tree.h"

#define N_OBJ 1000

/* ---- the fake model ---- */

/* Every view: 1 + index % 50 lines naming the view (objects' files 3000
 * more); resumable by line. */
static uint64_t lines(const char *what, uint64_t extra, const hf_view *v, uint64_t first,
                      GString *out, size_t budget)
{
    uint64_t n = 1 + v->index % 50 + extra;
    gsize start = out->len;
    for (uint64_t i = first; i < n; i++) {
        if (hf_budget_spent(out, start, budget))
            return i;
        g_string_append_printf(out, "%s %u %" G_GUINT64_FORMAT " %u line %" G_GUINT64_FORMAT "\n",
                               what, v->snap, (guint64)v->index, v->file, (guint64)i);
    }
    return HF_DONE;
}
#define VIEW(fn, what, extra)                                                                \
    static uint64_t fn(hf_dump *d, const hf_view *v, uint64_t first, GString *out,          \
                       size_t budget)                                                       \
    {                                                                                        \
        return lines(what, extra, v, first, out, budget);                                    \
    }
VIEW(r_info, "info", 0)
VIEW(r_trace, "trace", 0)
VIEW(r_snap, "snapshot", 0)
VIEW(r_thread, "thread", 0)
VIEW(r_class, "class", 0)
VIEW(r_object, "object", 3000)

static bool never(hf_dump *d, uint32_t s, uint64_t index) { return false; }
/* sites: in the first snapshot only */
static bool in_first(hf_dump *d, uint32_t s, uint64_t index) { return s == 0; }
static bool odd(hf_dump *d, uint32_t s, uint64_t index) { return index % 2 == 1; }
static bool first_object(hf_dump *d, uint32_t s, uint64_t index) { return index == 0; }

/* mem/: its first file is in the first snapshot only */
static const hf_file snap_files[] = {
    {"info", r_snap, NULL},        {"histogram", r_snap, NULL}, {"sites", r_snap, in_first},
    {"cpu/samples", r_snap, NULL}, {"cpu/times", r_snap, NULL}, {"cpu/waits", r_snap, never},
    {"mem/old", r_snap, in_first}, {"mem/new", r_snap, NULL},   {NULL},
};
static const hf_file thread_files[] = {
    {"info", r_thread, NULL},
    {"stack", r_thread, NULL},
    {NULL},
};

static uint32_t f_n_snapshots(hf_dump *d) { return 2; }
static uint64_t f_snapshot_number(hf_dump *d, uint32_t s) { return s ? 5 : 1; }
static uint64_t f_n_traces(hf_dump *d) { return 2; }
static uint64_t f_trace_number(hf_dump *d, uint64_t t) { return 10 * (t + 1); }
static uint64_t f_n_threads(hf_dump *d) { return 1; }
static void f_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    g_strlcpy(name, "1-main", HF_NAME_MAX);
}
static const char *const class_names[] = {"A", "B", "x%2Fy"};
static uint64_t f_n_classes(hf_dump *d, uint32_t s) { return 3; }
static void f_class_name(hf_dump *d, uint32_t s, uint64_t c, char name[HF_NAME_MAX])
{
    g_strlcpy(name, class_names[c], HF_NAME_MAX);
}
static int64_t f_class_find(hf_dump *d, uint32_t s, const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(class_names[i], name) == 0)
            return i;
    return -1;
}
/* B's super is A; the others have none. */
static bool f_super(hf_dump *d, uint32_t s, uint64_t c, hf_target *to)
{
    if (c != 1)
        return false;
    to->kind = HF_TO_CLASS;
    g_strlcpy(to->name, "A", HF_NAME_MAX);
    return true;
}
static const hf_file class_files[] = {
    {"info", r_class, NULL},
    {"statics", r_class, never},
    {"instances", r_class, NULL},
    {NULL},
};
static const hf_link class_links[] = {{"super", f_super}, {NULL}};

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
static bool f_class(hf_dump *d, uint32_t s, uint64_t o, hf_target *to)
{
    to->kind = HF_TO_CLASS;
    g_strlcpy(to->name, class_names[o % 3], HF_NAME_MAX);
    return true;
}
/* owner -> the first object, for objects 1, 5, 9 ... only */
static bool f_owner(hf_dump *d, uint32_t s, uint64_t o, hf_target *to)
{
    if (o % 4 != 1)
        return false;
    to->kind = HF_TO_OBJECT;
    f_object_name(d, s, 0, to->name);
    return true;
}
/* refs/: slot 0 "next" -> the next object, slot 1 empty, slot 2 "first"
 * -> object 0; three slots. */
static hf_ref_status f_ref(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                           char name[HF_NAME_MAX], hf_target *to)
{
    if (slot > 2)
        return HF_REF_END;
    if (slot == 1)
        return HF_REF_EMPTY;
    g_strlcpy(name, slot == 0 ? "next" : "first", HF_NAME_MAX);
    to->kind = HF_TO_OBJECT;
    f_object_name(d, s, slot == 0 ? (o + 1) % f_n_objects(d, s) : 0, to->name);
    return HF_REF_OK;
}
static int64_t f_ref_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    return strcmp(name, "next") == 0 ? 0 : strcmp(name, "first") == 0 ? 2 : -1;
}
/* types/ (object 0 only): slot 0 empty, slot 1 "t" -> class x%2Fy. */
static hf_ref_status f_type(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                            char name[HF_NAME_MAX], hf_target *to)
{
    if (slot > 1)
        return HF_REF_END;
    if (slot == 0)
        return HF_REF_EMPTY;
    g_strlcpy(name, "t", HF_NAME_MAX);
    to->kind = HF_TO_CLASS;
    g_strlcpy(to->name, "x%2Fy", HF_NAME_MAX);
    return HF_REF_OK;
}
static int64_t f_type_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    return strcmp(name, "t") == 0 ? 1 : -1;
}
static const hf_file object_files[] = {
    {"info", r_object, NULL},
    {"fields", r_object, NULL},
    {"value", r_object, odd}, /* odd objects only */
    {NULL},
};
static const hf_link object_links[] = {{"class", f_class}, {"owner", f_owner}, {NULL}};
static const hf_linkdir object_dirs[] = {
    {"refs", NULL, f_ref, f_ref_find},
    {"types", first_object, f_type, f_type_find},
    {NULL},
};
static void f_destroy(hf_dump *d) {}

static const hf_dump_ops fake_ops = {
    .format = "fake",
    .destroy = f_destroy,
    .render_info = r_info,
    .render_trace = r_trace,
    .n_snapshots = f_n_snapshots,
    .snapshot_number = f_snapshot_number,
    .n_traces = f_n_traces,
    .trace_number = f_trace_number,
    .n_threads = f_n_threads,
    .thread_name = f_thread_name,
    .n_classes = f_n_classes,
    .class_name = f_class_name,
    .class_find = f_class_find,
    .n_objects = f_n_objects,
    .object_name = f_object_name,
    .object_find = f_object_find,
    .snapshot = {.files = snap_files},
    .thread = {.files = thread_files},
    .class_ = {class_files, class_links, NULL},
    .object = {object_files, object_links, object_dirs},
};

/* ---- fixtures and helpers ---- */

typedef struct {
    hf_dump d;
    hf_mount *m;
    hf_cache *cache;
    hf_tree *t;
} fixture;

static int setup(void **state)
{
    fixture *f = g_new0(fixture, 1);
    hf_dump_init(&f->d, &fake_ops, "fake.dump", NULL);
    hf_problem(&f->d, 0x10, "first problem");
    f->cache = hf_cache_new(1 << 20);
    hf_dump *one = &f->d;
    f->m = hf_mount_new(&one, 1, false);
    f->t = hf_tree_new(f->m, f->cache);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    hf_tree_free(f->t);
    hf_cache_free(f->cache);
    hf_mount_free(f->m);
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

/* Names listed in dir (without "." and ".."), space separated. */
static char *names_of(hf_tree *t, const hf_node *dir)
{
    listing l = list_dir(t, dir, 100);
    GString *s = g_string_new(NULL);
    for (guint i = 2; i < l.names->len; i++)
        g_string_append_printf(s, "%s%s", i > 2 ? " " : "", (char *)l.names->pdata[i]);
    free_listing(&l);
    return g_string_free(s, FALSE);
}

static void assert_listing(hf_tree *t, const char *path, const char *want)
{
    hf_node n = walk(t, path);
    char *got = names_of(t, &n);
    if (strcmp(got, want) != 0)
        fail_msg("%s lists \"%s\", not \"%s\"", path, got, want);
    g_free(got);
}

static char *link_of(hf_tree *t, const char *path)
{
    hf_node n = walk(t, path);
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_tree_readlink(t, &n, s), 0);
    assert_int_equal(hf_tree_size(t, &n), s->len);
    return g_string_free(s, FALSE);
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
    const char *want[] = {".", "..", "info", "histogram", "cpu", "mem", "classes", "objects"};
    assert_int_equal(l.names->len, G_N_ELEMENTS(want));
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
        assert_string_equal(l.names->pdata[i], want[i]);
    free_listing(&l);
    assert_listing(f->t, "snapshots/5/cpu", "samples times");
    /* a snapshot file's number is its index in the table */
    hf_node times = walk(f->t, "snapshots/5/cpu/times");
    assert_int_equal(times.kind, HF_N_SNAP_FILE);
    assert_int_equal(times.a, 4);
    assert_true(hf_tree_valid(f->t, &times));
    hf_node cpu = walk(f->t, "snapshots/5/cpu");
    assert_int_equal(cpu.kind, HF_N_SNAP_SUBDIR);
    assert_int_equal(cpu.a, 3);
    hf_node no;
    assert_int_equal(hf_tree_lookup(f->t, &cpu, "info", &no), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &s, "2", &no), -ENOENT);
    /* cpu/samples reads as a view of that file */
    hf_node samples = walk(f->t, "snapshots/1/cpu/samples");
    char *text = read_all(f->t, &samples);
    assert_string_equal(text, "snapshot 0 0 3 line 0\n");
    g_free(text);
}

/* A file whose has() is false is neither listed, nor found, nor valid; a
 * link whose target() is false and a link directory whose has() is false
 * are absent alike. */
static void test_parts_follow_has(void **state)
{
    fixture *f = *state;
    hf_node no;
    /* sites: snapshot 1 only; cpu/waits: never */
    assert_listing(f->t, "snapshots/1", "info histogram sites cpu mem classes objects");
    hf_node sites = walk(f->t, "snapshots/1/sites");
    assert_int_equal(sites.a, 2);
    assert_true(hf_tree_valid(f->t, &sites));
    hf_node s5 = walk(f->t, "snapshots/5"), cpu = walk(f->t, "snapshots/1/cpu");
    assert_int_equal(hf_tree_lookup(f->t, &s5, "sites", &no), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &cpu, "waits", &no), -ENOENT);
    hf_node bad[] = {
        hf_node_make(HF_N_SNAP_FILE, 1, 2, 0),       /* sites of snapshot 5 */
        hf_node_make(HF_N_SNAP_FILE, 0, 5, 0),       /* cpu/waits */
        hf_node_make(HF_N_SNAP_FILE, 1, 6, 0),       /* mem/old of snapshot 5 */
        hf_node_make(HF_N_SNAP_FILE, 0, 8, 0),       /* past the table */
        hf_node_make(HF_N_CLASS_FILE, 0, 1, 1),      /* statics: never */
        hf_node_make(HF_N_OBJ_LINK, 0, 2, 1),        /* 0x20 has no owner */
        hf_node_make(HF_N_OBJ_LINK, 0, 1, 2),        /* past the links */
        hf_node_make(HF_N_OBJ_DIR, 0, 1, 1),         /* 0x18 has no types/ */
        hf_node_make(HF_N_OBJ_DIR, 0, 0, 2),         /* past the directories */
        hf_node_make(HF_N_OBJ_ENTRY + 1, 0, 1, 1),   /* an entry of that types/ */
        hf_node_make(HF_N_OBJ_ENTRY + 1, 0, 0, 0),   /* an empty slot of types/ */
        hf_node_make(HF_N_OBJ_ENTRY + 2, 0, 0, 0),   /* no third directory */
        hf_node_make(HF_N_THREAD_FILE, 0, 0, 2),     /* past the thread files */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        if (hf_tree_valid(f->t, &bad[i]))
            fail_msg("node %zu is valid", i);
    /* a subdirectory whose first file a snapshot lacks shows the others */
    assert_listing(f->t, "snapshots/1/mem", "old new");
    assert_listing(f->t, "snapshots/5/mem", "new");
    hf_node mem5 = walk(f->t, "snapshots/5/mem"), fresh = walk(f->t, "snapshots/5/mem/new");
    assert_true(hf_tree_valid(f->t, &mem5));
    assert_true(hf_tree_valid(f->t, &fresh));
    assert_int_equal(fresh.a, 7);
    hf_node up;
    assert_int_equal(hf_tree_lookup(f->t, &mem5, "..", &up), 0);
    assert_true(hf_node_equal(&up, &s5));
    assert_int_equal(hf_tree_lookup(f->t, &mem5, "old", &no), -ENOENT);
    char *text = read_all(f->t, &fresh);
    assert_string_equal(text, "snapshot 1 0 7 line 0\n");
    g_free(text);
    assert_listing(f->t, "snapshots/1/classes/A", "info instances");
    assert_listing(f->t, "snapshots/1/classes/B", "info instances super");
    assert_listing(f->t, "snapshots/1/objects/0x10", "info fields class refs types");
    assert_listing(f->t, "snapshots/1/objects/0x18", "info fields value class owner refs");
    assert_listing(f->t, "snapshots/1/objects/0x20", "info fields class refs");
    hf_node o2 = walk(f->t, "snapshots/1/objects/0x20");
    assert_int_equal(hf_tree_lookup(f->t, &o2, "owner", &no), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &o2, "value", &no), -ENOENT);
    assert_int_equal(hf_tree_lookup(f->t, &o2, "types", &no), -ENOENT);
    char *target = link_of(f->t, "snapshots/1/objects/0x18/owner");
    assert_string_equal(target, "../0x10");
    g_free(target);
    hf_node owner = walk(f->t, "snapshots/1/objects/0x18/owner");
    assert_int_equal(owner.kind, HF_N_OBJ_LINK);
    assert_int_equal(owner.b, 1);
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
    listing l = list_dir(f->t, &refs, 1); /* one entry at a time: offsets skip slot 1 */
    assert_int_equal(l.names->len, 4);
    assert_string_equal(l.names->pdata[2], "next");
    assert_string_equal(l.names->pdata[3], "first");
    hf_node next = g_array_index(l.nodes, hf_node, 2);
    assert_int_equal(next.kind, HF_N_OBJ_ENTRY);
    assert_int_equal(next.b, 0);
    assert_int_equal(g_array_index(l.nodes, hf_node, 3).b, 2);
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_tree_readlink(f->t, &next, s), 0);
    assert_string_equal(s->str, "../../0x20");
    g_string_free(s, TRUE);
    hf_node empty = hf_node_make(HF_N_OBJ_ENTRY, 0, 1, 1);
    assert_false(hf_tree_valid(f->t, &empty));
    hf_node past = hf_node_make(HF_N_OBJ_ENTRY, 0, 1, 3);
    assert_false(hf_tree_valid(f->t, &past));
    free_listing(&l);
    hf_node no;
    assert_int_equal(hf_tree_lookup(f->t, &refs, "nothing", &no), -ENOENT);
    /* a second link directory: its entries have their own kind; a link to
     * a class from there */
    assert_listing(f->t, "snapshots/1/objects/0x10/types", "t");
    hf_node t = walk(f->t, "snapshots/1/objects/0x10/types/t");
    assert_int_equal(t.kind, HF_N_OBJ_ENTRY + 1);
    assert_int_equal(t.b, 1);
    assert_true(hf_tree_valid(f->t, &t));
    char *target = link_of(f->t, "snapshots/1/objects/0x10/types/t");
    assert_string_equal(target, "../../../classes/x%2Fy");
    g_free(target);
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
    assert_int_equal(sup.kind, HF_N_CLASS_LINK);
    hf_tree_readlink(f->t, &sup, s);
    assert_string_equal(s->str, "../A");
    assert_int_equal(hf_tree_size(f->t, &sup), s->len);
    g_string_truncate(s, 0);
    hf_node cls = walk(f->t, "snapshots/1/objects/0x18/class");
    assert_int_equal(cls.kind, HF_N_OBJ_LINK);
    hf_tree_readlink(f->t, &cls, s);
    assert_string_equal(s->str, "../../classes/B");
    assert_int_equal(hf_tree_size(f->t, &cls), s->len);
    g_string_free(s, TRUE);
    hf_node no;
    hf_node a = walk(f->t, "snapshots/1/classes/A");
    assert_int_equal(hf_tree_lookup(f->t, &a, "super", &no), -ENOENT);
    /* not a link */
    hf_node info = walk(f->t, "info");
    s = g_string_new(NULL);
    assert_int_equal(hf_tree_readlink(f->t, &info, s), -EINVAL);
    g_string_free(s, TRUE);
}

static void test_exact_sizes_and_chunked_reads(void **state)
{
    fixture *f = *state;
    const char *paths[] = {"info", "errors", "README", "traces/20", "threads/1-main/stack",
                           "snapshots/5/histogram", "snapshots/1/sites", "snapshots/5/cpu/times",
                           "snapshots/1/classes/B/instances", "snapshots/1/objects/0x3f0/fields",
                           "snapshots/1/objects/0x18/value"};
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
    /* each file is its own view of its own renderer: object 1, file 2 */
    hf_node v = walk(f->t, "snapshots/1/objects/0x18/value");
    text = read_all(f->t, &v);
    GString *want = g_string_new(NULL);
    for (int i = 0; i < 3002; i++)
        g_string_append_printf(want, "object 0 1 2 line %d\n", i);
    assert_string_equal(text, want->str);
    assert_int_equal(hf_tree_size(f->t, &v), want->len);
    g_string_free(want, TRUE);
    g_free(text);
    hf_node tr = walk(f->t, "traces/20");
    text = read_all(f->t, &tr);
    assert_string_equal(text, "trace 0 1 0 line 0\ntrace 0 1 0 line 1\n");
    g_free(text);
}

static void test_any_inode_answers(void **state)
{
    fixture *f = *state;
    /* Every node reached by a walk is valid by its number alone, and ".."
     * of each directory is its parent. */
    const char *dirs[] = {"snapshots/5/cpu", "snapshots/1/objects/0x18/refs", "threads/1-main",
                          "snapshots/1/classes/x%2Fy", "traces", "snapshots/1/objects/0x10/types",
                          "snapshots/5/mem", "snapshots/1/mem"};
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
    /* and files and links answer "." (NFS file handles) */
    const char *leaves[] = {"snapshots/1/cpu/samples", "snapshots/5/mem/new",
                            "snapshots/1/objects/0x18/refs/first",
                            "snapshots/1/classes/B/super", "snapshots/1/objects/0x18/owner"};
    for (size_t i = 0; i < G_N_ELEMENTS(leaves); i++) {
        hf_node n = walk(f->t, leaves[i]), back, self;
        assert_true(hf_ino_decode(hf_ino_encode(&n), &back));
        assert_true(hf_tree_valid(f->t, &back));
        assert_int_equal(hf_tree_lookup(f->t, &back, ".", &self), 0);
        assert_true(hf_node_equal(&self, &n));
    }
    hf_node bad[] = {
        hf_node_make(HF_N_OBJECT, 1, 10, 0),      /* snapshot 2 has 10 objects */
        hf_node_make(HF_N_SNAP, 2, 0, 0),         /* no third snapshot */
        hf_node_make(HF_N_CLASS_LINK, 0, 0, 0),   /* A has no super */
        hf_node_make(HF_N_OBJ_FILE, 0, 2, 2),     /* even objects lack value */
        hf_node_make(HF_N_ROOT_FILE, 1, 0, HF_RF_INFO), /* root files carry no snapshot */
        hf_node_make(HF_N_ROOT_FILE, 0, 0, HF_RF_N),    /* past the root files */
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

/* ---- the kind table ---- */

/* Every kind has a row, with one shape: a directory small or big, a link,
 * a file made anew or through the cache; its directory is a directory that
 * leads to the root; a big directory's entries and a small one's parts
 * are kinds whose directory it is. */
static void check_row(unsigned k, const hf_kind_row *kind, const hf_kind_row *r)
{
    if (!r->what || strcmp(r->what, "?") == 0)
        fail_msg("kind %u has no row", k);
    assert_int_equal(r->type == HF_T_DIR, (r->list != NULL) + (r->big != NULL));
    assert_int_equal(r->type == HF_T_LINK, r->readlink != NULL);
    assert_int_equal(r->type == HF_T_FILE, (r->render != NULL) + (r->text != NULL));
    assert_int_equal(hf_kind(r->parent)->type, HF_T_DIR);
    hf_node_kind up = (hf_node_kind)k;
    for (unsigned i = 0; i < HF_N_KINDS && up != HF_N_ROOT; i++)
        up = hf_kind(up)->parent;
    assert_int_equal(up, HF_N_ROOT);
    if (r->name) /* a fixed name: nothing in a, b only which row of its kind */
        assert_true(r->a == HF_F_ZERO && r->b == (kind->rows ? HF_F_WHICH : HF_F_ZERO));
    assert_true(!r->hidden || r->name);
    if (r->big)
        assert_int_equal(hf_kind(r->child)->parent, k);
    hf_node_kind parts[] = {r->file, r->link, r->linkdir};
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
        if (parts[i]) {
            assert_int_equal(hf_kind(parts[i])->parent, k);
            assert_int_equal(hf_kind(parts[i])->parts, r->parts);
        }
}

/* Every kind has a row, or a table of rows (one per file, b saying
 * which), with one shape: a directory small or big, a link, a file made
 * anew or through the cache; its directory is a directory that leads to
 * the root; a big directory's entries and a small one's parts are kinds
 * whose directory it is. */
static void test_every_kind_has_a_row(void **state)
{
    for (unsigned k = 0; k < HF_N_KINDS; k++) {
        const hf_kind_row *kind = hf_kind((hf_node_kind)k);
        assert_true(!kind->rows || (kind->n_rows > 0 && kind->b == HF_F_WHICH));
        for (uint32_t j = 0, b; j < hf_kind_n_rows(kind); j++) {
            const hf_kind_row *r = hf_kind_row_at(kind, j, &b);
            check_row(k, kind, r);
            hf_node n = hf_node_make((hf_node_kind)k, 0, 0, b);
            assert_ptr_equal(hf_kind_of(&n), r);
        }
    }
    for (unsigned k = 0; k < HF_DIRS_MAX; k++)
        assert_int_equal(hf_kind(HF_N_OBJ_ENTRY + k)->parent_b, k);
    assert_string_equal(hf_kind(HF_N_KINDS)->what, "?");
    hf_node past = hf_node_make(HF_N_ROOT_FILE, 0, 0, HF_RF_N);
    assert_string_equal(hf_kind_of(&past)->what, "?");
}

/* A listed node, checked against its row: its directory, type, fields,
 * where its parts come from; a node with a field its kind leaves zero set
 * is not valid. */
static void check_listed(hf_tree *t, const hf_node *dir, const hf_node *n)
{
    const hf_kind_row *r = hf_kind_of(n);
    hf_node up = hf_tree_parent(n), bad = *n;
    if (!(n->kind == HF_N_SNAP_FILE && dir->kind == HF_N_SNAP_SUBDIR))
        assert_true(hf_node_equal(&up, dir));
    assert_int_equal(hf_tree_type(n), r->type);
    assert_true(hf_tree_valid(t, n));
    assert_true(r->at != HF_AT_MOUNT || n->snap == 0);
    assert_int_equal(hf_tree_source(t, n).d != NULL, r->at != HF_AT_MOUNT);
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_tree_readlink(t, n, s), r->type == HF_T_LINK ? 0 : -EINVAL);
    g_string_free(s, TRUE);
    hf_node out;
    assert_int_equal(hf_tree_lookup(t, n, "x", &out) == -ENOTDIR, r->type != HF_T_DIR);
    if (r->type == HF_T_FILE)
        assert_true(hf_tree_size(t, n) > 0);
    if (r->a == HF_F_ZERO) {
        bad.a = 1;
        assert_false(hf_tree_valid(t, &bad));
        bad.a = n->a;
    }
    if (r->b == HF_F_ZERO) {
        bad.b = 1;
        assert_false(hf_tree_valid(t, &bad));
    }
}

/* What seen[] of visit_kinds counts: a kind, or a root file (after the kinds). */
#define N_SEEN (HF_N_KINDS + HF_RF_N)
static unsigned seen_at(const hf_node *n)
{
    return n->kind == HF_N_ROOT_FILE ? HF_N_KINDS + n->b : n->kind;
}

/* Lists dir (a big one: its first 3 entries) and checks and visits each. */
static void visit_kinds(hf_tree *t, const hf_node *dir, bool seen[N_SEEN])
{
    listing l = {g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(hf_node)),
                 hf_kind(dir->kind)->big ? 2 + 3 : 0, 0};
    assert_int_equal(hf_tree_readdir(t, dir, 0, collect, &l), 0);
    for (guint i = 2; i < l.nodes->len; i++) {
        hf_node n = g_array_index(l.nodes, hf_node, i);
        seen[seen_at(&n)] = true;
        check_listed(t, dir, &n);
        if (hf_tree_type(&n) == HF_T_DIR)
            visit_kinds(t, &n, seen);
    }
    free_listing(&l);
}

static bool f_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    if (fn)
        fn(ud, "A", 1, 16);
    return !retained;
}

/* Every kind but the link directories the fake lacks, and every root file,
 * is listed somewhere in one dump's tree or two dumps' (traces/ and
 * threads/ in each snapshot, growth), and agrees with its row there;
 * .stats is found, not listed. */
static void test_kinds_agree_with_listings(void **state)
{
    fixture *f = *state;
    static hf_dump_ops two_ops;
    two_ops = fake_ops;
    two_ops.tally = f_tally;
    hf_dump a, b;
    hf_dump_init(&a, &two_ops, "a.dump", NULL);
    hf_dump_init(&b, &two_ops, "b.dump", NULL);
    hf_dump *both[] = {&a, &b};
    hf_mount *m2 = hf_mount_new(both, 2, false);
    hf_tree *t2 = hf_tree_new(m2, f->cache);
    bool seen[N_SEEN] = {false};
    hf_node root = hf_node_make(HF_N_ROOT, 0, 0, 0), stats;
    seen[HF_N_ROOT] = true;
    visit_kinds(f->t, &root, seen);
    visit_kinds(t2, &root, seen);
    assert_int_equal(hf_tree_lookup(t2, &root, ".stats", &stats), 0);
    assert_int_equal(stats.kind, HF_N_ROOT_FILE);
    seen[seen_at(&stats)] = !hf_tree_reads_dump(&stats) && hf_tree_volatile(&stats);
    for (unsigned k = 0; k < HF_N_KINDS; k++)
        if (!seen[k] && !(k >= HF_N_OBJ_ENTRY + 2 && k <= HF_N_OBJ_ENTRY_LAST) &&
            k != HF_N_ROOT_FILE) /* (each of its files below) */
            fail_msg("no %s listed", hf_kind((hf_node_kind)k)->what);
    for (uint32_t b = 0; b < HF_RF_N; b++) {
        hf_node n = hf_node_make(HF_N_ROOT_FILE, 0, 0, b);
        if (!seen[HF_N_KINDS + b])
            fail_msg("no %s listed", hf_kind_of(&n)->what);
    }
    hf_node traces = walk(t2, "snapshots/6/traces");
    assert_int_equal(traces.snap, 3);
    hf_tree_free(t2);
    hf_mount_free(m2);
    hf_dump_clear(&a);
    hf_dump_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_root_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_dir_and_subdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parts_follow_has, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_dir_streams_and_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refs_skip_empty_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact_sizes_and_chunked_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_inode_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup_rejects_bad_names, setup, teardown),
        cmocka_unit_test(test_every_kind_has_a_row),
        cmocka_unit_test_setup_teardown(test_kinds_agree_with_listings, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
