/*
 * cancel.h - asking long computations to give up because the mount is
 * going away (SIGTERM, SIGINT, fusermount3 -u, the FUSE connection
 * aborted): libfuse's loop joins its workers before the daemon can exit,
 * so a worker computing a snapshot's dominators for minutes would keep the
 * daemon, and the mount, alive that long.
 *
 * fs/main.c installs the question ("has the FUSE session exited?") once
 * the session exists, and removes it after the loop has joined every
 * worker.  The heap layer's long loops (decoders/heap/graph.c, retained.c,
 * dominators.c) ask every HF_CANCEL_EVERY steps and give up: a graph
 * function returns false, a computation fails with "cancelled", a view
 * ends early.  What was given up is never kept (no results file).  Without
 * a question installed (--check, unit tests, tools) nothing is cancelled.
 *
 * Thread safety: hf_cancel_when is called from one thread while no other
 * asks (before serving, after the loop); hf_cancelled from any thread.
 */
#ifndef HF_CANCEL_H
#define HF_CANCEL_H

#include <stdbool.h>
#include <stdint.h>

#define HF_CANCEL_EVERY 65536u /* steps of a loop between two questions */

/* Install the question: fn(ud) true means give up.  NULL: never. */
void hf_cancel_when(bool (*fn)(void *ud), void *ud);
/* Whether to give up now. */
bool hf_cancelled(void);

/* In a loop: hf_cancelled(), asked only at every HF_CANCEL_EVERY-th step i. */
static inline bool hf_cancel_due(uint64_t i)
{
    return i % HF_CANCEL_EVERY == 0 && hf_cancelled();
}

#endif
