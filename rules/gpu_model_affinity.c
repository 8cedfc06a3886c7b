/* gpu_model_affinity.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_gpu_model_affinity(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
