/*
 * guard.h - survive a dump file that shrinks while it is mapped.
 *
 * Reading a mapped page past the new end of a truncated file raises
 * SIGBUS, which would kill the daemon and leave a dead mount.  The guard's
 * handler checks that the fault lies in a registered mapping, maps zero
 * pages over that mapping (so the faulting read completes, seeing zeros),
 * and trips a flag.  From then on fs/ answers every open and read of a
 * view with EIO (only the kernel's page cache still serves what it holds),
 * because what the decoders see is no longer the dump.
 * A SIGBUS anywhere else is not ours: the default action is restored and
 * the signal re-raised.
 *
 * Call hf_guard_add for each mapping before serving requests.  Thread-safe:
 * the handler is async-signal-safe; hf_guard_tripped may be called anywhere.
 */
#ifndef HF_GUARD_H
#define HF_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Register [base, base+len); installs the handler on first use.  False
 * when the table of mappings is full. */
bool hf_guard_add(const void *base, size_t len);
bool hf_guard_tripped(void);

#endif
