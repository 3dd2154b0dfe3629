/*
 * workmem.c - see workmem.h.
 */
#include "decoders/core/workmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* Reservations open at a time (hf_work_reserve). */
#define HF_WORK_RESERVES 4

/* What a slice of the computation cost the process (all its threads). */
typedef struct {
    double cpu;      /* user + system seconds */
    long major;      /* major page faults */
    uint64_t read;   /* bytes read from storage (/proc/self/io), 0 unknown */
} counters;

struct hf_work {
    hf_work_opt opt;
    uint64_t budget;             /* RAM the arrays may hold */
    uint64_t avail;              /* auto: what hf_mem_available said */
    uint64_t anon_cap;           /* auto: a third of hf_mem_total, UINT64_MAX unknown */
    char *why, *dir;
    uint64_t ram, file;          /* held now */
    uint64_t ram_peak, file_peak, both_peak;
    unsigned failures;           /* allocations that failed, RAM or file */
    struct rusage start;         /* the process's page faults at the start */
    GString *phases;             /* "name secs cpu major read, ..." of the slices ended */
    /* Phases are told by slices of time: a slice ends whenever a thread
     * of the computation starts a phase or leaves, and is named by what
     * they all run in it ("bfs+transpose"), so the process-wide counters
     * of a slice are its threads' together, and the slices' times add up
     * to the computation's. */
    const char *running[HF_WORK_THREADS]; /* per thread: its phase; [0] the owner's */
    unsigned joined;             /* bit i: slot i has a helper (hf_work_join) */
    double slice_t0;             /* the slice's start (monotonic seconds) */
    bool slice_by_helper;        /* a helper started it (a phase, or leaving) */
    counters slice_at;           /* the process's counters at its start */
    unsigned helper_phases;      /* phases started on helper threads */
    int io_fd;                   /* /proc/self/io, -1 */
    /* hf_work_reserve: RAM set aside, held as if allocated */
    size_t reserved[HF_WORK_RESERVES];
    unsigned n_reserved;
    uint64_t reserved_sum;
    GString *reserves;           /* what hf_work_end says of them */
};

typedef struct {
    size_t len;
    bool file;
    hf_work *owner; /* NULL once its hf_work has ended */
    bool *freed;    /* hf_work_watch_free's, set when it is freed; NULL */
} block;

/* lock guards blocks and every hf_work's figures (ram, file, peaks,
 * failures, phases), which its threads share */
static GMutex lock;
static GCond freeing;      /* a watched array was freed */
static GHashTable *blocks; /* void * -> block *, under lock */
static _Thread_local hf_work *current;
static _Thread_local unsigned my_slot; /* the calling thread's in current->running */

const char *hf_work_opt_name(const hf_work_opt *o, char *buf, size_t len)
{
    static const char *const names[] = {"auto", "ram", "file"};
    if (o->mode == HF_WORK_LIMIT)
        g_snprintf(buf, len, "%" G_GUINT64_FORMAT, (guint64)o->limit);
    else
        g_strlcpy(buf, names[o->mode], len);
    return buf;
}

/* ---- memory available ---- */

/* The number in text: the first one, or the one of the line "key: N" or
 * "key N" (/proc/meminfo, memory.stat); false when there is none ("max"). */
static bool number_in(const char *text, const char *key, uint64_t *out)
{
    const char *p = text;
    size_t k = key ? strlen(key) : 0;
    bool ok = text != NULL;
    while (ok && key && !(strncmp(p, key, k) == 0 && (p[k] == ':' || p[k] == ' '))) {
        p = strchr(p, '\n');
        ok = p != NULL;
        p += ok;
    }
    if (ok) {
        p += k + (key != NULL);
        char *end;
        *out = g_ascii_strtoull(p, &end, 10);
        ok = end != p;
    }
    return ok;
}

/* The contents of file root/path, NULL when it cannot be read. */
static char *read_text(const char *root, const char *path)
{
    char *name = g_strconcat(root, path, NULL), *text = NULL;
    if (!g_file_get_contents(name, &text, NULL, NULL))
        text = NULL;
    g_free(name);
    return text;
}

/* number_in of file root/path. */
static bool read_number(const char *root, const char *path, const char *key, uint64_t *out)
{
    char *text = read_text(root, path);
    bool ok = number_in(text, key, out);
    g_free(text);
    return ok;
}

typedef struct {
    uint64_t avail;
    char *why;
    uint64_t total; /* the least of MemTotal and the cgroups' limits */
} bound;

static void lower(bound *b, uint64_t v, char *why)
{
    if (v < b->avail) {
        b->avail = v;
        g_free(b->why);
        b->why = why;
    } else {
        g_free(why);
    }
}

/* One cgroup directory dir (root/sys/fs/cgroup/...): its limits less
 * what it holds other than page cache. */
static void cgroup_level(bound *b, const char *root, const char *dir, bool v1)
{
    static const char *const v2_limits[] = {"memory.max", "memory.high"};
    uint64_t usage, cache = 0, limit;
    char *f = g_strconcat(dir, v1 ? "/memory.usage_in_bytes" : "/memory.current", NULL);
    bool have = read_number(root, f, NULL, &usage);
    g_free(f);
    if (!have)
        return;
    f = g_strconcat(dir, "/memory.stat", NULL);
    if (!read_number(root, f, v1 ? "total_cache" : "file", &cache))
        cache = 0;
    g_free(f);
    uint64_t held = usage > cache ? usage - cache : 0;
    for (unsigned i = 0; i < (v1 ? 1u : 2u); i++) {
        f = g_strconcat(dir, v1 ? "/memory.limit_in_bytes" : "/", v1 ? "" : v2_limits[i], NULL);
        if (read_number(root, f, NULL, &limit) && limit < (1ull << 62)) {
            lower(b, limit > held ? limit - held : 0,
                  g_strdup_printf("cgroup %s", f + strlen("/sys/fs/cgroup")));
            b->total = MIN(b->total, limit);
        }
        g_free(f);
    }
}

/* A memory cgroup directory above the process (under root). */
typedef struct {
    char *dir;
    bool v1;
} level;

/* Adds dir to levels when it is a memory cgroup (it has a usage file). */
static void add_level(GArray *levels, const char *root, char *dir, bool v1)
{
    char *f = g_strconcat(root, dir, v1 ? "/memory.usage_in_bytes" : "/memory.current", NULL);
    level l = {dir, v1};
    if (g_file_test(f, G_FILE_TEST_IS_REGULAR))
        g_array_append_val(levels, l);
    else
        g_free(dir);
    g_free(f);
}

/* Every level of the process's memory cgroups, from its own up, as
 * root/proc/self/cgroup gives them. */
static GArray *find_levels(const char *root)
{
    GArray *levels = g_array_new(FALSE, FALSE, sizeof(level));
    char *text = read_text(root, "/proc/self/cgroup");
    char **lines = text ? g_strsplit(text, "\n", -1) : NULL;
    for (char **l = lines; l && *l; l++) {
        char **f = g_strsplit(*l, ":", 3);
        if (g_strv_length(f) == 3 && f[2][0] == '/') {
            bool v2 = f[1][0] == '\0';
            char **ctl = g_strsplit(f[1], ",", -1);
            bool v1 = g_strv_contains((const char *const *)ctl, "memory");
            g_strfreev(ctl);
            const char *const bases[] = {v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup",
                                         v1 ? NULL : "/sys/fs/cgroup/unified"};
            for (unsigned k = 0; (v1 || v2) && k < 2 && bases[k]; k++) {
                char *path = g_strdup(f[2]);
                for (;;) {
                    add_level(levels, root, g_strconcat(bases[k], strcmp(path, "/") ? path : "",
                                                        NULL), v1);
                    char *slash = strrchr(path, '/');
                    if (!slash || slash == path)
                        break;
                    *slash = '\0';
                }
                if (strcmp(f[2], "/") != 0) /* the root itself */
                    add_level(levels, root, g_strdup(bases[k]), v1);
                g_free(path);
            }
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    return levels;
}

/* The memory cgroup levels of root, found once per process and root: a
 * process does not move between cgroups in practice, and the limits and
 * usage, which do change, are read again each time (cgroup_level). */
static GArray *levels_of(const char *root)
{
    static GMutex levels_lock;
    static GHashTable *known; /* root -> GArray of level, never freed */
    g_mutex_lock(&levels_lock);
    if (!known)
        known = g_hash_table_new(g_str_hash, g_str_equal);
    GArray *levels = g_hash_table_lookup(known, root);
    if (!levels) {
        levels = find_levels(root);
        g_hash_table_insert(known, g_strdup(root), levels);
    }
    g_mutex_unlock(&levels_lock);
    return levels;
}

static void cgroups(bound *b, const char *root)
{
    GArray *levels = levels_of(root);
    for (guint i = 0; i < levels->len; i++) {
        const level *l = &g_array_index(levels, level, i);
        cgroup_level(b, root, l->dir, l->v1);
    }
}

/* Both figures; HEAPFS_TEST_MEM_AVAILABLE makes the total unknown, unless
 * HEAPFS_TEST_MEM_TOTAL says it. */
static bound memory(const char *root)
{
    const char *fake = g_getenv("HEAPFS_TEST_MEM_AVAILABLE");
    bound b = {UINT64_MAX, NULL, UINT64_MAX};
    uint64_t kb;
    if (fake) {
        b.avail = g_ascii_strtoull(fake, NULL, 10);
        b.why = g_strdup("HEAPFS_TEST_MEM_AVAILABLE");
    } else {
        char *meminfo = read_text(root, "/proc/meminfo");
        if (number_in(meminfo, "MemAvailable", &kb))
            lower(&b, kb * 1024, g_strdup("MemAvailable"));
        if (number_in(meminfo, "MemTotal", &kb))
            b.total = kb * 1024;
        g_free(meminfo);
        cgroups(&b, root);
    }
    const char *fake_total = g_getenv("HEAPFS_TEST_MEM_TOTAL");
    if (fake_total)
        b.total = g_ascii_strtoull(fake_total, NULL, 10);
    if (!b.why)
        b.why = g_strdup("unknown: no /proc/meminfo");
    return b;
}

uint64_t hf_mem_available(const char *root, char **why)
{
    bound b = memory(root);
    if (why)
        *why = b.why;
    else
        g_free(b.why);
    return b.avail;
}

uint64_t hf_mem_total(const char *root)
{
    bound b = memory(root);
    g_free(b.why);
    return b.total;
}

unsigned hf_work_cpus(void)
{
    static gsize cpus; /* the count + 1, 0 before the first look */
    if (g_once_init_enter(&cpus))
        g_once_init_leave(&cpus, (gsize)MAX(g_get_num_processors(), 1) + 1);
    return (unsigned)(cpus - 1);
}

uint64_t hf_mem_anon(void)
{
    uint64_t kb;
    return read_number("", "/proc/self/status", "RssAnon", &kb) ? kb * 1024 : 0;
}

/* ---- the computation and its phases ---- */

hf_work *hf_work_begin(const hf_work_opt *o, const char *dir)
{
    g_assert(!current);
    hf_work *w = g_new0(hf_work, 1);
    w->opt = *o;
    w->dir = g_strdup(dir);
    getrusage(RUSAGE_SELF, &w->start);
    switch (o->mode) {
    case HF_WORK_AUTO: { /* half of what is available; anonymous memory within a third */
        bound b = memory("");
        w->avail = b.avail;
        w->why = b.why;
        w->budget = w->avail / 2;
        w->anon_cap = b.total == UINT64_MAX ? UINT64_MAX : b.total / 3;
        uint64_t anon = hf_mem_anon();
        if (w->anon_cap != UINT64_MAX)
            w->budget = MIN(w->budget, w->anon_cap > anon ? w->anon_cap - anon : 0);
        break;
    }
    case HF_WORK_RAM:
        w->budget = UINT64_MAX;
        break;
    case HF_WORK_FILE:
        w->budget = 0;
        break;
    case HF_WORK_LIMIT:
        w->budget = o->limit;
        break;
    }
    w->phases = g_string_new(NULL);
    w->reserves = g_string_new(NULL);
    /* kept open: a phase reads it at each end, and opening costs more
     * than reading on a computation of many small phases */
    w->io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    current = w;
    my_slot = 0;
    return w;
}

static counters counters_now(const hf_work *w)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    counters c = {r.ru_utime.tv_sec + r.ru_stime.tv_sec +
                      (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6,
                  r.ru_majflt, 0};
    char buf[512];
    ssize_t got = w->io_fd >= 0 ? pread(w->io_fd, buf, sizeof buf - 1, 0) : -1;
    if (got > 0)
        buf[got] = '\0';
    if (got <= 0 || !number_in(buf, "read_bytes", &c.read))
        c.read = 0;
    return c;
}

/* Below this a slice of several threads, or one a helper started (by a
 * phase, or by leaving), is not listed: mostly they mark threads meeting
 * (a helper starting its first phase a little after the owner started its
 * own, the owner's phase ending a little after the helper's). */
#define SLICE_MIN_SECS 0.05

/* Ends w's running slice, noting what it cost; under lock. */
static void slice_close(hf_work *w)
{
    GString *name = g_string_new(NULL);
    for (unsigned i = 0; i < HF_WORK_THREADS; i++)
        if (w->running[i])
            g_string_append_printf(name, "%s%s", name->len ? "+" : "", w->running[i]);
    double secs = g_get_monotonic_time() / 1e6 - w->slice_t0;
    bool meeting = strchr(name->str, '+') != NULL || w->joined || w->slice_by_helper;
    if (name->len && !(meeting && secs < SLICE_MIN_SECS)) {
        counters now = counters_now(w), *at = &w->slice_at;
        double read = (double)(now.read - MIN(now.read, at->read)) / (1 << 30);
        g_string_append_printf(w->phases, "%s%s %.1f %.1f %ld %.2f", w->phases->len ? ", " : "",
                               name->str, secs, now.cpu - at->cpu, now.major - at->major, read);
        /* G_MESSAGES_DEBUG=all shows them as they end (a long run) */
        g_debug("working arrays: %s took %.1f s, %.1f s CPU, %ld major faults, %.2f GiB read "
                "(%.2f GiB in RAM, %.2f in files)", name->str, secs, now.cpu - at->cpu,
                now.major - at->major, read, (double)w->ram / (1 << 30),
                (double)w->file / (1 << 30));
    }
    g_string_free(name, TRUE);
}

/* Starts a slice of w now; under lock. */
static void slice_open(hf_work *w)
{
    w->slice_t0 = g_get_monotonic_time() / 1e6;
    w->slice_by_helper = my_slot > 0;
    w->slice_at = counters_now(w);
}

/* The calling thread's phase becomes name (NULL: none); under lock. */
static void set_phase(hf_work *w, const char *name)
{
    slice_close(w);
    w->running[my_slot] = name;
    w->helper_phases += my_slot > 0 && name;
    slice_open(w);
}

void hf_work_phase(const char *name)
{
    hf_work *w = current;
    if (!w)
        return;
    g_mutex_lock(&lock);
    set_phase(w, name);
    g_mutex_unlock(&lock);
}

hf_work *hf_work_current(void)
{
    return current;
}

void hf_work_join(hf_work *w)
{
    g_assert(!current);
    g_mutex_lock(&lock);
    unsigned i = 1;
    while (i < HF_WORK_THREADS && (w->running[i] || (w->joined >> i & 1)))
        i++;
    g_assert(i < HF_WORK_THREADS);
    w->joined |= 1u << i;
    g_mutex_unlock(&lock);
    current = w;
    my_slot = i;
}

void hf_work_leave(void)
{
    hf_work *w = current;
    g_assert(w && my_slot > 0);
    g_mutex_lock(&lock);
    set_phase(w, NULL);
    w->joined &= ~(1u << my_slot);
    g_mutex_unlock(&lock);
    current = NULL;
    my_slot = 0;
}

static double gib(uint64_t bytes)
{
    return (double)bytes / (1 << 30);
}

unsigned hf_work_failures(const hf_work *w)
{
    g_mutex_lock(&lock);
    unsigned f = w->failures;
    g_mutex_unlock(&lock);
    return f;
}

void hf_work_end(hf_work *w, GString *out)
{
    g_assert(current == w && my_slot == 0);
    g_mutex_lock(&lock);
    g_assert(!w->joined); /* its helpers have left */
    set_phase(w, NULL);
    GHashTableIter it;
    gpointer key, value;
    if (blocks) {
        g_hash_table_iter_init(&it, blocks);
        while (g_hash_table_iter_next(&it, &key, &value))
            if (((block *)value)->owner == w)
                ((block *)value)->owner = NULL;
    }
    g_mutex_unlock(&lock);
    current = NULL;
    if (out) {
        char name[32];
        g_string_append_printf(out, "working arrays %s (peak %.2f GiB in RAM",
                               w->file_peak ? "in RAM and files" : "in RAM", gib(w->ram_peak));
        if (w->file_peak)
            g_string_append_printf(out, ", %.2f GiB in files in %s, %.2f GiB both",
                                   gib(w->file_peak), w->dir, gib(w->both_peak));
        g_string_append_printf(out, "; retained_mem=%s", hf_work_opt_name(&w->opt, name, sizeof name));
        if (w->opt.mode == HF_WORK_AUTO)
            g_string_append_printf(out, ": half of %.2f GiB available by %s", gib(w->avail), w->why);
        if (w->opt.mode == HF_WORK_AUTO && w->anon_cap != UINT64_MAX)
            g_string_append_printf(out, ", anonymous memory within %.2f GiB "
                                   "(a third of the memory)", gib(w->anon_cap));
        if (w->file_peak) /* in RAM alone, a reservation changes nothing */
            g_string_append(out, w->reserves->str);
        if (w->failures)
            g_string_append_printf(out, "; %u arrays could not be had", w->failures);
        struct rusage now;
        getrusage(RUSAGE_SELF, &now);
        g_string_append_printf(out, "; page faults of the daemon meanwhile: %ld major, %ld minor",
                               now.ru_majflt - w->start.ru_majflt,
                               now.ru_minflt - w->start.ru_minflt);
        if (w->helper_phases)
            g_string_append_printf(out, "; %u phases on helper threads", w->helper_phases);
        if (w->phases->len)
            g_string_append_printf(out, "; phases (seconds, CPU seconds, major faults, GiB "
                                   "read): %s", w->phases->str);
        g_string_append_c(out, ')');
    }
    if (w->io_fd >= 0)
        close(w->io_fd);
    g_string_free(w->phases, TRUE);
    g_string_free(w->reserves, TRUE);
    g_free(w->why);
    g_free(w->dir);
    g_free(w);
}

/* ---- the arrays ---- */

/* A nameless file of len bytes in dir, mapped; NULL when it cannot be. */
static void *map_file(const char *dir, size_t len)
{
    if (g_mkdir_with_parents(dir, 0700) != 0)
        return NULL;
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) { /* a file system without O_TMPFILE */
        char *name = g_strdup_printf("%s/heapfs-work.%d.XXXXXX", dir, (int)getpid());
        fd = g_mkstemp_full(name, O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0)
            unlink(name);
        g_free(name);
    }
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (posix_fallocate(fd, 0, (off_t)len) == 0)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* Adds (or takes back) an array of len bytes to w's figures; under lock. */
static void note(hf_work *w, uint64_t len, bool file, bool add)
{
    uint64_t *now = file ? &w->file : &w->ram;
    *now = add ? *now + len : *now - len;
    w->ram_peak = MAX(w->ram_peak, w->ram);
    w->file_peak = MAX(w->file_peak, w->file);
    w->both_peak = MAX(w->both_peak, w->ram + w->file);
}

/* Whether w puts an array of len bytes in a file, the RAM reserved
 * counted as held; under lock. */
static bool to_file(const hf_work *w, size_t len)
{
    return w->budget < len || w->ram + w->reserved_sum > w->budget - len;
}

bool hf_work_reserve(size_t bytes, const char *what)
{
    hf_work *w = current;
    if (!w)
        return true;
    g_mutex_lock(&lock);
    bool ok = w->n_reserved < HF_WORK_RESERVES && bytes && !to_file(w, bytes);
    if (ok) {
        w->reserved[w->n_reserved++] = bytes;
        w->reserved_sum += bytes;
    }
    g_string_append_printf(w->reserves, ok ? "; %.2f GiB of RAM reserved for the %s"
                                           : "; no room to reserve %.2f GiB of RAM for the %s",
                           gib(bytes), what);
    g_mutex_unlock(&lock);
    return ok;
}

/* Takes w's reservation of exactly len bytes, if any; under lock. */
static void take_reserved(hf_work *w, size_t len)
{
    for (unsigned i = 0; i < w->n_reserved; i++)
        if (w->reserved[i] == len) {
            w->reserved[i] = w->reserved[--w->n_reserved];
            w->reserved_sum -= len;
            return;
        }
}

bool hf_work_in_ram(size_t bytes)
{
    hf_work *w = current;
    if (!w)
        return true;
    g_mutex_lock(&lock);
    bool ram = !to_file(w, bytes ? bytes : 1);
    g_mutex_unlock(&lock);
    return ram;
}

uint64_t hf_work_in_files(void)
{
    hf_work *w = current;
    g_mutex_lock(&lock);
    uint64_t file = w ? w->file : 0;
    g_mutex_unlock(&lock);
    return file;
}

static void *work_alloc(size_t bytes, bool in_order)
{
    hf_work *w = current;
    size_t len = bytes ? bytes : 1;
    if (!w)
        return g_try_malloc(len);
    /* decided and counted at once, so that threads allocating together
     * do not both take the RAM left; taken back when it fails */
    g_mutex_lock(&lock);
    if (!in_order)
        take_reserved(w, len); /* then within the budget: it was held */
    bool file = to_file(w, len) || (in_order && w->file > 0);
    uint64_t *held = file ? &w->file : &w->ram;
    *held += len;
    g_mutex_unlock(&lock);
    void *p = file ? map_file(w->dir, len) : g_try_malloc(len);
    block *b = p ? g_new(block, 1) : NULL;
    g_mutex_lock(&lock);
    *held -= len;
    if (p) {
        *b = (block){len, file, w, NULL};
        if (!blocks)
            blocks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        g_hash_table_insert(blocks, p, b);
        note(w, len, file, true);
    } else {
        w->failures++;
    }
    g_mutex_unlock(&lock);
    return p;
}

void *hf_work_alloc(size_t bytes)
{
    return work_alloc(bytes, false);
}

void *hf_work_alloc_seq(size_t bytes)
{
    return work_alloc(bytes, true);
}

void *hf_work_alloc0(size_t bytes)
{
    void *p = hf_work_alloc(bytes);
    bool file = false;
    g_mutex_lock(&lock);
    block *b = p && blocks ? g_hash_table_lookup(blocks, p) : NULL;
    file = b && b->file;
    g_mutex_unlock(&lock);
    if (p && !file) /* a new file reads as zeros already */
        memset(p, 0, bytes);
    return p;
}

void hf_work_free(void *p)
{
    if (!p)
        return;
    g_mutex_lock(&lock);
    block *b = blocks ? g_hash_table_lookup(blocks, p) : NULL;
    size_t len = b ? b->len : 0;
    bool file = b && b->file;
    if (b && b->owner)
        note(b->owner, len, file, false);
    if (b && b->freed) {
        *b->freed = true;
        g_cond_broadcast(&freeing);
    }
    if (b)
        g_hash_table_remove(blocks, p);
    g_mutex_unlock(&lock);
    if (file)
        munmap(p, len);
    else
        g_free(p);
}

void hf_work_watch_free(void *p, bool *freed)
{
    g_mutex_lock(&lock);
    block *b = p && blocks ? g_hash_table_lookup(blocks, p) : NULL;
    *freed = !b;
    if (b)
        b->freed = freed;
    g_mutex_unlock(&lock);
}

void hf_work_await_free(const bool *freed)
{
    g_mutex_lock(&lock);
    while (!*freed)
        g_cond_wait(&freeing, &lock);
    g_mutex_unlock(&lock);
}

bool hf_work_is_file(const void *p)
{
    g_mutex_lock(&lock);
    block *b = p && blocks ? g_hash_table_lookup(blocks, p) : NULL;
    bool file = b && b->file;
    g_mutex_unlock(&lock);
    return file;
}

void *hf_work_keep(void *p, size_t bytes)
{
    void *kept;
    if (!p || !hf_work_in_files() || hf_work_is_file(p) || !(kept = hf_work_alloc_seq(bytes)))
        return p;
    if (!hf_work_is_file(kept)) { /* no file to be had: RAM either way */
        hf_work_free(kept);
        return p;
    }
    memcpy(kept, p, bytes);
    hf_work_free(p);
    return kept;
}

/* madvise(p, its length, advice) when p is an array in a file. */
static void advise(void *p, int advice)
{
    g_mutex_lock(&lock);
    block *b = p && blocks ? g_hash_table_lookup(blocks, p) : NULL;
    if (b && b->file)
        madvise(p, b->len, advice);
    g_mutex_unlock(&lock);
}

void hf_work_random(void *p)
{
    advise(p, MADV_RANDOM);
}

void hf_work_cold(void *p)
{
    advise(p, MADV_COLD);
}

void hf_work_willneed(void *p)
{
    advise(p, MADV_WILLNEED);
}
