/* fuse_ops.c - see fuse_ops.h. */
#include "fs/fuse_ops.h"

#include "fs/guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static hf_fs *fs_of(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

/* Decodes ino into a node that exists; false (and ESTALE replied by the
 * caller) for numbers that name nothing in this dump. */
static bool node_of(hf_fs *fs, fuse_ino_t ino, hf_node *n)
{
    return hf_ino_decode(ino, n) && hf_tree_valid(fs->tree, n);
}

/* Modes follow the dump file: whoever cannot read the dump cannot read
 * any view of it. */
static void fill_attr(hf_fs *fs, const hf_node *n, struct stat *st)
{
    memset(st, 0, sizeof *st);
    mode_t r = fs->dump_st.st_mode & 0444;
    st->st_ino = hf_ino_encode(n);
    st->st_uid = fs->dump_st.st_uid;
    st->st_gid = fs->dump_st.st_gid;
    st->st_atim = fs->dump_st.st_mtim;
    st->st_mtim = fs->dump_st.st_mtim;
    st->st_ctim = fs->dump_st.st_mtim;
    st->st_blksize = 4096;
    switch (hf_tree_type(n)) {
    case HF_T_DIR:
        st->st_mode = S_IFDIR | r | (r >> 2);
        st->st_nlink = 2;
        break;
    case HF_T_LINK:
        st->st_mode = S_IFLNK | 0777;
        st->st_nlink = 1;
        st->st_size = (off_t)hf_tree_size(fs->tree, n);
        break;
    case HF_T_FILE:
        st->st_mode = S_IFREG | r;
        st->st_nlink = 1;
        st->st_size = (off_t)hf_tree_size(fs->tree, n);
        break;
    }
    st->st_blocks = (st->st_size + 511) / 512;
}

static double attr_timeout(hf_fs *fs, const hf_node *n)
{
    return hf_tree_volatile(n) ? 0 : fs->timeout;
}

static int check_dump(fuse_req_t req, hf_fs *fs, bool check_change);

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    if (conn->capable & FUSE_CAP_EXPORT_SUPPORT)
        conn->want |= FUSE_CAP_EXPORT_SUPPORT;
    /* readdirplus would need every entry's size, i.e. rendering every view
     * of a directory that is only being listed. */
    conn->want &= ~(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    hf_fs *fs = fs_of(req);
    hf_node dir, child;
    if (!node_of(fs, parent, &dir)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    int rc = hf_tree_lookup(fs->tree, &dir, name, &child);
    /* A name looked up in the dump's bytes is not known to be absent once
     * those bytes are gone: EIO, as an open of it would give. */
    if (rc == -ENOENT && hf_tree_reads_dump(&dir) && check_dump(NULL, fs, true) == EIO)
        rc = -EIO;
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    if (rc == -ENOENT) {
        /* A negative entry with a timeout: the kernel remembers the miss. */
        e.entry_timeout = fs->timeout;
        fuse_reply_entry(req, &e);
        return;
    }
    if (rc != 0) {
        fuse_reply_err(req, -rc);
        return;
    }
    e.ino = hf_ino_encode(&child);
    e.generation = fs->generation;
    fill_attr(fs, &child, &e.attr);
    e.attr_timeout = attr_timeout(fs, &child);
    e.entry_timeout = fs->timeout;
    fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    hf_fs *fs = fs_of(req);
    hf_node n;
    if (!node_of(fs, ino, &n)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    struct stat st;
    fill_attr(fs, &n, &st);
    fuse_reply_attr(req, &st, attr_timeout(fs, &n));
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    hf_fs *fs = fs_of(req);
    hf_node n;
    if (!node_of(fs, ino, &n)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    GString *s = g_string_new(NULL);
    int rc = hf_tree_readlink(fs->tree, &n, s);
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_readlink(req, s->str);
    g_string_free(s, TRUE);
}

/*
 * Each open looks at the dump file once (one stat) for two things:
 *
 * Access: the kernel checks the modes heapfs gave at mount time
 * (default_permissions) and keeps them for the attribute timeout, so the
 * dump's own permissions are checked again here: a dump made unreadable to
 * someone after mounting (chmod 600) stops being readable through the mount.
 *
 * Change: the dump is no longer what was indexed when it was truncated under
 * the mapping (the guard tripped) or overwritten or replaced (size, mtime or
 * inode differ).  A deleted dump is fine: the mapping keeps its pages, and it
 * keeps the modes of the mount.
 */
static bool caller_may_read(fuse_req_t req, const struct stat *st)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    if (ctx->uid == 0)
        return true;
    if (ctx->uid == st->st_uid)
        return st->st_mode & S_IRUSR;
    bool in_group = ctx->gid == st->st_gid;
    gid_t groups[64];
    int n = in_group ? 0 : fuse_req_getgroups(req, 64, groups);
    for (int i = 0; i < n && i < 64 && !in_group; i++)
        in_group = groups[i] == st->st_gid;
    return st->st_mode & (in_group ? S_IRGRP : S_IROTH);
}

static bool changed_since_mount(const struct stat *then, const struct stat *st)
{
    return st->st_ino != then->st_ino || st->st_size != then->st_size ||
           st->st_mtim.tv_sec != then->st_mtim.tv_sec ||
           st->st_mtim.tv_nsec != then->st_mtim.tv_nsec;
}

/* 0, or the errno an open must fail with: every dump file is checked
 * (with no req, only for a change). */
static int check_dump(fuse_req_t req, hf_fs *fs, bool check_change)
{
    if (check_change && hf_guard_tripped())
        return EIO;
    for (uint32_t i = 0; i < fs->n_files; i++) {
        struct stat st;
        if (stat(fs->paths[i], &st) != 0)
            continue; /* deleted: served from the mapping */
        if (req && !caller_may_read(req, &st))
            return EACCES;
        if (check_change && changed_since_mount(&fs->file_st[i], &st))
            return EIO;
    }
    return 0;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    hf_node n;
    int rc;
    if (!node_of(fs_of(req), ino, &n))
        fuse_reply_err(req, ESTALE);
    else if ((rc = check_dump(req, fs_of(req), false)) != 0)
        fuse_reply_err(req, rc);
    else
        fuse_reply_open(req, fi);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    hf_fs *fs = fs_of(req);
    hf_node n;
    if (!node_of(fs, ino, &n)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (hf_tree_type(&n) == HF_T_DIR) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    int rc = check_dump(req, fs, hf_tree_reads_dump(&n));
    if (rc) {
        fuse_reply_err(req, rc);
        return;
    }
    if (hf_tree_volatile(&n))
        fi->direct_io = 1;
    else
        fi->keep_cache = 1; /* contents never change while mounted */
    fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    hf_fs *fs = fs_of(req);
    hf_node n;
    if (!node_of(fs, ino, &n)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    char *buf = g_malloc(size ? size : 1);
    size_t got = hf_tree_read(fs->tree, &n, buf, size, (uint64_t)off);
    /* Checked after the read: a fault during it trips the guard. */
    if (hf_guard_tripped() && hf_tree_reads_dump(&n))
        fuse_reply_err(req, EIO);
    else
        fuse_reply_buf(req, buf, got);
    g_free(buf);
}

typedef struct {
    fuse_req_t req;
    hf_fs *fs;
    char *buf;
    size_t size, used;
} dir_fill;

static bool emit_entry(void *ctx, const char *name, const hf_node *n, uint64_t next)
{
    dir_fill *f = ctx;
    struct stat st;
    memset(&st, 0, sizeof st);
    st.st_ino = hf_ino_encode(n);
    st.st_mode = hf_tree_type(n) == HF_T_DIR ? S_IFDIR : hf_tree_type(n) == HF_T_LINK ? S_IFLNK
                                                                                       : S_IFREG;
    size_t need = fuse_add_direntry(f->req, NULL, 0, name, NULL, 0);
    if (f->used + need > f->size)
        return false;
    fuse_add_direntry(f->req, f->buf + f->used, f->size - f->used, name, &st, (off_t)next);
    f->used += need;
    return true;
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    hf_fs *fs = fs_of(req);
    hf_node n;
    if (!node_of(fs, ino, &n)) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    dir_fill f = {req, fs, g_malloc(size), size, 0};
    int rc = hf_tree_readdir(fs->tree, &n, (uint64_t)off, emit_entry, &f);
    /* as op_read: names read from a dump that shrank are zeros (the guard) */
    if (!rc && hf_guard_tripped() && hf_tree_reads_dump(&n))
        rc = -EIO;
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_buf(req, f.buf, f.used);
    g_free(f.buf);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    hf_fs *fs = fs_of(req);
    struct statvfs sv;
    memset(&sv, 0, sizeof sv);
    sv.f_bsize = 4096;
    sv.f_frsize = 4096;
    sv.f_blocks = (fsblkcnt_t)((fs->dump_st.st_size + 4095) / 4096);
    sv.f_namemax = 255;
    sv.f_flag = ST_RDONLY;
    fuse_reply_statfs(req, &sv);
}

/* ---- everything that would change something ---- */

static void erofs(fuse_req_t req)
{
    fuse_reply_err(req, EROFS);
}
static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *a, int set,
                       struct fuse_file_info *fi)
{
    erofs(req);
}
static void op_mknod(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m, dev_t d)
{
    erofs(req);
}
static void op_mkdir(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m)
{
    erofs(req);
}
static void op_unlink(fuse_req_t req, fuse_ino_t p, const char *name)
{
    erofs(req);
}
static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t p, const char *name)
{
    erofs(req);
}
static void op_rename(fuse_req_t req, fuse_ino_t p, const char *name, fuse_ino_t np,
                      const char *nn, unsigned int flags)
{
    erofs(req);
}
static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np, const char *nn)
{
    erofs(req);
}
static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    erofs(req);
}
static void op_create(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m,
                      struct fuse_file_info *fi)
{
    erofs(req);
}
static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                        size_t size, int flags)
{
    erofs(req);
}
static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    erofs(req);
}
static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    erofs(req);
}

const struct fuse_lowlevel_ops hf_fuse_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .getattr = op_getattr,
    .readlink = op_readlink,
    .open = op_open,
    .opendir = op_opendir,
    .read = op_read,
    .readdir = op_readdir,
    .statfs = op_statfs,
    .setattr = op_setattr,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_unlink,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .write = op_write,
    .create = op_create,
    .setxattr = op_setxattr,
    .removexattr = op_removexattr,
    .fallocate = op_fallocate,
};
