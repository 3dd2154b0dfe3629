/*
 * fusefh.c - the kernel's export handles of files on a FUSE mount, and
 * opening by a handle later, the way the kernel NFS server does.  A test
 * helper for t_nfs.sh (needs CAP_DAC_READ_SEARCH, i.e. root).
 *
 *   fusefh get PATH...      prints "TYPE HEX PATH" per path
 *                           (name_to_handle_at; for FUSE the handle is the
 *                           node id and the generation)
 *   fusefh cat MOUNT HEX TYPE
 *                           opens the handle with open_by_handle_at and
 *                           writes the file to stdout; a directory is
 *                           listed instead, one name per line (readdir
 *                           order, "." and ".." included); a symlink's
 *                           target is printed
 *
 * Exit status: 0 done, 1 the kernel refused (errno on stderr), 2 usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmd_get(int n, char **paths)
{
    for (int i = 0; i < n; i++) {
        struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ);
        h->handle_bytes = MAX_HANDLE_SZ;
        int mnt;
        if (name_to_handle_at(AT_FDCWD, paths[i], h, &mnt, 0) != 0) {
            fprintf(stderr, "fusefh: %s: %s\n", paths[i], strerror(errno));
            return 1;
        }
        printf("%d ", h->handle_type);
        for (unsigned j = 0; j < h->handle_bytes; j++)
            printf("%02x", h->f_handle[j]);
        printf(" %s\n", paths[i]);
        free(h);
    }
    return 0;
}

static int cmd_cat(const char *mount, const char *hex, int type)
{
    struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ);
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > MAX_HANDLE_SZ)
        return 2;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return 2;
        h->f_handle[i] = (unsigned char)v;
    }
    h->handle_bytes = (unsigned)(n / 2);
    h->handle_type = type;
    int mfd = open(mount, O_RDONLY | O_DIRECTORY);
    if (mfd < 0) {
        perror(mount);
        return 2;
    }
    int fd = open_by_handle_at(mfd, h, O_RDONLY);
    if (fd < 0 && errno == ELOOP) {
        /* a symlink: open the link itself and print its target */
        fd = open_by_handle_at(mfd, h, O_PATH | O_NOFOLLOW);
        char target[4096];
        ssize_t n = fd < 0 ? -1 : readlinkat(fd, "", target, sizeof target);
        if (n < 0) {
            fprintf(stderr, "fusefh: symlink: %s\n", strerror(errno));
            return 1;
        }
        printf("%.*s\n", (int)n, target);
        return 0;
    }
    if (fd < 0) {
        fprintf(stderr, "fusefh: open_by_handle_at: %s\n", strerror(errno));
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = fdopendir(fd);
        if (!d) {
            perror("fdopendir");
            return 1;
        }
        struct dirent *e;
        errno = 0;
        while ((e = readdir(d)))
            printf("%s\n", e->d_name);
        int err = errno;
        closedir(d);
        if (err) {
            fprintf(stderr, "fusefh: readdir: %s\n", strerror(err));
            return 1;
        }
        return 0;
    }
    char buf[65536];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)got, stdout);
    if (got < 0) {
        fprintf(stderr, "fusefh: read: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "get") == 0)
        return cmd_get(argc - 2, argv + 2);
    if (argc == 5 && strcmp(argv[1], "cat") == 0)
        return cmd_cat(argv[2], argv[3], atoi(argv[4]));
    fprintf(stderr, "usage: fusefh get PATH... | fusefh cat MOUNT HEX TYPE\n");
    return 2;
}
