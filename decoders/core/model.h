/*
 * model.h - the neutral model every decoder presents to the rest of heapfs.
 *
 * A decoder detects its format, indexes the mapped file once (hf_open), and
 * then answers small questions ("how many objects in snapshot 2?", "what is
 * object 17 called?") and renders views ("object 17's fields") on demand.
 * fs/ builds the whole tree of DESIGN.md from these answers, so a new format
 * is a new decoder, never a new tree.  Nothing here knows about FUSE.
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

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* render() returns this when the view is complete. */
#define HF_DONE UINT64_MAX
/* Longest object, thread or ref name a decoder may produce (with NUL). */
#define HF_NAME_MAX 256

typedef struct hf_dump hf_dump;

/* What a render call is asked to produce. */
typedef enum {
    HF_V_INFO,   /* MOUNT/info */
    HF_V_TRACE,  /* traces/N: index = trace index */
    HF_V_THREAD, /* threads/T/FILE: index = thread, file = HF_THREAD_* */
    HF_V_SNAP,   /* snapshots/S/FILE: file indexes snap_files() */
    HF_V_CLASS,  /* classes/C/FILE: index = class, file = HF_CLASS_* */
    HF_V_OBJECT, /* objects/O/FILE: index = object, file = HF_OBJ_* */
} hf_view_kind;

enum { HF_THREAD_INFO, HF_THREAD_STACK, HF_THREAD_NFILES };
enum { HF_CLASS_INFO, HF_CLASS_FIELDS, HF_CLASS_STATICS, HF_CLASS_INSTANCES, HF_CLASS_NFILES };
/* HF_OBJ_STACK: the call stack where the object was created, for formats
 * that keep it apart from info (OEMP), so grep of info matches names only. */
enum { HF_OBJ_INFO, HF_OBJ_FIELDS, HF_OBJ_VALUE, HF_OBJ_STACK, HF_OBJ_NFILES };
/* Extra bits of object_parts(): which symlinks/dirs an object has. */
#define HF_OBJ_HAS_REFS (1u << 8)  /* refs/ directory */
#define HF_OBJ_HAS_CLASS (1u << 9) /* class -> ../../classes/NAME */
#define HF_OBJ_HAS_SCOPE (1u << 10) /* scope -> ../OTHER (OEMP) */

typedef struct {
    hf_view_kind kind;
    uint32_t snap;  /* snapshot index, for SNAP/CLASS/OBJECT */
    uint64_t index; /* trace, thread, class or object index */
    uint32_t file;  /* which file of that node */
} hf_view;

/* Result of object_ref(): refs are addressed by slot (field position or
 * array element index), so lookups by name need no scan. */
typedef enum { HF_REF_OK, HF_REF_EMPTY, HF_REF_END } hf_ref_status;

/*
 * The operations a decoder implements.  An op left NULL means the format
 * lacks that part, and fs/ shows no directory for it (never an empty
 * stand-in).  All counts and indices are for the given snapshot `s`.
 */
typedef struct hf_dump_ops {
    const char *format; /* short name: "hprof", "oemp", "bmd", ... */
    void (*destroy)(hf_dump *d);
    /* A paragraph for the generated README: what each part holds. */
    void (*describe)(hf_dump *d, GString *out);

    uint32_t (*n_snapshots)(hf_dump *d);
    /* Directory name of snapshot s (1-based file order for HPROF, the
     * sequence number for OEMP).  Strictly ascending with s. */
    uint64_t (*snapshot_number)(hf_dump *d, uint32_t s);
    /* Plain files of snapshot s, in listing order; "cpu/samples" style names
     * (one '/') put a file in a subdirectory.  The array belongs to the dump.
     * The order must be the same at every mount of the same file. */
    uint32_t (*snap_files)(hf_dump *d, uint32_t s, const char *const **names);

    uint64_t (*n_traces)(hf_dump *d);
    uint64_t (*trace_number)(hf_dump *d, uint64_t t); /* ascending with t */

    uint64_t (*n_threads)(hf_dump *d);
    /* Unique, stable directory name of thread t (no '/'). */
    void (*thread_name)(hf_dump *d, uint64_t t, char name[HF_NAME_MAX]);

    uint64_t (*n_classes)(hf_dump *d, uint32_t s);
    /* Escaped, unique directory name (see names.h). */
    const char *(*class_name)(hf_dump *d, uint32_t s, uint64_t c);
    int64_t (*class_find)(hf_dump *d, uint32_t s, const char *name); /* -1 */
    int64_t (*class_super)(hf_dump *d, uint32_t s, uint64_t c);      /* -1 */
    /* Bit mask of (1 << HF_CLASS_*) files class c has. */
    uint32_t (*class_parts)(hf_dump *d, uint32_t s, uint64_t c);

    uint64_t (*n_objects)(hf_dump *d, uint32_t s);
    void (*object_name)(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX]);
    int64_t (*object_find)(hf_dump *d, uint32_t s, const char *name); /* -1 */
    /* Bit mask of (1 << HF_OBJ_*) files plus HF_OBJ_HAS_* bits. */
    uint32_t (*object_parts)(hf_dump *d, uint32_t s, uint64_t o);
    int64_t (*object_class)(hf_dump *d, uint32_t s, uint64_t o); /* -1 */
    /* Name of the object scope points at (HF_OBJ_HAS_SCOPE). */
    bool (*object_scope)(hf_dump *d, uint32_t s, uint64_t o, char target[HF_NAME_MAX]);
    /* Ref `slot` of object o: its entry name in refs/ and the name of the
     * object it points to (which may be absent from the dump). */
    hf_ref_status (*object_ref)(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                char name[HF_NAME_MAX], char target[HF_NAME_MAX]);
    int64_t (*object_ref_find)(hf_dump *d, uint32_t s, uint64_t o, const char *name);

    /*
     * Render view v, starting at item `first` (0 at the start), appending
     * to out.  A view is a sequence of items (usually lines); a renderer
     * may stop once out has grown by at least `budget` bytes and return the
     * index of the next item, or HF_DONE when finished.  Rendering from the
     * same `first` must always give the same bytes: fs/ serves big views by
     * re-rendering from checkpoints.  Small views may ignore budget.
     */
    uint64_t (*render)(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget);
} hf_dump_ops;

/* Common part of every decoder's dump; decoders embed it first. */
struct hf_dump {
    const hf_dump_ops *ops;
    char *path;          /* the dump file as given (first file of a series) */
    GMappedFile *map;    /* NULL for decoders that map several files */
    const uint8_t *data; /* map contents */
    size_t size;
    GPtrArray *problems; /* char *, "offset 0x1a2b: what" lines */
};

/* Options for opening a dump (heapfs -o ...).  Zero-initialize, set what
 * is wanted; a decoder ignores the options that do not apply to its
 * format.  Strings belong to the caller and need only live during the
 * open call. */
typedef struct hf_open_opts {
    /* BMD: a file of candidate names, one per line, to resolve names the
     * dump keeps only as a hash (-o names=FILE).  NULL: none.  A file that
     * cannot be read makes the open fail. */
    const char *names_file;
} hf_open_opts;

/* Decoder registry (registry.c). */
typedef struct {
    const char *format;
    /* True when head (the first `len` bytes of the file) is this format. */
    bool (*detect)(const uint8_t *head, size_t len);
    /* Index the mapped file.  On failure returns NULL and sets *err to one
     * line saying why.  Problems that still leave something to show go to
     * hf_problem() instead. */
    hf_dump *(*open)(const char *path, GMappedFile *map, GError **err);
    /* Several files as successive snapshots (NULL: one file only). */
    hf_dump *(*open_series)(const char *const *paths, int n, GError **err);
    /* open() with options (hf_open_opts; NULL means none).  NULL for a
     * decoder that takes no options: hf_open_with then calls open(). */
    hf_dump *(*open_opts)(const char *path, GMappedFile *map, const hf_open_opts *opts,
                          GError **err);
} hf_decoder;

#define HF_ERROR hf_error_quark()
GQuark hf_error_quark(void);
enum { HF_ERROR_OPEN, HF_ERROR_FORMAT, HF_ERROR_CORRUPT };

/* Open and index `path`, detecting the format from its content.  NULL with
 * *err set (one line, suitable for stderr) when nothing could be decoded. */
hf_dump *hf_open(const char *path, GError **err);
/* Several files of one series (gperftools prefix.0001.heap ...). */
hf_dump *hf_open_series(const char *const *paths, int n, GError **err);
/* The same with options (NULL: none, as the two above).  Decoders that open
 * series take no options yet: for n > 1 opts are not passed on. */
hf_dump *hf_open_with(const char *path, const hf_open_opts *opts, GError **err);
hf_dump *hf_open_series_with(const char *const *paths, int n, const hf_open_opts *opts,
                             GError **err);
void hf_dump_close(hf_dump *d);

/* Helpers for decoders. */
void hf_dump_init(hf_dump *d, const hf_dump_ops *ops, const char *path, GMappedFile *map);
void hf_dump_clear(hf_dump *d); /* frees the common part */
void hf_problem(hf_dump *d, uint64_t offset, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* Problems that have no file offset (e.g. a dangling reference). */
void hf_problem_nooff(hf_dump *d, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

#endif
