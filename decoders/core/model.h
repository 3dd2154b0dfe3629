/*
 * model.h - the neutral model every decoder presents to the rest of heapfs.
 *
 * A decoder detects its format, indexes the mapped file once (hf_open), and
 * then answers small questions ("how many objects in snapshot 2?", "what is
 * object 17 called?") and renders views ("object 17's fields") on demand.
 * fs/ builds the whole tree (README.md, docs/architecture.md) from these
 * answers, so a new format is a new decoder, never a new tree.  Nothing
 * here knows about FUSE.
 *
 * Indices vs names: every collection (snapshots, traces, threads, classes,
 * objects, refs) is addressed by a dense 0-based index, stable for a given
 * file; names are what users see.  fs/ computes inode numbers from indices.
 *
 * Ownership: hf_open returns a dump owned by the caller (hf_dump_close).
 * Strings returned as `const char *` belong to the dump and live as long as
 * it does.  GString arguments are owned by the caller; functions append.
 *
 * Thread safety: after hf_open returns, every op may be called from several
 * threads at once; decoders keep no mutable shared state outside their own
 * locks.  The problem list is only appended to while indexing.
 */
#ifndef HF_MODEL_H
#define HF_MODEL_H

#include "decoders/core/workmem.h"

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* A renderer returns this when the view is complete. */
#define HF_DONE UINT64_MAX
/* For renderers: true once `budget` bytes were appended since `start`,
 * never before the first item, so every call makes progress. */
static inline bool hf_budget_spent(const GString *out, size_t start, size_t budget)
{
    return out->len > start && out->len - start >= budget;
}

/* Longest object, thread or ref name a decoder may produce (with NUL). */
#define HF_NAME_MAX 256

typedef struct hf_dump hf_dump;
struct hf_pprof; /* decoders/pprof/pprof.h */

/* Snapshot s of dump d: how a snapshot is addressed across dumps (a mount
 * of several dumps, comparing snapshots: compare.h). */
typedef struct {
    hf_dump *d;
    uint32_t s;
} hf_snapref;

/*
 * A view: file `file` of node `index` of snapshot `snap`.  `file` indexes
 * the table the file was declared in (hf_parts.files); `index` is the
 * trace, thread, class or object, 0 for a snapshot's own files and for
 * MOUNT/info.
 */
typedef struct {
    uint32_t snap;
    uint64_t index;
    uint32_t file;
} hf_view;

/*
 * Render view v, starting at item `first` (0 at the start), appending to
 * out.  A view is a sequence of items (usually lines); a renderer may stop
 * once out has grown by at least `budget` bytes and return the index of
 * the next item, or HF_DONE when finished.  Rendering from the same `first`
 * must always give the same bytes: fs/ serves big views by re-rendering
 * from checkpoints.  Small views may ignore budget.
 */
typedef uint64_t (*hf_render_fn)(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget);
/* Whether node `index` of snapshot s has a part (index 0 for a snapshot). */
typedef bool (*hf_has_fn)(hf_dump *d, uint32_t s, uint64_t index);

/*
 * Optional companion of a renderer, for big tables whose byte count follows
 * from the index (decoders/heap/tables.c): adds to *bytes the exact byte
 * count of what render would append from item `first` with this budget,
 * and returns the next item (HF_DONE at the end), the same way: stopping
 * once at least `budget` bytes are counted, never before the first item.
 * fs/ then learns the file's size and its checkpoints by measuring, far
 * faster than rendering, and the sizes it reports are the bytes read.
 */
typedef uint64_t (*hf_measure_fn)(hf_dump *d, const hf_view *v, uint64_t first,
                                  uint64_t *bytes, size_t budget);

/* A file of a directory.  has == NULL: every such directory has it.
 * measure == NULL: fs/ renders the file once to learn its size. */
typedef struct {
    const char *name; /* snapshot files only: "cpu/samples" is samples in cpu/ */
    hf_render_fn render;
    hf_has_fn has;
    hf_measure_fn measure;
} hf_file;

/* Where a link leads: a class, an object or a file of the same snapshot,
 * by its name there.  fs/ turns it into a relative path. */
typedef enum { HF_TO_CLASS, HF_TO_OBJECT, HF_TO_SNAP_FILE } hf_target_kind;
typedef struct {
    hf_target_kind kind;
    char name[HF_NAME_MAX];
} hf_target;

/* A symlink of a directory (a class's super, an object's class).  With
 * has NULL the link exists where target() succeeds, so target() must be
 * cheap; otherwise has() says where it exists and target() is asked only
 * when the link is read (it may then be slow). */
typedef struct {
    const char *name;
    /* Fill *to; false when node `index` has no such link. */
    bool (*target)(hf_dump *d, uint32_t s, uint64_t index, hf_target *to);
    hf_has_fn has;
} hf_link;

/* Entry of a directory of links, by slot (a field, an array element, a
 * referrer): slots are dense positions, so lookups by name need no scan. */
typedef enum { HF_REF_OK, HF_REF_EMPTY, HF_REF_END } hf_ref_status;

/* A directory of links (an object's refs/): entry `slot` has a name and a
 * target; find() gives the slot of a name.  Both may be slow for large
 * slots only if they must be; fs/ lists the first 32768 slots (inode.h). */
typedef struct {
    const char *name;
    hf_has_fn has;
    hf_ref_status (*entry)(hf_dump *d, uint32_t s, uint64_t index, uint32_t slot,
                           char name[HF_NAME_MAX], hf_target *to);
    int64_t (*find)(hf_dump *d, uint32_t s, uint64_t index, const char *name); /* -1 */
} hf_linkdir;

/*
 * What one kind of directory holds (a snapshot, a thread, a class, an
 * object), declared once by the decoder as static tables, each ended by an
 * entry whose name is NULL.  Listing, lookup and rendering all read these
 * tables, so the names and the renderers cannot drift apart.  fs/ honours
 * links of classes and objects, and link directories of objects only; a
 * directory shows at most 64 entries in all (HF_FILES_MAX). 
 */
typedef struct {
    const hf_file *files;
    const hf_link *links;
    const hf_linkdir *dirs;
} hf_parts;

/* Limits of the tables (fs/inode.h gives each entry a few bits). */
#define HF_FILES_MAX 64
#define HF_DIRS_MAX 4

/* A row of a snapshot's tally (hf_dump_ops.tally): a class, site or type. */
typedef void (*hf_tally_fn)(void *ud, const char *name, int64_t count, int64_t bytes);

/*
 * The operations a decoder implements.  A count op left NULL means the
 * format lacks that part, and fs/ shows no directory for it (never an
 * empty stand-in).  All counts and indices are for the given snapshot `s`.
 * Names are written to a caller's buffer of HF_NAME_MAX bytes.
 */
typedef struct hf_dump_ops {
    const char *format; /* short name: "hprof", "oemp", "bmd", ... */
    void (*destroy)(hf_dump *d);
    /* A paragraph for the generated README: what each part holds. */
    void (*describe)(hf_dump *d, GString *out);
    hf_render_fn render_info;  /* MOUNT/info */
    /* Lines about work done since the mount (MOUNT/.stats, which changes;
     * every other file stays the same while mounted).  NULL: none. */
    void (*status)(hf_dump *d, GString *out);
    hf_render_fn render_trace; /* traces/N: v->index = trace index */
    /* Work for after the mount is live (writing the index file, then
     * mapping it over the arrays it holds: keeparray.h), run once on a
     * thread of its own while requests are served: it changes nothing
     * they read, and it keeps what it shows in status() behind its own lock.
     * fs/main.c starts it after daemonizing and joins it before closing the
     * dump; --check never runs it.  NULL: nothing to do. */
    void (*after_mount)(hf_dump *d);

    uint32_t (*n_snapshots)(hf_dump *d);
    /* Directory name of snapshot s (1-based file order for HPROF, the
     * sequence number for OEMP).  Strictly ascending with s. */
    uint64_t (*snapshot_number)(hf_dump *d, uint32_t s);

    uint64_t (*n_traces)(hf_dump *d);
    uint64_t (*trace_number)(hf_dump *d, uint64_t t); /* ascending with t */

    uint64_t (*n_threads)(hf_dump *d);
    /* Unique, stable directory name of thread t (no '/'). */
    void (*thread_name)(hf_dump *d, uint64_t t, char name[HF_NAME_MAX]);

    /* classes/ exists in a snapshot where n_classes > 0. */
    uint64_t (*n_classes)(hf_dump *d, uint32_t s);
    /* Escaped, unique directory name (see names.h). */
    void (*class_name)(hf_dump *d, uint32_t s, uint64_t c, char name[HF_NAME_MAX]);
    int64_t (*class_find)(hf_dump *d, uint32_t s, const char *name); /* -1 */

    /* objects/ exists in every snapshot, or, for a format with classes, in
     * those that have classes. */
    uint64_t (*n_objects)(hf_dump *d, uint32_t s);
    void (*object_name)(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX]);
    int64_t (*object_find)(hf_dump *d, uint32_t s, const char *name); /* -1 */

    /* Comparing snapshots (decoders/core/compare.h: growth, strings-new),
     * across dumps too, so by name, never by index or id.  tally calls fn
     * once per class, site or type of snapshot s with its name and totals
     * (a name may come several times: the totals add up); with `retained`
     * the bytes are retained bytes (may compute them), false when the
     * format has none.  text appends the text of object o as `strings`
     * shows it (one line, escaped, no newline) and returns true when o is
     * a string.  NULL: the format cannot. */
    bool (*tally)(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud);
    bool (*text)(hf_dump *d, uint32_t s, uint64_t o, GString *out);
    /* The samples snapshot s's stacks.folded draws (the pprof.h builder
     * it renders, in-use bytes), for drawing a snapshot against another
     * (flame-diff.svg); NULL where the snapshot has none (may build them).
     * The builder stays valid until stacks_done(d, it) is called (a NULL
     * stacks_done: until destroy).  NULL: the format has no stacks. */
    const struct hf_pprof *(*stacks)(hf_dump *d, uint32_t s);
    void (*stacks_done)(hf_dump *d, const struct hf_pprof *p);
    /* flame-diff.svg of `now` (a snapshot of this dump) against `before`
     * (of any dump with stacks): decoders/pprof/flamediff.h's
     * hf_flame_diff_render, set by the formats with stacks, so that fs/
     * reaches it through the model (compare.h). */
    uint64_t (*flame_diff)(hf_snapref before, hf_snapref now, uint64_t first, GString *out,
                           size_t budget);

    hf_parts snapshot, thread, class_, object;
} hf_dump_ops;

/* Common part of every decoder's dump; decoders embed it first. */
struct hf_dump {
    const hf_dump_ops *ops;
    char *path;          /* the dump file as given (first file of a series) */
    GMappedFile *map;    /* NULL for decoders that map several files */
    const uint8_t *data; /* map contents */
    size_t size;
    GPtrArray *problems; /* char *, "offset 0x1a2b: what" lines: the first
                            HF_PROBLEMS_MAX of them */
    uint64_t n_problems; /* all problems found, listed or not */
    /* Heap formats: how strong a reference must be to keep an object alive
     * (-o retained=..., an hf_reach; 0 = strong). */
    unsigned reach;
    /* Heap formats: where the retained-size computation's working arrays
     * go (-o retained_mem=, core/workmem.h; zeroed: auto). */
    hf_work_opt work;
    /* How the index was built, for MOUNT/.stats and --check (never info:
     * it differs between runs).  0 when the decoder does not say. */
    double index_seconds;
    unsigned index_threads;
    /* ops->after_mount has not returned yet (hf_dump_after_mount_begin). */
    gint after_mount_pending;
};

/* How strong a reference must be to keep an object alive, for the formats
 * with an object graph (-o retained=NAME, hf_dump.reach), strongest first. */
typedef enum {
    HF_REACH_STRONG,
    HF_REACH_SOFT,
    HF_REACH_FINALIZER,
    HF_REACH_WEAK,
    HF_REACH_PHANTOM,
    HF_REACH_N
} hf_reach;
extern const char *const hf_reach_names[HF_REACH_N];

/* Options for opening a dump (heapfs -o ...).  Zero-initialize, set what
 * is wanted; a decoder ignores the options that do not apply to its
 * format.  Strings belong to the caller and need only live during the
 * open call. */
typedef struct hf_open_opts {
    /* BMD: a file of candidate names, one per line, to resolve names the
     * dump keeps only as a hash (-o names=FILE).  NULL: none.  A file that
     * cannot be read makes the open fail. */
    const char *names_file;
    /* Heap formats: the weakest reference that keeps an object alive
     * (an hf_reach; 0 = strong).  hf_open copies it to hf_dump.reach once
     * the decoder's open returns; decoders read that, never this. */
    unsigned reach;
    /* Heap formats: RAM or files for the retained sizes' working arrays
     * (-o retained_mem=); copied to hf_dump.work as reach is. */
    hf_work_opt work;
    /* The index file (-o index=): NULL for the default place (beside the
     * dump, else under $XDG_CACHE_HOME/heapfs), "none" for no index file,
     * else its path.  Formats without an index file ignore it; so does
     * every format when opts itself is NULL (no index file). */
    const char *index;
} hf_open_opts;

/* Decoder registry (registry.c). */
typedef struct {
    const char *format;
    /* True when head (the first `len` bytes of the file) is this format. */
    bool (*detect)(const uint8_t *head, size_t len);
    /* Index the mapped file, with options (NULL: none; a decoder ignores
     * those that do not apply to its format).  On failure returns NULL and
     * sets *err to one line saying why.  Problems that still leave
     * something to show go to hf_problem() instead. */
    hf_dump *(*open)(const char *path, GMappedFile *map, const hf_open_opts *opts,
                     GError **err);
    /* Several files as successive snapshots, options as open's (NULL: one
     * file only, each opened as a dump of its own). */
    hf_dump *(*open_series)(const char *const *paths, int n, const hf_open_opts *opts,
                            GError **err);
} hf_decoder;

#define HF_ERROR hf_error_quark()
GQuark hf_error_quark(void);
enum { HF_ERROR_OPEN, HF_ERROR_FORMAT, HF_ERROR_CORRUPT };

/* Open and index `path`, detecting the format from its content, with
 * options (NULL: none, and no index file).  NULL with *err set (one line,
 * suitable for stderr) when nothing could be decoded. */
hf_dump *hf_open(const char *path, const hf_open_opts *opts, GError **err);
/* The format of the file at path ("hprof", ...: hf_decoder.format) when
 * heapfs would open it, found from its first bytes without indexing;
 * NULL with *err (hf_open's message) otherwise. */
const char *hf_detect(const char *path, GError **err);
/* The files of one mount, appended to out as dumps (hf_dump *) in order:
 * one file, or one series (several files of a format that opens series,
 * such as gperftools prefix.0001.heap ...), gives one dump; files of the
 * other formats (heap dumps) give one dump each, whose snapshots the mount
 * shows one after another.  False, with *err naming the file, when a file
 * cannot be decoded or formats that cannot be mixed are; nothing is
 * appended then. */
bool hf_open_files(const char *const *paths, int n, const hf_open_opts *opts, GPtrArray *out,
                   GError **err);
/* What users call a format ("HPROF heap dump", "Go pprof"), by its
 * decoder's short name (hf_dump_ops.format: "hprof", "gopprof"); the short
 * name itself for one the registry does not know. */
const char *hf_format_label(const char *format);
/* MOUNT/info's first two lines: "format: SHORT", the key tools and tests
 * read, and "format name: LABEL" (hf_format_label) for people. */
void hf_info_format(GString *out, const char *format);
void hf_dump_close(hf_dump *d);

/* A hostile file can hold millions of problems: the list keeps the first
 * HF_PROBLEMS_MAX, and counts the rest (the errors file says how many). */
#define HF_PROBLEMS_MAX 1000

/* Helpers for decoders. */
void hf_dump_init(hf_dump *d, const hf_dump_ops *ops, const char *path, GMappedFile *map);
void hf_dump_clear(hf_dump *d); /* frees the common part */
void hf_problem(hf_dump *d, uint64_t offset, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* Problems that have no file offset (e.g. a dangling reference). */
void hf_problem_nooff(hf_dump *d, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* "indexing: 0.25 s, 4016 MB/s, 2 threads" and a newline, appended to out
 * when the decoder gave the figures (hf_dump.index_seconds). */
void hf_dump_index_figures(const hf_dump *d, GString *out);
/* While ops->after_mount runs, work that sizes itself by the memory free
 * (the retained sizes) waits for it: writing the index file gives the
 * index's anonymous memory back (core/keeparray.h), a third of the RAM
 * allowed on a dump of 600 M objects.  fs/main.c calls begin before it
 * serves requests and end once after_mount returned; without a begin
 * (--check, tests, formats without after_mount) await returns at once.
 * Thread-safe. */
void hf_dump_after_mount_begin(hf_dump *d);
void hf_dump_after_mount_end(hf_dump *d);
void hf_dump_await_after_mount(hf_dump *d);
/* hf_dump_ops.snapshot_number and trace_number for formats whose files
 * number neither: by position from 1 (snapshot s is s + 1). */
uint64_t hf_snapshot_ordinal(hf_dump *d, uint32_t s);
uint64_t hf_trace_ordinal(hf_dump *d, uint64_t t);

/* Problems found apart from the dump (on a scanning thread), kept in order
 * and appended to the dump's later with hf_problems_append, as if reported
 * then: the same lines, the same cap, the same count.  Zero-initialize. */
typedef struct {
    GPtrArray *lines; /* char *, "offset 0x1a2b: what", the first HF_PROBLEMS_MAX */
    uint64_t n;       /* all of them */
} hf_problem_list;
void hf_problem_list_add(hf_problem_list *l, uint64_t offset, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
void hf_problem_list_addv(hf_problem_list *l, uint64_t offset, const char *fmt, va_list ap)
    G_GNUC_PRINTF(3, 0);
/* Appends l's problems to d's and empties l. */
void hf_problems_append(hf_dump *d, hf_problem_list *l);
/* Forget the problems after the first n (a decoder that restarts a pass). */
void hf_problems_truncate(hf_dump *d, uint64_t n);

#endif
