/* model/cmd_profiles.c - `ptscope profiles` (placeholder until the model lands). */
#include <stdio.h>
#include "commands.h"

int cmd_profiles(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "ptscope: profiles: not built yet\n");
	return 2;
}
