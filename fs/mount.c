/* mount.c - see mount.h. */
#include "fs/mount.h"

struct hf_mount {
    hf_dump **d;
    uint32_t n;
    bool own;
    uint32_t *first;   /* first[k]: the mount's index of dump k's first
                          snapshot; first[n]: all snapshots */
    uint64_t *base;    /* base[k]: added to dump k's snapshot numbers */
    GMutex lock;       /* guards texts */
    hf_textset **texts; /* per snapshot, made on first use */
};

hf_mount *hf_mount_new(hf_dump *const *d, uint32_t n, bool own)
{
    hf_mount *m = g_new0(hf_mount, 1);
    m->d = g_memdup2(d, n * sizeof *d);
    m->n = n;
    m->own = own;
    m->first = g_new0(uint32_t, n + 1);
    m->base = g_new0(uint64_t, n);
    uint64_t last = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t ns = d[k]->ops->n_snapshots(d[k]);
        m->first[k + 1] = m->first[k] + ns;
        m->base[k] = last;
        if (ns)
            last += d[k]->ops->snapshot_number(d[k], ns - 1);
    }
    g_mutex_init(&m->lock);
    m->texts = g_new0(hf_textset *, m->first[n] + 1);
    return m;
}

hf_mount *hf_mount_open(char *const *paths, int n, const hf_open_opts *opts, GError **err)
{
    GPtrArray *a = g_ptr_array_new();
    hf_mount *m = NULL;
    if (hf_open_files((const char *const *)paths, n, opts, a, err))
        m = hf_mount_new((hf_dump *const *)a->pdata, a->len, true);
    g_ptr_array_free(a, TRUE);
    return m;
}

void hf_mount_free(hf_mount *m)
{
    if (!m)
        return;
    for (uint32_t s = 0; s < m->first[m->n]; s++)
        hf_textset_free(m->texts[s]);
    for (uint32_t k = 0; k < m->n && m->own; k++)
        hf_dump_close(m->d[k]);
    g_mutex_clear(&m->lock);
    g_free(m->texts);
    g_free(m->base);
    g_free(m->first);
    g_free(m->d);
    g_free(m);
}

uint32_t hf_mount_n_dumps(const hf_mount *m)
{
    return m->n;
}

hf_dump *hf_mount_dump(const hf_mount *m, uint32_t k)
{
    return m->d[k];
}

uint32_t hf_mount_n_snaps(const hf_mount *m)
{
    return MIN(m->first[m->n], m->n > 1 ? HF_SNAP_MAX - 1 : HF_SNAP_MAX);
}

/* The dump holding snapshot s. */
static uint32_t dump_of(const hf_mount *m, uint32_t s)
{
    uint32_t k = 0;
    while (k + 1 < m->n && m->first[k + 1] <= s)
        k++;
    return k;
}

hf_snapref hf_mount_at(const hf_mount *m, uint32_t s)
{
    uint32_t k = dump_of(m, s);
    return (hf_snapref){m->d[k], s - m->first[k]};
}

uint64_t hf_mount_snap_number(const hf_mount *m, uint32_t s)
{
    uint32_t k = dump_of(m, s);
    return m->base[k] + m->d[k]->ops->snapshot_number(m->d[k], s - m->first[k]);
}

hf_snapref hf_mount_tt(const hf_mount *m, uint32_t tsnap)
{
    if (m->n == 1)
        return (hf_snapref){tsnap == 0 ? m->d[0] : NULL, 0};
    if (tsnap == 0 || tsnap - 1 >= hf_mount_n_snaps(m))
        return (hf_snapref){NULL, 0};
    return (hf_snapref){hf_mount_at(m, tsnap - 1).d, 0};
}

const char *const hf_mount_compare_names[HF_CMP_N] = {"growth", "growth-retained",
                                                      "strings-new", "flame-diff.svg"};

bool hf_mount_has_compare(hf_mount *m, uint32_t s, uint64_t which)
{
    if (s == 0 || s >= hf_mount_n_snaps(m))
        return false;
    hf_snapref a = hf_mount_at(m, s - 1), b = hf_mount_at(m, s);
    switch (which) {
    case HF_CMP_GROWTH:
    case HF_CMP_GROWTH_RETAINED:
        return hf_compare_has_growth(a, b, which == HF_CMP_GROWTH_RETAINED);
    case HF_CMP_STRINGS_NEW:
        return hf_compare_has_strings(a, b);
    case HF_CMP_FLAME_DIFF:
        return hf_compare_has_flame_diff(a, b);
    default:
        return false;
    }
}

/* The texts of snapshot s's strings, made on first use. */
static const hf_textset *texts(hf_mount *m, uint32_t s)
{
    g_mutex_lock(&m->lock);
    if (!m->texts[s])
        m->texts[s] = hf_textset_new(hf_mount_at(m, s));
    hf_textset *t = m->texts[s];
    g_mutex_unlock(&m->lock);
    return t;
}

uint64_t hf_mount_compare(hf_mount *m, uint32_t s, uint64_t which, uint64_t first, GString *out,
                          size_t budget)
{
    if (!hf_mount_has_compare(m, s, which))
        return HF_DONE;
    hf_snapref a = hf_mount_at(m, s - 1), b = hf_mount_at(m, s);
    if (which == HF_CMP_STRINGS_NEW)
        return hf_compare_strings_new(texts(m, s - 1), b, first, out, budget);
    if (which == HF_CMP_FLAME_DIFF)
        return hf_compare_flame_diff(a, b, first, out, budget);
    return hf_compare_growth(a, b, which == HF_CMP_GROWTH_RETAINED, first, out, budget);
}

/* The mount's snapshots, and their numbers when `numbers` is given. */
static hf_snapref *all_snaps(hf_mount *m, uint64_t **numbers)
{
    uint32_t n = hf_mount_n_snaps(m);
    hf_snapref *r = g_new(hf_snapref, n + 1);
    if (numbers)
        *numbers = g_new(uint64_t, n + 1);
    for (uint32_t s = 0; s < n; s++) {
        r[s] = hf_mount_at(m, s);
        if (numbers)
            (*numbers)[s] = hf_mount_snap_number(m, s);
    }
    return r;
}

bool hf_mount_has_growth_chart(hf_mount *m)
{
    hf_snapref *r = all_snaps(m, NULL);
    bool has = hf_growth_chart_has(r, hf_mount_n_snaps(m));
    g_free(r);
    return has;
}

uint64_t hf_mount_growth_chart(hf_mount *m, uint64_t first, GString *out, size_t budget)
{
    uint64_t *num;
    hf_snapref *r = all_snaps(m, &num);
    uint64_t next = hf_growth_chart(r, num, hf_mount_n_snaps(m), first, out, budget);
    g_free(num);
    g_free(r);
    return next;
}

static void render_all(hf_dump *d, hf_render_fn fn, GString *out)
{
    hf_view v = {0};
    for (uint64_t item = 0; item != HF_DONE;)
        item = fn(d, &v, item, out, 1 << 20);
}

uint64_t hf_mount_info(hf_mount *m, uint64_t first, GString *out, size_t budget)
{
    if (m->n == 1) {
        hf_view v = {0};
        return m->d[0]->ops->render_info(m->d[0], &v, first, out, budget);
    }
    g_string_append_printf(out, "files: %u\n", m->n);
    for (uint32_t k = 0; k < m->n; k++) {
        g_string_append_printf(out, "file %u: %s (%s", k + 1, m->d[k]->path,
                               hf_format_label(m->d[k]->ops->format));
        uint32_t a = m->first[k], b = m->first[k + 1];
        if (b == a + 1)
            g_string_append_printf(out, ", snapshot %" G_GUINT64_FORMAT,
                                   (guint64)hf_mount_snap_number(m, a));
        else if (b > a)
            g_string_append_printf(out, ", snapshots %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
                                   (guint64)hf_mount_snap_number(m, a),
                                   (guint64)hf_mount_snap_number(m, b - 1));
        g_string_append(out, ")\n");
    }
    for (uint32_t k = 0; k < m->n; k++) {
        g_string_append_printf(out, "\n== %s ==\n", m->d[k]->path);
        render_all(m->d[k], m->d[k]->ops->render_info, out);
    }
    return HF_DONE;
}

/* Items of dump k's errors: each listed problem, then one for the line
 * saying how many more there were. */
static uint64_t n_error_items(const hf_dump *d)
{
    return (uint64_t)d->problems->len + 1;
}

uint64_t hf_mount_errors(hf_mount *m, uint64_t first, GString *out, size_t budget)
{
    size_t start = out->len;
    uint64_t item = 0;
    for (uint32_t k = 0; k < m->n; k++) {
        hf_dump *d = m->d[k];
        for (uint64_t i = 0; i < n_error_items(d); i++, item++) {
            if (item < first)
                continue;
            if (hf_budget_spent(out, start, budget))
                return item;
            bool more = i == d->problems->len;
            if (more && d->n_problems <= d->problems->len)
                continue;
            if (m->n > 1)
                g_string_append_printf(out, "%s: ", d->path);
            if (more)
                g_string_append_printf(out, "%" G_GUINT64_FORMAT " more problems, not listed\n",
                                       (guint64)(d->n_problems - d->problems->len));
            else
                g_string_append_printf(out, "%s\n", (char *)g_ptr_array_index(d->problems, i));
        }
    }
    return HF_DONE;
}

void hf_mount_status(hf_mount *m, GString *out)
{
    for (uint32_t k = 0; k < m->n; k++)
        if (m->d[k]->ops->status) {
            if (m->n > 1)
                g_string_append_printf(out, "== %s ==\n", m->d[k]->path);
            m->d[k]->ops->status(m->d[k], out);
        }
}
