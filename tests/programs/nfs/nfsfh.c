/*
 * nfsfh.c - hold NFS file handles across restarts, as a real NFS client
 * does, and use them later from a new process.  A test helper for
 * tests/mount/t_nfs.sh; libnfs's own tools only work by path.
 *
 *   nfsfh get      URL PATH   prints the handle of PATH (relative to the
 *                             export) in hex.  NFSv4: any file, directory or
 *                             symlink (PUTROOTFH, LOOKUP..., GETFH); NFSv3:
 *                             regular files (libnfs's lookup)
 *   nfsfh cat      URL HEX    writes the file named by the handle to stdout
 *                             (READ; NFSv4 with the anonymous stateid)
 *   nfsfh ls       URL HEX    lists the directory named by the handle, one
 *                             name per line, "." and ".." left out (READDIR)
 *   nfsfh readlink URL HEX    prints the target of the symlink (READLINK)
 *
 * URL names the export and the protocol, as libnfs takes it:
 *   nfs://127.0.0.1/export?version=4&nfsport=N
 *   nfs://127.0.0.1/path/of/export?version=3&nfsport=N&mountport=M
 * cat, ls and readlink use nothing but the handle bytes: each run is a new
 * process with a new connection, so a handle printed by `get` before a
 * server or filesystem restart is used exactly as a client that held it.
 *
 * Exit status: 0 done, 1 the server refused (its NFS status on stderr:
 * 70 is STALE), 2 usage, connection or protocol trouble.
 *
 * Build: cc -o nfsfh nfsfh.c $(pkg-config --cflags --libs libnfs)
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw-nfs4.h>

/* libnfs 4.0 declares nfs_get_fh() but keeps the struct in its private
 * header; this is its layout there (include/libnfs-private.h). */
struct nfs_fh {
    int len;
    char *val;
};

#define CHUNK 65536u
#define FH_MAX 128

typedef struct {
    struct nfs_context *nfs;
    struct rpc_context *rpc;
    int version;
    char *export; /* the URL's path */
} conn;

static int connect_export(const char *url_s, conn *c)
{
    memset(c, 0, sizeof *c);
    c->nfs = nfs_init_context();
    if (!c->nfs)
        return -1;
    struct nfs_url *url = nfs_parse_url_dir(c->nfs, url_s);
    if (!url) {
        fprintf(stderr, "nfsfh: bad url %s: %s\n", url_s, nfs_get_error(c->nfs));
        return -1;
    }
    if (nfs_mount(c->nfs, url->server, url->path) != 0) {
        fprintf(stderr, "nfsfh: mount %s: %s\n", url_s, nfs_get_error(c->nfs));
        nfs_destroy_url(url);
        return -1;
    }
    c->export = strdup(url->path);
    nfs_destroy_url(url);
    c->rpc = nfs_get_rpc_context(c->nfs);
    c->version = strstr(url_s, "version=4") ? 4 : 3;
    return 0;
}

static void disconnect(conn *c)
{
    if (c->nfs)
        nfs_destroy_context(c->nfs);
    free(c->export);
}

/* ---- one call at a time, waited for ---- */

typedef struct {
    int done;
    int status; /* NFS status of the reply, or -1 when the RPC failed */
    /* what the callback keeps of the reply */
    char *data;
    size_t len;
    int eof;
    uint64_t cookie;
    char verf[8];
    int nentries;
} reply;

static int wait_reply(conn *c, reply *r)
{
    while (!r->done) {
        struct pollfd p = {.fd = rpc_get_fd(c->rpc), .events = rpc_which_events(c->rpc)};
        if (poll(&p, 1, 30000) <= 0)
            return -1;
        if (rpc_service(c->rpc, p.revents) < 0)
            return -1;
    }
    return r->status < 0 ? -1 : 0;
}

static void keep(reply *r, const char *data, size_t len)
{
    r->data = malloc(len + 1);
    memcpy(r->data, data, len);
    r->data[len] = 0;
    r->len = len;
}

static int refused(reply *r, const char *what)
{
    fprintf(stderr, "nfsfh: %s: NFS status %d%s\n", what, r->status,
            r->status == 70 ? " (STALE)" : r->status == 10001 ? " (BADHANDLE)" : "");
    return 1;
}

/* ---- NFSv3 replies ---- */

static void got_read3(struct rpc_context *rpc, int status, void *data, void *priv)
{
    reply *r = priv;
    r->done = 1;
    if (status != RPC_STATUS_SUCCESS) {
        r->status = -1;
        return;
    }
    READ3res *res = data;
    r->status = res->status;
    if (res->status == NFS3_OK) {
        keep(r, res->READ3res_u.resok.data.data_val, res->READ3res_u.resok.data.data_len);
        r->eof = res->READ3res_u.resok.eof;
    }
}

static void got_readdir3(struct rpc_context *rpc, int status, void *data, void *priv)
{
    reply *r = priv;
    r->done = 1;
    if (status != RPC_STATUS_SUCCESS) {
        r->status = -1;
        return;
    }
    READDIR3res *res = data;
    r->status = res->status;
    if (res->status != NFS3_OK)
        return;
    for (entry3 *e = res->READDIR3res_u.resok.reply.entries; e; e = e->nextentry) {
        if (strcmp(e->name, ".") && strcmp(e->name, ".."))
            printf("%s\n", e->name);
        r->cookie = e->cookie;
        r->nentries++;
    }
    memcpy(r->verf, res->READDIR3res_u.resok.cookieverf, 8);
    r->eof = res->READDIR3res_u.resok.reply.eof;
}

static void got_readlink3(struct rpc_context *rpc, int status, void *data, void *priv)
{
    reply *r = priv;
    r->done = 1;
    if (status != RPC_STATUS_SUCCESS) {
        r->status = -1;
        return;
    }
    READLINK3res *res = data;
    r->status = res->status;
    if (res->status == NFS3_OK)
        keep(r, res->READLINK3res_u.resok.data, strlen(res->READLINK3res_u.resok.data));
}

/* ---- NFSv4: COMPOUND { PUTFH or PUTROOTFH, ..., OP } ---- */

static void got_compound(struct rpc_context *rpc, int status, void *data, void *priv)
{
    reply *r = priv;
    r->done = 1;
    if (status != RPC_STATUS_SUCCESS) {
        r->status = -1;
        return;
    }
    COMPOUND4res *res = data;
    r->status = res->status;
    if (res->status != NFS4_OK || res->resarray.resarray_len == 0)
        return;
    nfs_resop4 *last = &res->resarray.resarray_val[res->resarray.resarray_len - 1];
    switch (last->resop) {
    case OP_GETFH: {
        nfs_fh4 *fh = &last->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object;
        keep(r, fh->nfs_fh4_val, fh->nfs_fh4_len);
        break;
    }
    case OP_READ: {
        READ4resok *ok = &last->nfs_resop4_u.opread.READ4res_u.resok4;
        keep(r, ok->data.data_val, ok->data.data_len);
        r->eof = ok->eof;
        break;
    }
    case OP_READLINK: {
        linktext4 *l = &last->nfs_resop4_u.opreadlink.READLINK4res_u.resok4.link;
        keep(r, l->utf8string_val, l->utf8string_len);
        break;
    }
    case OP_READDIR: {
        READDIR4resok *ok = &last->nfs_resop4_u.opreaddir.READDIR4res_u.resok4;
        for (entry4 *e = ok->reply.entries; e; e = e->nextentry) {
            printf("%.*s\n", (int)e->name.utf8string_len, e->name.utf8string_val);
            r->cookie = e->cookie;
            r->nentries++;
        }
        memcpy(r->verf, ok->cookieverf, 8);
        r->eof = ok->reply.eof;
        break;
    }
    default:
        break;
    }
}

static int compound(conn *c, nfs_argop4 *ops, unsigned n, reply *r)
{
    COMPOUND4args a;
    memset(&a, 0, sizeof a);
    a.argarray.argarray_len = n;
    a.argarray.argarray_val = ops;
    if (rpc_nfs4_compound_async(c->rpc, got_compound, &a, r) != 0)
        return -1;
    return wait_reply(c, r);
}

static void putfh(nfs_argop4 *op, char *fh, size_t len)
{
    op->argop = OP_PUTFH;
    op->nfs_argop4_u.opputfh.object.nfs_fh4_len = (u_int)len;
    op->nfs_argop4_u.opputfh.object.nfs_fh4_val = fh;
}

/* ---- commands ---- */

static int print_hex(const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", (unsigned char)b[i]);
    printf("\n");
    return 0;
}

static int cmd_get(conn *c, const char *path)
{
    if (c->version == 3) {
        struct nfsfh *fh;
        if (nfs_open(c->nfs, path, O_RDONLY, &fh) != 0) {
            fprintf(stderr, "nfsfh: open %s: %s\n", path, nfs_get_error(c->nfs));
            return 1;
        }
        struct nfs_fh *h = nfs_get_fh(fh);
        if (!h || h->len <= 0 || h->len > FH_MAX) {
            fprintf(stderr, "nfsfh: no sane handle for %s\n", path);
            return 2;
        }
        print_hex(h->val, (size_t)h->len);
        nfs_close(c->nfs, fh);
        return 0;
    }
    /* PUTROOTFH, LOOKUP of each component of export and path, GETFH */
    char *all = malloc(strlen(c->export) + strlen(path) + 2);
    sprintf(all, "%s/%s", c->export, path);
    nfs_argop4 ops[256];
    unsigned n = 0;
    memset(ops, 0, sizeof ops);
    ops[n++].argop = OP_PUTROOTFH;
    for (char *save, *p = strtok_r(all, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
        if (strcmp(p, ".") == 0)
            continue;
        if (n >= 254) {
            free(all);
            return 2;
        }
        ops[n].argop = OP_LOOKUP;
        ops[n].nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)strlen(p);
        ops[n].nfs_argop4_u.oplookup.objname.utf8string_val = p;
        n++;
    }
    ops[n++].argop = OP_GETFH;
    reply r = {0};
    int rc = compound(c, ops, n, &r);
    free(all);
    if (rc != 0)
        return 2;
    if (r.status != 0)
        return refused(&r, path);
    print_hex(r.data, r.len);
    free(r.data);
    return 0;
}

static int cmd_cat(conn *c, char *fh, size_t fhlen)
{
    for (uint64_t off = 0;;) {
        reply r = {0};
        int rc;
        if (c->version == 3) {
            READ3args a;
            memset(&a, 0, sizeof a);
            a.file.data.data_len = (u_int)fhlen;
            a.file.data.data_val = fh;
            a.offset = off;
            a.count = CHUNK;
            rc = rpc_nfs3_read_async(c->rpc, got_read3, &a, &r) ? -1 : wait_reply(c, &r);
        } else {
            nfs_argop4 ops[2];
            memset(ops, 0, sizeof ops);
            putfh(&ops[0], fh, fhlen);
            ops[1].argop = OP_READ; /* stateid all zeros: the anonymous one */
            ops[1].nfs_argop4_u.opread.offset = off;
            ops[1].nfs_argop4_u.opread.count = CHUNK;
            rc = compound(c, ops, 2, &r);
        }
        if (rc != 0)
            return 2;
        if (r.status != 0)
            return refused(&r, "read");
        fwrite(r.data, 1, r.len, stdout);
        free(r.data);
        off += r.len;
        if (r.eof || r.len == 0)
            return 0;
    }
}

static int cmd_ls(conn *c, char *fh, size_t fhlen)
{
    uint64_t cookie = 0;
    char verf[8] = {0};
    for (;;) {
        reply r = {0};
        int rc;
        if (c->version == 3) {
            READDIR3args a;
            memset(&a, 0, sizeof a);
            a.dir.data.data_len = (u_int)fhlen;
            a.dir.data.data_val = fh;
            a.cookie = cookie;
            memcpy(a.cookieverf, verf, 8);
            a.count = 32768;
            rc = rpc_nfs3_readdir_async(c->rpc, got_readdir3, &a, &r) ? -1 : wait_reply(c, &r);
        } else {
            nfs_argop4 ops[2];
            memset(ops, 0, sizeof ops);
            putfh(&ops[0], fh, fhlen);
            ops[1].argop = OP_READDIR; /* no attributes asked: names only */
            ops[1].nfs_argop4_u.opreaddir.cookie = cookie;
            memcpy(ops[1].nfs_argop4_u.opreaddir.cookieverf, verf, 8);
            ops[1].nfs_argop4_u.opreaddir.dircount = 32768;
            ops[1].nfs_argop4_u.opreaddir.maxcount = 65536;
            rc = compound(c, ops, 2, &r);
        }
        if (rc != 0)
            return 2;
        if (r.status != 0)
            return refused(&r, "readdir");
        if (r.eof)
            return 0;
        if (r.nentries == 0) {
            fprintf(stderr, "nfsfh: readdir made no progress\n");
            return 2;
        }
        cookie = r.cookie;
        memcpy(verf, r.verf, 8);
    }
}

static int cmd_readlink(conn *c, char *fh, size_t fhlen)
{
    reply r = {0};
    int rc;
    if (c->version == 3) {
        READLINK3args a;
        memset(&a, 0, sizeof a);
        a.symlink.data.data_len = (u_int)fhlen;
        a.symlink.data.data_val = fh;
        rc = rpc_nfs3_readlink_async(c->rpc, got_readlink3, &a, &r) ? -1 : wait_reply(c, &r);
    } else {
        nfs_argop4 ops[2];
        memset(ops, 0, sizeof ops);
        putfh(&ops[0], fh, fhlen);
        ops[1].argop = OP_READLINK;
        rc = compound(c, ops, 2, &r);
    }
    if (rc != 0)
        return 2;
    if (r.status != 0)
        return refused(&r, "readlink");
    printf("%s\n", r.data);
    free(r.data);
    return 0;
}

static int parse_hex(const char *hex, char *out, size_t *len)
{
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > FH_MAX || n == 0)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (char)v;
    }
    *len = n / 2;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: nfsfh get URL PATH | nfsfh cat|ls|readlink URL HEX\n");
        return 2;
    }
    const char *cmd = argv[1];
    char fh[FH_MAX];
    size_t fhlen = 0;
    if (strcmp(cmd, "get") != 0 && parse_hex(argv[3], fh, &fhlen) != 0) {
        fprintf(stderr, "nfsfh: bad handle '%s'\n", argv[3]);
        return 2;
    }
    conn c;
    if (connect_export(argv[2], &c) != 0) {
        disconnect(&c);
        return 2;
    }
    int rc;
    if (strcmp(cmd, "get") == 0)
        rc = cmd_get(&c, argv[3]);
    else if (strcmp(cmd, "cat") == 0)
        rc = cmd_cat(&c, fh, fhlen);
    else if (strcmp(cmd, "ls") == 0)
        rc = cmd_ls(&c, fh, fhlen);
    else if (strcmp(cmd, "readlink") == 0)
        rc = cmd_readlink(&c, fh, fhlen);
    else {
        fprintf(stderr, "nfsfh: unknown command %s\n", cmd);
        rc = 2;
    }
    disconnect(&c);
    fflush(stdout);
    return rc;
}
