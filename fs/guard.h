/*
 * guard.h - survive a file that shrinks while it is mapped.
 *
 * Reading a mapped page past the new end of a truncated file raises
 * SIGBUS, which would kill the daemon and leave a dead mount.  Every
 * mapping that can shrink under us is registered here: the dumps (fs/main.c)
 * and every index and retained results file the decoders map
 * (decoders/core/mapwatch.h, from decoders/core/keepfile.c and
 * keeparray.c, for as long as each is mapped).  The handler checks that the fault lies in a registered
 * mapping, maps zero pages over that mapping (so the faulting read
 * completes, seeing zeros), and marks it tripped.  While a tripped mapping
 * is registered, fs/ answers every open and read of a view with EIO (only
 * the kernel's page cache still serves what it holds), because what the
 * decoders see is no longer the file.  A SIGBUS anywhere else is not ours:
 * the default action is restored and the signal re-raised.
 *
 * There is no limit on the number of mappings.  The handler may run at any
 * moment, on any thread, while another thread adds or removes a mapping, so
 * it must only read memory that is never freed or moved under it: the
 * ranges live in blocks of 64 slots, a static first block and further ones
 * allocated as needed, chained by atomic pointers and never freed (a block
 * is 2 KiB; a process needs as many as it has mappings at once, divided by
 * 64).  A slot's base, length and flag are lock-free atomics: adding writes
 * the length and then publishes the base; removing clears the base, and
 * the slot is reused by a later add.  Adders and removers take a mutex
 * among themselves; the handler takes nothing.  A fault in a mapping that
 * another thread is removing at that moment is a use after unmap in the
 * caller, which this cannot make safe.
 *
 * Thread-safe: hf_guard_add and hf_guard_remove from any thread (not from
 * a signal handler); hf_guard_tripped anywhere.
 */
#ifndef HF_GUARD_H
#define HF_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Register [base, base+len); installs the handler on first use.  A NULL
 * base or zero length is ignored. */
void hf_guard_add(const void *base, size_t len);
/* Forget the mapping registered at base (before it is unmapped). */
void hf_guard_remove(const void *base);
/* Whether a registered mapping faulted since it was added. */
bool hf_guard_tripped(void);

#endif
