/*
 * builtin/cmd_profiles.c - `ptscope profiles [--show ID] [--schema] [--check FILE.xml]...
 *                          [--from-source TREE [--config FILE]]`
 *
 * Lists the built-in kernel profiles (rmap designs, sharing rules, the era
 * rename table), prints
 * one with its derived figures (NRPTE, C(m) for small m), prints the schema
 * users write their own against, or validates a user's file.  --from-source
 * asks libclang (through the analyzer) what the structs a profile prices
 * measure in a real kernel tree, beside what the built-in profile assumes;
 * it lives with the outputs because it joins the model and the analyzer.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "builtin/commands.h"
#include "model/model.h"
#include "outputs/outputs.h"

/* The option table, OPT_NAME of each option without a letter and profiles_help:
 * made at build time from builtin/help/profiles.txt. */
#include "builtin/profiles_options.h"

/* What the command line asked for. */
struct profiles_request {
	struct profile_set set;
	const char *source, *config, *libclang, *show;
	bool acted;                 /* an option printed or checked something */
};

/* --builtin NAME and --check FILE act at once, in their order. */
static int builtin_file(const char *name)
{
	if (!profiles_builtin_text(name)) {
		fprintf(stderr, "ptscope: profiles: no built-in file '%s'\n", name);
		return 1;
	}
	fputs(profiles_builtin_text(name), stdout);
	return 0;
}

static int check_file(struct profile_set *set, const char *path)
{
	struct error error;
	if (profiles_load_file(set, path, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	printf("%s: valid\n", path);
	return 0;
}

/* One option of the table (not --help): 0, or the exit status of a refusal. */
static int parse_option(int option, const char *value, void *request)
{
	struct profiles_request *r = request;
	switch (option) {
	case OPT_SHOW: r->show = value; return 0;
	case OPT_FROM_SOURCE: r->source = value; r->acted = true; return 0;
	case OPT_CONFIG: r->config = value; return 0;
	case OPT_LIBCLANG: r->libclang = value; return 0;
	case OPT_SCHEMA: fputs(profiles_schema(), stdout); r->acted = true; return 0;
	case OPT_BUILTIN: r->acted = true; return builtin_file(value);
	case OPT_CHECK: r->acted = true; return check_file(&r->set, value);
	}
	return 1;
}

/* --show ID: a design, a sharing rule or an era's renamed work. */
static int show_one(const struct profile_set *set, const char *id)
{
	if (!profiles_write_one(stdout, set, id))
		return 0;
	fprintf(stderr, "ptscope: profiles: unknown profile '%s'\n", id);
	return 1;
}

/* --from-source TREE: the struct sizes libclang gives, beside the profile's. */
static int from_source(const char *tree, const char *config, const char *libclang, const struct profile_set *set)
{
	struct analyzer_options options = { .source = tree, .config = config, .libclang = libclang, .use_cache = true };
	struct error error;
	if (!profiles_write_sizes(stdout, &options, set, &error))
		return 0;
	error_print(&error);
	return (int)error.status;
}

static int profiles(void *request, int count, char **operands)
{
	struct profiles_request *r = request;
	int status = command_refuse_operands(&profiles_help, count, operands);
	if (!status && r->source)
		status = from_source(r->source, r->config, r->libclang, &r->set);
	if (!status && r->show)
		status = show_one(&r->set, r->show);
	else if (!status && !r->acted)
		profiles_write_list(stdout, &r->set);
	return status;
}

int cmd_profiles(int argc, char **argv)
{
	struct profiles_request r = { .set = { 0 } };
	struct error error;
	if (profiles_load_builtin(&r.set, &error)) {
		error_print(&error);
		return STATUS_INTERNAL;   /* the built-in profiles are part of the program */
	}
	int status = command_run(&profiles_help, argc, argv, parse_option, profiles, &r);
	profiles_free(&r.set);
	return status;
}
