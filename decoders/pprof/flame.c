/*
 * flame.c - flame.svg writer (see flame.h for what is drawn and how).
 *
 * The tree of frames is made with one hash, of the frames' folded text
 * (so that two builders, a diff's, share names): the names are ranked in
 * strcmp order, the stacks (root first, as rank sequences) sorted, and one
 * sweep over the sorted stacks opens a node wherever a stack leaves the
 * previous one's path.  Nodes so come in depth-first order with each
 * node's children in name order and every parent before its children.
 * Placing is then one pass in that order: a wide child goes after its
 * wide elder siblings, a narrow one after all the wide ones (flame.h).
 * 10,000 stacks 8-40 deep take about 0.2 s (bench/flame_bench.c).
 */
#include "decoders/pprof/flame.h"

#include "decoders/core/model.h"

#include <inttypes.h>
#include <string.h>

enum {
    PAD = 10,   /* left and right margin */
    TOP = 40,   /* title and buttons */
    FOOT = 24,  /* details line */
    FH = 16,    /* frame height (the rect is one less) */
    FONT = 12,  /* px, monospace */
};
#define NAME_ALL UINT32_MAX

typedef struct {
    uint32_t name, parent, depth;
    bool narrow, drawn;
    uint64_t value, x, before; /* before: the earlier snapshot's value (diff) */
    uint64_t wide_end, narrow_end; /* where the next wide / narrow child goes */
} node;

/* A builder whose samples are drawn: `now` (widths) or `before` (the
 * earlier snapshot of a diff: only its sums per frame, flame.h). */
typedef struct {
    const hf_pprof *p;
    hf_pprof_which which;
    uint32_t *name; /* its frame i is the tree's name name[i]; its empty stack name[nf] */
} source;

/* What is drawn: src[0] sizes the frames; with `diff`, src[1] is the
 * snapshot before, and colours and hover text show the change. */
typedef struct {
    source src[2];
    bool diff;
    const char *title, *unit;
} how;

typedef struct {
    GArray *nodes;  /* node; [0] is "all" */
    char **names;   /* the frames' folded text, each once (rank_names) */
    uint32_t n_names;
    uint32_t *rank; /* of each name, in strcmp order */
    uint64_t total, min;
    uint64_t max_change; /* diff: the largest change of a frame drawn above "all" */
} tree;

/* One frame to draw: a node, or `merged` narrow siblings. */
typedef struct {
    uint32_t node, merged, depth;
    uint64_t x, v, before;
} frame;

/* A stack with a value (and the earlier value), root first, as name indices. */
typedef struct {
    const uint32_t *ranks; /* root first */
    uint32_t n;
    uint64_t value, before;
} path;

static const char *node_name(const tree *t, const node *n)
{
    return n->name == NAME_ALL ? "all" : t->names[n->name];
}

static gint cmp_name(gconstpointer a, gconstpointer b, gpointer ud)
{
    char **names = ud;
    return strcmp(names[*(const uint32_t *)a], names[*(const uint32_t *)b]);
}

static size_t n_sources(const how *h)
{
    return h->diff ? 2 : 1;
}

/* The tree's names: the folded text of every source's frames, each text
 * once (two builders, or two names that fold alike, share it), and
 * "[no stack]"; each source's map to them; their ranks in strcmp order. */
static void rank_names(tree *t, how *h)
{
    GPtrArray *names = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    GString *s = g_string_new(NULL);
    for (size_t k = 0; k < n_sources(h); k++) {
        source *src = &h->src[k];
        size_t nf = hf_pprof_n_frames(src->p);
        src->name = g_new(uint32_t, nf + 1);
        for (size_t i = 0; i <= nf; i++) {
            g_string_truncate(s, 0);
            if (i < nf)
                hf_pprof_append_folded_frame(s, hf_pprof_frame(src->p, i));
            else
                g_string_append(s, "[no stack]"); /* as stacks.folded writes an empty stack */
            gpointer at;
            if (!g_hash_table_lookup_extended(seen, s->str, NULL, &at)) {
                at = GUINT_TO_POINTER(names->len);
                g_ptr_array_add(names, g_strdup(s->str));
                g_hash_table_insert(seen, names->pdata[names->len - 1], at);
            }
            src->name[i] = GPOINTER_TO_UINT(at);
        }
    }
    g_string_free(s, TRUE);
    g_hash_table_destroy(seen);
    t->n_names = names->len;
    g_ptr_array_add(names, NULL);
    t->names = (char **)g_ptr_array_free(names, FALSE);
    GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), t->n_names);
    for (uint32_t i = 0; i < t->n_names; i++)
        g_array_append_val(order, i);
    g_array_sort_with_data(order, cmp_name, t->names);
    t->rank = g_new(uint32_t, t->n_names + 1);
    for (uint32_t r = 0; r < t->n_names; r++)
        t->rank[g_array_index(order, uint32_t, r)] = r;
    g_array_free(order, TRUE);
}

static gint cmp_path(gconstpointer a, gconstpointer b)
{
    const path *x = a, *y = b;
    for (uint32_t k = 0; k < x->n && k < y->n; k++)
        if (x->ranks[k] != y->ranks[k])
            return x->ranks[k] < y->ranks[k] ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* The stacks with a value, root first, as ranks, sorted; their ranks in
 * *store (owned by the caller).  A diff's earlier stacks come as paths
 * with a `before` value only. */
static GArray *sorted_paths(const tree *t, const how *h, uint32_t **store)
{
    size_t len = 0, ns = 0;
    for (size_t k = 0; k < n_sources(h); k++)
        for (size_t i = 0, n = hf_pprof_n_stacks(h->src[k].p); i < n; i++, ns++) {
            const uint32_t *fr;
            size_t nfr;
            hf_pprof_values v;
            hf_pprof_sample(h->src[k].p, i, &fr, &nfr, &v);
            len += nfr ? nfr : 1;
        }
    uint32_t *ranks = *store = g_new(uint32_t, len + 1), *at = ranks;
    GArray *paths = g_array_sized_new(FALSE, FALSE, sizeof(path), (guint)ns);
    for (size_t k = 0; k < n_sources(h); k++) {
        const source *src = &h->src[k];
        size_t nf = hf_pprof_n_frames(src->p);
        for (size_t i = 0, n = hf_pprof_n_stacks(src->p); i < n; i++) {
            const uint32_t *fr;
            size_t nfr;
            hf_pprof_values v;
            hf_pprof_sample(src->p, i, &fr, &nfr, &v);
            uint64_t x = hf_pprof_pick(&v, src->which);
            if (!x)
                continue;
            path pa = {at, nfr ? (uint32_t)nfr : 1, k ? 0 : x, k ? x : 0};
            if (nfr == 0)
                *at++ = t->rank[src->name[nf]];
            for (size_t j = nfr; j-- > 0;)
                *at++ = t->rank[src->name[fr[j]]];
            g_array_append_val(paths, pa);
        }
    }
    g_array_sort(paths, cmp_path);
    return paths;
}

static void build(tree *t, how *h)
{
    rank_names(t, h);
    uint32_t *by_rank = g_new(uint32_t, t->n_names + 1), *store;
    for (uint32_t i = 0; i < t->n_names; i++)
        by_rank[t->rank[i]] = i;
    GArray *paths = sorted_paths(t, h, &store);
    t->nodes = g_array_new(FALSE, TRUE, sizeof(node));
    node all = {NAME_ALL, 0, 0, false, true, 0, 0, 0, 0, 0};
    g_array_append_val(t->nodes, all);
    GArray *open = g_array_new(FALSE, FALSE, sizeof(uint32_t)); /* node per depth-1 */
    const path *prev = NULL;
    for (guint i = 0; i < paths->len; i++) {
        const path *pa = &g_array_index(paths, path, i);
        uint32_t same = 0;
        while (prev && same < pa->n && same < prev->n && pa->ranks[same] == prev->ranks[same])
            same++;
        g_array_set_size(open, same);
        for (uint32_t k = same; k < pa->n; k++) {
            uint32_t parent = k ? g_array_index(open, uint32_t, k - 1) : 0;
            node n = {by_rank[pa->ranks[k]], parent, k + 1, false, false, 0, 0, 0, 0, 0};
            g_array_append_val(t->nodes, n);
            uint32_t id = t->nodes->len - 1;
            g_array_append_val(open, id);
        }
        for (uint32_t k = 0; k <= pa->n; k++) {
            node *n = &g_array_index(t->nodes, node, k ? g_array_index(open, uint32_t, k - 1) : 0);
            n->value += pa->value;
            n->before += pa->before;
        }
        prev = pa;
    }
    g_array_free(open, TRUE);
    g_array_free(paths, TRUE);
    g_free(store);
    g_free(by_rank);
    for (size_t k = 0; k < n_sources(h); k++)
        g_clear_pointer(&h->src[k].name, g_free);
    t->total = g_array_index(t->nodes, node, 0).value;
    t->min = (t->total + HF_FLAME_MIN_PARTS - 1) / HF_FLAME_MIN_PARTS;
}

/* Offsets and the frames to draw, "all" first, parents before children. */
static GArray *place(tree *t)
{
    node *nodes = (node *)t->nodes->data;
    guint nn = t->nodes->len;
    for (guint i = 1; i < nn; i++) {
        nodes[i].narrow = nodes[i].value < t->min;
        if (!nodes[i].narrow)
            nodes[nodes[i].parent].narrow_end += nodes[i].value; /* for now: the wide sum */
    }
    GArray *frames = g_array_new(FALSE, FALSE, sizeof(frame));
    frame root = {0, 0, 0, 0, t->total, nodes[0].before};
    g_array_append_val(frames, root);
    /* other[i]: node i's narrow children, merged. */
    frame *other = g_new0(frame, nn);
    for (guint i = 0; i < nn; i++) {
        node *n = &nodes[i];
        if (i) {
            node *pn = &nodes[n->parent];
            uint64_t *end = n->narrow ? &pn->narrow_end : &pn->wide_end;
            n->x = *end;
            *end += n->value;
            n->drawn = pn->drawn && !n->narrow;
            if (n->drawn) {
                frame f = {i, 0, n->depth, n->x, n->value, n->before};
                g_array_append_val(frames, f);
            } else if (pn->drawn) {
                frame *o = &other[n->parent];
                if (!o->depth)
                    *o = (frame){0, 0, n->depth, n->x, 0, 0};
                o->merged += n->value > 0; /* a frame gone since is not drawn */
                o->v += n->value;
                o->before += n->before;
            }
        }
        n->wide_end = n->x;
        n->narrow_end += n->x; /* after the wide children */
    }
    for (guint i = 0; i < nn; i++)
        if (other[i].merged && other[i].v >= t->min)
            g_array_append_val(frames, other[i]);
    g_free(other);
    return frames;
}

static void tree_free(tree *t)
{
    for (size_t i = 0; t->names && t->names[i]; i++)
        g_free(t->names[i]);
    g_free(t->names);
    g_free(t->rank);
    g_array_free(t->nodes, TRUE);
}

static uint64_t change_abs(const frame *f)
{
    return f->v > f->before ? f->v - f->before : f->before - f->v;
}

/* Warm colours (flamegraph.pl's "hot"), the same for the same name; with
 * a diff, red for growth and blue for shrinking, deeper for a larger
 * change (linear in it, up to the largest above "all"), near white for
 * none. */
static void append_colour(GString *out, const tree *t, const how *h, const frame *f,
                          const char *name)
{
    if (f->merged) {
        g_string_append(out, "rgb(200,200,200)");
        return;
    }
    if (h->diff) {
        uint64_t c = MIN(change_abs(f), t->max_change); /* "all"'s may be larger */
        unsigned k = c ? (unsigned)(40 + 180 * c / t->max_change) : 0;
        if (f->v >= f->before)
            g_string_append_printf(out, "rgb(255,%u,%u)", 250 - k, 250 - k);
        else
            g_string_append_printf(out, "rgb(%u,%u,255)", 250 - k, 250 - k);
        return;
    }
    guint hs = g_str_hash(name);
    g_string_append_printf(out, "rgb(%u,%u,%u)", 205 + hs % 50, (hs >> 8) % 230, (hs >> 16) % 55);
}

/* " (V unit, P%)", with a diff "(V unit, P%; before B unit; change +D unit)":
 * the hover text after the name. */
static void append_values(GString *out, const tree *t, const how *h, const frame *f)
{
    g_string_append_printf(out, " (%" PRIu64 " %s, %.2f%%", f->v, h->unit,
                           100.0 * (double)f->v / (double)t->total);
    if (h->diff)
        g_string_append_printf(out, "; before %" PRIu64 " %s; change %s%" PRIu64 " %s", f->before,
                               h->unit, f->v < f->before ? "-" : "+", change_abs(f), h->unit);
    g_string_append_c(out, ')');
}

static void append_frame(GString *out, const tree *t, const how *h, const frame *f, guint id,
                         uint32_t maxd)
{
    double scale = (double)(HF_FLAME_WIDTH - 2 * PAD) / (double)t->total;
    double x = PAD + (double)f->x * scale, w = (double)f->v * scale;
    int y = TOP + (int)(maxd - f->depth) * FH;
    char merged_name[64];
    const char *name = merged_name;
    if (f->merged)
        g_snprintf(merged_name, sizeof merged_name, "[%u smaller frames]", f->merged);
    else
        name = node_name(t, &g_array_index(t->nodes, node, f->node));
    g_string_append_printf(out,
                           "<g class=\"f\" id=\"f%u\" data-x=\"%" PRIu64 "\" data-v=\"%" PRIu64
                           "\" data-d=\"%u\"",
                           id, f->x, f->v, f->depth);
    if (h->diff)
        g_string_append_printf(out, " data-b=\"%" PRIu64 "\"", f->before);
    g_string_append_printf(out, "%s><title>", f->merged ? " data-m=\"1\"" : "");
    hf_xml_escape(out, name);
    append_values(out, t, h, f);
    g_string_append_printf(out, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"",
                           x, y, w, FH - 1);
    append_colour(out, t, h, f, name);
    g_string_append_printf(out, "\"/><text x=\"%.1f\" y=\"%d\">", x + 3, y + FONT);
    hf_svg_label(out, name, w);
    g_string_append(out, "</text></g>\n");
}

/* Zoom, reset, search, hover details; the URL fragment drives the same
 * functions (flame.h).  Labels are cut by the same rule as hf_svg_label. */
static const char script[] =
    "var svg=document.documentElement,W=+svg.getAttribute('width'),PAD=10,CH=7.3,\n"
    "T=+svg.dataset.total,unit=svg.dataset.unit,fr=[].slice.call(document.querySelectorAll('g.f')),\n"
    "det=document.getElementById('details'),rst=document.getElementById('reset'),\n"
    "mat=document.getElementById('matched');\n"
    "function nm(g){var t=g.querySelector('title').textContent;return t.slice(0,t.lastIndexOf(' ('));}\n"
    "function fit(s,w){var n=Math.floor((w-6)/CH),c=Array.from(s);if(n<3)return '';\n"
    " return c.length<=n?s:c.slice(0,n-2).join('')+'..';}\n"
    "function put(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
    " r.setAttribute('x',x.toFixed(1));r.setAttribute('width',w.toFixed(1));\n"
    " t.setAttribute('x',(x+3).toFixed(1));t.textContent=fit(nm(g),w);}\n"
    "function zoom(z){var zx=+z.dataset.x,zv=+z.dataset.v,zd=+z.dataset.d,s=(W-2*PAD)/zv;\n"
    " fr.forEach(function(g){var x=+g.dataset.x,v=+g.dataset.v,d=+g.dataset.d;\n"
    "  if(d>=zd&&x>=zx&&x+v<=zx+zv){g.style.display='';g.classList.remove('up');put(g,PAD+(x-zx)*s,v*s);}\n"
    "  else if(d<zd&&x<=zx&&x+v>=zx+zv){g.style.display='';g.classList.add('up');put(g,PAD,W-2*PAD);}\n"
    "  else g.style.display='none';});\n"
    " rst.style.display=zd?'':'none';if(zd)svg.setAttribute('data-zoom',z.id);\n"
    " else svg.removeAttribute('data-zoom');}\n"
    "function search(re){var r;try{r=new RegExp(re);}catch(e){return;}var iv=[];\n"
    " fr.forEach(function(g){var m=re!==''&&r.test(nm(g));g.classList.toggle('match',m);\n"
    "  if(m)iv.push([+g.dataset.x,+g.dataset.v]);});\n"
    " iv.sort(function(a,b){return a[0]-b[0]||b[1]-a[1];});var sum=0,end=-1;\n"
    " iv.forEach(function(i){if(i[0]>=end){sum+=i[1];end=i[0]+i[1];}});\n"
    " mat.textContent=iv.length?'Matched: '+(100*sum/T).toFixed(2)+'% ('+sum+' '+unit+')':'';\n"
    " if(iv.length)svg.setAttribute('data-matched',sum);else svg.removeAttribute('data-matched');}\n"
    "fr.forEach(function(g){g.addEventListener('click',function(){zoom(g);});\n"
    " g.addEventListener('mouseover',function(){det.textContent=g.querySelector('title').textContent;});\n"
    " g.addEventListener('mouseout',function(){det.textContent=' ';});});\n"
    "rst.addEventListener('click',function(){zoom(fr[0]);});\n"
    "document.getElementById('search').addEventListener('click',function(){\n"
    " var re=prompt('Search frames (regular expression):','');if(re!==null)search(re);});\n"
    "location.hash.slice(1).split('&').forEach(function(kv){var i=kv.indexOf('=');if(i<0)return;\n"
    " var k=kv.slice(0,i),v=decodeURIComponent(kv.slice(i+1));\n"
    " if(k==='click'){var g=document.getElementById(v);\n"
    "  if(g)g.dispatchEvent(new MouseEvent('click',{bubbles:true}));}\n"
    " else if(k==='search')search(v);\n"
    " else if(k==='reset')rst.dispatchEvent(new MouseEvent('click',{bubbles:true}));});\n";

static void append_head(GString *out, const char *title, const char *unit, uint64_t total,
                        int height)
{
    g_string_append_printf(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
        "viewBox=\"0 0 %d %d\" data-total=\"%" PRIu64 "\" data-unit=\"",
        HF_FLAME_WIDTH, height, HF_FLAME_WIDTH, height, total);
    hf_xml_escape(out, unit);
    g_string_append_printf(
        out,
        "\">\n<style>\ntext{font-family:monospace;font-size:%dpx;fill:#000}\n"
        "g.f text{pointer-events:none}\ng.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}\n"
        "g.f.up rect{opacity:0.5}\ng.f.match rect{fill:rgb(230,0,230)}\n"
        ".btn{cursor:pointer;fill:#00f}\n#title{font-size:16px;text-anchor:middle}\n</style>\n"
        "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n"
        "<text id=\"title\" x=\"%d\" y=\"20\">",
        FONT, HF_FLAME_WIDTH, height, HF_FLAME_WIDTH / 2);
    hf_xml_escape(out, title);
    g_string_append_printf(
        out,
        "</text>\n<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"20\" style=\"display:none\">"
        "Reset Zoom</text>\n"
        "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"20\" text-anchor=\"end\">Search</text>\n"
        "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
        "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
        PAD, HF_FLAME_WIDTH - PAD, PAD, height - 8, HF_FLAME_WIDTH - PAD, height - 8);
}

static void render(how *h, GString *out)
{
    tree t = {0};
    build(&t, h);
    GArray *frames = place(&t);
    uint32_t maxd = 0;
    for (guint i = 0; i < frames->len; i++) {
        const frame *f = &g_array_index(frames, frame, i);
        maxd = MAX(maxd, f->depth);
        if (f->depth && !f->merged)
            t.max_change = MAX(t.max_change, change_abs(f));
    }
    append_head(out, h->title, h->unit, t.total, TOP + (int)(maxd + 1) * FH + FOOT);
    if (t.total == 0) {
        g_string_append_printf(out, "<text x=\"%d\" y=\"%d\">no samples</text>\n", PAD, TOP + FONT);
        g_array_set_size(frames, 0);
    }
    g_string_append(out, "<g id=\"frames\">\n");
    for (guint i = 0; i < frames->len; i++)
        append_frame(out, &t, h, &g_array_index(frames, frame, i), i, maxd);
    g_string_append(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    g_string_append(out, script);
    g_string_append(out, "]]></script>\n</svg>\n");
    g_array_free(frames, TRUE);
    tree_free(&t);
}

uint64_t hf_flame_render(const hf_pprof *p, hf_pprof_which which, const char *title,
                         const char *unit, uint64_t first, GString *out, size_t budget)
{
    if (first == 0)
        render(&(how){{{p, which, NULL}}, false, title, unit}, out);
    return HF_DONE;
}

void hf_flame_render_diff(const hf_pprof *now, const hf_pprof *before, hf_pprof_which which,
                          const char *title, const char *unit, GString *out)
{
    render(&(how){{{now, which, NULL}, {before, which, NULL}}, true, title, unit}, out);
}
