/*
 * ptscope-subject - the process whose forks `ptscope bench fork --like` and
 * `ptscope bench --calibrate` time (inputs/subject.c).  ptscope execs it
 * with a pipe from ptscope on fd 3 and one to it on fd 4, sends it a layout
 * to map and asks it for forks.  It is linked statically against the C
 * library alone, so a fork of it copies the layout and a handful of VMAs of
 * its own (text, data, heap, stack, vdso), not ptscope's libraries.
 * Installed in PREFIX/libexec/ptscope: it is not for running by hand.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "inputs/internal.h"

static int is_pipe(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

int main(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "--serve") || !is_pipe(3) || !is_pipe(4)) {
		fputs("ptscope-subject: run by `ptscope bench`, not by hand (see ptscope-bench(1))\n", stderr);
		return 2;
	}
	return subject_main(3, 4);
}
