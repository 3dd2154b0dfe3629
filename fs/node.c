/*
 * node.c - what the tree answers about one node: whether it exists (its
 * validity, by its kind's row), its directory, a link's target, and what
 * renders a file's bytes.
 */
#include "fs/kinds.h"

#include "fs/content.h"
#include "fs/parts.h"

#include <errno.h>

/* ---- validity of any node number ---- */

bool tree_valid(const tree_req *q0, const hf_node *n)
{
    const hf_kind_row *k = hf_kind_row_of(q0->kinds, n);
    if (!k)
        return false;
    if (k->at == HF_AT_MOUNT && n->snap != 0)
        return false;
    tree_req q = tree_req_for(q0, n);
    if (k->at == HF_AT_SNAP && n->snap >= q.n_snaps)
        return false;
    if ((k->a == HF_F_ZERO && n->a != 0) || (k->b == HF_F_ZERO && n->b != 0))
        return false;
    if (k->valid)
        return k->valid(&q, n);
    return !k->exists || k->exists(&q);
}

/* Whether directory `dir` is valid and lists n. */
static bool listed_in(const tree_req *q, const hf_node *dir, const hf_node *n)
{
    if (!tree_valid(q, dir))
        return false;
    tree_entry e[TREE_SMALL_MAX];
    int k = tree_small_children(q, dir, e);
    for (int i = 0; i < k; i++)
        if (hf_node_equal(&e[i].n, n))
            return true;
    return false;
}

bool tree_valid_listed(const tree_req *q, const hf_node *n)
{
    hf_node dir = tree_parent(q->kinds, n);
    return listed_in(q, &dir, n);
}

/* A snapshot file whose name has a slash is listed by its subdirectory. */
bool tree_valid_snap_file(const tree_req *q, const hf_node *n)
{
    hf_node dir = tree_snap_file_dir(q, n);
    return listed_in(q, &dir, n);
}

/* An entry of a big directory: its directory is valid and has it at its
 * index (a link directory's slot, else a). */
bool tree_valid_child(const tree_req *q, const hf_node *n)
{
    hf_node dir = tree_parent(q->kinds, n), child;
    char name[HF_NAME_MAX];
    uint64_t i = tree_kind_of(q, n)->b == HF_F_SLOT ? n->b : n->a;
    return tree_valid(q, &dir) && tree_big_child(q, &dir, i, name, &child) == TREE_OK;
}

/* ---- the directory of a node ---- */

/* The root's traces/ and threads/ move into each snapshot when several
 * dumps are mounted (snap: the snapshot's index + 1). */
hf_node tree_parent(const hf_kind_row *kinds, const hf_node *n)
{
    if ((unsigned)n->kind >= HF_N_KINDS)
        return hf_node_make(HF_N_ROOT, 0, 0, 0);
    const hf_kind_row *k = &kinds[n->kind], *p = &kinds[k->parent];
    if (k->at == HF_AT_TT && p->at == HF_AT_MOUNT && n->snap)
        return hf_node_make(HF_N_SNAP, n->snap - 1, 0, 0);
    return hf_node_make(k->parent, p->at == HF_AT_MOUNT ? 0 : n->snap,
                        p->a == HF_F_INDEX ? n->a : 0, k->parent_b);
}

/* ---- links ---- */

/* Path from a link in directory `dir` of a snapshot's tree to its target:
 * up to the snapshot (or only to its classes/ or objects/ when the target
 * is in the same one), then down to the target. */
static void target_path(const tree_req *q, const hf_target *to, hf_node_kind dir,
                        GString *out)
{
    hf_node_kind top = dir, want = to->kind == HF_TO_CLASS ? HF_N_CLASSES : HF_N_OBJECTS;
    int up = 0;
    for (hf_node_kind k = dir; k != HF_N_SNAP && k != HF_N_ROOT; k = tree_kind(q, k)->parent) {
        top = k;
        up++;
    }
    bool in_snap = to->kind == HF_TO_SNAP_FILE, same_top = !in_snap && want == top;
    for (int i = same_top ? 1 : 0; i < up; i++)
        g_string_append(out, "../");
    if (!in_snap && !same_top)
        g_string_append_printf(out, "%s/", tree_kind(q, want)->name);
    g_string_append(out, to->name);
}

int tree_link_latest(const tree_req *q, const hf_node *n, GString *out)
{
    if (q->n_snaps == 0)
        return -EINVAL;
    g_string_append_printf(out, "%s/%" G_GUINT64_FORMAT, tree_kind(q, HF_N_SNAPSHOTS)->name,
                           (guint64)hf_mount_snap_number(q->m, q->n_snaps - 1));
    return 0;
}

/* A class's or object's link: a row of its parts table. */
int tree_link_part(const tree_req *q, const hf_node *n, GString *out)
{
    const hf_kind_row *k = tree_kind_of(q, n);
    hf_target to;
    if (!q->r.d || !hf_parts_link_target(hf_kind_parts(k, q->r.d), n->b, q->r, n->a, &to))
        return -EINVAL;
    target_path(q, &to, k->parent, out);
    return 0;
}

/* An entry of an object's link directory. */
int tree_link_entry(const tree_req *q, const hf_node *n, GString *out)
{
    hf_node dir = tree_parent(q->kinds, n);
    char name[HF_NAME_MAX];
    hf_target to;
    if (!q->r.d || dir.b >= hf_parts_n_dirs(hf_kind_parts(tree_kind_of(q, n), q->r.d)) ||
        tree_linkdir(q, &dir)->entry(q->r.d, q->r.s, n->a, n->b, name, &to) != HF_REF_OK)
        return -EINVAL;
    target_path(q, &to, dir.kind, out);
    return 0;
}

/* ---- file contents ---- */

uint64_t tree_render_readme(void *arg, uint64_t first, GString *out, size_t budget)
{
    hf_content_readme(((tree_view *)arg)->m, out);
    return HF_DONE;
}

uint64_t tree_render_info(void *arg, uint64_t first, GString *out, size_t budget)
{
    return hf_mount_info(((tree_view *)arg)->m, first, out, budget);
}

uint64_t tree_render_errors(void *arg, uint64_t first, GString *out, size_t budget)
{
    return hf_mount_errors(((tree_view *)arg)->m, first, out, budget);
}

uint64_t tree_render_compare(void *arg, uint64_t first, GString *out, size_t budget)
{
    tree_view *va = arg;
    return hf_mount_compare(va->m, va->n.snap, va->n.a, first, out, budget);
}

uint64_t tree_render_growth_chart(void *arg, uint64_t first, GString *out, size_t budget)
{
    return hf_mount_growth_chart(((tree_view *)arg)->m, first, out, budget);
}

uint64_t tree_render_dump(void *arg, uint64_t first, GString *out, size_t budget)
{
    tree_view *va = arg;
    return va->render(va->d, &va->v, first, out, budget);
}

uint64_t tree_measure_dump(void *arg, uint64_t first, uint64_t *bytes, size_t budget)
{
    tree_view *va = arg;
    return va->measure(va->d, &va->v, first, bytes, budget);
}

bool tree_view_compare(const tree_req *q, const hf_node *n, tree_view *va)
{
    return hf_mount_has_compare(q->m, n->snap, n->a);
}

/* A view of the node's dump: renderer `render` for item `index`, file `file`. */
static bool dump_view(const tree_req *q, hf_render_fn render, uint64_t index, uint32_t file,
                      tree_view *va)
{
    va->d = q->r.d;
    va->v = (hf_view){.snap = q->r.s, .index = index, .file = file};
    va->render = render;
    return render != NULL;
}

bool tree_view_trace(const tree_req *q, const hf_node *n, tree_view *va)
{
    return q->r.d && dump_view(q, q->r.d->ops->render_trace, n->a, n->b, va);
}

/* A file of a parts table: its row is b, or a for a snapshot's (whose
 * view has index 0). */
bool tree_view_part(const tree_req *q, const hf_node *n, tree_view *va)
{
    const hf_kind_row *k = tree_kind_of(q, n);
    if (!q->r.d)
        return false;
    bool row_in_a = k->a == HF_F_ROW;
    uint32_t f = row_in_a ? (uint32_t)n->a : n->b;
    const hf_parts *p = hf_kind_parts(k, q->r.d);
    bool has = f < hf_parts_n_files(p);
    va->measure = has ? p->files[f].measure : NULL;
    return dump_view(q, has ? p->files[f].render : NULL, row_in_a ? 0 : n->a, f, va);
}

void tree_text_stats(const tree_req *q, GString *out)
{
    hf_cache_stats_render(q->cache, out);
    hf_mount_status(q->m, out);
}
