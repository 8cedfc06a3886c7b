/* removed_gpu_feature_gate.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_removed_gpu_feature_gate(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
