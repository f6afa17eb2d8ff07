/* inputs/cmd_capture.c - `ptscope capture` (being written). */
#include <stdio.h>

#include "commands.h"

int cmd_capture(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ptscope: capture: not built yet\n");
	return 2;
}
