/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_migrate.c - libFuzzer target: bytes in as a YAML or JSON file, the
 * pipeline of `gpumend migrate` out; unless an error is reported, the
 * output must parse into what the rules made and migrate to itself.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fuzz_config configs[] = {
		FUZZ_CONFIG_DEFAULT, FUZZ_CONFIG_MUTATE, FUZZ_CONFIG_SHARED
	};

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		fuzz_check_migrate(fuzz_config_get(configs[i]),
				   (const char *)data, size);
	return 0;
}
