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

#include "decoders/core/compare.h"
#include "decoders/core/names.h"
#include "decoders/core/search.h"
#include "fs/content.h"
#include "fs/parts.h"
#include "fs/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hf_tree {
    hf_dumps *m;
    hf_cache *cache;
    hf_views *views;
};

typedef struct {
    char name[HF_NAME_MAX];
    hf_node n;
} entry;

#define SMALL_MAX HF_FILES_MAX

hf_tree *hf_tree_new(hf_dumps *m, hf_cache *cache)
{
    hf_tree *t = g_new0(hf_tree, 1);
    t->m = m;
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

hf_dumps *hf_tree_dumps(hf_tree *t)
{
    return t->m;
}

/* ---- what exists: every "is this part there" question is answered here ---- */

static bool has_traces(hf_tree *t, uint32_t tsnap)
{
    hf_dump *d = hf_dumps_tt(t->m, tsnap).d;
    return d && d->ops->n_traces && d->ops->n_traces(d) > 0;
}

static bool has_threads(hf_tree *t, uint32_t tsnap)
{
    hf_dump *d = hf_dumps_tt(t->m, tsnap).d;
    return d && d->ops->n_threads && d->ops->n_threads(d) > 0;
}

static bool has_classes(hf_tree *t, uint32_t s)
{
    hf_snapref r = hf_dumps_at(t->m, s);
    return r.d->ops->n_classes && r.d->ops->n_classes(r.d, r.s) > 0;
}

static bool has_objects(hf_tree *t, uint32_t s)
{
    hf_snapref r = hf_dumps_at(t->m, s);
    return r.d->ops->n_objects && (!r.d->ops->n_classes || has_classes(t, s));
}

/* The dump a directory node's parts come from, and the parts table of its
 * kind (NULL for other kinds). */
static const hf_parts *parts_of(hf_tree *t, const hf_node *dir, hf_snapref *r)
{
    *r = hf_dumps_node(t->m, dir);
    if (!r->d)
        return NULL;
    switch (dir->kind) {
    case HF_N_THREAD:
        return &r->d->ops->thread;
    case HF_N_SNAP:
    case HF_N_SNAP_SUBDIR:
        return &r->d->ops->snapshot;
    case HF_N_CLASS:
        return &r->d->ops->class_;
    case HF_N_OBJECT:
        return &r->d->ops->object;
    default:
        return NULL;
    }
}

hf_type hf_tree_type(const hf_node *n)
{
    switch (n->kind) {
    case HF_N_ROOT: case HF_N_SNAPSHOTS: case HF_N_TRACES: case HF_N_THREADS: case HF_N_THREAD:
    case HF_N_SNAP: case HF_N_SNAP_SUBDIR: case HF_N_CLASSES: case HF_N_CLASS: case HF_N_OBJECTS:
    case HF_N_OBJECT: case HF_N_OBJ_DIR:
        return HF_T_DIR;
    case HF_N_LATEST: case HF_N_CLASS_LINK: case HF_N_OBJ_LINK:
        return HF_T_LINK;
    default:
        return n->kind >= HF_N_OBJ_ENTRY && n->kind <= HF_N_OBJ_ENTRY_LAST ? HF_T_LINK : HF_T_FILE;
    }
}

bool hf_tree_volatile(const hf_node *n)
{
    return n->kind == HF_N_STATS;
}

bool hf_tree_reads_dump(const hf_node *n)
{
    return n->kind != HF_N_STATS;
}

static bool is_entry(const hf_node *n)
{
    return n->kind >= HF_N_OBJ_ENTRY && n->kind <= HF_N_OBJ_ENTRY_LAST;
}

hf_node hf_tree_parent(const hf_node *n)
{
    if (is_entry(n))
        return hf_node_make(HF_N_OBJ_DIR, n->snap, n->a, (uint32_t)(n->kind - HF_N_OBJ_ENTRY));
    switch (n->kind) {
    case HF_N_TRACES:
    case HF_N_THREADS:
        return n->snap ? hf_node_make(HF_N_SNAP, n->snap - 1, 0, 0)
                       : hf_node_make(HF_N_ROOT, 0, 0, 0);
    case HF_N_TRACE:
        return hf_node_make(HF_N_TRACES, n->snap, 0, 0);
    case HF_N_THREAD:
        return hf_node_make(HF_N_THREADS, n->snap, 0, 0);
    case HF_N_THREAD_FILE:
        return hf_node_make(HF_N_THREAD, n->snap, n->a, 0);
    case HF_N_SNAP:
        return hf_node_make(HF_N_SNAPSHOTS, 0, 0, 0);
    case HF_N_SNAP_SUBDIR:
    case HF_N_COMPARE:
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
    case HF_N_CLASS_LINK:
        return hf_node_make(HF_N_CLASS, n->snap, n->a, 0);
    case HF_N_OBJECT:
        return hf_node_make(HF_N_OBJECTS, n->snap, 0, 0);
    case HF_N_OBJ_FILE:
    case HF_N_OBJ_LINK:
    case HF_N_OBJ_DIR:
        return hf_node_make(HF_N_OBJECT, n->snap, n->a, 0);
    default:
        return hf_node_make(HF_N_ROOT, 0, 0, 0);
    }
}

/* Snapshot files named "dir/file" live in a subdirectory. */
static const char *subdir_slash(const char *name)
{
    return strchr(name, '/');
}

/* Index of the first file snapshot s has in the same subdirectory as file
 * i: the subdirectory's node is named after it. */
static uint32_t subdir_first(hf_tree *t, uint32_t s, uint32_t i)
{
    hf_snapref r = hf_dumps_at(t->m, s);
    const hf_parts *p = &r.d->ops->snapshot;
    const char *slash = subdir_slash(p->files[i].name);
    size_t plen = (size_t)(slash - p->files[i].name);
    for (uint32_t j = 0; j < i; j++)
        if (strncmp(p->files[j].name, p->files[i].name, plen + 1) == 0 &&
            hf_file_exists(p, j, r, 0))
            return j;
    return i;
}

static hf_node snap_file_parent(hf_tree *t, const hf_node *n)
{
    const hf_parts *p = &hf_dumps_at(t->m, n->snap).d->ops->snapshot;
    if (n->a < hf_n_files(p) && subdir_slash(p->files[n->a].name))
        return hf_node_make(HF_N_SNAP_SUBDIR, n->snap, subdir_first(t, n->snap, (uint32_t)n->a), 0);
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

/* The files, links and link directories of a thread, class or object. */
static void add_parts(hf_tree *t, const hf_node *dir, hf_node_kind file_kind,
                      hf_node_kind link_kind, entry *e, int *k)
{
    hf_snapref r;
    const hf_parts *p = parts_of(t, dir, &r);
    uint32_t s = dir->snap;
    for (uint32_t f = 0, n = hf_n_files(p); f < n; f++)
        if (hf_file_exists(p, f, r, dir->a))
            add(e, k, p->files[f].name, hf_node_make(file_kind, s, dir->a, f));
    if (link_kind == HF_N_ROOT)
        return;
    for (uint32_t l = 0, n = hf_n_links(p); l < n; l++)
        if (hf_link_exists(p, l, r, dir->a))
            add(e, k, p->links[l].name, hf_node_make(link_kind, s, dir->a, l));
    if (dir->kind != HF_N_OBJECT)
        return;
    for (uint32_t l = 0, n = hf_n_dirs(p); l < n; l++)
        if (hf_dir_exists(p, l, r, dir->a))
            add(e, k, p->dirs[l].name, hf_node_make(HF_N_OBJ_DIR, s, dir->a, l));
}

/* traces/ and threads/ in a directory: the root, or with several dumps
 * each snapshot (tsnap: the snapshot's index + 1). */
static void add_tt(hf_tree *t, uint32_t tsnap, entry *e, int *k)
{
    if (has_traces(t, tsnap))
        add(e, k, "traces", hf_node_make(HF_N_TRACES, tsnap, 0, 0));
    if (has_threads(t, tsnap))
        add(e, k, "threads", hf_node_make(HF_N_THREADS, tsnap, 0, 0));
}

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
        if (hf_dumps_n_snaps(t->m) > 0)
            add(e, &k, "latest", hf_node_make(HF_N_LATEST, 0, 0, 0));
        add_tt(t, 0, e, &k);
        break;
    case HF_N_THREAD:
        add_parts(t, dir, HF_N_THREAD_FILE, HF_N_ROOT, e, &k);
        break;
    case HF_N_SNAP: {
        hf_snapref r = hf_dumps_at(t->m, s);
        const hf_parts *p = &r.d->ops->snapshot;
        for (uint32_t i = 0, nf = hf_n_files(p); i < nf; i++) {
            const char *name = p->files[i].name, *slash = subdir_slash(name);
            if (!hf_file_exists(p, i, r, 0))
                continue;
            if (!slash) {
                add(e, &k, name, hf_node_make(HF_N_SNAP_FILE, s, i, 0));
            } else if (subdir_first(t, s, i) == i) {
                char sub[HF_NAME_MAX];
                g_strlcpy(sub, name, MIN((size_t)(slash - name) + 1, sizeof sub));
                add(e, &k, sub, hf_node_make(HF_N_SNAP_SUBDIR, s, i, 0));
            }
        }
        if (has_classes(t, s))
            add(e, &k, "classes", hf_node_make(HF_N_CLASSES, s, 0, 0));
        if (has_objects(t, s))
            add(e, &k, "objects", hf_node_make(HF_N_OBJECTS, s, 0, 0));
        for (uint32_t c = 0; c < HF_CMP_N; c++)
            if (hf_dumps_has_compare(t->m, s, c))
                add(e, &k, hf_dumps_compare_names[c], hf_node_make(HF_N_COMPARE, s, c, 0));
        if ((hf_dumps_count(t->m) > 1))
            add_tt(t, s + 1, e, &k);
        break;
    }
    case HF_N_SNAP_SUBDIR: {
        hf_snapref r = hf_dumps_at(t->m, s);
        const hf_parts *p = &r.d->ops->snapshot;
        for (uint32_t i = (uint32_t)dir->a, nf = hf_n_files(p); i < nf; i++)
            if (subdir_slash(p->files[i].name) && hf_file_exists(p, i, r, 0) &&
                subdir_first(t, s, i) == dir->a)
                add(e, &k, subdir_slash(p->files[i].name) + 1,
                    hf_node_make(HF_N_SNAP_FILE, s, i, 0));
        break;
    }
    case HF_N_CLASS:
        add_parts(t, dir, HF_N_CLASS_FILE, HF_N_CLASS_LINK, e, &k);
        break;
    case HF_N_OBJECT:
        add_parts(t, dir, HF_N_OBJ_FILE, HF_N_OBJ_LINK, e, &k);
        break;
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

static const hf_linkdir *linkdir(hf_tree *t, const hf_node *dir)
{
    return &hf_dumps_at(t->m, dir->snap).d->ops->object.dirs[dir->b];
}

static uint64_t big_count(hf_tree *t, const hf_node *dir)
{
    uint32_t s = dir->snap;
    hf_snapref r = hf_dumps_node(t->m, dir);
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
        return hf_dumps_n_snaps(t->m);
    case HF_N_TRACES:
        return has_traces(t, s) ? MIN(r.d->ops->n_traces(r.d), HF_A_MAX) : 0;
    case HF_N_THREADS:
        return has_threads(t, s) ? MIN(r.d->ops->n_threads(r.d), HF_A_MAX) : 0;
    case HF_N_CLASSES:
        return has_classes(t, s) ? MIN(r.d->ops->n_classes(r.d, r.s), HF_A_MAX) : 0;
    case HF_N_OBJECTS:
        return has_objects(t, s) ? MIN(r.d->ops->n_objects(r.d, r.s), HF_A_MAX) : 0;
    case HF_N_OBJ_DIR:
        return HF_B_MAX; /* slots; entry() says where they end */
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
    hf_snapref r = hf_dumps_node(t->m, dir);
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
        snprintf(name, HF_NAME_MAX, "%" G_GUINT64_FORMAT,
                 (guint64)hf_dumps_snap_number(t->m, (uint32_t)i));
        *out = hf_node_make(HF_N_SNAP, (uint32_t)i, 0, 0);
        return CHILD_OK;
    case HF_N_TRACES:
        snprintf(name, HF_NAME_MAX, "%" G_GUINT64_FORMAT, (guint64)r.d->ops->trace_number(r.d, i));
        *out = hf_node_make(HF_N_TRACE, s, i, 0);
        return CHILD_OK;
    case HF_N_THREADS:
        r.d->ops->thread_name(r.d, i, name);
        *out = hf_node_make(HF_N_THREAD, s, i, 0);
        return CHILD_OK;
    case HF_N_CLASSES:
        r.d->ops->class_name(r.d, r.s, i, name);
        *out = hf_node_make(HF_N_CLASS, s, i, 0);
        return CHILD_OK;
    case HF_N_OBJECTS:
        r.d->ops->object_name(r.d, r.s, i, name);
        *out = hf_node_make(HF_N_OBJECT, s, i, 0);
        return CHILD_OK;
    case HF_N_OBJ_DIR: {
        hf_target to;
        hf_ref_status st = linkdir(t, dir)->entry(r.d, r.s, dir->a, (uint32_t)i, name, &to);
        if (st == HF_REF_END)
            return CHILD_END;
        *out = hf_node_make((hf_node_kind)(HF_N_OBJ_ENTRY + dir->b), s, dir->a, (uint32_t)i);
        return st == HF_REF_OK ? CHILD_OK : CHILD_SKIP;
    }
    default:
        return CHILD_END;
    }
}

/* Position of the name `want` among the numbered entries of dir (snapshots
 * or traces: numbers ascend), -1 when none has it. */
typedef struct {
    hf_tree *t;
    hf_snapref r; /* traces: their dump */
    uint64_t want;
} number_find;

static uint64_t number_at(const number_find *f, uint64_t i)
{
    return f->r.d ? f->r.d->ops->trace_number(f->r.d, i) : hf_dumps_snap_number(f->t->m, (uint32_t)i);
}

static bool number_below(const void *ud, uint64_t i)
{
    const number_find *f = ud;
    return number_at(f, i) < f->want;
}

static int64_t find_number(hf_tree *t, const hf_node *dir, const char *name)
{
    number_find f = {t, hf_dumps_node(t->m, dir), 0}; /* traces' dump; none for snapshots */
    if (!hf_parse_decimal(name, &f.want))
        return -1;
    uint64_t n = big_count(t, dir), i = hf_lower_bound(0, n, number_below, &f);
    return i < n && number_at(&f, i) == f.want ? (int64_t)i : -1;
}

static int big_lookup(hf_tree *t, const hf_node *dir, const char *name, hf_node *out)
{
    uint32_t s = dir->snap;
    int64_t i = -1;
    char buf[HF_NAME_MAX];
    hf_snapref r = hf_dumps_node(t->m, dir);
    switch (dir->kind) {
    case HF_N_SNAPSHOTS:
    case HF_N_TRACES:
        i = find_number(t, dir, name);
        break;
    case HF_N_THREADS: /* threads are few: a scan is fine */
        for (uint64_t k = 0, n = big_count(t, dir); k < n && i < 0; k++) {
            r.d->ops->thread_name(r.d, k, buf);
            if (strcmp(buf, name) == 0)
                i = (int64_t)k;
        }
        break;
    case HF_N_CLASSES:
        if (has_classes(t, s))
            i = r.d->ops->class_find(r.d, r.s, name);
        break;
    case HF_N_OBJECTS:
        if (has_objects(t, s))
            i = r.d->ops->object_find(r.d, r.s, name);
        break;
    case HF_N_OBJ_DIR:
        i = linkdir(t, dir)->find(r.d, r.s, dir->a, name);
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
    bool tt = n->kind >= HF_N_TRACES && n->kind <= HF_N_THREAD_FILE; /* s: see tt_at */
    if (!has_snap && !tt && s != 0)
        return false;
    if (has_snap && s >= hf_dumps_n_snaps(t->m))
        return false;
    char name[HF_NAME_MAX];
    hf_node child;
    if (is_entry(n)) {
        hf_node parent = hf_tree_parent(n);
        return hf_tree_valid(t, &parent) && big_child(t, &parent, n->b, name, &child) == CHILD_OK;
    }
    switch (n->kind) {
    case HF_N_ROOT:
    case HF_N_SNAPSHOTS:
    case HF_N_README:
    case HF_N_INFO:
    case HF_N_ERRORS:
    case HF_N_STATS:
        return n->a == 0 && n->b == 0;
    case HF_N_LATEST:
        return n->a == 0 && n->b == 0 && hf_dumps_n_snaps(t->m) > 0;
    case HF_N_TRACES:
        return n->a == 0 && n->b == 0 && has_traces(t, s);
    case HF_N_THREADS:
        return n->a == 0 && n->b == 0 && has_threads(t, s);
    case HF_N_SNAP:
        return n->a == 0 && n->b == 0;
    case HF_N_CLASSES:
        return n->a == 0 && n->b == 0 && has_classes(t, s);
    case HF_N_OBJECTS:
        return n->a == 0 && n->b == 0 && has_objects(t, s);
    case HF_N_TRACE:
    case HF_N_THREAD:
    case HF_N_CLASS:
    case HF_N_OBJECT: {
        hf_node parent = hf_tree_parent(n);
        return n->b == 0 && big_child(t, &parent, n->a, name, &child) == CHILD_OK;
    }
    default:
        return in_small_dir(t, n);
    }
}

/* ---- links ---- */

/* Path from a directory `depth` levels below the snapshot's, inside its
 * classes/ or objects/ (`top`), to the target's directory. */
static void target_path(const hf_target *to, hf_node_kind top, int depth, GString *out)
{
    hf_node_kind want = to->kind == HF_TO_CLASS ? HF_N_CLASSES : HF_N_OBJECTS;
    if (to->kind == HF_TO_SNAP_FILE) {
        for (int i = 0; i < depth; i++)
            g_string_append(out, "../");
    } else if (want == top) {
        for (int i = 1; i < depth; i++)
            g_string_append(out, "../");
    } else {
        for (int i = 0; i < depth; i++)
            g_string_append(out, "../");
        g_string_append(out, want == HF_N_CLASSES ? "classes/" : "objects/");
    }
    g_string_append(out, to->name);
}

int hf_tree_readlink(hf_tree *t, const hf_node *n, GString *out)
{
    uint32_t s = n->snap;
    char name[HF_NAME_MAX];
    hf_target to;
    if (n->kind == HF_N_LATEST) {
        if (hf_dumps_n_snaps(t->m) == 0)
            return -EINVAL;
        g_string_append_printf(out, "snapshots/%" G_GUINT64_FORMAT,
                               (guint64)hf_dumps_snap_number(t->m, hf_dumps_n_snaps(t->m) - 1));
        return 0;
    }
    if (hf_tree_type(n) != HF_T_LINK || s >= hf_dumps_n_snaps(t->m))
        return -EINVAL;
    hf_snapref r = hf_dumps_at(t->m, s);
    if (is_entry(n)) {
        hf_node dir = hf_tree_parent(n);
        if (dir.b >= hf_n_dirs(&r.d->ops->object) ||
            linkdir(t, &dir)->entry(r.d, r.s, n->a, n->b, name, &to) != HF_REF_OK)
            return -EINVAL;
        target_path(&to, HF_N_OBJECTS, 3, out);
        return 0;
    }
    switch (n->kind) {
    case HF_N_CLASS_LINK:
        if (!hf_link_target(&r.d->ops->class_, n->b, r, n->a, &to))
            return -EINVAL;
        target_path(&to, HF_N_CLASSES, 2, out);
        return 0;
    case HF_N_OBJ_LINK:
        if (!hf_link_target(&r.d->ops->object, n->b, r, n->a, &to))
            return -EINVAL;
        target_path(&to, HF_N_OBJECTS, 2, out);
        return 0;
    default:
        return -EINVAL;
    }
}

/* ---- file contents ---- */

typedef struct {
    hf_tree *t;
    hf_node n;
    hf_dump *d; /* a decoder's view: render of d, for v */
    hf_render_fn render;
    hf_measure_fn measure; /* NULL: none */
    hf_view v;
} view_arg;

static uint64_t render_node(void *arg, uint64_t first, GString *out, size_t budget)
{
    view_arg *va = arg;
    switch (va->n.kind) {
    case HF_N_README:
        hf_content_readme(va->t->m, out);
        return HF_DONE;
    case HF_N_ERRORS:
        return hf_dumps_errors(va->t->m, first, out, budget);
    case HF_N_INFO:
        return hf_dumps_info(va->t->m, first, out, budget);
    case HF_N_COMPARE:
        return hf_dumps_compare(va->t->m, va->n.snap, va->n.a, first, out, budget);
    default:
        return va->render(va->d, &va->v, first, out, budget);
    }
}

static uint64_t measure_node(void *arg, uint64_t first, uint64_t *bytes, size_t budget)
{
    view_arg *va = arg;
    return va->measure(va->d, &va->v, first, bytes, budget);
}

/* The renderer of a file declared in table p, or NULL; its measure too. */
static hf_render_fn table_render(const hf_parts *p, uint32_t f, view_arg *va)
{
    if (f >= hf_n_files(p))
        return NULL;
    va->measure = p->files[f].measure;
    return p->files[f].render;
}

/* Fills va with what renders node n's bytes; false for non-files. */
static bool file_renderer(hf_tree *t, const hf_node *n, view_arg *va)
{
    *va = (view_arg){.t = t, .n = *n};
    switch (n->kind) {
    case HF_N_README:
    case HF_N_ERRORS:
    case HF_N_INFO:
        return true;
    case HF_N_COMPARE:
        return hf_dumps_has_compare(t->m, n->snap, n->a);
    default:
        break;
    }
    hf_snapref r = hf_dumps_node(t->m, n);
    if (!r.d)
        return false;
    const hf_dump_ops *o = r.d->ops;
    va->d = r.d;
    va->v = (hf_view){.snap = r.s, .index = n->a, .file = n->b};
    switch (n->kind) {
    case HF_N_TRACE:
        va->render = o->render_trace;
        break;
    case HF_N_THREAD_FILE:
        va->render = table_render(&o->thread, n->b, va);
        break;
    case HF_N_SNAP_FILE:
        va->render = table_render(&o->snapshot, (uint32_t)n->a, va);
        va->v.index = 0;
        va->v.file = (uint32_t)n->a;
        break;
    case HF_N_CLASS_FILE:
        va->render = table_render(&o->class_, n->b, va);
        break;
    case HF_N_OBJ_FILE:
        va->render = table_render(&o->object, n->b, va);
        break;
    default:
        return false;
    }
    return va->render != NULL;
}

/* Bytes made anew at each call: a link's target, or a file that may
 * change while mounted. */
static GString *direct_text(hf_tree *t, const hf_node *n)
{
    GString *s = g_string_new(NULL);
    if (hf_tree_type(n) == HF_T_LINK) {
        hf_tree_readlink(t, n, s);
        return s;
    }
    hf_cache_stats_render(t->cache, s);
    hf_dumps_status(t->m, s);
    return s;
}

uint64_t hf_tree_size(hf_tree *t, const hf_node *n)
{
    if (hf_tree_type(n) == HF_T_LINK || hf_tree_volatile(n)) {
        GString *s = direct_text(t, n);
        uint64_t len = s->len;
        g_string_free(s, TRUE);
        return len;
    }
    view_arg va;
    return file_renderer(t, n, &va) ? hf_views_size(t->views, hf_ino_encode(n), render_node,
                                                    va.measure ? measure_node : NULL, &va)
                                    : 0;
}

size_t hf_tree_read(hf_tree *t, const hf_node *n, char *buf, size_t size, uint64_t off)
{
    if (hf_tree_volatile(n)) {
        GString *s = direct_text(t, n);
        size_t got = off < s->len ? MIN(size, s->len - off) : 0;
        memcpy(buf, s->str + off, got);
        g_string_free(s, TRUE);
        return got;
    }
    view_arg va;
    return file_renderer(t, n, &va)
               ? hf_views_read(t->views, hf_ino_encode(n), render_node,
                               va.measure ? measure_node : NULL, &va, buf, size, off)
               : 0;
}
