/*
 * preflight.h - what a mount needs, checked before anything is indexed or
 * handed to libfuse, so that a problem gives one line in heapfs's style,
 * "heapfs: WHAT: why (what to do)", instead of libfuse's ("fuse: bad mount
 * point `X'") or fusermount3's, and never both.
 *
 * Each check returns NULL when all is well, else the message without the
 * "heapfs: " and without a newline (g_free it).  hf_preflight_restyle turns
 * one of libfuse's own lines into the same style, for what only libfuse
 * can tell (an option it does not know).
 *
 * Pure functions of the file system (stat, access, open); thread-safe.
 * No FUSE header: fs/main.c calls them.
 */
#ifndef HF_PREFLIGHT_H
#define HF_PREFLIGHT_H

/* The mount point: an existing directory, not a FUSE mount already (a
 * stopped daemon's mount gives ENOTCONN: unmount it), writable by a user
 * who is not root (fusermount3 mounts only there). */
char *hf_preflight_mountpoint(const char *path);

/* The FUSE device, opened read-write as libfuse will: missing (the module,
 * a container without the device) or not ours (its group, or root). */
char *hf_preflight_fuse_device(const char *dev);

/* A file the command line names (what: "names file"): readable. */
char *hf_preflight_file(const char *what, const char *path);

/* One line libfuse logged (with or without its newline): "fuse: " goes,
 * `quotes' become 'quotes', and its unknown options are named as such. */
char *hf_preflight_restyle(const char *line);

#endif
