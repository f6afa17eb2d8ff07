/* outputs/cmd_report.c - `ptscope report` (placeholder until the model lands). */
#include <stdio.h>
#include "commands.h"

int cmd_report(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "ptscope: report: not built yet\n");
	return 2;
}
