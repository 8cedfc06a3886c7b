/*
 * util.c - helpers for the engine's unit tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

json_t *test_migrate(const char *json_text, const struct config *cfg,
		     const struct rules_options *opts,
		     struct rules_result *res, int *failures)
{
	static const struct rules_options offline = { .offline = 1 };
	struct config *own = NULL;
	struct rules_error err = { { 0 }, { 0 } };
	struct rules_result again;
	json_error_t jerr;
	json_t *obj, *replay, *second;

	if (!cfg)
		cfg = own = config_new_default();
	if (!opts)
		opts = &offline;
	obj = json_loads(json_text, 0, &jerr);
	if (!obj) {
		fprintf(stderr, "  test input does not parse: %s\n", jerr.text);
		(*failures)++;
		config_free(own);
		return NULL;
	}
	rules_result_init(res);
	if (rules_apply(cfg, opts, obj, res, &err) != 0) {
		fprintf(stderr, "  rules_apply failed at '%s': %s\n",
			err.pointer, err.message);
		(*failures)++;
		json_decref(obj);
		config_free(own);
		return NULL;
	}
	/* the patch replayed on the input gives the same object */
	replay = json_loads(json_text, 0, NULL);
	for (size_t i = 0; replay && i < res->n_ops; i++) {
		if (patch_apply_op(replay, &res->ops[i]) != 0) {
			fprintf(stderr, "  op %zu (%s) does not apply\n", i,
				res->ops[i].path);
			(*failures)++;
			break;
		}
	}
	if (!replay || !json_equal(replay, obj)) {
		fprintf(stderr, "  replayed patch differs from the result\n");
		(*failures)++;
	}
	json_decref(replay);
	/* idempotence */
	second = json_deep_copy(obj);
	rules_result_init(&again);
	if (rules_apply(cfg, opts, second, &again, &err) != 0 ||
	    again.n_ops != 0) {
		char *dump = json_dumps(second, JSON_COMPACT);

		fprintf(stderr, "  second run is not a no-op (%zu ops): %s\n",
			again.n_ops, dump ? dump : "");
		free(dump);
		(*failures)++;
	}
	rules_result_clear(&again);
	json_decref(second);
	config_free(own);
	return obj;
}

int test_count_findings(const struct rules_result *res, enum rule_id rule,
			const char *pointer)
{
	int n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].rule == rule &&
		    (!pointer || strcmp(res->findings[i].pointer, pointer) == 0))
			n++;
	return n;
}

const char *test_string_at(json_t *root, const char *pointer)
{
	return json_string_value(json_pointer_get(root, pointer));
}
