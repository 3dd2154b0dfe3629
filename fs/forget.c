/*
 * forget.c - heapfs --forget: see forget.h.
 */
#include "fs/forget.h"

#include "decoders/core/keepdir.h"
#include "decoders/core/model.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

/* Removes every file of kept; false when one stayed. */
static bool remove_all(const char *path, GArray *kept, FILE *out, FILE *err)
{
    uint64_t bytes = 0;
    unsigned n = 0;
    bool ok = true;
    for (guint i = 0; i < kept->len; i++) {
        const hf_kept *k = &g_array_index(kept, hf_kept, i);
        int r = hf_keepdir_remove(k->path);
        if (r == 0) {
            fprintf(out, "removed %" PRIu64 " %s\n", k->bytes, k->path);
            bytes += k->bytes;
            n++;
            continue;
        }
        fprintf(err, "heapfs: %s: %s\n", k->path,
                r == EBUSY ? "in use by a running heapfs mount, not removed (unmount it first)"
                           : g_strerror(r));
        ok = false;
    }
    fprintf(out, "%s: %u file%s removed, %" PRIu64 " bytes\n", path, n, n == 1 ? "" : "s",
            bytes);
    return ok;
}

static bool forget(const char *path, FILE *out, FILE *err)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    int gone_errno = errno;
    GError *e = NULL;
    if (exists && !hf_detect(path, &e)) {
        fprintf(err, "heapfs: %s\n", e->message);
        g_error_free(e);
        return false;
    }
    GArray *kept = hf_keepdir_find(path);
    bool ok = true;
    if (!exists && !kept->len) {
        fprintf(err, "heapfs: %s: %s, and nothing is kept for it\n", path,
                g_strerror(gone_errno));
        ok = false;
    } else if (!kept->len) {
        fprintf(out, "%s: nothing kept\n", path);
    } else {
        ok = remove_all(path, kept, out, err);
    }
    hf_keepdir_kept_free(kept);
    return ok;
}

int hf_forget_run(char *const *paths, int n, FILE *out, FILE *err)
{
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok = forget(paths[i], out, err) && ok;
    return ok ? 0 : 1;
}
