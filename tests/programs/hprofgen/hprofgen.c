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
 *
 * This file holds the command line and the two passes; hprofgen.h lists the
 * others, one per part of the file they write.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hprofgen.h"

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprofgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
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
