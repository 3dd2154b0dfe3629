/*
 * smalldir.c - the small directories: the root, a snapshot, a snapshot's
 * subdirectory, a thread, a class, an object, whose few entries are listed
 * into a short array (lookup scans it); and requests (kinds.h tree_req).
 */
#include "fs/kinds.h"

#include "fs/parts.h"

#include <string.h>

tree_req tree_req_for(const tree_req *q, const hf_node *n)
{
    const hf_kind_row *k = hf_kind_row_of(q->kinds, n);
    hf_kind_at at = k ? k->at : HF_AT_MOUNT;
    uint32_t snap = at == HF_AT_MOUNT ? 0 : n->snap;
    if (at == q->at && snap == q->snap)
        return *q;
    tree_req r = *q;
    r.at = at;
    r.snap = snap;
    if (at == HF_AT_TT)
        r.r = hf_mount_tt(q->m, snap);
    else if (at == HF_AT_SNAP && snap < q->n_snaps)
        r.r = hf_mount_at(q->m, snap);
    else
        r.r = (hf_snapref){NULL, 0};
    return r;
}

static void add(tree_entry *e, int *k, const char *name, hf_node n)
{
    if (*k >= TREE_SMALL_MAX)
        return;
    g_strlcpy(e[*k].name, name, HF_NAME_MAX);
    e[*k].n = n;
    (*k)++;
}

/* The listed fixed-name rows of a directory of kind `dir` at snap, in
 * table order, a kind's table of rows in its place (tt_only: only
 * traces/ and threads/). */
static void add_fixed(const tree_req *q, hf_node_kind dir, uint32_t snap, bool tt_only,
                      tree_entry *e, int *k)
{
    tree_req cq = *q;
    for (unsigned c = 0; c < HF_N_KINDS; c++) {
        const hf_kind_row *kind = tree_kind(q, (hf_node_kind)c);
        for (uint32_t j = 0, b; j < hf_kind_n_rows(kind); j++) {
            const hf_kind_row *row = hf_kind_row_at(kind, j, &b);
            if (row->parent != dir || !row->name || row->hidden ||
                (tt_only && row->at != HF_AT_TT))
                continue;
            hf_node n = hf_node_make((hf_node_kind)c, row->at == HF_AT_MOUNT ? 0 : snap, 0, b);
            cq = tree_req_for(&cq, &n);
            if (!row->exists || row->exists(&cq))
                add(e, k, row->name, n);
        }
    }
}

int tree_list_fixed(const tree_req *q, const hf_node *dir, tree_entry *e)
{
    int k = 0;
    add_fixed(q, dir->kind, dir->snap, false, e, &k);
    return k;
}

/* The files, links and link directories of a thread, class or object. */
int tree_list_parts(const tree_req *q, const hf_node *dir, tree_entry *e)
{
    const hf_kind_row *row = tree_kind(q, dir->kind);
    const hf_parts *p = hf_kind_parts(row, q->r.d);
    uint32_t s = dir->snap;
    int k = 0;
    for (uint32_t f = 0, n = row->file ? hf_parts_n_files(p) : 0; f < n; f++)
        if (hf_parts_file_exists(p, f, q->r, dir->a))
            add(e, &k, p->files[f].name, hf_node_make(row->file, s, dir->a, f));
    for (uint32_t l = 0, n = row->link ? hf_parts_n_links(p) : 0; l < n; l++)
        if (hf_parts_link_exists(p, l, q->r, dir->a))
            add(e, &k, p->links[l].name, hf_node_make(row->link, s, dir->a, l));
    for (uint32_t l = 0, n = row->linkdir ? hf_parts_n_dirs(p) : 0; l < n; l++)
        if (hf_parts_dir_exists(p, l, q->r, dir->a))
            add(e, &k, p->dirs[l].name, hf_node_make(row->linkdir, s, dir->a, l));
    return k;
}

/* Snapshot files named "dir/file" live in a subdirectory. */
static const char *subdir_slash(const char *name)
{
    return strchr(name, '/');
}

static const hf_parts *snapshot_parts(const tree_req *q)
{
    return hf_kind_parts(tree_kind(q, HF_N_SNAP), q->r.d);
}

/* Index of the first file the snapshot has in the same subdirectory as
 * file i: the subdirectory's node is named after it. */
static uint32_t subdir_first(const tree_req *q, uint32_t i)
{
    const hf_parts *p = snapshot_parts(q);
    const char *slash = subdir_slash(p->files[i].name);
    size_t plen = (size_t)(slash - p->files[i].name);
    for (uint32_t j = 0; j < i; j++)
        if (strncmp(p->files[j].name, p->files[i].name, plen + 1) == 0 &&
            hf_parts_file_exists(p, j, q->r, 0))
            return j;
    return i;
}

int tree_list_snap(const tree_req *q, const hf_node *dir, tree_entry *e)
{
    int k = 0;
    uint32_t s = dir->snap;
    const hf_parts *p = snapshot_parts(q);
    for (uint32_t i = 0, nf = hf_parts_n_files(p); i < nf; i++) {
        const char *name = p->files[i].name, *slash = subdir_slash(name);
        if (!hf_parts_file_exists(p, i, q->r, 0))
            continue;
        if (!slash) {
            add(e, &k, name, hf_node_make(HF_N_SNAP_FILE, s, i, 0));
        } else if (subdir_first(q, i) == i) {
            char sub[HF_NAME_MAX];
            g_strlcpy(sub, name, MIN((size_t)(slash - name) + 1, sizeof sub));
            add(e, &k, sub, hf_node_make(HF_N_SNAP_SUBDIR, s, i, 0));
        }
    }
    add_fixed(q, HF_N_SNAP, s, false, e, &k);
    for (uint32_t c = 0; c < HF_CMP_N; c++)
        if (hf_mount_has_compare(q->m, s, c))
            add(e, &k, hf_mount_compare_names[c], hf_node_make(HF_N_COMPARE, s, c, 0));
    if (hf_mount_n_dumps(q->m) > 1)
        add_fixed(q, HF_N_ROOT, s + 1, true, e, &k);
    return k;
}

int tree_list_subdir(const tree_req *q, const hf_node *dir, tree_entry *e)
{
    int k = 0;
    const hf_parts *p = snapshot_parts(q);
    for (uint32_t i = (uint32_t)dir->a, nf = hf_parts_n_files(p); i < nf; i++)
        if (subdir_slash(p->files[i].name) && hf_parts_file_exists(p, i, q->r, 0) &&
            subdir_first(q, i) == dir->a)
            add(e, &k, subdir_slash(p->files[i].name) + 1,
                hf_node_make(HF_N_SNAP_FILE, dir->snap, i, 0));
    return k;
}

hf_node tree_snap_file_dir(const tree_req *q, const hf_node *n)
{
    const hf_parts *p = snapshot_parts(q);
    if (n->a < hf_parts_n_files(p) && subdir_slash(p->files[n->a].name))
        return hf_node_make(HF_N_SNAP_SUBDIR, n->snap, subdir_first(q, (uint32_t)n->a), 0);
    return hf_node_make(HF_N_SNAP, n->snap, 0, 0);
}

int tree_small_children(const tree_req *q, const hf_node *dir, tree_entry *e)
{
    const hf_kind_row *row = tree_kind(q, dir->kind);
    return row->list ? row->list(q, dir, e) : 0;
}
