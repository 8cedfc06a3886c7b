/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registration.h - the webhook's MutatingWebhookConfiguration, as
 * `gpumend webhook-config` prints it, and the service paths it names.
 *
 * With match conditions (Kubernetes 1.28 and later) the registration has
 * two entries, legacy.gpumend.io (failurePolicy Fail) and
 * advisory.gpumend.io (Ignore), whose service paths are
 * /mutate/<entry>/<hash>: the server answers its own failures as the
 * entry's policy says, and compares <hash> with that of its own config
 * (registration_hash()) to find a registration that no longer covers what
 * the config makes the rules act on. Without, one entry,
 * mutate.gpumend.io, Ignore, path /mutate/advisory, sent every object.
 */
#ifndef GPUMEND_REGISTRATION_H
#define GPUMEND_REGISTRATION_H

#include <jansson.h>

#include "rules.h"

/* Hex digits of a registration hash. */
#define REGISTRATION_HASH_LEN 16

struct registration_options {
	const char *service;        /* the Service's name */
	const char *namespace_name; /* its namespace, and the webhook's */
	int legacy_fail;            /* 1: the legacy entry fails closed */
	int conditions;             /* 1: the API server has matchConditions */
};

/*
 * Returns a new JSON object, the MutatingWebhookConfiguration for `cfg`,
 * or NULL when out of memory.
 */
json_t *registration_new(const struct config *cfg,
			 const struct registration_options *opts);

/*
 * Writes into `out` the hash of what the conditions of `cfg` cover: a
 * digest of the entries' rules and matchConditions, which are made of
 * exactly the config's fields they depend on (and of this version's rule
 * fragments). Returns 0, or -1 when out of memory.
 */
int registration_hash(const struct config *cfg,
		      char out[REGISTRATION_HASH_LEN + 1]);

/* What a POST path says of the entry it came through. */
enum registration_route {
	REGISTRATION_PLAIN,         /* "/mutate": webhook.failurePolicy */
	REGISTRATION_LEGACY,        /* "/mutate/legacy[/HASH]": deny */
	REGISTRATION_ADVISORY,      /* "/mutate/advisory[/HASH]": allow */
};

/*
 * Reads `url`: returns 0 and sets *route and `hash` (the HASH given, ""
 * when none) for a review path, or -1 for any other path.
 */
int registration_path_parse(const char *url, enum registration_route *route,
			    char hash[REGISTRATION_HASH_LEN + 1]);

#endif
