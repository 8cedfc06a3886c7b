/* gpu_visibility.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_gpu_visibility(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
