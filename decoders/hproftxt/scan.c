/*
 * scan.c - scanning java.hprof.txt once at open (see hproftxt.h for what
 * is recognised and why by markers), and finding traces and their frames
 * in what it found.
 *
 * One pass over the mapped file, line by line, with a small state machine:
 * outside any block, inside a TRACE (tab-indented frames), or inside a
 * BEGIN..END block.  A block that is not closed ends at the next record
 * marker (or the end of the file) and is reported.
 */
#include "decoders/hproftxt/hproftxt.h"

#include "decoders/core/search.h"
#include "decoders/heap/build.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s; /* line start (not NUL-terminated) */
    size_t len;    /* without the newline and a trailing '\r' */
    uint64_t off;
    uint32_t no;   /* 1-based line number */
} line;

typedef struct {
    hproftxt_dump *t;
    bool in_header;  /* still in the explanatory comment */
    int block;       /* TB_* being read, -1 when none */
    hproftxt_snap *cur;   /* current snapshot, NULL before the first block */
    int64_t trace;   /* index of the trace being read, -1 when none */
    GHashTable *thread_idx; /* serial -> index + 1 */
    GString *tmp;
    double accum; /* running accumulated percentage of the block's rows */
    hproftxt_hscan *hs; /* the heap part, made at the first HEAP DUMP */
} scan;

static void problem(scan *c, const line *l, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void problem(scan *c, const line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    hf_problem(&c->t->heap.base, l->off, "line %u: %s", l->no, what);
    g_free(what);
}

static bool starts(const line *l, const char *p)
{
    size_t n = strlen(p);
    return l->len >= n && memcmp(l->s, p, n) == 0;
}

/* The line as a NUL-terminated string (in c->tmp). */
static const char *cstr(scan *c, const line *l)
{
    g_string_truncate(c->tmp, 0);
    g_string_append_len(c->tmp, l->s, (gssize)l->len);
    return c->tmp->str;
}

/* Value of `key` in "(key=value, key = value, ...)": quoted values
 * unquoted.  Returns a newly allocated string or NULL. */
static char *attr(const char *s, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = s; (p = strstr(p, key)); p += kl) {
        if (p != s && p[-1] != '(' && p[-1] != ' ' && p[-1] != ',')
            continue;
        const char *q = p + kl;
        while (*q == ' ')
            q++;
        if (*q != '=')
            continue;
        q++;
        while (*q == ' ')
            q++;
        if (*q == '"') {
            const char *e = strchr(q + 1, '"');
            return e ? g_strndup(q + 1, e - q - 1) : NULL;
        }
        size_t n = strcspn(q, ",)");
        while (n && q[n - 1] == ' ')
            n--;
        return g_strndup(q, n);
    }
    return NULL;
}

static bool attr_num(const char *s, const char *key, int base, uint64_t *v)
{
    char *a = attr(s, key);
    if (!a)
        return false;
    char *end;
    *v = g_ascii_strtoull(a, &end, base);
    bool ok = end != a && *end == 0;
    g_free(a);
    return ok;
}

/* ---- records ---- */

static void thread_start(scan *c, const line *l)
{
    const char *s = cstr(c, l);
    uint64_t id, obj = 0;
    if (!attr_num(s, "id", 10, &id) || id == 0 || id > UINT32_MAX) {
        problem(c, l, "THREAD START without a thread id: ignored");
        return;
    }
    if (g_hash_table_contains(c->thread_idx, GUINT_TO_POINTER(id))) {
        problem(c, l, "THREAD START for thread %" PRIu64 " seen before: ignored", id);
        return;
    }
    attr_num(s, "obj", 16, &obj);
    char *name = attr(s, "name"), *group = attr(s, "group");
    hproftxt_thread th = {(uint32_t)id, 0, obj, NULL, NULL, NULL, l->off, false};
    if (name)
        th.name = g_string_chunk_insert(c->t->chunk, name);
    if (group)
        th.group = g_string_chunk_insert(c->t->chunk, group);
    g_free(name);
    g_free(group);
    g_array_append_val(c->t->threads, th);
    g_hash_table_insert(c->thread_idx, GUINT_TO_POINTER(id), GUINT_TO_POINTER(c->t->threads->len));
}

static void thread_end(scan *c, const line *l)
{
    uint64_t id;
    gpointer i = NULL;
    if (attr_num(cstr(c, l), "id", 10, &id))
        i = g_hash_table_lookup(c->thread_idx, GUINT_TO_POINTER(id));
    if (!i) {
        problem(c, l, "THREAD END for a thread never started");
        return;
    }
    g_array_index(c->t->threads, hproftxt_thread, GPOINTER_TO_UINT(i) - 1).ended = true;
}

/* "TRACE N:" or "TRACE N: (thread=M)". */
static bool trace_start(scan *c, const line *l)
{
    const char *s = cstr(c, l) + 6;
    char *end;
    uint64_t serial = g_ascii_strtoull(s, &end, 10);
    if (end == s || *end != ':' || serial > UINT32_MAX)
        return false;
    uint64_t thread = 0;
    attr_num(end + 1, "thread", 10, &thread);
    hproftxt_trace tr = {(uint32_t)serial, (uint32_t)thread, 0, l->off, 0, 0};
    g_array_append_val(c->t->traces, tr);
    c->trace = c->t->traces->len - 1;
    return true;
}

/* Splits a row into at most max white-space separated words; the last one
 * takes the rest of the line.  Returns the count. */
static int words(const char *s, char **w, int max)
{
    int n = 0;
    char *p = (char *)s;
    while (n < max) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        w[n++] = p;
        if (n == max)
            break;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = 0;
    }
    return n;
}

static bool num(const char *w, uint64_t *v)
{
    char *end;
    *v = g_ascii_strtoull(w, &end, 10);
    return end != w && *end == 0;
}

/* "4.18%"; agents running in some locales write "4,18%". */
static bool pct(char *w, double *v)
{
    char *comma = strchr(w, ',');
    if (comma)
        *comma = '.';
    char *end;
    *v = g_ascii_strtod(w, &end);
    return end != w && *end == '%' && end[1] == 0;
}

/* Rows: "rank self% accum% ..." — the first word a number; other lines of
 * the block (column titles) are skipped. */
static void block_row(scan *c, const line *l)
{
    char *w[10];
    const char *s = cstr(c, l);
    int n = words(s, w, c->block == TB_SITES ? 9 : 6);
    uint64_t rank;
    if (n == 0 || !num(w[0], &rank))
        return;
    double self, acc;
    if (c->block == TB_SITES) {
        hproftxt_site st;
        uint64_t tr;
        if (n < 9 || !pct(w[1], &self) || !pct(w[2], &acc) || !num(w[3], &st.live_bytes) ||
            !num(w[4], &st.live_objs) || !num(w[5], &st.alloc_bytes) ||
            !num(w[6], &st.alloc_objs) || !num(w[7], &tr) || tr > UINT32_MAX) {
            problem(c, l, "malformed SITES row: skipped");
            return;
        }
        st.trace = (uint32_t)tr;
        st.cls = g_string_chunk_insert_const(c->t->chunk, g_strstrip(w[8]));
        g_array_append_val(c->cur->sites, st);
    } else {
        hproftxt_cpu r;
        uint64_t tr;
        if (n < 5 || !pct(w[1], &self) || !pct(w[2], &acc) || !num(w[3], &r.count) ||
            !num(w[4], &tr) || tr > UINT32_MAX) {
            problem(c, l, "malformed %s row: skipped",
                    c->block == TB_CPU_SAMPLES ? "CPU SAMPLES" : "CPU TIME");
            return;
        }
        r.trace = (uint32_t)tr;
        r.self = self > 0 && self < 1e7 ? (uint32_t)(self * 100 + 0.5) : 0;
        r.method = g_string_chunk_insert_const(c->t->chunk, n > 5 ? g_strstrip(w[5]) : "");
        g_array_append_val(c->block == TB_CPU_SAMPLES ? c->cur->samples : c->cur->times, r);
    }
    /* accum is the running sum of self; three values rounded to 2 decimals */
    if (fabs(acc - (c->accum + self)) > 0.0151)
        problem(c, l, "accumulated percentage %.2f%% is not %.2f%% + %.2f%%", acc, c->accum, self);
    c->accum = acc;
}

/* ---- blocks ---- */

static const char *const block_names[TB_N] = {"SITES",     "CPU SAMPLES",  "CPU TIME",
                                              "HEAP DUMP", "MONITOR DUMP", "MONITOR TIME"};

static hproftxt_snap *new_snap(hproftxt_dump *t)
{
    hproftxt_snap sn = {0};
    sn.sites = g_array_new(FALSE, FALSE, sizeof(hproftxt_site));
    sn.samples = g_array_new(FALSE, FALSE, sizeof(hproftxt_cpu));
    sn.times = g_array_new(FALSE, FALSE, sizeof(hproftxt_cpu));
    g_array_append_val(t->snaps, sn);
    return &g_array_index(t->snaps, hproftxt_snap, t->snaps->len - 1);
}

/* Which block a line begins, -1 for none. */
static int block_begin(const line *l)
{
    if (starts(l, "SITES BEGIN"))
        return TB_SITES;
    if (starts(l, "CPU SAMPLES BEGIN"))
        return TB_CPU_SAMPLES;
    if (starts(l, "CPU TIME") && g_strstr_len(l->s, (gssize)l->len, "BEGIN"))
        return TB_CPU_TIME;
    if (starts(l, "HEAP DUMP BEGIN"))
        return TB_HEAP;
    if (starts(l, "MONITOR DUMP BEGIN"))
        return TB_MON_DUMP;
    if (starts(l, "MONITOR TIME BEGIN"))
        return TB_MON_TIME;
    return -1;
}

static bool block_end(const line *l, int b)
{
    switch (b) {
    case TB_SITES: return starts(l, "SITES END");
    case TB_CPU_SAMPLES: return starts(l, "CPU SAMPLES END");
    case TB_CPU_TIME: return starts(l, "CPU TIME") && g_strstr_len(l->s, (gssize)l->len, "END");
    case TB_HEAP: return starts(l, "HEAP DUMP END");
    case TB_MON_DUMP: return starts(l, "MONITOR DUMP END");
    case TB_MON_TIME: return starts(l, "MONITOR TIME END");
    }
    return false;
}

/* A line at column 0 that starts a record outside any block. */
static bool is_record(const line *l)
{
    return block_begin(l) >= 0 || starts(l, "TRACE ") || starts(l, "THREAD START (") ||
           starts(l, "THREAD END (");
}

static void open_block(scan *c, const line *l, int b)
{
    if (!c->cur || c->cur->blk[b].present)
        c->cur = new_snap(c->t);
    hproftxt_block *k = &c->cur->blk[b];
    k->present = true;
    k->off = l->off;
    k->end = l->off + l->len;
    const char *s = cstr(c, l);
    const char *tot = strstr(s, "total");
    if (tot && (b == TB_CPU_SAMPLES || b == TB_CPU_TIME)) {
        tot += 5;
        while (*tot == ' ' || *tot == '=')
            tot++;
        k->total = g_ascii_strtoull(tot, NULL, 10);
    }
    if (b == TB_HEAP) {
        if (!c->hs)
            c->hs = hproftxt_hscan_new(c->t);
        c->t->has_heap = true;
        hproftxt_hscan_begin(c->hs, c->t->snaps->len - 1);
    }
    if (b == TB_HEAP && strchr(s, '(')) {
        char *end;
        k->total = g_ascii_strtoull(strchr(s, '(') + 1, &end, 10);
        const char *comma = strchr(end, ',');
        if (comma)
            k->total2 = g_ascii_strtoull(comma + 1, NULL, 10);
    }
    c->block = b;
}

/* Heap dump lines go to the heap scanner; a "ROOT ... kind=<thread>" line
 * also gives that thread's trace (its stack). */
static void heap_line(scan *c, const line *l)
{
    hproftxt_hscan_line(c->hs, l->s, l->len, l->off, l->no);
    if (!starts(l, "ROOT ") || !g_strstr_len(l->s, (gssize)l->len, "kind=<thread>"))
        return;
    const char *s = cstr(c, l);
    uint64_t id, trace;
    if (attr_num(s, "id", 10, &id) && attr_num(s, "trace", 10, &trace)) {
        gpointer i = g_hash_table_lookup(c->thread_idx, GUINT_TO_POINTER(id));
        if (i)
            g_array_index(c->t->threads, hproftxt_thread, GPOINTER_TO_UINT(i) - 1).trace =
                (uint32_t)trace;
    }
}

static void close_block(scan *c, uint64_t end, bool closed)
{
    if (c->block == TB_HEAP)
        hproftxt_hscan_end(c->hs);
    hproftxt_block *k = &c->cur->blk[c->block];
    k->end = end;
    k->closed = closed;
    c->block = -1;
}

static void end_trace(scan *c, uint64_t end)
{
    if (c->trace >= 0)
        g_array_index(c->t->traces, hproftxt_trace, c->trace).end = end;
    c->trace = -1;
}

static void one_line(scan *c, const line *l)
{
    if (c->block >= 0) {
        if (block_end(l, c->block)) {
            close_block(c, l->off + l->len + 1, true);
            return;
        }
        bool indented = l->len && (l->s[0] == ' ' || l->s[0] == '\t');
        bool heap_rec = c->block == TB_HEAP && (starts(l, "ROOT ") || starts(l, "CLS ") ||
                                               starts(l, "OBJ ") || starts(l, "ARR "));
        if (!indented && !heap_rec && is_record(l)) {
            problem(c, l, "%s block has no END line: it ends here", block_names[c->block]);
            close_block(c, l->off, false);
            /* fall through: the line starts something new */
        } else {
            c->cur->blk[c->block].end = l->off + l->len + 1;
            if (c->block == TB_HEAP)
                heap_line(c, l);
            else if (c->block <= TB_CPU_TIME && l->len)
                block_row(c, l);
            return;
        }
    }
    if (c->trace >= 0) {
        if (l->len && l->s[0] == '\t') {
            hproftxt_trace *tr = &g_array_index(c->t->traces, hproftxt_trace, c->trace);
            bool empty = l->len >= 8 && memcmp(l->s + 1, "<empty>", 7) == 0;
            if (!tr->frames)
                tr->frames = l->off;
            if (!empty)
                tr->n_frames++;
            tr->end = l->off + l->len + 1;
            return;
        }
        end_trace(c, l->off);
    }
    if (l->len == 0)
        return;
    int b = block_begin(l);
    if (b >= 0) {
        c->in_header = false;
        c->accum = 0;
        open_block(c, l, b);
    } else if (starts(l, "TRACE ") && trace_start(c, l)) {
        c->in_header = false;
    } else if (starts(l, "THREAD START (")) {
        c->in_header = false;
        thread_start(c, l);
    } else if (starts(l, "THREAD END (")) {
        c->in_header = false;
        thread_end(c, l);
    } else if (c->in_header) {
        /* the explanatory comment; "--------" ends it in every known version */
        if (starts(l, "--------"))
            c->in_header = false;
    } else {
        problem(c, l, "unrecognized line: ignored");
    }
}

/* ---- after the scan ---- */

int64_t hproftxt_trace_find(const hproftxt_dump *t, uint32_t serial)
{
    return hf_serial_find_array(t->traces, serial);
}

static void trace_dropped(const void *elem, void *ud)
{
    const hproftxt_trace *tr = elem;
    hf_problem(ud, tr->off, "TRACE %u repeated: the first one is kept", tr->serial);
}

/* Sort traces (dropping repeated serials), name thread directories. */
static void finish_index(hproftxt_dump *t)
{
    hf_serial_sort(t->traces);
    hf_serial_dedup(t->traces, trace_dropped, &t->heap.base);
    hf_serial_sort(t->threads);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < t->threads->len; i++) {
        hproftxt_thread *th = &g_array_index(t->threads, hproftxt_thread, i);
        hf_heap_thread_dir(s, th->serial, th->name);
        th->dir = g_string_chunk_insert(t->chunk, s->str);
    }
    g_string_free(s, TRUE);
}

/* The internal checks that need the whole file, and each snapshot's files. */
static void finish_snaps(hproftxt_dump *t)
{
    for (guint i = 0; i < t->snaps->len; i++) {
        hproftxt_snap *sn = &g_array_index(t->snaps, hproftxt_snap, i);
        for (guint k = 0; k < sn->sites->len; k++) {
            const hproftxt_site *st = &g_array_index(sn->sites, hproftxt_site, k);
            if (hproftxt_trace_find(t, st->trace) < 0)
                hf_problem(&t->heap.base, sn->blk[TB_SITES].off,
                           "SITES row %u (%s) names TRACE %u, which the file does not have",
                           k + 1, st->cls, st->trace);
        }
        GArray *cpu[2] = {sn->samples, sn->times};
        for (int b = 0; b < 2; b++)
            for (guint k = 0; k < cpu[b]->len; k++)
                if (hproftxt_trace_find(t, g_array_index(cpu[b], hproftxt_cpu, k).trace) < 0)
                    hf_problem(&t->heap.base, sn->blk[TB_CPU_SAMPLES + b].off,
                               "%s row %u names TRACE %u, which the file does not have",
                               block_names[TB_CPU_SAMPLES + b], k + 1,
                               g_array_index(cpu[b], hproftxt_cpu, k).trace);
        if (sn->blk[TB_CPU_SAMPLES].present) {
            /* Rows may sum below the total (the agent lists no row below its
             * cutoff but counts every sample), never above it. */
            uint64_t sum = 0;
            for (guint k = 0; k < sn->samples->len; k++)
                sum += g_array_index(sn->samples, hproftxt_cpu, k).count;
            if (sum > sn->blk[TB_CPU_SAMPLES].total)
                hf_problem(&t->heap.base, sn->blk[TB_CPU_SAMPLES].off,
                           "CPU SAMPLES counts sum to %" PRIu64 ", above the total %" PRIu64, sum,
                           sn->blk[TB_CPU_SAMPLES].total);
        }
    }
}

static void scan_file(hproftxt_dump *t)
{
    scan c = {t, true, -1, NULL, -1, g_hash_table_new(g_direct_hash, g_direct_equal),
              g_string_new(NULL), 0, NULL};
    const char *data = (const char *)t->heap.base.data;
    size_t size = t->heap.base.size, pos = 0;
    uint32_t no = 0;
    while (pos < size) {
        const char *nl = memchr(data + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - data) : size;
        line l = {data + pos, end - pos, pos, ++no};
        if (l.len && l.s[l.len - 1] == '\r')
            l.len--;
        if (no == 1) {
            /* "JAVA PROFILE 1.0.1, created Fri Aug 26 22:26:41 2016" */
            const char *cr = g_strstr_len(l.s, (gssize)l.len, "created ");
            if (cr)
                t->created = g_strndup(cr + 8, l.len - (size_t)(cr + 8 - l.s));
        } else if (memchr(l.s, 0, l.len)) {
            problem(&c, &l, "NUL byte in a text line: line ignored");
        } else {
            one_line(&c, &l);
        }
        pos = end + 1;
    }
    line eof = {data + size, 0, size, no + 1};
    if (c.block >= 0) {
        problem(&c, &eof, "%s block has no END line (file truncated?)", block_names[c.block]);
        close_block(&c, size, false);
    }
    end_trace(&c, size);
    if (c.hs)
        hproftxt_hscan_finish(c.hs, t->snaps->len);
    g_hash_table_destroy(c.thread_idx);
    g_string_free(c.tmp, TRUE);
}

bool hproftxt_trace_frame(const hproftxt_dump *t, const hproftxt_trace *tr, uint32_t k, bool full,
                          GString *out)
{
    if (k >= tr->n_frames || !tr->frames)
        return false;
    const char *data = (const char *)t->heap.base.data;
    uint64_t pos = tr->frames;
    for (uint32_t i = 0;; i++) {
        const char *nl = memchr(data + pos, '\n', tr->end - pos);
        size_t end = nl ? (size_t)(nl - data) : tr->end;
        if (i == k) {
            const char *s = data + pos + 1; /* after the tab */
            size_t n = end - pos - 1;
            if (n && s[n - 1] == '\r')
                n--;
            if (!full) {
                /* "pkg.Class.method(File.java:12)" -> "pkg.Class.method" */
                const char *paren = memchr(s, '(', n);
                if (paren && paren != s)
                    n = (size_t)(paren - s);
            }
            g_string_append_len(out, s, (gssize)n);
            return true;
        }
        pos = end + 1;
        if (pos >= tr->end)
            return false;
    }
}

void hproftxt_scan(hproftxt_dump *t)
{
    scan_file(t);
    /* Real files end with a newline; a last line without one was cut. */
    if (t->heap.base.size && t->heap.base.data[t->heap.base.size - 1] != '\n')
        hf_problem(&t->heap.base, t->heap.base.size,
                   "last line has no newline (file truncated?)");
    finish_index(t);
    finish_snaps(t);
}
