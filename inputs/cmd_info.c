/* inputs/cmd_info.c - `ptscope info` (being written). */
#include <stdio.h>

#include "commands.h"

int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ptscope: info: not built yet\n");
	return 2;
}
