/*
 * tree.c - see tree.h.  The public functions: each resolves its request
 * (kinds.h tree_req) once and answers from its node's row of the kind
 * table (kinds.c), through node.c and the two shapes of directories:
 * small ones (the root, a snapshot, a class, an object, a thread) whose
 * few entries are listed into a short array (smalldir.c), and big ones
 * (snapshots/, traces/, threads/, classes/, objects/, refs/) whose entries
 * are addressed by index and never listed whole (bigdir.c).  Readdir
 * offsets are entry positions: 1 and 2 are "." and "..", entry i is at
 * i + 3.
 */
#include "fs/tree.h"

#include "fs/kinds.h"
#include "fs/parts.h"
#include "fs/views.h"

#include <errno.h>
#include <string.h>

struct hf_tree {
    hf_mount *m;
    hf_cache *cache;
    hf_views *views;
};

hf_tree *hf_tree_new(hf_mount *m, hf_cache *cache)
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

hf_mount *hf_tree_mount(hf_tree *t)
{
    return t->m;
}

/* ---- requests ---- */

/* The request for node n: asks the mount where n's parts come from. */
static tree_req req_of(hf_tree *t, const hf_node *n)
{
    tree_req q = {hf_kind_table(), t->cache, t->m, hf_mount_n_snaps(t->m), HF_AT_MOUNT, 0,
                  {NULL, 0}};
    return tree_req_for(&q, n);
}

hf_snapref hf_tree_source(hf_tree *t, const hf_node *n)
{
    return req_of(t, n).r;
}

/* ---- what a node is ---- */

hf_type hf_tree_type(const hf_node *n)
{
    return hf_kind_of(n)->type;
}

bool hf_tree_volatile(const hf_node *n)
{
    return hf_kind_of(n)->text != NULL;
}

bool hf_tree_reads_dump(const hf_node *n)
{
    return !hf_kind_of(n)->self;
}

hf_node hf_tree_parent(const hf_node *n)
{
    return tree_parent(hf_kind_table(), n);
}

bool hf_tree_valid(hf_tree *t, const hf_node *n)
{
    tree_req q = req_of(t, n);
    return tree_valid(&q, n);
}

/* ---- directories ---- */

/* A fixed-name entry that is never listed (.stats). */
static bool lookup_hidden(const hf_node *dir, const char *name, hf_node *out)
{
    for (unsigned c = 0; c < HF_N_KINDS; c++) {
        const hf_kind_row *kind = hf_kind((hf_node_kind)c);
        for (uint32_t j = 0, b; j < hf_kind_n_rows(kind); j++) {
            const hf_kind_row *k = hf_kind_row_at(kind, j, &b);
            if (k->hidden && k->parent == dir->kind && strcmp(k->name, name) == 0) {
                *out = hf_node_make((hf_node_kind)c, k->at == HF_AT_MOUNT ? 0 : dir->snap, 0,
                                    b);
                return true;
            }
        }
    }
    return false;
}

int hf_tree_lookup(hf_tree *t, const hf_node *dir, const char *name, hf_node *out)
{
    /* "." of any node, files and links included: the kernel resolves an NFS
     * file handle whose inode it has forgotten with LOOKUP(nodeid, "."). */
    if (strcmp(name, ".") == 0) {
        *out = *dir;
        return 0;
    }
    const hf_kind_row *k = hf_kind_of(dir);
    if (k->type != HF_T_DIR)
        return -ENOTDIR;
    if (strcmp(name, "..") == 0) {
        *out = tree_parent(hf_kind_table(), dir);
        return 0;
    }
    if (lookup_hidden(dir, name, out))
        return 0;
    tree_req q = req_of(t, dir);
    if (k->big)
        return tree_big_lookup(&q, dir, name, out);
    tree_entry e[TREE_SMALL_MAX];
    int n = tree_small_children(&q, dir, e);
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) {
            *out = e[i].n;
            return 0;
        }
    return -ENOENT;
}

int hf_tree_readdir(hf_tree *t, const hf_node *dir, uint64_t off, hf_dir_emit emit, void *ctx)
{
    const hf_kind_row *k = hf_kind_of(dir);
    if (k->type != HF_T_DIR)
        return -ENOTDIR;
    if (off < 1) {
        if (!emit(ctx, ".", dir, 1))
            return 0;
        off = 1;
    }
    if (off < 2) {
        hf_node p = tree_parent(hf_kind_table(), dir);
        if (!emit(ctx, "..", &p, 2))
            return 0;
        off = 2;
    }
    tree_req q = req_of(t, dir);
    if (!k->big) {
        tree_entry e[TREE_SMALL_MAX];
        int n = tree_small_children(&q, dir, e);
        for (uint64_t i = off - 2; i < (uint64_t)n; i++)
            if (!emit(ctx, e[i].name, &e[i].n, i + 3))
                return 0;
        return 0;
    }
    char name[HF_NAME_MAX];
    hf_node child;
    for (uint64_t i = off - 2;; i++) {
        tree_child st = tree_big_child(&q, dir, i, name, &child);
        if (st == TREE_END)
            break;
        if (st == TREE_OK && !emit(ctx, name, &child, i + 3))
            break;
    }
    return 0;
}

/* ---- links and files ---- */

int hf_tree_readlink(hf_tree *t, const hf_node *n, GString *out)
{
    const hf_kind_row *k = hf_kind_of(n);
    if (!k->readlink)
        return -EINVAL;
    tree_req q = req_of(t, n);
    return k->readlink(&q, n, out);
}

/* Fills va with what renders node n's bytes; false for non-files. */
static bool file_renderer(const tree_req *q, const hf_node *n, tree_view *va)
{
    const hf_kind_row *k = hf_kind_of(n);
    *va = (tree_view){.m = q->m, .n = *n};
    return k->render && (!k->view || k->view(q, n, va));
}

/* Bytes made anew at each call: a link's target, or a file that may
 * change while mounted. */
static GString *direct_text(const tree_req *q, const hf_node *n)
{
    const hf_kind_row *k = hf_kind_of(n);
    GString *s = g_string_new(NULL);
    if (k->readlink)
        k->readlink(q, n, s);
    else if (k->text)
        k->text(q, s);
    return s;
}

uint64_t hf_tree_size(hf_tree *t, const hf_node *n)
{
    const hf_kind_row *k = hf_kind_of(n);
    tree_req q = req_of(t, n);
    if (k->type == HF_T_LINK || k->text) {
        GString *s = direct_text(&q, n);
        uint64_t len = s->len;
        g_string_free(s, TRUE);
        return len;
    }
    tree_view va;
    return file_renderer(&q, n, &va)
               ? hf_views_size(t->views, hf_ino_encode(n), k->render,
                               va.measure ? tree_measure_dump : NULL, &va)
               : 0;
}

size_t hf_tree_read(hf_tree *t, const hf_node *n, char *buf, size_t size, uint64_t off)
{
    const hf_kind_row *k = hf_kind_of(n);
    tree_req q = req_of(t, n);
    if (k->text) {
        GString *s = direct_text(&q, n);
        size_t got = off < s->len ? MIN(size, s->len - off) : 0;
        memcpy(buf, s->str + off, got);
        g_string_free(s, TRUE);
        return got;
    }
    tree_view va;
    return file_renderer(&q, n, &va)
               ? hf_views_read(t->views, hf_ino_encode(n), k->render,
                               va.measure ? tree_measure_dump : NULL, &va, buf, size, off)
               : 0;
}
