/*
 * outputs/bench_run.c - `bench`'s measurements from its options to what
 * its writer takes (outputs/bench_run.h): the latencies timed on this
 * kernel (inputs/latency.c), the fork counted by tracepoints beside the
 * model's prediction for a capture of the process forked, --like's
 * rebuilt layout; the model's side of --compare; posted timings compared.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outputs/bench_run.h"

/* VMAs of this process now, as the kernel lists them ([vsyscall] is no VMA). */
static size_t own_vmas(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	size_t count = 0;
	while (maps && fgets(line, sizeof(line), maps))
		count += !strstr(line, "[vsyscall]");
	if (maps)
		fclose(maps);
	return count;
}

/* A capture of one live process, read back (taken into a private scratch
 * folder, removed at once).  NULL with *why filled when it fails. */
static struct snapshot *capture_process(int pid, char *why, size_t size)
{
	char folder[] = "/tmp/ptscope-bench-XXXXXX", path[64];
	struct error error = { .message = "" };
	struct snapshot *snapshot = NULL;
	if (!mkdtemp(folder)) {
		snprintf(why, size, "scratch folder: %s", strerror(errno));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/process.tar", folder);
	struct capture_options capture = { .output = path, .pids = &pid, .pid_count = 1, .compress = "none" };
	struct capture_result captured;
	struct read_options read = { 0 };
	if (snapshot_capture(&capture, &captured, &error) || snapshot_read(path, &read, &snapshot, &error))
		snprintf(why, size, "%s", error.message);
	unlink(path);
	rmdir(folder);
	return snapshot;
}

/* The model's fork figures for a snapshot of the forked process, and with
 * a calibration its price (run->price). */
static void predict_from(const struct snapshot *snapshot, struct bench_run *run, const struct calibration *calibration)
{
	struct bench_work *work = &run->work;
	struct error error = { .message = "" };
	struct profile_set set = { 0 };
	struct model_result *result = NULL;
	struct model_options options = { .profiles = &set };
	if (profiles_load_builtin(&set, &error) || model_run(snapshot, &options, &result, &error))
		snprintf(work->why_not_predicted, sizeof(work->why_not_predicted), "%s", error.message);
	else if (model_fork_events(result, &work->model))
		snprintf(work->why_not_predicted, sizeof(work->why_not_predicted), "the snapshot has no design of its own");
	else {
		work->predicted = true;
		snprintf(work->design, sizeof(work->design), "%s", work->model.design);
		work->vmas_captured = (size_t)work->model.vmas;
		if (calibration)
			run->has_price = time_predict(result, calibration, work->model.design, &run->price) == 0;
	}
	model_free(result);
	profiles_free(&set);
}

/* The same for a capture of this process (the snapshot and the model's
 * memory freed before the fork: below the malloc mmap threshold set in
 * count_fork, freeing them changes no VMA). */
static void predict_fork(struct bench_run *run, const struct calibration *calibration)
{
	struct bench_work *work = &run->work;
	struct snapshot *snapshot = capture_process((int)getpid(), work->why_not_predicted,
						    sizeof(work->why_not_predicted));
	if (snapshot)
		predict_from(snapshot, run, calibration);
	snapshot_free(snapshot);
}

static void take_trace(struct bench_work *work, const struct trace_result *trace)
{
	work->counted = trace->counted;
	snprintf(work->why_not_counted, sizeof(work->why_not_counted), "%s", trace->why);
	memcpy(work->counts, trace->counts, sizeof(work->counts));
	memcpy(work->merged, trace->merged, sizeof(work->merged));
}

/* One fork + exit counted by tracepoints, beside the model's figures. */
static void count_fork(struct bench_run *run, const struct calibration *calibration)
{
	struct bench_work *work = &run->work;
	struct trace_session session;
	run->has_work = true;
	trace_open(&session, 0);
	if (!session.available) {
		snprintf(work->why_not_counted, sizeof(work->why_not_counted), "%s", session.why);
		return;
	}
	/* the capture and the model allocate from the heap, never a new mapping */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	predict_fork(run, calibration);
	work->vmas_at_fork = own_vmas();
	trace_close(&session);
	struct trace_result trace;
	trace_count_fork(run->machine.cpu, &trace);
	take_trace(work, &trace);
}

/* "SNAPSHOT:PID" (the last colon followed by digits only) or "SNAPSHOT". */
void bench_split_like(const char *argument, char *path, size_t size, int *pid)
{
	const char *colon = strrchr(argument, ':');
	*pid = 0;
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) && strlen(colon + 1) < 10) {
		*pid = atoi(colon + 1);
		snprintf(path, size, "%.*s", (int)(colon - argument), argument);
	} else {
		snprintf(path, size, "%s", argument);
	}
}

/* The process to rebuild: the pid asked for, else the one with most VMAs. */
static const struct process *like_process(const struct snapshot *snapshot, int pid, struct error *error)
{
	const struct process *chosen = NULL;
	if (pid) {
		chosen = snapshot_find_process(snapshot, pid);
		if (!chosen)
			error_set(error, snapshot->source, 0, "no process %d in it (see `ptscope info --per-process`)", pid);
		return chosen;
	}
	for (size_t i = 0; i < snapshot->process_count; i++)
		if (!chosen || snapshot->processes[i].vma_count > chosen->vma_count)
			chosen = &snapshot->processes[i];
	if (!chosen)
		error_set(error, snapshot->source, 0, "no process in it");
	return chosen;
}

/* bench fork --like: the fork timed, counted and predicted in a child that
 * rebuilt the captured process's layout. */
static int measure_like(struct bench_run *run, const char *argument, const struct calibration *calibration,
			struct error *error)
{
	char path[1024];
	int pid;
	bench_split_like(argument, path, sizeof(path), &pid);
	struct read_options read = { .progress = isatty(STDERR_FILENO) };
	struct snapshot *snapshot = NULL, *again = NULL;
	struct layout layout = { 0 };
	struct layout_subject subject = { 0 };
	struct bench_like *like = &run->like;
	struct trace_result trace;
	const struct process *p;
	int status = -1;
	if (snapshot_read(path, &read, &snapshot, error) || !(p = like_process(snapshot, pid, error)) ||
	    layout_from_snapshot(snapshot, p, &layout, error))
		goto done;
	run->has_like = true;
	snprintf(like->source, sizeof(like->source), "%s", path);
	like->pid = p->pid;
	snprintf(like->comm, sizeof(like->comm), "%s", p->comm ? p->comm : "?");
	like->vmas = layout.count;
	like->skipped = layout.skipped;
	like->pages = layout.present_pages;
	if (layout_subject_start(&layout, &subject, error))
		goto done;
	run->has_work = true;
	snprintf(like->subject, sizeof(like->subject), "%s", subject.helper);
	again = capture_process(subject.pid, run->work.why_not_predicted, sizeof(run->work.why_not_predicted));
	if (again) {
		bench_like_found(again, &layout, like);
		predict_from(again, run, calibration);
		run->work.vmas_at_fork = like->vmas_found + like->other_vmas;
	}
	if (layout_subject_fork(&subject, run->runs, run->warmup, run->machine.cpu, &run->results[0], &trace, error))
		goto done;
	run->result_count = 1;
	take_trace(&run->work, &trace);
	status = 0;
done:
	layout_subject_end(&subject);
	layout_free(&layout);
	snapshot_free(again);
	snapshot_free(snapshot);
	return status;
}

static int measure(struct bench_run *run, const bool *selected, const struct calibration *calibration,
		   struct error *error)
{
	for (size_t k = 0; k < LATENCY_KIND_COUNT; k++) {
		if (!selected[k])
			continue;
		if (latency_measure((enum latency_kind)k, run->runs, run->warmup, &run->results[run->result_count],
				    error))
			return -1;
		run->result_count++;
		if (k == LATENCY_FORK)
			count_fork(run, calibration);
	}
	return 0;
}

int bench_time(const struct bench_job *job, struct bench_run *run, struct error *error)
{
	memset(run, 0, sizeof(*run));
	run->runs = job->runs;
	run->warmup = run->runs / 10 > 2 ? run->runs / 10 : 2;
	run->image = "ptscope itself";
	latency_machine_read(&run->machine);
	run->has_hugetlb = job->hugetlb;
	if (job->calibration_path)
		snprintf(run->calibration_path, sizeof(run->calibration_path), "%s", job->calibration_path);
	if (latency_pin(job->cpu, &run->machine.cpu, error) ||
	    (job->like ? measure_like(run, job->like, job->calibration, error)
		       : measure(run, job->selected, job->calibration, error)) ||
	    (job->hugetlb && hugetlb_measure(run->runs, run->warmup, &run->hugetlb, error)))
		return -1;
	return 0;
}

int bench_predict_change(struct compare_prediction *p, size_t count, struct error *error)
{
	static struct calibration calibration;
	struct read_options read = { .progress = isatty(STDERR_FILENO) };
	struct snapshot *snapshot = NULL;
	struct profile_set set = { 0 };
	struct model_result *result = NULL;
	struct model_options options = { .profiles = &set };
	int status = calibration_read(p->calibration, &calibration, error) ||
			     snapshot_read(p->snapshot, &read, &snapshot, error) || profiles_load_builtin(&set, error) ||
			     model_run(snapshot, &options, &result, error) ? -1 : 0;
	for (size_t i = 0; !status && i < count; i++)
		if (time_predict(result, &calibration, p->ids[i], &p->sets[i]))
			status = error_set(error, NULL, 0, "bench: --model: '%s' is no design or sharing rule of %s (see "
					   "`ptscope report %s --all-designs`)", p->ids[i], p->snapshot, p->snapshot);
	p->wanted = true;
	p->made = status == 0;
	model_free(result);
	profiles_free(&set);
	snapshot_free(snapshot);
	return status;
}

int bench_compare(int count, char **paths, struct timing_set *sets, struct timing_comparison *comparison,
		  struct error *error)
{
	for (int i = 0; i < count; i++)
		if (timing_read(paths[i], &sets[i], error))
			return -1;
	timing_compare(&sets[0], &sets[1], count > 2 ? &sets[2] : NULL, comparison);
	if (comparison->change_count)
		return 0;
	return error_set(error, NULL, 0, "bench: %s and %s%s%s share no measure (%s; %s)", paths[0], paths[1],
			 count > 2 ? " and " : "", count > 2 ? paths[2] : "", sets[0].shape, sets[1].shape);
}
