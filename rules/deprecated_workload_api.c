/* deprecated_workload_api.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_deprecated_workload_api(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
