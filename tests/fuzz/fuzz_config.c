/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_config.c - libFuzzer target: bytes in as a config file,
 * config_text_load() out. A refused file must say where and why; a loaded
 * one must survive config_to_json() -> config_apply() and the YAML and JSON
 * that `gpumend config -c` prints must load back to the same settings. The
 * rules and the admission handler then run under it over built-in objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"
#include "registration.h"
#include "fuzz.h"
#include "source.h"

#define CONFIG_NAME "fuzz.yaml"

/* Prints `settings` as YAML (or JSON) and loads that back: same settings. */
static void config_reload_check(json_t *settings, int json)
{
	struct config *again;
	struct buf text;
	char err[512];
	json_t *back;

	buf_init(&text, 0);
	if (emit_document(&text, settings, json, 0) != 0)
		fuzz_fail("emit_document failed on the settings");
	again = config_text_load("printed", text.data ? text.data : "",
				 text.len, err, sizeof(err));
	if (!again)
		fuzz_fail("the printed %s configuration does not load: %s\n%s",
			  json ? "JSON" : "YAML", err, text.data);
	back = config_to_json(again);
	if (!back)
		fuzz_fail("out of memory");
	if (!json_equal(back, settings))
		fuzz_fail("the printed %s configuration loads to other settings:\n%s",
			  json ? "JSON" : "YAML", text.data);
	json_decref(back);
	config_free(again);
	buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	struct config *cfg, *applied;
	struct rules_error rerr;
	json_t *settings, *back;

	err[0] = '\0';
	cfg = config_text_load(CONFIG_NAME, (const char *)data, size, err,
			       sizeof(err));
	if (!cfg) {
		if (strncmp(err, CONFIG_NAME ":", strlen(CONFIG_NAME ":")))
			fuzz_fail("a refused config does not name its place: '%s'",
				  err);
		return 0;
	}
	if (!(settings = config_to_json(cfg)) ||
	    !(applied = config_new_default()))
		fuzz_fail("out of memory");
	if (config_apply(applied, settings, &rerr) != 0)
		fuzz_fail("config_apply of config_to_json fails at '%s': %s",
			  rerr.pointer, rerr.message);
	if (!(back = config_to_json(applied)))
		fuzz_fail("out of memory");
	if (!json_equal(back, settings))
		fuzz_fail("config_to_json -> config_apply does not round-trip");
	json_decref(back);
	config_free(applied);
	config_reload_check(settings, 0);
	config_reload_check(settings, 1);
	json_decref(settings);

	fuzz_check_rules(cfg);
	/* every config that loads has a registration, and each entry's
	 * config loads back (gpumend review --entry) */
	{
		char hash[REGISTRATION_HASH_LEN + 1];

		if (registration_hash(cfg, hash) != 0)
			fuzz_fail("no registration hash for a config that loads");
		for (int e = 0; e < RULES_ENTRY_COUNT; e++)
			/* every combination of RULES_REQUEST_* */
			for (int request = 0; request < 4; request++) {
				struct config *only = rules_entry_config_new(
					cfg, (enum rules_entry)e, request, &rerr);

				if (!only)
					fuzz_fail("the config of entry %s does not load: %s: %s",
						  rules_entry_name((enum rules_entry)e),
						  rerr.pointer, rerr.message);
				config_free(only);
			}
	}
	config_free(cfg);
	return 0;
}
