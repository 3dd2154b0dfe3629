/*
 * pprof.h - the one writer of `heap.pprof` and `stacks.folded` views.
 *
 * Every decoder that has stacks (HPROF binary and text, BMD, OEMP,
 * gperftools) describes a snapshot as samples: a stack of frame names, leaf
 * first, and four values (in-use objects and bytes, allocated objects and
 * bytes).  This module turns those samples into
 *
 *  - heap.pprof: a legacy text heap profile that Debian's google-pprof
 *    (the Perl pprof of gperftools) reads with no binary:
 *
 *        --- symbol
 *        binary=NAME
 *        0x0000000000100000 frame name
 *        ...
 *        ---
 *        heap profile:   A:   B [   C:   D] @ heapprofile
 *             a:   b [   c:   d] @ 0x0000000000100000 0x...     (leaf first)
 *
 *    Each distinct frame name gets a synthetic address, 0x100000 + 16 * k
 *    for the k-th name in order of first appearance.  google-pprof maps the
 *    addresses back to the names of the symbol section and, because the
 *    file is "symbolized", does not subtract 1 from caller addresses.  The
 *    header kind is `heapprofile`, so pprof scales nothing: values are
 *    written as the decoder gives them (a decoder of sampled data scales
 *    before adding).  Totals are the sums of the sample lines, so
 *    `google-pprof --text` reports exactly the snapshot's totals.
 *
 *  - stacks.folded: "root;...;leaf VALUE" lines (flamegraph.pl, speedscope),
 *    one per distinct stack whose chosen value is not 0.
 *
 * Frame names are given as users know them (a Java frame with its source
 * position, a C function with file:line, "lib.so+0x1a2b").  What pprof
 * would mangle is rewritten in heap.pprof only, and the rules are exact:
 *  - control characters become spaces; surrounding spaces are dropped; an
 *    empty name becomes "[unnamed]";
 *  - "--" becomes "- -" (pprof splits a symbol at "--" into inlined frames);
 *  - a "<...>" that starts a name or follows a '.' (Java's <init> and
 *    <clinit>) becomes "[...]", because pprof strips "<...>" as C++ template
 *    arguments.  Other "<...>" stay, and pprof strips them as it always does.
 *  pprof itself then shortens names for display: it drops "(...)" (argument
 *  lists, and a Java frame's "(File.java:12)"), so it aggregates by
 *  function.  stacks.folded keeps names as given except that ';' (the frame
 *  separator) becomes ':' and control characters become spaces.
 * A sample with no frames gets the one frame "[no stack]", since pprof
 * ignores a line with no addresses.
 *
 * Identical stacks (same names in the same order) are merged by adding
 * their values (unless keep_lines, below); samples keep the order in which
 * each stack first appeared, so the same adds give the same bytes.
 *
 * Ownership: hf_pprof_new returns a builder owned by the caller
 * (hf_pprof_free).  hf_pprof_add copies the frame strings; the caller keeps
 * its own.  Render functions append to a caller's GString.
 *
 * Thread safety: building (hf_pprof_add) is single-threaded.  Once the last
 * sample is added, the builder is never changed again and every other
 * function may be called from several threads at once.  A decoder typically
 * builds one per snapshot the first time heap.pprof or stacks.folded is
 * rendered (under its own lock or g_once) and keeps it until destroy.
 *
 * Views are item sequences (see model.h render): the render functions take
 * `first` (item to start at) and `budget` (stop once out grew by at least
 * this many bytes) and return the next item or HF_DONE.
 */
#ifndef HF_PPROF_H
#define HF_PPROF_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hf_pprof hf_pprof;

/* One sample's values; also the totals. */
typedef struct {
    uint64_t inuse_objects;
    uint64_t inuse_bytes;
    uint64_t alloc_objects;
    uint64_t alloc_bytes;
} hf_pprof_values;

/* Which value stacks.folded shows. */
typedef enum {
    HF_PPROF_INUSE_OBJECTS,
    HF_PPROF_INUSE_BYTES,
    HF_PPROF_ALLOC_OBJECTS,
    HF_PPROF_ALLOC_BYTES,
} hf_pprof_which;

/* First synthetic address and the distance between two (see above). */
#define HF_PPROF_ADDR_BASE 0x100000u
#define HF_PPROF_ADDR_STEP 16u

/* The value `which` of v. */
uint64_t hf_pprof_pick(const hf_pprof_values *v, hf_pprof_which which);

/* A new, empty builder.  `binary` is written as "binary=NAME" (pprof prints
 * it in some outputs); NULL or "" gives "heapfs".  Copied. */
hf_pprof *hf_pprof_new(const char *binary);

/*
 * For a decoder that re-writes a profile pprof itself must scale (a sampled
 * gperftools or Go heap profile): `kind` replaces "heapprofile" after the
 * '@' of the header (e.g. "heapz_v2/524288"), and with keep_lines each
 * sample stays its own line, in order, and a sample with no frames is
 * written with no address, exactly as such files have it.  pprof scales
 * each line by its own average size, so merging lines would change the
 * totals; google-pprof then reads the same totals from heap.pprof as from
 * the original file.  Both strings are copied.
 */
typedef struct {
    const char *binary;
    const char *kind; /* NULL: "heapprofile" */
    bool keep_lines;
} hf_pprof_opts;
hf_pprof *hf_pprof_new_opts(const hf_pprof_opts *o);
void hf_pprof_free(hf_pprof *p);

/* Add a sample: frames[0..n) leaf first (n may be 0).  Values add to those
 * of an earlier sample with the same stack. */
void hf_pprof_add(hf_pprof *p, const char *const *frames, size_t n, const hf_pprof_values *v);

/* Sums of all samples (the header line of heap.pprof). */
void hf_pprof_totals(const hf_pprof *p, hf_pprof_values *out);
size_t hf_pprof_n_stacks(const hf_pprof *p);
size_t hf_pprof_n_frames(const hf_pprof *p); /* distinct names */

/* Reading a finished builder (decoders/pprof/proto.c writes heap.pb.gz
 * from these): the header kind and binary as given to hf_pprof_new_opts,
 * distinct frame name i (i < hf_pprof_n_frames, in order of first
 * appearance, as given: not rewritten), and sample i (i < hf_pprof_n_stacks):
 * its frame indices, leaf first, and values. */
const char *hf_pprof_kind(const hf_pprof *p);
const char *hf_pprof_binary(const hf_pprof *p);
const char *hf_pprof_frame(const hf_pprof *p, size_t i);
void hf_pprof_sample(const hf_pprof *p, size_t i, const uint32_t **frames, size_t *n,
                     hf_pprof_values *v);

/* heap.pprof.  Items: the symbol-section head, one per frame name, the
 * header, one per stack. */
uint64_t hf_pprof_render(const hf_pprof *p, uint64_t first, GString *out, size_t budget);

/* stacks.folded with the chosen value.  Items: one per stack (stacks whose
 * value is 0 give no line). */
uint64_t hf_pprof_render_folded(const hf_pprof *p, hf_pprof_which which, uint64_t first,
                                GString *out, size_t budget);

/* The two name rewrites above, appended to out (for tests and for decoders
 * that show the same names elsewhere). */
void hf_pprof_append_symbol(GString *out, const char *name);
void hf_pprof_append_folded_frame(GString *out, const char *name);

/* Hash and equality of a stack as a key: uint32 count, then that many
 * frame numbers (GHashTable functions, for merging equal stacks). */
guint hf_stack_hash(gconstpointer k);
gboolean hf_stack_equal(gconstpointer a, gconstpointer b);

#endif
