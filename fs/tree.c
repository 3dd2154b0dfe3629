/*
 * tree.c - see tree.h.
 *
 * Directories come in two shapes: small ones (the root, a snapshot, a class,
 * an object, a thread) whose few entries are listed into a short array, and
 * big ones (snapshots/, traces/, threads/, classes/, objects/, refs/) whose
 * entries are addressed by index and never listed whole.  Readdir offsets
 * are entry positions: 1 and 2 are "." and "..", entry i is at i + 3.
 */
#include "fs/tree.h"

#include "fs/content.h"
#include "fs/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hf_tree {
    hf_dump *d;
    hf_cache *cache;
    hf_views *views;
};

typedef struct {
    char name[HF_NAME_MAX];
    hf_node n;
} entry;

#define SMALL_MAX 64

hf_tree *hf_tree_new(hf_dump *d, hf_cache *cache)
{
    hf_tree *t = g_new0(hf_tree, 1);
    t->d = d;
    t->cache = cache;
    hf_cache_stats st;
    hf_cache_stats_get(cache, &st);
    /* A view bigger than an eighth of the cache is served from checkpoints,
     * so one huge view can never push everything else out. */
    t->views = hf_views_new(cache, 64 * 1024, MAX(st.max_bytes / 8, 64 * 1024));
    return t;
}

void hf_tree_free(hf_tree *t)
{
    if (!t)
        return;
    hf_views_free(t->views);
    g_free(t);
}

hf_dump *hf_tree_dump(hf_tree *t)
{
    return t->d;
}

static const hf_dump_ops *ops(hf_tree *t)
{
    return t->d->ops;
}

static bool has_traces(hf_tree *t)
{
    return ops(t)->n_traces && ops(t)->n_traces(t->d) > 0;
}

static bool has_threads(hf_tree *t)
{
    return ops(t)->n_threads && ops(t)->n_threads(t->d) > 0;
}

static uint32_t n_snaps(hf_tree *t)
{
    uint32_t n = ops(t)->n_snapshots(t->d);
    return MIN(n, HF_SNAP_MAX);
}

static uint32_t snap_files(hf_tree *t, uint32_t s, const char *const **names)
{
    *names = NULL;
    return ops(t)->snap_files ? ops(t)->snap_files(t->d, s, names) : 0;
}

hf_type hf_tree_type(const hf_node *n)
{
    switch (n->kind) {
    case HF_N_ROOT:
    case HF_N_SNAPSHOTS:
    case HF_N_TRACES:
    case HF_N_THREADS:
    case HF_N_THREAD:
    case HF_N_SNAP:
    case HF_N_SNAP_SUBDIR:
    case HF_N_CLASSES:
    case HF_N_CLASS:
    case HF_N_OBJECTS:
    case HF_N_OBJECT:
    case HF_N_REFS:
        return HF_T_DIR;
    case HF_N_LATEST:
    case HF_N_CLASS_SUPER:
    case HF_N_OBJ_CLASS:
    case HF_N_OBJ_SCOPE:
    case HF_N_REF:
        return HF_T_LINK;
    default:
        return HF_T_FILE;
    }
}

bool hf_tree_volatile(const hf_node *n)
{
    return n->kind == HF_N_STATS;
}

hf_node hf_tree_parent(const hf_node *n)
{
    switch (n->kind) {
    case HF_N_TRACE:
        return hf_node_make(HF_N_TRACES, 0, 0, 0);
    case HF_N_THREAD:
        return hf_node_make(HF_N_THREADS, 0, 0, 0);
    case HF_N_THREAD_FILE:
        return hf_node_make(HF_N_THREAD, 0, n->a, 0);
    case HF_N_SNAP:
        return hf_node_make(HF_N_SNAPSHOTS, 0, 0, 0);
    case HF_N_SNAP_SUBDIR:
    case HF_N_CLASSES:
    case HF_N_OBJECTS:
        return hf_node_make(HF_N_SNAP, n->snap, 0, 0);
    case HF_N_SNAP_FILE:
        /* A file under a subdirectory has the subdirectory as parent; the
         * caller that needs that distinction uses snap_file_parent(). */
        return hf_node_make(HF_N_SNAP, n->snap, 0, 0);
    case HF_N_CLASS:
        return hf_node_make(HF_N_CLASSES, n->snap, 0, 0);
    case HF_N_CLASS_FILE:
    case HF_N_CLASS_SUPER:
        return hf_node_make(HF_N_CLASS, n->snap, n->a, 0);
    case HF_N_OBJECT:
        return hf_node_make(HF_N_OBJECTS, n->snap, 0, 0);
    case HF_N_OBJ_FILE:
    case HF_N_OBJ_CLASS:
    case HF_N_OBJ_SCOPE:
    case HF_N_REFS:
        return hf_node_make(HF_N_OBJECT, n->snap, n->a, 0);
    case HF_N_REF:
        return hf_node_make(HF_N_REFS, n->snap, n->a, 0);
    default:
        return hf_node_make(HF_N_ROOT, 0, 0, 0);
    }
}

/* Snapshot files named "dir/file" live in a subdirectory. */
static const char *subdir_slash(const char *name)
{
    return strchr(name, '/');
}

/* Index of the first snapshot file in the same subdirectory as file i. */
static uint32_t subdir_first(const char *const *names, uint32_t i)
{
    const char *slash = subdir_slash(names[i]);
    size_t plen = (size_t)(slash - names[i]);
    for (uint32_t j = 0; j < i; j++)
        if (strncmp(names[j], names[i], plen + 1) == 0)
            return j;
    return i;
}

static hf_node snap_file_parent(hf_tree *t, const hf_node *n)
{
    const char *const *names;
    uint32_t nf = snap_files(t, n->snap, &names);
    if (n->a < nf && subdir_slash(names[n->a]))
        return hf_node_make(HF_N_SNAP_SUBDIR, n->snap, subdir_first(names, (uint32_t)n->a), 0);
    return hf_node_make(HF_N_SNAP, n->snap, 0, 0);
}

/* ---- small directories ---- */

static void add(entry *e, int *k, const char *name, hf_node n)
{
    if (*k >= SMALL_MAX)
        return;
    g_strlcpy(e[*k].name, name, HF_NAME_MAX);
    e[*k].n = n;
    (*k)++;
}

static const char *const class_file_names[HF_CLASS_NFILES] = {"info", "fields", "statics",
                                                              "instances"};
static const char *const obj_file_names[HF_OBJ_NFILES] = {"info", "fields", "value", "stack"};
static const char *const thread_file_names[HF_THREAD_NFILES] = {"info", "stack"};

/* Lists a small directory; returns its entry count (0 for big ones). */
static int small_children(hf_tree *t, const hf_node *dir, entry *e)
{
    int k = 0;
    uint32_t s = dir->snap;
    switch (dir->kind) {
    case HF_N_ROOT:
        add(e, &k, "README", hf_node_make(HF_N_README, 0, 0, 0));
        add(e, &k, "info", hf_node_make(HF_N_INFO, 0, 0, 0));
        add(e, &k, "errors", hf_node_make(HF_N_ERRORS, 0, 0, 0));
        add(e, &k, "snapshots", hf_node_make(HF_N_SNAPSHOTS, 0, 0, 0));
        if (n_snaps(t) > 0)
            add(e, &k, "latest", hf_node_make(HF_N_LATEST, 0, 0, 0));
        if (has_traces(t))
            add(e, &k, "traces", hf_node_make(HF_N_TRACES, 0, 0, 0));
        if (has_threads(t))
            add(e, &k, "threads", hf_node_make(HF_N_THREADS, 0, 0, 0));
        break;
    case HF_N_THREAD:
        for (uint32_t f = 0; f < HF_THREAD_NFILES; f++)
            add(e, &k, thread_file_names[f], hf_node_make(HF_N_THREAD_FILE, 0, dir->a, f));
        break;
    case HF_N_SNAP: {
        const char *const *names;
        uint32_t nf = snap_files(t, s, &names);
        for (uint32_t i = 0; i < nf; i++) {
            const char *slash = subdir_slash(names[i]);
            if (!slash) {
                add(e, &k, names[i], hf_node_make(HF_N_SNAP_FILE, s, i, 0));
            } else if (subdir_first(names, i) == i) {
                char sub[HF_NAME_MAX];
                g_strlcpy(sub, names[i], MIN((size_t)(slash - names[i]) + 1, sizeof sub));
                add(e, &k, sub, hf_node_make(HF_N_SNAP_SUBDIR, s, i, 0));
            }
        }
        if (ops(t)->n_classes)
            add(e, &k, "classes", hf_node_make(HF_N_CLASSES, s, 0, 0));
        if (ops(t)->n_objects)
            add(e, &k, "objects", hf_node_make(HF_N_OBJECTS, s, 0, 0));
        break;
    }
    case HF_N_SNAP_SUBDIR: {
        const char *const *names;
        uint32_t nf = snap_files(t, s, &names);
        for (uint32_t i = (uint32_t)dir->a; i < nf; i++)
            if (subdir_slash(names[i]) && subdir_first(names, i) == dir->a)
                add(e, &k, subdir_slash(names[i]) + 1, hf_node_make(HF_N_SNAP_FILE, s, i, 0));
        break;
    }
    case HF_N_CLASS: {
        uint32_t parts = ops(t)->class_parts ? ops(t)->class_parts(t->d, s, dir->a) : 0;
        for (uint32_t f = 0; f < HF_CLASS_NFILES; f++)
            if (parts & (1u << f))
                add(e, &k, class_file_names[f], hf_node_make(HF_N_CLASS_FILE, s, dir->a, f));
        if (ops(t)->class_super && ops(t)->class_super(t->d, s, dir->a) >= 0)
            add(e, &k, "super", hf_node_make(HF_N_CLASS_SUPER, s, dir->a, 0));
        break;
    }
    case HF_N_OBJECT: {
        uint32_t parts = ops(t)->object_parts ? ops(t)->object_parts(t->d, s, dir->a) : 0;
        for (uint32_t f = 0; f < HF_OBJ_NFILES; f++)
            if (parts & (1u << f))
                add(e, &k, obj_file_names[f], hf_node_make(HF_N_OBJ_FILE, s, dir->a, f));
        if ((parts & HF_OBJ_HAS_REFS) && ops(t)->object_ref)
            add(e, &k, "refs", hf_node_make(HF_N_REFS, s, dir->a, 0));
        if ((parts & HF_OBJ_HAS_CLASS) && ops(t)->object_class &&
            ops(t)->object_class(t->d, s, dir->a) >= 0)
            add(e, &k, "class", hf_node_make(HF_N_OBJ_CLASS, s, dir->a, 0));
        if ((parts & HF_OBJ_HAS_SCOPE) && ops(t)->object_scope)
            add(e, &k, "scope", hf_node_make(HF_N_OBJ_SCOPE, s, dir->a, 0));
        break;
    }
    default:
        break;
    }
    return k;
}

static bool is_small_dir(hf_node_kind k)
{
    return k == HF_N_ROOT || k == HF_N_THREAD || k == HF_N_SNAP || k == HF_N_SNAP_SUBDIR ||
           k == HF_N_CLASS || k == HF_N_OBJECT;
}

/* ---- big directories: entries by index ---- */

typedef enum { CHILD_END = -1, CHILD_SKIP = 0, CHILD_OK = 1 } child_status;

static uint64_t big_count(hf_tree *t, const hf_node *dir)
{
    uint32_t s = dir->snap;
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
        return n_snaps(t);
    case HF_N_TRACES:
        return has_traces(t) ? MIN(ops(t)->n_traces(t->d), HF_A_MAX) : 0;
    case HF_N_THREADS:
        return has_threads(t) ? MIN(ops(t)->n_threads(t->d), HF_A_MAX) : 0;
    case HF_N_CLASSES:
        return ops(t)->n_classes ? MIN(ops(t)->n_classes(t->d, s), HF_A_MAX) : 0;
    case HF_N_OBJECTS:
        return ops(t)->n_objects ? MIN(ops(t)->n_objects(t->d, s), HF_A_MAX) : 0;
    case HF_N_REFS:
        return HF_B_MAX; /* slots; object_ref says where they end */
    default:
        return 0;
    }
}

static child_status big_child(hf_tree *t, const hf_node *dir, uint64_t i, char *name,
                              hf_node *out)
{
    uint32_t s = dir->snap;
    if (i >= big_count(t, dir))
        return CHILD_END;
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
        snprintf(name, HF_NAME_MAX, "%" G_GUINT64_FORMAT,
                 (guint64)ops(t)->snapshot_number(t->d, (uint32_t)i));
        *out = hf_node_make(HF_N_SNAP, (uint32_t)i, 0, 0);
        return CHILD_OK;
    case HF_N_TRACES:
        snprintf(name, HF_NAME_MAX, "%" G_GUINT64_FORMAT,
                 (guint64)ops(t)->trace_number(t->d, i));
        *out = hf_node_make(HF_N_TRACE, 0, i, 0);
        return CHILD_OK;
    case HF_N_THREADS:
        ops(t)->thread_name(t->d, i, name);
        *out = hf_node_make(HF_N_THREAD, 0, i, 0);
        return CHILD_OK;
    case HF_N_CLASSES:
        g_strlcpy(name, ops(t)->class_name(t->d, s, i), HF_NAME_MAX);
        *out = hf_node_make(HF_N_CLASS, s, i, 0);
        return CHILD_OK;
    case HF_N_OBJECTS:
        ops(t)->object_name(t->d, s, i, name);
        *out = hf_node_make(HF_N_OBJECT, s, i, 0);
        return CHILD_OK;
    case HF_N_REFS: {
        char target[HF_NAME_MAX];
        hf_ref_status st = ops(t)->object_ref(t->d, s, dir->a, (uint32_t)i, name, target);
        if (st == HF_REF_END)
            return CHILD_END;
        *out = hf_node_make(HF_N_REF, s, dir->a, (uint32_t)i);
        return st == HF_REF_OK ? CHILD_OK : CHILD_SKIP;
    }
    default:
        return CHILD_END;
    }
}

/* Binary search of a strictly ascending number sequence. */
static int64_t find_number(hf_tree *t, uint64_t n, uint64_t want,
                           uint64_t (*at)(hf_tree *t, uint64_t i))
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        uint64_t v = at(t, mid);
        if (v == want)
            return (int64_t)mid;
        if (v < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static uint64_t snap_number_at(hf_tree *t, uint64_t i)
{
    return ops(t)->snapshot_number(t->d, (uint32_t)i);
}

static uint64_t trace_number_at(hf_tree *t, uint64_t i)
{
    return ops(t)->trace_number(t->d, i);
}

/* Strict decimal: no sign, no leading zeros, so each number has one name. */
static bool parse_decimal(const char *s, uint64_t *out)
{
    if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 19)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    *out = g_ascii_strtoull(s, NULL, 10);
    return true;
}

static int big_lookup(hf_tree *t, const hf_node *dir, const char *name, hf_node *out)
{
    uint32_t s = dir->snap;
    uint64_t num;
    int64_t i = -1;
    char buf[HF_NAME_MAX];
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
        if (parse_decimal(name, &num))
            i = find_number(t, big_count(t, dir), num, snap_number_at);
        break;
    case HF_N_TRACES:
        if (parse_decimal(name, &num))
            i = find_number(t, big_count(t, dir), num, trace_number_at);
        break;
    case HF_N_THREADS: /* threads are few: a scan is fine */
        for (uint64_t k = 0, n = big_count(t, dir); k < n && i < 0; k++) {
            ops(t)->thread_name(t->d, k, buf);
            if (strcmp(buf, name) == 0)
                i = (int64_t)k;
        }
        break;
    case HF_N_CLASSES:
        if (ops(t)->class_find)
            i = ops(t)->class_find(t->d, s, name);
        break;
    case HF_N_OBJECTS:
        if (ops(t)->object_find)
            i = ops(t)->object_find(t->d, s, name);
        break;
    case HF_N_REFS:
        if (ops(t)->object_ref_find)
            i = ops(t)->object_ref_find(t->d, s, dir->a, name);
        break;
    default:
        break;
    }
    if (i < 0 || (uint64_t)i >= big_count(t, dir))
        return -ENOENT;
    if (big_child(t, dir, (uint64_t)i, buf, out) != CHILD_OK)
        return -ENOENT;
    return 0;
}

int hf_tree_lookup(hf_tree *t, const hf_node *dir, const char *name, hf_node *out)
{
    /* "." of any node, files and links included: the kernel resolves an NFS
     * file handle whose inode it has forgotten with LOOKUP(nodeid, "."). */
    if (strcmp(name, ".") == 0) {
        *out = *dir;
        return 0;
    }
    if (hf_tree_type(dir) != HF_T_DIR)
        return -ENOTDIR;
    if (strcmp(name, "..") == 0) {
        *out = hf_tree_parent(dir);
        return 0;
    }
    if (dir->kind == HF_N_ROOT && strcmp(name, ".stats") == 0) {
        *out = hf_node_make(HF_N_STATS, 0, 0, 0);
        return 0;
    }
    if (!is_small_dir(dir->kind))
        return big_lookup(t, dir, name, out);
    entry e[SMALL_MAX];
    int n = small_children(t, dir, e);
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) {
            *out = e[i].n;
            return 0;
        }
    return -ENOENT;
}

int hf_tree_readdir(hf_tree *t, const hf_node *dir, uint64_t off, hf_dir_emit emit, void *ctx)
{
    if (hf_tree_type(dir) != HF_T_DIR)
        return -ENOTDIR;
    if (off < 1) {
        if (!emit(ctx, ".", dir, 1))
            return 0;
        off = 1;
    }
    if (off < 2) {
        hf_node p = hf_tree_parent(dir);
        if (!emit(ctx, "..", &p, 2))
            return 0;
        off = 2;
    }
    if (is_small_dir(dir->kind)) {
        entry e[SMALL_MAX];
        int n = small_children(t, dir, e);
        for (uint64_t i = off - 2; i < (uint64_t)n; i++)
            if (!emit(ctx, e[i].name, &e[i].n, i + 3))
                return 0;
        return 0;
    }
    char name[HF_NAME_MAX];
    hf_node child;
    for (uint64_t i = off - 2;; i++) {
        child_status st = big_child(t, dir, i, name, &child);
        if (st == CHILD_END)
            break;
        if (st == CHILD_OK && !emit(ctx, name, &child, i + 3))
            break;
    }
    return 0;
}

/* ---- validity of any node number ---- */

static bool in_small_dir(hf_tree *t, const hf_node *n)
{
    hf_node parent = n->kind == HF_N_SNAP_FILE ? snap_file_parent(t, n) : hf_tree_parent(n);
    if (!hf_tree_valid(t, &parent))
        return false;
    entry e[SMALL_MAX];
    int k = small_children(t, &parent, e);
    for (int i = 0; i < k; i++)
        if (hf_node_equal(&e[i].n, n))
            return true;
    return false;
}

bool hf_tree_valid(hf_tree *t, const hf_node *n)
{
    uint32_t s = n->snap;
    bool has_snap = n->kind >= HF_N_SNAP;
    if (!has_snap && s != 0)
        return false;
    if (has_snap && s >= n_snaps(t))
        return false;
    char name[HF_NAME_MAX];
    hf_node child;
    switch (n->kind) {
    case HF_N_ROOT:
    case HF_N_SNAPSHOTS:
    case HF_N_README:
    case HF_N_INFO:
    case HF_N_ERRORS:
    case HF_N_STATS:
        return n->a == 0 && n->b == 0;
    case HF_N_LATEST:
        return n->a == 0 && n->b == 0 && n_snaps(t) > 0;
    case HF_N_TRACES:
        return n->a == 0 && n->b == 0 && has_traces(t);
    case HF_N_THREADS:
        return n->a == 0 && n->b == 0 && has_threads(t);
    case HF_N_SNAP:
    case HF_N_CLASSES:
    case HF_N_OBJECTS:
        if (n->a != 0 || n->b != 0)
            return false;
        if (n->kind == HF_N_CLASSES)
            return ops(t)->n_classes != NULL;
        if (n->kind == HF_N_OBJECTS)
            return ops(t)->n_objects != NULL;
        return true;
    case HF_N_TRACE:
    case HF_N_THREAD:
    case HF_N_CLASS:
    case HF_N_OBJECT: {
        hf_node parent = hf_tree_parent(n);
        return n->b == 0 && big_child(t, &parent, n->a, name, &child) == CHILD_OK;
    }
    case HF_N_REF: {
        hf_node parent = hf_tree_parent(n);
        return hf_tree_valid(t, &parent) && big_child(t, &parent, n->b, name, &child) == CHILD_OK;
    }
    default:
        return in_small_dir(t, n);
    }
}

/* ---- links ---- */

int hf_tree_readlink(hf_tree *t, const hf_node *n, GString *out)
{
    uint32_t s = n->snap;
    char name[HF_NAME_MAX], target[HF_NAME_MAX];
    switch (n->kind) {
    case HF_N_LATEST:
        g_string_append_printf(out, "snapshots/%" G_GUINT64_FORMAT,
                               (guint64)ops(t)->snapshot_number(t->d, n_snaps(t) - 1));
        return 0;
    case HF_N_CLASS_SUPER: {
        int64_t sup = ops(t)->class_super(t->d, s, n->a);
        if (sup < 0)
            return -EINVAL;
        g_string_append_printf(out, "../%s", ops(t)->class_name(t->d, s, (uint64_t)sup));
        return 0;
    }
    case HF_N_OBJ_CLASS: {
        int64_t c = ops(t)->object_class(t->d, s, n->a);
        if (c < 0)
            return -EINVAL;
        g_string_append_printf(out, "../../classes/%s", ops(t)->class_name(t->d, s, (uint64_t)c));
        return 0;
    }
    case HF_N_OBJ_SCOPE:
        if (!ops(t)->object_scope(t->d, s, n->a, target))
            return -EINVAL;
        g_string_append_printf(out, "../%s", target);
        return 0;
    case HF_N_REF:
        if (ops(t)->object_ref(t->d, s, n->a, n->b, name, target) != HF_REF_OK)
            return -EINVAL;
        g_string_append_printf(out, "../../%s", target);
        return 0;
    default:
        return -EINVAL;
    }
}

/* ---- file contents ---- */

typedef struct {
    hf_tree *t;
    hf_view v;
} view_arg;

static uint64_t render_view(void *arg, uint64_t first, GString *out, size_t budget)
{
    view_arg *va = arg;
    return ops(va->t)->render(va->t->d, &va->v, first, out, budget);
}

static uint64_t render_readme(void *arg, uint64_t first, GString *out, size_t budget)
{
    hf_content_readme(((hf_tree *)arg)->d, out);
    return HF_DONE;
}

static uint64_t render_errors(void *arg, uint64_t first, GString *out, size_t budget)
{
    return hf_content_errors(((hf_tree *)arg)->d, first, out, budget);
}

/* Which renderer produces node n's bytes; false for non-files. */
static bool file_renderer(hf_tree *t, const hf_node *n, hf_render_fn *fn, view_arg *va,
                          void **arg)
{
    *arg = va;
    va->t = t;
    memset(&va->v, 0, sizeof va->v);
    va->v.snap = n->snap;
    va->v.index = n->a;
    *fn = render_view;
    switch (n->kind) {
    case HF_N_README:
        *fn = render_readme;
        *arg = t;
        return true;
    case HF_N_ERRORS:
        *fn = render_errors;
        *arg = t;
        return true;
    case HF_N_INFO:
        va->v.kind = HF_V_INFO;
        return true;
    case HF_N_TRACE:
        va->v.kind = HF_V_TRACE;
        return true;
    case HF_N_THREAD_FILE:
        va->v.kind = HF_V_THREAD;
        va->v.file = n->b;
        return true;
    case HF_N_SNAP_FILE:
        va->v.kind = HF_V_SNAP;
        va->v.file = (uint32_t)n->a;
        va->v.index = 0;
        return true;
    case HF_N_CLASS_FILE:
        va->v.kind = HF_V_CLASS;
        va->v.file = n->b;
        return true;
    case HF_N_OBJ_FILE:
        va->v.kind = HF_V_OBJECT;
        va->v.file = n->b;
        return true;
    default:
        return false;
    }
}

static GString *stats_text(hf_tree *t)
{
    GString *s = g_string_new(NULL);
    hf_cache_stats_render(t->cache, s);
    return s;
}

uint64_t hf_tree_size(hf_tree *t, const hf_node *n)
{
    if (hf_tree_type(n) == HF_T_LINK) {
        GString *s = g_string_new(NULL);
        hf_tree_readlink(t, n, s);
        uint64_t len = s->len;
        g_string_free(s, TRUE);
        return len;
    }
    if (n->kind == HF_N_STATS) {
        GString *s = stats_text(t);
        uint64_t len = s->len;
        g_string_free(s, TRUE);
        return len;
    }
    hf_render_fn fn;
    view_arg va;
    void *arg;
    if (!file_renderer(t, n, &fn, &va, &arg))
        return 0;
    return hf_views_size(t->views, hf_ino_encode(n), fn, arg);
}

size_t hf_tree_read(hf_tree *t, const hf_node *n, char *buf, size_t size, uint64_t off)
{
    if (n->kind == HF_N_STATS) {
        GString *s = stats_text(t);
        size_t got = off < s->len ? MIN(size, s->len - off) : 0;
        memcpy(buf, s->str + off, got);
        g_string_free(s, TRUE);
        return got;
    }
    hf_render_fn fn;
    view_arg va;
    void *arg;
    if (!file_renderer(t, n, &fn, &va, &arg))
        return 0;
    return hf_views_read(t->views, hf_ino_encode(n), fn, arg, buf, size, off);
}
