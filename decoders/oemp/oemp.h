/*
 * oemp.h - internals of the OpenEdge memory profiler (.oemp) decoder.
 *
 * Not a public API: only the files of decoders/oemp/ include it; the rest
 * of heapfs sees the decoder through hf_decoder_oemp (an hf_decoder of
 * model.h, listed in decoders/core/registry.c).  The format, and how heapfs
 * reads it, is in docs/formats.md (section 5).  The decoder is split as:
 *
 *   read.c       one line -> tokens, ABL EXPORT conventions ("" and ?)
 *   scan.c       one pass over the file: snapshots, sections, catalogs,
 *                names, call-tree nodes and the object events; the problems
 *                found while indexing
 *   lifetimes.c  the lifetime index built after that pass: tables sorted by
 *                id, sizes at a snapshot, lookups by id, histogram groups,
 *                names and stacks, live sets per snapshot (from checkpoints,
 *                rebuilt ones kept in a memo)
 *   profile.c    heap.pprof and stacks.folded (through decoders/pprof/pprof.h)
 *   render.c     the text views and the file tables of the model
 *   decoder.c    detection, open and close, the model ops
 *
 * Calls go one way: each file calls only files above it in this list, so
 *
 *   read.c <- scan.c <- lifetimes.c <- profile.c <- render.c <- decoder.c
 *
 * where A <- B means B may call A (and anything left of A); decoder.c
 * calls them all, read.c none.  This header's sections follow that order.
 *
 * The lifetime index: every object ever created is one oemp_obj, in the
 * order the recording creates them, so the objects created in snapshot s
 * are one contiguous run and "created <= s" is a prefix.  An object is live
 * at snapshot s when created <= s < deleted.  Size changes are kept once,
 * in file order, with a per-object permutation for "size at s".  The live
 * set of s is rebuilt from the nearest earlier checkpoint (a sorted array of
 * live objects) plus the objects created since, and a few rebuilt sets are
 * kept in a memo; see lifetimes.c for the checkpoint rule and its cost.
 *
 * Ownership: everything hangs off oemp_dump and is freed by oemp_free() in
 * decoder.c.  Strings point into `strs` (decoded text) and live as long as
 * the dump.
 *
 * Thread safety: after oemp_index_build() the dump is read-only, except the
 * memos of rebuilt live sets and of profiles (memo.h), which have
 * their own locks.
 */
#ifndef HF_OEMP_H
#define HF_OEMP_H

#include "decoders/oemp/memo.h"
#include "decoders/core/model.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- read.c: records and tokens ------------------------------------------ */

/* Tokens kept per record; the widest section (header, version 2) has 18. */
#define OEMP_MAX_TOK 32

typedef enum {
    OEMP_NUM,  /* -12, 3, 22.45, .5 */
    OEMP_STR,  /* "..." (p/len: between the quotes, "" still doubled) */
    OEMP_UNK,  /* ? : ABL's unknown value */
    OEMP_WORD, /* anything else unquoted (never written by the profiler) */
    OEMP_BAD,  /* a string left open, or bytes glued to a closing quote */
} oemp_tok_kind;

typedef struct {
    const char *p;
    uint32_t len;
    uint8_t kind;     /* oemp_tok_kind */
    bool doubled;     /* STR: holds "" pairs to undouble */
} oemp_tok;

/* One line of the recording.  Quoted strings never span lines. */
typedef struct {
    uint64_t off;  /* offset of the line's first byte */
    uint64_t next; /* offset of the next line */
    bool dot;      /* the line is a section terminator: a single '.' */
    bool blank;    /* nothing but white space */
    bool cut;      /* the file ends in this line (no newline after it) */
    bool bad;      /* at least one OEMP_BAD token */
    uint32_t ntok; /* tokens on the line; only OEMP_MAX_TOK are kept */
    oemp_tok tok[OEMP_MAX_TOK];
} oemp_rec;

/* Reads the line at `pos` of data[0..size) into r.  False at the end. */
bool oemp_read_record(const char *data, size_t size, uint64_t pos, oemp_rec *r);
/* Integer value of a NUM token with no fraction.  False for ?, strings,
 * decimals and out-of-range numbers. */
bool oemp_tok_i64(const oemp_tok *t, int64_t *v);
bool oemp_tok_u64(const oemp_tok *t, uint64_t *v);
/* Appends the token's value as text: a string undoubled, ? as "?". */
void oemp_tok_append(const oemp_tok *t, GString *out);
/* Newly allocated (g_free) text value of the token. */
char *oemp_tok_dup(const oemp_tok *t);
/* Appends text for a one-line "key: value" file or a table's column,
 * escaped as every view escapes text (hf_escape_text, docs/views.md). */
void oemp_append_oneline(GString *out, const char *s, size_t len);

/* ---- scan.c: sections ---------------------------------------------------- */

typedef enum {
    OEMP_S_HDR,   /* Header */
    OEMP_S_PCAT,  /* PlatObjCatalog */
    OEMP_S_ACAT,  /* AppObjCatalog */
    OEMP_S_BCAT,  /* BObjCatalog */
    OEMP_S_PDATA, /* PlatObjData */
    OEMP_S_ABLN,  /* ABLNameList */
    OEMP_S_OTHN,  /* OtherNameList */
    OEMP_S_NODES, /* CallTreeNodes */
    OEMP_S_AOBJ,  /* AppObjData */
    OEMP_S_CHG,   /* ChangedAppObjData (version 2) */
    OEMP_S_DEL,   /* DeletedObjs */
    OEMP_S_TRL,   /* Trailer */
    OEMP_S_N,
} oemp_section;

/* Section order of a version (1 or 2); returns the number of sections. */
unsigned oemp_sections(int version, const uint8_t **order);
/* Columns of a section in a version. */
unsigned oemp_columns(int version, oemp_section s);
const char *oemp_section_name(oemp_section s);

/* Columns of AppObjData and ChangedAppObjData (0-based). */
enum {
    OEMP_A_ID, OEMP_A_TYPE, OEMP_A_MEM, OEMP_A_ABK, OEMP_A_POOL, OEMP_A_CTIME, OEMP_A_NODE,
    OEMP_A_LINE, OEMP_A_SRC, OEMP_A_UNUSED1, OEMP_A_SCOPE, OEMP_A_TTNUM, OEMP_A_NAMEID,
    OEMP_A_UNUSED2, OEMP_A_BIOTYP, OEMP_A_UNUSED3,
};
enum { OEMP_C_ID, OEMP_C_TYPE, OEMP_C_MEM, OEMP_C_ABK, OEMP_C_POOL, OEMP_C_TTNUM };

/* ---- the dump: the tables scan.c fills in, and what lifetimes.c adds ----- */

#define OEMP_NEVER UINT32_MAX     /* oemp_obj.deleted of an object never deleted */
#define OEMP_NOOFF UINT64_MAX     /* no such line */
#define OEMP_NOOBJ UINT32_MAX     /* no such object */
#define OEMP_CHG_AOBJ (1ull << 63) /* oemp_chg.off: the line is an AppObjData line */

typedef struct {
    uint64_t seq;       /* SnapshotSeq: the directory name */
    uint64_t hdr_off;   /* header line */
    uint64_t trl_off;   /* trailer line, OEMP_NOOFF when missing */
    uint64_t pdata_off; /* first PlatObjData line of this snapshot, OEMP_NOOFF */
    uint32_t obj_first; /* objects created here: [obj_first, next snapshot's) */
    uint32_t chg_first; /* changes of this snapshot in chgs[] */
    uint32_t del_first; /* deletions of this snapshot in dels[] */
    uint32_t plat_first;/* PlatObjData records in plats[] */
    uint64_t live;      /* live objects once this snapshot is applied */
    int64_t live_bytes;
    int64_t created_bytes, changed_bytes, deleted_bytes; /* effect of this snapshot */
    uint8_t nsec;       /* sections read to their '.' (all of them: complete) */
} oemp_snap;

typedef struct {
    uint64_t id;      /* AppObjId */
    uint64_t off;     /* the AppObjData line that created it */
    int64_t mem;      /* bytes at creation */
    uint32_t created; /* snapshot index */
    uint32_t deleted; /* snapshot index, OEMP_NEVER */
    uint32_t group;   /* histogram group: (type, name) */
    uint32_t chg;     /* its changes: chg_by_obj[chg .. next object's chg) */
} oemp_obj;

typedef struct {
    uint32_t obj;  /* object index */
    uint32_t snap; /* snapshot index */
    int64_t mem;   /* bytes from this change on */
    uint64_t off;  /* the line, | OEMP_CHG_AOBJ when it is an AppObjData line */
} oemp_chg;

typedef struct {
    uint32_t obj;
    uint32_t snap;
    uint64_t off; /* the DeletedObjs line */
} oemp_del;

typedef struct {
    uint32_t snap;
    int64_t id, mem, abk, pool;
} oemp_plat;

/* One entry of a catalog or name list. */
typedef struct {
    int64_t id;
    int64_t line; /* ABLNameList StartLine; 0 elsewhere */
    const char *name;
} oemp_named;

typedef struct {
    int64_t id, src, parent, pline;
} oemp_node;

typedef struct {
    int64_t type;     /* AppObjTyp */
    const char *name; /* resolved name, "" for none */
} oemp_group;

typedef enum { OEMP_K_OTHER, OEMP_K_ABL, OEMP_K_BUILTIN } oemp_type_kind;

/* A live set: the sorted indices of the objects live at one snapshot. */
typedef struct {
    bool checkpoint; /* owned by d->checkpoints, else a value of d->live_memo */
    uint32_t snap;
    uint32_t n;
    uint32_t g[];
} oemp_live;

enum { OEMP_T_PCAT, OEMP_T_ACAT, OEMP_T_BCAT, OEMP_T_ABLN, OEMP_T_OTHN, OEMP_T_N };

typedef struct {
    hf_dump base;
    int version;
    const char *text; /* the mapped file */
    size_t size;
    GStringChunk *strs;

    GArray *snaps;  /* oemp_snap */
    GArray *objs;   /* oemp_obj, creation order */
    GArray *chgs;   /* oemp_chg, file order */
    GArray *dels;   /* oemp_del, file order */
    GArray *plats;  /* oemp_plat, file order */
    GArray *tables[OEMP_T_N]; /* oemp_named, sorted by id once indexed */
    GArray *nodes;  /* oemp_node, sorted by id once indexed */
    GArray *groups; /* oemp_group */
    uint32_t *chg_by_obj; /* indices into chgs, grouped by object */
    uint32_t *by_id;      /* object indices sorted by (id, index) */

    /* Checkpoints: live sets of some snapshots, ascending. */
    GPtrArray *checkpoints; /* oemp_live * */
    oemp_memo *live_memo;     /* other live sets, rebuilt: oemp_live * by snapshot */

    /* Profiles built for heap.pprof / stacks.folded (profile.c). */
    oemp_memo *prof_memo;     /* hf_pprof * by snapshot */

    /* Problem counting while indexing (oemp_problem). */
    uint32_t problem_count[16];
} oemp_dump;

static inline const oemp_snap *oemp_snap_at(const oemp_dump *d, uint32_t s)
{
    return &g_array_index(d->snaps, oemp_snap, s);
}
static inline const oemp_obj *oemp_obj_at(const oemp_dump *d, uint32_t g)
{
    return &g_array_index(d->objs, oemp_obj, g);
}

/* ---- scan.c: the pass ---------------------------------------------------- */

/* Indexes the whole file into d (d->text set).  False, with *err set, when
 * not even one snapshot header could be read. */
bool oemp_parse(oemp_dump *d, GError **err);
/* True when head looks like the first line of a recording. */
bool oemp_detect_head(const uint8_t *head, size_t len);

/* Problems while indexing, at most a few dozen of each kind in `errors`
 * and a count of the rest (oemp_problems_flush). */
typedef enum {
    OEMP_P_STRUCT, OEMP_P_COLUMNS, OEMP_P_VALUE, OEMP_P_OBJECT, OEMP_P_DUP, OEMP_P_NAME,
    OEMP_P_TRUNC, OEMP_P_N
} oemp_problem_kind;
void oemp_problem(oemp_dump *d, oemp_problem_kind k, uint64_t off, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
void oemp_problems_flush(oemp_dump *d);

/* ---- lifetimes.c: the lifetime index ------------------------------------- */

/* Built after oemp_parse (it adds problems), freed by oemp_free. */
void oemp_index_build(oemp_dump *d);
void oemp_index_free(oemp_dump *d);
/* Bytes the index takes (arrays, names, checkpoints; not the memos nor the
 * mapped file). */
uint64_t oemp_index_bytes(const oemp_dump *d);
uint32_t oemp_n_snaps(const oemp_dump *d);
/* [first, end) ranges of what snapshot s created, changed and deleted. */
uint32_t oemp_snap_obj_end(const oemp_dump *d, uint32_t s);
uint32_t oemp_snap_chg_end(const oemp_dump *d, uint32_t s);
uint32_t oemp_snap_del_end(const oemp_dump *d, uint32_t s);
uint32_t oemp_snap_plat_end(const oemp_dump *d, uint32_t s);
/* The last size change of object g at or before snapshot s, or NULL. */
const oemp_chg *oemp_change_at(const oemp_dump *d, uint32_t g, uint32_t s);
/* Bytes of object g at snapshot s (after s's changes). */
int64_t oemp_size_at(const oemp_dump *d, uint32_t g, uint32_t s);
/* Bytes of the object of change c (an index into chgs) just before it. */
int64_t oemp_size_before(const oemp_dump *d, uint32_t c);
/* The live set of snapshot s: a new reference (oemp_live_unref). */
oemp_live *oemp_live_get(oemp_dump *d, uint32_t s);
void oemp_live_unref(oemp_dump *d, oemp_live *l);
/* Object index of the object named `id` live at s, or -1. */
int64_t oemp_find_live(oemp_dump *d, uint32_t s, uint64_t id);
/* The objects of snapshot s as the model numbers them (its live set, in
 * creation order): the object index of the o-th, or OEMP_NOOBJ when there
 * is no such snapshot or object; and the position of the object named
 * `id`, or -1. */
uint32_t oemp_live_obj(oemp_dump *d, uint32_t s, uint64_t o);
int64_t oemp_live_pos(oemp_dump *d, uint32_t s, uint64_t id);

/* Lookups in the sorted tables; NULL when absent. */
const oemp_named *oemp_table_find(const oemp_dump *d, int t, int64_t id);
const oemp_node *oemp_node_find(const oemp_dump *d, int64_t id);
oemp_type_kind oemp_type_kind_of(const char *type_name);
/* Name of AppObjTyp `type`: the catalog's, or "type N". */
void oemp_type_name(const oemp_dump *d, int64_t type, GString *out);

/* Fields of an AppObjData line, parsed again on demand. */
typedef struct {
    bool ok;
    uint64_t id;
    int64_t v[16]; /* the columns as integers (0 where ?) */
    bool unk[16];  /* the column was ? or not a number */
} oemp_aobj;
void oemp_aobj_parse(const oemp_dump *d, uint64_t off, oemp_aobj *a);

/* Appends the frames of the stack that starts in call-tree node `node` at
 * `line` (0: unknown), leaf first, each `prefix` label `suffix`.  Stops
 * after max_frames.  Returns the number of frames. */
unsigned oemp_stack_append(const oemp_dump *d, int64_t node, int64_t line, GString *out,
                           const char *prefix, const char *suffix, unsigned max_frames);
/* The label of one frame: "NAME:LINE" (NAME alone when line <= 0). */
void oemp_frame_label(const oemp_dump *d, int64_t src, int64_t line, GString *out);
#define OEMP_MAX_FRAMES 4096

/* ---- profile.c: heap.pprof and stacks.folded of snapshot s (item views) --- */

uint64_t oemp_render_pprof(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                           size_t budget);
/* hf_dump_ops.stacks and stacks_done: the memo's profile of snapshot s. */
const struct hf_pprof *oemp_stacks(hf_dump *d, uint32_t s);
void oemp_stacks_done(hf_dump *d, const struct hf_pprof *p);
uint64_t oemp_render_flame(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                           size_t budget);
uint64_t oemp_render_folded(oemp_dump *d, uint32_t s, uint64_t first, GString *out,
                            size_t budget);
/* heap.pb.gz: the same profile as gzipped protobuf (pprof/proto.h). */
uint64_t oemp_render_pb(oemp_dump *d, uint32_t s, uint64_t first, GString *out, size_t budget);
void oemp_pprof_init(oemp_dump *d);
void oemp_pprof_free(oemp_dump *d);

/* ---- render.c: the views ------------------------------------------------- */

/* hf_dump_ops.tally: live objects and bytes by type and name (growth). */
bool oemp_tally(hf_dump *hd, uint32_t s, bool retained, hf_tally_fn fn, void *ud);
uint64_t oemp_view_info(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                        size_t budget);
uint64_t oemp_view_trace(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
void oemp_describe(hf_dump *hd, GString *out);
extern const hf_file oemp_snap_files[];   /* snapshots/SEQ/ */
extern const hf_file oemp_object_files[]; /* objects/ID/ */
/* tables/objects.tsv (tables.c). */
uint64_t oemp_objects_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget);
uint64_t oemp_objects_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first,
                                  uint64_t *bytes, size_t budget);

#endif
