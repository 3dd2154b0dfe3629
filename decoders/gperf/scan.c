/*
 * scan.c - parsing one gperftools text heap profile into a snapshot of
 * the dump (the format: docs/formats.md), and the sampling rule.
 *
 * A file is: an optional "--- symbol" section (as pprof writes symbolized
 * profiles, and as heapfs writes heap.pprof), the "heap profile:" header,
 * one line per stack, and a trailer: "MAPPED_LIBRARIES:" followed by
 * /proc/PID/maps lines, or "--- Memory map: ---" followed by
 * "start-end: path" lines.  Numbers are parsed by their punctuation
 * (':' '[' ']' '@'), not by columns, so any spacing is accepted.
 */
#include "decoders/gperf/gperf.h"
#include "decoders/core/search.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ---- sampling ---- */

/* A hostile line (huge counts, a tiny rate) scales past 2^64: converting such
 * a double to an integer is undefined, so clamp it first. */
static uint64_t saturate_u64(double x)
{
    if (!(x > 0))
        return 0; /* also NaN */
    if (x >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)x;
}

void gperf_scale(uint64_t count, uint64_t bytes, uint64_t rate, uint64_t *out_count,
                 uint64_t *out_bytes)
{
    if (count == 0 || bytes == 0) {
        *out_count = *out_bytes = 0;
        return;
    }
    if (rate <= 1) {
        *out_count = count;
        *out_bytes = bytes;
        return;
    }
    double avg = (double)bytes / (double)count;
    double scale = 1.0 / (1.0 - exp(-avg / (double)rate));
    *out_count = saturate_u64((double)count * scale);
    *out_bytes = saturate_u64((double)bytes * scale);
}

bool gperf_kind_rate(const char *kind, uint64_t *rate, bool *pprof_same)
{
    size_t n = strcspn(kind, "/");
    uint64_t period = kind[n] == '/' ? g_ascii_strtoull(kind + n + 1, NULL, 10) : 0;
    *rate = 0;
    *pprof_same = true;
#define IS(k) (n == strlen(k) && strncmp(kind, k, n) == 0)
    if (IS("heapz_v2") || IS("heap_v2")) {
        *rate = period;
        return true;
    }
    if (IS("heap")) {
        /* Debian's google-pprof applies its old "v1" rule here (and divides
         * by zero on a line with 0 objects): heap.pprof gets scaled values. */
        *rate = period / 2;
        *pprof_same = false;
        return true;
    }
    if (IS("heapprofile") || IS("growthz") || IS("growth"))
        return true;
    if (n == 0) {
        /* No kind: google-pprof guesses its old sampling rule when in-use
         * equals allocated; heap.pprof says heapprofile instead. */
        *pprof_same = false;
        return true;
    }
#undef IS
    /* Unknown: shown unscaled; google-pprof would try its old rule on any
     * kind containing "heap", so heap.pprof says heapprofile. */
    *pprof_same = strstr(kind, "heap") == NULL;
    return false;
}

/* ---- small parsers over one NUL-terminated line ---- */

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static bool dec(const char **pp, uint64_t *v)
{
    const char *p = ws(*pp);
    if (!g_ascii_isdigit(*p))
        return false;
    errno = 0;
    char *end;
    *v = g_ascii_strtoull(p, &end, 10);
    if (errno)
        return false;
    *pp = end;
    return true;
}

static bool expect(const char **pp, char c)
{
    const char *p = ws(*pp);
    if (*p != c)
        return false;
    *pp = p + 1;
    return true;
}

/* "A: B [C: D] @" (the bracket part optional: then C, D = A, B).  Returns
 * what follows the '@' (or the end when there is no '@' and at_optional). */
static const char *counts(const char *p, uint64_t v[GP_NV], bool at_optional)
{
    if (!dec(&p, &v[0]) || !expect(&p, ':') || !dec(&p, &v[1]))
        return NULL;
    const char *q = ws(p);
    if (*q == '[') {
        p = q + 1;
        if (!dec(&p, &v[2]) || !expect(&p, ':') || !dec(&p, &v[3]) || !expect(&p, ']'))
            return NULL;
    } else {
        v[2] = v[0];
        v[3] = v[1];
    }
    q = ws(p);
    if (*q == '@')
        return q + 1;
    return at_optional && *q == 0 ? q : NULL;
}

/* ---- parsing one file ---- */

typedef enum { ST_START, ST_SYMBOLS, ST_BODY, ST_MAP } state;

typedef struct {
    gperf_dump *g;
    gperf_snap *sn;
    const char *base; /* file base name, for problems in a series */
    bool series;
    GArray *maps; /* hf_mapping */
    GHashTable *vars;
    GHashTable *site_idx; /* trace -> index + 1 in sn->sites */
} parse_ctx;

static void problem(parse_ctx *c, uint64_t off, uint32_t lineno, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static void problem(parse_ctx *c, uint64_t off, uint32_t lineno, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (c->series)
        hf_problem_nooff(&c->g->base, "%s: offset 0x%" PRIx64 ": line %u: %s", c->base, off,
                         lineno, what);
    else
        hf_problem(&c->g->base, off, "line %u: %s", lineno, what);
    g_free(what);
}

static uint32_t intern_trace(gperf_dump *g, const uint64_t *pcs, size_t n, uint32_t snap)
{
    GBytes *key = g_bytes_new(pcs, n * sizeof *pcs);
    gpointer found = g_hash_table_lookup(g->trace_by_stack, key);
    if (found) {
        g_bytes_unref(key);
        return GPOINTER_TO_UINT(found) - 1;
    }
    gperf_trace t = {g->pcs->len, (uint32_t)n, snap};
    g_array_append_vals(g->pcs, pcs, (guint)n);
    g_array_append_val(g->traces, t);
    g_hash_table_insert(g->trace_by_stack, key, GUINT_TO_POINTER(g->traces->len));
    return g->traces->len - 1;
}

static void add_line(parse_ctx *c, const char *rest, const uint64_t v[GP_NV], uint64_t off,
                     uint32_t lineno)
{
    GArray *pcs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    const char *p = ws(rest);
    while (*p) {
        const char *s = p;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            p += 2;
        if (!g_ascii_isxdigit(*p)) {
            problem(c, off, lineno, "bad address \"%.*s\" in stack: line skipped",
                    (int)strcspn(s, " \t"), s);
            g_array_free(pcs, TRUE);
            return;
        }
        uint64_t pc = g_ascii_strtoull(p, (char **)&p, 16);
        if (*p && *p != ' ' && *p != '\t' && *p != '\r') {
            problem(c, off, lineno, "bad address \"%.*s\" in stack: line skipped",
                    (int)strcspn(s, " \t"), s);
            g_array_free(pcs, TRUE);
            return;
        }
        g_array_append_val(pcs, pc);
        p = ws(p);
    }
    gperf_line ln = {.lineno = lineno};
    memcpy(ln.raw, v, sizeof ln.raw);
    gperf_scale(v[0], v[1], c->sn->rate, &ln.scaled[0], &ln.scaled[1]);
    gperf_scale(v[2], v[3], c->sn->rate, &ln.scaled[2], &ln.scaled[3]);
    uint32_t snap = c->g->snaps->len; /* this snapshot is appended after parsing */
    ln.trace = intern_trace(c->g, (uint64_t *)pcs->data, pcs->len, snap);
    g_array_free(pcs, TRUE);
    g_array_append_val(c->sn->lines, ln);
    gpointer si = g_hash_table_lookup(c->site_idx, GUINT_TO_POINTER(ln.trace + 1));
    if (!si) {
        gperf_site site = {ln.trace, {0}};
        g_array_append_val(c->sn->sites, site);
        si = GUINT_TO_POINTER(c->sn->sites->len);
        g_hash_table_insert(c->site_idx, GUINT_TO_POINTER(ln.trace + 1), si);
    }
    gperf_site *site = &g_array_index(c->sn->sites, gperf_site, GPOINTER_TO_UINT(si) - 1);
    for (int i = 0; i < GP_NV; i++) {
        site->v[i] += ln.scaled[i];
        c->sn->sum_raw[i] += ln.raw[i];
        c->sn->sum_scaled[i] += ln.scaled[i];
    }
}

static void symbol_line(parse_ctx *c, const char *line, uint64_t off, uint32_t lineno)
{
    const char *p = ws(line);
    if (g_str_has_prefix(p, "binary=")) {
        g_free(c->sn->binary);
        c->sn->binary = g_strstrip(g_strdup(p + 7));
        return;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && g_ascii_isxdigit(p[2])) {
        char *end;
        uint64_t pc = g_ascii_strtoull(p + 2, &end, 16);
        const char *name = ws(end);
        if (end != p + 2 && *name) {
            uint64_t *k = g_new(uint64_t, 1);
            *k = pc;
            g_hash_table_replace(c->sn->symbols, k, g_strstrip(g_strdup(name)));
            return;
        }
    }
    if (*p)
        problem(c, off, lineno, "not a symbol line: ignored");
}

static void map_line(parse_ctx *c, const char *line, uint64_t off, uint32_t lineno)
{
    const char *p = ws(line);
    if (!*p)
        return;
    if (c->sn->trailer == GP_TRAILER_DUMP && g_ascii_isalpha(*p) && strchr(p, '=')) {
        /* "build=/dir" style variables, expanded in later "$build" paths. */
        const char *eq = strchr(p, '=');
        g_hash_table_replace(c->vars, g_strndup(p, eq - p), g_strstrip(g_strdup(eq + 1)));
        return;
    }
    hf_mapping m;
    if (!hf_mapping_parse(line, c->vars, &m)) {
        problem(c, off, lineno, "not a memory map line: ignored");
        return;
    }
    g_array_append_val(c->maps, m);
}

/* Handles one line in state *st. */
static void one_line(parse_ctx *c, state *st, const char *line, uint64_t off, uint32_t lineno)
{
    gperf_snap *sn = c->sn;
    const char *p = ws(line);
    switch (*st) {
    case ST_START:
        if (!*p)
            return;
        if (g_str_has_prefix(p, "--- symbol")) {
            *st = ST_SYMBOLS;
            sn->symbols = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
            return;
        }
        if (g_str_has_prefix(p, "heap profile:")) {
            uint64_t v[GP_NV];
            const char *kind = counts(p + 13, v, true);
            if (!kind) {
                problem(c, off, lineno, "header totals unreadable");
                memset(v, 0, sizeof v);
                kind = strchr(p, '@') ? strchr(p, '@') + 1 : "";
            } else {
                sn->has_header = true;
            }
            memcpy(sn->header, v, sizeof v);
            g_free(sn->kind);
            sn->kind = g_strstrip(g_strdup(kind));
            sn->kind_known = gperf_kind_rate(sn->kind, &sn->rate, &sn->pprof_same);
            *st = ST_BODY;
            return;
        }
        problem(c, off, lineno, "expected \"heap profile:\": line ignored");
        return;
    case ST_SYMBOLS:
        if (g_str_has_prefix(p, "---")) {
            *st = ST_START;
            return;
        }
        symbol_line(c, line, off, lineno);
        return;
    case ST_BODY:
        if (!*p)
            return;
        if (g_str_has_prefix(p, "MAPPED_LIBRARIES:")) {
            sn->trailer = GP_TRAILER_PROC;
            *st = ST_MAP;
            return;
        }
        if (g_str_has_prefix(p, "--- Memory map:")) {
            sn->trailer = GP_TRAILER_DUMP;
            *st = ST_MAP;
            return;
        }
        uint64_t v[GP_NV];
        const char *rest = counts(p, v, false);
        if (!rest) {
            problem(c, off, lineno, "malformed line: skipped");
            return;
        }
        add_line(c, rest, v, off, lineno);
        return;
    case ST_MAP:
        map_line(c, line, off, lineno);
        return;
    }
}

bool gperf_parse_file(gperf_dump *g, const char *path, const uint8_t *data, size_t len,
                       bool series, GError **err)
{
    gperf_snap sn = {0};
    sn.path = g_strdup(path);
    sn.size = len;
    sn.kind = g_strdup("");
    sn.lines = g_array_new(FALSE, FALSE, sizeof(gperf_line));
    sn.sites = g_array_new(FALSE, FALSE, sizeof(gperf_site));
    parse_ctx c = {g, &sn, NULL, series, g_array_new(FALSE, FALSE, sizeof(hf_mapping)),
                   g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
                   g_hash_table_new(g_direct_hash, g_direct_equal)};
    char *base = g_path_get_basename(path);
    c.base = base;
    state st = ST_START;
    GString *line = g_string_new(NULL);
    uint32_t lineno = 0;
    size_t pos = 0;
    while (pos < len) {
        const uint8_t *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) : len;
        g_string_truncate(line, 0);
        /* A NUL inside a line would end it early: make it visible instead. */
        for (size_t i = pos; i < end; i++)
            g_string_append_c(line, data[i] ? (char)data[i] : '?');
        lineno++;
        if (!nl && *ws(line->str))
            problem(&c, pos, lineno, "last line has no newline (file truncated?)");
        one_line(&c, &st, line->str, pos, lineno);
        pos = end + 1;
    }
    g_string_free(line, TRUE);
    bool ok = st != ST_START && st != ST_SYMBOLS;
    if (!ok) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: no \"heap profile:\" header line", path);
    } else {
        if (st == ST_BODY && !sn.symbols)
            problem(&c, len, lineno,
                    "no memory map trailer (MAPPED_LIBRARIES: or --- Memory map:): "
                    "frames are shown as addresses");
        if (sn.has_header && memcmp(sn.header, sn.sum_raw, sizeof sn.header) != 0)
            problem(&c, 0, 1,
                    "header totals %" PRIu64 ": %" PRIu64 " [%" PRIu64 ": %" PRIu64
                    "] disagree with the sum of the lines %" PRIu64 ": %" PRIu64 " [%" PRIu64
                    ": %" PRIu64 "]",
                    sn.header[0], sn.header[1], sn.header[2], sn.header[3], sn.sum_raw[0],
                    sn.sum_raw[1], sn.sum_raw[2], sn.sum_raw[3]);
        if (!sn.kind_known)
            problem(&c, 0, 1, "header kind \"%s\" not known: values shown unscaled", sn.kind);
    }
    sn.n_maps = c.maps->len;
    sn.maps = (hf_mapping *)g_array_free(c.maps, FALSE);
    g_hash_table_destroy(c.vars);
    g_hash_table_destroy(c.site_idx);
    g_free(base);
    /* Sites in trace order, so two snapshots list shared stacks alike. */
    hf_serial_sort(sn.sites);
    g_array_append_val(g->snaps, sn);
    return ok;
}
