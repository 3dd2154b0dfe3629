/*
 * registry.h - the table of decoders itself, for tools that name a format
 * instead of detecting it (the fuzz targets, tests/fuzz/hf_walk).
 * Everything else opens files with hf_open or hf_open_files (model.h).
 */
#ifndef HF_REGISTRY_H
#define HF_REGISTRY_H

#include "decoders/core/model.h"

/* Every registered decoder, in detection order, then NULL.  Static. */
const hf_decoder *const *hf_decoders(void);

#endif
