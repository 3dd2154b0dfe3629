/*
 * check.c - heapfs --check: decode dumps and report, with no FUSE at all.
 */
#include "fs/check.h"

#include <glib.h>

hf_mount *hf_check_open(char *const *paths, int n, const hf_open_opts *opts, FILE *err)
{
    GError *e = NULL;
    hf_mount *m = hf_mount_open(paths, n, opts, &e);
    if (!m) {
        fprintf(err, "heapfs: %s\n", e ? e->message : "cannot decode");
        g_clear_error(&e);
    }
    return m;
}

int hf_check_report(hf_mount *m, FILE *out)
{
    GString *s = g_string_new(NULL);
    for (uint64_t item = 0; item != HF_DONE;)
        item = hf_mount_info(m, item, s, 1 << 20);
    /* after info: the one line that differs between runs */
    for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++)
        hf_dump_index_figures(hf_mount_dump(m, k), s);
    fputs(s->str, out);
    g_string_truncate(s, 0);
    for (uint64_t item = 0; item != HF_DONE;)
        item = hf_mount_errors(m, item, s, 1 << 20);
    if (s->len) {
        fprintf(out, "problems:\n");
        char **lines = g_strsplit(s->str, "\n", -1);
        for (char **l = lines; *l && **l; l++)
            fprintf(out, "  %s\n", *l);
        g_strfreev(lines);
    }
    g_string_free(s, TRUE);
    return HF_CHECK_OK;
}

int hf_check_run(char *const *paths, int n, const hf_open_opts *opts, FILE *out, FILE *err)
{
    hf_mount *m = hf_check_open(paths, n, opts, err);
    if (!m)
        return HF_CHECK_UNDECODED;
    int rc = hf_check_report(m, out);
    hf_mount_free(m);
    return rc;
}
