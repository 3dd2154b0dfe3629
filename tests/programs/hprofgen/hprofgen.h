/*
 * hprofgen.h - what the files of the HPROF dump generator share: its state
 * (gen), the class table, HPROF's basic types, the seeded random streams and
 * the big-endian writers into the output buffer.
 *
 * The files, by what they write (hprofgen.c says what a dump holds):
 *   hprofgen.c  the command line, the two passes, the facts' summary
 *   classes.c   the class table: the JDK classes and the generated ones,
 *               their fields and statics, the STRING ids naming them
 *   records.c   the file: header, STRING, LOAD CLASS, frames and traces,
 *               heap dump segments, CLASS DUMPs, GC roots; the histogram
 *   heap.c      every object of the heap, in address order, and the facts
 *               about sample objects and strings
 *
 * Single-threaded: one gen per run, owned by main().
 */
#ifndef HPROFGEN_H
#define HPROFGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
#define N_WORDS ((size_t)64)        /* field-name words (classes.c) */

static inline unsigned dump_width(unsigned t)
{
    switch (t) {
    case T_OBJECT: case T_DOUBLE: case T_LONG: return 8;
    case T_FLOAT: case T_INT: return 4;
    case T_CHAR: case T_SHORT: return 2;
    default: return 1;
    }
}
/* width in the JVM's memory: compressed oops */
static inline unsigned mem_width(unsigned t)
{
    return t == T_OBJECT ? 4 : dump_width(t);
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

/* hprofgen.c */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xrealloc(void *p, size_t n);

/* classes.c: the class table, the same in both passes */
void make_classes(gen *g);

/* records.c */
void flush(gen *g);
void sub_begin(gen *g, uint64_t len);
void pass(gen *g);
void write_histogram(gen *g, FILE *f);

/* heap.c */
void heap_objects(gen *g);
void count_object(gen *g, uint32_t ki, uint64_t size);
uint64_t random_value(gen *g, unsigned t);

/* ---- output ---- */

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

#endif
