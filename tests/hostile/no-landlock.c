/*
 * tests/hostile/no-landlock.c - an LD_PRELOAD library that makes ptscope
 * see a kernel without Landlock: syscall(2) answers ENOSYS for Landlock's
 * three calls and passes every other on (tests/cli/hostile-no-landlock.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...)
{
	static long (*real)(long, ...);
	va_list list;
	long argument[6];
	va_start(list, number);
	for (int i = 0; i < 6; i++)
		argument[i] = va_arg(list, long);
	va_end(list);
	if (number == SYS_landlock_create_ruleset || number == SYS_landlock_add_rule ||
	    number == SYS_landlock_restrict_self) {
		errno = ENOSYS;
		return -1;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	return real(number, argument[0], argument[1], argument[2], argument[3], argument[4], argument[5]);
}
