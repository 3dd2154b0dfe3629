/*
 * graph_bench - times decoders/heap/graph.c on a generated heap graph.
 *
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -g -I. $(pkg-config --cflags glib-2.0) \
 *       -o graph_bench bench/graph_bench.c decoders/heap/graph.c \
 *       $(pkg-config --libs glib-2.0) -lm
 *   ./graph_bench [random|makeheap] [objects] [runs] [far%]
 *
 * random (default, 20,000,000 objects): a heavy-tailed out-degree (a third
 * of the objects are leaves, a few are big arrays), about 2.5 references
 * per object.  Most references point a little further along (objects
 * allocated together refer to each other), far% (default 35) anywhere at
 * all, 10% at a few thousand popular objects; 4000 GC roots; one chain of
 * a million objects in the middle.  The uniform references are what make
 * it hard: each is a cache miss that nothing can predict.
 *
 * makeheap (default 19,600,000): the heap bench/MakeHeap.java builds for
 * bench/bench.sh (19.5 M objects, ~1.2 references each: 12 M Nodes in
 * chains of 1000 with a String payload on every 4th, 3 M Strings and their
 * byte[], 1 M int[8], 500 K Object[4] pointing anywhere, 100 blobs), plus
 * ~100 K JDK objects under 4000 roots, numbered in allocation order.  That
 * numbering is an assumption: a real dump lists objects by address, which
 * a copying GC keeps close to, but not exactly, that order.
 *
 * Edges come from a hash of the node, so the builder's two passes see the
 * same graph, as they would reading a dump twice; the generator's own
 * share of "build" is timed apart.  Prints the median of the runs per
 * phase, and memory: VmHWM (peak RSS) over the whole program, and per
 * phase when the kernel lets us reset it (/proc/self/clear_refs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "decoders/heap/graph.h"

enum { ROOTS = 4000, CHAIN = 1000000, NEAR = 32, POPULAR_EVERY = 1000 };

/* MakeHeap.java's counts at scale 1, and where each kind starts. */
enum { MH_STRINGS = 3000000, MH_NODES = 12000000, MH_CHAIN = 1000, MH_INTS = 1000000,
       MH_OBJS = 500000, MH_BLOBS = 100 };

typedef struct {
    uint32_t n;
    bool makeheap;
    uint32_t far_pct;           /* random: share of uniform references */
    uint32_t chain_at;          /* random: first node of the long chain */
    /* makeheap: [0, jdk) JDK objects, then each array followed by what
     * it holds; a String is its byte[]'s successor */
    uint32_t jdk, str_arr, chains_arr, node0, ints_arr, objs_arr, blobs_arr;
} shape;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t below(uint64_t *st, uint32_t n)
{
    *st = mix(*st);
    return (uint32_t)(((*st >> 32) * n) >> 32);
}

static uint32_t out_degree(uint64_t *st)
{
    uint32_t r = below(st, 1000);
    if (r < 340) return 0;
    if (r < 600) return 1;
    if (r < 760) return 2;
    if (r < 860) return 3;
    if (r < 960) return 4 + below(st, 5);
    /* arrays: Pareto, alpha 1.4, from 8 up to 100000 */
    double u = (below(st, 1u << 30) + 1.0) / (1u << 30);
    double d = 8.0 / pow(u, 1 / 1.4);
    return d > 100000 ? 100000 : (uint32_t)d;
}

static void random_edges(const shape *s, uint32_t v, hf_edge_emit emit, void *ectx)
{
    uint64_t st = mix(v);
    if (v == s->n) {
        emit(ectx, s->chain_at);
        for (uint32_t k = 1; k < ROOTS; k++)
            emit(ectx, below(&st, s->n));
        return;
    }
    if (v >= s->chain_at && v < s->chain_at + CHAIN) {
        if (v + 1 < s->chain_at + CHAIN)
            emit(ectx, v + 1);
        return;
    }
    for (uint32_t k = out_degree(&st); k > 0; k--) {
        uint32_t r = below(&st, 100), w;
        if (r < 90 - s->far_pct)
            w = v + 1 + below(&st, NEAR);
        else if (r < 90)
            w = below(&st, s->n);
        else
            w = below(&st, s->n / POPULAR_EVERY) * POPULAR_EVERY;
        emit(ectx, w < s->n ? w : w - s->n);
    }
}

static void makeheap_layout(shape *s)
{
    uint32_t app = 2 * MH_STRINGS + MH_NODES + MH_INTS + MH_OBJS + MH_BLOBS + 5;
    s->jdk = s->n - app;
    s->str_arr = s->jdk;
    s->chains_arr = s->str_arr + 1 + 2 * MH_STRINGS;
    s->node0 = s->chains_arr + 1;
    s->ints_arr = s->node0 + MH_NODES;
    s->objs_arr = s->ints_arr + 1 + MH_INTS;
    s->blobs_arr = s->objs_arr + 1 + MH_OBJS;
}

static uint32_t mh_string(const shape *s, uint64_t *st)
{
    return s->str_arr + 2 + 2 * below(st, MH_STRINGS);
}

static uint32_t mh_chain_head(const shape *s, uint32_t c)
{
    return s->node0 + c * MH_CHAIN + MH_CHAIN - 1;
}

static void makeheap_edges(const shape *s, uint32_t v, hf_edge_emit emit, void *ectx)
{
    uint64_t st = mix(v);
    if (v == s->n) {
        uint32_t arrays[] = {s->str_arr, s->chains_arr, s->ints_arr, s->objs_arr, s->blobs_arr};
        for (size_t k = 0; k < G_N_ELEMENTS(arrays); k++)
            emit(ectx, arrays[k]);
        for (uint32_t k = 0; k < ROOTS; k++)
            emit(ectx, below(&st, s->jdk));
    } else if (v < s->jdk) {
        for (uint32_t k = below(&st, 5); k > 0; k--) /* JDK internals: 2 each */
            emit(ectx, k == 1 ? below(&st, s->jdk) : (v + 1 + below(&st, NEAR)) % s->jdk);
    } else if (v == s->str_arr) {
        for (uint32_t i = 0; i < MH_STRINGS; i++)
            emit(ectx, v + 2 + 2 * i);
    } else if (v < s->chains_arr) {
        if ((v - s->str_arr) % 2 == 0) /* a String: its byte[] came just before */
            emit(ectx, v - 1);
    } else if (v == s->chains_arr) {
        for (uint32_t c = 0; c < MH_NODES / MH_CHAIN; c++)
            emit(ectx, mh_chain_head(s, c));
    } else if (v < s->ints_arr) {
        uint32_t i = v - s->node0; /* node i links to i-1 of its chain */
        if (i % MH_CHAIN)
            emit(ectx, v - 1);
        if (i % 4 == 0)
            emit(ectx, mh_string(s, &st));
    } else if (v == s->ints_arr || v == s->objs_arr || v == s->blobs_arr) {
        uint32_t count = v == s->ints_arr ? MH_INTS : v == s->objs_arr ? MH_OBJS : MH_BLOBS;
        for (uint32_t i = 1; i <= count; i++)
            emit(ectx, v + i);
    } else if (v > s->objs_arr && v < s->blobs_arr) {
        emit(ectx, mh_string(s, &st));
        emit(ectx, mh_chain_head(s, below(&st, MH_NODES / MH_CHAIN)));
        emit(ectx, s->ints_arr + 1 + below(&st, MH_INTS));
    }
}

static void heap_edges(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    const shape *s = ud;
    if (s->makeheap)
        makeheap_edges(s, v, emit, ectx);
    else
        random_edges(s, v, emit, ectx);
}

/* ---- measuring ---- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A field of /proc/self/status, in bytes. */
static uint64_t status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, len) && line[len] == ':')
            kb = strtoull(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb * 1024;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0); false if not allowed. */
static bool reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

enum { P_BUILD, P_BFS, P_DOM, P_RETAINED, P_CHILDREN, P_COUNT };
static const char *const phase_name[P_COUNT] = {
    "build+transpose", "bfs", "dominators", "retained", "children",
};

typedef struct {
    double secs[P_COUNT];
    uint64_t peak[P_COUNT]; /* VmHWM during the phase, bytes */
    uint32_t reached;
    uint64_t edges, kept, total;
} run_stats;

static bool can_reset;

static void phase_start(double *t0)
{
    if (can_reset)
        reset_peak();
    *t0 = now();
}

static void phase_end(run_stats *r, int p, double t0)
{
    r->secs[p] = now() - t0;
    r->peak[p] = status_kb("VmHWM");
}

/* One full computation, as graph.h suggests: BFS while succ is there,
 * then the dominators, which free succ once their DFS is done. */
static void one_run(const shape *s, run_stats *r)
{
    uint32_t n = s->n;
    hf_csr succ, pred, kids;
    double t0;

    phase_start(&t0);
    if (!hf_csr_build(&succ, n, heap_edges, (void *)s) || !hf_csr_transpose(&succ, &pred))
        g_error("build failed");
    phase_end(r, P_BUILD, t0);
    r->edges = hf_csr_edges(&succ);

    uint32_t *parent = g_new(uint32_t, n + 1);
    phase_start(&t0);
    if (!hf_graph_bfs(&succ, parent))
        g_error("bfs failed");
    phase_end(r, P_BFS, t0);

    uint32_t *idom = g_new(uint32_t, n + 1), *order = g_new(uint32_t, n);
    phase_start(&t0);
    if (!hf_dom_compute_free_succ(&succ, idom, order, &r->reached))
        g_error("dominators failed");
    phase_end(r, P_DOM, t0);

    /* shallow sizes straight into retained, as heapfs would */
    uint64_t *retained = g_new(uint64_t, n + 1);
    for (uint32_t v = 0; v < n; v++)
        retained[v] = 16 + (mix(v) & 7) * 8;
    phase_start(&t0);
    hf_dom_retained(n, idom, order, r->reached, retained, retained);
    phase_end(r, P_RETAINED, t0);
    g_free(order);
    r->total = retained[n];

    phase_start(&t0);
    if (!hf_dom_children(n, idom, retained, &kids))
        g_error("children failed");
    phase_end(r, P_CHILDREN, t0);

    r->kept = (uint64_t)4 * (n + 2) + 4ull * hf_csr_edges(&pred)   /* pred */
              + 4ull * (n + 1) + 8ull * (n + 1) + 4ull * (n + 1)     /* idom, retained, parent */
              + 4ull * (n + 2) + 4ull * hf_csr_edges(&kids);          /* children */
    hf_csr_free(&pred);
    hf_csr_free(&kids);
    g_free(idom);
    g_free(parent);
    g_free(retained);
}

static void count_edge(void *ectx, uint32_t dst)
{
    *(uint64_t *)ectx += dst != HF_NONE;
}

/* What the two passes of hf_csr_build cost in the generator alone: the
 * part of "build" a real dump would replace with its own reading. */
static double source_alone(const shape *s)
{
    uint64_t edges = 0;
    double t0 = now();
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t v = 0; v <= s->n; v++)
            heap_edges((void *)s, v, true, count_edge, &edges);
    return now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k)
{
    qsort(v, k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

int main(int argc, char **argv)
{
    shape s = {.makeheap = argc > 1 && !strcmp(argv[1], "makeheap")};
    bool named = argc > 1 && (s.makeheap || !strcmp(argv[1], "random"));
    argv += named;
    argc -= named;
    s.n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : s.makeheap ? 19600000 : 20000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    s.far_pct = argc > 3 ? (uint32_t)atoi(argv[3]) : 35;
    uint32_t least = s.makeheap ? 19500105 : 2 * CHAIN;
    if (s.n < least || s.n > UINT32_MAX - 2 || runs < 1 || runs > 99 || s.far_pct > 90) {
        fprintf(stderr, "usage: graph_bench [random|makeheap] [objects >= %u] [runs 1..99] [far%% 0..90]\n",
                least);
        return 2;
    }
    if (s.makeheap)
        makeheap_layout(&s);
    s.chain_at = s.n / 2;
    uint32_t n = s.n;
    uint64_t base = status_kb("VmRSS"), hwm0 = status_kb("VmHWM");
    can_reset = reset_peak();
    run_stats r[99];
    for (int k = 0; k < runs; k++)
        one_run(&s, &r[k]);

    printf("%s graph: ", s.makeheap ? "makeheap" : "random");
    if (!s.makeheap)
        printf("far %u%%, ", s.far_pct);
    printf("objects %u, edges %lu (%.2f per object), reachable %u, reachable bytes %lu\n", n,
           (unsigned long)r[0].edges, (double)r[0].edges / n, r[0].reached, (unsigned long)r[0].total);
    printf("median of %d runs:\n", runs);
    double sum = 0;
    for (int p = 0; p < P_COUNT; p++) {
        double t[99];
        uint64_t peak = 0;
        for (int k = 0; k < runs; k++) {
            t[k] = r[k].secs[p];
            peak = r[k].peak[p] > peak ? r[k].peak[p] : peak;
        }
        double m = median(t, runs);
        sum += m;
        printf("  %-16s %6.3f s", phase_name[p], m);
        if (can_reset)
            printf("   peak RSS %6.1f bytes/object", (double)(peak - base) / n);
        printf("\n");
    }
    printf("  %-16s %6.3f s\n", "total", sum);
    printf("  (of build, the generator's two passes alone: %.3f s)\n", source_alone(&s));
    uint64_t hwm = status_kb("VmHWM");
    if (can_reset) /* VmHWM was reset per phase: take the largest */
        for (int k = 0; k < runs; k++)
            for (int p = 0; p < P_COUNT; p++)
                hwm = r[k].peak[p] > hwm ? r[k].peak[p] : hwm;
    printf("VmHWM before %lu MB, after %lu MB: peak %.1f bytes/object above the start\n",
           (unsigned long)(hwm0 >> 20), (unsigned long)(hwm >> 20), (double)(hwm - base) / n);
    printf("kept (pred CSR, idom, retained, parent, children): %.1f bytes/object\n",
           (double)r[0].kept / n);
    return 0;
}
