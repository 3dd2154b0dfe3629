/* guard.c - see guard.h. */
#include "fs/guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_RANGES 64

static struct {
    uintptr_t base;
    size_t len;
} ranges[MAX_RANGES];
static atomic_int n_ranges;
static atomic_bool tripped;
static atomic_flag installed = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t addr = (uintptr_t)si->si_addr;
    int n = atomic_load(&n_ranges);
    for (int i = 0; i < n; i++) {
        if (addr >= ranges[i].base && addr < ranges[i].base + ranges[i].len) {
            /* Replace the whole mapping with zeros: the read that faulted,
             * and every later one, completes instead of faulting again. */
            mmap((void *)ranges[i].base, ranges[i].len, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            atomic_store(&tripped, true);
            return;
        }
    }
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

bool hf_guard_add(const void *base, size_t len)
{
    if (!base || !len)
        return true;
    if (!atomic_flag_test_and_set(&installed)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGBUS, &sa, NULL);
    }
    int i = atomic_load(&n_ranges);
    if (i >= MAX_RANGES)
        return false;
    /* Mappings are page aligned; round the length up so the whole last
     * page is covered. */
    long page = sysconf(_SC_PAGESIZE);
    ranges[i].base = (uintptr_t)base;
    ranges[i].len = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
    atomic_store(&n_ranges, i + 1);
    return true;
}

bool hf_guard_tripped(void)
{
    return atomic_load(&tripped);
}
