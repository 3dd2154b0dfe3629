/*
 * check.c - heapfs --check: decode dumps and report, with no FUSE at all.
 */
#include "fs/check.h"

#include <glib.h>

hf_dump *hf_check_open(char *const *paths, int n, const hf_open_opts *opts, FILE *err)
{
    GError *e = NULL;
    hf_dump *d = hf_open_series_with((const char *const *)paths, n, opts, &e);
    if (!d) {
        fprintf(err, "heapfs: %s\n", e ? e->message : "cannot decode");
        g_clear_error(&e);
    }
    return d;
}

int hf_check_report(hf_dump *d, FILE *out)
{
    GString *s = g_string_new(NULL);
    hf_view v = {0};
    for (uint64_t item = 0; item != HF_DONE;)
        item = d->ops->render_info(d, &v, item, s, 1 << 20);
    hf_dump_index_figures(d, s); /* after info: the one line that differs between runs */
    fputs(s->str, out);
    g_string_free(s, TRUE);
    if (d->problems->len) {
        fprintf(out, "problems:\n");
        for (guint i = 0; i < d->problems->len; i++)
            fprintf(out, "  %s\n", (char *)g_ptr_array_index(d->problems, i));
        if (d->n_problems > d->problems->len)
            fprintf(out, "  %" G_GUINT64_FORMAT " more problems, not listed\n",
                    (guint64)(d->n_problems - d->problems->len));
    }
    return HF_CHECK_OK;
}

int hf_check_run(char *const *paths, int n, const hf_open_opts *opts, FILE *out, FILE *err)
{
    hf_dump *d = hf_check_open(paths, n, opts, err);
    if (!d)
        return HF_CHECK_UNDECODED;
    int rc = hf_check_report(d, out);
    hf_dump_close(d);
    return rc;
}
