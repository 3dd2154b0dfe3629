/*
 * compare.h - what changed from one snapshot to the next, maybe of two
 * dumps: `growth` (per class, site or type: objects and bytes then and
 * now), `strings-new` (strings whose text the earlier snapshot lacks) and
 * `flame-diff.svg` (drawn by decoders/pprof/flamediff.h).
 *
 * Two dumps of one program share no object ids (the collector moves
 * objects), so everything here compares by name and by content, never by
 * index or id: the decoders give names and totals (hf_dump_ops.tally) and
 * texts (hf_dump_ops.text), and a snapshot may be compared with one of
 * another format.
 *
 * Renderers follow the render protocol of model.h.  Pure functions of the
 * dumps, thread-safe; an hf_textset is read-only once made.
 */
#ifndef HF_COMPARE_H
#define HF_COMPARE_H

#include "decoders/core/model.h"

/* Whether growth (retained: growth-retained) can compare a with b;
 * computes nothing. */
bool hf_compare_has_growth(hf_snapref a, hf_snapref b, bool retained);
/* growth of b against a: one line per name whose objects or bytes
 * changed, by growth in bytes (largest first), then objects, then name;
 * "new" and "gone" mark names only one side has (a name with no objects
 * and no bytes, such as a site with nothing in use, counts as absent).  With `retained` the
 * bytes are retained bytes (they are computed for both snapshots). */
uint64_t hf_compare_growth(hf_snapref a, hf_snapref b, bool retained, uint64_t first,
                           GString *out, size_t budget);

/* Whether flame-diff.svg can draw b against a: both have stacks.folded
 * and their samples can be had (hf_dump_ops.stacks); computes nothing. */
bool hf_compare_has_flame_diff(hf_snapref a, hf_snapref b);
/* flame-diff.svg of b against a (b's hf_dump_ops.flame_diff). */
uint64_t hf_compare_flame_diff(hf_snapref a, hf_snapref b, uint64_t first, GString *out,
                               size_t budget);

/* MOUNT/growth.svg (growthsvg.c): bytes per snapshot as a line chart, the
 * total and the HF_GROWTH_SERIES names (classes, sites, types: the
 * tally's) whose bytes grew most from the first snapshot to the last
 * (largest growth first, then most bytes, then name).  At most
 * HF_GROWTH_POINTS snapshots are drawn, evenly spaced, first and last
 * included.  Each line is <g class="s" data-name="NAME" data-v="V...">
 * (the total's name is "total"), V the bytes at each drawn snapshot; the
 * root's data-snapshots lists their numbers.  Axes in bytes, KiB, MiB or
 * GiB, a legend with each line's growth; self-contained, no script. */
#define HF_GROWTH_SERIES 8
#define HF_GROWTH_POINTS 120
/* Whether n snapshots (in order) can be charted: two or more, each with
 * a tally.  Computes nothing. */
bool hf_growth_chart_has(const hf_snapref *snaps, uint32_t n);
/* The chart of snaps[0..n), named numbers[0..n); whole (render protocol:
 * everything at first 0). */
uint64_t hf_growth_chart(const hf_snapref *snaps, const uint64_t *numbers, uint32_t n,
                         uint64_t first, GString *out, size_t budget);

/* The texts of a snapshot's strings, as a set of 64-bit hashes (8 bytes a
 * distinct text; a text is taken as present when its hash is). */
typedef struct hf_textset hf_textset;
bool hf_compare_has_strings(hf_snapref a, hf_snapref b);
hf_textset *hf_textset_new(hf_snapref a);
void hf_textset_free(hf_textset *t);
/* strings-new: a "# id<TAB>text" header, then "ID<TAB>TEXT" (as `strings`
 * writes them, the text escaped) for every string of b whose text is not in
 * `before`, in object order; item 0 is the header, item o + 1 object o. */
uint64_t hf_compare_strings_new(const hf_textset *before, hf_snapref b, uint64_t first,
                                GString *out, size_t budget);

#endif
