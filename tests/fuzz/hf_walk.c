/*
 * hf_walk - open dump files the way `heapfs` does (hf_open) and walk every
 * node of their tree (walk.h), without mounting.  A test driver, not an
 * installed tool: t_truncate.sh runs it on corpus files cut at hundreds of
 * offsets, t_fuzz_smoke.sh replays tests/fuzz/regress/ through it.
 *
 *   hf_walk [options] FILE...
 *     --format NAME       force decoder NAME instead of detecting the format
 *     --cuts LIST         for each offset K in LIST (comma separated), walk
 *                         the first K bytes of each FILE (written to a
 *                         temporary file under --tmpdir, default $TMPDIR)
 *     --max-children N    entries visited per directory (default 200)
 *     --max-file-bytes N  bytes read per file (default 1 MiB)
 *     --max-nodes N       nodes visited in all (default: no cap)
 *     --cache BYTES       view cache bound (default 64 KiB)
 *     --together          open every FILE as one mount (heapfs FILE... MNT:
 *                         several dumps, or a series) and walk that once
 *                         (without --format or --cuts)
 *     --repeat            walk twice (64 KiB and 256 MiB caches) and check
 *                         that both walks read identical bytes
 *     --timeout SECS      a walk taking longer is a hang: print HANG, exit 3
 *     --list-formats      print the registered formats, one a line
 *
 * One line per walk on stdout:
 *     NAME: ok problems=P dirs=D files=F links=L bytes=B digest=X [capped]
 *           [note: PATH: WHAT]          (walk.h's notes: the first one)
 *     NAME: refused: MESSAGE            (hf_open's one line)
 *     NAME: VIOLATION N: PATH: WHAT     (a contract of walk.h broken)
 * NAME is FILE, FILE@K for a cut, or FILE+FILE... together.  "NAME: " is printed (and flushed)
 * before the walk starts, so a crash shows which input it was.
 * Exit status: 0 when every walk was ok or refused cleanly, 2 when any broke
 * a contract, 3 on a hang, 64 on bad usage; a sanitizer report exits 1.
 */
#include "decoders/core/registry.h"
#include "tests/fuzz/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *current = "";

static void on_alarm(int sig)
{
    static const char msg[] = "HANG\n";
    (void)!write(STDOUT_FILENO, msg, sizeof msg - 1);
    (void)!write(STDERR_FILENO, "hf_walk: hang in ", 17);
    (void)!write(STDERR_FILENO, current, strlen(current));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(3);
}

static int usage(void)
{
    fprintf(stderr, "usage: hf_walk [--format NAME] [--cuts K,K,...] [--tmpdir DIR] "
                    "[--max-children N] [--max-file-bytes N] [--max-nodes N] [--cache BYTES] "
                    "[--repeat] [--together] [--timeout SECS] [--list-formats] FILE...\n");
    return 64;
}

typedef struct {
    const hf_decoder *dec;
    hf_walk_opts opts;
    bool repeat;
    unsigned timeout;
} config;

/* Walks mount m (NULL: the files were refused with err) and prints the
 * walk's line; frees m, ends the alarm.  Returns 0 ok/refused, 2 violation. */
static int walk_report(const config *c, hf_mount *m, const GError *err)
{
    int rc = 0;
    if (!m) {
        const char *msg = err ? err->message : "";
        if (!*msg || strchr(msg, '\n')) {
            printf("VIOLATION 1: refused without a one-line message: '%s'\n", msg);
            rc = 2;
        } else {
            printf("refused: %s\n", msg);
        }
    } else {
        unsigned problems = 0;
        for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++)
            problems += hf_mount_dump(m, k)->problems->len;
        hf_walk_stats st;
        hf_walk_mount(m, &c->opts, &st);
        if (!st.violations && c->repeat) {
            hf_walk_opts big = c->opts;
            big.cache_bytes = 256u << 20;
            hf_walk_stats st2;
            hf_walk_mount(m, &big, &st2);
            if (st2.digest != st.digest) {
                st.violations++;
                snprintf(st.first, sizeof st.first,
                         "a second walk (bigger cache) read different bytes");
            } else if (st2.violations) {
                st = st2;
            }
        }
        if (st.violations) {
            printf("VIOLATION %" G_GUINT64_FORMAT ": %s\n", st.violations, st.first);
            rc = 2;
        } else {
            printf("ok problems=%u dirs=%" G_GUINT64_FORMAT " files=%" G_GUINT64_FORMAT
                   " links=%" G_GUINT64_FORMAT " bytes=%" G_GUINT64_FORMAT
                   " digest=%016" G_GINT64_MODIFIER "x%s%s%s\n",
                   problems, st.dirs, st.files, st.links, st.bytes, st.digest,
                   st.capped ? " capped" : "", st.notes ? " note: " : "",
                   st.notes ? st.first_note : "");
        }
        hf_mount_free(m);
    }
    if (c->timeout)
        alarm(0);
    fflush(stdout);
    return rc;
}

/* "NAME: " before a walk starts (a crash then shows which), and the alarm. */
static void begin_walk(const config *c, const char *name)
{
    current = name;
    printf("%s: ", name);
    fflush(stdout);
    if (c->timeout)
        alarm(c->timeout);
}

/* Opens and walks one file; returns 0 ok/refused, 2 violation. */
static int walk_one(const config *c, const char *path, const char *name)
{
    begin_walk(c, name);
    GError *err = NULL;
    hf_dump *d;
    if (c->dec) {
        gchar *data = NULL;
        gsize len = 0;
        if (!g_file_get_contents(path, &data, &len, &err)) {
            d = NULL;
        } else {
            const uint8_t *p = (const uint8_t *)data;
            d = hf_walk_open_buffers(&p, &len, 1, c->dec, NULL, &err);
        }
        g_free(data);
    } else {
        d = hf_open(path, NULL, &err);
    }
    int rc = walk_report(c, d ? hf_mount_new(&d, 1, true) : NULL, err);
    g_clear_error(&err);
    return rc;
}

/* Opens FILE... as one mount (heapfs FILE... MNT) and walks it. */
static int walk_together(const config *c, char **paths, int n)
{
    char *name = g_strjoinv("+", paths);
    begin_walk(c, name);
    GError *err = NULL;
    hf_mount *m = hf_mount_open(paths, n, NULL, &err);
    int rc = walk_report(c, m, err);
    g_clear_error(&err);
    g_free(name);
    return rc;
}

static bool write_prefix(const char *path, const char *data, size_t len)
{
    /* A new file each time (unlink first): the previous cut's mapping, if
     * anything still held it, keeps its own pages. */
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return false;
        }
        done += (size_t)w;
    }
    return close(fd) == 0;
}

static int walk_cuts(const config *c, const char *path, const char *cuts, const char *tmpdir)
{
    gchar *data = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        fprintf(stderr, "hf_walk: %s\n", err->message);
        g_error_free(err);
        return 64;
    }
    char *base = g_path_get_basename(path);
    char *tmp = g_strdup_printf("%s/hf_walk-%d-%s", tmpdir, (int)getpid(), base);
    int worst = 0;
    char **offs = g_strsplit(cuts, ",", -1);
    for (char **o = offs; *o; o++) {
        if (!**o)
            continue;
        guint64 k = g_ascii_strtoull(*o, NULL, 10);
        if (k > len)
            k = len;
        if (!write_prefix(tmp, data, (size_t)k)) {
            fprintf(stderr, "hf_walk: cannot write %s: %s\n", tmp, g_strerror(errno));
            worst = 64;
            break;
        }
        char *name = g_strdup_printf("%s@%" G_GUINT64_FORMAT, base, k);
        int rc = walk_one(c, tmp, name);
        g_free(name);
        worst = MAX(worst, rc);
    }
    unlink(tmp);
    g_strfreev(offs);
    g_free(tmp);
    g_free(base);
    g_free(data);
    return worst;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    guint64 v = g_ascii_strtoull(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    config c = {0};
    hf_walk_opts_default(&c.opts);
    const char *cuts = NULL, *tmpdir = g_get_tmp_dir(), *format = NULL;
    bool together = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--list-formats") == 0) {
            for (const hf_decoder *const *p = hf_decoders(); *p; p++)
                printf("%s\n", (*p)->format);
            return 0;
        } else if (strcmp(a, "--repeat") == 0) {
            c.repeat = true;
            continue;
        } else if (strcmp(a, "--together") == 0) {
            together = true;
            continue;
        } else if (!v) {
            return usage();
        } else if (strcmp(a, "--format") == 0) {
            format = v;
        } else if (strcmp(a, "--cuts") == 0) {
            cuts = v;
        } else if (strcmp(a, "--tmpdir") == 0) {
            tmpdir = v;
        } else if (!parse_u64(v, &n)) {
            return usage();
        } else if (strcmp(a, "--max-children") == 0) {
            c.opts.max_children = n;
        } else if (strcmp(a, "--max-file-bytes") == 0) {
            c.opts.max_file_bytes = n;
        } else if (strcmp(a, "--max-nodes") == 0) {
            c.opts.max_nodes = n;
        } else if (strcmp(a, "--cache") == 0) {
            c.opts.cache_bytes = (size_t)n;
        } else if (strcmp(a, "--timeout") == 0) {
            c.timeout = (unsigned)n;
        } else {
            return usage();
        }
        i++;
    }
    if (i >= argc)
        return usage();
    if (format) {
        c.dec = hf_walk_decoder(format);
        if (!c.dec) {
            fprintf(stderr, "hf_walk: no decoder '%s' is registered\n", format);
            return 64;
        }
    }
    signal(SIGALRM, on_alarm);
    if (together)
        return walk_together(&c, argv + i, argc - i);
    int worst = 0;
    for (; i < argc; i++) {
        int rc = cuts ? walk_cuts(&c, argv[i], cuts, tmpdir) : walk_one(&c, argv[i], argv[i]);
        worst = MAX(worst, rc);
    }
    return worst;
}
