/* gpu_sharing.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_gpu_sharing(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
