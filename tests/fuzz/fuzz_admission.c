/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_admission.c - libFuzzer target: bytes in as the body of POST
 * /mutate, admission_review() out; the answer must be a well-formed
 * AdmissionReview (or a 400) whose patch applies to the request's object
 * and leaves nothing for a second review to patch. Every input is reviewed
 * under the default, an all-mutate and a deny configuration.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fuzz_config configs[] = {
		FUZZ_CONFIG_DEFAULT, FUZZ_CONFIG_MUTATE, FUZZ_CONFIG_DENY
	};

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		fuzz_check_admission(fuzz_config_get(configs[i]),
				     (const char *)data, size);
	return 0;
}
