/*
 * scan.c - the one pass over an .oemp recording (see oemp.h), and the
 * problems found while indexing (oemp_problem, also used by lifetimes.c).
 * Calls read.c only.
 *
 * Walks the file line by line with a small state machine: a snapshot is a
 * header line and then the sections of its version in a fixed order, each
 * ended by a '.' line.  Catalogs, name lists and call-tree nodes go to
 * global tables (they only grow, and in version 1 they come after the
 * objects that use them, so names are resolved once the pass is over).
 * Object events are replayed as they come: AppObjData creates (and, in
 * version 1, changes a live object), ChangedAppObjData changes, DeletedObjs
 * deletes; running totals give each snapshot its live count and bytes.
 *
 * Recovering from bad input: a line with too few columns is skipped, one
 * with too many is read by its first columns; a header line found where a
 * section line was expected ends the snapshot early (a lost '.' damages one
 * snapshot, not the rest of the file); a last line without its newline is
 * a cut-off line and is not used.  Every such event is a problem line.
 *
 * Single-threaded; runs inside oemp open only.
 */
#include "decoders/oemp/oemp.h"

#include <stdarg.h>
#include <string.h>

static const uint8_t order_v1[] = {
    OEMP_S_HDR, OEMP_S_PCAT, OEMP_S_ACAT,  OEMP_S_BCAT, OEMP_S_AOBJ, OEMP_S_PDATA,
    OEMP_S_DEL, OEMP_S_NODES, OEMP_S_ABLN, OEMP_S_OTHN, OEMP_S_TRL,
};
static const uint8_t order_v2[] = {
    OEMP_S_HDR,  OEMP_S_PCAT,  OEMP_S_ACAT, OEMP_S_BCAT, OEMP_S_PDATA, OEMP_S_ABLN,
    OEMP_S_OTHN, OEMP_S_NODES, OEMP_S_AOBJ, OEMP_S_CHG,  OEMP_S_DEL,   OEMP_S_TRL,
};

unsigned oemp_sections(int version, const uint8_t **order)
{
    *order = version >= 2 ? order_v2 : order_v1;
    return version >= 2 ? G_N_ELEMENTS(order_v2) : G_N_ELEMENTS(order_v1);
}

unsigned oemp_columns(int version, oemp_section s)
{
    static const uint8_t cols[OEMP_S_N] = {18, 2, 2, 2, 4, 3, 2, 4, 16, 6, 2, 11};
    if (s == OEMP_S_HDR && version < 2)
        return 15; /* OEVersion, PASOEInstanceAlias and Description are V2 */
    if (s == OEMP_S_TRL && version < 2)
        return 7; /* reuseObjCnt, reuseMemTot, Tag and SnapshotSeq are V2 */
    return cols[s];
}

const char *oemp_section_name(oemp_section s)
{
    static const char *const names[OEMP_S_N] = {
        "Header",        "PlatObjCatalog", "AppObjCatalog", "BObjCatalog",
        "PlatObjData",   "ABLNameList",    "OtherNameList", "CallTreeNodes",
        "AppObjData",    "ChangedAppObjData", "DeletedObjs", "Trailer",
    };
    return s < OEMP_S_N ? names[s] : "?";
}

/* ---- problems ------------------------------------------------------------ */

#define PROBLEMS_SHOWN 25

static const char *const problem_kinds[OEMP_P_N] = {
    "structure (sections, '.' lines, headers)", "wrong number of columns",
    "values that are not numbers",             "objects unknown or deleted twice",
    "duplicate ids",                           "names that do not resolve",
    "truncation",
};

void oemp_problem(oemp_dump *d, oemp_problem_kind k, uint64_t off, const char *fmt, ...)
{
    if (++d->problem_count[k] > PROBLEMS_SHOWN)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (off == OEMP_NOOFF)
        hf_problem_nooff(&d->base, "%s", what);
    else
        hf_problem(&d->base, off, "%s", what);
    g_free(what);
}

void oemp_problems_flush(oemp_dump *d)
{
    for (int k = 0; k < OEMP_P_N; k++)
        if (d->problem_count[k] > PROBLEMS_SHOWN)
            hf_problem_nooff(&d->base, "%u more problems of this kind: %s",
                             d->problem_count[k] - PROBLEMS_SHOWN, problem_kinds[k]);
}

/* ---- id -> object map (open addressing; only used while parsing) --------- */

typedef struct {
    uint64_t *keys;
    uint32_t *vals; /* UINT32_MAX: empty */
    size_t mask, used;
} idmap;

static size_t id_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void idmap_init(idmap *m, size_t cap)
{
    m->mask = cap - 1;
    m->used = 0;
    m->keys = g_new(uint64_t, cap);
    m->vals = g_new(uint32_t, cap);
    memset(m->vals, 0xff, cap * sizeof *m->vals);
}

static size_t idmap_slot(const idmap *m, uint64_t key)
{
    size_t i = id_hash(key) & m->mask;
    while (m->vals[i] != UINT32_MAX && m->keys[i] != key)
        i = (i + 1) & m->mask;
    return i;
}

static uint32_t idmap_get(const idmap *m, uint64_t key)
{
    return m->vals[idmap_slot(m, key)];
}

static void idmap_put(idmap *m, uint64_t key, uint32_t val)
{
    if ((m->used + 1) * 2 > m->mask + 1) {
        idmap old = *m;
        idmap_init(m, (old.mask + 1) * 2);
        for (size_t i = 0; i <= old.mask; i++)
            if (old.vals[i] != UINT32_MAX) {
                size_t j = idmap_slot(m, old.keys[i]);
                m->keys[j] = old.keys[i];
                m->vals[j] = old.vals[i];
                m->used++;
            }
        g_free(old.keys);
        g_free(old.vals);
    }
    size_t i = idmap_slot(m, key);
    if (m->vals[i] == UINT32_MAX)
        m->used++;
    m->keys[i] = key;
    m->vals[i] = val;
}

static void idmap_free(idmap *m)
{
    g_free(m->keys);
    g_free(m->vals);
}

/* ---- the pass ------------------------------------------------------------ */

typedef struct {
    oemp_dump *d;
    idmap ids;
    GArray *cur_mem;  /* int64_t per object: its bytes now */
    const uint8_t *order;
    unsigned nsec;
    bool open;        /* inside a snapshot */
    bool got_trl;
    unsigned k;       /* position in order */
    uint64_t line;    /* 1-based line number of the current record */
    int64_t pid;
    const char *start; /* StartTime of the first header, raw */
    uint32_t start_len;
    char *uuid;
    uint64_t live;
    int64_t live_bytes;
} parser;

static oemp_snap *cur_snap(parser *p)
{
    return &g_array_index(p->d->snaps, oemp_snap, p->d->snaps->len - 1);
}

/* A problem with the place it happened: line, snapshot, section. */
static void bad(parser *p, oemp_problem_kind k, const oemp_rec *r, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static void bad(parser *p, oemp_problem_kind k, const oemp_rec *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (p->open)
        oemp_problem(p->d, k, r->off, "line %" G_GUINT64_FORMAT " (snapshot %" G_GUINT64_FORMAT
                     ", %s): %s", p->line, cur_snap(p)->seq,
                     oemp_section_name(p->k < p->nsec ? p->order[p->k] : OEMP_S_TRL), what);
    else
        oemp_problem(p->d, k, r->off, "line %" G_GUINT64_FORMAT ": %s", p->line, what);
    g_free(what);
}

/* Is r a header line?  Outside a snapshot a loose test (so a damaged
 * header still starts its snapshot); inside one a strict test. */
static bool is_header(parser *p, const oemp_rec *r)
{
    if (r->ntok < 4 || r->tok[0].kind != OEMP_NUM || r->tok[1].kind != OEMP_NUM ||
        r->tok[2].kind != OEMP_NUM || r->tok[3].kind != OEMP_STR)
        return false;
    if (!p->open || !p->d->version)
        return true;
    int64_t v;
    return r->ntok >= 10 && (r->tok[4].kind == OEMP_STR || r->tok[4].kind == OEMP_UNK) &&
           oemp_tok_i64(&r->tok[0], &v) && v == p->d->version;
}

static void close_snapshot(parser *p)
{
    if (!p->open)
        return;
    oemp_snap *sn = cur_snap(p);
    sn->nsec = (uint8_t)p->k;
    sn->live = p->live;
    sn->live_bytes = p->live_bytes;
    p->open = false;
}

static void open_snapshot(parser *p, const oemp_rec *r)
{
    oemp_dump *d = p->d;
    close_snapshot(p);
    int64_t version = 0, pid = 0;
    oemp_tok_i64(&r->tok[0], &version);
    oemp_tok_i64(&r->tok[1], &pid);
    uint64_t last = d->snaps->len ? cur_snap(p)->seq : 0;
    if (!d->version) {
        d->version = (int)version;
        p->pid = pid;
        p->start = r->tok[3].p;
        p->start_len = r->tok[3].len;
        if (r->ntok > 9)
            p->uuid = oemp_tok_dup(&r->tok[9]);
        p->nsec = oemp_sections(d->version, &p->order);
    }
    oemp_snap sn = {0};
    sn.hdr_off = r->off;
    sn.trl_off = OEMP_NOOFF;
    sn.pdata_off = OEMP_NOOFF;
    sn.obj_first = d->objs->len;
    sn.chg_first = d->chgs->len;
    sn.del_first = d->dels->len;
    sn.plat_first = d->plats->len;
    uint64_t seq = 0;
    bool seq_ok = oemp_tok_u64(&r->tok[2], &seq);
    g_array_append_val(d->snaps, sn);
    p->open = true;
    p->got_trl = false;
    p->k = 0;
    if (!seq_ok || (d->snaps->len > 1 && seq <= last)) {
        uint64_t given = seq;
        seq = last + 1;
        cur_snap(p)->seq = seq;
        if (seq_ok)
            bad(p, OEMP_P_STRUCT, r, "sequence number %" G_GUINT64_FORMAT " does not follow %"
                G_GUINT64_FORMAT "; shown as %" G_GUINT64_FORMAT, given, last, seq);
        else
            bad(p, OEMP_P_VALUE, r, "sequence number is not a number; shown as %" G_GUINT64_FORMAT,
                seq);
    } else {
        cur_snap(p)->seq = seq;
    }
    unsigned want = oemp_columns(d->version, OEMP_S_HDR);
    if (r->ntok != want)
        bad(p, OEMP_P_COLUMNS, r, "header has %u columns, expected %u", r->ntok, want);
    if (version != d->version)
        bad(p, OEMP_P_STRUCT, r, "version %" G_GINT64_FORMAT " in a version %d recording; read as "
            "version %d", version, d->version, d->version);
    if (pid != p->pid || r->tok[3].len != p->start_len ||
        memcmp(r->tok[3].p, p->start, p->start_len) != 0)
        bad(p, OEMP_P_STRUCT, r, "process or start time differ from the first snapshot's: "
            "another recording appended?");
    if (r->ntok > 9 && p->uuid) {
        char *u = oemp_tok_dup(&r->tok[9]);
        if (strcmp(u, p->uuid) != 0)
            bad(p, OEMP_P_STRUCT, r, "UUID %s differs from the first snapshot's %s", u, p->uuid);
        g_free(u);
    }
}

/* Checks the column count; false when the line cannot be used. */
static bool columns_ok(parser *p, const oemp_rec *r, oemp_section s)
{
    unsigned want = oemp_columns(p->d->version, s);
    if (r->ntok < want) {
        bad(p, OEMP_P_COLUMNS, r, "%u columns, expected %u; line skipped", r->ntok, want);
        return false;
    }
    if (r->ntok > want)
        bad(p, OEMP_P_COLUMNS, r, "%u columns, expected %u; the first %u read", r->ntok, want,
            want);
    else if (r->bad)
        bad(p, OEMP_P_VALUE, r, "a quoted string is malformed; read as it stands");
    return true;
}

/* Integer column, or 0 with a problem when it is neither a number nor ?. */
static int64_t num(parser *p, const oemp_rec *r, unsigned col, bool *unknown)
{
    int64_t v = 0;
    if (oemp_tok_i64(&r->tok[col], &v)) {
        if (unknown)
            *unknown = false;
        return v;
    }
    if (unknown)
        *unknown = true;
    if (r->tok[col].kind != OEMP_UNK)
        bad(p, OEMP_P_VALUE, r, "column %u is not an integer", col + 1);
    return 0;
}

/* An id column: false (with a problem) when it is not a number. */
static bool id_col(parser *p, const oemp_rec *r, unsigned col, uint64_t *id)
{
    if (oemp_tok_u64(&r->tok[col], id))
        return true;
    bad(p, OEMP_P_VALUE, r, "id in column %u is not a number; line skipped", col + 1);
    return false;
}

static const char *intern(parser *p, const oemp_tok *t)
{
    if (t->kind == OEMP_STR && !t->doubled)
        return g_string_chunk_insert_len(p->d->strs, t->p, t->len);
    char *s = oemp_tok_dup(t);
    const char *r = g_string_chunk_insert(p->d->strs, s);
    g_free(s);
    return r;
}

static void on_named(parser *p, const oemp_rec *r, int table, unsigned id_col_i,
                     unsigned name_col, int line_col)
{
    int64_t id;
    if (!oemp_tok_i64(&r->tok[id_col_i], &id)) {
        bad(p, OEMP_P_VALUE, r, "id is not a number; line skipped");
        return;
    }
    oemp_named n = {.id = id, .name = intern(p, &r->tok[name_col])};
    if (line_col >= 0)
        n.line = num(p, r, (unsigned)line_col, NULL);
    g_array_append_val(p->d->tables[table], n);
}

static void on_node(parser *p, const oemp_rec *r)
{
    oemp_node n;
    if (!oemp_tok_i64(&r->tok[0], &n.id) || n.id <= 0) {
        bad(p, OEMP_P_VALUE, r, "node id is not a positive number; line skipped");
        return;
    }
    n.src = num(p, r, 1, NULL);
    n.parent = num(p, r, 2, NULL);
    n.pline = num(p, r, 3, NULL);
    g_array_append_val(p->d->nodes, n);
}

static void on_pdata(parser *p, const oemp_rec *r)
{
    oemp_plat pl = {.snap = p->d->snaps->len - 1};
    if (!oemp_tok_i64(&r->tok[0], &pl.id)) {
        bad(p, OEMP_P_VALUE, r, "platform object id is not a number; line skipped");
        return;
    }
    pl.mem = num(p, r, 1, NULL);
    pl.abk = num(p, r, 2, NULL);
    pl.pool = num(p, r, 3, NULL);
    if (cur_snap(p)->pdata_off == OEMP_NOOFF)
        cur_snap(p)->pdata_off = r->off;
    g_array_append_val(p->d->plats, pl);
}

static int64_t *cur_mem(parser *p, uint32_t g)
{
    return &g_array_index(p->cur_mem, int64_t, g);
}

static void add_change(parser *p, uint32_t g, int64_t mem, uint64_t off)
{
    oemp_chg c = {.obj = g, .snap = p->d->snaps->len - 1, .mem = mem, .off = off};
    g_array_append_val(p->d->chgs, c);
    int64_t delta = mem - *cur_mem(p, g);
    p->live_bytes += delta;
    cur_snap(p)->changed_bytes += delta;
    *cur_mem(p, g) = mem;
}

static void on_aobj(parser *p, const oemp_rec *r)
{
    oemp_dump *d = p->d;
    uint64_t id;
    if (!id_col(p, r, OEMP_A_ID, &id))
        return;
    bool unk;
    int64_t mem = num(p, r, OEMP_A_MEM, &unk);
    uint32_t g = idmap_get(&p->ids, id);
    if (g != UINT32_MAX) {
        const oemp_obj *o = oemp_obj_at(d, g);
        if (o->deleted == OEMP_NEVER) {
            /* version 1 lists changed objects here; version 2 should not */
            if (d->version >= 2)
                bad(p, OEMP_P_DUP, r, "object %" G_GUINT64_FORMAT " created again; read as a "
                    "change", id);
            add_change(p, g, unk ? *cur_mem(p, g) : mem, r->off | OEMP_CHG_AOBJ);
            return;
        }
        bad(p, OEMP_P_DUP, r, "object id %" G_GUINT64_FORMAT " used again after its deletion in "
            "snapshot %" G_GUINT64_FORMAT "; read as a new object", id,
            oemp_snap_at(d, o->deleted)->seq);
    }
    if (d->objs->len == UINT32_MAX - 1) {
        bad(p, OEMP_P_STRUCT, r, "more than 4294967294 objects; the rest are not read");
        return;
    }
    oemp_obj o = {.id = id, .off = r->off, .mem = mem, .created = d->snaps->len - 1,
                  .deleted = OEMP_NEVER};
    g_array_append_val(d->objs, o);
    g_array_append_val(p->cur_mem, mem);
    idmap_put(&p->ids, id, d->objs->len - 1);
    p->live++;
    p->live_bytes += mem;
    cur_snap(p)->created_bytes += mem;
}

/* The object a changed or deleted line names, or UINT32_MAX. */
static uint32_t live_obj(parser *p, const oemp_rec *r, const char *what)
{
    uint64_t id;
    if (!id_col(p, r, 0, &id))
        return UINT32_MAX;
    uint32_t g = idmap_get(&p->ids, id);
    if (g == UINT32_MAX) {
        bad(p, OEMP_P_OBJECT, r, "%s object %" G_GUINT64_FORMAT " was never created", what, id);
        return UINT32_MAX;
    }
    const oemp_obj *o = oemp_obj_at(p->d, g);
    if (o->deleted != OEMP_NEVER) {
        bad(p, OEMP_P_OBJECT, r, "%s object %" G_GUINT64_FORMAT " was deleted in snapshot %"
            G_GUINT64_FORMAT, what, id, oemp_snap_at(p->d, o->deleted)->seq);
        return UINT32_MAX;
    }
    return g;
}

static void on_chg(parser *p, const oemp_rec *r)
{
    uint32_t g = live_obj(p, r, "changed");
    if (g == UINT32_MAX)
        return;
    bool unk;
    int64_t mem = num(p, r, OEMP_C_MEM, &unk);
    add_change(p, g, unk ? *cur_mem(p, g) : mem, r->off);
}

static void on_del(parser *p, const oemp_rec *r)
{
    uint32_t g = live_obj(p, r, "deleted");
    if (g == UINT32_MAX)
        return;
    uint32_t s = p->d->snaps->len - 1;
    g_array_index(p->d->objs, oemp_obj, g).deleted = s;
    oemp_del del = {.obj = g, .snap = s, .off = r->off};
    g_array_append_val(p->d->dels, del);
    p->live--;
    p->live_bytes -= *cur_mem(p, g);
    cur_snap(p)->deleted_bytes += *cur_mem(p, g);
}

static void on_trl(parser *p, const oemp_rec *r)
{
    if (p->got_trl) {
        bad(p, OEMP_P_STRUCT, r, "a second trailer line; ignored");
        return;
    }
    p->got_trl = true;
    unsigned want = oemp_columns(p->d->version, OEMP_S_TRL);
    if (r->ntok != want)
        bad(p, OEMP_P_COLUMNS, r, "trailer has %u columns, expected %u", r->ntok, want);
    cur_snap(p)->trl_off = r->off;
    uint64_t seq;
    if (p->d->version >= 2 && r->ntok >= 11 && oemp_tok_u64(&r->tok[10], &seq) &&
        seq != cur_snap(p)->seq)
        bad(p, OEMP_P_STRUCT, r, "trailer sequence %" G_GUINT64_FORMAT " differs from the "
            "header's", seq);
}

static void on_data(parser *p, const oemp_rec *r)
{
    oemp_section s = p->order[p->k];
    if (s == OEMP_S_HDR) {
        bad(p, OEMP_P_STRUCT, r, "a second header line; ignored");
        return;
    }
    if (s == OEMP_S_TRL) {
        on_trl(p, r);
        return;
    }
    if (!columns_ok(p, r, s))
        return;
    switch (s) {
    case OEMP_S_PCAT: on_named(p, r, OEMP_T_PCAT, 1, 0, -1); break;
    case OEMP_S_ACAT: on_named(p, r, OEMP_T_ACAT, 1, 0, -1); break;
    case OEMP_S_BCAT: on_named(p, r, OEMP_T_BCAT, 1, 0, -1); break;
    case OEMP_S_ABLN: on_named(p, r, OEMP_T_ABLN, 0, 1, 2); break;
    case OEMP_S_OTHN: on_named(p, r, OEMP_T_OTHN, 0, 1, -1); break;
    case OEMP_S_NODES: on_node(p, r); break;
    case OEMP_S_PDATA: on_pdata(p, r); break;
    case OEMP_S_AOBJ: on_aobj(p, r); break;
    case OEMP_S_CHG: on_chg(p, r); break;
    case OEMP_S_DEL: on_del(p, r); break;
    default: break;
    }
}

static void on_record(parser *p, const oemp_rec *r)
{
    if (r->blank)
        return; /* never written by the profiler; harmless */
    if (r->cut && !r->dot) {
        bad(p, OEMP_P_TRUNC, r, "the file ends in the middle of this line; not read");
        return;
    }
    if (!r->dot && is_header(p, r)) {
        if (p->open && p->k < p->nsec)
            bad(p, OEMP_P_STRUCT, r, "a new snapshot begins before this one ended (%u of %u "
                "sections read)", p->k, p->nsec);
        open_snapshot(p, r);
        return;
    }
    if (!p->open) {
        bad(p, OEMP_P_STRUCT, r, "line outside any snapshot; ignored");
        return;
    }
    if (r->dot) {
        if (p->order[p->k] == OEMP_S_TRL && !p->got_trl)
            bad(p, OEMP_P_STRUCT, r, "trailer section is empty");
        p->k++;
        if (p->k == p->nsec)
            close_snapshot(p);
        return;
    }
    on_data(p, r);
}

/* A UTF-8 byte order mark, as Windows editors and some tools write. */
static bool has_bom(const char *text, size_t size)
{
    return size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0;
}

bool oemp_parse(oemp_dump *d, GError **err)
{
    parser p = {.d = d};
    idmap_init(&p.ids, 1024);
    p.cur_mem = g_array_new(FALSE, FALSE, sizeof(int64_t));
    oemp_rec r;
    uint64_t pos = has_bom(d->text, d->size) ? 3 : 0;
    bool first = true;
    while (oemp_read_record(d->text, d->size, pos, &r)) {
        p.line++;
        pos = r.next;
        if (first && !r.blank) {
            first = false;
            int64_t v;
            if (!is_header(&p, &r) || !oemp_tok_i64(&r.tok[0], &v)) {
                g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: not an OEMP recording (the "
                            "first line is not a snapshot header)", d->base.path);
                break;
            }
            if (v != 1 && v != 2) {
                g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: OEMP recording version %"
                            G_GINT64_FORMAT " is not supported (heapfs reads versions 1 and 2)",
                            d->base.path, v);
                break;
            }
            if (r.cut) {
                g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT, "%s: the recording ends inside "
                            "its first header line", d->base.path);
                break;
            }
        }
        on_record(&p, &r);
    }
    if (p.open && p.k < p.nsec) {
        oemp_snap *sn = cur_snap(&p);
        oemp_problem(d, OEMP_P_TRUNC, d->size, "the recording ends inside snapshot %"
                     G_GUINT64_FORMAT ", in its %s section (%u of %u sections read)", sn->seq,
                     oemp_section_name(p.order[p.k]), p.k, p.nsec);
    }
    close_snapshot(&p);
    idmap_free(&p.ids);
    g_array_free(p.cur_mem, TRUE);
    g_free(p.uuid);
    if (err && *err)
        return false;
    if (!d->snaps->len) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: no snapshot header found", d->base.path);
        return false;
    }
    return true;
}

bool oemp_detect_head(const uint8_t *head, size_t len)
{
    oemp_rec r;
    if (!oemp_read_record((const char *)head, len, has_bom((const char *)head, len) ? 3 : 0, &r))
        return false;
    /* Version PID Seq "StartTime" "SessionId" "Tag": the first six columns
     * (a long PROPATH may push the rest beyond the bytes given). */
    int64_t v;
    return r.ntok >= 6 && oemp_tok_i64(&r.tok[0], &v) && v >= 0 && v < 100 &&
           r.tok[1].kind == OEMP_NUM && r.tok[2].kind == OEMP_NUM &&
           r.tok[3].kind == OEMP_STR &&
           (r.tok[4].kind == OEMP_STR || r.tok[4].kind == OEMP_UNK) &&
           (r.tok[5].kind == OEMP_STR || r.tok[5].kind == OEMP_UNK);
}
