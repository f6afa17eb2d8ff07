/*
 * ptscope-capture - `ptscope capture` as a small binary for production hosts:
 * it links only inputs/ (the capture writer) and needs only the C library and
 * libarchive at run time, not Graphviz, libxml2, json-c or libclang.
 * Same options, output and exit statuses as `ptscope capture`
 * (man/ptscope-capture.1).
 */
#include <stdio.h>
#include <string.h>

#include "builtin/commands.h"
#include "version.h"

int main(int argc, char **argv)
{
	opterr = 0;
	command_open_stdout();
	command_set_standalone("ptscope-capture");
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("ptscope-capture %s\n", PTSCOPE_VERSION);
		return command_check_stdout(0);
	}
	return command_check_stdout(cmd_capture(argc, argv));
}
