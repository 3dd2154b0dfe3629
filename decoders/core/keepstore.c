/*
 * keepstore.c - a decoder's index file over its life (keepstore.h).
 */
#include "decoders/core/keepstore.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

static double now(void)
{
    return g_get_monotonic_time() / 1e6;
}

bool hf_keepstore_begin(hf_keepstore *st, const char *format, const char *path,
                        const uint8_t *data, size_t size, const hf_open_opts *opts,
                        GError **err)
{
    st->format = format;
    st->paths = hf_keep_candidates(path, opts ? opts->index : "none", "");
    if (st->paths->len)
        st->keyed = hf_keep_key(&st->key, path, data, size, format, 0);
    /* -o index=FILE naming what is no index file (the dump itself, as a
     * slip of the keyboard makes it): said now, not found replaced later */
    char *no = st->keyed && opts && opts->index ? hf_keep_not_replaceable(opts->index, &st->key)
                                                : NULL;
    if (no)
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN,
                    "%s: -o index=%s: %s (heapfs replaces only its own index files)", path,
                    opts->index, no);
    bool ok = no == NULL;
    g_free(no);
    return ok;
}

void hf_keepstore_clear(hf_keepstore *st)
{
    if (st->paths)
        g_ptr_array_free(st->paths, TRUE);
    hf_keepr_free(st->r);
    g_free(st->why);
    g_free(st->status);
    memset(st, 0, sizeof *st);
}

bool hf_keepstore_load(hf_keepstore *st, hf_keepstore_load_fn load, void *ud)
{
    if (!st->keyed)
        return false;
    double t0 = now();
    st->r = hf_keepr_open(&st->key, st->paths, &st->why);
    if (!st->r)
        return false;
    if (!load(st->r, ud)) {
        g_free(st->why);
        st->why = g_strdup_printf("%s: damaged (inconsistent contents)", hf_keepr_path(st->r));
        g_clear_pointer(&st->r, hf_keepr_free);
        return false;
    }
    size_t bytes;
    hf_keepr_data(st->r, &bytes);
    st->status = g_strdup_printf("index: loaded from %s in %.3f s (%zu bytes)\n",
                                 hf_keepr_path(st->r), now() - t0, bytes);
    return true;
}

static void set_status(hf_keepstore *st, char *line)
{
    g_mutex_lock(&st->lock);
    g_free(st->status);
    st->status = line;
    g_mutex_unlock(&st->lock);
}

/* "index: built in 2.07 s (why the file found was not used)" */
static GString *built_line(const hf_keepstore *st)
{
    GString *s = g_string_new(NULL);
    g_string_printf(s, "index: built in %.2f s", st->seconds);
    if (st->why)
        g_string_append_printf(s, " (%s)", st->why);
    return s;
}

void hf_keepstore_built(hf_keepstore *st, double seconds)
{
    st->seconds = seconds;
    GString *s = built_line(st);
    g_string_append(s, st->paths->len ? ", index file not written yet\n"
                                      : ", no index file (-o index=none)\n");
    set_status(st, g_string_free(s, FALSE));
}

uint64_t hf_keepstore_save(hf_keepstore *st, const char *path, const uint8_t *data,
                           size_t size, hf_keepstore_fill_fn fill, void *ud)
{
    if (st->r || !st->paths || !st->paths->len)
        return 0; /* loaded from one, or none wanted */
    GString *s = built_line(st);
    hf_keepkey again;
    struct stat sb;
    uint64_t id = 0;
    if (!st->keyed || !hf_keep_key(&again, path, data, size, st->format, 0) ||
        memcmp(&again, &st->key, sizeof again) != 0 || stat(path, &sb) != 0) {
        g_string_append(s, ", index file not written: the dump changed after it was opened");
    } else {
        double t0 = now();
        hf_keepw *w = hf_keepw_new();
        fill(w, ud);
        char *why = NULL;
        /* no more readable than the dump: the index holds its names */
        char *to = hf_keepw_write(w, &st->key, st->paths, sb.st_mode & 0644, &why);
        /* the index's arrays become the file's pages, as at a later mount:
         * page cache, not anonymous memory (keeparray.h) */
        uint64_t mapped = to ? hf_keepw_map_back(w, to) : 0;
        if (to)
            id = hf_keepw_id(w);
        hf_keepw_free(w);
        struct stat kept;
        if (to && stat(to, &kept) == 0)
            g_string_append_printf(s, ", written to %s in %.2f s (%jd bytes)", to, now() - t0,
                                   (intmax_t)kept.st_size);
        else if (to)
            g_string_append_printf(s, ", written to %s in %.2f s", to, now() - t0);
        if (mapped)
            g_string_append_printf(s, ", %" G_GUINT64_FORMAT " bytes of it mapped in place "
                                   "of the arrays built", (guint64)mapped);
        else if (!to)
            g_string_append_printf(s, ", index file not written (%s)", why ? why : "no place");
        g_free(to);
        g_free(why);
    }
    g_string_append_c(s, '\n');
    set_status(st, g_string_free(s, FALSE));
    return id;
}

void hf_keepstore_status(hf_keepstore *st, GString *out)
{
    g_mutex_lock(&st->lock);
    if (st->status)
        g_string_append(out, st->status);
    g_mutex_unlock(&st->lock);
}
