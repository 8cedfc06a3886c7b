/* obsolete_cuda_hostpath.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_obsolete_cuda_hostpath(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
