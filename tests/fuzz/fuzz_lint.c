/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_lint.c - libFuzzer target: bytes in as a YAML or JSON file, the
 * pipeline of `gpumend lint` out: every finding located in the source and
 * written in the four report formats.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fuzz_config configs[] = {
		FUZZ_CONFIG_DEFAULT, FUZZ_CONFIG_DENY
	};

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		fuzz_check_lint(fuzz_config_get(configs[i]),
				(const char *)data, size);
	return 0;
}
