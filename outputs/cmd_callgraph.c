/* outputs/cmd_callgraph.c - `ptscope callgraph` (placeholder until the analyzer lands). */
#include <stdio.h>
#include "commands.h"
#include "outputs/outputs.h"

int cmd_callgraph(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "ptscope: callgraph: not built yet\n");
	return 2;
}
