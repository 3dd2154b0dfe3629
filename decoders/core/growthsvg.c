/*
 * growthsvg.c - MOUNT/growth.svg (compare.h): bytes per snapshot, the
 * total and the classes, sites or types that grew most, as a line chart.
 *
 * Two passes over the snapshots' tallies: the first and the last snapshot
 * pick the growers (so memory stays a few arrays however many names a
 * snapshot has), then every drawn snapshot is tallied once more for
 * their values and the total.  At most HF_GROWTH_POINTS snapshots are
 * drawn, evenly spaced, first and last included: a tally costs a few
 * milliseconds (OEMP) and `ls -l` of the mount renders the file.
 */
#include "decoders/core/compare.h"

#include "decoders/core/svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

enum {
    W = 1200, H = 600,           /* the picture */
    L = 90, R = W - 380, T = 60, B = H - 70, /* the plot area */
    FONT = 12,
};

static const char *const colour[HF_GROWTH_SERIES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

/* A name's bytes in one tally, added up (a name may come several times). */
typedef struct {
    GHashTable *bytes; /* name (owned) -> int64_t * (owned) */
    int64_t total;
} tally;

static void add(void *ud, const char *name, int64_t count, int64_t bytes)
{
    tally *t = ud;
    int64_t *v = g_hash_table_lookup(t->bytes, name);
    if (!v) {
        v = g_new0(int64_t, 1);
        g_hash_table_insert(t->bytes, g_strdup(name), v);
    }
    *v += bytes;
    t->total += bytes;
}

static bool take(hf_snapref r, tally *t)
{
    t->bytes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    t->total = 0;
    return r.d->ops->tally(r.d, r.s, false, add, t);
}

static int64_t bytes_of(const tally *t, const char *name)
{
    const int64_t *v = g_hash_table_lookup(t->bytes, name);
    return v ? *v : 0;
}

bool hf_growth_chart_has(const hf_snapref *snaps, uint32_t n)
{
    if (n < 2)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!snaps[i].d->ops->tally || !snaps[i].d->ops->tally(snaps[i].d, snaps[i].s, false, NULL, NULL))
            return false;
    return true;
}

typedef struct {
    char *name;
    int64_t growth, last;
} grower;

static gint cmp_grower(gconstpointer a, gconstpointer b)
{
    const grower *x = a, *y = b;
    if (x->growth != y->growth)
        return x->growth > y->growth ? -1 : 1;
    if (x->last != y->last)
        return x->last > y->last ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The names that grew most from first to last, largest growth first. */
static GArray *growers(const tally *first, const tally *last)
{
    GArray *g = g_array_new(FALSE, FALSE, sizeof(grower));
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, last->bytes);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        grower x = {k, *(int64_t *)v - bytes_of(first, k), *(int64_t *)v};
        if (x.growth > 0)
            g_array_append_val(g, x);
    }
    g_array_sort(g, cmp_grower);
    if (g->len > HF_GROWTH_SERIES)
        g_array_set_size(g, HF_GROWTH_SERIES);
    for (guint i = 0; i < g->len; i++)
        g_array_index(g, grower, i).name = g_strdup(g_array_index(g, grower, i).name);
    return g;
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x)));
    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

typedef struct {
    uint32_t n;           /* points */
    const uint64_t *num;  /* their snapshot numbers */
    double top, div;      /* the y axis' top, in bytes; the unit, in bytes */
    const char *unit;     /* its name */
} axes;

static double px(const axes *a, uint32_t k)
{
    return L + (double)(R - L) * k / (a->n - 1);
}

static double py(const axes *a, int64_t v)
{
    return B - (double)(B - T) * (double)MAX(v, 0) / a->top;
}

static void append_axes(GString *out, axes *a, int64_t max)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    for (a->div = 1; u < 4 && (double)max >= 1024 * a->div; u++)
        a->div *= 1024;
    double step = nice_step(MAX((double)max / a->div, 1) / 5);
    a->top = step * ceil(MAX((double)max / a->div, 1) / step) * a->div;
    a->unit = units[u];
    g_string_append_printf(out, "<g id=\"axes\" stroke=\"#888\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                           "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n", L, B, R, B, L, T, L, B);
    for (double t = 0; t <= a->top / a->div + step / 2; t += step) {
        double y = py(a, (int64_t)(t * a->div));
        g_string_append_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                               "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                               L + 1, y, R, y, L - 6, y + 4, t);
    }
    uint32_t every = (a->n + 11) / 12;
    for (uint32_t k = 0; k < a->n; k++)
        if (k % every == 0 || k == a->n - 1)
            g_string_append_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%" PRIu64 "</text>\n",
                                   px(a, k), B + 18, a->num[k]);
    g_string_append_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">snapshot</text>\n"
                           "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">bytes (%s)</text>\n"
                           "<text x=\"%d\" y=\"%d\">growth, first to last:</text>\n",
                           (L + R) / 2, B + 44, 24, (T + B) / 2, 24, (T + B) / 2, units[u], R + 20, T - 8);
}

/* One line: values v[0..n) of `name` (NULL: the total). */
static void append_series(GString *out, const axes *a, const char *name, const int64_t *v, int k)
{
    const char *c = name ? colour[k] : "#000";
    const char *shown = name ? name : "total";
    g_string_append(out, "<g class=\"s\" data-name=\"");
    hf_xml_escape(out, shown);
    g_string_append(out, "\" data-v=\"");
    for (uint32_t i = 0; i < a->n; i++)
        g_string_append_printf(out, "%s%" PRId64, i ? " " : "", v[i]);
    g_string_append_printf(out, "\"><title>");
    hf_xml_escape(out, shown);
    g_string_append_printf(out, ": %" PRId64 " bytes at snapshot %" PRIu64 ", %" PRId64 " at %" PRIu64
                           " (%s%" PRId64 ")</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"",
                           v[0], a->num[0], v[a->n - 1], a->num[a->n - 1],
                           v[a->n - 1] < v[0] ? "" : "+", v[a->n - 1] - v[0], c, name ? "1.5" : "2.5");
    for (uint32_t i = 0; i < a->n; i++)
        g_string_append_printf(out, "%s%.1f,%.1f", i ? " " : "", px(a, i), py(a, v[i]));
    g_string_append(out, "\"/>\n");
    for (uint32_t i = 0; i < a->n; i++) {
        g_string_append_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>",
                               px(a, i), py(a, v[i]), a->n > 40 ? "1.5" : "2.5", c);
        hf_xml_escape(out, shown);
        g_string_append_printf(out, ", snapshot %" PRIu64 ": %" PRId64 " bytes</title></circle>\n",
                               a->num[i], v[i]);
    }
    int y = T + 10 + 22 * (name ? k + 1 : 0);
    g_string_append_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                           "<text x=\"%d\" y=\"%d\">", R + 20, y, R + 44, y, c, R + 50, y + 4);
    char *label = g_strdup_printf("%s%.3g %s %s", v[a->n - 1] < v[0] ? "" : "+",
                                  (double)(v[a->n - 1] - v[0]) / a->div, a->unit, shown);
    for (char *q = label; *q; q++)
        if (*q == '\t')
            *q = ' ';
    hf_svg_label(out, label, W - 8 - (R + 50));
    g_free(label);
    g_string_append(out, "</text></g>\n");
}

uint64_t hf_growth_chart(const hf_snapref *snaps, const uint64_t *numbers, uint32_t n,
                         uint64_t first, GString *out, size_t budget)
{
    if (first != 0 || !hf_growth_chart_has(snaps, n))
        return HF_DONE;
    uint32_t np = MIN(n, HF_GROWTH_POINTS);
    uint32_t *at = g_new(uint32_t, np);
    uint64_t *num = g_new(uint64_t, np);
    for (uint32_t k = 0; k < np; k++) {
        at[k] = (uint32_t)(((uint64_t)k * (n - 1) + (np - 1) / 2) / (np - 1));
        num[k] = numbers[at[k]];
    }
    tally t0, t1;
    GArray *g = NULL;
    if (take(snaps[0], &t0) && take(snaps[n - 1], &t1))
        g = growers(&t0, &t1);
    g_hash_table_destroy(t0.bytes);
    g_hash_table_destroy(t1.bytes);
    int64_t *v = g_new0(int64_t, (size_t)(HF_GROWTH_SERIES + 1) * np), max = 1; /* [0]: total */
    for (uint32_t k = 0; g && k < np; k++) {
        tally t;
        bool ok = take(snaps[at[k]], &t);
        v[k] = t.total;
        max = MAX(max, t.total);
        for (guint i = 0; i < g->len; i++) {
            v[(i + 1) * np + k] = bytes_of(&t, g_array_index(g, grower, i).name);
            max = MAX(max, v[(i + 1) * np + k]);
        }
        g_hash_table_destroy(t.bytes);
        if (!ok)
            g_clear_pointer(&g, g_array_unref);
    }
    g_string_append_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
                           "viewBox=\"0 0 %d %d\" data-snapshots=\"", W, H, W, H);
    for (uint32_t k = 0; k < np; k++)
        g_string_append_printf(out, "%s%" PRIu64, k ? " " : "", num[k]);
    g_string_append_printf(out, "\">\n<style>text{font-family:monospace;font-size:%dpx;fill:#000}</style>\n"
                           "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n"
                           "<text x=\"%d\" y=\"24\" style=\"font-size:16px\" text-anchor=\"middle\">"
                           "Bytes per snapshot: the total and what grew most from snapshot %" PRIu64
                           " to %" PRIu64 "</text>\n", FONT, W, H, W / 2, num[0], num[np - 1]);
    if (np < n)
        g_string_append_printf(out, "<text x=\"%d\" y=\"42\" text-anchor=\"middle\">%u of the %u "
                               "snapshots, evenly spaced</text>\n", W / 2, np, n);
    if (!g) {
        g_string_append_printf(out, "<text x=\"%d\" y=\"%d\">a snapshot's tally could not be made</text>\n", L, T + 20);
    } else {
        axes a = {np, num, 0, 1, "B"};
        append_axes(out, &a, max);
        append_series(out, &a, NULL, v, 0);
        for (guint i = 0; i < g->len; i++)
            append_series(out, &a, g_array_index(g, grower, i).name, v + (i + 1) * np, (int)i);
        for (guint i = 0; i < g->len; i++)
            g_free(g_array_index(g, grower, i).name);
        g_array_unref(g);
    }
    g_string_append(out, "</svg>\n");
    g_free(v);
    g_free(num);
    g_free(at);
    return HF_DONE;
}
