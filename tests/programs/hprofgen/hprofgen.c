/*
 * hprofgen.c - writes a valid HPROF binary heap dump of any size without a
 * JVM, as HotSpot's `jcmd PID GC.heap_dump` writes one.
 *
 * Why: heapfs must be tested and benchmarked on dumps of tens of gigabytes
 * (issue 13), and a JVM holding such a heap needs more memory than the test
 * machines have.  This program streams the file: its memory does not grow
 * with the number of objects (no object graph is held), and the same
 * arguments give the same bytes (seeded splitmix64 streams).
 *
 * The file ("JAVA PROFILE 1.0.2", 8-byte ids, records as JDK 17 writes them):
 * STRING records, LOAD CLASS records, a dummy STACK TRACE (serial 1, the
 * allocation trace every object names) and the main thread's STACK FRAMEs and
 * STACK TRACE, then HEAP DUMP SEGMENTs (bodies of at most --segment bytes,
 * default 1 GiB like HotSpot's) holding the CLASS DUMPs first, then every
 * object in ascending address order, then the GC roots (thread object, java
 * frames, JNI globals, sticky classes), then HEAP DUMP END.
 *
 * Object ids are addresses laid out as a 64-bit HotSpot with compressed oops
 * and compressed class pointers lays objects out: instance = align8(12 +
 * fields, references 4 bytes), array = align8(16 + length * element size),
 * back to back with a rare gap, the heap ending at 4 GiB or 32 GiB (HotSpot's
 * unscaled and zero-based placements), so heapfs's size rule infers that
 * layout from the addresses (decoders/heap/sizes.c).  Class objects (the
 * mirrors) come first in the heap, sized as heapfs sizes them.
 *
 * Shapes: instances of -c generated classes (random fields of every type,
 * reference fields, statics, some extending others), java.lang.String with a
 * byte[] value and coder (Latin-1 and UTF-16 text), small object and
 * primitive arrays, a primitive array of 1-8 MiB and an Object[] of 100k-200k
 * elements every million slots (slots 1000 and 2000 first), and a linked list
 * (hprofgen.ChainNode, one node every 200 slots) whose head is a JNI global.
 * References: every object waiting for a referrer sits in a FIFO queue; the
 * first reference field of a later object takes the oldest one (so every
 * object is reachable and referrers lie far back), other fields point at
 * random objects: recent ones, or a reservoir sampled over the whole heap
 * (forward or backward).  When the queue holds --queue objects, an Object[]
 * takes half of them; the last ones go to an Object[] held by a JNI global.
 *
 * Two passes over the same shape stream: the first writes nothing and
 * learns the heap's size (hence its base address), the segment lengths, the
 * chain head and the reservoir of reference targets; the second writes.
 *
 * Side files: --histogram FILE, the histogram heapfs must show
 * (snapshots/1/histogram, same format and order); --facts FILE, "key value"
 * lines: snapshot info figures, the chain, sample objects with their fields
 * as heapfs renders them, strings and their text.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* HPROF basic types */
enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8,
       T_SHORT = 9, T_INT = 10, T_LONG = 11 };

#define NONE UINT64_MAX           /* "no object" as a relative address */
#define SYM_BASE UINT64_C(0x00007f3a5c000000) /* STRING ids: symbol addresses */
#define TIME_MS UINT64_C(1735689600000)      /* 2025-01-01T00:00:00Z */
#define BUF_SIZE (8u << 20)
#define RECENT 4096                 /* recent reference targets (power of 2) */
#define RESERVOIR 65536             /* targets sampled over the whole heap */
#define BIG_EVERY 1000000           /* slots between big arrays */
#define CHAIN_EVERY 200             /* one chain node per this many slots, on average */
#define MAX_TEXT 1024               /* longest generated String, in chars */
#define N_SAMPLES 3                 /* sample instances in the facts */
#define N_PRIM_MIRRORS 9            /* int.class ... void.class */

static unsigned dump_width(unsigned t)
{
    switch (t) {
    case T_OBJECT: case T_DOUBLE: case T_LONG: return 8;
    case T_FLOAT: case T_INT: return 4;
    case T_CHAR: case T_SHORT: return 2;
    default: return 1;
    }
}
/* width in the JVM's memory: compressed oops */
static unsigned mem_width(unsigned t)
{
    return t == T_OBJECT ? 4 : dump_width(t);
}
static const char *type_name(unsigned t)
{
    switch (t) {
    case T_OBJECT: return "object"; case T_BOOLEAN: return "boolean"; case T_CHAR: return "char";
    case T_FLOAT: return "float"; case T_DOUBLE: return "double"; case T_BYTE: return "byte";
    case T_SHORT: return "short"; case T_INT: return "int"; default: return "long";
    }
}
static inline uint64_t align8(uint64_t x)
{
    return (x + 7) & ~UINT64_C(7);
}

static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static inline uint64_t below(uint64_t *s, uint64_t n)
{
    return n ? splitmix64(s) % n : 0;
}

/* ---- classes ---- */

typedef struct {
    uint64_t sid;     /* STRING id of the name */
    const char *name;
    uint8_t type;
} field;

typedef struct {
    char *name;        /* internal form: java/lang/String, [B */
    char *display;     /* as heapfs shows it: java.lang.String, byte[] */
    uint64_t sid;      /* STRING id of name */
    int super;         /* class index, -1 for java.lang.Object */
    uint32_t f0, nf;   /* own instance fields: g->fields[f0 .. f0 + nf) */
    uint32_t s0, ns;   /* statics: g->statics[s0 .. s0 + ns) */
    uint32_t mem;      /* instance field bytes along the chain, references 4 */
    uint32_t dump;     /* instance data bytes along the chain, references 8 */
    uint32_t nrefs;    /* reference fields along the chain */
    uint32_t depth;    /* generated supers above it */
    uint32_t word0;    /* first field-name word of its hierarchy */
    uint64_t shallow;  /* align8(12 + mem) */
    uint64_t rel;      /* class object address, relative to the heap base */
    uint64_t mirror;   /* class object size as heapfs counts it */
    uint64_t count, bytes;
} klass;

enum { K_OBJECT, K_CLASS, K_STRING, K_THREAD, K_OBJARR, K_STRARR, K_BOOLARR, K_CHARARR,
       K_FLOATARR, K_DOUBLEARR, K_BYTEARR, K_SHORTARR, K_INTARR, K_LONGARR, K_CHAIN, K_MAIN,
       K_GEN0 };

static const uint8_t prim_types[] = {T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE,
                                     T_SHORT, T_INT, T_LONG};

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
#define N_WORDS (sizeof words / sizeof *words)
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
/* text for Strings; some with Latin-1 and non-Latin-1 letters */
static const char *const text_words[] = {
    "order", "shipped", "to", "Berlin", "invoice", "paid", "user", "login", "failed",
    "retry", "cache", "miss", "hit", "session", "expired", "request", "GET", "POST",
    "/api/v1/items", "status=200", "status=404", "error", "timeout", "connection", "reset",
    "café", "naïve", "Zürich", "São Paulo", "Ångström",
};
static const char *const wide_words[] = {"Привет", "мир", "日本語", "東京", "Ελλάδα", "λόγος",
                                         "한국어", "שלום"};

typedef struct {
    /* options */
    uint64_t n_target, size_target, seed, segment_max, qcap;
    uint32_t n_gen;
    const char *out_path, *hist_path, *facts_path;
    bool quiet;
    /* strings */
    char **stext;
    uint32_t nstr, capstr;
    uint64_t word_sid[N_WORDS];
    /* classes and fields */
    klass *k;
    uint32_t nk;
    field *fields, *statics;
    uint32_t nfields, nstatics, capfields, capstatics;
    uint64_t mirrors_end; /* relative address after the class objects */
    /* frames */
    uint64_t sid_main, sid_run, sid_sleep, sid_sig_main, sid_sig_v, sid_sig_j, sid_src_main,
        sid_src_thread;
    /* pass state */
    bool writing;
    uint64_t rs_shape, rs_content, rs_sample;
    uint64_t off;      /* file bytes so far */
    bool seg_open;
    uint64_t seg_len;
    uint64_t *segs;    /* segment body lengths, learnt by the first pass */
    size_t nsegs, capsegs, seg_i;
    uint64_t next_rel, base;
    uint64_t n_inst, n_objarr, n_primarr, n_strings, n_heap;
    uint64_t slot;
    /* objects waiting for a referrer (FIFO) */
    uint64_t *q;
    uint64_t q_head, q_count;
    /* reference targets */
    uint64_t recent[RECENT];
    uint64_t n_recent;
    uint64_t *res;
    uint64_t n_res, n_eligible;
    /* the chain */
    uint64_t chain_prev, chain_len, chain_tail;
    /* learnt by the first pass */
    uint64_t p0_chain_head, p0_big_prim, p0_heap_end, p0_heap;
    /* notable objects (relative), for roots and facts */
    uint64_t thread_rel, main_str_rel, holder_rel, big_prim_rel, big_obj_rel;
    uint32_t n_samples;
    bool latin_seen, utf16_seen;
    /* output */
    int fd;
    uint8_t *buf;
    size_t blen;
    uint64_t written;
    FILE *facts;
} gen;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprofgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

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
static void make_classes(gen *g)
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

/* ---- output ---- */

static void flush(gen *g)
{
    size_t done = 0;
    while (done < g->blen) {
        ssize_t w = write(g->fd, g->buf + done, g->blen - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write %s: %s", g->out_path, strerror(errno));
        done += (size_t)w;
    }
    g->written += g->blen;
    g->blen = 0;
}

/* Room for n bytes (n <= BUF_SIZE) at the end of the buffer. */
static inline uint8_t *room(gen *g, size_t n)
{
    if (BUF_SIZE - g->blen < n)
        flush(g);
    return g->buf + g->blen;
}
static inline uint8_t *be1(uint8_t *p, uint64_t v)
{
    *p = (uint8_t)v;
    return p + 1;
}
static inline uint8_t *be2(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
    return p + 2;
}
static inline uint8_t *be4(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
    return p + 4;
}
static inline uint8_t *be8(uint8_t *p, uint64_t v)
{
    return be4(be4(p, v >> 32), v);
}
static inline uint8_t *ben(uint8_t *p, uint64_t v, unsigned w)
{
    switch (w) {
    case 1: return be1(p, v);
    case 2: return be2(p, v);
    case 4: return be4(p, v);
    default: return be8(p, v);
    }
}
static inline void commit(gen *g, uint8_t *end)
{
    g->blen = (size_t)(end - g->buf);
}

static inline uint64_t addr(const gen *g, uint64_t rel)
{
    return rel == NONE ? 0 : g->base + rel;
}

/* A top-level record header; the body (len bytes) is written next. */
static void record(gen *g, unsigned tag, uint64_t len)
{
    g->off += 9 + len;
    if (g->writing)
        commit(g, be4(be4(be1(room(g, 9), tag), 0), len));
}

static void seg_end(gen *g)
{
    if (!g->seg_open)
        return;
    if (!g->writing) {
        if (g->nsegs == g->capsegs) {
            g->capsegs = g->capsegs ? 2 * g->capsegs : 16;
            g->segs = xrealloc(g->segs, g->capsegs * sizeof *g->segs);
        }
        g->segs[g->nsegs++] = g->seg_len;
    } else if (g->segs[g->seg_i - 1] != g->seg_len) {
        die("internal error: segment %zu is %" PRIu64 " bytes, the first pass said %" PRIu64,
            g->seg_i, g->seg_len, g->segs[g->seg_i - 1]);
    }
    g->seg_open = false;
    g->seg_len = 0;
}

/* A heap dump sub-record of len bytes comes next: in the open segment, or a
 * new one when it would grow past --segment. */
static void sub_begin(gen *g, uint64_t len)
{
    if (g->seg_open && g->seg_len + len > g->segment_max)
        seg_end(g);
    if (!g->seg_open) {
        g->seg_open = true;
        g->off += 9;
        if (g->writing) {
            if (g->seg_i >= g->nsegs)
                die("internal error: more segments than the first pass made");
            commit(g, be4(be4(be1(room(g, 9), 0x1C), 0), g->segs[g->seg_i++]));
        }
    }
    g->seg_len += len;
    g->off += len;
}

/* ---- facts ---- */

static void fact_value(gen *g, unsigned t, uint64_t v)
{
    FILE *f = g->facts;
    switch (t) {
    case T_OBJECT:
        if (v)
            fprintf(f, "0x%" PRIx64, v);
        else
            fputs("null", f);
        break;
    case T_BOOLEAN: fputs(v ? "true" : "false", f); break;
    case T_CHAR:
        if (v > 0x20 && v < 0x7f && v != '\\' && v != '\'')
            fprintf(f, "'%c'", (char)v);
        else
            fprintf(f, "'\\u%04x'", (unsigned)v);
        break;
    case T_FLOAT: {
        /* as heapfs: the shortest of %.6g .. %.9g that reads back */
        uint32_t b = (uint32_t)v;
        float x;
        memcpy(&x, &b, 4);
        char buf[64];
        for (int prec = 6; prec <= 9; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, (double)x);
            if (strtof(buf, NULL) == x)
                break;
        }
        fputs(buf, f);
        break;
    }
    case T_DOUBLE: {
        double x;
        memcpy(&x, &v, 8);
        fprintf(f, "%.17g", x); /* values are k/8: exact, so also the shortest */
        break;
    }
    case T_BYTE: fprintf(f, "%d", (int8_t)v); break;
    case T_SHORT: fprintf(f, "%d", (int16_t)v); break;
    case T_INT: fprintf(f, "%d", (int32_t)v); break;
    default: fprintf(f, "%" PRId64, (int64_t)v); break;
    }
}

/* ---- the heap ---- */

/* The next object, size bytes in the JVM's memory. */
static uint64_t place(gen *g, uint64_t size)
{
    uint64_t r = g->next_rel;
    g->next_rel += size;
    g->n_heap++;
    return r;
}

static void count(gen *g, uint32_t ki, uint64_t size)
{
    if (g->writing) {
        g->k[ki].count++;
        g->k[ki].bytes += size;
    }
}

/* Object rel waits for a referrer. */
static void q_push(gen *g, uint64_t rel)
{
    if (g->writing)
        g->q[(g->q_head + g->q_count) % g->qcap] = rel;
    g->q_count++;
}
static uint64_t q_pop(gen *g)
{
    uint64_t r = g->writing ? g->q[g->q_head] : NONE;
    g->q_head = (g->q_head + 1) % g->qcap;
    g->q_count--;
    return r;
}

/* Object rel may be the target of random references. */
static void eligible(gen *g, uint64_t rel)
{
    if (g->writing) {
        g->recent[g->n_recent++ % RECENT] = rel;
        return;
    }
    /* the first pass samples the whole heap (algorithm R) */
    uint64_t i = g->n_eligible++;
    if (i < RESERVOIR)
        g->res[g->n_res++] = rel;
    else if ((i = below(&g->rs_sample, i + 1)) < RESERVOIR)
        g->res[i] = rel;
}

/* A random reference: null, a recent object or one from anywhere. */
static uint64_t random_target(gen *g)
{
    uint64_t u = splitmix64(&g->rs_content);
    unsigned pick = (unsigned)(u % 100);
    if (pick < 25)
        return 0;
    if (pick < 60 && g->n_recent) {
        uint64_t n = g->n_recent < RECENT ? g->n_recent : RECENT;
        return addr(g, g->recent[(u >> 8) % n]);
    }
    return g->n_res ? addr(g, g->res[(u >> 8) % g->n_res]) : 0;
}

/* A random value of type t (not a reference), as HPROF stores it. */
static uint64_t random_value(gen *g, unsigned t)
{
    uint64_t r = splitmix64(&g->rs_content);
    switch (t) {
    case T_BOOLEAN: return r & 1;
    case T_CHAR: return 'a' + r % 26;
    case T_FLOAT: {
        float x = (float)((int32_t)(r % 2000001) - 1000000) / 4; /* exact */
        uint32_t b;
        memcpy(&b, &x, 4);
        return b;
    }
    case T_DOUBLE: {
        double x = (double)((int64_t)(r % 2000000001) - 1000000000) / 8; /* exact */
        uint64_t b;
        memcpy(&b, &x, 8);
        return b;
    }
    case T_BYTE: return r & 0xff;
    case T_SHORT: return r & 0xffff;
    case T_INT: return (uint32_t)((int32_t)(r % 200001) - 100000);
    default: return r;
    }
}

/* Instance of class ki; values[i] of the chain's fields in dump order
 * (own first, then the super class's, up the chain), from fill(). */
typedef uint64_t (*value_fn)(gen *g, unsigned t, uint32_t i, void *ud);

static uint64_t emit_instance(gen *g, uint32_t ki, value_fn fill, void *ud, bool sample)
{
    const klass *k = &g->k[ki];
    uint64_t rel = place(g, k->shallow);
    sub_begin(g, 25 + k->dump);
    if (!g->writing)
        return rel;
    count(g, ki, k->shallow);
    uint64_t id = addr(g, rel);
    uint8_t *p = room(g, 25 + k->dump);
    p = be4(be8(be4(be8(be1(p, 0x21), id), 1), addr(g, k->rel)), k->dump);
    if (sample)
        fprintf(g->facts, "object 0x%" PRIx64 " %s %" PRIu64 "\n", id, k->display, k->shallow);
    uint32_t i = 0;
    for (int c = (int)ki; c != K_OBJECT && c >= 0; c = g->k[c].super) {
        for (uint32_t f = 0; f < g->k[c].nf; f++, i++) {
            const field *fd = &g->fields[g->k[c].f0 + f];
            uint64_t v = fill(g, fd->type, i, ud);
            p = ben(p, v, dump_width(fd->type));
            if (sample) {
                fprintf(g->facts, "field 0x%" PRIx64 " %s %s ", id, fd->name, type_name(fd->type));
                fact_value(g, fd->type, v);
                fputc('\n', g->facts);
            }
        }
    }
    commit(g, p);
    return rel;
}

/* generated instances: the first reference field takes a waiting object */
typedef struct {
    uint64_t first; /* absolute address for the first reference field, or NONE */
    bool used;
} gen_fill;

static uint64_t fill_generated(gen *g, unsigned t, uint32_t i, void *ud)
{
    gen_fill *f = ud;
    if (t != T_OBJECT)
        return random_value(g, t);
    if (f->first != NONE && !f->used) {
        f->used = true;
        return f->first;
    }
    return random_target(g);
}

static void emit_generated(gen *g, uint32_t ki)
{
    bool pop = g->k[ki].nrefs > 0 && g->q_count > 0;
    gen_fill f = {NONE, false};
    if (pop) {
        uint64_t r = q_pop(g);
        f.first = g->writing ? addr(g, r) : NONE;
    }
    bool sample = g->writing && g->facts && g->n_samples < N_SAMPLES && g->slot >= 100 &&
                  g->k[ki].depth >= 1 && g->k[ki].nrefs > 0;
    g->n_samples += sample;
    g->n_inst++;
    uint64_t rel = emit_instance(g, ki, fill_generated, &f, sample);
    q_push(g, rel);
    eligible(g, rel);
}

/* values given in order */
static uint64_t fill_list(gen *g, unsigned t, uint32_t i, void *ud)
{
    return ((const uint64_t *)ud)[i];
}

static uint64_t emit_objarray(gen *g, uint32_t ki, uint64_t n, uint64_t npop)
{
    if (npop > g->q_count)
        npop = g->q_count;
    if (npop > n)
        npop = n;
    uint64_t size = align8(16 + 4 * n), len = 25 + 8 * n;
    uint64_t rel = place(g, size);
    sub_begin(g, len);
    g->n_objarr++;
    if (!g->writing) {
        g->q_count -= npop;
        g->q_head = (g->q_head + npop) % g->qcap;
        return rel;
    }
    count(g, ki, size);
    uint8_t *p = room(g, 25);
    commit(g, be8(be4(be4(be8(be1(p, 0x22), addr(g, rel)), 1), n), addr(g, g->k[ki].rel)));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = i < npop ? addr(g, q_pop(g)) : random_target(g);
        commit(g, be8(room(g, 8), v));
    }
    return rel;
}

static uint32_t prim_class(unsigned t)
{
    for (uint32_t i = 0; i < 8; i++)
        if (prim_types[i] == t)
            return K_BOOLARR + i;
    return K_BYTEARR;
}

/* A primitive array of n elements of type t: text from data when given
 * (n bytes), else random elements (byte[] and char[]: letters). */
static uint64_t emit_primarray(gen *g, unsigned t, uint64_t n, const uint8_t *data)
{
    unsigned w = dump_width(t);
    uint64_t size = align8(16 + n * w), len = 18 + n * w;
    uint64_t rel = place(g, size);
    sub_begin(g, len);
    g->n_primarr++;
    if (!g->writing)
        return rel;
    count(g, prim_class(t), size);
    uint8_t *p = room(g, 18);
    commit(g, be1(be4(be4(be8(be1(p, 0x23), addr(g, rel)), 1), n), t));
    if (data) {
        for (uint64_t i = 0; i < n;) {
            size_t c = n - i < BUF_SIZE / 2 ? (size_t)(n - i) : BUF_SIZE / 2;
            memcpy(room(g, c), data + i, c);
            g->blen += c;
            i += c;
        }
        return rel;
    }
    uint64_t total = n * w;
    for (uint64_t i = 0; i < total;) {
        size_t c = total - i < 65536 ? (size_t)(total - i) : 65536;
        p = room(g, c);
        for (size_t j = 0; j < c; j += 8) {
            uint64_t r = splitmix64(&g->rs_content);
            if (t == T_BYTE || t == T_CHAR || t == T_BOOLEAN) {
                /* letters; char[]: big-endian u2 'a'..'z', boolean[]: 0/1 */
                for (size_t b = 0; b < 8 && j + b < c; b++) {
                    uint8_t x = (uint8_t)(r >> (8 * b));
                    p[j + b] = t == T_BYTE ? (uint8_t)('a' + x % 26)
                               : t == T_BOOLEAN ? (x & 1)
                               : (b & 1) ? (uint8_t)('a' + x % 26) : 0;
                }
            } else {
                uint8_t tmp[8];
                be8(tmp, r);
                if (t == T_FLOAT || t == T_DOUBLE)
                    tmp[0] = 0x40; /* finite, moderate values */
                memcpy(p + j, tmp, c - j < 8 ? c - j : 8);
            }
        }
        commit(g, p + c);
        i += c;
    }
    return rel;
}

/* Text for a String of n chars: code points into cp. */
static void make_text(gen *g, uint32_t *cp, uint32_t n, bool wide)
{
    uint32_t i = 0;
    while (i < n) {
        uint64_t r = splitmix64(&g->rs_content);
        /* UTF-16 only when needed, as Java: a wide String starts with a wide word */
        const char *w = wide && (i == 0 || r % 3 == 0) ? wide_words[(r >> 8) % 8]
                                            : text_words[(r >> 8) % (sizeof text_words / sizeof *text_words)];
        if (i)
            cp[i++] = r & 0x100000 ? '-' : ' ';
        /* decode UTF-8 */
        for (const unsigned char *s = (const unsigned char *)w; *s && i < n;) {
            uint32_t c = *s++;
            if (c >= 0xE0)
                c = (c & 0x0F) << 12 | (s[0] & 0x3Fu) << 6 | (s[1] & 0x3Fu), s += 2;
            else if (c >= 0xC0)
                c = (c & 0x1F) << 6 | (s[0] & 0x3Fu), s += 1;
            cp[i++] = c;
        }
    }
}

static void fact_utf8(FILE *f, const uint32_t *cp, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = cp[i];
        if (c < 0x80)
            fputc((int)c, f);
        else if (c < 0x800)
            fputc((int)(0xC0 | c >> 6), f), fputc((int)(0x80 | (c & 0x3F)), f);
        else
            fputc((int)(0xE0 | c >> 12), f), fputc((int)(0x80 | (c >> 6 & 0x3F)), f),
                fputc((int)(0x80 | (c & 0x3F)), f);
    }
}

/* A java.lang.String: its byte[] value (Latin-1, or UTF-16LE with coder 1),
 * then the String.  fixed: the text, else n random chars. */
static uint64_t emit_string(gen *g, uint32_t n, bool wide, const char *fixed)
{
    static uint32_t cp[MAX_TEXT];
    static uint8_t bytes[2 * MAX_TEXT];
    uint32_t blen = wide ? 2 * n : n;
    int32_t hash = 0;
    if (g->writing) {
        if (fixed) {
            for (uint32_t i = 0; i < n; i++)
                cp[i] = (unsigned char)fixed[i];
        } else {
            make_text(g, cp, n, wide);
        }
        if (!wide)
            for (uint32_t i = 0; i < n; i++)
                if (cp[i] > 0xFF)
                    cp[i] = '?';
        for (uint32_t i = 0; i < n; i++) {
            hash = (int32_t)((uint32_t)hash * 31u + cp[i]);
            if (wide)
                bytes[2 * i] = (uint8_t)cp[i], bytes[2 * i + 1] = (uint8_t)(cp[i] >> 8);
            else
                bytes[i] = (uint8_t)cp[i];
        }
    }
    uint64_t vrel = emit_primarray(g, T_BYTE, blen, bytes);
    uint64_t v[4] = {addr(g, vrel), (uint32_t)hash, wide, hash == 0};
    bool sample = g->writing && g->facts && !fixed && g->slot >= 10 &&
                  !(wide ? g->utf16_seen : g->latin_seen);
    g->n_inst++;
    g->n_strings++;
    uint64_t rel = emit_instance(g, K_STRING, fill_list, v, false);
    if (sample) {
        *(wide ? &g->utf16_seen : &g->latin_seen) = true;
        fprintf(g->facts, "string 0x%" PRIx64 " %s ", addr(g, rel), wide ? "UTF16" : "LATIN1");
        fact_utf8(g->facts, cp, n);
        fputc('\n', g->facts);
    }
    return rel;
}

static void emit_chain_node(gen *g)
{
    uint64_t v[3] = {addr(g, g->chain_prev), g->chain_len, 0};
    if (g->writing)
        v[2] = splitmix64(&g->rs_content);
    bool sample = g->writing && g->facts && g->chain_len == 0;
    g->n_inst++;
    uint64_t rel = emit_instance(g, K_CHAIN, fill_list, v, sample);
    if (g->chain_len == 0)
        g->chain_tail = rel;
    g->chain_prev = rel;
    g->chain_len++;
}

/* The overflow of the waiting queue: an Object[] (like a collection's
 * backing array) takes n waiting objects. */
static void emit_holder(gen *g, uint64_t n)
{
    uint64_t rel = emit_objarray(g, K_OBJARR, n, n);
    q_push(g, rel);
}

static bool done(const gen *g)
{
    return (g->n_target && g->n_heap >= g->n_target) ||
           (g->size_target && g->off >= g->size_target);
}

static uint64_t fill_zero(gen *g, unsigned t, uint32_t i, void *ud)
{
    return 0;
}

/* Every object, in ascending address order. */
static void heap_objects(gen *g)
{
    for (uint32_t i = 0; i < N_PRIM_MIRRORS; i++) {
        g->n_inst++;
        q_push(g, emit_instance(g, K_CLASS, fill_zero, NULL, false));
    }
    g->main_str_rel = emit_string(g, 4, false, "main");
    uint64_t tv[5] = {addr(g, g->main_str_rel), 1, 5, 0, 5};
    g->n_inst++;
    g->thread_rel = emit_instance(g, K_THREAD, fill_list, tv, g->writing && g->facts);

    for (g->slot = 0; !done(g); g->slot++) {
        if (g->q_count >= g->qcap)
            emit_holder(g, g->qcap / 2);
        uint64_t u = splitmix64(&g->rs_shape);
        if ((u & 0xFFF) == 0x5A5)
            g->next_rel += 8 * (1 + (u >> 12) % 64); /* dead space, as between TLABs */
        u >>= 20;
        if (g->slot % BIG_EVERY == 1000) {
            static const uint8_t bt[4] = {T_BYTE, T_BYTE, T_LONG, T_INT};
            unsigned t = bt[u % 4];
            uint64_t bytes = ((u >> 2) % (7u << 20)) + (1u << 20);
            uint64_t rel = emit_primarray(g, t, bytes / dump_width(t), NULL);
            if (g->big_prim_rel == NONE)
                g->big_prim_rel = rel;
            q_push(g, rel);
            continue;
        }
        if (g->slot % BIG_EVERY == 2000) {
            uint64_t n = 100000 + (u >> 2) % 100000;
            uint64_t rel = emit_objarray(g, K_OBJARR, n, n / 2);
            if (g->big_obj_rel == NONE)
                g->big_obj_rel = rel;
            q_push(g, rel);
            continue;
        }
        unsigned kind = (unsigned)(u % 1000);
        u /= 1000;
        if (kind < 1000 / CHAIN_EVERY) {
            emit_chain_node(g);
        } else if (kind < 200) {
            /* String: mostly short; some long; one in 20 UTF-16 */
            unsigned lk = (unsigned)(u % 100);
            uint32_t n = lk < 90 ? 4 + (uint32_t)((u >> 7) % 16)
                         : lk < 99 ? 24 + (uint32_t)((u >> 7) % 80)
                                   : 100 + (uint32_t)((u >> 7) % (MAX_TEXT - 100));
            bool wide = (u >> 20) % 20 == 0;
            uint64_t rel = emit_string(g, n, wide, NULL);
            q_push(g, rel);
            eligible(g, rel);
        } else if (kind < 240) {
            uint64_t n = (u >> 1) % 17;
            uint64_t rel = emit_objarray(g, u % 10 < 7 ? K_OBJARR : K_STRARR, n, (n + 1) / 2);
            q_push(g, rel);
            eligible(g, rel);
        } else if (kind < 400) {
            static const uint8_t pt[20] = {T_BYTE, T_BYTE, T_BYTE, T_BYTE, T_BYTE, T_BYTE,
                                           T_INT, T_INT, T_INT, T_INT, T_CHAR, T_CHAR,
                                           T_CHAR, T_LONG, T_LONG, T_LONG, T_DOUBLE,
                                           T_FLOAT, T_SHORT, T_BOOLEAN};
            uint64_t rel = emit_primarray(g, pt[u % 20], (u >> 5) % 17, NULL);
            q_push(g, rel);
            eligible(g, rel);
        } else {
            uint32_t c = u % 2 ? (uint32_t)((u >> 1) % g->n_gen)
                               : (uint32_t)((u >> 1) % (g->n_gen < 8 ? g->n_gen : 8));
            emit_generated(g, K_GEN0 + c);
        }
    }
    /* what still waits: one Object[] held by a JNI global */
    g->holder_rel = emit_objarray(g, K_OBJARR, g->q_count, g->q_count);
}

/* ---- the file ---- */

static void write_classes(gen *g)
{
    for (uint32_t i = 0; i < g->nk; i++) {
        const klass *k = &g->k[i];
        uint64_t len = 1 + 8 + 4 + 6 * 8 + 4 + 2 + 2 + 2 + 9 * (uint64_t)k->nf;
        for (uint32_t f = 0; f < k->ns; f++)
            len += 9 + dump_width(g->statics[k->s0 + f].type);
        sub_begin(g, len);
        if (!g->writing)
            continue;
        count(g, K_CLASS, k->mirror);
        uint8_t *p = room(g, len);
        p = be8(be4(be8(be1(p, 0x20), addr(g, k->rel)), 1),
                k->super >= 0 ? addr(g, g->k[k->super].rel) : 0);
        for (int z = 0; z < 5; z++)
            p = be8(p, 0); /* loader, signers, protection domain, reserved x2 */
        p = be2(be2(be4(p, k->dump), 0), k->ns);
        for (uint32_t f = 0; f < k->ns; f++) {
            const field *fd = &g->statics[k->s0 + f];
            uint64_t v;
            if (i == K_MAIN)
                v = f == 0 ? addr(g, g->p0_chain_head) : f == 1 ? addr(g, g->p0_big_prim)
                                                               : g->p0_heap;
            else if (i == K_STRING)
                v = f == 0 ? UINT64_C(0xA0F0A4387A3BB342) : f == 1 ? 1 : f == 2 ? 0 : 1;
            else if (fd->type == T_OBJECT)
                v = g->n_res ? addr(g, g->res[below(&g->rs_content, g->n_res)]) : 0;
            else
                v = random_value(g, fd->type);
            p = ben(be1(be8(p, fd->sid), fd->type), v, dump_width(fd->type));
        }
        p = be2(p, k->nf);
        for (uint32_t f = 0; f < k->nf; f++)
            p = be1(be8(p, g->fields[k->f0 + f].sid), g->fields[k->f0 + f].type);
        commit(g, p);
    }
}

static void write_roots(gen *g)
{
    sub_begin(g, 17);
    if (g->writing)
        commit(g, be4(be4(be8(be1(room(g, 17), 0x08), addr(g, g->thread_rel)), 1), 2));
    /* two locals of main's frames: the thread's name and a sampled object */
    uint64_t locals[2] = {g->main_str_rel, g->n_res ? g->res[0] : g->main_str_rel};
    for (int i = 0; i < 2; i++) {
        sub_begin(g, 17);
        if (g->writing)
            commit(g, be4(be4(be8(be1(room(g, 17), 0x03), addr(g, locals[i])), 1), (unsigned)i));
    }
    uint64_t globals[2] = {g->chain_prev, g->holder_rel};
    for (int i = 0; i < 2; i++) {
        if (globals[i] == NONE)
            continue;
        sub_begin(g, 17);
        if (g->writing)
            commit(g, be8(be8(be1(room(g, 17), 0x01), addr(g, globals[i])),
                          UINT64_C(0x00007f3a90058100) + 8 * (unsigned)i));
    }
    for (uint32_t i = 0; i < g->nk; i++) {
        sub_begin(g, 9);
        if (g->writing)
            commit(g, be8(be1(room(g, 9), 0x05), addr(g, g->k[i].rel)));
    }
}

/* One pass over the whole file; writes only when g->writing. */
static void pass(gen *g)
{
    g->rs_shape = g->seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    g->rs_content = g->seed * UINT64_C(0xD1B54A32D192ED03) + 2;
    g->rs_sample = g->seed * UINT64_C(0xAEF17502108EF2D9) + 3;
    g->off = 0;
    g->seg_open = false;
    g->seg_len = 0;
    g->seg_i = 0;
    g->next_rel = g->mirrors_end;
    g->n_inst = g->n_objarr = g->n_primarr = g->n_strings = g->n_heap = 0;
    g->q_head = g->q_count = 0;
    g->n_recent = 0;
    g->chain_prev = NONE;
    g->chain_len = 0;
    g->chain_tail = NONE;
    g->big_prim_rel = g->big_obj_rel = NONE;
    g->n_samples = 0;
    g->latin_seen = g->utf16_seen = false;
    for (uint32_t i = 0; i < g->nk; i++)
        g->k[i].count = g->k[i].bytes = 0;

    /* header */
    static const char magic[] = "JAVA PROFILE 1.0.2";
    g->off += sizeof magic + 4 + 8;
    if (g->writing) {
        uint8_t *p = room(g, sizeof magic + 12);
        memcpy(p, magic, sizeof magic);
        commit(g, be8(be4(p + sizeof magic, 8), TIME_MS));
    }
    for (uint32_t i = 0; i < g->nstr; i++) {
        size_t n = strlen(g->stext[i]);
        record(g, 0x01, 8 + n);
        if (g->writing) {
            uint8_t *p = be8(room(g, 8 + n), SYM_BASE + 0x28 * (uint64_t)i);
            memcpy(p, g->stext[i], n);
            commit(g, p + n);
        }
    }
    for (uint32_t i = 0; i < g->nk; i++) {
        record(g, 0x02, 24);
        if (g->writing)
            commit(g, be8(be4(be8(be4(room(g, 24), i + 1), addr(g, g->k[i].rel)), 1), g->k[i].sid));
    }
    /* the dummy trace, then main's frames and trace */
    record(g, 0x05, 12);
    if (g->writing)
        commit(g, be4(be4(be4(room(g, 12), 1), 0), 0));
    const struct { uint64_t m, s, src; uint32_t cls; int32_t line; } fr[3] = {
        {g->sid_sleep, g->sid_sig_j, g->sid_src_thread, K_THREAD + 1, -3},
        {g->sid_run, g->sid_sig_v, g->sid_src_main, K_MAIN + 1, 87},
        {g->sid_main, g->sid_sig_main, g->sid_src_main, K_MAIN + 1, 42},
    };
    for (uint32_t i = 0; i < 3; i++) {
        record(g, 0x04, 40);
        if (g->writing)
            commit(g, be4(be4(be8(be8(be8(be8(room(g, 40), i + 1), fr[i].m), fr[i].s), fr[i].src),
                              fr[i].cls), (uint32_t)fr[i].line));
    }
    record(g, 0x05, 12 + 3 * 8);
    if (g->writing) {
        uint8_t *p = be4(be4(be4(room(g, 36), 2), 1), 3);
        for (uint32_t i = 0; i < 3; i++)
            p = be8(p, i + 1);
        commit(g, p);
    }
    write_classes(g);
    heap_objects(g);
    write_roots(g);
    seg_end(g);
    record(g, 0x2C, 0);
}

static int cmp_hist(const void *a, const void *b)
{
    const klass *x = *(klass *const *)a, *y = *(klass *const *)b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->display, y->display);
}

static void write_histogram(gen *g, FILE *f)
{
    klass **v = xrealloc(NULL, g->nk * sizeof *v);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nk; i++)
        if (g->k[i].count)
            v[n++] = &g->k[i];
    qsort(v, n, sizeof *v, cmp_hist);
    fputs("#  instances        bytes  class\n", f);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%12" PRIu64 "%13" PRIu64 "  %s\n", v[i]->count, v[i]->bytes, v[i]->display);
    free(v);
}

static uint64_t parse_size(const char *s, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double m = 1;
    switch (*end) {
    case 'k': case 'K': m = 1024.0; end++; break;
    case 'm': case 'M': m = 1024.0 * 1024; end++; break;
    case 'g': case 'G': m = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': m = 1024.0 * 1024 * 1024 * 1024; end++; break;
    }
    if (errno || end == s || *end || v < 0 || v * m > 1e19)
        die("bad %s: %s", what, s);
    return (uint64_t)(v * m);
}

static void usage(FILE *f)
{
    fputs("usage: hprofgen [options] -o FILE\n"
          "Writes an HPROF heap dump (JAVA PROFILE 1.0.2, 8-byte ids, as jcmd GC.heap_dump)\n"
          "of generated objects; the same options give the same bytes.\n"
          "  -n, --objects N      about N heap objects (default 100000 unless --size)\n"
          "      --size BYTES     stop at about this file size (K, M, G, T suffixes: 10G)\n"
          "  -c, --classes N      generated classes (default 200)\n"
          "  -s, --seed N         seed (default 1)\n"
          "  -o, --output FILE    the dump (- for stdout)\n"
          "  -H, --histogram FILE the histogram heapfs must show (snapshots/1/histogram)\n"
          "  -F, --facts FILE     key/value facts: counts, the chain, sample objects, strings\n"
          "      --segment BYTES  largest HEAP DUMP SEGMENT body (default 1G, as HotSpot)\n"
          "      --queue N        objects waiting for a referrer before an Object[] takes\n"
          "                       half of them (default 65536)\n"
          "  -q, --quiet          no summary on stderr\n"
          "  -h, --help\n", f);
}

int main(int argc, char **argv)
{
    static gen G;
    gen *g = &G;
    g->seed = 1;
    g->n_gen = 200;
    g->segment_max = UINT64_C(1) << 30;
    g->qcap = 65536;
    enum { O_SIZE = 1000, O_SEGMENT, O_QUEUE };
    static const struct option opts[] = {
        {"objects", required_argument, NULL, 'n'}, {"size", required_argument, NULL, O_SIZE},
        {"classes", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'},
        {"output", required_argument, NULL, 'o'}, {"histogram", required_argument, NULL, 'H'},
        {"facts", required_argument, NULL, 'F'}, {"segment", required_argument, NULL, O_SEGMENT},
        {"queue", required_argument, NULL, O_QUEUE}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = getopt_long(argc, argv, "n:c:s:o:H:F:qh", opts, NULL)) != -1) {
        switch (o) {
        case 'n': g->n_target = parse_size(optarg, "object count"); break;
        case O_SIZE: g->size_target = parse_size(optarg, "size"); break;
        case 'c': g->n_gen = (uint32_t)parse_size(optarg, "class count"); break;
        case 's': g->seed = parse_size(optarg, "seed"); break;
        case 'o': g->out_path = optarg; break;
        case 'H': g->hist_path = optarg; break;
        case 'F': g->facts_path = optarg; break;
        case O_SEGMENT: g->segment_max = parse_size(optarg, "segment size"); break;
        case O_QUEUE: g->qcap = parse_size(optarg, "queue length"); break;
        case 'q': g->quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || !g->out_path) {
        usage(stderr);
        return 2;
    }
    if (g->n_gen < 1 || g->n_gen > 1000000)
        die("--classes must be 1 to 1000000");
    if (g->segment_max < 4096 || g->segment_max > (UINT64_C(1) << 32) - (UINT64_C(64) << 20))
        die("--segment must be 4K to 4G - 64M");
    if (g->qcap < 2)
        die("--queue must be at least 2");
    if (!g->n_target && !g->size_target)
        g->n_target = 100000;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    make_classes(g);
    g->res = xrealloc(NULL, RESERVOIR * sizeof *g->res);
    g->q = xrealloc(NULL, g->qcap * sizeof *g->q);
    g->buf = xrealloc(NULL, BUF_SIZE);

    /* first pass: sizes, segments, the chain head, the reservoir */
    g->writing = false;
    pass(g);
    g->p0_chain_head = g->chain_prev;
    g->p0_big_prim = g->big_prim_rel;
    g->p0_heap_end = g->next_rel;
    g->p0_heap = g->n_heap;
    uint64_t expect = g->off;
    /* the heap ends at 4 GiB (unscaled compressed oops) or 32 GiB (zero-based) */
    uint64_t heap = g->p0_heap_end, mib = UINT64_C(1) << 20;
    if (heap + 16 * mib <= (UINT64_C(7) << 29))
        g->base = ((UINT64_C(4) << 30) - heap - 8 * mib) & ~(mib - 1);
    else if (heap + 16 * mib <= (UINT64_C(31) << 30))
        g->base = ((UINT64_C(32) << 30) - heap - 8 * mib) & ~(mib - 1);
    else
        g->base = UINT64_C(32) << 30; /* too big for compressed oops: ids say so */

    if (strcmp(g->out_path, "-") == 0) {
        g->fd = 1;
    } else {
        g->fd = open(g->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (g->fd < 0)
            die("%s: %s", g->out_path, strerror(errno));
    }
    if (g->facts_path && !(g->facts = fopen(g->facts_path, "w")))
        die("%s: %s", g->facts_path, strerror(errno));
    g->writing = true;
    pass(g);
    flush(g);
    if (g->written != expect || g->off != expect)
        die("internal error: wrote %" PRIu64 " bytes, the first pass said %" PRIu64, g->written, expect);
    if (g->fd != 1 && close(g->fd) != 0)
        die("%s: %s", g->out_path, strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &t1);

    uint64_t bytes = 0;
    for (uint32_t i = 0; i < g->nk; i++)
        bytes += g->k[i].bytes;
    if (g->facts) {
        FILE *f = g->facts;
        fprintf(f, "seed %" PRIu64 "\n", g->seed);
        fprintf(f, "file_bytes %" PRIu64 "\n", g->written);
        fprintf(f, "segments %zu\n", g->nsegs);
        fprintf(f, "heap_base 0x%" PRIx64 "\n", g->base);
        /* as snapshots/1/info says them */
        fprintf(f, "classes: %u\n", g->nk);
        fprintf(f, "objects: %" PRIu64 "\n", g->n_heap + g->nk);
        fprintf(f, "instances: %" PRIu64 "\n", g->n_inst);
        fprintf(f, "object arrays: %" PRIu64 "\n", g->n_objarr);
        fprintf(f, "primitive arrays: %" PRIu64 "\n", g->n_primarr);
        fprintf(f, "class objects: %u\n", g->nk);
        fprintf(f, "bytes: %" PRIu64 "\n", bytes);
        fprintf(f, "roots: %u\n", 3 + (g->chain_prev != NONE) + 1 + g->nk);
        fprintf(f, "strings: %" PRIu64 "\n", g->n_strings);
        fprintf(f, "string_records %u\n", g->nstr);
        fprintf(f, "thread 0x%" PRIx64 " main\n", addr(g, g->thread_rel));
        fprintf(f, "holder 0x%" PRIx64 "\n", addr(g, g->holder_rel));
        if (g->chain_prev != NONE) {
            fprintf(f, "chain_head 0x%" PRIx64 "\n", addr(g, g->chain_prev));
            fprintf(f, "chain_tail 0x%" PRIx64 "\n", addr(g, g->chain_tail));
            fprintf(f, "chain_length %" PRIu64 "\n", g->chain_len);
            fprintf(f, "chain_retained %" PRIu64 "\n", g->chain_len * g->k[K_CHAIN].shallow);
        }
        if (g->big_prim_rel != NONE)
            fprintf(f, "big_prim_array 0x%" PRIx64 "\n", addr(g, g->big_prim_rel));
        if (g->big_obj_rel != NONE)
            fprintf(f, "big_obj_array 0x%" PRIx64 "\n", addr(g, g->big_obj_rel));
        if (fclose(f) != 0)
            die("%s: write failed", g->facts_path);
    }
    if (g->hist_path) {
        FILE *f = strcmp(g->hist_path, "-") == 0 ? stderr : fopen(g->hist_path, "w");
        if (!f)
            die("%s: %s", g->hist_path, strerror(errno));
        write_histogram(g, f);
        if (f != stderr && fclose(f) != 0)
            die("%s: write failed", g->hist_path);
    }
    if (!g->quiet) {
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr, "hprofgen: %s: %" PRIu64 " bytes, %" PRIu64 " objects (+%u classes), "
                "%" PRIu64 " heap bytes, %zu segments, chain of %" PRIu64 ", %.1f s (%.0f MB/s)\n",
                g->out_path, g->written, g->n_heap, g->nk, bytes, g->nsegs, g->chain_len, s,
                (double)g->written / 1e6 / (s > 0 ? s : 1e-9));
    }
    return 0;
}
