/*
 * bigdir.c - the big directories: snapshots/, traces/, threads/, classes/,
 * objects/ and an object's link directories (refs/, ...).  Their entries
 * are addressed by index (readdir offset i + 3 is entry i) and never
 * listed whole; lookup finds a name by the decoder's search, or by binary
 * search on ascending numbers.  And what a dump has (traces, threads,
 * classes, objects), which big directories count and the table's `exists`
 * asks.
 */
#include "fs/kinds.h"

#include "decoders/core/names.h"
#include "decoders/core/search.h"
#include "fs/parts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- what a dump has ---- */

bool tree_has_snaps(const tree_req *q)
{
    return q->n_snaps > 0;
}

bool tree_has_growth_chart(const tree_req *q)
{
    return hf_mount_has_growth_chart(q->m);
}

bool tree_has_traces(const tree_req *q)
{
    hf_dump *d = q->r.d;
    return d && d->ops->n_traces && d->ops->n_traces(d) > 0;
}

bool tree_has_threads(const tree_req *q)
{
    hf_dump *d = q->r.d;
    return d && d->ops->n_threads && d->ops->n_threads(d) > 0;
}

bool tree_has_classes(const tree_req *q)
{
    hf_snapref r = q->r;
    return r.d && r.d->ops->n_classes && r.d->ops->n_classes(r.d, r.s) > 0;
}

bool tree_has_objects(const tree_req *q)
{
    hf_snapref r = q->r;
    return r.d && r.d->ops->n_objects && (!r.d->ops->n_classes || tree_has_classes(q));
}

/* The kind of dir's entries. */
static hf_node_kind child_kind(const tree_req *q, const hf_node *dir)
{
    return tree_kind(q, dir->kind)->child;
}

static void number_name(uint64_t number, char *name)
{
    snprintf(name, HF_NAME_MAX, "%" G_GUINT64_FORMAT, (guint64)number);
}

/* Position of the name `want` among numbered entries (numbers ascend),
 * -1 when none has it. */
typedef struct {
    const tree_req *q;
    uint64_t (*number)(const tree_req *q, uint64_t i);
    uint64_t want;
} number_find;

static bool number_below(const void *ud, uint64_t i)
{
    const number_find *f = ud;
    return f->number(f->q, i) < f->want;
}

static int64_t find_number(const tree_req *q, const hf_node *dir, const char *name,
                           uint64_t (*number)(const tree_req *q, uint64_t i))
{
    number_find f = {q, number, 0};
    if (!hf_parse_decimal(name, &f.want))
        return -1;
    uint64_t n = tree_kind(q, dir->kind)->big->count(q, dir), i = hf_lower_bound(0, n, number_below, &f);
    return i < n && number(q, i) == f.want ? (int64_t)i : -1;
}

/* ---- snapshots/ ---- */

static uint64_t snap_number(const tree_req *q, uint64_t i)
{
    return hf_mount_snap_number(q->m, (uint32_t)i);
}

static uint64_t count_snapshots(const tree_req *q, const hf_node *dir)
{
    return q->n_snaps;
}

static tree_child child_snapshot(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                                 hf_node *out)
{
    number_name(snap_number(q, i), name);
    *out = hf_node_make(child_kind(q, dir), (uint32_t)i, 0, 0);
    return TREE_OK;
}

static int64_t find_snapshot(const tree_req *q, const hf_node *dir, const char *name)
{
    return find_number(q, dir, name, snap_number);
}

const tree_big tree_big_snapshots = {count_snapshots, child_snapshot, find_snapshot};

/* ---- traces/, threads/, classes/ and objects/: things by index ---- */

/* Entry i of dir, a thing by index. */
static tree_child indexed(const tree_req *q, const hf_node *dir, uint64_t i, hf_node *out)
{
    *out = hf_node_make(child_kind(q, dir), dir->snap, i, 0);
    return TREE_OK;
}

static uint64_t capped(uint64_t n)
{
    return MIN(n, HF_A_MAX);
}

static uint64_t trace_number(const tree_req *q, uint64_t i)
{
    return q->r.d->ops->trace_number(q->r.d, i);
}

static uint64_t count_traces(const tree_req *q, const hf_node *dir)
{
    return tree_has_traces(q) ? capped(q->r.d->ops->n_traces(q->r.d)) : 0;
}

static tree_child child_trace(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                              hf_node *out)
{
    number_name(trace_number(q, i), name);
    return indexed(q, dir, i, out);
}

static int64_t find_trace(const tree_req *q, const hf_node *dir, const char *name)
{
    return find_number(q, dir, name, trace_number);
}

const tree_big tree_big_traces = {count_traces, child_trace, find_trace};

static uint64_t count_threads(const tree_req *q, const hf_node *dir)
{
    return tree_has_threads(q) ? capped(q->r.d->ops->n_threads(q->r.d)) : 0;
}

static tree_child child_thread(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                               hf_node *out)
{
    q->r.d->ops->thread_name(q->r.d, i, name);
    return indexed(q, dir, i, out);
}

/* Threads are few: a scan is fine. */
static int64_t find_thread(const tree_req *q, const hf_node *dir, const char *name)
{
    char buf[HF_NAME_MAX];
    for (uint64_t k = 0, n = count_threads(q, dir); k < n; k++) {
        q->r.d->ops->thread_name(q->r.d, k, buf);
        if (strcmp(buf, name) == 0)
            return (int64_t)k;
    }
    return -1;
}

const tree_big tree_big_threads = {count_threads, child_thread, find_thread};

/* A snapshot's classes and objects are asked the same of other ops. */
static uint64_t count_classes(const tree_req *q, const hf_node *dir)
{
    hf_snapref r = q->r;
    return tree_has_classes(q) ? capped(r.d->ops->n_classes(r.d, r.s)) : 0;
}

static uint64_t count_objects(const tree_req *q, const hf_node *dir)
{
    hf_snapref r = q->r;
    return tree_has_objects(q) ? capped(r.d->ops->n_objects(r.d, r.s)) : 0;
}

static tree_child child_class(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                              hf_node *out)
{
    q->r.d->ops->class_name(q->r.d, q->r.s, i, name);
    return indexed(q, dir, i, out);
}

static tree_child child_object(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                               hf_node *out)
{
    q->r.d->ops->object_name(q->r.d, q->r.s, i, name);
    return indexed(q, dir, i, out);
}

static int64_t find_class(const tree_req *q, const hf_node *dir, const char *name)
{
    return tree_has_classes(q) ? q->r.d->ops->class_find(q->r.d, q->r.s, name) : -1;
}

static int64_t find_object(const tree_req *q, const hf_node *dir, const char *name)
{
    return tree_has_objects(q) ? q->r.d->ops->object_find(q->r.d, q->r.s, name) : -1;
}

const tree_big tree_big_classes = {count_classes, child_class, find_class};
const tree_big tree_big_objects = {count_objects, child_object, find_object};

/* ---- an object's link directories: slots, some empty ---- */

const hf_linkdir *tree_linkdir(const tree_req *q, const hf_node *dir)
{
    return &hf_kind_parts(tree_kind(q, dir->kind), q->r.d)->dirs[dir->b];
}

/* Slots; the link directory's entry() says where they end. */
static uint64_t count_slots(const tree_req *q, const hf_node *dir)
{
    return HF_B_MAX;
}

/* Link directory k's entries are of kind child + k. */
static tree_child child_entry(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                              hf_node *out)
{
    hf_target to;
    hf_ref_status st = tree_linkdir(q, dir)->entry(q->r.d, q->r.s, dir->a, (uint32_t)i, name, &to);
    if (st == HF_REF_END)
        return TREE_END;
    *out = hf_node_make((hf_node_kind)(child_kind(q, dir) + dir->b), dir->snap, dir->a, (uint32_t)i);
    return st == HF_REF_OK ? TREE_OK : TREE_SKIP;
}

static int64_t find_entry(const tree_req *q, const hf_node *dir, const char *name)
{
    return tree_linkdir(q, dir)->find(q->r.d, q->r.s, dir->a, name);
}

const tree_big tree_big_slots = {count_slots, child_entry, find_entry};

/* ---- any big directory ---- */

tree_child tree_big_child(const tree_req *q, const hf_node *dir, uint64_t i, char *name,
                          hf_node *out)
{
    const tree_big *big = tree_kind(q, dir->kind)->big;
    if (!big || i >= big->count(q, dir))
        return TREE_END;
    return big->child(q, dir, i, name, out);
}

int tree_big_lookup(const tree_req *q, const hf_node *dir, const char *name, hf_node *out)
{
    const tree_big *big = tree_kind(q, dir->kind)->big;
    char buf[HF_NAME_MAX];
    int64_t i = big->find(q, dir, name);
    if (i < 0 || (uint64_t)i >= big->count(q, dir))
        return -ENOENT;
    return tree_big_child(q, dir, (uint64_t)i, buf, out) == TREE_OK ? 0 : -ENOENT;
}
