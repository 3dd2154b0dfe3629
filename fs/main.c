/*
 * main.c - the heapfs command: parse options, index the dump, mount.
 *
 *   heapfs [options] DUMP [DUMP...] MOUNTPOINT
 *   heapfs --check DUMP [DUMP...]
 *   heapfs --forget DUMP [DUMP...]
 *
 * The dump is indexed before anything is mounted, so a file that cannot be
 * decoded gives one line on stderr and a non-zero exit, and never leaves a
 * mount behind.  --check runs exactly the same decoding code as a mount
 * (fs/check.c, which has no FUSE in it).
 */
#include "fs/check.h"
#include "fs/forget.h"
#include "fs/fuse_ops.h"
#include "fs/guard.h"
#include "fs/preflight.h"

#include "cache/cache.h"
#include "decoders/core/cancel.h"
#include "decoders/core/keepdir.h"
#include "decoders/core/mapwatch.h"
#include "decoders/core/model.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAPFS_VERSION "0.1.0"
#define DEFAULT_CACHE_SIZE (256u << 20)

typedef struct {
    char *cache_size;
    char *names; /* -o names=FILE: candidate names for hashed ones (BMD) */
    char *retained; /* -o retained=LEVEL: what keeps objects alive (heaps) */
    char *retained_mem; /* -o retained_mem=auto|ram|file|BYTES (heaps) */
    char *index;    /* -o index=PATH|none: the index file */
    char *index_max; /* -o index_max=SIZE|N%: the cache directory's bound */
    int check;
    int forget;     /* --forget: remove the dumps' kept files */
    int help;
    int version;
    GPtrArray *positional; /* dump files, then the mount point */
} options;

enum { KEY_HELP, KEY_VERSION, KEY_RW };

/* Options that mount(8), mount.fuse3 and /etc/fstab lines pass and that
 * mean nothing to a read-only heapfs mount: accepted and dropped, as sshfs
 * does with the fstab-only ones.  dev and suid are dropped too: a heapfs
 * mount holds no device or set-user-ID files and stays nodev,nosuid (libfuse's
 * default).  The access-time options are ones this libfuse may not know;
 * nothing on a read-only mount updates access times. */
#define HF_IGNORED_OPTIONS(X)                                                  \
    X("auto") X("noauto") X("user") X("nouser") X("users") X("owner")          \
    X("group") X("defaults") X("_netdev") X("nofail") X("dev") X("suid")       \
    X("diratime") X("nodiratime") X("relatime") X("norelatime")                \
    X("strictatime") X("nostrictatime") X("lazytime") X("nolazytime")          \
    X("iversion") X("noiversion") X("mand") X("nomand") X("silent") X("loud")

#define HF_DISCARD(name) FUSE_OPT_KEY(name, FUSE_OPT_KEY_DISCARD),
#define HF_NAME(name) name,
static const char *const ignored_options[] = {HF_IGNORED_OPTIONS(HF_NAME) NULL};

static const struct fuse_opt option_spec[] = {
    {"cache_size=%s", offsetof(options, cache_size), 0},
    {"names=%s", offsetof(options, names), 0},
    {"retained=%s", offsetof(options, retained), 0},
    {"retained_mem=%s", offsetof(options, retained_mem), 0},
    {"index=%s", offsetof(options, index), 0},
    {"index_max=%s", offsetof(options, index_max), 0},
    {"--check", offsetof(options, check), 1},
    {"--forget", offsetof(options, forget), 1},
    FUSE_OPT_KEY("-h", KEY_HELP),
    FUSE_OPT_KEY("--help", KEY_HELP),
    FUSE_OPT_KEY("-V", KEY_VERSION),
    FUSE_OPT_KEY("--version", KEY_VERSION),
    FUSE_OPT_KEY("rw", KEY_RW),
    HF_IGNORED_OPTIONS(HF_DISCARD)
    FUSE_OPT_END,
};

static int option_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
    options *o = data;
    switch (key) {
    case FUSE_OPT_KEY_NONOPT:
        g_ptr_array_add(o->positional, g_strdup(arg));
        return 0;
    case KEY_HELP:
        o->help = 1;
        return 0;
    case KEY_VERSION:
        o->version = 1;
        return 0;
    case KEY_RW:
        /* mount(8) passes rw whenever ro is not given: say what to do. */
        fprintf(stderr, "heapfs: -o rw: heapfs mounts are read-only (mount with -o ro)\n");
        return -1;
    default:
        return 1;
    }
}

static void usage(const char *prog)
{
    printf("usage: %s [options] DUMP [DUMP...] MOUNTPOINT\n"
           "       %s --check DUMP [DUMP...]\n"
           "       %s --forget DUMP [DUMP...]\n"
           "\n"
           "Mounts a heap dump or memory profile read-only as files: HPROF binary\n"
           "(JVM, Android), HPROF agent text, BMD, OpenEdge .oemp, gperftools heap\n"
           "profiles, pprof profile.proto files such as Go heap profiles, and V8 heap\n"
           "snapshots (.heapsnapshot: Node.js, Chrome).  Several\n"
           "files become snapshots 1, 2, ... in the order given (heap dumps of any of\n"
           "the formats side by side; each snapshot from the second has a growth file).\n"
           "Unmount with: fusermount3 -u MOUNTPOINT\n"
           "\n"
           "heapfs options:\n"
           "    --check                decode without mounting; print info and problems\n"
           "    --forget               remove the index and results files kept for the\n"
           "                           dumps (beside them and in the cache directory)\n"
           "    -o cache_size=BYTES    bound of the view cache (K, M, G suffixes; default 256M)\n"
           "    -o names=FILE          BMD: candidate names, one per line (a jar listing, a\n"
           "                           heapfs histogram, field names), to resolve the names\n"
           "                           the dump keeps only as a hash\n"
           "    -o retained=LEVEL      heap dumps: the weakest reference that keeps an object\n"
           "                           alive in retained sizes, dominators and paths: strong\n"
           "                           (default: soft, weak, phantom and finalizer referents do\n"
           "                           not), soft, finalizer, weak or phantom (all count, as MAT)\n"
           "    -o retained_mem=WHERE  heap dumps: where retained sizes' working arrays go: auto\n"
           "                           (default: RAM up to half the memory available, cgroup\n"
           "                           limits included, then files in the index's directory),\n"
           "                           ram, file, or BYTES of RAM (K, M, G) before files\n"
           "    -o index=PATH          HPROF, V8 (one file): the index file, kept so that the\n"
           "                           next mount of the same dump maps it instead of indexing\n"
           "                           again\n"
           "                           (default: DUMP.heapfs-index beside the dump, else under\n"
           "                           $XDG_CACHE_HOME/heapfs); -o index=none keeps none.\n"
           "                           --check never reads or writes one\n"
           "    -o index_max=SIZE      bound of $XDG_CACHE_HOME/heapfs (K, M, G suffixes, or\n"
           "                           N%% of its file system; default 10%%): the least\n"
           "                           recently used files go when a mount writes one\n"
           "    -o ro                  read-only, as every heapfs mount is (-o rw is refused)\n"
           "\n",
           prog, prog, prog);
    /* The list, wrapped. */
    const char *head = "Accepted and ignored (from mount(8) and /etc/fstab):";
    printf("%s", head);
    int col = (int)strlen(head);
    for (int i = 0; ignored_options[i]; i++) {
        int len = (int)strlen(ignored_options[i]) + 1;
        if (col + len + 1 > 76) {
            printf("\n ");
            col = 1;
        }
        printf(" %s%s", ignored_options[i], ignored_options[i + 1] ? "," : ".\n\n");
        col += len + 1;
    }
    fuse_cmdline_help();
    fuse_lowlevel_help();
}

/* -o retained=LEVEL, by the names of decoders/heap/retained.h. */
static bool parse_reach(const char *s, unsigned *out)
{
    for (unsigned i = 0; i < HF_REACH_N; i++)
        if (strcmp(s, hf_reach_names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

/* "256M" -> bytes: NULL, else what is wrong with s.  Digits first: strtoull
 * takes "-1" as 2^64-1; and a suffix must not shift bits out
 * (17179869185G is not 1 GiB). */
static const char *parse_size(const char *s, uint64_t *out)
{
    const char *garbage = "is not a size (bytes, or a number with K, M or G)";
    if (!g_ascii_isdigit(*s))
        return garbage;
    char *end;
    errno = 0;
    guint64 v = g_ascii_strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (g_ascii_toupper(*end)) {
    case 'G': shift = 30; break;
    case 'M': shift = 20; break;
    case 'K': shift = 10; break;
    }
    end += shift != 0;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return garbage;
    if (errno == ERANGE || v > UINT64_MAX >> shift)
        return "is too large (2^64 bytes or more)";
    *out = v << shift;
    return NULL;
}

/* -o index_max=: "N%" of the file system (0 to 100), or a size. */
static const char *parse_index_max(const char *s)
{
    size_t n = strlen(s);
    uint64_t v = 0;
    if (n > 1 && s[n - 1] == '%') {
        char *num = g_strndup(s, n - 1);
        const char *bad = parse_size(num, &v);
        g_free(num);
        if (bad || v > 100 || !g_ascii_isdigit(s[n - 2]))
            return "is not a share of the file system (0% to 100%)";
        hf_keepdir_set_max(0, (unsigned)v); /* 0%: 0 bytes */
        return NULL;
    }
    const char *bad = parse_size(s, &v);
    if (!bad)
        hf_keepdir_set_max(v, 0);
    return bad;
}

/* -o retained_mem=auto|ram|file|BYTES; NULL, or why not. */
static const char *parse_work(const char *s, hf_work_opt *out)
{
    static const char *const names[] = {"auto", "ram", "file"};
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (hf_work_opt){(hf_work_mode)i, 0};
            return NULL;
        }
    *out = (hf_work_opt){HF_WORK_LIMIT, 0};
    return g_ascii_isdigit(*s) ? parse_size(s, &out->limit)
                               : "not auto, ram, file or a size (bytes, or a number with K, M or G)";
}

/* *p made absolute (lexically, as hf_keep_candidates names the dump): left
 * as they are, relative names would mean / to a daemon (no -f), which has
 * changed there by the time it writes the index file. */
static void make_absolute(char **p)
{
    if (*p && **p && !g_path_is_absolute(*p)) {
        char *abs = g_canonicalize_filename(*p, NULL);
        g_free(*p);
        *p = abs;
    }
}

/* Every path on the command line, resolved once, before anything else. */
static void resolve_paths(options *o)
{
    for (guint i = 0; i < o->positional->len; i++)
        make_absolute((char **)&o->positional->pdata[i]);
    make_absolute(&o->names);
    if (o->index && strcmp(o->index, "none") != 0)
        make_absolute(&o->index);
}

/* Mount options every heapfs mount gets. */
static void add_mount_options(struct fuse_args *args, const char *dump)
{
    fuse_opt_add_arg(args, "-oro,default_permissions,subtype=heapfs");
    char *fsname = NULL;
    char *opt = g_strdup_printf("fsname=%s", dump);
    fuse_opt_add_opt_escaped(&fsname, opt);
    char *arg = g_strdup_printf("-o%s", fsname);
    fuse_opt_add_arg(args, arg);
    g_free(arg);
    g_free(opt);
    free(fsname);
}

/* "heapfs: MSG" for a preflight check's problem (preflight.h); true when
 * there was none. */
static bool preflight(char *msg)
{
    if (!msg)
        return true;
    fprintf(stderr, "heapfs: %s\n", msg);
    g_free(msg);
    return false;
}

/* libfuse's messages in heapfs's style (preflight.h).  It writes some
 * lines in pieces, so pieces are gathered up to the newline; debug output
 * (-d) passes as it is. */
static void log_restyled(enum fuse_log_level level, const char *fmt, va_list ap)
{
    static GString *line;
    G_LOCK_DEFINE_STATIC(line);
    if (level >= FUSE_LOG_DEBUG) {
        vfprintf(stderr, fmt, ap);
        return;
    }
    char *piece = g_strdup_vprintf(fmt, ap);
    G_LOCK(line);
    if (!line)
        line = g_string_new(NULL);
    g_string_append(line, piece);
    if (line->len && line->str[line->len - 1] == '\n') {
        preflight(hf_preflight_restyle(line->str));
        g_string_truncate(line, 0);
    }
    G_UNLOCK(line);
    g_free(piece);
}

/* Whether libfuse takes the arguments left for it (its options and the
 * mount point), asked before indexing: a mistyped option must not wait for
 * a 10 GB dump to be indexed to be reported.  The session made here is
 * never mounted. */
static bool fuse_args_ok(const struct fuse_args *args)
{
    struct fuse_args copy = FUSE_ARGS_INIT(0, NULL);
    for (int i = 0; i < args->argc; i++)
        fuse_opt_add_arg(&copy, args->argv[i]);
    struct fuse_cmdline_opts cl = {0};
    bool ok = fuse_parse_cmdline(&copy, &cl) == 0;
    if (ok) {
        static const struct fuse_lowlevel_ops none;
        struct fuse_session *se = fuse_session_new(&copy, &none, sizeof none, NULL);
        ok = se != NULL; /* NULL: libfuse said which option it does not know */
        if (se)
            fuse_session_destroy(se);
    }
    free(cl.mountpoint);
    fuse_opt_free_args(&copy);
    return ok;
}

/* What dumps do once the mount is live (HPROF: write the index file), one
 * dump after another, on one thread. */
static gpointer after_mount(gpointer data)
{
    hf_mount *m = data;
    for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++) {
        hf_dump *d = hf_mount_dump(m, k);
        if (d->ops->after_mount)
            d->ops->after_mount(d);
        hf_dump_after_mount_end(d);
    }
    return NULL;
}

/* On a terminal, as the progress line: where the index files will go, so
 * that hundreds of MB written beside a dump are no surprise (.stats says
 * it too, later). */
static void say_index_files(hf_mount *m, char *const *paths, int n, const char *index_opt)
{
    if (!isatty(STDERR_FILENO))
        return;
    GString *s = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
        g_string_truncate(s, 0);
        if (hf_check_index_files(m, paths, n, i, index_opt, s))
            fprintf(stderr, "heapfs: index files: %s\n", s->str);
    }
    g_string_free(s, TRUE);
}

/* hf_cancel_when's question: the loop is ending (a signal, an unmount, the
 * connection aborted), so a long computation in a worker gives up instead
 * of keeping the daemon waiting for it. */
static bool session_gone(void *se)
{
    return fuse_session_exited(se);
}

static int run_mount(hf_mount *m, char *const *paths, int n, struct fuse_args *args,
                     uint64_t cache_size, const char *index_opt)
{
    struct fuse_cmdline_opts cl;
    if (fuse_parse_cmdline(args, &cl) != 0)
        return 2;
    int rc = 1;
    hf_cache *cache = hf_cache_new(cache_size);
    hf_fs fs = {.tree = hf_tree_new(m, cache), .timeout = 86400.0, .n_files = (uint32_t)n};
    /* Absolute (resolve_paths): the dumps are stat()ed again at each open. */
    fs.paths = g_new0(char *, n + 1);
    fs.file_st = g_new0(struct stat, n);
    for (int i = 0; i < n; i++) {
        fs.paths[i] = g_strdup(paths[i]);
        stat(fs.paths[i], &fs.file_st[i]);
        /* The generation changes when a dump file does, so NFS handles to
         * a replaced dump go stale instead of naming other contents. */
        fs.generation ^= (uint32_t)(fs.file_st[i].st_size ^ fs.file_st[i].st_mtim.tv_sec ^
                                    (fs.file_st[i].st_mtim.tv_nsec << 8));
    }
    fs.generation |= 1;
    fs.dump_st = fs.file_st[0];
    for (int i = 1; i < n; i++)
        fs.dump_st.st_mode &= fs.file_st[i].st_mode | ~(mode_t)0777;
    for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++) {
        hf_dump *d = hf_mount_dump(m, k);
        if (d->data) /* index and results files: as mapped (guard_watch) */
            hf_guard_add(d->data, d->size);
    }

    struct fuse_session *se = fuse_session_new(args, &hf_fuse_ops, sizeof hf_fuse_ops, &fs);
    if (!se) {
        rc = 2; /* an option libfuse does not know, as a bad mount point is */
        goto out;
    }
    hf_cancel_when(session_gone, se);
    if (fuse_set_signal_handlers(se) != 0)
        goto out_session;
    if (fuse_session_mount(se, cl.mountpoint) != 0)
        goto out_signals;
    say_index_files(m, paths, n, index_opt);
    fuse_daemonize(cl.foreground);
    /* after daemonizing: a thread started before the fork would be lost;
     * requests wait in the kernel until the loop below reads them */
    for (uint32_t k = 0; k < hf_mount_n_dumps(m); k++)
        hf_dump_after_mount_begin(hf_mount_dump(m, k));
    GThread *after = g_thread_new("heapfs-index", after_mount, m);
    if (cl.singlethread) {
        rc = fuse_session_loop(se);
    } else {
        struct fuse_loop_config *lc = fuse_loop_cfg_create();
        fuse_loop_cfg_set_clone_fd(lc, cl.clone_fd);
        /* libfuse leaves these at UINT_MAX unless -o max_threads= or
         * max_idle_threads= was given; only pass values the user chose. */
        if (cl.max_threads >= 1 && cl.max_threads <= 100000)
            fuse_loop_cfg_set_max_threads(lc, cl.max_threads);
        if (cl.max_idle_threads <= 100000)
            fuse_loop_cfg_set_idle_threads(lc, cl.max_idle_threads);
        rc = fuse_session_loop_mt(se, lc);
        fuse_loop_cfg_destroy(lc);
    }
    /* libfuse reports the signal that ended the loop; SIGINT, SIGTERM and
     * SIGHUP are how users stop a mount, so they are a clean exit. */
    rc = (rc == 0 || rc == SIGINT || rc == SIGTERM || rc == SIGHUP) ? 0 : 1;
    fuse_session_unmount(se);
    if (after)
        g_thread_join(after); /* the dump must outlive it */
out_signals:
    fuse_remove_signal_handlers(se);
out_session:
    hf_cancel_when(NULL, NULL); /* every worker is joined */
    fuse_session_destroy(se);
out:
    hf_tree_free(fs.tree);
    hf_cache_free(cache);
    g_strfreev(fs.paths);
    g_free(fs.file_st);
    free(cl.mountpoint);
    return rc;
}

/* A mapped index or results file keeps its descriptor open, for its lock
 * (keepdir.h): one per snapshot whose retained sizes were loaded, which a
 * dump of many heap dumps could take past the usual soft limit of 1024. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Index and retained results files can shrink while mapped, as dumps can. */
static const hf_mapwatch guard_watch = {hf_guard_add, hf_guard_remove};

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    options o = {.positional = g_ptr_array_new_with_free_func(g_free)};
    int rc = 2;
    fuse_set_log_func(log_restyled);
    if (fuse_opt_parse(&args, &o, option_spec, option_proc) != 0)
        goto out;
    resolve_paths(&o);
    if (o.help) {
        usage(argv[0]);
        rc = 0;
        goto out;
    }
    if (o.version) {
        printf("heapfs %s (libfuse %s)\n", HEAPFS_VERSION, fuse_pkgversion());
        rc = 0;
        goto out;
    }
    uint64_t cache_size = DEFAULT_CACHE_SIZE;
    const char *bad_size = o.cache_size ? parse_size(o.cache_size, &cache_size) : NULL;
    if (bad_size) {
        fprintf(stderr, "heapfs: cache_size: '%s' %s\n", o.cache_size, bad_size);
        goto out;
    }
    const char *bad_max = o.index_max ? parse_index_max(o.index_max) : NULL;
    if (bad_max) {
        fprintf(stderr, "heapfs: index_max: '%s' %s\n", o.index_max, bad_max);
        goto out;
    }
    bool no_mount = o.check || o.forget;
    if (no_mount && args.argc > 1) {
        /* What fuse_opt_parse left is for libfuse, which these never run. */
        char *left = g_strjoinv(" ", args.argv + 1);
        fprintf(stderr, "heapfs: %s: %s takes no mount option (see heapfs --help)\n", left,
                o.check ? "--check" : "--forget");
        g_free(left);
        goto out;
    }
    int npos = (int)o.positional->len;
    int ndumps = no_mount ? npos : npos - 1;
    if (ndumps < 1) {
        fprintf(stderr, "heapfs: %s (see heapfs --help)\n",
                no_mount ? "no dump file given" : "need a dump file and a mount point");
        goto out;
    }
    if (o.check && o.forget) {
        fprintf(stderr, "heapfs: --check and --forget: one at a time\n");
        goto out;
    }
    if (o.forget) {
        rc = hf_forget_run((char **)o.positional->pdata, ndumps, stdout, stderr);
        goto out;
    }
    hf_open_opts opts = {.names_file = o.names, .index = o.index};
    if (o.index && !*o.index) {
        fprintf(stderr, "heapfs: -o index=: empty (a file name, or none)\n");
        goto out;
    }
    if (o.index && strcmp(o.index, "none") != 0 && ndumps > 1) {
        fprintf(stderr, "heapfs: -o index=%s: names one file, and %d dumps are given "
                        "(leave it out: each dump then has its own, or -o index=none)\n",
                o.index, ndumps);
        goto out;
    }
    if (o.retained && !parse_reach(o.retained, &opts.reach)) {
        fprintf(stderr, "heapfs: -o retained=%s: not a level (strong, soft, finalizer, weak or "
                        "phantom)\n",
                o.retained);
        rc = 2;
        goto out;
    }
    const char *bad_mem = o.retained_mem ? parse_work(o.retained_mem, &opts.work) : NULL;
    if (bad_mem) {
        fprintf(stderr, "heapfs: -o retained_mem=%s: %s\n", o.retained_mem, bad_mem);
        goto out;
    }
    char **paths = (char **)o.positional->pdata;
    if (o.names && !preflight(hf_preflight_file("names file", o.names))) {
        rc = 1; /* a file that cannot be opened, as a dump */
        goto out;
    }
    if (o.check) {
        rc = hf_check_run(paths, ndumps, &opts, stdout, stderr);
        goto out;
    }
    add_mount_options(&args, paths[0]);
    fuse_opt_add_arg(&args, paths[npos - 1]);
    if (!preflight(hf_preflight_mountpoint(paths[npos - 1])) || !fuse_args_ok(&args))
        goto out;
    if (!preflight(hf_preflight_fuse_device("/dev/fuse"))) {
        rc = 1; /* the mount cannot be made */
        goto out;
    }
    hf_mapwatch_set(&guard_watch);
    raise_fd_limit();
    hf_mount *m = hf_check_open(paths, ndumps, &opts, stderr);
    if (!m) {
        rc = 1;
        goto out;
    }
    /* Indexing freed hundreds of MB of temporary memory; after the first
     * dump glibc keeps such blocks in its heaps instead of unmapping them
     * (its mmap threshold rises), so give them back before serving. */
    malloc_trim(0);
    rc = run_mount(m, paths, ndumps, &args, cache_size, o.index);
    hf_mount_free(m);
out:
    fuse_opt_free_args(&args);
    g_ptr_array_free(o.positional, TRUE);
    g_free(o.cache_size);
    g_free(o.names);
    g_free(o.retained_mem);
    g_free(o.retained);
    g_free(o.index);
    g_free(o.index_max);
    return rc;
}
