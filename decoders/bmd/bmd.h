/*
 * bmd.h - internals of the BMD decoder: binary memory dumps written by the
 * hprof-tools "cruncher" from HPROF dumps on Android devices (the format:
 * docs/formats.md).
 *
 * Files:
 *   decoder.c  detection, open, destroy, the tables of views, the ops table.
 *   read.c     varints, values, the header and every record body: pure
 *              functions over a pointer and an end, no state, thread-safe;
 *              and the codec that reads objects back from their records.
 *   scan.c     the passes over the file (records in any order), and the
 *              heap graph built from the last one (heap.h).
 *   render.c   the views that are BMD's own (info, snapshot info, strings).
 *   legacy.c   legacy HPROF records: frames, traces, threads (a BMD extra).
 *   names.c    hashed names: Java's String.hashCode, the -o names= file,
 *              resolving hashes, placeholders (a BMD extra).
 *
 * What a BMD file keeps of the original HPROF dump: class definitions with
 * their object fields (primitive instance fields are usually dropped and
 * only their total size kept), instances, object arrays, primitive arrays
 * as type and length only, GC roots as bare ids, strings (most of them only
 * as a length and a hash), and "legacy" HPROF records (frames, traces,
 * threads) with their original bodies, whose ids are the original HPROF
 * ids: they are decoded with the parsers of decoders/hprof/records.h.
 *
 * Ownership: a bmd_dump is an hf_heap (embedded first) and everything in it
 * belongs to it; hf_dump_close frees it.  Thread safety: built in open(),
 * read-only afterwards (the codec keeps one per-thread cursor, see
 * read.c).
 */
#ifndef HF_BMD_H
#define HF_BMD_H

#include "decoders/heap/heap.h"
#include "decoders/heap/profile.h"

/* Record tags. */
enum {
    BMD_STRING = 1, BMD_HASHED_STRING = 2, BMD_CLASS = 3, BMD_INSTANCE = 4, BMD_ROOTS = 5,
    BMD_OBJARRAY = 6, BMD_PRIMARRAY = 7, BMD_LEGACY = 8, BMD_NTAGS = 9
};
/* "string", "hashed string", ... by tag; [0] is "unknown". */
extern const char *const bmd_tag_names[BMD_NTAGS];

/* Result of every reader.  BMD_CUT: the bytes end before the item does
 * (a truncated file).  BMD_BAD: the bytes cannot be this item (a varint
 * longer than 10 bytes, a type that is not one); *why says what.
 * BMD_UNKNOWN (instances only): the reader does not know a class the
 * record's length depends on. */
typedef enum { BMD_OK, BMD_CUT, BMD_BAD, BMD_UNKNOWN } bmd_status;

/* ---- varints and values ---- */

/* A protobuf varint at *p: 7 bits a byte, least significant first, at most
 * 10 bytes (a negative int32 is sign-extended and takes 10).  On BMD_OK *p
 * is past it. */
static inline bmd_status bmd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    if (G_LIKELY(q < end && *q < 0x80)) { /* most varints are one byte */
        *v = *q;
        *p = q + 1;
        return BMD_OK;
    }
    uint64_t r = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (q >= end)
            return BMD_CUT;
        uint8_t b = *q++;
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            *p = q;
            return BMD_OK;
        }
    }
    return BMD_BAD;
}
/* A varint32: like Java's reader, the bits above 32 are dropped (so a
 * 10-byte negative int reads back as that int). */
static inline bmd_status bmd_varint32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint64_t w = 0;
    bmd_status st = bmd_varint(p, end, &w);
    *v = (uint32_t)w;
    return st;
}

/* HF_T_* of BMD field type t (0 object, 1 int, 2 boolean, 3 byte, 4 char,
 * 5 float, 6 double, 7 long, 8 short); 0 when t is none of them. */
unsigned bmd_hf_type(uint64_t t);
/* One value of type t (HF_T_*) in BMD's encoding: object, int and short
 * varint32; long varint64; float and double raw little-endian; boolean and
 * byte one raw byte; char two raw bytes, high byte first.  *v gets the raw
 * bits as heap.h keeps them (floats as IEEE bits, short as 16 bits). */
bmd_status bmd_value(unsigned t, const uint8_t **p, const uint8_t *end, uint64_t *v);

/* ---- header and records ----
 * Each parser starts at *p = the record body (past the tag varint), fills
 * *out and on BMD_OK leaves *p at the end of the record, except
 * bmd_parse_instance, which leaves it at the instance data (its length
 * depends on the class chain).  Pointers in *out point into the bytes. */

typedef struct {
    uint32_t version;
    const uint8_t *meta; /* metadata: real files hold the HPROF header string */
    uint32_t meta_len;
    size_t len;          /* of the whole header */
} bmd_header;
bmd_status bmd_parse_header(const uint8_t *b, size_t len, bmd_header *out);

typedef struct {
    uint32_t id, len;
    const uint8_t *text; /* UTF-8, not NUL-terminated */
} bmd_string;
bmd_status bmd_parse_string(const uint8_t **p, const uint8_t *end, bmd_string *out,
                            const char **why);

typedef struct {
    uint32_t id, len; /* len: bytes of the original string (UTF-8) */
    int32_t hash;     /* Java String.hashCode() of the original */
} bmd_hashed;
bmd_status bmd_parse_hashed(const uint8_t **p, const uint8_t *end, bmd_hashed *out,
                            const char **why);

typedef struct {
    uint32_t id, super, name; /* name: string id */
    uint32_t n_consts, n_statics, n_fields;
    const uint8_t *consts, *statics, *fields; /* see bmd_next_member() */
    uint32_t discarded; /* bytes of instance fields the writer dropped */
} bmd_class;
bmd_status bmd_parse_class(const uint8_t **p, const uint8_t *end, bmd_class *out,
                           const char **why);

/* A constant {index, type, value}, a static {name, type, value} or an
 * instance field {name, type} of a class definition.  type is HF_T_*. */
typedef struct {
    uint32_t name; /* string id (constants: pool index) */
    uint8_t type;
    uint64_t value;
} bmd_member;
/* Reads the next member at *p; with_value for constants and statics. */
bmd_status bmd_next_member(const uint8_t **p, const uint8_t *end, bool with_value,
                           bmd_member *m, const char **why);

typedef struct {
    uint32_t id, cls;
} bmd_instance;
bmd_status bmd_parse_instance(const uint8_t **p, const uint8_t *end, bmd_instance *out,
                              const char **why);

typedef struct {
    uint32_t n;
    const uint8_t *ids; /* n varint32 object ids */
} bmd_roots;
bmd_status bmd_parse_roots(const uint8_t **p, const uint8_t *end, bmd_roots *out,
                           const char **why);

typedef struct {
    uint32_t id, cls, n; /* cls: in real files the array class */
    const uint8_t *elems; /* n varint32 object ids */
} bmd_objarray;
bmd_status bmd_parse_objarray(const uint8_t **p, const uint8_t *end, bmd_objarray *out,
                              const char **why);

typedef struct {
    uint32_t id, n;
    uint32_t type; /* BMD field type as written: check with bmd_hf_type() */
} bmd_primarray;
bmd_status bmd_parse_primarray(const uint8_t **p, const uint8_t *end, bmd_primarray *out,
                               const char **why);

typedef struct {
    uint32_t tag, len; /* original HPROF record tag and body length */
    const uint8_t *body;
} bmd_legacy;
bmd_status bmd_parse_legacy(const uint8_t **p, const uint8_t *end, bmd_legacy *out,
                            const char **why);

/* ---- hashed names (names.c) ---- */

/* Java's String.hashCode() of UTF-8 text (over its UTF-16 units). */
int32_t bmd_java_hash(const char *utf8, size_t len);

/* Candidate names from a names file: (hash, byte length) -> text. */
typedef struct bmd_names bmd_names;
/* Reads FILE: one candidate per line.  Each line is also tried slashed and
 * dotted, as a JVM descriptor when it reads like a display name
 * ("int[]" -> "[I", "java.lang.String[]" -> "[Ljava/lang/String;") and
 * the other way round, without a ".class" suffix (jar listings), and for a
 * line with several columns (a histogram) by its last column unescaped
 * (names.h) and without an "@0xID" suffix.  NULL with *err set when the
 * file cannot be read. */
bmd_names *bmd_names_load(const char *path, GError **err);
/* From text in memory (the same rules); for tests. */
bmd_names *bmd_names_from_text(const char *text, size_t len);
void bmd_names_free(bmd_names *n);
uint64_t bmd_names_count(const bmd_names *n); /* distinct candidate strings */
/* The candidate with this hash and length, NULL when none.  *ambiguous
 * (may be NULL) is set when several candidates share them: the first one
 * in the file is returned. */
const char *bmd_names_lookup(const bmd_names *n, int32_t hash, uint32_t len, bool *ambiguous);
/* The placeholder shown for a name kept only as a hash: "hash.LEN.HHHHHHHH"
 * (hash as 8 hex digits).  No Java class or field name can start like that
 * (a package name never starts with a digit), and grep finds it. */
void bmd_placeholder(GString *out, uint32_t len, int32_t hash);

/* ---- the decoder ---- */

/* One string record, kept or hashed, in the strings table. */
typedef struct {
    uint32_t id;
    uint32_t len;       /* bytes (both kinds) */
    int32_t hash;       /* hashed only */
    bool hashed;
    uint64_t off;       /* kept: file offset of the text */
    const char *resolved; /* hashed: the candidate that matched, else NULL */
} bmd_str;
G_STATIC_ASSERT(offsetof(bmd_str, id) == 0); /* search.h's serial helpers */

typedef struct bmd_dump {
    hf_heap heap; /* first: a bmd_dump is an hf_heap is an hf_dump */
    uint64_t serial;          /* unique per dump opened in this process */
    uint32_t version;
    char *metadata;           /* the header's metadata, as text */
    size_t header_len;
    uint64_t n_records[BMD_NTAGS]; /* records by tag ([0]: unreadable ones) */
    uint64_t n_legacy[256];        /* legacy records by original HPROF tag */
    uint64_t n_headers;            /* repeats of the header between records */
    unsigned legacy_idsz;          /* identifier size of the legacy bodies */
    bmd_str *strings;              /* sorted by id */
    uint32_t n_strings;
    uint64_t n_hashed, n_resolved, n_ambiguous, n_missing_strings;
    char *names_file;              /* -o names=, NULL when not given */
    uint64_t n_candidates;
    unsigned passes;               /* passes over the file the index took */
    uint64_t n_forward;            /* instances read before their class */
    uint64_t n_guessed;            /* instances of classes never defined */
    bool truncated;
} bmd_dump;

/* The passes (scan.c): fills everything above from the mapped file,
 * resolving hashed names with `names` (may be NULL), and calls
 * hf_heap_finish().  Problems go to hf_problem(). */
void bmd_index(bmd_dump *d, const bmd_names *names);
/* True when the bytes after the header read as BMD records (detection):
 * the first few, up to `end`.  A later record may run past `end` (the head
 * of a longer file, or a truncated one); the first only with allow_cut. */
bool bmd_records_plausible(const uint8_t *p, const uint8_t *end, bool allow_cut);
/* The strings table entry of string id, NULL when the file has none. */
const bmd_str *bmd_string_by_id(const bmd_dump *d, uint32_t id);

/* A legacy HPROF record of the file (legacy.c). */
typedef struct {
    uint32_t tag, len; /* original HPROF tag, body length */
    uint64_t body;     /* file offset of the body */
    uint64_t rec;      /* file offset of the BMD record (for problems) */
} bmd_legacy_ref;
/* Decodes the legacy records (in file order) into the heap's frames,
 * traces and threads, and sets d->legacy_idsz; before hf_heap_finish. */
void bmd_add_legacy(bmd_dump *d, const bmd_legacy_ref *refs, guint n);

/* The codec (read.c): objects read back from their records. */
extern const hf_heap_codec bmd_codec;

/* The views that are BMD's own (render.c), for decoder.c's tables. */
uint64_t bmd_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
uint64_t bmd_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
/* snapshots/1/strings: every string record, by id: "ID text TEXT",
 * "ID hashed hash.LEN.HASH" or "ID resolved NAME".  Item = string index. */
uint64_t bmd_view_strings(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
void bmd_describe(hf_dump *d, GString *out);

extern const hf_decoder hf_decoder_bmd;

#endif
