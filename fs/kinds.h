/*
 * kinds.h - the node kinds (inode.h hf_node_kind) in one table, and what
 * the files of the tree share.
 *
 * Every decision the tree makes per kind is a field of the kind's row:
 * its type, its directory, what its snap, a and b fields hold, whether it
 * is a small directory (listed into an array), a big one (entries by
 * index), a link or a file, and which functions answer for it.  So adding
 * a kind is one row in kinds.c, plus its own functions where it really
 * differs (a listing, a big directory, a renderer).  inode.h's 5 kind bits
 * leave room for 32 kinds, so files that are alike share one: a kind's
 * row may hold a table of rows (`rows`), one per file, and b of its node
 * says which (HF_N_ROOT_FILE: README, info, ...; inode.h hf_root_file).
 * hf_kind_of(node) answers with that file's row; everything the tree
 * asks of a node goes through it.
 *
 * Entries of a small directory are listed in table order for the kinds
 * with a fixed name (README, info, classes, ...; a kind's table of rows
 * in its place); a fixed-name kind is valid when its `exists` says so
 * (NULL: always).
 *
 * The files, each calling only those below it (tests/mount/t_layout.sh
 * checks there is no circle):
 *   kinds.c     the table; it names the functions of the files below
 *   tree.c      the public hf_tree_* functions (tree.h)
 *   node.c      validity of a node, its directory, links, file contents
 *   smalldir.c  the small directories, and requests
 *   bigdir.c    the big directories, and what a dump has
 * The functions below reach the table through their request (kinds), not
 * by calling up into kinds.c.
 *
 * A request (tree_req) resolves once which dump, and which snapshot of
 * it, its node's parts come from (mount.h), at the entry of each public
 * hf_tree_* function; the helpers are handed the request.
 *
 * Thread-safe: the table is constant, a request lives on the caller's
 * stack.  No FUSE header.  Internal to the tree, except the descriptive
 * fields of a row, which tests (tests/fuzz/walk.c, test_tree.c) read.
 */
#ifndef HF_KINDS_H
#define HF_KINDS_H

#include "fs/tree.h"
#include "fs/views.h"

#include <stddef.h>

/* What a node's snap field is. */
typedef enum {
    HF_AT_MOUNT, /* 0: the mount's own node */
    HF_AT_TT,    /* traces and threads: 0 for the mount's, a snapshot's index + 1 with
                    several dumps (mount.h hf_mount_tt) */
    HF_AT_SNAP,  /* a snapshot's index */
} hf_kind_at;

/* What a node's a or b field holds. */
typedef enum {
    HF_F_ZERO,  /* nothing: a node with anything else there is not valid */
    HF_F_INDEX, /* a trace, thread, class or object */
    HF_F_ROW,   /* a row of a parts table: a file, link or link directory */
    HF_F_SLOT,  /* a slot of a link directory */
    HF_F_WHICH, /* which comparison file (mount.h HF_CMP_*), or which row
                   of its kind's table (`rows`) */
} hf_kind_field;

typedef struct hf_kind_row hf_kind_row;

/* A request: where its node's parts come from, resolved once. */
typedef struct {
    const hf_kind_row *kinds; /* the table, indexed by kind */
    hf_cache *cache;          /* the tree's (.stats) */
    hf_mount *m;
    uint32_t n_snaps; /* the mount's snapshots */
    hf_kind_at at;    /* r was resolved for nodes at `at` with this snap */
    uint32_t snap;
    hf_snapref r; /* {NULL, 0}: the mount's own node, or no such snapshot */
} tree_req;

/* An entry of a small directory. */
typedef struct {
    char name[HF_NAME_MAX];
    hf_node n;
} tree_entry;

#define TREE_SMALL_MAX HF_FILES_MAX

/* What renders a file's bytes through the view cache. */
typedef struct {
    hf_mount *m;
    hf_node n;
    hf_dump *d; /* a decoder's view: render of d, for v */
    hf_render_fn render;
    hf_measure_fn measure; /* the renderer's measure (model.h), NULL: none */
    hf_view v;
} tree_view;

typedef enum { TREE_END = -1, TREE_SKIP = 0, TREE_OK = 1 } tree_child;

/* A big directory: entries by index, never listed whole. */
typedef struct {
    /* Entries (the end of a link directory is where child says END). */
    uint64_t (*count)(const tree_req *q, const hf_node *dir);
    /* Entry i < count: its name and node (SKIP: an empty slot). */
    tree_child (*child)(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                        hf_node *out);
    /* The index of the entry named `name`, -1 when none. */
    int64_t (*find)(const tree_req *q, const hf_node *dir, const char *name);
} tree_big;

struct hf_kind_row {
    const char *what; /* what a node of the kind is, for messages */
    const char *name; /* the entry's name when fixed ("info", "classes"), else NULL */
    hf_type type;
    hf_kind_at at;
    hf_kind_field a, b;
    hf_node_kind parent; /* the kind of its directory (a snapshot file's may be
                            the snapshot's subdirectory instead: kinds.c) */
    uint32_t parent_b;   /* the directory's b: an entry's link directory */
    bool hidden;         /* a fixed-name entry found by lookup, never listed (.stats) */
    bool self;           /* reports on heapfs, not the dump: readable after it changed */
    /* Files alike in one kind: a row per file, b of the node saying which
     * (NULL: the kind is its own row). */
    const struct hf_kind_row *rows;
    uint32_t n_rows;
    /* The parts table (model.h hf_dump_ops) its files, links and link
     * directories are rows of: offsetof(hf_dump_ops, table) + 1, 0 none. */
    size_t parts;
    /* A directory listing its parts table: the kinds of those entries
     * (HF_N_ROOT, 0: it lists none of that sort). */
    hf_node_kind file, link, linkdir;
    /* A big directory: the kind of its entries (link directory k's: + k). */
    hf_node_kind child;

    /* Whether a node that passed the checks of at, a and b exists; NULL:
     * whether `exists` says so. */
    bool (*valid)(const tree_req *q, const hf_node *n);
    bool (*exists)(const tree_req *q); /* NULL: always */
    /* A small directory: its entries into e (at most TREE_SMALL_MAX). */
    int (*list)(const tree_req *q, const hf_node *dir, tree_entry *e);
    const tree_big *big;
    /* A link: its target, appended to out; 0 or -EINVAL. */
    int (*readlink)(const tree_req *q, const hf_node *n, GString *out);
    /* A file made anew at each read, never cached (volatile). */
    void (*text)(const tree_req *q, GString *out);
    /* A file served through the view cache: its renderer, and what fills
     * the renderer's argument (false: no such file; NULL: nothing to). */
    hf_views_fn render;
    bool (*view)(const tree_req *q, const hf_node *n, tree_view *va);
};

/* kinds.c: the row of kind k (for a number past the kinds, a row that
 * names nothing valid), and the whole table. */
const hf_kind_row *hf_kind(hf_node_kind k);
const hf_kind_row *hf_kind_table(void);
/* The row of node n: its kind's, or the row of its b in its kind's table;
 * the row that names nothing valid for a kind or b past the tables. */
const hf_kind_row *hf_kind_of(const hf_node *n);

/* The row of node n in the table `kinds` (hf_kind_of), NULL when n's kind,
 * or its b in a kind with a table of rows, names none. */
static inline const hf_kind_row *hf_kind_row_of(const hf_kind_row *kinds, const hf_node *n)
{
    if ((unsigned)n->kind >= HF_N_KINDS)
        return NULL;
    const hf_kind_row *k = &kinds[n->kind];
    return !k->rows ? k : n->b < k->n_rows ? &k->rows[n->b] : NULL;
}

/* The rows of kind k's entries: its table's, or k itself as one row. */
static inline uint32_t hf_kind_n_rows(const hf_kind_row *k)
{
    return k->rows ? k->n_rows : 1;
}

/* Row j < hf_kind_n_rows(k) of kind k, and the b of its node. */
static inline const hf_kind_row *hf_kind_row_at(const hf_kind_row *k, uint32_t j,
                                                uint32_t *b)
{
    *b = k->rows ? j : 0;
    return k->rows ? &k->rows[j] : k;
}

/* The parts table of row k in dump d (NULL: none, or no dump). */
static inline const hf_parts *hf_kind_parts(const hf_kind_row *k, const hf_dump *d)
{
    return k->parts && d ? (const hf_parts *)(const void *)((const char *)d->ops + k->parts - 1)
                         : NULL;
}

/* ---- shared by the tree's files ---- */

static inline const hf_kind_row *tree_kind(const tree_req *q, hf_node_kind k)
{
    return &q->kinds[k];
}

/* The row of node n, which names one (tree_valid said so). */
static inline const hf_kind_row *tree_kind_of(const tree_req *q, const hf_node *n)
{
    return hf_kind_row_of(q->kinds, n);
}

/* node.c */
bool tree_valid(const tree_req *q, const hf_node *n);
/* The directory a node's kind sits in, with the snapshot, index and link
 * directory it shares with it (a snapshot file: the snapshot). */
hf_node tree_parent(const hf_kind_row *kinds, const hf_node *n);
bool tree_valid_child(const tree_req *q, const hf_node *n);
bool tree_valid_listed(const tree_req *q, const hf_node *n);
bool tree_valid_snap_file(const tree_req *q, const hf_node *n);
int tree_link_latest(const tree_req *q, const hf_node *n, GString *out);
int tree_link_part(const tree_req *q, const hf_node *n, GString *out);
int tree_link_entry(const tree_req *q, const hf_node *n, GString *out);
void tree_text_stats(const tree_req *q, GString *out);
uint64_t tree_render_readme(void *va, uint64_t first, GString *out, size_t budget);
uint64_t tree_render_info(void *va, uint64_t first, GString *out, size_t budget);
uint64_t tree_render_errors(void *va, uint64_t first, GString *out, size_t budget);
uint64_t tree_render_compare(void *va, uint64_t first, GString *out, size_t budget);
uint64_t tree_render_growth_chart(void *va, uint64_t first, GString *out, size_t budget);
uint64_t tree_render_dump(void *va, uint64_t first, GString *out, size_t budget);
/* Measures a dump's view (va->measure), for hf_views. */
uint64_t tree_measure_dump(void *arg, uint64_t first, uint64_t *bytes, size_t budget);
bool tree_view_compare(const tree_req *q, const hf_node *n, tree_view *va);
bool tree_view_trace(const tree_req *q, const hf_node *n, tree_view *va);
bool tree_view_part(const tree_req *q, const hf_node *n, tree_view *va);

/* smalldir.c */
/* A request for n: the same as q when n sits where q's node does, else
 * resolved anew. */
tree_req tree_req_for(const tree_req *q, const hf_node *n);
int tree_small_children(const tree_req *q, const hf_node *dir, tree_entry *e);
/* The directory listing snapshot file n: the snapshot, or its
 * subdirectory when n's name has a slash. */
hf_node tree_snap_file_dir(const tree_req *q, const hf_node *n);
int tree_list_fixed(const tree_req *q, const hf_node *dir, tree_entry *e);
int tree_list_snap(const tree_req *q, const hf_node *dir, tree_entry *e);
int tree_list_subdir(const tree_req *q, const hf_node *dir, tree_entry *e);
int tree_list_parts(const tree_req *q, const hf_node *dir, tree_entry *e);

/* bigdir.c */
tree_child tree_big_child(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                          hf_node *out);
int tree_big_lookup(const tree_req *q, const hf_node *dir, const char *name, hf_node *out);
const hf_linkdir *tree_linkdir(const tree_req *q, const hf_node *dir);
extern const tree_big tree_big_snapshots, tree_big_traces, tree_big_threads, tree_big_classes,
    tree_big_objects, tree_big_slots;
bool tree_has_snaps(const tree_req *q);
bool tree_has_traces(const tree_req *q);
bool tree_has_threads(const tree_req *q);
bool tree_has_classes(const tree_req *q);
bool tree_has_objects(const tree_req *q);
bool tree_has_growth_chart(const tree_req *q);

#endif
