/*
 * content.h - the generated MOUNT/README: what each part of this mount
 * holds, from the decoders' tables (each decoder renders its own info;
 * mount.h renders info and errors of the mount).
 *
 * Thread-safe (reads the dumps only).  Appends to a caller-owned GString.
 */
#ifndef HF_CONTENT_H
#define HF_CONTENT_H

#include "fs/mount.h"

void hf_content_readme(hf_mount *m, GString *out);

#endif
