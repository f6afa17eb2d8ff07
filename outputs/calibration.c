/*
 * outputs/calibration.c - `ptscope bench --calibrate`: what each step of a
 * fork costs on this machine, and the file `report --calibration` reads.
 *
 * Forks are timed (the fastest of the runs, the layouts interleaved round by
 * round) in children of ptscope that rebuilt
 * made-up layouts (inputs/layout.c), varying one thing at a time from a base
 * of one anonymous VMA with one written page: empty VMAs (duplicated, never
 * copied: no anon_vma), 2 MiB windows of one VMA (one PTE page each), pages
 * of one window (PTEs), anonymous VMAs (an anon_vma and its chains each).
 * time = fork + vma x VMAs + pte_page x PTE pages + pte x PTEs + anon_vma x
 * anon_vmas is fitted (model/fit.c: robust, bisquare weights, so a layout
 * timed while the machine was busy weighs little; a step whose cost comes out
 * negative is dropped and said so) three times: for the
 * whole fork + exit + wait (elapsed), for the parent's CPU time in fork(),
 * and for the child's CPU time up to its exit (each part's fastest run: CPU
 * time, which the machine's other work does not lengthen); the counts are the
 * layout's by construction, so the fit's "fork" term is a fork of the
 * subject's own image (ptscope-subject's handful of VMAs; ptscope's ~150
 * where the helper is not installed) with nothing added; "base" takes its
 * VMAs away at the fitted price.  Three layouts that mix
 * everything are held out of the fit and predicted.  Faults are timed as
 * `bench fault` times them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "base/file.h"
#include "base/output.h"
#include "outputs/bench.h"

const char *const calibration_term_names[CALIBRATION_TERMS] = { "fork", "vma", "pte_page", "pte", "anon_vma" };
const char *const calibration_part_names[CALIBRATION_PARTS] = { "whole", "fork", "exit" };
static const char *const part_meaning[CALIBRATION_PARTS] = {
	"fork + exit + wait, as lmbench's lat_proc fork times it",
	"the parent's CPU time in fork()",
	"the child's CPU time from fork's return to its exit (freeing its VMAs, page tables, PTEs, anon_vmas)",
};
static const char *const term_meaning[CALIBRATION_TERMS] = {
	"us per fork of the subject's own image, nothing added",
	"us per VMA duplicated",
	"us per PTE page allocated and filled",
	"us per PTE copied",
	"us per anon_vma with its chains (anon_vma_fork)",
};

/* empty VMAs, anonymous VMAs, windows each, pages per window */
struct shape {
	unsigned empty, anonymous, windows, pages;
};
/* Each count varied up to about what a desktop process has (xfce4-session:
 * 637 VMAs, 265 anon_vmas), so that its price is read off the fit, not
 * extrapolated far beyond it. */
static const struct shape fitted[] = {
	{ 0, 1, 1, 1 },
	{ 200, 1, 1, 1 }, { 400, 1, 1, 1 }, { 800, 1, 1, 1 },
	{ 0, 1, 16, 1 }, { 0, 1, 32, 1 }, { 0, 1, 64, 1 },
	/* PTEs over 16 windows: 2048 to 8192, so that a few hundredths of a
	 * microsecond each add up past the spread of a fork */
	{ 0, 1, 16, 128 }, { 0, 1, 16, 256 }, { 0, 1, 16, 512 },
	{ 0, 64, 1, 1 }, { 0, 128, 1, 1 }, { 0, 256, 1, 1 },
};
static const struct shape held_out[CALIBRATION_HELD_OUT] = {
	{ 150, 20, 8, 64 }, { 50, 60, 2, 300 }, { 300, 5, 40, 16 },
};
/* What a calibration file may hold: about 3 KiB of JSON (1 MiB read at
 * most); times in microseconds (1000 s is beyond any kernel); ptscope's
 * own VMAs (max_map_count is 65,530 by default). */
#define CALIBRATION_FILE_BYTES ((size_t)1 << 20)
#define CALIBRATION_MAX_US 1e9
#define CALIBRATION_MAX_VMAS (1 << 24)
#define FITTED (sizeof(fitted) / sizeof(fitted[0]))

static void counts_of(const struct shape *s, double *counts)
{
	counts[0] = 1;
	counts[1] = s->empty + s->anonymous;
	counts[2] = (double)s->anonymous * s->windows;
	counts[3] = (double)s->anonymous * s->windows * s->pages;
	counts[4] = s->anonymous;
}

/* Every layout held by its own subject at once, timed round by round (a
 * few runs of each layout per round), each part's fastest run kept: the
 * machine's load comes and goes, and interleaving spreads it over every
 * layout instead of pinning it on the ones timed while it lasted. */
struct subjects {
	struct layout layouts[FITTED + CALIBRATION_HELD_OUT];
	struct layout_subject held[FITTED + CALIBRATION_HELD_OUT];
	size_t count;
};

static const struct shape *shape_of(size_t i)
{
	return i < FITTED ? &fitted[i] : &held_out[i - FITTED];
}

static void subjects_end(struct subjects *all)
{
	for (size_t i = 0; i < all->count; i++) {
		layout_subject_end(&all->held[i]);
		layout_free(&all->layouts[i]);
	}
	all->count = 0;
}

/* The first subject's own VMAs, the layout's taken away: its image. */
static size_t image_vmas(const struct layout_subject *subject, size_t layout_vmas)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)subject->pid);
	FILE *maps = fopen(path, "r");
	size_t count = 0;
	while (maps && fgets(line, sizeof(line), maps))
		count += !strstr(line, "[vsyscall]");
	if (maps)
		fclose(maps);
	return count >= layout_vmas ? count - layout_vmas : 0;
}

static int time_all(struct subjects *all, size_t runs, int cpu, bool progress, double min_us[][CALIBRATION_PARTS],
		    size_t *own_vmas, struct error *error)
{
	size_t total = FITTED + CALIBRATION_HELD_OUT, rounds = runs >= 50 ? 10 : 3;
	for (size_t i = 0; i < total; i++) {
		const struct shape *s = shape_of(i);
		if (progress)
			fprintf(stderr, "\rptscope: calibrating: building layout %zu of %zu", i + 1, total);
		layout_generate(&all->layouts[i], s->empty, s->anonymous, s->windows, s->pages);
		all->count = i + 1;
		if (layout_subject_start(&all->layouts[i], &all->held[i], error))
			return -1;
		for (size_t p = 0; p < CALIBRATION_PARTS; p++)
			min_us[i][p] = INFINITY;
	}
	*own_vmas = image_vmas(&all->held[0], all->layouts[0].count);
	for (size_t round = 0; round < rounds; round++)
		for (size_t i = 0; i < total; i++) {
			struct latency_result result;
			size_t these = runs / rounds + (round < runs % rounds);
			if (progress)
				fprintf(stderr, "\rptscope: calibrating: round %zu of %zu, layout %zu of %zu  ", round + 1,
					rounds, i + 1, total);
			if (!these)
				continue;
			if (layout_subject_fork(&all->held[i], these, round ? 1 : 2, cpu, &result, NULL, error))
				return -1;
			const double part[CALIBRATION_PARTS] = { result.stats.min_us, result.fork_part.min_us,
								 result.exit_part.min_us };
			for (size_t p = 0; p < CALIBRATION_PARTS; p++)
				if (part[p] < min_us[i][p])
					min_us[i][p] = part[p];
		}
	return 0;
}

static void describe(const struct shape *s, char *text, size_t size)
{
	snprintf(text, size, "%u empty VMAs, %u anonymous VMAs x %u windows x %u pages", s->empty, s->anonymous,
		 s->windows, s->pages);
}

int calibration_run(struct calibration *c, bool quick, int cpu, bool progress, struct error *error)
{
	size_t runs = quick ? 15 : 100;
	double x[FITTED * CALIBRATION_TERMS], y[CALIBRATION_PARTS][FITTED];
	static double min_us[FITTED + CALIBRATION_HELD_OUT][CALIBRATION_PARTS];
	static struct subjects all;
	struct latency_machine machine;
	latency_machine_read(&machine);
	memset(c, 0, sizeof(*c));
	snprintf(c->kernel, sizeof(c->kernel), "%s", machine.kernel);
	snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", machine.cpu_model);
	time_t now = time(NULL);
	strftime(c->date, sizeof(c->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	c->cpu = cpu;
	c->runs = runs;
	int status = time_all(&all, runs, cpu, progress, min_us, &c->own_vmas, error);
	subjects_end(&all);
	if (status)
		return -1;
	for (size_t i = 0; i < FITTED; i++) {
		counts_of(&fitted[i], &x[i * CALIBRATION_TERMS]);
		for (size_t p = 0; p < CALIBRATION_PARTS; p++)
			y[p][i] = min_us[i][p];
	}
	for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
		struct calibration_fit *part = &c->parts[p];
		if (fit_robust(x, y[p], FITTED, CALIBRATION_TERMS, 1, &part->fit, error))
			return -1;
		part->base_us = part->fit.coefficients[0] - part->fit.coefficients[1] * (double)c->own_vmas;
	}
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		struct calibration_check *check = &c->held_out[i];
		describe(&held_out[i], check->layout, sizeof(check->layout));
		counts_of(&held_out[i], check->counts);
		for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
			check->predicted_us[p] = fit_predict(&c->parts[p].fit, check->counts);
			check->measured_us[p] = min_us[FITTED + i][p];
		}
	}
	for (size_t k = 0; k < 4; k++) {
		struct latency_result result;
		enum latency_kind kind = k < 3 ? (enum latency_kind)(LATENCY_FAULT_ANON + k) : LATENCY_MUNMAP;
		if (latency_measure(kind, runs, 2, &result, error))
			return -1;
		*(k < 3 ? &c->fault_us[k] : &c->munmap_us) = result.stats.min_us;
	}
	if (progress)
		fputs("\r\033[K", stderr);
	return 0;
}

static double error_percent(double predicted_us, double measured_us)
{
	return measured_us > 0 ? (predicted_us - measured_us) / measured_us * 100 : 0;
}

static struct json_object *fit_json(const struct calibration_fit *part, size_t p)
{
	struct json_object *o = json_object_new_object(), *terms = json_object_new_array();
	json_object_object_add(o, "what", json_object_new_string(part_meaning[p]));
	for (size_t j = 0; j < CALIBRATION_TERMS; j++) {
		struct json_object *term = json_object_new_object();
		json_object_object_add(term, "name", json_object_new_string(calibration_term_names[j]));
		json_object_object_add(term, "meaning", json_object_new_string(term_meaning[j]));
		json_object_object_add(term, "us", json_object_new_double(part->fit.coefficients[j]));
		json_object_object_add(term, "error_us", json_object_new_double(part->fit.errors[j]));
		if (part->fit.dropped[j])
			json_object_object_add(term, "dropped_negative_us", json_object_new_double(part->fit.dropped_us[j]));
		json_object_array_add(terms, term);
	}
	json_object_object_add(o, "terms", terms);
	json_object_object_add(o, "base_us", json_object_new_double(part->base_us));
	json_object_object_add(o, "residual_us", json_object_new_double(part->fit.residual));
	json_object_object_add(o, "r_squared", json_object_new_double(part->fit.r_squared));
	json_object_object_add(o, "method", json_object_new_string("robust least squares, bisquare weights (GSL)"));
	json_object_object_add(o, "outliers", json_object_new_int64((int64_t)part->fit.outliers));
	json_object_object_add(o, "measurements", json_object_new_int64((int64_t)part->fit.observations));
	return o;
}

int calibration_write(FILE *out, const struct calibration *c)
{
	struct json_object *root = json_object_new_object(), *parts = json_object_new_object();
	json_object_object_add(root, "ptscope_calibration", json_object_new_int(CALIBRATION_VERSION));
	json_object_object_add(root, "kernel", json_object_new_string(c->kernel));
	json_object_object_add(root, "cpu_model", json_object_new_string(c->cpu_model));
	json_object_object_add(root, "date", json_object_new_string(c->date));
	json_object_object_add(root, "cpu", json_object_new_int(c->cpu));
	json_object_object_add(root, "runs", json_object_new_int64((int64_t)c->runs));
	json_object_object_add(root, "own_vmas", json_object_new_int64((int64_t)c->own_vmas));
	for (size_t p = 0; p < CALIBRATION_PARTS; p++)
		json_object_object_add(parts, calibration_part_names[p], fit_json(&c->parts[p], p));
	json_object_object_add(root, "fits", parts);
	struct json_object *checks = json_object_new_array();
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		const struct calibration_check *h = &c->held_out[i];
		struct json_object *check = json_object_new_object();
		json_object_object_add(check, "layout", json_object_new_string(h->layout));
		for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
			struct json_object *part = json_object_new_object();
			json_object_object_add(part, "measured_us", json_object_new_double(h->measured_us[p]));
			json_object_object_add(part, "predicted_us", json_object_new_double(h->predicted_us[p]));
			json_object_object_add(part, "error_percent",
					       json_object_new_double(error_percent(h->predicted_us[p], h->measured_us[p])));
			json_object_object_add(check, calibration_part_names[p], part);
		}
		json_object_array_add(checks, check);
	}
	json_object_object_add(root, "held_out", checks);
	struct json_object *faults = json_object_new_object();
	for (size_t k = 0; k < 3; k++)
		json_object_object_add(faults, latency_kinds[LATENCY_FAULT_ANON + k].name,
				       json_object_new_double(c->fault_us[k]));
	json_object_object_add(root, "fault_us", faults);
	json_object_object_add(root, "munmap_us", json_object_new_double(c->munmap_us));
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int status = fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
	json_object_put(root);
	return status || ferror(out) ? -1 : 0;
}

static int write_file(FILE *out, const void *calibration)
{
	return calibration_write(out, calibration);
}

int calibration_write_path(const char *path, const struct calibration *calibration)
{
	return output_write_whole(path, write_file, calibration);
}

void calibration_print(FILE *out, const struct calibration *c)
{
	fprintf(out, "calibration: kernel %s, %s, CPU %d, %s; %zu runs per layout (the fastest of each)\n", c->kernel, c->cpu_model,
		c->cpu, c->date, c->runs);
	for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
		const struct calibration_fit *part = &c->parts[p];
		fprintf(out, "%s: %s\n  fit of %zu layouts (robust, bisquare): residual %.2f us, R^2 %.4f, "
			"%zu layouts weighed under half as outliers\n", calibration_part_names[p], part_meaning[p],
			part->fit.observations, part->fit.residual, part->fit.r_squared, part->fit.outliers);
		for (size_t j = 0; j < CALIBRATION_TERMS; j++)
			if (part->fit.dropped[j])
				fprintf(out, "  %-9s %12.4f            %s: came out %.4f, below 0, so dropped and "
					"the others fitted again\n", calibration_term_names[j], 0.0, term_meaning[j],
					part->fit.dropped_us[j]);
			else
				fprintf(out, "  %-9s %12.4f +- %-10.4f %s\n", calibration_term_names[j],
					part->fit.coefficients[j], part->fit.errors[j], term_meaning[j]);
		fprintf(out, "  base      %12.4f            us with the subject's own %zu VMAs taken away\n", part->base_us,
			c->own_vmas);
	}
	fputs("held out of the fits (predicted vs measured, the fastest run):\n", out);
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		const struct calibration_check *h = &c->held_out[i];
		fprintf(out, "  %s\n", h->layout);
		for (size_t p = 0; p < CALIBRATION_PARTS; p++)
			fprintf(out, "    %-6s %12.1f us predicted %12.1f measured %+8.1f%%\n", calibration_part_names[p],
				h->predicted_us[p], h->measured_us[p], error_percent(h->predicted_us[p], h->measured_us[p]));
	}
	fprintf(out, "faults (fastest run): anonymous %.2f us, copy on write %.2f us, file %.2f us\n", c->fault_us[0],
		c->fault_us[1], c->fault_us[2]);
	fprintf(out, "munmap of 1 MiB holding 256 present pages (fastest run): %.2f us\n", c->munmap_us);
}

/* A number member of an object, or a bad-input error naming it. */
static int number_within(struct json_object *object, const char *key, double *value, double most, const char *path,
			 struct error *error)
{
	struct json_object *member;
	if (!json_object_object_get_ex(object, key, &member) ||
	    (!json_object_is_type(member, json_type_double) && !json_object_is_type(member, json_type_int)))
		return error_set(error, path, 0, "not a ptscope calibration: no number '%s'", key);
	*value = json_object_get_double(member);
	if (!isfinite(*value) || fabs(*value) > most)
		return error_set(error, path, 0, "'%s' is %g: out of range (at most %g either way)", key, *value, most);
	return 0;
}

/* A time in microseconds. */
static int number(struct json_object *object, const char *key, double *value, const char *path, struct error *error)
{
	return number_within(object, key, value, CALIBRATION_MAX_US, path, error);
}

static void text_member(struct json_object *object, const char *key, char *out, size_t size)
{
	struct json_object *member;
	snprintf(out, size, "%s", json_object_object_get_ex(object, key, &member) ? json_object_get_string(member) : "");
}

/* One fit of the file: fits.NAME with its terms in order. */
static int fit_read(struct json_object *fits, size_t p, struct calibration_fit *part, const char *path,
		    struct error *error)
{
	struct json_object *o, *terms;
	const char *name = calibration_part_names[p];
	if (!json_object_object_get_ex(fits, name, &o) || !json_object_is_type(o, json_type_object))
		return error_set(error, path, 0, "not a ptscope calibration: no fit '%s'", name);
	if (number(o, "base_us", &part->base_us, path, error) || number(o, "residual_us", &part->fit.residual, path, error))
		return -1;
	if (part->fit.residual < 0)
		return error_set(error, path, 0, "fit '%s': 'residual_us' is %g: a residual is never negative", name,
				 part->fit.residual);
	if (!json_object_object_get_ex(o, "terms", &terms) || !json_object_is_type(terms, json_type_array) ||
	    json_object_array_length(terms) != CALIBRATION_TERMS)
		return error_set(error, path, 0, "fit '%s': 'terms' must list %d terms", name, CALIBRATION_TERMS);
	for (size_t j = 0; j < CALIBRATION_TERMS; j++) {
		struct json_object *term = json_object_array_get_idx(terms, j), *term_name;
		if (!json_object_is_type(term, json_type_object) || !json_object_object_get_ex(term, "name", &term_name) ||
		    strcmp(json_object_get_string(term_name), calibration_term_names[j]))
			return error_set(error, path, 0, "fit '%s': term %zu must be '%s'", name, j + 1,
					 calibration_term_names[j]);
		if (number(term, "us", &part->fit.coefficients[j], path, error) ||
		    number(term, "error_us", &part->fit.errors[j], path, error))
			return -1;
		if (part->fit.errors[j] < 0)
			return error_set(error, path, 0, "fit '%s': term '%s' has a negative error", name,
					 calibration_term_names[j]);
	}
	part->fit.terms = CALIBRATION_TERMS;
	return 0;
}

int calibration_read(const char *path, struct calibration *c, struct error *error)
{
	memset(c, 0, sizeof(*c));
	/* the one bounded reader: a FIFO, a device or a folder is refused or
	 * bounded as every named input, and the file is noted as an input
	 * (report --calibration C -o C is refused) */
	struct buffer input = { 0 };
	if (file_read_input(path, "calibration", CALIBRATION_FILE_BYTES, &input, error)) {
		buffer_free(&input);
		return -1;
	}
	buffer_reserve(&input, 0);   /* an empty file still gets its NUL */
	enum json_tokener_error problem;
	struct json_object *root = json_tokener_parse_verbose(input.data, &problem), *fits;
	buffer_free(&input);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return error_set(error, path, 0, "not JSON: %s", root ? "not an object" : json_tokener_error_desc(problem));
	}
	double version = 0, own = 0;
	int status = number(root, "ptscope_calibration", &version, path, error) ? -1 : 0;
	if (!status && version != CALIBRATION_VERSION)
		status = error_set(error, path, 0, "calibration version %g: this ptscope reads version %d "
				   "(make one with `ptscope bench --calibrate -o FILE`)", version, CALIBRATION_VERSION);
	if (!status)
		status = number_within(root, "own_vmas", &own, CALIBRATION_MAX_VMAS, path, error) ||
			 number(root, "munmap_us", &c->munmap_us, path, error) ? -1 : 0;
	if (!status && (own < 0 || own != floor(own)))
		status = error_set(error, path, 0, "'own_vmas' is %g: not a count of VMAs", own);
	if (!status && (!json_object_object_get_ex(root, "fits", &fits) || !json_object_is_type(fits, json_type_object)))
		status = error_set(error, path, 0, "not a ptscope calibration: no object 'fits'");
	for (size_t p = 0; !status && p < CALIBRATION_PARTS; p++)
		status = fit_read(fits, p, &c->parts[p], path, error);
	if (!status) {
		c->own_vmas = (size_t)own;
		text_member(root, "kernel", c->kernel, sizeof(c->kernel));
		text_member(root, "cpu_model", c->cpu_model, sizeof(c->cpu_model));
		text_member(root, "date", c->date, sizeof(c->date));
	}
	json_object_put(root);
	return status;
}
