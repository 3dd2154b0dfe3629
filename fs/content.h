/*
 * content.h - the files every mount has, whatever the format: the generated
 * README and the errors list.  (Each decoder renders its own info.)
 *
 * Thread-safe (reads the dump only).  Appends to a caller-owned GString.
 */
#ifndef HF_CONTENT_H
#define HF_CONTENT_H

#include "decoders/core/model.h"

void hf_content_readme(hf_dump *d, GString *out);
/* errors: one problem per line; item = problem index (render protocol). */
uint64_t hf_content_errors(hf_dump *d, uint64_t first, GString *out, size_t budget);

#endif
