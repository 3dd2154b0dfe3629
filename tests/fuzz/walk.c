/*
 * walk.c - see walk.h.
 *
 * The walk is depth first from the root.  A directory is listed once from
 * offset 0 (up to max_children entries), then each entry is checked against
 * lookup and visited.  Nothing follows links while walking (the tree has no
 * cycles without them); a link other than an entry of a link directory
 * (refs/ ...) is resolved by lookups from its directory and must lead to a
 * node that exists.
 */
#include "tests/fuzz/walk.h"

#include "cache/cache.h"
#include "decoders/core/registry.h"
#include "fs/inode.h"
#include "fs/kinds.h"
#include "fs/parts.h"
#include "fs/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void hf_walk_opts_default(hf_walk_opts *o)
{
    o->max_children = 200;
    o->max_file_bytes = 1u << 20;
    o->max_nodes = 0;
    o->cache_bytes = 64u << 10;
}

/* ---- opening buffers ---- */

const hf_decoder *hf_walk_decoder(const char *format)
{
    for (const hf_decoder *const *p = hf_decoders(); *p; p++)
        if (strcmp((*p)->format, format) == 0)
            return *p;
    return NULL;
}

static int memfd_of(const uint8_t *data, size_t len)
{
    int fd = memfd_create("heapfs-walk", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return fd;
}

/* Unreadable pages right after the first file's mapping, while its dump
 * is open: a read past the file's end faults there, as it may in a mount,
 * instead of landing unseen in whatever the process mapped next to it
 * (ASan does not watch mappings).  Reads in the zeros that fill the last
 * page still pass.  GLib maps the file wherever the kernel says, so a hole
 * of its size is made right before the guard; the kernel gives the highest
 * hole that fits, and each mapping that lands elsewhere fills a higher
 * hole, so a few tries end in ours. */
/* 256 KiB: under ASan, holes that big are left high in the address space,
 * where GLib's mapping goes; a guard of 1 MiB is placed far below it. */
#define GUARD_BYTES (256u << 10)
#define GUARD_TRIES 64
static void *guard_at;

static void guard_release(void)
{
    if (guard_at)
        munmap(guard_at, GUARD_BYTES);
    guard_at = NULL;
}

/* The file of fd mapped, with the guard after it when that could be
 * arranged (the previous dump's guard goes first: hf_walk.c frees its
 * dumps itself). */
static GMappedFile *map_guarded(int fd, GError **e)
{
    guard_release();
    struct stat st;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (fstat(fd, &st) != 0 || st.st_size <= 0)
        return g_mapped_file_new_from_fd(fd, FALSE, e);
    size_t len = ((size_t)st.st_size + page - 1) / page * page;
    uint8_t *r = mmap(NULL, len + GUARD_BYTES, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return g_mapped_file_new_from_fd(fd, FALSE, e);
    munmap(r, len);
    GPtrArray *elsewhere = g_ptr_array_new_with_free_func((GDestroyNotify)g_mapped_file_unref);
    GMappedFile *map = NULL;
    for (int i = 0; i < GUARD_TRIES; i++) {
        map = g_mapped_file_new_from_fd(fd, FALSE, e);
        if (!map || (uint8_t *)g_mapped_file_get_contents(map) == r)
            break;
        g_ptr_array_add(elsewhere, map);
        map = NULL;
    }
    g_ptr_array_free(elsewhere, TRUE);
    if (map && (uint8_t *)g_mapped_file_get_contents(map) == r) {
        guard_at = r + len;
        return map;
    }
    munmap(r + len, GUARD_BYTES);
    return map ? map : g_mapped_file_new_from_fd(fd, FALSE, e);
}

void hf_walk_close(hf_dump *d)
{
    hf_dump_close(d);
    guard_release();
}

hf_dump *hf_walk_open_buffers(const uint8_t *const *data, const size_t *len, int n,
                              const hf_decoder *dec, int *keep_fd, GError **err)
{
    if (keep_fd)
        *keep_fd = -1;
    int fds[16];
    char *paths[16];
    hf_dump *d = NULL;
    if (n < 1 || n > 16) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "walk: 1 to 16 buffers");
        return NULL;
    }
    int k = 0;
    for (; k < n; k++) {
        fds[k] = memfd_of(data[k], len[k]);
        if (fds[k] < 0) {
            g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "walk: memfd: %s", g_strerror(errno));
            goto out;
        }
        paths[k] = g_strdup_printf("/proc/self/fd/%d", fds[k]);
    }
    if (!dec) { /* as a mount opens them, into one dump */
        GPtrArray *got = g_ptr_array_new_with_free_func((GDestroyNotify)hf_dump_close);
        if (hf_open_files((const char *const *)paths, n, NULL, got, err) && got->len == 1)
            d = g_ptr_array_steal_index(got, 0);
        else if (got->len)
            g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "walk: %u dumps, not one", got->len);
        g_ptr_array_free(got, TRUE);
        goto out;
    }
    /* Forced decoder: the same checks registry.c makes before calling it. */
    for (int i = 0; i < n; i++) {
        size_t head = len[i] < 4096 ? len[i] : 4096;
        if (len[i] == 0 || !dec->detect(data[i], head)) {
            g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: not %s", paths[i], dec->format);
            goto out;
        }
    }
    if (n > 1) {
        if (dec->open_series)
            d = dec->open_series((const char *const *)paths, n, NULL, err);
        else
            g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: no series", dec->format);
        goto out;
    }
    GError *e = NULL;
    GMappedFile *map = map_guarded(fds[0], &e);
    if (!map) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s", e->message);
        g_error_free(e);
        goto out;
    }
    d = dec->open(paths[0], map, NULL, err);
    if (!d)
        guard_release();
    g_mapped_file_unref(map);
out:
    for (int i = 0; i < k; i++) {
        if (i == 0 && keep_fd && d)
            *keep_fd = fds[0];
        else
            close(fds[i]);
        g_free(paths[i]);
    }
    return d;
}

/* ---- the walk ---- */

typedef struct {
    hf_tree *t;
    const hf_walk_opts *o;
    hf_walk_stats *st;
    GString *path;
    uint64_t nodes;
    char *buf;
} walker;

#define READ_CHUNK (128u << 10) /* what the kernel asks for at most */

static void digest(walker *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = w->st->digest;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    w->st->digest = h;
}

static void G_GNUC_PRINTF(2, 3) violation(walker *w, const char *fmt, ...)
{
    if (w->st->violations++ == 0) {
        char what[384];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(w->st->first, sizeof w->st->first, "%s: %s",
                 w->path->len ? w->path->str : "/", what);
    }
}

static void G_GNUC_PRINTF(2, 3) note(walker *w, const char *fmt, ...)
{
    if (w->st->notes++ == 0) {
        char what[384];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(w->st->first_note, sizeof w->st->first_note, "%s: %s",
                 w->path->len ? w->path->str : "/", what);
    }
}

static const char *kind_name(const hf_node *n)
{
    return hf_kind_of(n)->what;
}

typedef struct {
    char name[HF_NAME_MAX];
    hf_node n;
    uint64_t next;
} dent;

typedef struct {
    GArray *ents; /* dent */
    uint64_t max; /* stop after this many entries (0: none) */
    bool stopped;
    bool overlong;
} lister;

static bool collect(void *ctx, const char *name, const hf_node *n, uint64_t next)
{
    lister *l = ctx;
    if (l->max && l->ents->len >= l->max) {
        l->stopped = true;
        return false;
    }
    dent e;
    memset(&e, 0, sizeof e);
    if (strlen(name) >= HF_NAME_MAX)
        l->overlong = true;
    g_strlcpy(e.name, name, sizeof e.name);
    e.n = *n;
    e.next = next;
    g_array_append_val(l->ents, e);
    return true;
}

/* Reads the whole of a file node (up to the cap) and checks its size. */
static void visit_file(walker *w, const hf_node *n)
{
    hf_tree *t = w->t;
    w->st->files++;
    /* info gains a line once retained sizes are computed: its bytes are
     * not part of what two walks must agree on. */
    bool stable = !hf_tree_volatile(n);
    uint64_t size = hf_tree_size(t, n);
    uint64_t cap = w->o->max_file_bytes ? w->o->max_file_bytes : UINT64_MAX;
    if (size > cap) {
        /* Start and end only. */
        w->st->capped = true;
        uint64_t half = cap / 2, got = 0;
        for (uint64_t off = 0; off < half;) {
            size_t r = hf_tree_read(t, n, w->buf, MIN(READ_CHUNK, half - off), off);
            if (r == 0)
                break;
            if (stable)
                digest(w, w->buf, r);
            off += r;
            got += r;
        }
        for (uint64_t off = size - half; off < size;) {
            size_t r = hf_tree_read(t, n, w->buf, MIN(READ_CHUNK, size - off), off);
            if (r == 0) {
                violation(w, "read at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                             " bytes gives nothing",
                          off, size);
                break;
            }
            if (stable)
                digest(w, w->buf, r);
            off += r;
            got += r;
        }
        w->st->bytes += got;
        if (hf_tree_read(t, n, w->buf, 16, size) != 0)
            violation(w, "read at the end (%" G_GUINT64_FORMAT ") gives bytes", size);
        return;
    }
    GString *all = g_string_sized_new((gsize)size + 1);
    /* Odd read sizes too: the kernel reads at page multiples, but views
     * must not care. */
    static const size_t sizes[] = {READ_CHUNK, 4096, 1000, 65536 + 7};
    unsigned which = 0;
    for (;;) {
        size_t want = sizes[which++ % G_N_ELEMENTS(sizes)];
        size_t r = hf_tree_read(t, n, w->buf, want, all->len);
        if (r == 0)
            break;
        if (r > want) {
            violation(w, "read of %zu bytes returned %zu", want, r);
            break;
        }
        g_string_append_len(all, w->buf, (gssize)r);
        if (all->len > size) {
            violation(w, "more bytes than its size %" G_GUINT64_FORMAT, size);
            break;
        }
    }
    if (stable)
        digest(w, all->str, all->len);
    w->st->bytes += all->len;
    if (all->len != size)
        violation(w, "%s: stat says %" G_GUINT64_FORMAT " bytes, reading gives %zu",
                  kind_name(n), size, (size_t)all->len);
    /* Random access gives the same bytes as the sequential read. */
    if (all->len > 0) {
        uint64_t offs[3] = {all->len / 2, all->len - 1, all->len > 5000 ? 4093 : 1};
        for (int i = 0; i < 3; i++) {
            uint64_t off = MIN(offs[i], all->len - 1);
            size_t want = MIN((size_t)300, all->len - off);
            size_t r = hf_tree_read(t, n, w->buf, want, off);
            if (r != want || memcmp(w->buf, all->str + off, want) != 0) {
                violation(w, "read at offset %" G_GUINT64_FORMAT " differs from a sequential read",
                          off);
                break;
            }
        }
    }
    if (hf_tree_read(t, n, w->buf, 16, all->len + 4096) != 0)
        violation(w, "read past the end gives bytes");
    /* Text views: no NUL bytes (grep treats them as binary). */
    if (memchr(all->str, '\0', all->len) && n->kind != HF_N_OBJ_FILE)
        note(w, "%s holds a NUL byte at %zu", kind_name(n),
             (size_t)((const char *)memchr(all->str, '\0', all->len) - all->str));
    g_string_free(all, TRUE);
}

/* Follows a relative link target from directory dir, following links met
 * on the way (depth-limited); true when it names an existing node. */
static bool resolve_at(hf_tree *t, const hf_node *dir, const char *target, hf_node *out,
                       int depth)
{
    if (depth > 8)
        return false;
    hf_node cur = *dir;
    char **parts = g_strsplit(target, "/", -1);
    bool ok = true;
    for (char **p = parts; *p && ok; p++) {
        if (!**p)
            continue;
        hf_node next;
        ok = hf_tree_lookup(t, &cur, *p, &next) == 0 && hf_tree_valid(t, &next);
        if (ok && hf_tree_type(&next) == HF_T_LINK && p[1]) {
            GString *s = g_string_new(NULL);
            ok = hf_tree_readlink(t, &next, s) == 0 && resolve_at(t, &cur, s->str, &next, depth + 1);
            g_string_free(s, TRUE);
        }
        cur = next;
    }
    g_strfreev(parts);
    *out = cur;
    return ok;
}

static bool resolve(hf_tree *t, const hf_node *dir, const char *target)
{
    hf_node out;
    return resolve_at(t, dir, target, &out, 0);
}

static void visit_link(walker *w, const hf_node *dir, const hf_node *n)
{
    w->st->links++;
    GString *s = g_string_new(NULL);
    int rc = hf_tree_readlink(w->t, n, s);
    if (rc != 0) {
        violation(w, "%s: readlink fails (%d) on a listed link", kind_name(n), rc);
    } else {
        digest(w, s->str, s->len + 1);
        if (s->len == 0 || strlen(s->str) != s->len)
            violation(w, "%s: empty target or NUL in it", kind_name(n));
        if (hf_tree_size(w->t, n) != s->len)
            violation(w, "%s: size %" G_GUINT64_FORMAT " but target has %zu bytes",
                      kind_name(n), hf_tree_size(w->t, n), (size_t)s->len);
        /* entries of link directories (refs/) may point at objects absent
         * from the dump; the rest must resolve. */
        if (hf_kind_of(n)->b != HF_F_SLOT && !resolve(w->t, dir, s->str))
            violation(w, "%s -> %s leads nowhere", kind_name(n), s->str);
    }
    g_string_free(s, TRUE);
}

/* Lookups that must not find anything, or only something valid. */
static void probe_lookups(walker *w, const hf_node *dir, const dent *some)
{
    static const char *const bogus[] = {
        "", "heapfs-no-such-entry", "0x", "0x0", "0xffffffffffffffff", "-1", "00",
        "18446744073709551615", "99999999999999999999", "%", "%2", "%2F", "a@", "@0x",
        "@0xffffffffffff", "\xff\xfe", "java.lang.Object@0x1", "1.1",
    };
    hf_node out;
    for (size_t i = 0; i < G_N_ELEMENTS(bogus); i++)
        if (hf_tree_lookup(w->t, dir, bogus[i], &out) == 0 && !hf_tree_valid(w->t, &out))
            violation(w, "lookup of '%s' gives a node that is not valid", bogus[i]);
    char longname[600];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    if (hf_tree_lookup(w->t, dir, longname, &out) == 0)
        violation(w, "lookup of a 599-byte name succeeds");
    if (some) {
        char name[HF_NAME_MAX + 8];
        snprintf(name, sizeof name, "%sx", some->name);
        if (hf_tree_lookup(w->t, dir, name, &out) == 0 && !hf_tree_valid(w->t, &out))
            violation(w, "lookup of '%s' gives a node that is not valid", name);
        size_t len = strlen(some->name);
        if (len > 1) {
            snprintf(name, sizeof name, "%.*s", (int)(len - 1), some->name);
            if (hf_tree_lookup(w->t, dir, name, &out) == 0 && !hf_tree_valid(w->t, &out))
                violation(w, "lookup of '%s' gives a node that is not valid", name);
        }
    }
}

/* A part is valid exactly when the decoder says the node has it. */
static void valid_iff(walker *w, const hf_node *n, bool there, const char *what)
{
    unsigned i = hf_kind_of(n)->a == HF_F_ROW ? (unsigned)n->a : n->b;
    bool valid = hf_tree_valid(w->t, n);
    if (valid && !there)
        violation(w, "%s %u is valid", what, i);
    if (!valid && there)
        violation(w, "%s %u is not valid", what, i);
}

/* Each file of table p is a valid node of kind k exactly when node
 * `index` has it (has() NULL or true); the one past the table is not. */
static void probe_files(walker *w, const hf_parts *p, hf_node_kind k, uint32_t s,
                        uint64_t index)
{
    bool row_in_a = hf_kind(k)->a == HF_F_ROW; /* a snapshot's files */
    hf_node n = row_in_a ? hf_node_make(k, s, 0, 0) : hf_node_make(k, s, index, 0);
    hf_snapref r = hf_tree_source(w->t, &n);
    uint32_t nf = hf_parts_n_files(p);
    for (uint32_t f = 0; f <= nf; f++) {
        bool there = f < nf && hf_parts_file_exists(p, f, r, index);
        n = row_in_a ? hf_node_make(k, s, f, 0) : hf_node_make(k, s, index, f);
        valid_iff(w, &n, there,
                  f == nf ? "a file past the table"
                  : there ? "a file its has() declares present"
                          : "a file whose has() is false");
    }
}

/* The links of dir's parts table p and its link directories with their
 * entries, for the kinds dir lists. */
static void probe_links(walker *w, const hf_node *dir, const hf_parts *p, hf_snapref r)
{
    const hf_kind_row *row = hf_kind(dir->kind);
    hf_target to;
    hf_node n;
    for (uint32_t l = 0, nl = hf_parts_n_links(p); row->link && l <= nl; l++) {
        bool there = l < nl && p->links[l].target(r.d, r.s, dir->a, &to);
        n = hf_node_make(row->link, dir->snap, dir->a, l);
        valid_iff(w, &n, there, hf_kind(row->link)->what);
    }
    if (!row->linkdir)
        return;
    hf_node_kind entry = hf_kind(row->linkdir)->child;
    for (uint32_t k = 0; k < HF_DIRS_MAX; k++)
        for (uint32_t b = 0; b < 4; b++) {
            n = hf_node_make((hf_node_kind)(entry + k), dir->snap, dir->a, HF_B_MAX - 1 - b);
            (void)hf_tree_valid(w->t, &n);
        }
    for (uint32_t k = 0, nd = hf_parts_n_dirs(p); k <= nd && k < HF_DIRS_MAX; k++) {
        bool there = hf_parts_dir_exists(p, k, r, dir->a);
        n = hf_node_make(row->linkdir, dir->snap, dir->a, k);
        valid_iff(w, &n, there, hf_kind(row->linkdir)->what);
        if (!there) {
            n = hf_node_make((hf_node_kind)(entry + k), dir->snap, dir->a, 0);
            valid_iff(w, &n, false, "entry 0 of a link directory that is not there:");
        }
    }
}

/* Node numbers just past what exists, or of parts a node lacks, must not
 * be valid (nor crash); the parts the decoder says a node has must be. */
static void probe_nodes(walker *w, const hf_node *dir, uint64_t listed, bool complete)
{
    const hf_kind_row *row = hf_kind(dir->kind);
    hf_snapref r = hf_tree_source(w->t, dir);
    if (!r.d)
        return;
    const hf_parts *p = hf_kind_parts(row, r.d);
    if (row->file)
        probe_files(w, p, row->file, dir->snap, dir->a);
    probe_links(w, dir, p, r);
    /* past the last entry of a big directory of things by index */
    if (complete && row->big && hf_kind(row->child)->a == HF_F_INDEX &&
        hf_kind(row->child)->b == HF_F_ZERO) {
        hf_node n = hf_node_make(row->child, dir->snap, listed, 0);
        if (hf_tree_valid(w->t, &n))
            violation(w, "entry %" G_GUINT64_FORMAT " past the last one is valid", listed);
        n = hf_node_make(row->child, dir->snap, HF_A_MAX - 1, 0);
        (void)hf_tree_valid(w->t, &n);
    }
}

static void visit(walker *w, const hf_node *dir_of_n, const hf_node *n);

/* The name another node of the same kind in the same big directory has
 * (objects, classes, threads), to tell a repeated name from a wrong
 * lookup: readdir resumed just before its index (entry i is at offset
 * i + 3) lists it. */
static bool same_kind_name(hf_tree *t, const hf_node *dir, const hf_node *found,
                           const hf_node *listed, char name[HF_NAME_MAX])
{
    const hf_kind_row *row = hf_kind_of(found);
    if (found->kind != listed->kind || found->snap != listed->snap ||
        !hf_kind(dir->kind)->big || row->a != HF_F_INDEX || row->b != HF_F_ZERO)
        return false;
    lister l = {g_array_new(FALSE, FALSE, sizeof(dent)), 1, false, false};
    hf_tree_readdir(t, dir, found->a + 2, collect, &l);
    const dent *e = (const dent *)(void *)l.ents->data;
    bool ok = l.ents->len == 1 && hf_node_equal(&e->n, found);
    if (ok)
        g_strlcpy(name, e->name, HF_NAME_MAX);
    g_array_free(l.ents, TRUE);
    return ok;
}

static void visit_dir(walker *w, const hf_node *dir)
{
    hf_tree *t = w->t;
    w->st->dirs++;
    lister l = {g_array_new(FALSE, FALSE, sizeof(dent)),
                w->o->max_children ? w->o->max_children + 2 : 0, false, false};
    int rc = hf_tree_readdir(t, dir, 0, collect, &l);
    if (rc != 0)
        violation(w, "%s: readdir fails (%d)", kind_name(dir), rc);
    if (l.stopped)
        w->st->capped = true;
    if (l.overlong)
        violation(w, "%s: an entry name is %d bytes or longer", kind_name(dir), HF_NAME_MAX);
    dent *e = (dent *)(void *)l.ents->data;
    guint ne = l.ents->len;
    if (ne < 2 || strcmp(e[0].name, ".") != 0 || strcmp(e[1].name, "..") != 0)
        violation(w, "%s: listing does not start with . and ..", kind_name(dir));
    /* A decoder may list a repeated id twice and say so in errors: only
     * one of them is reachable by name.  Such names are noted, and lookup
     * is not asked which one it gives. */
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *twice = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 2; i < ne; i++)
        if (!g_hash_table_add(seen, e[i].name)) {
            note(w, "%s: entry '%s' listed twice", kind_name(dir), e[i].name);
            g_hash_table_add(twice, e[i].name);
        }
    for (guint i = 0; i < ne; i++) {
        hf_node found;
        const char *name = e[i].name;
        digest(w, name, strlen(name) + 1);
        w->st->entries++;
        if (i >= 2) {
            if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                violation(w, "%s: bad entry name '%s'", kind_name(dir), name);
            if (g_hash_table_contains(twice, name))
                continue;
        }
        if (hf_tree_lookup(t, dir, name, &found) != 0) {
            violation(w, "%s: listed entry '%s' is not found by lookup", kind_name(dir), name);
            continue;
        }
        if (!hf_node_equal(&found, &e[i].n)) {
            char other[HF_NAME_MAX];
            if (same_kind_name(t, dir, &found, &e[i].n, other) && strcmp(other, name) == 0)
                /* a twin beyond the entries visited */
                note(w, "%s: entry '%s' listed twice", kind_name(dir), name);
            else
                violation(w, "%s: lookup of listed '%s' gives another node", kind_name(dir),
                          name);
        }
        if (i > 0 && e[i].next <= e[i - 1].next)
            violation(w, "%s: readdir offsets do not grow at '%s'", kind_name(dir), name);
    }
    /* Resuming at an entry's offset gives the next entry (what a kernel
     * does when a listing spans several requests). */
    for (guint i = 1; i < ne && i < 4; i++) {
        lister r = {g_array_new(FALSE, FALSE, sizeof(dent)), 1, false, false};
        hf_tree_readdir(t, dir, e[i - 1].next, collect, &r);
        if (r.ents->len != 1 || strcmp(((dent *)(void *)r.ents->data)[0].name, e[i].name) != 0)
            violation(w, "%s: readdir resumed after '%s' does not give '%s'", kind_name(dir),
                      e[i - 1].name, e[i].name);
        g_array_free(r.ents, TRUE);
    }
    probe_lookups(w, dir, ne > 2 ? &e[2] : NULL);
    probe_nodes(w, dir, ne > 2 ? ne - 2 : 0, !l.stopped);
    g_hash_table_destroy(seen);
    g_hash_table_destroy(twice);

    gsize plen = w->path->len;
    for (guint i = 2; i < ne; i++) {
        if (w->o->max_nodes && w->nodes >= w->o->max_nodes) {
            w->st->capped = true;
            break;
        }
        g_string_append_c(w->path, '/');
        g_string_append(w->path, e[i].name);
        visit(w, dir, &e[i].n);
        g_string_truncate(w->path, plen);
    }
    g_array_free(l.ents, TRUE);
}

static void visit(walker *w, const hf_node *dir_of_n, const hf_node *n)
{
    w->nodes++;
    if (!hf_tree_valid(w->t, n))
        violation(w, "%s: listed node is not valid", kind_name(n));
    hf_node back;
    uint64_t ino = hf_ino_encode(n);
    if (!hf_ino_decode(ino, &back) || !hf_node_equal(&back, n))
        violation(w, "%s: inode number does not decode back", kind_name(n));
    switch (hf_tree_type(n)) {
    case HF_T_DIR:
        visit_dir(w, n);
        break;
    case HF_T_FILE:
        visit_file(w, n);
        break;
    case HF_T_LINK:
        visit_link(w, dir_of_n, n);
        break;
    }
}

uint64_t hf_walk(hf_dump *d, const hf_walk_opts *o, hf_walk_stats *st)
{
    hf_mount *m = hf_mount_new(&d, 1, false);
    uint64_t v = hf_walk_mount(m, o, st);
    hf_mount_free(m);
    return v;
}

uint64_t hf_walk_mount(hf_mount *m, const hf_walk_opts *o, hf_walk_stats *st)
{
    memset(st, 0, sizeof *st);
    st->digest = 0xcbf29ce484222325ull;
    hf_cache *cache = hf_cache_new(o->cache_bytes);
    walker w = {hf_tree_new(m, cache), o, st, g_string_new(NULL), 0, g_malloc(READ_CHUNK)};
    hf_node root = hf_node_make(HF_N_ROOT, 0, 0, 0);
    visit(&w, &root, &root);
    /* .stats: not listed, always readable. */
    hf_node stats;
    if (hf_tree_lookup(w.t, &root, ".stats", &stats) != 0 ||
        hf_tree_read(w.t, &stats, w.buf, READ_CHUNK, 0) == 0)
        violation(&w, ".stats cannot be read");
    /* the root's files are one kind, b says which: none past their table */
    hf_node past = hf_node_make(HF_N_ROOT_FILE, 0, 0, HF_RF_N), back;
    if (hf_tree_valid(w.t, &past) || hf_ino_decode(hf_ino_encode(&past), &back))
        violation(&w, "a root file past the table is valid");
    hf_tree_free(w.t);
    hf_cache_free(cache);
    g_string_free(w.path, TRUE);
    g_free(w.buf);
    return st->violations;
}
