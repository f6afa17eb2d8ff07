/*
 * tests/bench/shmtree.c - the workload of issue 10's scale benchmark: the
 * shape shared page tables were proposed for (one big shared segment mapped
 * by many processes, as a database's SGA is).
 *
 *   shmtree MIB CHILDREN
 *
 * The parent maps MIB MiB of shared anonymous memory, writes every page, then
 * forks CHILDREN children that each read every page (so each builds its own
 * PTE pages over the whole segment: MAP_SHARED areas are not copied at fork).
 * When all are ready it prints its pid on stdout and waits until a signal
 * (SIGTERM) ends it; the children die with it (PR_SET_PDEATHSIG), so nothing
 * outlives the benchmark.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static void read_every_page(const unsigned char *area, size_t bytes, size_t page_bytes)
{
	unsigned long sum = 0;
	for (size_t at = 0; at < bytes; at += page_bytes)
		sum += area[at];
	sink = sum;
}

static void child(const unsigned char *area, size_t bytes, size_t page_bytes, int ready_fd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	read_every_page(area, bytes, page_bytes);
	char byte = 1;
	if (write(ready_fd, &byte, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: shmtree MIB CHILDREN\n");
		return 2;
	}
	size_t bytes = strtoull(argv[1], NULL, 10) << 20;
	long children = strtol(argv[2], NULL, 10);
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	if (bytes == 0 || children < 0 || children > 100000) {
		fprintf(stderr, "shmtree: bad size or count\n");
		return 2;
	}
	unsigned char *area = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("shmtree: mmap");
		return 1;
	}
	for (size_t at = 0; at < bytes; at += page_bytes)
		area[at] = (unsigned char)(at >> 12);
	int ready[2];
	if (pipe(ready) < 0) {
		perror("shmtree: pipe");
		return 1;
	}
	pid_t self = getpid();
	for (long i = 0; i < children; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("shmtree: fork");
			kill(0, SIGTERM);
			return 1;
		}
		if (pid == 0) {
			close(ready[0]);
			child(area, bytes, page_bytes, ready[1], self);
		}
	}
	close(ready[1]);
	for (long i = 0; i < children; i++) {
		char byte;
		if (read(ready[0], &byte, 1) != 1) {
			fprintf(stderr, "shmtree: a child failed\n");
			return 1;
		}
	}
	printf("%d\n", (int)self);
	fflush(stdout);
	for (;;)
		pause();
}
