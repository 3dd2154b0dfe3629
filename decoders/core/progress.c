/* progress.c - the progress line (progress.h). */
#include "decoders/core/progress.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

struct hf_progress {
    char *what;
    uint64_t total;
    _Atomic uint64_t done;
    _Atomic(const char *) phase;
    int64_t t0, last; /* monotonic µs: start, last drawing (under draw) */
    GMutex draw;
};

hf_progress *hf_progress_new(const char *what, uint64_t total)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    hf_progress *p = g_new0(hf_progress, 1);
    p->what = g_strdup(what);
    p->total = total;
    atomic_init(&p->done, 0);
    atomic_init(&p->phase, NULL);
    p->t0 = g_get_monotonic_time();
    g_mutex_init(&p->draw);
    hf_progress_phase(p, NULL);
    return p;
}

/* One drawing of the line; the caller holds p->draw. */
static void draw(hf_progress *p, int64_t now)
{
    double secs = (now - p->t0) / 1e6;
    uint64_t done = atomic_load(&p->done);
    const char *phase = atomic_load(&p->phase);
    GString *s = g_string_new(NULL);
    g_string_printf(s, "\rheapfs: %s: ", p->what);
    if (p->total) {
        if (done > p->total)
            done = p->total;
        double rate = secs > 0 ? done / secs : 0;
        g_string_append_printf(s, "%.0f%% of %.1f MB", 100.0 * done / p->total, p->total / 1e6);
        if (rate > 0 && done > 0)
            g_string_append_printf(s, ", %.0f MB/s, %.1f s left", rate / 1e6,
                                   (p->total - done) / rate);
        if (phase)
            g_string_append_printf(s, ", %s", phase);
    } else {
        g_string_append_printf(s, "%s (%.1f s)", phase ? phase : "", secs);
    }
    g_string_append(s, "\033[K");
    fputs(s->str, stderr);
    fflush(stderr);
    g_string_free(s, TRUE);
    p->last = now;
}

void hf_progress_add(hf_progress *p, uint64_t bytes)
{
    if (!p)
        return;
    atomic_fetch_add(&p->done, bytes);
    if (!g_mutex_trylock(&p->draw))
        return;
    int64_t now = g_get_monotonic_time();
    if (now - p->last >= HF_PROGRESS_INTERVAL_MS * 1000)
        draw(p, now);
    g_mutex_unlock(&p->draw);
}

void hf_progress_phase(hf_progress *p, const char *phase)
{
    if (!p)
        return;
    atomic_store(&p->phase, phase);
    g_mutex_lock(&p->draw);
    draw(p, g_get_monotonic_time());
    g_mutex_unlock(&p->draw);
}

void hf_progress_end(hf_progress *p, const char *fmt, ...)
{
    if (!p)
        return;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        fprintf(stderr, "\rheapfs: %s: %s\033[K\n", p->what, text);
        g_free(text);
    } else {
        fputs("\r\033[K", stderr);
    }
    fflush(stderr);
    g_mutex_clear(&p->draw);
    g_free(p->what);
    g_free(p);
}
