/*
 * check.c - heapfs --check: decode dumps and report, with no FUSE at all.
 */
#include "fs/check.h"

#include "decoders/core/keepdir.h"
#include "decoders/core/keepfile.h"

#include <glib.h>
#include <inttypes.h>

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

bool hf_check_index_files(const hf_mount *m, char *const *paths, int n, int i,
                          const char *index_opt, GString *out)
{
    /* hf_open_files makes one dump per file, or one of them all: a series */
    bool series = hf_mount_n_dumps(m) != (uint32_t)n;
    const hf_dump *d = hf_mount_dump(m, series ? 0 : (uint32_t)i);
    if (!d->ops->after_mount)
        return false; /* writing the index file is all it does (model.h) */
    GPtrArray *where = hf_keep_candidates(paths[i], index_opt, "");
    const char *place = hf_keep_place(where);
    if (!place) {
        g_string_append_printf(out, "none (-o index=none): %s is indexed at every mount",
                               paths[i]);
    } else {
        g_string_append_printf(out, "%s and .retained-* beside it (", place);
        if (place != g_ptr_array_index(where, 0)) {
            char *dir = g_path_get_dirname(g_ptr_array_index(where, 0));
            g_string_append_printf(out, "%s is not writable; ", dir);
            g_free(dir);
        }
        g_string_append(out, "-o index=none: none)");
    }
    g_ptr_array_free(where, TRUE);
    return true;
}

void hf_check_kept(const char *const *paths, int n, GString *out)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        GArray *kept = hf_keepdir_find(paths[i]);
        for (guint k = 0; k < kept->len; k++) {
            const hf_kept *f = &g_array_index(kept, hf_kept, k);
            g_string_append_printf(out, "kept: %" PRIu64 " %s\n", f->bytes, f->path);
            total += f->bytes;
        }
        if (!kept->len)
            g_string_append_printf(out, "kept: nothing for %s\n", paths[i]);
        hf_keepdir_kept_free(kept);
    }
    char *dir = hf_keepdir_path();
    unsigned files;
    uint64_t bytes = hf_keepdir_bytes(dir, &files);
    unsigned percent;
    uint64_t max = hf_keepdir_max(dir, &percent);
    g_string_append_printf(out, "cache directory: %s: %u file%s, %" PRIu64 " bytes; bound ",
                           dir, files, files == 1 ? "" : "s", bytes);
    if (max == UINT64_MAX)
        g_string_append(out, "none (the size of its file system is unknown)\n");
    else if (percent)
        g_string_append_printf(out, "%" PRIu64 " bytes (%u%% of its file system)\n", max, percent);
    else
        g_string_append_printf(out, "%" PRIu64 " bytes (-o index_max)\n", max);
    g_free(dir);
}

int hf_check_report(hf_mount *m, char *const *paths, int n, const char *index_opt, FILE *out)
{
    GString *s = g_string_new(NULL);
    for (uint64_t item = 0; item != HF_DONE;)
        item = hf_mount_info(m, item, s, 1 << 20);
    /* after info: the one line that differs between runs */
    for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++)
        hf_dump_index_figures(hf_mount_dump(m, k), s);
    GString *where = g_string_new(NULL);
    const char **keeping = g_new(const char *, n);
    int n_keeping = 0;
    for (int i = 0; i < n; i++) {
        g_string_truncate(where, 0);
        if (hf_check_index_files(m, paths, n, i, index_opt, where)) {
            g_string_append_printf(s, "index files (a mount's; --check writes none): %s\n",
                                   where->str);
            keeping[n_keeping++] = paths[i];
        }
    }
    g_string_free(where, TRUE);
    if (n_keeping)
        hf_check_kept(keeping, n_keeping, s);
    g_free(keeping);
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
    hf_open_opts own = *opts;
    own.index = "none"; /* --check decodes the dump itself: no index file read or written */
    hf_mount *m = hf_check_open(paths, n, &own, err);
    if (!m)
        return HF_CHECK_UNDECODED;
    int rc = hf_check_report(m, paths, n, opts->index, out);
    hf_mount_free(m);
    return rc;
}
