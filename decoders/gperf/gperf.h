/*
 * gperf.h - gperftools text heap profiles (and their relatives: Go's
 * heap/N, heap_v2/N, heapz_v2/N, growthz): the decoder's shared parts.
 *
 *   decoder.c   detection, open and open_series, destroy, the table of
 *               snapshot files and the ops table
 *   scan.c      parsing one file into a snapshot; the sampling rule
 *   render.c    the views, frame names, heap.pprof, heap.pb.gz and
 *               stacks.folded
 * Memory map lines and naming PCs (libdw) are decoders/pprof/symbolize.c's.
 *
 * One dump holds one or more files (a series: snapshots 1, 2, ... in the
 * order given).  Everything is parsed at open: these files are small (one
 * line per distinct stack).  Stacks are shared across the series: the same
 * PC list in two snapshots is one trace, numbered in order of first
 * appearance, so `diff snapshots/1/sites snapshots/2/sites` compares like
 * with like.
 *
 * Sampling (the rule the README states): lines of heap_v2/N and heapz_v2/N
 * profiles are samples of a Poisson process of rate N bytes, Go's heap/N of
 * rate N/2 (the Go runtime writes twice its MemProfileRate).  As
 * google/pprof scales them, each line's objects and bytes are multiplied by
 * 1 / (1 - exp(-(bytes/objects) / rate)) and truncated to integers; a line
 * with 0 objects or 0 bytes counts 0; rate <= 1 means every allocation was
 * recorded.  heapprofile, growthz and unknown kinds are not scaled.
 *
 * Ownership: a gperf_dump owns everything reachable from it.
 * Thread safety: the parse happens in open; afterwards the parsed data is
 * read only.  What views need lazily (frame names, pprof builders) is made
 * once per snapshot under g_once_init_enter and then only read.
 */
#ifndef HF_GPERF_H
#define HF_GPERF_H

#include "decoders/core/model.h"
#include "decoders/pprof/pprof.h"
#include "decoders/pprof/symbolize.h"

/* Values of a line: in-use objects, in-use bytes, allocated objects and bytes. */
enum { GP_IN_OBJ, GP_IN_BYTES, GP_AL_OBJ, GP_AL_BYTES, GP_NV };

typedef struct {
    uint64_t raw[GP_NV];    /* as the file has them */
    uint64_t scaled[GP_NV]; /* by the sampling rule above */
    uint32_t trace;         /* trace index */
    uint32_t lineno;        /* 1-based line number in the file */
} gperf_line;

/* One distinct stack of a snapshot, values summed over its lines. */
typedef struct {
    uint32_t trace;
    uint64_t v[GP_NV];
} gperf_site;
G_STATIC_ASSERT(offsetof(gperf_site, trace) == 0); /* search.h's hf_serial_sort */

typedef enum { GP_TRAILER_NONE, GP_TRAILER_PROC, GP_TRAILER_DUMP } gperf_trailer;

typedef struct {
    char *path;
    uint64_t size;
    char *kind;      /* header text after '@' ("heapz_v2/524288"), "" when none */
    uint64_t rate;   /* sampling rate in bytes (0: not sampled) */
    bool pprof_same; /* google-pprof scales this kind as google/pprof does */
    bool kind_known;
    bool has_header;
    uint64_t header[GP_NV];
    uint64_t sum_raw[GP_NV], sum_scaled[GP_NV];
    GArray *lines;   /* gperf_line, file order */
    GArray *sites;   /* gperf_site, by trace index */
    hf_mapping *maps;
    size_t n_maps;
    gperf_trailer trailer;
    GHashTable *symbols; /* "--- symbol" section: pc (uint64 *) -> name, or NULL */
    char *binary;        /* binary= of the symbol section, or NULL */
    /* lazily made (see thread safety above) */
    gsize pprof_ready;
    hf_pprof *pp_file;   /* heap.pprof */
    hf_pprof *pp_folded; /* stacks.folded (scaled, merged) */
} gperf_snap;

typedef struct {
    uint32_t first, n; /* PCs: pcs[first .. first+n), leaf first */
    uint32_t snap;     /* first snapshot that has it: its map names the PCs */
} gperf_trace;

typedef struct {
    hf_dump base;
    GArray *snaps;      /* gperf_snap */
    GArray *traces;     /* gperf_trace */
    GArray *pcs;        /* uint64_t */
    GHashTable *trace_by_stack; /* stack key (GBytes) -> trace index + 1 */
    hf_symbolizer *sym;
    gsize names_ready;  /* names: made on first use */
    hf_frame_info *names; /* one per entry of pcs */
} gperf_dump;


/* Scales one (objects, bytes) pair at `rate` as described above. */
void gperf_scale(uint64_t count, uint64_t bytes, uint64_t rate, uint64_t *out_count,
                 uint64_t *out_bytes);
/* Parses the header kind: sets rate and pprof_same (google-pprof scales
 * this kind as we do, so heap.pprof may keep the raw lines); false for a
 * kind not known (then not scaled). */
bool gperf_kind_rate(const char *kind, uint64_t *rate, bool *pprof_same);

extern const hf_decoder hf_decoder_gperf;

/* tables/sites.tsv (render.c). */
uint64_t gperf_sites_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t gperf_sites_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                                 size_t budget);

/* Parses one file's bytes into a new snapshot appended to g (scan.c);
 * series: the file is one of several.  False (err set) when no
 * "heap profile:" header was found. */
bool gperf_parse_file(gperf_dump *g, const char *path, const uint8_t *data, size_t len,
                      bool series, GError **err);

/* Names of trace t's frames (made for all traces on first use, by the
 * map of the trace's first snapshot or its symbol section; thread-safe). */
const hf_frame_info *gperf_trace_names(gperf_dump *g, uint32_t t);

/* The views (render.c), for decoder.c's tables; they follow the render
 * protocol (model.h). */
uint64_t gperf_view_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
uint64_t gperf_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t gperf_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
/* hf_dump_ops.tally: in-use objects and bytes by site (growth). */
bool gperf_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud);
uint64_t gperf_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t gperf_view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t gperf_view_pb(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget);
const hf_pprof *gperf_stacks(hf_dump *d, uint32_t s); /* hf_dump_ops.stacks */
uint64_t gperf_view_flame(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t gperf_view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget);
uint64_t gperf_view_maps(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
bool gperf_has_maps(hf_dump *d, uint32_t s, uint64_t index);
void gperf_describe(hf_dump *d, GString *out);

#endif
