/*
 * analyzer/bounded.c - libclang in a child process, with bounds.
 *
 * A tree's file can make libclang read anything: `#include "/dev/zero"`
 * grows until memory is gone, a FIFO blocks forever, a sparse 4 GiB header
 * is read whole, `#include "/etc/shadow"` brings root's secrets into the
 * diagnostics.  libclang's C API has no hook on the files it opens, so each
 * parse runs in a child of its own (fork, no exec: libclang is already
 * loaded) that the analyzer can stop:
 *
 *   - a watchdog thread in the child looks every WATCH_INTERVAL_MS at the
 *     files the child has opened since it started and at the file any of
 *     its threads is opening (a FIFO blocks in open): anything but a
 *     regular file or a folder, or a file above FILE_LIMIT_SOURCE_BYTES,
 *     stops the child at once, naming the file;
 *   - limits the kernel enforces: address space (BOUNDED_MEMORY_BYTES above
 *     what the child starts with, so a sanitizer's reservations do not
 *     count), CPU (BOUNDED_CPU_SECONDS), no file written (RLIMIT_FSIZE 0);
 *   - the parent's clock: a child past BOUNDED_WALL_SECONDS is asked why
 *     (SIGUSR1 to its watchdog), then killed;
 *   - the work itself may refuse (the unit read a file outside the tree and
 *     the system headers: parse.c checks libclang's inclusion list).
 *
 * Before any of that sees a file, the kernel has refused it: the worker's
 * parsing thread is confined by Landlock (confine.c) to reading the tree's
 * regular files, the cache and the system headers, and to writing nothing,
 * so a device or a FIFO, in the tree or elsewhere, is never opened (its
 * driver never runs).  The parent walks the tree for it once, before the
 * first worker is forked (none when nothing is to be parsed).  Where the
 * kernel has no Landlock the watchdog is all, and the parent says so once.
 *
 * The child's answer is the bytes its work wrote (facts serialised as in
 * the cache); a stopped child says why on a second pipe.  libclang's own
 * crash recovery is turned off in the child: the process is the boundary,
 * and an abort (LLVM's "out of memory") or a crash is reported, never
 * turned into a silently dropped file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/internal.h"
#include "base/file.h"

enum {
	WATCH_INTERVAL_MS = 20,
	KNOWN_FDS = 1024,           /* fds open before the work began are the child's own */
	WHY_BYTES = 1024,
	GRACE_SECONDS = 5,          /* after SIGUSR1, before SIGKILL */
	STOPPED = 3,                /* the child's exit status when it stopped itself */
};

/* ---- in the child ------------------------------------------------------ */

static int why_fd = -1;
static int statm_fd = -1;               /* /proc/self/statm, opened before confinement */
static unsigned char known_fds[KNOWN_FDS / 8];

/* Async-signal-safe text building: the fatal-signal handler uses it too. */
static void add_text(char *out, size_t *length, const char *text)
{
	while (*text && *length + 1 < WHY_BYTES)
		out[(*length)++] = *text++;
	out[*length] = '\0';
}

static void add_number(char *out, size_t *length, unsigned long long value)
{
	char digits[24];
	size_t n = 0;
	do
		digits[n++] = (char)('0' + value % 10);
	while ((value /= 10) && n < sizeof(digits));
	while (n && *length + 1 < WHY_BYTES)
		out[(*length)++] = digits[--n];
	out[*length] = '\0';
}

/* Is st something libclang may read?  If not, append why (with path). */
static bool readable(const struct stat *st, const char *path, char *why, size_t *length)
{
	if (S_ISDIR(st->st_mode) || (S_ISREG(st->st_mode) && (uint64_t)st->st_size <= FILE_LIMIT_SOURCE_BYTES))
		return true;
	add_text(why, length, "libclang was reading ");
	add_text(why, length, path);
	if (S_ISREG(st->st_mode)) {
		add_text(why, length, ", a file of ");
		add_number(why, length, (unsigned long long)st->st_size);
		add_text(why, length, " bytes: more than the ");
		add_number(why, length, FILE_LIMIT_SOURCE_BYTES >> 20);
		add_text(why, length, " MiB a source file may have");
	} else {
		add_text(why, length, ", ");
		add_text(why, length, confine_file_kind(st->st_mode));
		add_text(why, length, ": the analyzer lets libclang read regular files only");
	}
	return false;
}

/* An fd the work opened that libclang may not read: append why; true when found. */
static bool fd_problem(int fd, char *why, size_t *length)
{
	if (fd < 0 || (fd < KNOWN_FDS && (__atomic_load_n(&known_fds[fd / 8], __ATOMIC_RELAXED) & (1u << (fd % 8)))))
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return false;
	char link[32] = "/proc/self/fd/", path[PATH_MAX];
	size_t n = strlen(link);
	add_number(link, &n, (unsigned long long)fd);
	ssize_t bytes = readlink(link, path, sizeof(path) - 1);
	path[bytes > 0 ? bytes : 0] = '\0';
	return !readable(&st, bytes > 0 ? path : link, why, length);
}

/* The file a blocked thread is opening (openat's path), or "" (not async-signal-safe). */
static bool opening_problem(const char *task, char *why, size_t *length)
{
	char path[320], text[512];
	snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", task);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t bytes = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (bytes <= 0)
		return false;
	text[bytes] = '\0';
	long number;
	unsigned long long arguments[2];
	if (sscanf(text, "%ld %llx %llx", &number, &arguments[0], &arguments[1]) != 3)
		return false;
	const char *name = NULL;
	if (number == SYS_openat)
		name = (const char *)(uintptr_t)arguments[1];
#ifdef SYS_open
	if (number == SYS_open)
		name = (const char *)(uintptr_t)arguments[0];
#endif
	if (!name || (number == SYS_openat && name[0] != '/' && (int)arguments[0] != AT_FDCWD))
		return false;
	/* the blocked thread's own buffer, in this process; copied before use */
	char opening[PATH_MAX];
	snprintf(opening, sizeof(opening), "%s", name);
	struct stat st;
	return stat(opening, &st) == 0 && !readable(&st, opening, why, length);
}

static bool find_problem(char *why, size_t *length)
{
	DIR *fds = opendir("/proc/self/fd");
	bool found = false;
	for (struct dirent *entry; !found && fds && (entry = readdir(fds)); )
		if (entry->d_name[0] != '.' && atoi(entry->d_name) != dirfd(fds))
			found = fd_problem(atoi(entry->d_name), why, length);
	if (fds)
		closedir(fds);
	DIR *tasks = found ? NULL : opendir("/proc/self/task");
	long self = syscall(SYS_gettid);
	for (struct dirent *entry; !found && tasks && (entry = readdir(tasks)); )
		if (entry->d_name[0] != '.' && atol(entry->d_name) != self)
			found = opening_problem(entry->d_name, why, length);
	if (tasks)
		closedir(tasks);
	return found;
}

static _Noreturn void stop(const char *why, size_t length)
{
	if (why_fd >= 0 && write(why_fd, why, length) < 0)
		_exit(STOPPED);
	_exit(STOPPED);
}

static const char *signal_cause(int signal_number)
{
	switch (signal_number) {
	case SIGXCPU: return "more CPU time than the bound";
	case SIGABRT: return "an abort (LLVM's \"out of memory\" past the memory bound, or an internal error)";
	case SIGSEGV: return "a crash (SIGSEGV)";
	case SIGBUS: return "a crash (SIGBUS: a file it had mapped shrank?)";
	default: return "a fatal signal";
	}
}

/* Any fatal signal: name a file it should not have opened, else the cause. */
static void on_fatal_signal(int signal_number)
{
	char why[WHY_BYTES];
	size_t length = 0;
	why[0] = '\0';
	for (int fd = 3; fd < KNOWN_FDS; fd++)
		if (fd_problem(fd, why, &length))
			stop(why, length);
	add_text(why, &length, "libclang stopped: ");
	add_text(why, &length, signal_cause(signal_number));
	stop(why, length);
}

static void *watchdog(void *data)
{
	(void)data;
	sigset_t asked;
	sigemptyset(&asked);
	sigaddset(&asked, SIGUSR1);
	struct timespec interval = { 0, WATCH_INTERVAL_MS * 1000000L };
	for (;;) {
		bool out_of_time = sigtimedwait(&asked, NULL, &interval) == SIGUSR1;
		char why[WHY_BYTES];
		size_t length = 0;
		why[0] = '\0';
		if (find_problem(why, &length))
			stop(why, length);
		if (out_of_time) {
			add_text(why, &length, "libclang did not finish in ");
			add_number(why, &length, BOUNDED_WALL_SECONDS);
			add_text(why, &length, " s");
			stop(why, length);
		}
	}
	return NULL;
}

/* A soft limit (the hard one stays, so the next unit may raise it again). */
static void set_soft_limit(int resource, rlim_t value)
{
	struct rlimit limit;
	if (getrlimit(resource, &limit) != 0)
		return;
	limit.rlim_cur = limit.rlim_max != RLIM_INFINITY && limit.rlim_max < value ? limit.rlim_max : value;
	setrlimit(resource, &limit);
}

/* One unit's bounds, from where the worker stands now: address space
 * above what it has (a sanitizer reserves terabytes up front), CPU above
 * what it has used. */
static void limit_unit(void)
{
	char text[128];
	ssize_t bytes = statm_fd >= 0 ? pread(statm_fd, text, sizeof(text) - 1, 0) : -1;
	text[bytes > 0 ? bytes : 0] = '\0';
	unsigned long long pages = strtoull(text, NULL, 10);
	if (pages)
		set_soft_limit(RLIMIT_AS, (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + BOUNDED_MEMORY_BYTES));
	struct rusage usage;
	if (getrusage(RUSAGE_SELF, &usage) == 0)
		set_soft_limit(RLIMIT_CPU, (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1 + BOUNDED_CPU_SECONDS));
}

/* The parsing thread may read only beneath roots and write nothing
 * (confine.c: ruleset made by confine_prepare, or -1 with errno); the
 * watchdog, started before, stays free to read /proc. */
static void confine_worker(int ruleset, int prepare_error)
{
	if (ruleset >= 0 && confine_enter(ruleset) == 0) {
		/* closed now: the number is libclang's next file, to be watched */
		if (ruleset < KNOWN_FDS)
			__atomic_and_fetch(&known_fds[ruleset / 8], (unsigned char)~(1u << (ruleset % 8)), __ATOMIC_RELAXED);
		return;
	}
	int error = ruleset >= 0 ? errno : prepare_error;
	char why[WHY_BYTES];
	size_t length = 0;
	why[0] = '\0';
	add_text(why, &length, "cannot confine libclang's reads (Landlock): ");
	add_text(why, &length, strerror(error));
	stop(why, length);
}

/* A worker: reads a task's index, answers its length and bytes, until the
 * parent closes the request pipe.  Forked after the plan was made, so the
 * tasks are in its memory already.  roots: what it may read (NULL: not
 * confined). */
static _Noreturn void run_worker(const struct bounded_task *tasks, size_t count, const struct read_roots *roots,
				 int request_fd, int answer_fd)
{
	statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	int ruleset = roots ? confine_prepare(roots) : -1;   /* before the fds are known */
	int prepare_error = errno;
	for (int fd = 0; fd < KNOWN_FDS; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			known_fds[fd / 8] |= (unsigned char)(1u << (fd % 8));
	set_soft_limit(RLIMIT_FSIZE, 0);   /* libclang writes no file */
	static const int fatal[] = { SIGABRT, SIGSEGV, SIGBUS, SIGXCPU, SIGFPE, SIGILL };
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_handler = on_fatal_signal;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &action, NULL);
	/* the process is the boundary: libclang's crash recovery would turn an
	 * abort into a quietly failed parse (read by clang_createIndex) */
	setenv("LIBCLANG_DISABLE_CRASH_RECOVERY", "1", 1);
	/* SIGUSR1 (the parent's "why so long?") goes to the watchdog only */
	sigset_t asked;
	sigemptyset(&asked);
	sigaddset(&asked, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &asked, NULL);
	pthread_t id;
	pthread_create(&id, NULL, watchdog, NULL);
	if (roots)
		confine_worker(ruleset, prepare_error);
	uint64_t index;
	while (file_read_exact(request_fd, &index, sizeof(index)) == 0 && index < count) {
		limit_unit();
		struct buffer out = { 0 };
		char *refused = NULL;
		tasks[index].work(tasks[index].data, &out, &refused);
		if (refused)
			stop(refused, strlen(refused));
		uint64_t length = out.length;
		if (file_write_exact(answer_fd, &length, sizeof(length)) || file_write_exact(answer_fd, out.data, out.length))
			_exit(2);
		buffer_free(&out);
	}
	_exit(0);
}

/* ---- in the parent ------------------------------------------------------ */

struct worker {
	pid_t pid;
	int request_fd, answer_fd, why_fd;
	size_t task;                /* the unit it is on */
	bool busy;
	uint64_t expected;          /* the answer's length, once its header is in */
	unsigned char header[sizeof(uint64_t)];
	size_t header_bytes;
	time_t deadline;
	bool asked;                 /* SIGUSR1 sent: SIGKILL at the next deadline */
};

static char *status_text(int status)
{
	if (WIFSIGNALED(status))
		return xasprintf("libclang's process was killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGKILL ? " (out of time, or the system ran out of memory)" : "");
	return xasprintf("libclang's process ended with status %d", WEXITSTATUS(status));
}

/* The worker has ended or must: reap it; its unit, if any, is refused with why. */
static void end_worker(struct bounded_task *tasks, struct worker *worker, const char *why)
{
	kill(worker->pid, SIGKILL);
	int status = 0;
	while (waitpid(worker->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (worker->busy) {
		struct bounded_task *task = &tasks[worker->task];
		char said[WHY_BYTES + 1];
		ssize_t n = read(worker->why_fd, said, WHY_BYTES);
		said[n > 0 ? n : 0] = '\0';
		task->refused = why ? xstrdup(why) : n > 0 ? xstrdup(said) : status_text(status);
		buffer_free(&task->output);
	}
	close(worker->request_fd);
	close(worker->answer_fd);
	close(worker->why_fd);
	memset(worker, 0, sizeof(*worker));
}

static bool start_worker(struct bounded_task *tasks, size_t count, const struct read_roots *roots,
			 struct worker *workers, size_t parallel, struct worker *worker)
{
	int request[2], answer[2], why[2];
	if (pipe2(request, O_CLOEXEC))
		return false;
	if (pipe2(answer, O_CLOEXEC)) {
		close(request[0]);
		close(request[1]);
		return false;
	}
	if (pipe2(why, O_CLOEXEC | O_NONBLOCK)) {
		close(request[0]);
		close(request[1]);
		close(answer[0]);
		close(answer[1]);
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(request[1]);
		close(answer[0]);
		close(why[0]);
		/* the other workers' pipes: holding one's request end would keep
		 * it from ever reading its end */
		for (size_t slot = 0; slot < parallel; slot++)
			if (workers[slot].pid) {
				close(workers[slot].request_fd);
				close(workers[slot].answer_fd);
				close(workers[slot].why_fd);
			}
		why_fd = why[1];
		run_worker(tasks, count, roots, request[0], answer[1]);
	}
	close(request[0]);
	close(answer[1]);
	close(why[1]);
	if (pid < 0) {
		close(request[1]);
		close(answer[0]);
		close(why[0]);
		return false;
	}
	*worker = (struct worker){ .pid = pid, .request_fd = request[1], .answer_fd = answer[0], .why_fd = why[0] };
	return true;
}

static bool give(struct worker *worker, size_t index)
{
	uint64_t value = index;
	if (file_write_exact(worker->request_fd, &value, sizeof(value)))
		return false;
	worker->task = index;
	worker->busy = true;
	worker->expected = 0;
	worker->header_bytes = 0;
	worker->asked = false;
	worker->deadline = time(NULL) + BOUNDED_WALL_SECONDS;
	return true;
}

/* Read what the worker sent.  1: its unit is answered; 0: more to come;
 * -1: the worker ended (or answered more than a unit's facts can be). */
static int take_answer(struct bounded_task *tasks, struct worker *worker)
{
	struct bounded_task *task = &tasks[worker->task];
	char chunk[65536];
	size_t want = worker->header_bytes < sizeof(worker->header)
		      ? sizeof(worker->header) - worker->header_bytes
		      : (size_t)(worker->expected - task->output.length);
	ssize_t n = read(worker->answer_fd, chunk, want < sizeof(chunk) ? want : sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0 || !worker->busy)
		return -1;
	if (worker->header_bytes < sizeof(worker->header)) {
		memcpy(worker->header + worker->header_bytes, chunk, (size_t)n);
		worker->header_bytes += (size_t)n;
		if (worker->header_bytes < sizeof(worker->header))
			return 0;
		memcpy(&worker->expected, worker->header, sizeof(worker->expected));
		if (worker->expected > FILE_LIMIT_SOURCE_BYTES)
			return -1;
	} else {
		buffer_add(&task->output, chunk, (size_t)n);
	}
	if (task->output.length < worker->expected)
		return 0;
	buffer_reserve(&task->output, 0);   /* an empty answer still gets its NUL */
	worker->busy = false;
	return 1;
}

/* The workers of one bounded_run and where its tasks stand. */
struct pool {
	struct bounded_task *tasks;
	size_t count, parallel;
	const struct read_roots *roots;  /* what a worker may read, NULL: not confined */
	struct worker *workers;
	struct pollfd *polls;
	size_t next, active;            /* the next task to give; tasks given, not answered */
	void (*progress)(void *data);
	void *progress_data;
};

static void task_done(struct pool *pool)
{
	if (pool->progress)
		pool->progress(pool->progress_data);
}

/* Every idle worker gets the next task (started first where it has ended). */
static void give_tasks(struct pool *pool)
{
	for (size_t slot = 0; slot < pool->parallel && pool->next < pool->count; slot++) {
		struct worker *worker = &pool->workers[slot];
		if (worker->busy)
			continue;
		if (!worker->pid && !start_worker(pool->tasks, pool->count, pool->roots, pool->workers, pool->parallel,
						  worker)) {
			pool->tasks[pool->next].refused = xasprintf("cannot start a process for libclang: %s",
								    strerror(errno));
			pool->next++;
			task_done(pool);
			continue;
		}
		if (give(worker, pool->next)) {
			pool->next++;
			pool->active++;
		} else {
			end_worker(pool->tasks, worker, NULL);
		}
	}
}

/* One busy worker after poll: its answer read, or its end, or past its
 * deadline asked to stop (SIGUSR1), then, past the grace, killed. */
static void take_worker(struct pool *pool, size_t slot, time_t now)
{
	struct worker *worker = &pool->workers[slot];
	int answered = pool->polls[slot].revents & (POLLIN | POLLHUP | POLLERR) ? take_answer(pool->tasks, worker) : 0;
	if (answered < 0) {
		bool too_long = worker->expected > FILE_LIMIT_SOURCE_BYTES;
		char *why = too_long ? xasprintf("libclang's process answered more than %zu MiB",
						 FILE_LIMIT_SOURCE_BYTES >> 20) : NULL;
		end_worker(pool->tasks, worker, why);
		free(why);
	} else if (answered == 0 && now >= worker->deadline) {
		kill(worker->pid, worker->asked ? SIGKILL : SIGUSR1);
		worker->asked = true;
		worker->deadline = now + GRACE_SECONDS;
		return;
	}
	if (answered != 0) {
		pool->active--;
		task_done(pool);
	}
}

/* Wait for answers (a second at most, for the deadlines); false: poll failed. */
static bool take_answers(struct pool *pool)
{
	for (size_t slot = 0; slot < pool->parallel; slot++)
		pool->polls[slot] = (struct pollfd){ .fd = pool->workers[slot].busy ? pool->workers[slot].answer_fd : -1,
						     .events = POLLIN };
	if (poll(pool->polls, pool->parallel, 1000) < 0 && errno != EINTR)
		return false;
	time_t now = time(NULL);
	for (size_t slot = 0; slot < pool->parallel; slot++)
		if (pool->workers[slot].busy)
			take_worker(pool, slot, now);
	return true;
}

static void end_workers(struct pool *pool)
{
	for (size_t slot = 0; slot < pool->parallel; slot++)
		if (pool->workers[slot].pid)
			close(pool->workers[slot].request_fd);   /* the worker reads EOF and ends */
	for (size_t slot = 0; slot < pool->parallel; slot++)
		if (pool->workers[slot].pid) {
			while (waitpid(pool->workers[slot].pid, NULL, 0) < 0 && errno == EINTR)
				;
			close(pool->workers[slot].answer_fd);
			close(pool->workers[slot].why_fd);
		}
}

/* roots, if the kernel can confine a worker to them (Landlock), the tree
 * walked for it (*refused: why it cannot be); else NULL, said once a
 * process: the watchdog alone stands between libclang and a device it is
 * made to open. */
static const struct read_roots *confinement(const struct read_roots *roots, const char **refused)
{
	static int abi = -1;
	if (!roots)
		return NULL;
	if (abi < 0) {
		abi = confine_abi();
		if (abi == 0)
			fprintf(stderr, "ptscope: this kernel has no Landlock (or it is off): libclang's reads are "
				"watched, not confined to the tree and the system headers\n");
	}
	if (abi > 0)
		*refused = confine_walk(roots);
	return abi > 0 ? roots : NULL;
}

void bounded_run(struct bounded_task *tasks, size_t count, size_t parallel, const struct read_roots *roots,
		 void (*progress)(void *data), void *progress_data)
{
	if (parallel < 1)
		parallel = 1;
	if (parallel > count)
		parallel = count ? count : 1;
	const char *refused = NULL;
	const struct read_roots *confined = count ? confinement(roots, &refused) : NULL;
	for (size_t i = 0; refused && i < count; i++) {
		tasks[i].refused = xstrdup(refused);
		if (progress)
			progress(progress_data);
	}
	if (refused)
		return;
	struct pool pool = { .tasks = tasks, .count = count, .parallel = parallel,
			     .workers = xcalloc(parallel, sizeof(*pool.workers)),
			     .polls = xcalloc(parallel, sizeof(*pool.polls)), .roots = confined,
			     .progress = progress, .progress_data = progress_data };
	/* a worker that ended while idle makes give() fail with EPIPE, not
	 * end this process */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, before;
	sigaction(SIGPIPE, &ignore, &before);
	while (pool.next < count || pool.active) {
		give_tasks(&pool);
		if (!take_answers(&pool))
			break;
	}
	end_workers(&pool);
	sigaction(SIGPIPE, &before, NULL);
	free(pool.workers);
	free(pool.polls);
}

bool bounded_run_one(bounded_work *work, void *data, const struct read_roots *roots, struct buffer *out,
		     char **refused)
{
	struct bounded_task task = { .work = work, .data = data };
	bounded_run(&task, 1, 1, roots, NULL, NULL);
	*out = task.output;
	*refused = task.refused;
	return task.refused == NULL;
}
