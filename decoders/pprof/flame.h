/*
 * flame.h - flame.svg: the samples of an hf_pprof builder (pprof.h) drawn
 * as a flame graph, one self-contained SVG (no network, no external file;
 * an inline script for zoom and search).
 *
 * The picture draws exactly what stacks.folded lists, with the same value
 * and the same frame text (hf_pprof_append_folded_frame): the root frame
 * "all" is the sum of stacks.folded, every other frame is the sum of the
 * lines whose stack starts with that frame's path.  Root at the bottom.
 * Siblings are ordered by name (as flamegraph.pl does), except that
 * siblings narrower than 1/HF_FLAME_MIN_PARTS of the total are put last
 * and drawn as one merged frame "[N smaller frames]" (data-m="1", not
 * expanded further), and is itself left out when narrower still: a
 * picture holds at most HF_FLAME_MIN_PARTS frames per level, whatever the
 * profile.  Omitted frames show as their parent's self width.
 *
 * Each frame is
 *     <g class="f" id="fN" data-x="X" data-v="V" data-d="D">
 *       <title>NAME (V bytes, P%)</title><rect .../><text ...>LABEL</text></g>
 * X: the frame's offset from the left of "all" in value units, V its
 * value, D its depth (0: "all").  Names are XML-escaped; labels are the
 * name cut (".." at the end) to fit the frame in a monospace font, or
 * empty, so that labels never overlap.
 *
 * In a browser: hovering shows the full text (<title>, and a details
 * line); clicking a frame zooms into it, "Reset Zoom" goes back; "Search"
 * prompts for a regular expression, highlights matching frames and says
 * what share of the total they hold (a frame under a matching frame is
 * not counted twice).  A URL fragment does the same for tests and links:
 * flame.svg#click=fN, #search=REGEX, #reset=1, several with '&', in that
 * order.  The results are
 * written to the root element: data-zoom="fN", data-matched="VALUE".
 *
 * Thread safety: reads a finished builder only (see pprof.h), so it may
 * run on several threads at once.
 */
#ifndef HF_FLAME_H
#define HF_FLAME_H

#include "decoders/core/svg.h"
#include "decoders/pprof/pprof.h"

#define HF_FLAME_MIN_PARTS 1000 /* frames narrower than total/this are merged */
#define HF_FLAME_WIDTH 1200     /* pixels */

/* flame.svg of p's `which` value; `title` is the heading (copied into the
 * picture, escaped), `unit` names the value ("bytes").  One item: renders
 * everything when first is 0, nothing after. */
uint64_t hf_flame_render(const hf_pprof *p, hf_pprof_which which, const char *title,
                         const char *unit, uint64_t first, GString *out, size_t budget);

/* flame-diff.svg: the same picture of `now`, each frame also given the
 * `which` value of the stacks of `before` with the same path of names,
 * as data-b="B" (a stack only `before` has counts in the B of its
 * ancestors that `now` has, and is not drawn itself).  Hover text
 * "NAME (V unit, P%; before B unit; change +D unit)" (-D when it shrank);
 * fill rgb(255,c,c) where the frame grew or stayed, rgb(c,c,255) where it
 * shrank, c = 250 for no change, else 210 - 180 * |D| / the largest |D|
 * of a frame above "all" ("all"'s |D| capped at that; merged frames
 * grey).  Zoom, search and URL
 * fragment as flame.svg.  Appends the whole picture. */
void hf_flame_render_diff(const hf_pprof *now, const hf_pprof *before, hf_pprof_which which,
                          const char *title, const char *unit, GString *out);

#endif
