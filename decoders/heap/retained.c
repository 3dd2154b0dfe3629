/*
 * retained.c - see retained.h.  Computes a snapshot's graph: builds it from
 * the mapped dump (the reference walker of value.c, ids resolved through
 * graphids.h) and hands it to graph.c; retkeep.c decides when, and keeps
 * the result.
 */
#include "decoders/heap/retained.h"
#include "decoders/heap/retcompute.h"
#include "decoders/heap/fields.h"

#include "decoders/core/cancel.h"
#include "decoders/core/progress.h"
#include "decoders/core/search.h"
#include "decoders/core/workmem.h"
#include "decoders/heap/graphids.h"
#include "decoders/heap/graphrefs.h"

#include <malloc.h>
#include <string.h>
#include <sys/mman.h>


/* ---- the edges ---- */

typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    uint32_t n;
    hf_resolver res;
    hf_reftab refs;       /* references read without the walker */
    uint32_t *class_node; /* per class: its instances' edge to their class object
                             (n until resolved, or when not in the dump), HF_NONE */
    uint32_t *referent;   /* per class: ref slot to leave out, HF_NONE */
    uint8_t *threads;     /* per class: 1 when some instance has locals */
    uint32_t *roots;      /* root nodes, sorted, unique */
    size_t n_roots;
    uint64_t *locals;     /* thread node << 32 | local node, sorted, unique */
    size_t n_locals;
    uint64_t *size;       /* n + 1 shallow sizes filled by the second pass, or NULL */
} gctx;

/* Ids resolved at a time: their lookups' cache misses overlap. */
#define REF_BATCH 32

/* The references of one object on their way to emit: counted at once in
 * the first of two passes, else gathered and resolved by batches. */
typedef struct {
    const gctx *c;
    bool counting;
    uint32_t skip;
    hf_edge_emit emit;
    void *ectx;
    uint32_t n;
    uint64_t id[REF_BATCH];
} ref_ud;

static void ref_flush(ref_ud *r)
{
    const hf_resolver *res = &r->c->res;
    uint32_t root = r->c->n;
    if (r->counting) {
        for (uint32_t i = 0; i < r->n; i++)
            r->emit(r->ectx, root);
        r->n = 0;
        return;
    }
    for (uint32_t i = 0; i < r->n; i++)
        hf_resolve_prefetch(res, r->id[i]);
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t t = hf_resolve(res, r->id[i]);
        r->emit(r->ectx, t == HF_NONE ? root : t); /* an id not in the dump: to the root, harmless */
    }
    r->n = 0;
}

static void ref_add(ref_ud *r, uint64_t id)
{
    r->id[r->n++] = id;
    if (r->n == REF_BATCH)
        ref_flush(r);
}

static bool ref_cb(uint64_t target, uint32_t slot, void *ud)
{
    ref_ud *r = ud;
    if (slot != r->skip)
        ref_add(r, target);
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The locals hanging under thread node v: [*first, *end) of c->locals. */
static void locals_of(const gctx *c, uint32_t v, size_t *first, size_t *end)
{
    uint64_t key = (uint64_t)v << 32;
    *first = hf_lower_bound_u64(c->locals, c->n_locals, key);
    *end = hf_upper_bound_u64(c->locals, c->n_locals, key | UINT32_MAX);
}

static void source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    gctx *c = ud;
    if (v == c->n) { /* counted by ctx_resolve */
        for (size_t i = 0; i < c->n_roots && !counting; i++)
            emit(ectx, c->roots[i]);
        return;
    }
    hf_hobj ob;
    bool decoded = hf_heap_decode(c->h, c->sn, v, &ob);
    if (counting) /* the codec's id, which decoding read too (HPROF) */
        c->res.ids[v] = decoded && c->h->codec->fixed_be ? ob.id
                                                          : hf_heap_object_id(c->h, c->sn, v);
    if (!decoded)
        return;
    if (!counting && c->size)
        c->size[v] = hf_heap_shallow(c->h, c->sn, &ob);
    /* Counted before the class objects are resolved: one whose object is
     * not in the dump, or that is v itself, points at the root (harmless,
     * and no view shows it) */
    uint32_t cn = c->class_node[ob.cls];
    if (cn != HF_NONE)
        emit(ectx, cn == v ? c->n : cn);
    ref_ud r; /* id[] uninitialised: 256 bytes a node not cleared */
    r.c = c;
    r.counting = counting;
    r.skip = ob.kind == HF_K_INSTANCE ? c->referent[ob.cls] : HF_NONE;
    r.emit = emit;
    r.ectx = ectx;
    r.n = 0;
    if (hf_reftab_fast(&c->refs, &ob)) {
        uint64_t pos = 0;
        while ((r.n = hf_reftab_read(&c->refs, &ob, r.skip, &pos, r.id, REF_BATCH)))
            ref_flush(&r);
    } else {
        hf_heap_for_each_ref_of(c->h, c->sn, &ob, ref_cb, &r);
    }
    if (ob.kind == HF_K_CLASS) {
        const hf_hclass *self = hf_heap_described(c->sn, &ob);
        if (self && self->loader_id)
            ref_add(&r, self->loader_id);
    }
    ref_flush(&r);
    if (!counting && c->threads[ob.cls]) { /* counted by ctx_resolve */
        size_t a, b;
        locals_of(c, v, &a, &b);
        for (; a < b; a++)
            emit(ectx, (uint32_t)c->locals[a]);
    }
}

/* How strong a reference class c's instances hold their referent, or -1
 * when c is no java.lang.ref.Reference. */
static int reference_kind(const hf_hsnap *sn, const hf_hclass *c)
{
    static const struct { const char *name; hf_reach kind; } kinds[] = {
        {"java.lang.ref.SoftReference", HF_REACH_SOFT},
        {"java.lang.ref.FinalReference", HF_REACH_FINALIZER},
        {"java.lang.ref.WeakReference", HF_REACH_WEAK},
        {"java.lang.ref.PhantomReference", HF_REACH_PHANTOM},
    };
    for (guint steps = 0; c && steps <= HF_HCHAIN_MAX; steps++) {
        for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
            if (strcmp(c->name, kinds[i].name) == 0)
                return kinds[i].kind;
        c = c->super >= 0 ? hf_heap_class(sn, (uint64_t)c->super) : NULL;
    }
    return -1;
}

/* The reference slot of java.lang.ref.Reference.referent in c, HF_NONE. */
static uint32_t referent_slot(const hf_hsnap *sn, const hf_hclass *c)
{
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    uint32_t slot = HF_NONE;
    while (slot == HF_NONE && hf_hfields_next(&it)) {
        const hf_hclass *decl = hf_heap_class(sn, it.f->decl);
        if (it.f->type == HF_T_OBJECT && strcmp(it.f->name, "referent") == 0 && decl &&
            strcmp(decl->name, "java.lang.ref.Reference") == 0)
            slot = it.ref;
    }
    hf_hfields_end(&it);
    return slot;
}

static bool is_local_root(uint8_t kind)
{
    return kind == HF_ROOT_JAVA_FRAME || kind == HF_ROOT_JNI_LOCAL ||
           kind == HF_ROOT_NATIVE_STACK || kind == HF_ROOT_THREAD_BLOCK;
}

/* What the first pass over the references needs: the ids array it fills,
 * each class's referent slot.  False when the ids array cannot be had. */
static bool ctx_init(gctx *c, hf_heap *h, const hf_hsnap *sn)
{
    c->h = h;
    c->sn = sn;
    c->n = (uint32_t)sn->n_objects;
    if (!hf_resolver_alloc(&c->res, c->n) || !hf_reftab_init(&c->refs, h, sn))
        return false;
    guint nc = sn->classes->len;
    c->class_node = g_new(uint32_t, nc ? nc : 1);
    c->referent = g_new(uint32_t, nc ? nc : 1);
    c->threads = g_new0(uint8_t, nc ? nc : 1);
    for (guint k = 0; k < nc; k++) {
        const hf_hclass *cl = hf_heap_class(sn, k);
        c->class_node[k] = cl->id ? c->n : HF_NONE;
        int kind = reference_kind(sn, cl);
        c->referent[k] = kind > (int)h->base.reach ? referent_slot(sn, cl) : HF_NONE;
    }
    return true;
}

/* Before the references are stored (hf_csr_build_with): the ids are all
 * read (by the first of two passes, else here), so resolve the class
 * objects, the roots and the thread locals, and, after a first pass, add
 * the edges it could not count: the roots' (node n) and the locals under
 * each thread. */
static bool ctx_resolve(void *ud, uint32_t *deg)
{
    gctx *c = ud;
    const hf_hsnap *sn = c->sn;
    if (!deg) { /* one pass: the ids first (a read of each object's first bytes) */
        hf_work_phase("object ids");
        hf_objects_ids(c->h, sn, c->res.ids);
    }
    if (hf_cancelled() || !hf_resolver_index(&c->res))
        return false;
    for (guint k = 0; k < sn->classes->len; k++) {
        const hf_hclass *cl = hf_heap_class(sn, k);
        uint32_t node = cl->id ? hf_resolve(&c->res, cl->id) : HF_NONE;
        if (node != HF_NONE)
            c->class_node[k] = node;
    }
    /* thread serial -> thread node, from the THREAD OBJECT roots */
    GHashTable *thread_node = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < sn->roots->len; i++) {
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i);
        uint32_t node = hf_resolve(&c->res, r->id);
        if (r->kind == HF_ROOT_THREAD_OBJECT && r->thread && node != HF_NONE)
            g_hash_table_insert(thread_node, GUINT_TO_POINTER(r->thread),
                                GUINT_TO_POINTER(node + 1));
    }
    c->roots = g_new(uint32_t, sn->roots->len + 1);
    c->locals = g_new(uint64_t, sn->roots->len + 1);
    for (guint i = 0; i < sn->roots->len; i++) {
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i);
        uint32_t node = hf_resolve(&c->res, r->id);
        if (node == HF_NONE)
            continue;
        guint t = is_local_root(r->kind) && r->thread
                      ? GPOINTER_TO_UINT(g_hash_table_lookup(thread_node,
                                                             GUINT_TO_POINTER(r->thread)))
                      : 0;
        if (t && t - 1 != node)
            c->locals[c->n_locals++] = (uint64_t)(t - 1) << 32 | node;
        else
            c->roots[c->n_roots++] = node;
    }
    g_hash_table_destroy(thread_node);
    qsort(c->roots, c->n_roots, sizeof *c->roots, cmp_u32);
    qsort(c->locals, c->n_locals, sizeof *c->locals, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < c->n_roots; i++)
        if (!k || c->roots[k - 1] != c->roots[i])
            c->roots[k++] = c->roots[i];
    c->n_roots = k;
    k = 0;
    for (size_t i = 0; i < c->n_locals; i++)
        if (!k || c->locals[k - 1] != c->locals[i])
            c->locals[k++] = c->locals[i];
    c->n_locals = k;
    /* The shallow sizes now when their array would be a file anyway:
     * written in order and left to the page cache, that is one pass over
     * the dump less (in RAM, they wait: the peak is lower without them) */
    size_t len = sizeof(uint64_t) * ((size_t)c->n + 1);
    if (!hf_work_in_ram(len) && (c->size = hf_work_alloc_seq(len)) && !hf_work_is_file(c->size))
        memset(c->size, 0, len); /* in order, so not the forest's reserved RAM: the same size */
    if (deg)
        deg[c->n] = (uint32_t)c->n_roots;
    for (size_t i = 0; i < c->n_locals; i++) {
        c->threads[hf_heap_cls(sn, c->locals[i] >> 32)] = 1;
        if (deg && ++deg[c->locals[i] >> 32] == 0)
            return false; /* 2^32 edges from one node */
    }
    return true;
}

static void ctx_free(gctx *c)
{
    hf_resolver_free(&c->res);
    hf_reftab_free(&c->refs);
    g_free(c->class_node);
    g_free(c->referent);
    g_free(c->threads);
    g_free(c->roots);
    g_free(c->locals);
}

/* ---- retained bytes per class, each instance counted once: a walk of the
 * dominator tree that adds an instance only when no instance of its class
 * is above it ---- */

/* A node of the walk and the place in kids->dst of its next child. */
typedef struct {
    uint32_t v, next;
} walk_step;

static bool class_retained(const gctx *c, hf_hgraph *g, const hf_csr *kids,
                           const uint64_t *size)
{
    guint nc = c->sn->classes->len;
    g->class_retained = g_new0(uint64_t, nc ? nc : 1);
    uint32_t *above = g_new0(uint32_t, nc ? nc : 1); /* instances on the path */
    /* as deep as the tree at most; used as a stack, so in order (a file's
     * pages are touched only as deep as the tree goes) */
    walk_step *stack = hf_work_alloc_seq(sizeof(walk_step) * ((size_t)c->n + 1));
    size_t top = 0;
    bool ok = stack != NULL;
    if (ok)
        stack[top++] = (walk_step){c->n, kids->off[c->n]};
    for (uint64_t step = 1; ok && top && !hf_cancel_due(step); step++) {
        walk_step *s = &stack[top - 1];
        if (s->next < kids->off[s->v + 1]) {
            uint32_t w = kids->dst[s->next++];
            uint32_t k = hf_heap_cls(c->sn, w);
            if (!above[k]++)
                g->class_retained[k] += size[w];
            stack[top++] = (walk_step){w, kids->off[w]};
        } else {
            top--;
            if (s->v != c->n)
                above[hf_heap_cls(c->sn, s->v)]--;
        }
    }
    g_free(above);
    hf_work_free(stack);
    return ok;
}

/* ---- the computation ---- */

/* ---- phases beside each other, on two threads when it pays (workmem.h,
 * hf_work_beside_pays): the BFS and the transpose both only read succ; the
 * shallow sizes need nothing of the graph, so they go beside the dominator
 * pass.  Each writes arrays of its own: the results are the same. ---- */

typedef struct {
    const hf_csr *succ;
    hf_csr *pred;
} transpose_job;

static bool transpose_run(void *arg)
{
    transpose_job *j = arg;
    return hf_csr_transpose(j->succ, j->pred);
}

/* The dominators on a helper, from the predecessors this thread makes
 * meanwhile (hf_dom_compute_pred): the helper's DFS takes about as long
 * as this thread's BFS and transpose, so it seldom waits long.  pred is
 * handed over once, under lock: done set, with ok whether the transpose
 * made it.  succ is read by the helper's DFS and this thread's BFS and
 * transpose: each thread says once when it is done with it (dfs_done,
 * own_done), and the last frees it, so that neither the semidominators
 * nor the shallow sizes beside them hold it. */
typedef struct {
    hf_csr *succ;
    const hf_csr *pred;
    uint32_t *idom, *order, reached;
    GMutex lock;
    GCond cond; /* done, or succ freed */
    bool done, ok, dfs_done, own_done;
} dom_job;

static void dom_succ_done(dom_job *j, bool *mine)
{
    g_mutex_lock(&j->lock);
    bool was = *mine;
    *mine = true;
    bool last = !was && j->dfs_done && j->own_done;
    if (last) {
        hf_csr_free(j->succ);
        g_cond_broadcast(&j->cond);
    }
    g_mutex_unlock(&j->lock);
}

/* Until succ is freed: only with the helper on a thread of its own (else
 * it runs only once this thread asks for its result). */
static void dom_succ_gone(dom_job *j)
{
    g_mutex_lock(&j->lock);
    while (!j->dfs_done || !j->own_done)
        g_cond_wait(&j->cond, &j->lock);
    g_mutex_unlock(&j->lock);
}

static const hf_csr *dom_pred_wait(void *ud)
{
    dom_job *j = ud;
    dom_succ_done(j, &j->dfs_done); /* called once the DFS is done with it */
    hf_work_phase("wait for predecessors");
    g_mutex_lock(&j->lock);
    while (!j->done)
        g_cond_wait(&j->cond, &j->lock);
    bool ok = j->ok;
    g_mutex_unlock(&j->lock);
    return ok ? j->pred : NULL;
}

static void dom_pred_ready(dom_job *j, bool ok)
{
    g_mutex_lock(&j->lock);
    j->done = true;
    j->ok = ok;
    g_cond_broadcast(&j->cond);
    g_mutex_unlock(&j->lock);
}

static bool dom_run(void *arg)
{
    dom_job *j = arg;
    bool ok = hf_dom_compute_pred(j->succ, NULL, dom_pred_wait, j, j->idom, j->order,
                                  &j->reached);
    dom_succ_done(j, &j->dfs_done); /* a DFS given up never waited */
    return ok;
}

typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    bool succ_freed; /* hf_work_watch_free */
    uint64_t *size;  /* out */
} shallow_beside;

/* shallow_sizes on the helper alone, once the dominator DFS has freed
 * succ: the peak, in the DFS, does not hold the sizes too. */
static bool shallow_run(void *arg)
{
    shallow_beside *j = arg;
    hf_work_await_free(&j->succ_freed);
    hf_work_phase("shallow sizes");
    j->size = hf_objects_shallow(j->h, j->sn, false);
    return j->size && !hf_cancelled();
}

/* The retained sizes as kept: 6 bytes each (graph.h hf_size48), written
 * in order. */
static hf_size48 *size48(const uint64_t *size, size_t len)
{
    hf_work_phase("retained in 6 bytes");
    hf_size48 *r = hf_work_alloc_seq(len * sizeof *r);
    for (size_t v = 0; r && v < len; v++)
        hf_size48_set(r, v, size[v]);
    return r;
}

/* After the dominators: retained sizes, the dominator tree's children and
 * each class's retained bytes.  The children's grouping needs idom alone,
 * so it runs beside the retained sizes; the class walk needs the tree,
 * not its order, so it runs beside the sort, on the grouped children while
 * the sort orders a copy, and then packs the retained sizes into the 6
 * bytes each that are kept (the sort reads the 8-byte ones).  In files
 * (or on one processor) one after the other, the retained sizes first:
 * each of these phases' arrays written at random asks in turn for the
 * RAM the dominators gave back. */
typedef struct {
    hf_hgraph *g;
    const uint32_t *order;
    uint32_t reached;
    uint64_t *size; /* the shallow sizes, then the retained sizes */
} retained_job;

static bool retained_run(void *arg)
{
    retained_job *j = arg;
    hf_dom_retained(j->g->n, j->g->idom, j->order, j->reached, j->size, j->size);
    return !hf_cancelled();
}

typedef struct {
    const gctx *c;
    hf_hgraph *g;
    const hf_csr *kids;
    const uint64_t *size;
} class_job;

static bool class_run(void *arg)
{
    class_job *j = arg;
    hf_work_phase("class retained");
    return class_retained(j->c, j->g, j->kids, j->size) &&
           (j->g->retained = size48(j->size, (size_t)j->g->n + 1)) && !hf_cancelled();
}

static bool tree_tail(const gctx *c, hf_hgraph *g, uint32_t **order, uint32_t reached,
                      hf_csr *kids, uint64_t *size)
{
    uint32_t n = g->n;
    retained_job rj = {g, *order, reached, size};
    class_job cj = {c, g, kids, size};
    if (!hf_work_beside_pays(n, sizeof(uint32_t) * ((size_t)n + 1))) {
        bool ok = retained_run(&rj);
        g_clear_pointer(order, hf_work_free); /* its room is the children's */
        ok = ok && hf_dom_group(n, g->idom, kids) && class_run(&cj) &&
             hf_dom_sort_kids(kids, size);
        if (ok)
            hf_dom_kids_keep(kids);
        return ok;
    }
    hf_beside *b = hf_work_beside_start(true, retained_run, &rj);
    bool ok = hf_dom_group(n, g->idom, kids);
    size_t bytes = sizeof(uint32_t) * MAX(hf_csr_edges(kids), 1);
    uint32_t *sorted = ok ? hf_work_alloc(bytes) : NULL;
    if (sorted)
        memcpy(sorted, kids->dst, bytes);
    hf_work_phase(NULL);
    ok = hf_work_beside_end(b, ok) && sorted;
    g_clear_pointer(order, hf_work_free);
    b = ok ? hf_work_beside_start(true, class_run, &cj) : NULL;
    ok = ok && hf_dom_sort_kids(&(hf_csr){n, kids->off, sorted}, size);
    hf_work_phase(NULL);
    ok = (!b || hf_work_beside_end(b, ok)) && ok;
    if (sorted) {
        hf_work_free(kids->dst);
        kids->dst = sorted;
    }
    return ok;
}

static hf_hgraph *compute_in(hf_heap *h, uint32_t s);
/* Advice on the dump's mapping: three passes read every object in dump
 * order (the ids, the references, the shallow sizes), and need the read-ahead the views' MADV_RANDOM turns off; on a
 * dump larger than the page cache each of their page faults otherwise
 * reads 4 KiB (35 MB/s here, against 0.5-1 GB/s). */
static void dump_advice(const hf_heap *h, int advice)
{
    uintptr_t start = (uintptr_t)h->base.data & ~(uintptr_t)4095;
    if (h->base.data && h->base.size)
        madvise((void *)start, h->base.size + ((uintptr_t)h->base.data - start), advice);
}

hf_hgraph *hf_hgraph_compute(hf_heap *h, uint32_t s, const char *dir)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    char *refused = hf_hgraph_refused(h, sn);
    if (refused) {
        hf_hgraph *g = g_new0(hf_hgraph, 1);
        g->error = refused;
        return g;
    }
    hf_work *w = hf_work_begin(&h->base.work, dir);
    hf_hgraph *g = compute_in(h, s);
    bool short_of_memory = hf_work_failures(w) > 0;
    GString *say = g_string_new(NULL);
    hf_work_end(w, say);
    if (g->error && !hf_cancelled()) { /* say which limit, and where memory was sought */
        char *e = g_strdup_printf("%s; %s", short_of_memory
                                                ? "out of memory (RAM or disk) for the working arrays"
                                                : "more than 2^32 references (a snapshot's limit)",
                                  say->str);
        g_free(g->error);
        g->error = e;
    }
    g->work = g_string_free(say, FALSE);
    return g;
}

/* The BFS and the transpose (beside each other when it pays), the packing
 * of the parents, then the dominators, which free succ after their DFS
 * (a lower peak), with the shallow sizes beside them when it pays.  The
 * dominators read pred by node, or renumber succ into lists read in order
 * when pred would not stay in memory (hf_dom_pred_by_node).
 * *order holds the BFS parents until they are packed, then the DFS order. */
static bool dominators_in_turn(hf_heap *h, const hf_hsnap *sn, hf_hgraph *g, hf_csr *succ,
                               uint32_t **order, uint32_t *reached, uint64_t **size)
{
    uint32_t n = g->n;
    size_t len = sizeof(uint32_t) * ((size_t)n + 1);
    bool ok;
    /* On one thread the BFS first, so that pred is not there to crowd
     * succ out of the page cache.  order and idom are asked for only when
     * needed: the first arrays asked for get the RAM (workmem.h).  The
     * DFS needs succ alone: from the packing of the parents to the DFS's
     * end pred is idle, its pages may go first (the dominators that read
     * it by node ask for them back then: hf_work_willneed). */
    bool two = hf_work_beside_pays(n, ((uint64_t)g->edges + 2 * (uint64_t)n + 3) * 4);
    transpose_job tj = {succ, &g->pred};
    ok = (*order = hf_work_alloc(len)) != NULL;
    if (ok) {
        hf_beside *tb = hf_work_beside_start(two, transpose_run, &tj);
        ok = hf_graph_bfs(succ, *order);
        ok = hf_work_beside_end(tb, ok) && ok;
    }
    ok = ok && hf_parents_pack(*order, &g->pred, &g->parent) &&
         (g->idom = hf_work_alloc(len));
    bool by_node = ok && hf_dom_pred_by_node(&g->pred);
    if (ok) {
        hf_work_cold(g->pred.off);
        hf_work_cold(g->pred.dst);
    }
    /* the shallow sizes beside the dominator pass, after its DFS */
    shallow_beside sj = {h, sn, false, NULL};
    hf_beside *sb = NULL;
    if (ok && !*size && hf_work_beside_pays(n, sizeof(uint64_t) * ((size_t)n + 1))) {
        dump_advice(h, MADV_SEQUENTIAL);
        hf_work_watch_free(succ->dst, &sj.succ_freed);
        sb = hf_work_beside_start(true, shallow_run, &sj);
    }
    if (by_node)
        ok = ok && hf_dom_compute_pred(succ, succ, hf_pred_given, &g->pred, g->idom, *order,
                                       reached);
    else
        ok = ok && hf_dom_compute_free_succ(succ, g->idom, *order, reached);
    hf_csr_free(succ); /* freed already: what wakes the helper, whatever happened */
    if (sb) {
        ok = hf_work_beside_end(sb, ok) && ok;
        *size = sj.size;
        dump_advice(h, MADV_RANDOM);
        dump_advice(h, MADV_COLD);
    }
    return ok;
}

/* The dominators on a helper thread (they need succ, and after their DFS
 * pred) while this one runs the BFS, transposes succ, packs the BFS
 * parents and, once succ is freed, reads the shallow sizes: 1.7 of the
 * dominators' 3.3 s on the 1 GB bench dump, hidden.  Needs more RAM than
 * dominators_in_turn (succ is kept until both threads are done with it,
 * and the BFS parents have an array of their own). */
static bool dominators_beside(hf_heap *h, const hf_hsnap *sn, hf_hgraph *g, hf_csr *succ,
                              uint32_t **order, uint32_t *reached, uint64_t **size)
{
    size_t len = sizeof(uint32_t) * ((size_t)g->n + 1);
    dom_job dj = {.succ = succ, .pred = &g->pred};
    dj.idom = g->idom = hf_work_alloc(len);
    dj.order = *order = hf_work_alloc(len);
    if (!dj.idom || !dj.order)
        return false;
    g_mutex_init(&dj.lock);
    g_cond_init(&dj.cond);
    hf_beside *db = hf_work_beside_start(true, dom_run, &dj);
    /* the BFS first: its queue is gone before the transpose makes pred */
    uint32_t *parent = hf_work_alloc(len);
    bool ok = parent && hf_graph_bfs(succ, parent) && hf_csr_transpose(succ, &g->pred);
    dom_succ_done(&dj, &dj.own_done);
    dom_pred_ready(&dj, ok); /* whatever happened: the helper may be waiting */
    ok = ok && hf_parents_pack(parent, &g->pred, &g->parent);
    hf_work_free(parent);
    if (ok) {
        hf_work_cold(g->pred.off);
        hf_work_cold(g->pred.dst);
        hf_work_phase(NULL);
        if (hf_work_beside_threaded(db))
            dom_succ_gone(&dj);
        dump_advice(h, MADV_SEQUENTIAL);
        hf_work_phase("shallow sizes");
        ok = (*size = hf_objects_shallow(h, sn, true)) != NULL;
        dump_advice(h, MADV_RANDOM);
        dump_advice(h, MADV_COLD);
    }
    hf_work_phase(NULL); /* this thread waits: the slices name the helper's phases alone */
    ok = hf_work_beside_end(db, ok) && ok;
    *reached = dj.reached;
    g_cond_clear(&dj.cond);
    g_mutex_clear(&dj.lock);
    return ok;
}

static hf_hgraph *compute_in(hf_heap *h, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hgraph *g = g_new0(hf_hgraph, 1);
    double t0 = g_get_monotonic_time() / 1e6;
    uint32_t n = (uint32_t)sn->n_objects;
    g->n = n;
    uint32_t *order = NULL; /* the DFS order (dominators_in_turn: the BFS parents first) */
    gctx c = {0};
    hf_csr succ = {0}, kids = {0};
    uint64_t *size = NULL; /* shallow sizes, then retained, until kept in 6 bytes */
    uint32_t reached = 0;
    bool ok = true;
    char *what = g_strdup_printf("snapshot %u", s + 1);
    hf_progress *pr = hf_progress_new(what, 0); /* on a terminal only */
    g_free(what);
    /* The link-eval forest, asked for after the DFS but read and written
     * at random by it and by path compression, gets its RAM before any
     * other array: in a file its pages are read and written back again
     * and again (120 GB on the 600 M dump), while the arrays of the passes
     * over the dump, the transpose and the sorts are written in order. */
    hf_work_reserve(hf_dom_forest_bytes(n), "link-eval forest");
    if (ok) {
        hf_progress_phase(pr, "reading ids and references");
        dump_advice(h, MADV_SEQUENTIAL); /* the ids, then the references */
        ok = ctx_init(&c, h, sn);
        ok = ok && !hf_cancelled() && hf_csr_build_with(&succ, n, source, ctx_resolve, &c);
        dump_advice(h, MADV_RANDOM);
        dump_advice(h, MADV_COLD); /* its pages go before the working arrays' */
        size = c.size;
        hf_work_cold(size);
        ctx_free(&c);
    }
    if (ok) {
        hf_progress_phase(pr, "dominators");
        g->edges = hf_csr_edges(&succ);
        /* beside each other when the RAM is there: the renumbered
         * predecessors, the dominators' temporaries, the BFS parents and
         * queue and the shallow sizes at once */
        uint64_t all = ((uint64_t)g->edges * 2 + 34 * (uint64_t)n + 8) * 4;
        if (!size && hf_work_beside_pays(n, all))
            ok = dominators_beside(h, sn, g, &succ, &order, &reached, &size);
        else
            ok = dominators_in_turn(h, sn, g, &succ, &order, &reached, &size);
    }
    hf_csr_free(&succ);
    /* shallow sizes only now, not while reading the references: 8 bytes per
     * object less at the peak (the dominator DFS), for one more pass */
    if (ok && !size) {
        hf_progress_phase(pr, "retained sizes");
        dump_advice(h, MADV_SEQUENTIAL);
        hf_work_phase("shallow sizes");
        ok = (size = hf_objects_shallow(h, sn, true)) != NULL;
        dump_advice(h, MADV_RANDOM);
        dump_advice(h, MADV_COLD);
    }
    if (ok) {
        for (uint32_t v = 0; v < n; v++)
            if (g->idom[v] == HF_NONE) {
                g->unreachable++;
                g->unreachable_bytes += size[v];
            }
        c.sn = sn;
        c.n = n;
        ok = tree_tail(&c, g, &order, reached, &kids, size);
    }
    hf_work_free(order);
    hf_work_free(size);
    if (!ok) {
        hf_csr_free(&kids);
        g_clear_pointer(&g->class_retained, g_free);
        hf_csr_free(&g->pred);
        g_clear_pointer(&g->retained, hf_work_free);
        g_clear_pointer(&g->idom, hf_work_free);
        hf_parents_free(&g->parent);
        /* never kept: hf_heap_graph writes no file of a graph in error */
        g->error = g_strdup(hf_cancelled() ? "cancelled: the mount is going away"
                                           : "out of memory, or more than 2^32 references");
        hf_progress_end(pr, "no retained sizes: %s", g->error);
        return g;
    }
    /* idom got RAM early (beside the forest's reservation): kept past a
     * budget, it goes to a file as the children and retained sizes do */
    g->idom = hf_work_keep(g->idom, sizeof(uint32_t) * ((size_t)n + 1));
    /* the children are kept without their offsets (hf_hgraph_kids) */
    g->n_kids = hf_csr_edges(&kids);
    g->kids = kids.dst;
    hf_work_free(kids.off);
    g->reachable = reached;
    g->bytes = (uint64_t)(n + 2) * 4 * 2 + (uint64_t)(n + 1) * (6 + 1) + g->parent.n_far * 8ull +
               hf_csr_edges(&g->pred) * 4ull + g->n_kids * 4ull +
               sn->classes->len * 8ull;
    g->seconds = g_get_monotonic_time() / 1e6 - t0;
#ifdef __GLIBC__
    /* What the computation's threads freed stays in malloc's heaps (one
     * per thread) between what they keep: 20-40 MB on the bench dump,
     * held for the life of the mount. */
    malloc_trim(0);
#endif
    hf_progress_end(pr, "retained sizes of %u objects in %.2f s, %.0f MiB", n, g->seconds,
                    g->bytes / 1048576.0);
    return g;
}
