/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_file.h - loading a YAML config file on top of the defaults.
 */
#ifndef GPUMEND_CONFIG_FILE_H
#define GPUMEND_CONFIG_FILE_H

#include <stddef.h>

#include "rules.h"

/*
 * Returns a new configuration: the built-in defaults with the settings of
 * the YAML file at `path` applied (just the defaults when `path` is NULL).
 * On failure returns NULL and writes into `errbuf` a message that names the
 * place: "FILE:LINE:COL: unknown key 'foo'".
 */
struct config *config_file_load(const char *path, char *errbuf, size_t errlen);

/* The same for config text already in memory; `name` is used in messages. */
struct config *config_text_load(const char *name, const char *text,
				size_t len, char *errbuf, size_t errlen);

/*
 * The same for the front ends that answer admission reviews (the webhook,
 * `gpumend review`): they serve the device-plugin target only, since a
 * mutating webhook cannot create the ResourceClaimTemplates that pods
 * migrated to DRA would name. A config with `target: dra` is refused, the
 * message naming the place of its `target` key.
 */
struct config *config_file_load_admission(const char *path, char *errbuf,
					  size_t errlen);
struct config *config_text_load_admission(const char *name, const char *text,
					  size_t len, char *errbuf,
					  size_t errlen);

#endif
