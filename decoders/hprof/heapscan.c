/*
 * heapscan.c - the heap dump bodies (HEAP DUMP and HEAP DUMP SEGMENT
 * records) scanned on several threads.
 *
 * scan.c's pass over the top-level records queues every body here in file
 * order, with the snapshot it belongs to (hprof_heapscan_add), and the
 * problems of the top-level records around them (hprof_heapscan_problem).
 * hprof_heapscan_run then scans the bodies on up to `threads` threads
 * (GThread; the calling thread is one of them), each body on its own: a
 * body is a sequence of sub-records that owes nothing to the bodies before
 * it, so its objects, roots, class dump offsets, layout evidence and
 * problems are its own.  Objects are keyed by class as they are met
 * (build.h: hf_hkeys, one table per thread and snapshot) and handed over as
 * runs, so hf_heap_finish reads no record back.  Afterwards the calling
 * thread hands everything to the snapshots in file order: the index is the
 * same whatever the number of threads, problems and their order included.
 * A single big HEAP DUMP record is one body, scanned by one thread.
 *
 * Ownership: the scan owns the key tables until hprof_heapscan_free, which
 * must come after hf_heap_finish.  Thread safety: while running, threads
 * share the job list (each job written by the one thread that took it),
 * an atomic cursor into it, and the progress line.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/heap/build.h"
#include "decoders/core/workmem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>

#define THREADS_MAX 64 /* so that key numbers fit (build.h) */
/* Body bytes per default thread: below this a thread costs more to start
 * (and, on a loaded machine, to be scheduled) than it saves. */
#define BYTES_PER_THREAD ((uint64_t)1 << 20)

typedef struct {
    uint64_t off, heap_id, name;
} heap_info;

typedef struct {
    /* the body [b, e) of snapshot snap; a job without one holds problems
     * of the top-level records only */
    uint64_t b, e;
    uint32_t snap;
    bool body, new_snap, cut;
    /* what its scan found */
    hf_hrun *run;        /* objects other than classes */
    hf_hpairs classes;   /* class objects, {id, loc} */
    GArray *roots;       /* hf_hroot */
    GArray *class_dumps; /* uint64 sub-record offsets */
    GArray *infos;       /* heap_info: Android HEAP DUMP INFO */
    hf_hlayout layout;   /* evidence within the body */
    uint64_t first_id;   /* of the first object noted, if noted */
    bool noted;
    hf_problem_list problems;
} job;

typedef struct {
    hprof_heapscan *hs;
    uint64_t n_sub[256];
    GPtrArray *keys; /* hf_hkeys * per snapshot, NULL where none yet */
} worker;

struct hprof_heapscan {
    hprof_dump *d;
    GArray *jobs; /* job, file order */
    gint next;    /* the next job to take */
    uint64_t bytes;
    hf_progress *progress; /* the caller's, or NULL */
    worker *workers;
    unsigned n_workers;
};

hprof_heapscan *hprof_heapscan_new(hprof_dump *d)
{
    hprof_heapscan *hs = g_new0(hprof_heapscan, 1);
    hs->d = d;
    hs->jobs = g_array_new(FALSE, TRUE, sizeof(job));
    return hs;
}

void hprof_heapscan_add(hprof_heapscan *hs, uint32_t snap, bool new_snap, uint64_t b, uint64_t e,
                        bool cut)
{
    job j = {.b = b, .e = e, .snap = snap, .body = true, .new_snap = new_snap, .cut = cut};
    g_array_append_val(hs->jobs, j);
    hs->bytes += e - b;
}

void hprof_heapscan_problem(hprof_heapscan *hs, uint64_t off, const char *fmt, ...)
{
    if (!hs->jobs->len || g_array_index(hs->jobs, job, hs->jobs->len - 1).body) {
        job j = {0};
        g_array_append_val(hs->jobs, j);
    }
    va_list ap;
    va_start(ap, fmt);
    hf_problem_list_addv(&g_array_index(hs->jobs, job, hs->jobs->len - 1).problems, off, fmt, ap);
    va_end(ap);
}

static void add_root(job *j, unsigned kind, uint64_t id, uint32_t thread, uint32_t frame,
                     uint64_t extra)
{
    hf_hroot r = {.id = id, .extra = extra, .thread = thread, .frame = frame, .kind = (uint8_t)kind};
    if (!j->roots)
        j->roots = g_array_new(FALSE, FALSE, sizeof(hf_hroot));
    g_array_append_val(j->roots, r);
}

static void append_u64(GArray **a, uint64_t v)
{
    if (!*a)
        *a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_array_append_val(*a, v);
}

/* The first object of a body noted for the size rule (the evidence of the
 * body before it ends there). */
static inline void first_noted(job *j, uint64_t id)
{
    if (G_UNLIKELY(!j->noted)) {
        j->noted = true;
        j->first_id = id;
    }
}

/* An object at id follows, in the file, the instance inst (HF_HKEY_NONE:
 * none) at inst_id: evidence of that instance's size. */
static inline void next_object(hf_hkeys *keys, uint32_t *inst, uint64_t inst_id, uint64_t id)
{
    hf_hkeys_gap(keys, *inst, inst_id, id);
    *inst = HF_HKEY_NONE;
}

static hf_hkeys *worker_keys(worker *w, uint32_t snap)
{
    if (w->keys->len <= snap)
        g_ptr_array_set_size(w->keys, snap + 1);
    if (!w->keys->pdata[snap])
        w->keys->pdata[snap] = hf_hkeys_new();
    return w->keys->pdata[snap];
}

/* Read-ahead in steps of AHEAD: a dump larger than the page cache is not
 * populated before the scan (decoder.c), and the page faults' own
 * read-ahead (a few hundred KiB, two threads' streams apart) read a cold
 * 31 GB dump at 370 MB/s where this disk gives 1 GB/s.  So the next steps
 * are asked for while this one is parsed: reads in flight, never waited
 * for here.  Returns where to ask again. */
#define AHEAD ((size_t)32 << 20)
static const uint8_t *read_ahead(const uint8_t *p, const uint8_t *end)
{
    uintptr_t from = ((uintptr_t)p + AHEAD) & ~(uintptr_t)4095;
    if (from < (uintptr_t)end)
        madvise((void *)from, MIN(AHEAD, (size_t)((uintptr_t)end - from)), MADV_WILLNEED);
    return p + AHEAD;
}

/* The sub-records of one body. */
static void scan_body(worker *w, job *j)
{
    hprof_dump *d = w->hs->d;
    const uint8_t *base = d->heap.base.data;
    const unsigned idsz = d->heap.id_size;
    hf_hkeys *keys = worker_keys(w, j->snap);
    hf_hrun *run = j->run = g_new0(hf_hrun, 1);
    run->keys = keys;
    hf_hlayout *lay = &j->layout;
    uint32_t inst = HF_HKEY_NONE; /* the instance just before, for its class's size */
    uint64_t inst_id = 0;
    const uint8_t *p = base + j->b, *end = base + j->e, *ahead = p;
    while (p < end) {
        if (p >= ahead)
            ahead = read_ahead(p, end);
        uint8_t tag = p[0];
        size_t n = hprof_subrecord_len(p, end, idsz);
        uint64_t off = (uint64_t)(p - base);
        if (!n) {
            size_t probe = hprof_subrecord_len(p, base + d->heap.base.size, idsz);
            if (probe || tag == HPROF_GC_INSTANCE_DUMP || tag == HPROF_GC_OBJ_ARRAY_DUMP ||
                tag == HPROF_GC_PRIM_ARRAY_DUMP || tag == HPROF_GC_CLASS_DUMP ||
                tag == HPROF_GC_PRIM_ARRAY_NODATA || (tag >= 1 && tag <= 8) || tag == 0xFF ||
                (tag >= 0x89 && tag <= 0x8E) || tag == 0x90 || tag == 0xFE)
                hf_problem_list_add(&j->problems, off,
                                    j->cut ? "heap dump sub-record 0x%02x cut off by the end of the file"
                                           : "heap dump sub-record 0x%02x runs past the end of its record",
                                    tag);
            else
                hf_problem_list_add(&j->problems, off,
                                    "unknown heap dump sub-record 0x%02x: rest of the record skipped",
                                    tag);
            return;
        }
        w->n_sub[tag]++;
        uint64_t id = hprof_id(p + 1, idsz);
        const uint8_t *q = p + 1 + idsz + 4; /* past tag, id, stack serial */
        uint32_t key;
        switch (tag) {
        case HPROF_GC_INSTANCE_DUMP:
            next_object(keys, &inst, inst_id, id);
            key = hf_hkeys_note(keys, HF_K_INSTANCE, hprof_id(q, idsz), 0, 0);
            hf_hrun_add(run, id, off, key);
            first_noted(j, id);
            hf_heap_note_object(lay, id);
            inst = key, inst_id = id;
            break;
        case HPROF_GC_PRIM_ARRAY_NODATA: /* Android: no elements to measure */
            next_object(keys, &inst, inst_id, id);
            key = hf_hkeys_note(keys, HF_K_PRIMARRAY, 0, q[4], hprof_u4(q));
            hf_hrun_add(run, id, off, key);
            first_noted(j, id);
            hf_heap_note_object(lay, id);
            break;
        case HPROF_GC_OBJ_ARRAY_DUMP:
            next_object(keys, &inst, inst_id, id);
            key = hf_hkeys_note(keys, HF_K_OBJARRAY, hprof_id(q + 4, idsz), 0, hprof_u4(q));
            hf_hrun_add(run, id, off, key);
            first_noted(j, id);
            hf_heap_note_array(lay, id, true, hprof_u4(q));
            break;
        case HPROF_GC_PRIM_ARRAY_DUMP:
            next_object(keys, &inst, inst_id, id);
            key = hf_hkeys_note(keys, HF_K_PRIMARRAY, 0, q[4], hprof_u4(q));
            hf_hrun_add(run, id, off, key);
            first_noted(j, id);
            hf_heap_note_array(lay, id, false, n - (10 + idsz)); /* its elements */
            break;
        case HPROF_GC_CLASS_DUMP:
            if (G_UNLIKELY(j->classes.len == j->classes.cap))
                hf_hpairs_grow(&j->classes);
            j->classes.v[2 * j->classes.len] = id;
            j->classes.v[2 * j->classes.len + 1] = off;
            j->classes.len++;
            append_u64(&j->class_dumps, off);
            break;
        case HPROF_GC_ROOT_UNKNOWN:
            add_root(j, HF_ROOT_UNKNOWN, id, 0, UINT32_MAX, 0);
            break;
        case HPROF_GC_ROOT_JNI_GLOBAL:
            add_root(j, HF_ROOT_JNI_GLOBAL, id, 0, UINT32_MAX, hprof_id(p + 1 + idsz, idsz));
            break;
        case HPROF_GC_ROOT_JNI_LOCAL:
        case HPROF_GC_ROOT_JAVA_FRAME:
        case HPROF_GC_ROOT_JNI_MONITOR:
            add_root(j,
                     tag == HPROF_GC_ROOT_JNI_LOCAL    ? HF_ROOT_JNI_LOCAL
                     : tag == HPROF_GC_ROOT_JAVA_FRAME ? HF_ROOT_JAVA_FRAME
                                                       : HF_ROOT_JNI_MONITOR,
                     id, hprof_u4(p + 1 + idsz), hprof_u4(p + 5 + idsz), 0);
            break;
        case HPROF_GC_ROOT_NATIVE_STACK:
        case HPROF_GC_ROOT_THREAD_BLOCK:
            add_root(j, tag == HPROF_GC_ROOT_NATIVE_STACK ? HF_ROOT_NATIVE_STACK
                                                          : HF_ROOT_THREAD_BLOCK,
                     id, hprof_u4(p + 1 + idsz), UINT32_MAX, 0);
            break;
        case HPROF_GC_ROOT_THREAD_OBJ:
            add_root(j, HF_ROOT_THREAD_OBJECT, id, hprof_u4(p + 1 + idsz), UINT32_MAX,
                     hprof_u4(p + 5 + idsz));
            break;
        case HPROF_GC_ROOT_STICKY_CLASS:
            add_root(j, HF_ROOT_STICKY_CLASS, id, 0, UINT32_MAX, 0);
            break;
        case HPROF_GC_ROOT_MONITOR_USED:
            add_root(j, HF_ROOT_MONITOR_USED, id, 0, UINT32_MAX, 0);
            break;
        case HPROF_GC_ROOT_INTERNED_STRING:
        case HPROF_GC_ROOT_FINALIZING:
        case HPROF_GC_ROOT_DEBUGGER:
        case HPROF_GC_ROOT_REFERENCE_CLEANUP:
        case HPROF_GC_ROOT_VM_INTERNAL:
            add_root(j, HF_ROOT_INTERNED_STRING + (tag - HPROF_GC_ROOT_INTERNED_STRING), id, 0,
                     UINT32_MAX, 0);
            break;
        case HPROF_GC_UNREACHABLE:
            add_root(j, HF_ROOT_UNREACHABLE, id, 0, UINT32_MAX, 0);
            break;
        case HPROF_GC_HEAP_DUMP_INFO: {
            heap_info hi = {off, hprof_u4(p + 1), hprof_id(p + 5, idsz)};
            if (!j->infos)
                j->infos = g_array_new(FALSE, FALSE, sizeof(heap_info));
            g_array_append_val(j->infos, hi);
            break;
        }
        }
        p += n;
    }
}

static gpointer worker_main(gpointer ud)
{
    worker *w = ud;
    hprof_heapscan *hs = w->hs;
    for (;;) {
        gint i = g_atomic_int_add(&hs->next, 1);
        if (i >= (gint)hs->jobs->len)
            break;
        job *j = &g_array_index(hs->jobs, job, i);
        if (!j->body)
            continue;
        scan_body(w, j);
        hf_progress_add(hs->progress, j->e - j->b);
    }
    return NULL;
}

unsigned hprof_heapscan_threads(uint64_t bytes)
{
    const char *env = getenv("HEAPFS_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : 0;
    if (n < 1) {
        n = hf_work_cpus();
        uint64_t enough = bytes / BYTES_PER_THREAD;
        if (enough < (uint64_t)n)
            n = (long)enough;
    }
    return n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : (unsigned)n;
}

/* Android HEAP DUMP INFO: objects from off on belong to the named heap
 * (ids: the heap ids of this snapshot so far, by heap index). */
static void hand_over_info(hf_hsnap *sn, GArray *ids, const heap_info *hi)
{
    guint h;
    for (h = 0; h < ids->len; h++)
        if (g_array_index(ids, uint32_t, h) == hi->heap_id)
            break;
    if (h == ids->len) {
        uint32_t id = (uint32_t)hi->heap_id;
        g_array_append_val(ids, id);
        /* strings are not sorted yet: keep the id, finish() names it */
        g_ptr_array_add(sn->heap_names, GSIZE_TO_POINTER(hi->name));
    }
    hf_hswitch sw = {.loc = hi->off, .heap = h};
    g_array_append_val(sn->heap_switch, sw);
}

/* The layout evidence of a body after that of the bodies before it. */
static void hand_over_layout(hf_hlayout *l, const job *j)
{
    if (!j->noted)
        return;
    if (l->prev)
        hf_hlayout_next(l, j->first_id);
    for (int k = 0; k < HF_EV_N; k++)
        for (int s = 0; s <= HF_SLACK_MAX; s++)
            l->slack[k][s] += j->layout.slack[k][s];
    l->prev = j->layout.prev;
    l->prev_id = j->layout.prev_id;
    l->prev_n = j->layout.prev_n;
}

/* Everything the jobs found, to the dump and its snapshots, in file order. */
static void hand_over(hprof_heapscan *hs, GPtrArray *class_dumps)
{
    hprof_dump *d = hs->d;
    hf_heap *h = &d->heap;
    GArray *heap_ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < hs->jobs->len; i++) {
        job *j = &g_array_index(hs->jobs, job, i);
        hf_problems_append(&h->base, &j->problems);
        if (!j->body)
            continue;
        hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, j->snap);
        if (j->new_snap) {
            hf_heap_note_break(&h->layout); /* another heap, another moment */
            g_array_set_size(heap_ids, 0);
        }
        hand_over_layout(&h->layout, j);
        for (guint k = 0; j->infos && k < j->infos->len; k++)
            hand_over_info(sn, heap_ids, &g_array_index(j->infos, heap_info, k));
        if (j->roots)
            g_array_append_vals(sn->roots, j->roots->data, j->roots->len);
        if (j->class_dumps)
            g_array_append_vals(g_ptr_array_index(class_dumps, j->snap), j->class_dumps->data,
                                j->class_dumps->len);
        for (size_t k = 0; k < j->classes.len; k++)
            hf_heap_add_object(sn, j->classes.v[2 * k], j->classes.v[2 * k + 1], true);
        if (j->run && j->run->len)
            hf_heap_add_run(sn, j->run);
        else
            hf_hrun_free(j->run);
        j->run = NULL;
    }
    g_array_free(heap_ids, TRUE);
    for (unsigned w = 0; w < hs->n_workers; w++)
        for (int t = 0; t < 256; t++)
            d->n_sub[t] += hs->workers[w].n_sub[t];
}

unsigned hprof_heapscan_run(hprof_heapscan *hs, GPtrArray *class_dumps, unsigned threads,
                            hf_progress *progress)
{
    unsigned bodies = 0;
    for (guint i = 0; i < hs->jobs->len; i++)
        bodies += g_array_index(hs->jobs, job, i).body;
    unsigned n = threads < bodies ? threads : bodies;
    hs->n_workers = n ? n : 1;
    hs->workers = g_new0(worker, hs->n_workers);
    GThread **th = g_new0(GThread *, hs->n_workers);
    hs->progress = progress;
    for (unsigned w = 0; w < hs->n_workers; w++) {
        hs->workers[w] = (worker){.hs = hs, .keys = g_ptr_array_new()};
        /* a thread that cannot start leaves its share to the others */
        if (w > 0)
            th[w] = g_thread_try_new("heapfs-scan", worker_main, &hs->workers[w], NULL);
    }
    worker_main(&hs->workers[0]);
    unsigned used = 1;
    for (unsigned w = 1; w < hs->n_workers; w++)
        if (th[w]) {
            g_thread_join(th[w]);
            used++;
        }
    g_free(th);
    hand_over(hs, class_dumps);
    return used;
}

uint64_t hprof_heapscan_bytes(const hprof_heapscan *hs)
{
    return hs->bytes;
}

void hprof_heapscan_free(hprof_heapscan *hs)
{
    for (guint i = 0; i < hs->jobs->len; i++) {
        job *j = &g_array_index(hs->jobs, job, i);
        hf_hrun_free(j->run);
        g_free(j->classes.v);
        if (j->roots)
            g_array_free(j->roots, TRUE);
        if (j->class_dumps)
            g_array_free(j->class_dumps, TRUE);
        if (j->infos)
            g_array_free(j->infos, TRUE);
        if (j->problems.lines)
            g_ptr_array_free(j->problems.lines, TRUE);
    }
    g_array_free(hs->jobs, TRUE);
    for (unsigned w = 0; w < hs->n_workers; w++) {
        for (guint s = 0; s < hs->workers[w].keys->len; s++)
            hf_hkeys_free(hs->workers[w].keys->pdata[s]);
        g_ptr_array_free(hs->workers[w].keys, TRUE);
    }
    g_free(hs->workers);
    g_free(hs);
}
