/*
 * workmem.h - where a long computation's big working arrays live: in RAM,
 * or, for a computation larger than the memory the daemon may use, in
 * files of the cache directory mapped into memory, so that the kernel
 * writes them out and reads them back as the page cache allows instead of
 * the daemon running out of memory (decoders/heap/retained.c: the
 * dominators of a heap dump larger than memory; docs/retained.md).
 *
 * A computation opens an hf_work on its thread (hf_work_begin); from then
 * until hf_work_end, hf_work_alloc on that thread (and on helper threads
 * that joined it) places each array: in
 * RAM (g_try_malloc) while the RAM the computation's arrays hold stays
 * within its budget, else in a file.  The budget is the mount's choice
 * (-o retained_mem=): auto (half the memory available to the daemon,
 * hf_mem_available: the rest stays for the page cache, which holds the
 * dump and the files' pages; and no more than keeps the daemon's
 * anonymous memory, its index included, within a third of hf_mem_total:
 * what the kernel cannot page out stays small, so a dump larger than
 * memory leaves the page cache most of it), ram (no bound), file (0: every array in a
 * file, even a small one: what the tests use), or a size.  Without an
 * hf_work (tests of graph.c, tools) hf_work_alloc is g_try_malloc.
 *
 * A file is made with O_TMPFILE in the directory given (else mkstemp's
 * heapfs-work.PID.XXXXXX, unlinked at once), its blocks reserved with
 * posix_fallocate (a full disk is a failed allocation, never a SIGBUS on
 * a write), mapped MAP_SHARED and its descriptor closed: it has no name
 * from the start, so nothing is left behind on any exit, a crash included,
 * and its pages count as page cache, not as the daemon's anonymous memory.
 *
 * Ownership: an array from hf_work_alloc is freed by hf_work_free (any
 * thread, before or after hf_work_end), which also takes what g_malloc
 * gave.  Arrays outlive their hf_work.
 *
 * Thread safety: an hf_work belongs to the thread that began it (a
 * thread-local "current" one), and to the helper threads that join it
 * (hf_work_join): their arrays are placed by the same budget, in the same
 * directory, counted in the same peak, and their phases listed beside the
 * owner's.  Everything an hf_work holds is under one lock (the table of
 * arrays' too), so its threads may allocate, free and start phases at
 * once; hf_work_end is the owner's, after every helper has left.
 */
#ifndef HF_WORKMEM_H
#define HF_WORKMEM_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* -o retained_mem=: how much of the working arrays may be in RAM. */
typedef enum { HF_WORK_AUTO, HF_WORK_RAM, HF_WORK_FILE, HF_WORK_LIMIT } hf_work_mode;
typedef struct {
    hf_work_mode mode;
    uint64_t limit; /* HF_WORK_LIMIT: bytes */
} hf_work_opt;

/* The option's text as heapfs -o takes it ("auto", "ram", "file", or
 * the size in bytes), into buf. */
const char *hf_work_opt_name(const hf_work_opt *o, char *buf, size_t len);

/* Memory the daemon may still take, in bytes: MemAvailable of
 * ROOT/proc/meminfo, lowered by every memory cgroup above the process
 * (ROOT/proc/self/cgroup; v2 memory.max and memory.high, v1
 * memory.limit_in_bytes, at each level up to the root: the limit less
 * what the cgroup holds other than page cache).  root is "" for the
 * machine's own.  *why (to g_free, may be NULL) names what bounded it.
 * $HEAPFS_TEST_MEM_AVAILABLE (bytes), when set, is the answer: the tests'
 * way to play a small machine. */
uint64_t hf_mem_available(const char *root, char **why);
/* The memory the daemon could have at all: the least of MemTotal and the
 * limits of the memory cgroups above it (read as hf_mem_available does);
 * UINT64_MAX when unknown or $HEAPFS_TEST_MEM_AVAILABLE is set;
 * $HEAPFS_TEST_MEM_TOTAL (bytes), when set, is the answer. */
uint64_t hf_mem_total(const char *root);
/* The process's anonymous memory now (RssAnon), 0 when unknown. */
uint64_t hf_mem_anon(void);

/* The processors this process may run on (g_get_num_processors: the
 * online ones, within its affinity), looked up once per process: the
 * computations that split their work ask it often (each graph build), and
 * each lookup reads /sys. */
unsigned hf_work_cpus(void);

typedef struct hf_work hf_work;

/* Threads of one computation: the owner and up to HF_WORK_THREADS - 1
 * helpers at a time. */
#define HF_WORK_THREADS 8

/* Opens the calling thread's hf_work: arrays go to files in dir (made
 * 0700 when missing) past the budget o gives.  Thread-local: one per
 * thread at a time. */
hf_work *hf_work_begin(const hf_work_opt *o, const char *dir);
/* Closes it; appends to out (may be NULL) what it did, e.g. "working
 * arrays in RAM (peak 1.2 GiB; auto: 9.1 GiB available, MemAvailable)"
 * or "... peak 0.5 GiB in RAM, 3.1 GiB in files in DIR ...", and the
 * page faults the process took since hf_work_begin (getrusage: all its
 * threads, the computation's helpers included). */
void hf_work_end(hf_work *w, GString *out);
/* Starts phase `name` (a static string) of the calling thread's
 * computation, ending the one before: hf_work_end lists what each phase
 * cost the process ("phases (seconds, CPU seconds, major faults, GiB
 * read): dfs 12.3 10.1 4567 0.02, ..."; read: /proc/self/io's
 * read_bytes), to see which access order costs; G_MESSAGES_DEBUG=all
 * logs each as it ends.  While helpers run, the list is of slices of
 * time named by the phases of all the threads in them, owner first
 * ("bfs+transpose 0.6 1.1 0 0.00": the figures are the process's, so
 * both threads' together; the slices' seconds add up), and hf_work_end
 * says how many phases ran on helpers ("2 phases on helper threads").  NULL ends the
 * thread's phase without starting another.  Nothing without an hf_work. */
void hf_work_phase(const char *name);
/* The calling thread's hf_work (its own or the one it joined), NULL. */
hf_work *hf_work_current(void);
/* Makes w the calling thread's, a helper of its owner's computation
 * (another thread, which has none): its arrays and phases are w's until
 * hf_work_leave.  At most HF_WORK_THREADS - 1 helpers at once. */
void hf_work_join(hf_work *w);
/* Ends the calling helper's phase and its part in the hf_work it joined;
 * its arrays stay counted in it until freed. */
void hf_work_leave(void);
/* How many of w's allocations failed so far (no RAM, no file). */
unsigned hf_work_failures(const hf_work *w);

/* bytes of memory for the calling thread's computation, uninitialized
 * (file: zeros); NULL when neither RAM nor a file can be had. */
void *hf_work_alloc(size_t bytes);
/* The same, zeroed. */
void *hf_work_alloc0(size_t bytes);
/* Sets aside `bytes` of the RAM budget, under the name `what` (a static
 * string), for an array the computation asks for later: the first
 * hf_work_alloc or hf_work_alloc0 of exactly that many bytes takes it and
 * is RAM whatever was asked for between, which the budget places as if
 * the reservation were held already.  So an array written at random late
 * in the computation (the link-eval forest of the dominators) gets the RAM
 * before the arrays asked for earlier but read in order or only read.
 * False, with nothing set aside, when the budget has no room for it (the
 * array is then placed as any other).  hf_work_end says what was reserved
 * and gives back a reservation no allocation took.  Without an hf_work:
 * true, and nothing to do. */
bool hf_work_reserve(size_t bytes, const char *what);
/* hf_work_alloc for an array read and written in order only: once the
 * computation has an array in a file, this one goes to a file too, and
 * the RAM left is for the arrays read at random, whose page faults in a
 * file cost a read each (a pass in order reads ahead). */
void *hf_work_alloc_seq(size_t bytes);
void hf_work_free(void *p);
/* Phases beside each other (beside.c). */

/* Whether a computation over `items` (objects) runs two phases that add
 * `more` bytes of arrays side by side on two threads: with two processors
 * or more, for a million items or more (a thread costs more than it saves
 * below, and the tests mount hundreds of small dumps), when every array of
 * the calling thread's computation is in RAM and those bytes would be
 * too.  Not when arrays are in files: two phases reading at random at once
 * share a page cache that one alone fills already, each evicting the
 * other's pages, and a file's page fault costs a read (a second thread
 * waiting on the disk does not make the first one faster).
 * $HEAPFS_RETAINED_THREADS, 1 or 2, decides instead (the tests' way to run
 * the threads on small dumps, and in files). */
bool hf_work_beside_pays(uint64_t items, uint64_t more);
/* fn(arg), a phase beside the caller's: on a thread of its own that joins
 * the calling thread's hf_work (when `thread` and one can be had), else on
 * the caller's thread when it asks for the result.  hf_work_beside_end
 * waits for it and returns fn's result (without a thread: runs it then,
 * unless no longer `wanted`: false), and frees b. */
typedef struct hf_beside hf_beside;
hf_beside *hf_work_beside_start(bool thread, bool (*fn)(void *arg), void *arg);
bool hf_work_beside_end(hf_beside *b, bool wanted);
/* Whether fn runs on a thread of its own (so the caller may wait for
 * something it does before hf_work_beside_end). */
bool hf_work_beside_threaded(const hf_beside *b);
/* For a helper that must wait until array p is given back (so that its
 * own arrays do not raise the peak): *freed is set true, under workmem's
 * lock, when p is freed (at once when p is not hf_work_alloc's), and
 * hf_work_await_free(freed) blocks until it is.  *freed must live until
 * then, and p must be freed at some point: nothing else wakes the waiter.
 * One watcher per array: a second watch of p replaces the first. */
void hf_work_watch_free(void *p, bool *freed);
void hf_work_await_free(const bool *freed);
/* Whether hf_work_alloc(bytes) would now give RAM (always, without an
 * hf_work): a computation may fill an array earlier than it needs it when
 * it costs no RAM (retained.c: the shallow sizes read with the references,
 * one pass over the dump less). */
bool hf_work_in_ram(size_t bytes);
/* The bytes of the calling thread's computation in files now (0 without
 * an hf_work). */
uint64_t hf_work_in_files(void);
/* Whether p (hf_work_alloc's) is in a file. */
bool hf_work_is_file(const void *p);
/* An array kept after the computation, of `bytes` bytes: when the
 * computation has arrays in files and p is in RAM, p copied to a file
 * (hf_work_alloc_seq) and freed, so that what a mount keeps past a budget
 * is not anonymous memory; else p.  p as it was when no file can be had. */
void *hf_work_keep(void *p, size_t bytes);
/* Advice for an array read at random (no read-ahead of its file). */
void hf_work_random(void *p);
/* Advice for an array not read for a while (phases that need others):
 * its file's pages go first when the page cache is short (MADV_COLD), so
 * the arrays of the phases between keep theirs.  Nothing for RAM. */
void hf_work_cold(void *p);
/* Advice for an array in a file about to be read at random, some of whose
 * pages went while it was cold: the kernel reads them back now, in order
 * (MADV_WILLNEED), instead of one fault at a time.  Nothing for RAM. */
void hf_work_willneed(void *p);

#endif
