/*
 * progress.h - one progress line on stderr while heapfs works at something
 * long (indexing a dump, computing dominators), when stderr is a terminal
 * and only then:
 *
 *     heapfs: indexing app.hprof: 42% of 1003.8 MB, 2150 MB/s, 0.3 s left
 *     heapfs: snapshot 1: reading references (2.1 s)
 *
 * rewritten in place (\r, then erase to the end of the line) at most every
 * HF_PROGRESS_INTERVAL_MS, and ended by a line of final figures and a
 * newline, or cleared.  Work measured in bytes shows percent, rate and
 * time left; work without a total shows its phase and the time so far.
 *
 * hf_progress_new returns NULL when stderr is not a terminal; every
 * function takes NULL and then does nothing, so callers need no test.
 * Ownership: the caller's, until hf_progress_end frees it.
 * Thread safety: hf_progress_add and hf_progress_phase may be called from
 * several threads at once (the count is atomic; one thread draws at a
 * time, and a thread that finds another drawing skips instead of waiting).
 * hf_progress_new and hf_progress_end are called once, from one thread.
 */
#ifndef HF_PROGRESS_H
#define HF_PROGRESS_H

#include <glib.h>
#include <stdint.h>

#define HF_PROGRESS_INTERVAL_MS 250

typedef struct hf_progress hf_progress;

/* A line about `what` (copied), for `total` bytes of work (0: unmeasured);
 * drawn at once.  NULL when stderr is not a terminal. */
hf_progress *hf_progress_new(const char *what, uint64_t total);
/* `bytes` more done; redraws when the last drawing is old enough. */
void hf_progress_add(hf_progress *p, uint64_t bytes);
/* What is being done now (static text, or NULL), drawn at once. */
void hf_progress_phase(hf_progress *p, const char *phase);
/* Ends the line: replaced by "heapfs: WHAT: " and the formatted figures and
 * a newline, or erased when fmt is NULL.  Frees p. */
void hf_progress_end(hf_progress *p, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

#endif
