/* guard.c - see guard.h. */
#include "fs/guard.h"

#include <glib.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The handler only uses lock-free atomics (async-signal-safe). */
G_STATIC_ASSERT(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2 &&
                ATOMIC_BOOL_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2);
G_STATIC_ASSERT(sizeof(size_t) == sizeof(unsigned long));

#define SLOTS 64

typedef struct {
    _Atomic uintptr_t base; /* 0: free */
    _Atomic size_t len;
    atomic_bool tripped;
} slot;

typedef struct block {
    slot s[SLOTS];
    struct block *_Atomic next; /* never freed, never moved */
} block;

static block first;
static GMutex writers; /* adders and removers; never the handler */
static atomic_int n_tripped; /* tripped slots still registered */
static atomic_flag installed = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t addr = (uintptr_t)si->si_addr;
    for (block *b = &first; b; b = atomic_load(&b->next)) {
        for (int i = 0; i < SLOTS; i++) {
            uintptr_t base = atomic_load(&b->s[i].base);
            size_t len = atomic_load(&b->s[i].len);
            if (!base || addr < base || addr - base >= len)
                continue;
            /* Replace the whole mapping with zeros: the read that faulted,
             * and every later one, completes instead of faulting again. */
            mmap((void *)base, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (!atomic_exchange(&b->s[i].tripped, true))
                atomic_fetch_add(&n_tripped, 1);
            return;
        }
    }
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void install(void)
{
    if (atomic_flag_test_and_set(&installed))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* A free slot, a new block chained on when all are taken (writers held). */
static slot *free_slot(void)
{
    block *b = &first;
    for (;; b = atomic_load(&b->next)) {
        for (int i = 0; i < SLOTS; i++)
            if (!atomic_load(&b->s[i].base))
                return &b->s[i];
        if (!atomic_load(&b->next))
            break;
    }
    block *nb = g_new0(block, 1);
    atomic_store(&b->next, nb); /* published whole: the handler may follow it now */
    return &nb->s[0];
}

void hf_guard_add(const void *base, size_t len)
{
    if (!base || !len)
        return;
    install();
    /* Mappings are page aligned; round the length up so the whole last
     * page is covered. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g_mutex_lock(&writers);
    slot *s = free_slot();
    atomic_store(&s->tripped, false);
    atomic_store(&s->len, (len + page - 1) / page * page);
    atomic_store(&s->base, (uintptr_t)base); /* last: the slot is live from here */
    g_mutex_unlock(&writers);
}

void hf_guard_remove(const void *base)
{
    if (!base)
        return;
    g_mutex_lock(&writers);
    for (block *b = &first; b; b = atomic_load(&b->next))
        for (int i = 0; i < SLOTS; i++)
            if (atomic_load(&b->s[i].base) == (uintptr_t)base) {
                atomic_store(&b->s[i].base, 0);
                if (atomic_exchange(&b->s[i].tripped, false))
                    atomic_fetch_sub(&n_tripped, 1);
                goto out;
            }
out:
    g_mutex_unlock(&writers);
}

bool hf_guard_tripped(void)
{
    return atomic_load(&n_tripped) > 0;
}
