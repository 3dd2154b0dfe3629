/*
 * keepdir.c - see keepdir.h: kept files' names, their removal, the cache
 * directory's bound, and one dump's kept files.
 */
#include "decoders/core/keepdir.h"
#include "decoders/core/keepfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define STALE_SECONDS 600 /* a temporary file unchanged this long is a dead writer's */

/* ---- names ---- */

char *hf_keepdir_path(void)
{
    return g_build_filename(g_get_user_cache_dir(), "heapfs", NULL);
}

char *hf_keepdir_stem(const char *abs)
{
    char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, abs, -1);
    char *base = g_path_get_basename(abs);
    char *stem = g_strdup_printf("%s-%.16s", base, hash);
    g_free(base);
    g_free(hash);
    return stem;
}

/* Whether s is "" or ".retained-LEVEL.N" (LEVEL lower-case letters, N digits). */
static bool is_results_suffix(const char *s)
{
    if (!*s)
        return true;
    if (!g_str_has_prefix(s, ".retained-"))
        return false;
    s += strlen(".retained-");
    const char *level = s;
    while (g_ascii_islower(*s))
        s++;
    if (s == level || *s++ != '.' || !*s)
        return false;
    while (g_ascii_isdigit(*s))
        s++;
    return !*s;
}

const char *hf_keepdir_suffix(const char *name)
{
    for (const char *p = strstr(name, HF_KEEP_SUFFIX); p; p = strstr(p + 1, HF_KEEP_SUFFIX))
        if (p > name && is_results_suffix(p + strlen(HF_KEEP_SUFFIX)))
            return p;
    return NULL;
}

bool hf_keepdir_is_kept(const char *name)
{
    return hf_keepdir_suffix(name) != NULL;
}

bool hf_keepdir_is_kept_of(const char *name, const char *stem)
{
    size_t n = strlen(stem);
    return strncmp(name, stem, n) == 0 && g_str_has_prefix(name + n, HF_KEEP_SUFFIX) &&
           is_results_suffix(name + n + strlen(HF_KEEP_SUFFIX));
}

/* ---- removing ---- */

int hf_keepdir_remove(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == EACCES) /* a 0444 file of ours: flock needs no write access */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno;
    int err = 0;
    struct stat held, named;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        err = errno == EWOULDBLOCK ? EBUSY : errno;
    else if (fstat(fd, &held) != 0 || lstat(path, &named) != 0)
        err = errno;
    else if (held.st_dev != named.st_dev || held.st_ino != named.st_ino)
        err = EAGAIN; /* a writer renamed a new file over it since we opened it */
    else if (unlink(path) != 0)
        err = errno;
    close(fd); /* and with it the lock: a reader that opened it meanwhile maps
                  an unlinked file, which stays whole for as long as it does */
    return err;
}

/* Whether name is that of a temporary hf_keepw_write makes: base + "."
 * + the six letters or digits mkstemp puts, base a kept file's name when
 * base is NULL. */
static bool is_temp_of(const char *name, const char *base)
{
    size_t n = strlen(name);
    if (n < 8 || name[n - 7] != '.')
        return false;
    for (const char *p = name + n - 6; *p; p++)
        if (!g_ascii_isalnum(*p))
            return false;
    if (base)
        return n - 7 == strlen(base) && strncmp(name, base, n - 7) == 0;
    char *stem = g_strndup(name, n - 7);
    bool kept = hf_keepdir_is_kept(stem);
    g_free(stem);
    return kept;
}

/* The regular file of this user at dir/name: its path and stat, else NULL. */
static char *own_file(const char *dir, const char *name, struct stat *st)
{
    char *p = g_build_filename(dir, name, NULL);
    if (lstat(p, st) == 0 && S_ISREG(st->st_mode) && st->st_uid == geteuid())
        return p;
    g_free(p);
    return NULL;
}

/* By age, not by the writer's pid: a live writer changes its file all the
 * time (and holds its lock), and a writer on another machine sharing the
 * directory has a pid that means nothing here. */
void hf_keepdir_remove_stale_temps(const char *dir, const char *base)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    time_t old = time(NULL) - STALE_SECONDS;
    while (d && (name = g_dir_read_name(d))) {
        struct stat st;
        char *p = is_temp_of(name, base) ? own_file(dir, name, &st) : NULL;
        if (p && st.st_mtime < old)
            hf_keepdir_remove(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
}

/* ---- the bound ---- */

static uint64_t max_bytes;
static unsigned max_percent = HF_KEEPDIR_DEFAULT_PERCENT;

void hf_keepdir_set_max(uint64_t bytes, unsigned percent)
{
    max_bytes = bytes;
    max_percent = percent;
}

uint64_t hf_keepdir_max(const char *dir, unsigned *percent)
{
    *percent = max_percent;
    if (!max_percent)
        return max_bytes;
    struct statvfs vfs;
    char *at = g_strdup(dir); /* or the nearest parent, until it is made */
    int r;
    while ((r = statvfs(at, &vfs)) != 0 && strcmp(at, "/") != 0 && strcmp(at, ".") != 0) {
        char *up = g_path_get_dirname(at);
        g_free(at);
        at = up;
    }
    g_free(at);
    if (r != 0)
        return UINT64_MAX; /* no bound known: nothing evicted */
    return (uint64_t)vfs.f_blocks * vfs.f_frsize / 100 * max_percent;
}

/* Whether the dump the kept file at path records is gone, or is no longer
 * the file it was keyed to (then the kept file can never be used again).
 * A file that records none (written before heapfs recorded it) is not. */
static bool dump_gone(const hf_keepkey *key, const char *dump)
{
    struct stat st;
    if (!dump)
        return false;
    if (stat(dump, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR;
    return !hf_keepfmt_key_is_file(key, &st);
}

typedef struct {
    char *path;
    uint64_t bytes;
    int64_t used; /* ns: the later of atime and mtime */
} entry;

static gint by_use(gconstpointer a, gconstpointer b)
{
    const entry *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* Removes e's file: true when it went (its bytes added to *freed). */
static bool drop(const entry *e, uint64_t *freed)
{
    if (hf_keepdir_remove(e->path) != 0)
        return false;
    *freed += e->bytes;
    return true;
}

/* dir/name when it is a kept file of ours: *e filled (path to g_free),
 * and, when gone is not NULL, *gone when its dump is. */
static bool kept_entry(const char *dir, const char *name, entry *e, bool *gone)
{
    struct stat st;
    hf_keepkey key;
    char *dump = NULL;
    char *p = hf_keepdir_is_kept(name) ? own_file(dir, name, &st) : NULL;
    if (p && !hf_keepfmt_peek(p, &key, &dump))
        g_clear_pointer(&p, g_free); /* not an index file: not ours to remove */
    if (gone)
        *gone = p && dump_gone(&key, dump);
    g_free(dump);
    if (!p)
        return false;
    *e = (entry){p, (uint64_t)st.st_size,
                 MAX((int64_t)st.st_atim.tv_sec * 1000000000 + st.st_atim.tv_nsec,
                     (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec)};
    return true;
}

/* The kept files of dir but just_written, removing those whose dump is
 * gone; *total: the bytes of those left, just_written's included. */
static GArray *scan(const char *dir, const char *just_written, uint64_t *total, hf_trim *t)
{
    GArray *files = g_array_new(FALSE, FALSE, sizeof(entry));
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    entry e;
    bool gone;
    while (d && (name = g_dir_read_name(d))) {
        if (!kept_entry(dir, name, &e, &gone))
            continue;
        bool mine = just_written && strcmp(e.path, just_written) == 0;
        if (!mine && gone && drop(&e, &t->freed)) {
            t->gone++;
            g_free(e.path);
            continue;
        }
        *total += e.bytes;
        if (mine)
            g_free(e.path);
        else
            g_array_append_val(files, e);
    }
    if (d)
        g_dir_close(d);
    return files;
}

uint64_t hf_keepdir_bytes(const char *dir, unsigned *files)
{
    uint64_t total = 0;
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    entry e;
    *files = 0;
    while (d && (name = g_dir_read_name(d)))
        if (kept_entry(dir, name, &e, NULL)) {
            total += e.bytes;
            ++*files;
            g_free(e.path);
        }
    if (d)
        g_dir_close(d);
    return total;
}

void hf_keepdir_trim(const char *dir, const char *just_written, hf_trim *out)
{
    hf_trim t = {0};
    hf_keepdir_remove_stale_temps(dir, NULL);
    uint64_t total = 0;
    GArray *files = scan(dir, just_written, &total, &t);
    unsigned percent;
    uint64_t max = hf_keepdir_max(dir, &percent);
    g_array_sort(files, by_use);
    for (guint i = 0; i < files->len && total > max; i++) {
        const entry *e = &g_array_index(files, entry, i);
        if (drop(e, &t.freed)) {
            total -= e->bytes;
            t.evicted++;
        } else {
            t.busy++;
        }
    }
    for (guint i = 0; i < files->len; i++)
        g_free(g_array_index(files, entry, i).path);
    g_array_free(files, TRUE);
    t.left = total;
    if (out)
        *out = t;
}

/* ---- one dump's files ---- */

/* Whether the kept file at p is one of the dump at abs (see hf_keepdir_find):
 * named after it (stem: what its names begin with in this directory),
 * recording it, or keyed to its file (st NULL: it does not exist). */
static bool kept_for(const char *p, const char *name, const char *stem, const char *abs,
                     const struct stat *st)
{
    hf_keepkey key;
    char *dump = NULL;
    if (!hf_keepfmt_peek(p, &key, &dump))
        return false; /* not an index file: not ours to remove */
    bool of = hf_keepdir_is_kept_of(name, stem) || (dump && strcmp(dump, abs) == 0) ||
              (st && key.dev == (uint64_t)st->st_dev && key.ino == (uint64_t)st->st_ino);
    g_free(dump);
    return of;
}

static void find_in(GArray *out, const char *dir, const char *stem, const char *abs,
                    const struct stat *st)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        struct stat fst;
        char *p = hf_keepdir_is_kept(name) ? own_file(dir, name, &fst) : NULL;
        if (p && kept_for(p, name, stem, abs, st)) {
            hf_kept k = {p, (uint64_t)fst.st_size};
            g_array_append_val(out, k);
        } else {
            g_free(p);
        }
    }
    if (d)
        g_dir_close(d);
}

static gint by_path(gconstpointer a, gconstpointer b)
{
    return strcmp(((const hf_kept *)a)->path, ((const hf_kept *)b)->path);
}

GArray *hf_keepdir_find(const char *path)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(hf_kept));
    char *abs = g_canonicalize_filename(path, NULL);
    char *dir = g_path_get_dirname(abs), *base = g_path_get_basename(abs);
    char *cache = hf_keepdir_path(), *stem = hf_keepdir_stem(abs);
    struct stat st;
    bool exists = stat(abs, &st) == 0;
    find_in(out, dir, base, abs, exists ? &st : NULL);
    if (strcmp(dir, cache) != 0)
        find_in(out, cache, stem, abs, exists ? &st : NULL);
    g_array_sort(out, by_path);
    g_free(stem);
    g_free(cache);
    g_free(base);
    g_free(dir);
    g_free(abs);
    return out;
}

void hf_keepdir_kept_free(GArray *kept)
{
    for (guint i = 0; kept && i < kept->len; i++)
        g_free(g_array_index(kept, hf_kept, i).path);
    if (kept)
        g_array_free(kept, TRUE);
}
