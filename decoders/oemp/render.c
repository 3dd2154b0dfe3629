/*
 * render.c - the text views of an .oemp recording (see oemp.h), and the
 * file tables of the model.  Calls read.c, scan.c (section names),
 * lifetimes.c and profile.c; decoder.c calls it.
 *
 * Formats (one record a line, fixed order, so diff shows real differences
 * only; the tables follow docs/views.md: a '#' header, TAB between columns):
 *   MOUNT/info            "key: value" lines about the recording
 *   traces/N              "TRACE N:" then one tab-indented frame a line
 *   snapshots/S/info      header and trailer fields under the format's
 *                         names, then what the replay gives (live, ...)
 *   histogram             by type, sorted by bytes
 *   histogram-by-name     by type and name (named objects only), by bytes
 *   platform              PlatObjData as of this snapshot, by PlatObjId
 *   created/changed/deleted  one object a line: id, bytes, type, name
 *   objects/ID/info       "key: value" lines
 *   objects/ID/stack      the creation stack, leaf first, one frame a line
 * Type names have spaces: the type and the name are the last two columns,
 * split with awk -F'\t'.
 *
 * created, changed and deleted are item sequences (a header, then one item
 * per object) so a big one is served in pieces; the rest are rendered whole.
 *
 * heap.pprof and stacks.folded are profile.c's.
 *
 * Thread-safe: reads the read-only index; live sets come from lifetimes.c.
 */
#include "decoders/oemp/oemp.h"

#include <inttypes.h>
#include <string.h>


/* Header columns under the format's names (NULL: an unused column). */
static const char *const hdr_keys[18] = {
    "Version",     "ProcessId",   "SnapshotSeq", "StartTime", "SessionId", "Tag",
    "RqId",        NULL,          "RequestStartTime", "UUID", "PROPATH",   "OverheadMem",
    "AppName",     "RequestAPI",  "CPU",         "OEVersion", "PASOEInstanceAlias", "Description",
};
static const char *const trl_keys[11] = {
    "RecordingTime", "AppObjCnt",   "appMemTot", "platMemTot",  "MaxAppObjs", "MaxHier",
    NULL,            "reuseObjCnt", "reuseMemTot", "Trailer.Tag", "Trailer.SnapshotSeq",
};

static void append_tok(GString *out, const oemp_tok *t)
{
    GString *v = g_string_new(NULL);
    oemp_tok_append(t, v);
    oemp_append_oneline(out, v->str, v->len);
    g_string_free(v, TRUE);
}

static void append_str(GString *out, const char *s)
{
    oemp_append_oneline(out, s, strlen(s));
}

/* "key: value" for the columns of one line; the number of columns. */
static unsigned append_line_fields(const oemp_dump *d, uint64_t off, const char *const *keys,
                                   unsigned nkeys, GString *out)
{
    oemp_rec r;
    if (off == OEMP_NOOFF || !oemp_read_record(d->text, d->size, off, &r))
        return 0;
    for (unsigned i = 0; i < nkeys && i < r.ntok && i < OEMP_MAX_TOK; i++) {
        if (!keys[i])
            continue;
        g_string_append_printf(out, "%s: ", keys[i]);
        append_tok(out, &r.tok[i]);
        g_string_append_c(out, '\n');
    }
    return r.ntok;
}

/* The text of column `col` of the line at off ("" when absent). */
static void line_col(const oemp_dump *d, uint64_t off, unsigned col, GString *out)
{
    oemp_rec r;
    if (off != OEMP_NOOFF && oemp_read_record(d->text, d->size, off, &r) && col < r.ntok &&
        col < OEMP_MAX_TOK)
        append_tok(out, &r.tok[col]);
}

static bool line_u64(const oemp_dump *d, uint64_t off, unsigned col, uint64_t *v)
{
    oemp_rec r;
    return off != OEMP_NOOFF && oemp_read_record(d->text, d->size, off, &r) && col < r.ntok &&
           col < OEMP_MAX_TOK && oemp_tok_u64(&r.tok[col], v);
}

static void append_seconds(GString *out, uint64_t us)
{
    g_string_append_printf(out, "%" PRIu64 ".%06u s", us / 1000000, (unsigned)(us % 1000000));
}

/* ---- MOUNT/info ------------------------------------------------------------ */

static void render_info(oemp_dump *d, GString *out)
{
    uint32_t n = oemp_n_snaps(d);
    const oemp_snap *first = oemp_snap_at(d, 0), *last = oemp_snap_at(d, n - 1);
    hf_info_format(out, d->base.ops->format);
    g_string_append_printf(out, "version: %d\nfile: ", d->version);
    append_str(out, d->base.path);
    g_string_append_printf(out, "\nsize: %zu\n", d->size);
    static const struct { const char *key; unsigned col; } from_hdr[] = {
        {"process", 1}, {"session", 4}, {"uuid", 9}, {"start time", 3}, {"application", 12},
        {"openedge version", 15}, {"pasoe instance", 16}, {"description", 17},
    };
    oemp_rec r;
    if (oemp_read_record(d->text, d->size, first->hdr_off, &r))
        for (size_t i = 0; i < G_N_ELEMENTS(from_hdr); i++)
            if (from_hdr[i].col < r.ntok) {
                g_string_append_printf(out, "%s: ", from_hdr[i].key);
                append_tok(out, &r.tok[from_hdr[i].col]);
                g_string_append_c(out, '\n');
            }
    g_string_append_printf(out, "snapshots: %u\nsequence numbers: %" PRIu64 " to %" PRIu64 "\n",
                           n, first->seq, last->seq);
    uint64_t t0, t1;
    if (line_u64(d, first->trl_off, 0, &t0) && line_u64(d, last->trl_off, 0, &t1)) {
        g_string_append(out, "first snapshot at: ");
        append_seconds(out, t0);
        g_string_append(out, "\nlast snapshot at: ");
        append_seconds(out, t1);
        g_string_append(out, "\ntime span: ");
        append_seconds(out, t1 >= t0 ? t1 - t0 : 0);
        g_string_append_c(out, '\n');
    }
    uint64_t problems = 0;
    for (int k = 0; k < OEMP_P_N; k++)
        problems += d->problem_count[k];
    g_string_append_printf(out,
                           "objects: %u\nsize changes: %u\ndeletions: %u\n"
                           "live objects at the end: %" PRIu64 "\nlive bytes at the end: %"
                           PRId64 "\ntraces: %u\nobject types: %u\nABL names: %u\n"
                           "other names: %u\nindex bytes: %" PRIu64 "\nwarnings: %" PRIu64 "\n",
                           d->objs->len, d->chgs->len, d->dels->len, last->live, last->live_bytes,
                           d->nodes->len, d->tables[OEMP_T_ACAT]->len,
                           d->tables[OEMP_T_ABLN]->len, d->tables[OEMP_T_OTHN]->len,
                           oemp_index_bytes(d), problems);
}

void oemp_describe(hf_dump *hd, GString *out)
{
    oemp_dump *d = (oemp_dump *)hd;
    g_string_append_printf(
        out,
        "An OpenEdge ABL memory profiler recording (.oemp, version %d): %u incremental "
        "snapshots, replayed so that each snapshot shows what was alive at that moment.\n"
        "\n"
        "  info                    the recording: process, session, UUID, versions, time span\n"
        "  errors                  lines the decoder could not read, and why\n"
        "  snapshots/SEQ/          one per snapshot, named by its sequence number; latest -> the last\n"
        "    info                  header and trailer fields (seed names: Tag, RqId, CPU, "
        "appMemTot, ...), then live, created, changed and deleted counts and bytes\n"
        "    histogram             live objects and bytes per type, then per type and name "
        "(class, procedure, named object); sorted by bytes.  Type and name end each row\n"
        "    platform              platform object memory (PlatObjData) by name\n"
        "    created               objects this snapshot created: id, bytes, type, name\n"
        "    changed               size changes: id, bytes before, bytes after, delta, "
        "type, name\n"
        "    deleted               objects this snapshot deleted: id, bytes, DelTime, "
        "type, name\n"
        "    objects/ID/info       one live object: type, name, bytes, creation time, temp-table "
        "number, call-tree node and line\n"
        "    objects/ID/stack      the ABL call stack where it was created, leaf first\n"
        "    objects/ID/scope      -> ../OTHERID, the object it is scoped to (ScopedTo)\n"
        "    heap.pprof            live bytes by creation stack: google-pprof --text heap.pprof\n"
        "    stacks.folded         the same stacks, root first, for flamegraph.pl or speedscope\n"
        "    flame.svg             stacks.folded drawn as a flame graph, for a browser\n"
        "  traces/N                the call stack of call-tree node N, leaf first, NAME:LINE\n"
        "\n"
        "Names: by NameId from OtherNameList, by SrcId from ABLNameList for procedures and ABL "
        "classes, by BioTypId from BObjCatalog for built-in classes.  Times are microseconds "
        "since StartTime.  To find the instances of a class: grep -l MyClass.cls "
        "snapshots/*/objects/*/info; what its code created: grep -l MyClass.cls "
        "snapshots/*/objects/*/stack.\n",
        d->version, oemp_n_snaps(d));
}

/* ---- traces ---------------------------------------------------------------- */

static void render_trace(oemp_dump *d, uint64_t t, GString *out)
{
    if (t >= d->nodes->len)
        return;
    const oemp_node *nd = &g_array_index(d->nodes, oemp_node, t);
    g_string_append_printf(out, "TRACE %" PRId64 ":\n", nd->id);
    oemp_stack_append(d, nd->id, 0, out, "\t", "\n", OEMP_MAX_FRAMES);
}

/* ---- snapshot info ------------------------------------------------------- */

static void render_snap_info(oemp_dump *d, uint32_t s, GString *out)
{
    const oemp_snap *sn = oemp_snap_at(d, s);
    append_line_fields(d, sn->hdr_off, hdr_keys, G_N_ELEMENTS(hdr_keys), out);
    oemp_rec h, t;
    bool have_h = oemp_read_record(d->text, d->size, sn->hdr_off, &h);
    bool have_t = sn->trl_off != OEMP_NOOFF && oemp_read_record(d->text, d->size, sn->trl_off, &t);
    if (have_t) {
        for (unsigned i = 0; i < G_N_ELEMENTS(trl_keys) && i < t.ntok; i++) {
            if (!trl_keys[i])
                continue;
            /* Trailer.Tag and Trailer.SnapshotSeq repeat the header's:
             * shown only when they differ */
            if (i >= 9 && have_h) {
                unsigned hcol = i == 9 ? 5 : 2;
                GString *a = g_string_new(NULL), *b = g_string_new(NULL);
                append_tok(a, &t.tok[i]);
                if (hcol < h.ntok)
                    append_tok(b, &h.tok[hcol]);
                bool same = strcmp(a->str, b->str) == 0;
                g_string_free(a, TRUE);
                g_string_free(b, TRUE);
                if (same)
                    continue;
            }
            g_string_append_printf(out, "%s: ", trl_keys[i]);
            append_tok(out, &t.tok[i]);
            g_string_append_c(out, '\n');
        }
    }
    const uint8_t *order;
    unsigned nsec = oemp_sections(d->version, &order);
    uint32_t created = oemp_snap_obj_end(d, s) - sn->obj_first;
    uint32_t changed = oemp_snap_chg_end(d, s) - sn->chg_first;
    uint32_t deleted = oemp_snap_del_end(d, s) - sn->del_first;
    g_string_append_printf(out,
                           "live objects: %" PRIu64 "\nlive bytes: %" PRId64 "\n"
                           "created objects: %u\ncreated bytes: %" PRId64 "\n"
                           "changed objects: %u\nchanged bytes: %" PRId64 "\n"
                           "deleted objects: %u\ndeleted bytes: %" PRId64 "\n",
                           sn->live, sn->live_bytes, created, sn->created_bytes, changed,
                           sn->changed_bytes, deleted, sn->deleted_bytes);
    uint64_t raw;
    if (!have_h || h.ntok < 3 || !oemp_tok_u64(&h.tok[2], &raw) || raw != sn->seq)
        g_string_append_printf(out, "directory: %" PRIu64 " (SnapshotSeq missing or out of order)\n",
                               sn->seq);
    if (sn->nsec >= nsec)
        g_string_append(out, "complete: yes\n");
    else
        g_string_append_printf(out, "complete: no (%u of %u sections; ends in %s)\n", sn->nsec,
                               nsec, oemp_section_name(order[sn->nsec]));
}

/* ---- histogram --------------------------------------------------------- */

typedef struct {
    int64_t type;
    const char *name; /* NULL for a by-type line */
    uint64_t count;
    int64_t bytes;
} hist_line;

static gint cmp_hist(gconstpointer a, gconstpointer b, gpointer data)
{
    const hist_line *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static void append_hist(const oemp_dump *d, GArray *lines, GString *out)
{
    g_array_sort_with_data(lines, cmp_hist, NULL);
    for (guint i = 0; i < lines->len; i++) {
        const hist_line *h = &g_array_index(lines, hist_line, i);
        g_string_append_printf(out, "%" PRIu64 "\t%" PRId64 "\t", h->count, h->bytes);
        oemp_type_name(d, h->type, out);
        if (h->name) {
            g_string_append_c(out, '\t');
            append_str(out, h->name);
        }
        g_string_append_c(out, '\n');
    }
}

/* One line per type (every live object once, so columns sum to the live
 * totals), or per type and name for the objects that have a name. */
/* Live objects and bytes of snapshot s per group (type and name). */
static void group_totals(oemp_dump *d, uint32_t s, uint64_t *count, int64_t *bytes)
{
    oemp_live *l = oemp_live_get(d, s);
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t g = l->g[i];
        uint32_t grp = oemp_obj_at(d, g)->group;
        count[grp]++;
        bytes[grp] += oemp_size_at(d, g, s);
    }
    oemp_live_unref(d, l);
}

static void render_histogram(oemp_dump *d, uint32_t s, bool names, GString *out)
{
    guint ng = d->groups->len;
    uint64_t *count = g_new0(uint64_t, ng ? ng : 1);
    int64_t *bytes = g_new0(int64_t, ng ? ng : 1);
    group_totals(d, s, count, bytes);
    GArray *by_type = g_array_new(FALSE, FALSE, sizeof(hist_line));
    GArray *by_name = g_array_new(FALSE, FALSE, sizeof(hist_line));
    GHashTable *type_at = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint grp = 0; grp < ng; grp++) {
        if (!count[grp])
            continue;
        const oemp_group *gr = &g_array_index(d->groups, oemp_group, grp);
        gpointer v;
        if (g_hash_table_lookup_extended(type_at, &gr->type, NULL, &v)) {
            hist_line *h = &g_array_index(by_type, hist_line, GPOINTER_TO_UINT(v));
            h->count += count[grp];
            h->bytes += bytes[grp];
        } else {
            hist_line h = {gr->type, NULL, count[grp], bytes[grp]};
            g_hash_table_insert(type_at, (gpointer)&gr->type, GUINT_TO_POINTER(by_type->len));
            g_array_append_val(by_type, h);
        }
        if (gr->name[0]) {
            hist_line h = {gr->type, gr->name, count[grp], bytes[grp]};
            g_array_append_val(by_name, h);
        }
    }
    if (names) {
        g_string_append(out, "# objects\tbytes\ttype\tname\n"); /* named objects only */
        append_hist(d, by_name, out);
    } else {
        g_string_append(out, "# objects\tbytes\ttype\n");
        append_hist(d, by_type, out);
    }
    g_hash_table_destroy(type_at);
    g_array_free(by_type, TRUE);
    g_array_free(by_name, TRUE);
    g_free(count);
    g_free(bytes);
}

/* growth by type and name: "TYPE" or "TYPE<TAB>NAME", as histogram-by-name
 * writes them; every live object once. */
bool oemp_tally(hf_dump *hd, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    if (retained)
        return false;
    if (!fn)
        return true;
    oemp_dump *d = (oemp_dump *)hd;
    guint ng = d->groups->len;
    uint64_t *count = g_new0(uint64_t, ng ? ng : 1);
    int64_t *bytes = g_new0(int64_t, ng ? ng : 1);
    group_totals(d, s, count, bytes);
    GString *name = g_string_new(NULL);
    for (guint grp = 0; grp < ng; grp++) {
        if (!count[grp])
            continue;
        const oemp_group *gr = &g_array_index(d->groups, oemp_group, grp);
        g_string_truncate(name, 0);
        oemp_type_name(d, gr->type, name);
        if (gr->name[0]) {
            g_string_append_c(name, '\t');
            append_str(name, gr->name);
        }
        fn(ud, name->str, (int64_t)count[grp], bytes[grp]);
    }
    g_string_free(name, TRUE);
    g_free(count);
    g_free(bytes);
    return true;
}

/* ---- platform ---------------------------------------------------------------- */

static gint cmp_plat_id(gconstpointer a, gconstpointer b)
{
    int64_t x = (*(const oemp_plat *const *)a)->id, y = (*(const oemp_plat *const *)b)->id;
    return (x > y) - (x < y);
}

static void render_platform(oemp_dump *d, uint32_t s, GString *out)
{
    /* PlatObjData as of s: the latest record of each id up to s (the format
     * implies every snapshot lists all; this also reads partial lists) */
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    GPtrArray *latest = g_ptr_array_new();
    for (uint32_t i = oemp_snap_plat_end(d, s); i-- > 0;) {
        const oemp_plat *p = &g_array_index(d->plats, oemp_plat, i);
        if (g_hash_table_contains(seen, &p->id))
            continue;
        g_hash_table_add(seen, (gpointer)&p->id);
        g_ptr_array_add(latest, (gpointer)p);
    }
    g_ptr_array_sort(latest, cmp_plat_id);
    g_string_append(out, "# id\tbytes\tabk\tpool_allocs\tname\n");
    for (guint i = 0; i < latest->len; i++) {
        const oemp_plat *p = g_ptr_array_index(latest, i);
        g_string_append_printf(out, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t",
                               p->id, p->mem, p->abk, p->pool);
        const oemp_named *n = oemp_table_find(d, OEMP_T_PCAT, p->id);
        if (n)
            append_str(out, n->name);
        else
            g_string_append_printf(out, "<PlatObjId %" PRId64 " unknown>", p->id);
        g_string_append_c(out, '\n');
    }
    g_ptr_array_free(latest, TRUE);
    g_hash_table_destroy(seen);
}

/* ---- created / changed / deleted ---------------------------------------- */

/* "TYPE<TAB>NAME" of object g. */
static void append_type_name(const oemp_dump *d, uint32_t g, GString *out)
{
    const oemp_group *gr = &g_array_index(d->groups, oemp_group, oemp_obj_at(d, g)->group);
    oemp_type_name(d, gr->type, out);
    g_string_append_c(out, '\t');
    append_str(out, gr->name);
    g_string_append_c(out, '\n');
}

/* Item loop shared by the three lists: item 0 is the header line, item
 * k > 0 the (k-1)-th entry of [lo, hi). */
typedef void (*entry_fn)(oemp_dump *d, uint32_t s, uint32_t i, GString *out);

static uint64_t render_list(oemp_dump *d, uint32_t s, const char *header, uint32_t lo,
                            uint32_t hi, entry_fn fn, uint64_t first, GString *out,
                            size_t budget)
{
    size_t start = out->len;
    uint64_t item = first;
    if (item == 0) {
        g_string_append(out, header);
        item = 1;
    }
    /* at least one item a call, so every call makes progress */
    for (; lo + (item - 1) < hi; item++) {
        if (item > first && out->len - start >= budget)
            return item;
        fn(d, s, lo + (uint32_t)(item - 1), out);
    }
    return HF_DONE;
}

static void created_entry(oemp_dump *d, uint32_t s, uint32_t g, GString *out)
{
    g_string_append_printf(out, "%" PRIu64 "\t%" PRId64 "\t", oemp_obj_at(d, g)->id,
                           oemp_size_at(d, g, s));
    append_type_name(d, g, out);
}

static void changed_entry(oemp_dump *d, uint32_t s, uint32_t c, GString *out)
{
    const oemp_chg *ch = &g_array_index(d->chgs, oemp_chg, c);
    int64_t before = oemp_size_before(d, c);
    g_string_append_printf(out, "%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t",
                           oemp_obj_at(d, ch->obj)->id, before, ch->mem, ch->mem - before);
    append_type_name(d, ch->obj, out);
}

static void deleted_entry(oemp_dump *d, uint32_t s, uint32_t i, GString *out)
{
    const oemp_del *del = &g_array_index(d->dels, oemp_del, i);
    g_string_append_printf(out, "%" PRIu64 "\t%" PRId64 "\t", oemp_obj_at(d, del->obj)->id,
                           oemp_size_at(d, del->obj, s));
    line_col(d, del->off, 1, out);
    g_string_append_c(out, '\t');
    append_type_name(d, del->obj, out);
}

/* ---- objects/ID/info ------------------------------------------------------- */

static void kv_i64(GString *out, const char *key, const oemp_aobj *a, unsigned col,
                   const char *unit)
{
    g_string_append_printf(out, "%s: ", key);
    if (a->unk[col])
        g_string_append_c(out, '?');
    else
        g_string_append_printf(out, "%" PRId64 "%s", a->v[col], unit);
    g_string_append_c(out, '\n');
}

static void render_object(oemp_dump *d, uint32_t s, uint64_t o, GString *out)
{
    uint32_t g = oemp_live_obj(d, s, o);
    if (g == OEMP_NOOBJ)
        return;
    const oemp_obj *ob = oemp_obj_at(d, g);
    const oemp_group *gr = &g_array_index(d->groups, oemp_group, ob->group);
    oemp_aobj a, c;
    oemp_aobj_parse(d, ob->off, &a);
    const oemp_chg *last = oemp_change_at(d, g, s);
    uint64_t chg_off = last ? last->off : OEMP_NOOFF;
    int64_t bytes = oemp_size_at(d, g, s);
    g_string_append_printf(out, "id: %" PRIu64 "\ntype: ", ob->id);
    oemp_type_name(d, gr->type, out);
    g_string_append_c(out, '\n');
    if (gr->name[0]) {
        g_string_append(out, "name: ");
        append_str(out, gr->name);
        g_string_append_c(out, '\n');
    }
    g_string_append_printf(out, "bytes: %" PRId64 "\n", bytes);
    /* Abk, PoolAllocs and TempTableNum as of the latest change line */
    const oemp_aobj *cur = &a;
    unsigned tt_col = OEMP_A_TTNUM;
    if (chg_off != OEMP_NOOFF) {
        oemp_aobj_parse(d, chg_off & ~OEMP_CHG_AOBJ, &c);
        cur = &c;
        if (!(chg_off & OEMP_CHG_AOBJ))
            tt_col = OEMP_C_TTNUM;
    }
    kv_i64(out, "abk", cur, OEMP_A_ABK, "");
    kv_i64(out, "pool allocs", cur, OEMP_A_POOL, "");
    kv_i64(out, "created", &a, OEMP_A_CTIME, " us");
    g_string_append_printf(out, "created in snapshot: %" PRIu64 "\n",
                           oemp_snap_at(d, ob->created)->seq);
    if (last)
        g_string_append_printf(out, "changed in snapshot: %" PRId64 "\n",
                               (int64_t)oemp_snap_at(d, last->snap)->seq);
    if (!a.unk[OEMP_A_SCOPE] && a.v[OEMP_A_SCOPE] > 0) {
        g_string_append_printf(out, "scope: %" PRIu64 "%s\n", (uint64_t)a.v[OEMP_A_SCOPE],
                               oemp_find_live(d, s, (uint64_t)a.v[OEMP_A_SCOPE]) >= 0
                                   ? ""
                                   : " (not live in this snapshot)");
    }
    GString *tn = g_string_new(NULL);
    oemp_type_name(d, gr->type, tn);
    char *low = g_ascii_strdown(tn->str, -1);
    if (strstr(low, "temp") || cur->v[tt_col])
        kv_i64(out, "temp-table", cur, tt_col, "");
    g_free(low);
    g_string_free(tn, TRUE);
    kv_i64(out, "trace", &a, OEMP_A_NODE, "");
    kv_i64(out, "line", &a, OEMP_A_LINE, "");
}

/* objects/ID/stack: where the object was created, leaf first, one frame a
 * line.  Kept out of info so that grep NAME .../info finds instances of NAME,
 * not every object its code created. */
static void render_object_stack(oemp_dump *d, uint32_t s, uint64_t o, GString *out)
{
    uint32_t g = oemp_live_obj(d, s, o);
    if (g == OEMP_NOOBJ)
        return;
    oemp_aobj a;
    oemp_aobj_parse(d, oemp_obj_at(d, g)->off, &a);
    oemp_stack_append(d, a.v[OEMP_A_NODE], a.v[OEMP_A_LINE], out, "", "\n", OEMP_MAX_FRAMES);
}

/* ---- the views, as the model calls them ---------------------------------- */

#define D(hd) ((oemp_dump *)(hd))

uint64_t oemp_view_info(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                        size_t budget)
{
    render_info(D(hd), out);
    return HF_DONE;
}

uint64_t oemp_view_trace(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    render_trace(D(hd), v->index, out);
    return HF_DONE;
}

static uint64_t view_snap_info(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    render_snap_info(D(hd), v->snap, out);
    return HF_DONE;
}

static uint64_t view_histogram(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    render_histogram(D(hd), v->snap, false, out);
    return HF_DONE;
}

static uint64_t view_histogram_names(hf_dump *hd, const hf_view *v, uint64_t first,
                                     GString *out, size_t budget)
{
    render_histogram(D(hd), v->snap, true, out);
    return HF_DONE;
}

static uint64_t view_platform(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    render_platform(D(hd), v->snap, out);
    return HF_DONE;
}

static uint64_t view_created(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    oemp_dump *d = D(hd);
    uint32_t s = v->snap;
    return render_list(d, s, "# id\tbytes\ttype\tname\n", oemp_snap_at(d, s)->obj_first,
                       oemp_snap_obj_end(d, s), created_entry, first, out, budget);
}

static uint64_t view_changed(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    oemp_dump *d = D(hd);
    uint32_t s = v->snap;
    return render_list(d, s, "# id\tbytes_before\tbytes_after\tdelta\ttype\tname\n",
                       oemp_snap_at(d, s)->chg_first, oemp_snap_chg_end(d, s), changed_entry,
                       first, out, budget);
}

static uint64_t view_deleted(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    oemp_dump *d = D(hd);
    uint32_t s = v->snap;
    return render_list(d, s, "# id\tbytes\tdeltime\ttype\tname\n", oemp_snap_at(d, s)->del_first,
                       oemp_snap_del_end(d, s), deleted_entry, first, out, budget);
}

static uint64_t view_pprof(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    return oemp_render_pprof(D(hd), v->snap, first, out, budget);
}

static uint64_t view_pb(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                       size_t budget)
{
    return oemp_render_pb(D(hd), v->snap, first, out, budget);
}

static uint64_t view_folded(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    return oemp_render_folded(D(hd), v->snap, first, out, budget);
}

static uint64_t view_flame(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    return oemp_render_flame(D(hd), v->snap, first, out, budget);
}

static uint64_t view_object_info(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    render_object(D(hd), v->snap, v->index, out);
    return HF_DONE;
}

static uint64_t view_object_stack(hf_dump *hd, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    render_object_stack(D(hd), v->snap, v->index, out);
    return HF_DONE;
}

const hf_file oemp_snap_files[] = {
    {"info", view_snap_info, NULL},
    {"histogram", view_histogram, NULL},
    {"histogram-by-name", view_histogram_names, NULL},
    {"platform", view_platform, NULL},
    {"created", view_created, NULL},
    {"changed", view_changed, NULL},
    {"deleted", view_deleted, NULL},
    {"heap.pprof", view_pprof, NULL},
    {"heap.pb.gz", view_pb, NULL},
    {"stacks.folded", view_folded, NULL},
    {"flame.svg", view_flame, NULL},
    {"tables/objects.tsv", oemp_objects_tsv_view, NULL, oemp_objects_tsv_measure},
    {NULL},
};

/* stack: the creation stack, apart from info so that grep of info
 * matches what an object is, never the code that made it. */
const hf_file oemp_object_files[] = {
    {"info", view_object_info, NULL},
    {"stack", view_object_stack, NULL},
    {NULL},
};
