/*
 * kinds.c - the kind table (kinds.h): one row per node kind.  The only
 * file of the tree that names the functions of the others; they reach the
 * table through their request.
 */
#include "fs/kinds.h"

#define PARTS(table) (offsetof(hf_dump_ops, table) + 1)

/* Traces and threads: their dump's, at the root or in a snapshot. */
#define TT .at = HF_AT_TT
/* In a snapshot's tree. */
#define SNAP .at = HF_AT_SNAP
/* A node of a big directory, by its index there. */
#define INDEXED .a = HF_F_INDEX, .valid = tree_valid_child
/* A file, link or link directory of a parts table, listed by its directory. */
#define PART(table)                                                                          \
    .a = HF_F_INDEX, .b = HF_F_ROW, .parts = PARTS(table), .valid = tree_valid_listed
/* A file rendered from the dump through the view cache. */
#define DUMP_FILE(view_fn) .type = HF_T_FILE, .render = tree_render_dump, .view = view_fn
#define ENTRY(k)                                                                             \
    {"link directory entry", NULL, HF_T_LINK, SNAP, INDEXED, .b = HF_F_SLOT,                 \
     .parent = HF_N_OBJ_DIR, .parent_b = k, .parts = PARTS(object),                          \
     .readlink = tree_link_entry}

/* The files at the root: one kind, b says which (inode.h hf_root_file). */
#define ROOT_FILE .type = HF_T_FILE, .b = HF_F_WHICH, .parent = HF_N_ROOT
static const hf_kind_row root_files[HF_RF_N] = {
    [HF_RF_README] = {"README", "README", ROOT_FILE, .render = tree_render_readme},
    [HF_RF_INFO] = {"info", "info", ROOT_FILE, .render = tree_render_info},
    [HF_RF_ERRORS] = {"errors", "errors", ROOT_FILE, .render = tree_render_errors},
    [HF_RF_STATS] = {".stats", ".stats", ROOT_FILE, .hidden = true, .self = true,
                     .text = tree_text_stats},
    [HF_RF_GROWTH_SVG] = {"growth chart", "growth.svg", ROOT_FILE,
                          .exists = tree_has_growth_chart,
                          .render = tree_render_growth_chart},
};

/* One row per kind (kinds.h).  What a row leaves out is 0: its directory
 * the root (HF_N_ROOT), at HF_AT_MOUNT, a and b HF_F_ZERO, no function. */
static const hf_kind_row kinds[HF_N_KINDS] = {
    [HF_N_ROOT] = {"root", NULL, HF_T_DIR, .list = tree_list_fixed},
    [HF_N_ROOT_FILE] = {"root file", NULL, ROOT_FILE, .rows = root_files,
                        .n_rows = HF_RF_N},
    [HF_N_SNAPSHOTS] = {"snapshots", "snapshots", HF_T_DIR, .big = &tree_big_snapshots,
                        .child = HF_N_SNAP},
    [HF_N_LATEST] = {"latest", "latest", HF_T_LINK, .exists = tree_has_snaps,
                     .readlink = tree_link_latest},
    [HF_N_TRACES] = {"traces", "traces", HF_T_DIR, TT, .exists = tree_has_traces,
                     .big = &tree_big_traces, .child = HF_N_TRACE},
    [HF_N_TRACE] = {"trace", NULL, DUMP_FILE(tree_view_trace), TT, INDEXED,
                    .parent = HF_N_TRACES},
    [HF_N_THREADS] = {"threads", "threads", HF_T_DIR, TT, .exists = tree_has_threads,
                      .big = &tree_big_threads, .child = HF_N_THREAD},
    [HF_N_THREAD] = {"thread", NULL, HF_T_DIR, TT, INDEXED, .parent = HF_N_THREADS,
                     .parts = PARTS(thread), .file = HF_N_THREAD_FILE,
                     .list = tree_list_parts},
    [HF_N_THREAD_FILE] = {"thread file", NULL, DUMP_FILE(tree_view_part), TT, PART(thread),
                          .parent = HF_N_THREAD},
    [HF_N_SNAP] = {"snapshot", NULL, HF_T_DIR, SNAP, .parent = HF_N_SNAPSHOTS,
                   .parts = PARTS(snapshot), .file = HF_N_SNAP_FILE, .list = tree_list_snap},
    [HF_N_SNAP_FILE] = {"snapshot file", NULL, DUMP_FILE(tree_view_part), SNAP,
                        .a = HF_F_ROW, .parent = HF_N_SNAP, .parts = PARTS(snapshot),
                        .valid = tree_valid_snap_file},
    [HF_N_SNAP_SUBDIR] = {"snapshot subdirectory", NULL, HF_T_DIR, SNAP, .a = HF_F_ROW,
                          .parent = HF_N_SNAP, .parts = PARTS(snapshot),
                          .valid = tree_valid_listed, .list = tree_list_subdir},
    [HF_N_COMPARE] = {"comparison file", NULL, HF_T_FILE, SNAP, .a = HF_F_WHICH,
                      .parent = HF_N_SNAP, .valid = tree_valid_listed,
                      .render = tree_render_compare, .view = tree_view_compare},
    [HF_N_CLASSES] = {"classes", "classes", HF_T_DIR, SNAP, .parent = HF_N_SNAP,
                      .exists = tree_has_classes, .big = &tree_big_classes,
                      .child = HF_N_CLASS},
    [HF_N_CLASS] = {"class", NULL, HF_T_DIR, SNAP, INDEXED, .parent = HF_N_CLASSES,
                    .parts = PARTS(class_), .file = HF_N_CLASS_FILE,
                    .link = HF_N_CLASS_LINK, .list = tree_list_parts},
    [HF_N_CLASS_FILE] = {"class file", NULL, DUMP_FILE(tree_view_part), SNAP, PART(class_),
                         .parent = HF_N_CLASS},
    [HF_N_CLASS_LINK] = {"class link", NULL, HF_T_LINK, SNAP, PART(class_),
                         .parent = HF_N_CLASS, .readlink = tree_link_part},
    [HF_N_OBJECTS] = {"objects", "objects", HF_T_DIR, SNAP, .parent = HF_N_SNAP,
                      .exists = tree_has_objects, .big = &tree_big_objects,
                      .child = HF_N_OBJECT},
    [HF_N_OBJECT] = {"object", NULL, HF_T_DIR, SNAP, INDEXED, .parent = HF_N_OBJECTS,
                     .parts = PARTS(object), .file = HF_N_OBJ_FILE, .link = HF_N_OBJ_LINK,
                     .linkdir = HF_N_OBJ_DIR, .list = tree_list_parts},
    [HF_N_OBJ_FILE] = {"object file", NULL, DUMP_FILE(tree_view_part), SNAP, PART(object),
                       .parent = HF_N_OBJECT},
    [HF_N_OBJ_LINK] = {"object link", NULL, HF_T_LINK, SNAP, PART(object),
                       .parent = HF_N_OBJECT, .readlink = tree_link_part},
    [HF_N_OBJ_DIR] = {"link directory", NULL, HF_T_DIR, SNAP, PART(object),
                      .parent = HF_N_OBJECT, .big = &tree_big_slots,
                      .child = HF_N_OBJ_ENTRY},
    [HF_N_OBJ_ENTRY] = ENTRY(0),
    [HF_N_OBJ_ENTRY + 1] = ENTRY(1),
    [HF_N_OBJ_ENTRY + 2] = ENTRY(2),
    [HF_N_OBJ_ENTRY + 3] = ENTRY(3),
};
_Static_assert(HF_N_OBJ_ENTRY_LAST == HF_N_OBJ_ENTRY + 3, "one ENTRY row per link directory");
_Static_assert(HF_N_KINDS <= 1 << HF_KIND_BITS, "inode.h keeps the kind in 5 bits");
_Static_assert(HF_RF_N <= HF_B_MAX, "a root file's b fits its 15 bits");

static const hf_kind_row none = {"?", NULL, HF_T_FILE};

const hf_kind_row *hf_kind(hf_node_kind k)
{
    return (unsigned)k < HF_N_KINDS ? &kinds[k] : &none;
}

const hf_kind_row *hf_kind_of(const hf_node *n)
{
    const hf_kind_row *k = hf_kind_row_of(kinds, n);
    return k ? k : &none;
}

const hf_kind_row *hf_kind_table(void)
{
    return kinds;
}
