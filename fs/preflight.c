/* preflight.c - see preflight.h. */
#include "fs/preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <grp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

/* Whether path (a directory, *st) is the root of a FUSE mount. */
static bool fuse_mount_root(const char *path, const struct statfs *fs, const struct stat *st)
{
    struct stat up;
    char *parent = g_build_filename(path, "..", NULL);
    bool root = fs->f_type == FUSE_SUPER_MAGIC && stat(parent, &up) == 0 &&
                up.st_dev != st->st_dev;
    g_free(parent);
    return root;
}

char *hf_preflight_mountpoint(const char *path)
{
    struct stat st;
    struct statfs fs;
    /* statfs too: the kernel may answer stat from its cache for a FUSE
     * mount whose daemon is gone, never statfs */
    if (stat(path, &st) != 0 || statfs(path, &fs) != 0) {
        int e = errno;
        if (e == ENOTCONN)
            return g_strdup_printf("mount point %s: %s (a heapfs that stopped is still mounted "
                                   "there: fusermount3 -u %s)",
                                   path, g_strerror(e), path);
        return g_strdup_printf("mount point %s: %s%s", path, g_strerror(e),
                               e == ENOENT ? " (make the directory first)" : "");
    }
    if (!S_ISDIR(st.st_mode))
        return g_strdup_printf("mount point %s: %s", path, g_strerror(ENOTDIR));
    if (fuse_mount_root(path, &fs, &st))
        return g_strdup_printf("mount point %s: already mounted (unmount it first: "
                               "fusermount3 -u %s)",
                               path, path);
    if (getuid() != 0 && access(path, W_OK) != 0)
        return g_strdup_printf("mount point %s: not writable by this user (fusermount3 mounts "
                               "only on a directory its user may write)",
                               path);
    return NULL;
}

char *hf_preflight_fuse_device(const char *dev)
{
    int fd = open(dev, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return NULL;
    }
    int e = errno;
    if (e == ENOENT || e == ENODEV || e == ENXIO)
        return g_strdup_printf("%s: %s (load the fuse kernel module: modprobe fuse; in a "
                               "container, pass the device in: --device %s)",
                               dev, g_strerror(e), dev);
    if (e != EACCES && e != EPERM)
        return g_strdup_printf("%s: %s", dev, g_strerror(e));
    struct stat st;
    const struct group *gr = stat(dev, &st) == 0 && st.st_gid != 0 && (st.st_mode & 060) == 060
                                 ? getgrgid(st.st_gid)
                                 : NULL;
    if (gr)
        return g_strdup_printf("%s: %s (mounting needs it: add this user to group %s, or "
                               "run heapfs as root)",
                               dev, g_strerror(e), gr->gr_name);
    return g_strdup_printf("%s: %s (mounting needs it: run heapfs as root, or let users "
                           "open it, as most systems do: mode 0666, or group fuse)",
                           dev, g_strerror(e));
}

char *hf_preflight_file(const char *what, const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (fd >= 0)
        close(fd);
    return e ? g_strdup_printf("%s %s: %s", what, path, g_strerror(e)) : NULL;
}

char *hf_preflight_restyle(const char *line)
{
    static const char unknown[] = "unknown option(s): `";
    char *s = g_strchomp(g_strdup(line));
    const char *p = g_str_has_prefix(s, "fuse: ") ? s + strlen("fuse: ") : s;
    char *out;
    if (g_str_has_prefix(p, unknown) && g_str_has_suffix(p, "'"))
        out = g_strdup_printf("%.*s: not an option of heapfs or libfuse (see heapfs --help)",
                              (int)(strlen(p) - strlen(unknown) - 1), p + strlen(unknown));
    else
        out = g_strdelimit(g_strdup(p), "`", '\'');
    g_free(s);
    return out;
}
