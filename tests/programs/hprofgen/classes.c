/* classes.c - the class table: see hprofgen.h. */
#include <stdlib.h>
#include <string.h>

#include "hprofgen.h"

static const char *const words[] = {
    "owner", "count", "size", "next", "parent", "left", "right", "value", "key", "state",
    "flags", "created", "updated", "version", "limit", "offset", "buffer", "cache", "entry",
    "handler", "listener", "config", "name", "label", "index", "weight", "score", "total",
    "capacity", "modCount", "threshold", "hash", "target", "source", "session", "request",
    "response", "headers", "payload", "status", "retries", "timeout", "deadline", "lock",
    "queue", "pool", "executor", "metrics", "counter", "gauge", "timer", "span", "trace",
    "context", "scope", "region", "tenant", "account", "order", "item", "price", "amount",
    "currency", "locale",
};
static const char *const packages[] = {
    "com/example/shop/model", "com/example/shop/cache", "com/example/shop/web",
    "org/acme/billing", "org/acme/billing/internal", "io/netty/sample", "net/demo/graph",
    "org/sample/index",
};
static const char *const adjectives[] = {
    "Cached", "Pending", "Shared", "Local", "Remote", "Lazy", "Immutable", "Concurrent",
    "Default", "Abstract", "Simple", "Weighted", "Sorted", "Linked", "Indexed", "Buffered",
};
static const char *const nouns[] = {
    "Order", "Invoice", "Customer", "Session", "Token", "Entry", "Node", "Segment", "Record",
    "Event", "Handler", "Request", "Response", "Metric", "Span", "Bucket", "Account", "Item",
    "Payment", "Route",
};
_Static_assert(sizeof words / sizeof *words == N_WORDS, "N_WORDS counts words[]");

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

/* A STRING record to write; returns its id. */
static uint64_t str_add(gen *g, const char *text)
{
    if (g->nstr == g->capstr) {
        g->capstr = g->capstr ? 2 * g->capstr : 1024;
        g->stext = xrealloc(g->stext, g->capstr * sizeof *g->stext);
    }
    g->stext[g->nstr] = xstrdup(text);
    return SYM_BASE + 0x28 * (uint64_t)g->nstr++;
}

static uint32_t add_field(gen *g, bool is_static, uint64_t sid, const char *name, unsigned t)
{
    field **a = is_static ? &g->statics : &g->fields;
    uint32_t *n = is_static ? &g->nstatics : &g->nfields;
    uint32_t *cap = is_static ? &g->capstatics : &g->capfields;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *a = xrealloc(*a, *cap * sizeof **a);
    }
    (*a)[*n] = (field){sid, name, (uint8_t)t};
    return (*n)++;
}

/* A field named by a word (shared STRING ids, as HotSpot shares symbols). */
static void add_word_field(gen *g, bool is_static, unsigned w, unsigned t)
{
    add_field(g, is_static, g->word_sid[w], words[w], t);
}

static void add_named_field(gen *g, bool is_static, const char *name, unsigned t)
{
    uint64_t sid = str_add(g, name);
    add_field(g, is_static, sid, g->stext[g->nstr - 1], t);
}

static uint32_t add_class(gen *g, const char *name, const char *display, int super)
{
    g->k = xrealloc(g->k, (g->nk + 1) * sizeof *g->k);
    klass *c = &g->k[g->nk];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    c->display = xstrdup(display);
    c->sid = str_add(g, name);
    c->super = super;
    c->f0 = g->nfields;
    c->s0 = g->nstatics;
    return g->nk++;
}

/* Fields and statics of class ci were added since add_class: size it. */
static void close_class(gen *g, uint32_t ci)
{
    klass *c = &g->k[ci];
    c->nf = g->nfields - c->f0;
    c->ns = g->nstatics - c->s0;
    const klass *s = c->super >= 0 ? &g->k[c->super] : NULL;
    c->mem = s ? s->mem : 0;
    c->dump = s ? s->dump : 0;
    c->nrefs = s ? s->nrefs : 0;
    for (uint32_t i = 0; i < c->nf; i++) {
        unsigned t = g->fields[c->f0 + i].type;
        c->mem += mem_width(t);
        c->dump += dump_width(t);
        c->nrefs += t == T_OBJECT;
    }
    c->shallow = align8(12 + c->mem);
}

static char *display_of(const char *internal)
{
    char *d = xstrdup(internal);
    for (char *p = d; *p; p++)
        if (*p == '/')
            *p = '.';
    return d;
}

/* The class table: the JDK classes a dump always has, then the generated
 * ones (their shapes from their own stream, the same in both passes). */
void make_classes(gen *g)
{
    for (unsigned w = 0; w < N_WORDS; w++)
        g->word_sid[w] = str_add(g, words[w]);
    uint32_t c;
    add_class(g, "java/lang/Object", "java.lang.Object", -1);
    close_class(g, K_OBJECT);
    c = add_class(g, "java/lang/Class", "java.lang.Class", K_OBJECT);
    add_named_field(g, false, "cachedConstructor", T_OBJECT);
    add_named_field(g, false, "name", T_OBJECT);
    add_named_field(g, false, "module", T_OBJECT);
    add_named_field(g, false, "classLoader", T_OBJECT);
    add_named_field(g, false, "componentType", T_OBJECT);
    add_named_field(g, false, "reflectionData", T_OBJECT);
    add_named_field(g, false, "classRedefinedCount", T_INT);
    add_named_field(g, true, "serialVersionUID", T_LONG);
    close_class(g, c);
    c = add_class(g, "java/lang/String", "java.lang.String", K_OBJECT);
    add_named_field(g, false, "value", T_OBJECT);
    add_named_field(g, false, "hash", T_INT);
    add_named_field(g, false, "coder", T_BYTE);
    add_named_field(g, false, "hashIsZero", T_BOOLEAN);
    add_named_field(g, true, "serialVersionUID", T_LONG);
    add_named_field(g, true, "COMPACT_STRINGS", T_BOOLEAN);
    add_named_field(g, true, "LATIN1", T_BYTE);
    add_named_field(g, true, "UTF16", T_BYTE);
    close_class(g, c);
    c = add_class(g, "java/lang/Thread", "java.lang.Thread", K_OBJECT);
    add_named_field(g, false, "name", T_OBJECT);
    add_named_field(g, false, "tid", T_LONG);
    add_named_field(g, false, "priority", T_INT);
    add_named_field(g, false, "daemon", T_BOOLEAN);
    add_named_field(g, false, "threadStatus", T_INT);
    add_named_field(g, true, "threadInitNumber", T_INT);
    close_class(g, c);
    close_class(g, add_class(g, "[Ljava/lang/Object;", "java.lang.Object[]", K_OBJECT));
    close_class(g, add_class(g, "[Ljava/lang/String;", "java.lang.String[]", K_OBJECT));
    static const char *const prim[][2] = {{"[Z", "boolean[]"}, {"[C", "char[]"},
                                          {"[F", "float[]"}, {"[D", "double[]"},
                                          {"[B", "byte[]"}, {"[S", "short[]"},
                                          {"[I", "int[]"}, {"[J", "long[]"}};
    for (unsigned i = 0; i < 8; i++)
        close_class(g, add_class(g, prim[i][0], prim[i][1], K_OBJECT));
    c = add_class(g, "hprofgen/ChainNode", "hprofgen.ChainNode", K_OBJECT);
    add_named_field(g, false, "next", T_OBJECT);
    add_named_field(g, false, "index", T_INT);
    add_named_field(g, false, "payload", T_LONG);
    close_class(g, c);
    c = add_class(g, "hprofgen/Main", "hprofgen.Main", K_OBJECT);
    add_named_field(g, true, "chainHead", T_OBJECT);
    add_named_field(g, true, "bigBuffer", T_OBJECT);
    add_named_field(g, true, "objectCount", T_LONG);
    close_class(g, c);

    uint64_t rs = g->seed * UINT64_C(0x2545F4914F6CDD1D) + 4;
    for (uint32_t i = 0; i < g->n_gen; i++) {
        char name[160];
        uint64_t r = splitmix64(&rs);
        snprintf(name, sizeof name, "%s/%s%s%u%s", packages[r % 8], adjectives[(r >> 8) % 16],
                 nouns[(r >> 16) % 20], i, i % 5 == 4 ? "$Node" : "");
        int super = K_OBJECT;
        if (i > 0 && (r >> 24) % 3 == 0) {
            uint32_t s = K_GEN0 + (uint32_t)below(&rs, i);
            if (g->k[s].depth < 4)
                super = (int)s;
        }
        char *disp = display_of(name);
        c = add_class(g, name, disp, super);
        free(disp);
        klass *k = &g->k[c];
        k->depth = super == K_OBJECT ? 0 : g->k[super].depth + 1;
        k->word0 = super == K_OBJECT ? (uint32_t)below(&rs, N_WORDS) : g->k[super].word0;
        /* own fields: 0-6; names: the hierarchy's words in turn, so never repeated
         * along a chain (at most 5 x 6 fields < N_WORDS) */
        static const uint8_t nf_dist[20] = {0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6};
        static const uint8_t t_dist[20] = {T_OBJECT, T_OBJECT, T_OBJECT, T_OBJECT, T_OBJECT,
                                           T_OBJECT, T_OBJECT, T_INT, T_INT, T_INT, T_INT,
                                           T_LONG, T_LONG, T_BOOLEAN, T_BOOLEAN, T_BYTE,
                                           T_SHORT, T_CHAR, T_FLOAT, T_DOUBLE};
        uint32_t nf = nf_dist[below(&rs, 20)];
        uint32_t pos = 0;
        for (int s = super; s != K_OBJECT; s = g->k[s].super)
            pos += g->k[s].nf;
        for (uint32_t f = 0; f < nf; f++)
            add_word_field(g, false, (k->word0 + pos + f) % N_WORDS, t_dist[below(&rs, 20)]);
        uint32_t ns = (uint32_t)below(&rs, 4);
        static const uint8_t st_dist[4] = {T_OBJECT, T_INT, T_LONG, T_BOOLEAN};
        for (uint32_t f = 0; f < ns; f++) {
            char sname[32];
            snprintf(sname, sizeof sname, "%s_%u", f == 0 ? "INSTANCE" : f == 1 ? "COUNTER" : "DEFAULT_SIZE", i);
            add_named_field(g, true, sname, st_dist[below(&rs, 4)]);
        }
        close_class(g, c);
    }
    /* class objects first in the heap, sized as heapfs sizes them:
     * java.lang.Class's instance size + the statics, references 4 bytes */
    uint64_t rel = 0;
    for (uint32_t i = 0; i < g->nk; i++) {
        klass *k = &g->k[i];
        uint64_t st = 0;
        for (uint32_t f = 0; f < k->ns; f++)
            st += mem_width(g->statics[k->s0 + f].type);
        k->mirror = align8(g->k[K_CLASS].shallow + st);
        k->rel = rel;
        rel += k->mirror;
    }
    g->mirrors_end = rel;
    g->sid_main = str_add(g, "main");
    g->sid_run = str_add(g, "run");
    g->sid_sleep = str_add(g, "sleep");
    g->sid_sig_main = str_add(g, "([Ljava/lang/String;)V");
    g->sid_sig_v = str_add(g, "()V");
    g->sid_sig_j = str_add(g, "(J)V");
    g->sid_src_main = str_add(g, "Main.java");
    g->sid_src_thread = str_add(g, "Thread.java");
}
