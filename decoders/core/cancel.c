/*
 * cancel.c - see cancel.h.
 */
#include "decoders/core/cancel.h"

#include <glib.h>

static bool (*question)(void *ud);
static void *question_ud;

void hf_cancel_when(bool (*fn)(void *ud), void *ud)
{
    g_atomic_pointer_set(&question_ud, ud);
    g_atomic_pointer_set(&question, fn);
}

bool hf_cancelled(void)
{
    bool (*fn)(void *) = g_atomic_pointer_get(&question);
    return fn && fn(g_atomic_pointer_get(&question_ud));
}
