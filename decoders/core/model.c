/* model.c - the common part of every dump: problems, init and close. */
#include "decoders/core/model.h"

#include <stdarg.h>

G_DEFINE_QUARK(heapfs-error-quark, hf_error)

const char *const hf_reach_names[HF_REACH_N] = {"strong", "soft", "finalizer", "weak",
                                                "phantom"};

void hf_dump_init(hf_dump *d, const hf_dump_ops *ops, const char *path, GMappedFile *map)
{
    d->ops = ops;
    d->path = g_strdup(path);
    d->map = map ? g_mapped_file_ref(map) : NULL;
    d->data = map ? (const uint8_t *)g_mapped_file_get_contents(map) : NULL;
    d->size = map ? g_mapped_file_get_length(map) : 0;
    d->problems = g_ptr_array_new_with_free_func(g_free);
}

void hf_dump_clear(hf_dump *d)
{
    g_free(d->path);
    if (d->map)
        g_mapped_file_unref(d->map);
    if (d->problems)
        g_ptr_array_free(d->problems, TRUE);
    d->map = NULL;
    d->problems = NULL;
}

/* after_mount_pending's changes, for every dump (they are rare: once a mount) */
static GMutex pending_lock;
static GCond pending_done;

void hf_dump_after_mount_begin(hf_dump *d)
{
    g_atomic_int_set(&d->after_mount_pending, 1);
}

void hf_dump_after_mount_end(hf_dump *d)
{
    g_mutex_lock(&pending_lock);
    g_atomic_int_set(&d->after_mount_pending, 0);
    g_cond_broadcast(&pending_done);
    g_mutex_unlock(&pending_lock);
}

void hf_dump_await_after_mount(hf_dump *d)
{
    if (!g_atomic_int_get(&d->after_mount_pending))
        return;
    g_mutex_lock(&pending_lock);
    while (g_atomic_int_get(&d->after_mount_pending))
        g_cond_wait(&pending_done, &pending_lock);
    g_mutex_unlock(&pending_lock);
}

/* Counts every problem; false when the list is full. */
static bool problem_room(hf_dump *d)
{
    d->n_problems++;
    return d->problems->len < HF_PROBLEMS_MAX;
}

void hf_problem(hf_dump *d, uint64_t offset, const char *fmt, ...)
{
    if (!problem_room(d))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_ptr_array_add(d->problems,
                    g_strdup_printf("offset 0x%" G_GINT64_MODIFIER "x: %s", (guint64)offset, what));
    g_free(what);
}

void hf_problem_nooff(hf_dump *d, const char *fmt, ...)
{
    if (!problem_room(d))
        return;
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(d->problems, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

void hf_dump_index_figures(const hf_dump *d, GString *out)
{
    if (d->index_seconds <= 0)
        return;
    g_string_append_printf(out, "indexing: %.2f s, %.0f MB/s, %u thread%s\n", d->index_seconds,
                           d->size / 1e6 / d->index_seconds, d->index_threads,
                           d->index_threads == 1 ? "" : "s");
}

uint64_t hf_snapshot_ordinal(hf_dump *d, uint32_t s)
{
    return (uint64_t)s + 1;
}

uint64_t hf_trace_ordinal(hf_dump *d, uint64_t t)
{
    return t + 1;
}

void hf_problem_list_addv(hf_problem_list *l, uint64_t offset, const char *fmt, va_list ap)
{
    if (l->n++ >= HF_PROBLEMS_MAX)
        return;
    if (!l->lines)
        l->lines = g_ptr_array_new_with_free_func(g_free);
    char *what = g_strdup_vprintf(fmt, ap);
    g_ptr_array_add(l->lines,
                    g_strdup_printf("offset 0x%" G_GINT64_MODIFIER "x: %s", (guint64)offset, what));
    g_free(what);
}

void hf_problem_list_add(hf_problem_list *l, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hf_problem_list_addv(l, offset, fmt, ap);
    va_end(ap);
}

void hf_problems_append(hf_dump *d, hf_problem_list *l)
{
    for (guint i = 0; l->lines && i < l->lines->len; i++)
        if (d->problems->len < HF_PROBLEMS_MAX)
            g_ptr_array_add(d->problems, g_strdup(g_ptr_array_index(l->lines, i)));
    d->n_problems += l->n;
    if (l->lines)
        g_ptr_array_free(l->lines, TRUE);
    *l = (hf_problem_list){0};
}

void hf_problems_truncate(hf_dump *d, uint64_t n)
{
    if (d->problems->len > n)
        g_ptr_array_remove_range(d->problems, (guint)n, d->problems->len - (guint)n);
    if (d->n_problems > n)
        d->n_problems = n;
}

void hf_dump_close(hf_dump *d)
{
    if (d)
        d->ops->destroy(d);
}
