/* legacy_affinity_annotation.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_legacy_affinity_annotation(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
