/*
 * treemap.c - snapshots/S/dominators.svg: the dominator tree (retained.h)
 * as a nested treemap, for a browser.
 *
 * Level 1 is what only the GC roots keep alive (the `dominators` view's
 * objects), level 2 what each of those dominates; a box's area is its
 * retained bytes, laid out by the squarified algorithm (Bruls, Huizing
 * and van Wijk), largest first from the top left.  Level 1 keeps the
 * objects holding at least 1/MIN_PARTS of the reachable bytes, at most
 * MAX_BOXES; the rest are one grey box "N other objects" (data-m="1"), so
 * the areas of level 1 add up to the whole picture and its data-v to the
 * reachable bytes.  Level 2 fills a box below its label, in proportion,
 * with what is left unlabelled (the object itself and its small ones).
 *
 * Each object's box is a link to its directory, relative to the snapshot
 * (href="objects/0xID/"), so it can be followed over file:// or NFS:
 *     <a href="objects/0xID/"><g class="b" data-id="0xID" data-v="RETAINED"
 *       data-d="LEVEL"><title>CLASS 0xID: retained N bytes, P%</title>
 *       <rect .../><text ...>LABEL</text></g></a>
 *
 * Reading it computes the snapshot's graph (as `dominators` does).
 * Thread safety: reads the finished graph only.
 */
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"
#include "decoders/pprof/flame.h"

#include <math.h>

enum { WIDTH = 1200, HEIGHT = 800, TOP = 30, MAX_BOXES = 60, MAX_KIDS = 24 };
#define MIN_PARTS 500   /* level 1: boxes under total/this are merged */
#define MIN_SHARE 0.02  /* level 2: under this share of the box, left out */
#define H(d) ((hf_heap *)(d))

typedef struct {
    double x, y, w, h;
} rect;

typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    const hf_hgraph *g;
    uint64_t total;
    GString *out;
} ctx;

/* Highest aspect ratio of a row of areas a[0..n) laid along a side s. */
static double worst(const double *a, int n, double s)
{
    double sum = 0, lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        sum += a[i];
        lo = MIN(lo, a[i]);
        hi = MAX(hi, a[i]);
    }
    double s2 = s * s, sum2 = sum * sum;
    return MAX(s2 * hi / sum2, sum2 / (s2 * lo));
}

/* Rectangles out[0..n) for values v[0..n) (largest first) filling r. */
static void squarify(const uint64_t *v, int n, rect r, rect *out)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += (double)v[i];
    double *a = g_new(double, (gsize)MAX(n, 1));
    for (int i = 0; i < n; i++)
        a[i] = sum > 0 ? (double)v[i] * r.w * r.h / sum : 0;
    for (int i = 0; i < n;) {
        double side = MIN(r.w, r.h);
        int k = 1;
        while (i + k < n && a[i + k] > 0 && worst(a + i, k + 1, side) <= worst(a + i, k, side))
            k++;
        double row = 0;
        for (int j = 0; j < k; j++)
            row += a[i + j];
        bool column = r.w >= r.h; /* the row runs along the shorter side */
        double thick = row > 0 ? row / side : 0, at = column ? r.y : r.x;
        for (int j = 0; j < k; j++) {
            double len = thick > 0 ? a[i + j] / thick : 0;
            out[i + j] = column ? (rect){r.x, at, thick, len} : (rect){at, r.y, len, thick};
            at += len;
        }
        if (column)
            r.x += thick, r.w -= thick;
        else
            r.y += thick, r.h -= thick;
        i += k;
    }
    g_free(a);
}

static void append_colour(GString *out, const char *name, int level)
{
    guint hash = g_str_hash(name);
    int lift = level == 1 ? 0 : 30;
    g_string_append_printf(out, "rgb(%u,%u,%u)", 90 + lift + hash % 80, 150 + lift / 2 + (hash >> 8) % 70,
                           200 + (hash >> 16) % 55);
}

/* The box of node w (or of `merged` others: w unused) at level d. */
static void append_box(ctx *c, uint32_t w, uint32_t merged, uint64_t v, int d, rect r)
{
    GString *o = c->out;
    GString *name = g_string_new(NULL);
    uint64_t id = 0;
    if (merged) {
        g_string_printf(name, "%u other objects", merged);
    } else {
        hf_hobj ob;
        id = hf_heap_object_id(c->h, c->sn, w);
        const hf_hclass *self = hf_heap_decode(c->h, c->sn, w, &ob) ? hf_heap_described(c->sn, &ob) : NULL;
        g_string_append(name, self ? "class " : "");
        g_string_append(name, self ? self->dir : hf_heap_class(c->sn, hf_heap_cls(c->sn, w))->dir);
        g_string_append_printf(o, "<a href=\"objects/" HF_FMT_ID "/\">", (guint64)id);
    }
    g_string_append_printf(o, "<g class=\"b\" data-id=\"" HF_FMT_ID "\" data-v=\"%" G_GUINT64_FORMAT "\" data-d=\"%d\"%s><title>",
                           (guint64)id, (guint64)v, d, merged ? " data-m=\"1\"" : "");
    hf_xml_escape(o, name->str);
    if (!merged)
        g_string_append_printf(o, " " HF_FMT_ID, (guint64)id);
    g_string_append_printf(o, ": retained %" G_GUINT64_FORMAT " bytes, %.2f%%</title>", (guint64)v,
                           c->total ? 100.0 * (double)v / (double)c->total : 0.0);
    g_string_append_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"", r.x,
                           r.y, r.w, r.h);
    if (merged)
        g_string_append(o, "rgb(200,200,200)");
    else
        append_colour(o, name->str, d);
    g_string_append(o, "\" stroke=\"#fff\"/>");
    if (r.h >= 14) {
        g_string_append_printf(o, "<text x=\"%.1f\" y=\"%.1f\">", r.x + 3, r.y + 12);
        g_string_append_printf(name, " %" G_GUINT64_FORMAT, (guint64)v);
        hf_svg_label(o, name->str, r.w);
        g_string_append(o, "</text>");
    }
    g_string_append(o, merged ? "</g>\n" : "</g></a>\n");
    g_string_free(name, TRUE);
}

/* Level 2: what w dominates, in r below its label. */
static void append_kids(ctx *c, uint32_t w, rect r)
{
    if (r.w < 40 || r.h < 40)
        return;
    rect in = {r.x + 2, r.y + 15, r.w - 4, r.h - 17};
    uint32_t a, b;
    hf_hgraph_kids(c->g, w, &a, &b);
    uint64_t v[MAX_KIDS + 1], used = 0, whole = hf_hgraph_retained(c->g, w);
    int n = 0;
    for (uint32_t i = a; i < b && n < MAX_KIDS; i++) {
        uint64_t r2 = hf_hgraph_retained(c->g, c->g->kids[i]);
        if ((double)r2 < MIN_SHARE * (double)whole)
            break; /* kids are largest first */
        v[n++] = r2;
        used += r2;
    }
    if (!n)
        return;
    v[n] = whole - used; /* the object itself and what is too small: left blank */
    rect box[MAX_KIDS + 1];
    squarify(v, n + (v[n] > 0), in, box);
    for (int i = 0; i < n; i++)
        append_box(c, c->g->kids[a + i], 0, v[i], 2, box[i]);
}

uint64_t hf_heap_view_dominators_svg(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget)
{
    if (first != 0)
        return HF_DONE;
    const hf_hgraph *g = hf_heap_graph(H(d), v->snap);
    int height = HEIGHT + TOP;
    g_string_append_printf(out,
                           "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                           "height=\"%d\" viewBox=\"0 0 %d %d\" data-total=\"%" G_GUINT64_FORMAT "\">\n"
                           "<style>text{font-family:monospace;font-size:12px;fill:#000;"
                           "pointer-events:none}\ng.b:hover rect{stroke:#000}\n</style>\n"
                           "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n",
                           WIDTH, height, WIDTH, height,
                           (guint64)(g->error ? 0 : hf_hgraph_retained(g, g->n)), WIDTH, height);
    if (g->error) {
        g_string_append(out, "<text x=\"10\" y=\"20\">no retained sizes: ");
        hf_xml_escape(out, g->error);
        g_string_append(out, "</text>\n</svg>\n");
        return HF_DONE;
    }
    ctx c = {H(d), hf_heap_snap(H(d), v->snap), g, hf_hgraph_retained(g, g->n), out};
    g_string_append_printf(out,
                           "<text x=\"600\" y=\"20\" style=\"font-size:16px;text-anchor:middle\">"
                           "Retained bytes: what only the GC roots keep alive (%" G_GUINT64_FORMAT
                           " bytes)</text>\n",
                           (guint64)c.total);
    uint32_t a, b;
    hf_hgraph_kids(g, g->n, &a, &b);
    uint64_t vals[MAX_BOXES + 1], used = 0;
    int n = 0;
    for (uint32_t i = a; i < b && n < MAX_BOXES; i++) {
        uint64_t r = hf_hgraph_retained(g, g->kids[i]);
        if (r * MIN_PARTS < c.total)
            break;
        vals[n++] = r;
        used += r;
    }
    vals[n] = c.total - used;
    uint32_t others = (b - a) - (uint32_t)n;
    rect box[MAX_BOXES + 1];
    squarify(vals, n + (vals[n] > 0), (rect){0, TOP, WIDTH, HEIGHT}, box);
    for (int i = 0; i < n; i++) {
        append_box(&c, g->kids[a + i], 0, vals[i], 1, box[i]);
        append_kids(&c, g->kids[a + i], box[i]);
    }
    if (vals[n] > 0)
        append_box(&c, 0, others ? others : 1, vals[n], 1, box[n]);
    g_string_append(out, "</svg>\n");
    return HF_DONE;
}
