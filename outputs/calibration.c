/*
 * outputs/calibration.c - `ptscope bench --calibrate`: what each step of a
 * fork costs on this machine, and the file `report --calibration` reads.
 *
 * Forks are timed (the fastest of the runs) in children of ptscope that rebuilt
 * made-up layouts (inputs/layout.c), varying one thing at a time from a base
 * of one anonymous VMA with one written page: empty VMAs (duplicated, never
 * copied: no anon_vma), 2 MiB windows of one VMA (one PTE page each), pages
 * of one window (PTEs), anonymous VMAs (an anon_vma and its chains each).
 * time = fork + vma x VMAs + pte_page x PTE pages + pte x PTEs + anon_vma x
 * anon_vmas is fitted by least squares (model/fit.c); the counts are the
 * layout's by construction, so the fit's "fork" term is a fork of ptscope's
 * own image (its VMAs, pages and anon_vmas) with nothing added; "base"
 * takes its VMAs away at the fitted price.  Three layouts that mix
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
#include "outputs/bench.h"

const char *const calibration_term_names[CALIBRATION_TERMS] = { "fork", "vma", "pte_page", "pte", "anon_vma" };
static const char *const term_meaning[CALIBRATION_TERMS] = {
	"us per fork of ptscope's own image, nothing added",
	"us per VMA duplicated",
	"us per PTE page allocated and filled",
	"us per PTE copied",
	"us per anon_vma with its chains (anon_vma_fork)",
};

/* empty VMAs, anonymous VMAs, windows each, pages per window */
struct shape {
	unsigned empty, anonymous, windows, pages;
};
static const struct shape fitted[] = {
	{ 0, 1, 1, 1 },
	{ 100, 1, 1, 1 }, { 200, 1, 1, 1 }, { 400, 1, 1, 1 },
	{ 0, 1, 16, 1 }, { 0, 1, 32, 1 }, { 0, 1, 64, 1 },
	{ 0, 1, 1, 128 }, { 0, 1, 1, 256 }, { 0, 1, 1, 512 },
	{ 0, 16, 1, 1 }, { 0, 32, 1, 1 }, { 0, 64, 1, 1 },
};
static const struct shape held_out[CALIBRATION_HELD_OUT] = {
	{ 150, 20, 8, 64 }, { 50, 60, 2, 300 }, { 300, 5, 40, 16 },
};
/* What a calibration file may hold: about 2 KiB of JSON; fork terms in
 * microseconds (1000 s is beyond any kernel); ptscope's own VMAs
 * (max_map_count is 65,530 by default). */
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

/* The fastest fork of a child holding the shape: the run the machine's
 * other work disturbed least (a shared machine only ever adds time). */
static int time_shape(const struct shape *s, size_t runs, int cpu, double *min_us, size_t *own_vmas,
		      struct error *error)
{
	struct layout layout;
	struct layout_subject subject = { 0 };
	struct latency_result result;
	layout_generate(&layout, s->empty, s->anonymous, s->windows, s->pages);
	int status = layout_subject_start(&layout, &subject, error);
	if (!status && own_vmas) {
		char path[64], line[4096];
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)subject.pid);
		FILE *maps = fopen(path, "r");
		*own_vmas = 0;
		while (maps && fgets(line, sizeof(line), maps))
			*own_vmas += !strstr(line, "[vsyscall]");
		if (maps)
			fclose(maps);
		*own_vmas -= *own_vmas >= layout.count ? layout.count : *own_vmas;
	}
	if (!status)
		status = layout_subject_fork(&subject, runs, runs / 10 > 2 ? runs / 10 : 2, cpu, &result, NULL, error);
	layout_subject_end(&subject);
	layout_free(&layout);
	if (!status)
		*min_us = result.stats.min_us;
	return status;
}

static void describe(const struct shape *s, char *text, size_t size)
{
	snprintf(text, size, "%u empty VMAs, %u anonymous VMAs x %u windows x %u pages", s->empty, s->anonymous,
		 s->windows, s->pages);
}

int calibration_run(struct calibration *c, bool quick, int cpu, bool progress, struct error *error)
{
	size_t runs = quick ? 15 : 100;
	double x[FITTED * CALIBRATION_TERMS], y[FITTED];
	struct latency_machine machine;
	latency_machine_read(&machine);
	memset(c, 0, sizeof(*c));
	snprintf(c->kernel, sizeof(c->kernel), "%s", machine.kernel);
	snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", machine.cpu_model);
	time_t now = time(NULL);
	strftime(c->date, sizeof(c->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	c->cpu = cpu;
	c->runs = runs;
	for (size_t i = 0; i < FITTED; i++) {
		if (progress)
			fprintf(stderr, "\rptscope: calibrating: layout %zu of %zu", i + 1, FITTED + CALIBRATION_HELD_OUT);
		counts_of(&fitted[i], &x[i * CALIBRATION_TERMS]);
		if (time_shape(&fitted[i], runs, cpu, &y[i], i == 0 ? &c->own_vmas : NULL, error))
			return -1;
	}
	if (fit_least_squares(x, y, FITTED, CALIBRATION_TERMS, &c->fit, error))
		return -1;
	c->base_us = c->fit.coefficients[0] - c->fit.coefficients[1] * (double)c->own_vmas;
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		struct calibration_check *check = &c->held_out[i];
		if (progress)
			fprintf(stderr, "\rptscope: calibrating: layout %zu of %zu", FITTED + i + 1,
				FITTED + CALIBRATION_HELD_OUT);
		describe(&held_out[i], check->layout, sizeof(check->layout));
		counts_of(&held_out[i], check->counts);
		check->predicted_us = fit_predict(&c->fit, check->counts);
		if (time_shape(&held_out[i], runs, cpu, &check->measured_us, NULL, error))
			return -1;
	}
	for (size_t k = 0; k < 3; k++) {
		struct latency_result result;
		enum latency_kind kind = (enum latency_kind)(LATENCY_FAULT_ANON + k);
		if (latency_measure(kind, runs, 2, &result, error))
			return -1;
		c->fault_us[k] = result.stats.min_us;
	}
	if (progress)
		fputs("\r\033[K", stderr);
	return 0;
}

int calibration_write(FILE *out, const struct calibration *c)
{
	struct json_object *root = json_object_new_object(), *terms = json_object_new_array();
	json_object_object_add(root, "ptscope_calibration", json_object_new_int(1));
	json_object_object_add(root, "kernel", json_object_new_string(c->kernel));
	json_object_object_add(root, "cpu_model", json_object_new_string(c->cpu_model));
	json_object_object_add(root, "date", json_object_new_string(c->date));
	json_object_object_add(root, "cpu", json_object_new_int(c->cpu));
	json_object_object_add(root, "runs", json_object_new_int64((int64_t)c->runs));
	json_object_object_add(root, "own_vmas", json_object_new_int64((int64_t)c->own_vmas));
	for (size_t j = 0; j < CALIBRATION_TERMS; j++) {
		struct json_object *term = json_object_new_object();
		json_object_object_add(term, "name", json_object_new_string(calibration_term_names[j]));
		json_object_object_add(term, "meaning", json_object_new_string(term_meaning[j]));
		json_object_object_add(term, "us", json_object_new_double(c->fit.coefficients[j]));
		json_object_object_add(term, "error_us", json_object_new_double(c->fit.errors[j]));
		json_object_array_add(terms, term);
	}
	json_object_object_add(root, "terms", terms);
	json_object_object_add(root, "base_us", json_object_new_double(c->base_us));
	json_object_object_add(root, "residual_us", json_object_new_double(c->fit.residual));
	json_object_object_add(root, "r_squared", json_object_new_double(c->fit.r_squared));
	json_object_object_add(root, "measurements", json_object_new_int64((int64_t)c->fit.observations));
	struct json_object *checks = json_object_new_array();
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		const struct calibration_check *h = &c->held_out[i];
		struct json_object *check = json_object_new_object();
		json_object_object_add(check, "layout", json_object_new_string(h->layout));
		json_object_object_add(check, "measured_us", json_object_new_double(h->measured_us));
		json_object_object_add(check, "predicted_us", json_object_new_double(h->predicted_us));
		json_object_object_add(check, "error_percent",
				       json_object_new_double((h->predicted_us - h->measured_us) / h->measured_us * 100));
		json_object_array_add(checks, check);
	}
	json_object_object_add(root, "held_out", checks);
	struct json_object *faults = json_object_new_object();
	for (size_t k = 0; k < 3; k++)
		json_object_object_add(faults, latency_kinds[LATENCY_FAULT_ANON + k].name,
				       json_object_new_double(c->fault_us[k]));
	json_object_object_add(root, "fault_us", faults);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int status = fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
	json_object_put(root);
	return status || ferror(out) ? -1 : 0;
}

void calibration_print(FILE *out, const struct calibration *c)
{
	fprintf(out, "calibration: kernel %s, %s, CPU %d, %s; %zu runs per layout (the fastest of each)\n", c->kernel, c->cpu_model,
		c->cpu, c->date, c->runs);
	fprintf(out, "fit of %zu layouts (least squares): residual %.2f us, R^2 %.4f\n", c->fit.observations,
		c->fit.residual, c->fit.r_squared);
	for (size_t j = 0; j < CALIBRATION_TERMS; j++)
		fprintf(out, "  %-9s %12.4f +- %-10.4f %s\n", calibration_term_names[j], c->fit.coefficients[j],
			c->fit.errors[j], term_meaning[j]);
	fprintf(out, "  base      %12.4f            us per fork with ptscope's own %zu VMAs taken away\n", c->base_us,
		c->own_vmas);
	fputs("held out of the fit (predicted vs measured fork):\n", out);
	for (size_t i = 0; i < CALIBRATION_HELD_OUT; i++) {
		const struct calibration_check *h = &c->held_out[i];
		fprintf(out, "  %-58s %10.1f us predicted %10.1f measured %+7.1f%%\n", h->layout, h->predicted_us,
			h->measured_us, (h->predicted_us - h->measured_us) / h->measured_us * 100);
	}
	fprintf(out, "faults (fastest run): anonymous %.2f us, copy on write %.2f us, file %.2f us\n", c->fault_us[0],
		c->fault_us[1], c->fault_us[2]);
}

/* A number member of an object, or a bad-input error naming it. */
static int number(struct json_object *object, const char *key, double *value, double most, const char *path,
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

static void text_member(struct json_object *object, const char *key, char *out, size_t size)
{
	struct json_object *member;
	snprintf(out, size, "%s", json_object_object_get_ex(object, key, &member) ? json_object_get_string(member) : "");
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
	struct json_object *root = json_tokener_parse_verbose(input.data, &problem), *terms;
	buffer_free(&input);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return error_set(error, path, 0, "not JSON: %s", root ? "not an object" : json_tokener_error_desc(problem));
	}
	double version = 0, own = 0;
	int status = number(root, "ptscope_calibration", &version, CALIBRATION_MAX_US, path, error) ||
		     number(root, "base_us", &c->base_us, CALIBRATION_MAX_US, path, error) ||
		     number(root, "residual_us", &c->fit.residual, CALIBRATION_MAX_US, path, error) ||
		     number(root, "own_vmas", &own, CALIBRATION_MAX_VMAS, path, error) ? -1 : 0;
	if (!status && version != 1)
		status = error_set(error, path, 0, "calibration version %g: this ptscope reads version 1", version);
	if (!status && (!json_object_object_get_ex(root, "terms", &terms) || !json_object_is_type(terms, json_type_array) ||
			json_object_array_length(terms) != CALIBRATION_TERMS))
		status = error_set(error, path, 0, "'terms' must list %d terms", CALIBRATION_TERMS);
	for (size_t j = 0; !status && j < CALIBRATION_TERMS; j++) {
		struct json_object *term = json_object_array_get_idx(terms, j), *name;
		if (!json_object_is_type(term, json_type_object) || !json_object_object_get_ex(term, "name", &name) ||
		    strcmp(json_object_get_string(name), calibration_term_names[j]))
			status = error_set(error, path, 0, "term %zu must be '%s'", j + 1, calibration_term_names[j]);
		else
			status = number(term, "us", &c->fit.coefficients[j], CALIBRATION_MAX_US, path, error) ||
				 number(term, "error_us", &c->fit.errors[j], CALIBRATION_MAX_US, path, error) ? -1 : 0;
	}
	if (!status && (own < 0 || own != floor(own)))
		status = error_set(error, path, 0, "'own_vmas' is %g: not a count of VMAs (0 to %d)", own,
				   CALIBRATION_MAX_VMAS);
	if (!status && c->fit.residual < 0)
		status = error_set(error, path, 0, "'residual_us' is %g: a residual is never negative", c->fit.residual);
	if (!status) {
		c->fit.terms = CALIBRATION_TERMS;
		c->own_vmas = (size_t)own;
		text_member(root, "kernel", c->kernel, sizeof(c->kernel));
		text_member(root, "cpu_model", c->cpu_model, sizeof(c->cpu_model));
		text_member(root, "date", c->date, sizeof(c->date));
	}
	json_object_put(root);
	return status;
}
