/*
 * analyzer/sources.c - which files to parse, and with which flags.
 *
 * A kernel tree is parsed "tolerantly", the way kbuild would compile it as
 * closely as a fresh, unbuilt tree allows: -D__KERNEL__, the tree's include
 * and arch include folders, a configuration header, and a few fallbacks
 * kept in a "shim" folder of the cache (never in the tree):
 *   config/generated/autoconf.h and config/linux/autoconf.h - written
 *       from the configuration (new and old trees look for either);
 *   generic/asm -> include/asm-generic, uapi/asm -> include/uapi/asm-generic
 *       - what kbuild's generated generic-y wrappers would give;
 *   arch/asm -> include/asm-ARCH - the include/asm symlink of 2.4-2.6
 *       trees, which a fresh unpack does not have.
 * A compile_commands.json is used as it is, minus the flags only gcc knows
 * (counted), with relative paths made absolute because every libclang
 * thread shares one working directory.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/internal.h"

struct layout {
	const char *arch;             /* folder under arch/ */
	const char *needs;            /* a symbol the configuration must set to choose it
				       when the tree has several (2.6: i386 and x86_64) */
	const char *target;           /* clang target */
	const char *debian_config;    /* in /usr/src/linux-config-V.P/ */
	const char *supplied;         /* symbols assumed for a tree with no configuration */
	const char *defconfig;        /* the arch's default configuration, relative to the
				       tree: arch/ARCH/defconfig until 2.6.23, then configs/ */
	const char *kconfig_arch;     /* $ARCH for its Kconfig files (x86's 64BIT asks) */
};

static const struct layout layouts[] = {
	{ "x86", NULL, "x86_64-linux-gnu", "config.amd64_none_amd64.xz",
	  "CONFIG_MMU CONFIG_SWAP CONFIG_SHMEM CONFIG_X86 CONFIG_X86_64 CONFIG_64BIT",
	  "arch/x86/configs/x86_64_defconfig", "x86_64" },
	/* before 2.6.24 x86_64 had its own folder beside i386 */
	{ "x86_64", "CONFIG_X86_64", "x86_64-linux-gnu", "config.amd64_none_amd64.xz",
	  "CONFIG_MMU CONFIG_SWAP CONFIG_SHMEM CONFIG_X86 CONFIG_X86_64 CONFIG_64BIT",
	  "arch/x86_64/defconfig", "x86_64" },
	{ "i386", NULL, "i386-linux-gnu", "config.i386_none_686.xz",
	  "CONFIG_MMU CONFIG_SWAP CONFIG_SHMEM CONFIG_X86 CONFIG_X86_32", "arch/i386/defconfig", "i386" },
};

/* Fault handlers by era: 2.6.24-2.6.27 split x86 into _32 and _64. */
static const char *const fault_files[] = { "mm/fault.c", "mm/fault_64.c", "mm/fault_32.c" };
/* Beyond mm/: where fork and exit tear down and copy address spaces. */
static const char *const kernel_files[] = { "kernel/fork.c", "kernel/exit.c" };

/* Flags only gcc understands, as kernel compile databases carry them. */
static const char *const gcc_only_prefixes[] = {
	"-mpreferred-stack-boundary=", "-mindirect-branch=", "-mindirect-branch-register",
	"-mindirect-branch-cs-prefix", "-mfunction-return=", "-fno-allow-store-data-races",
	"-fconserve-stack", "-mrecord-mcount", "-fno-var-tracking-assignments",
	"-mskip-rax-setup", "-falign-jumps=", "-falign-loops=", "-fmin-function-alignment=",
	"-fno-ipa-", "-fno-tree-", "-fplugin", "--param", "-mno-fp-ret-in-387",
	"-fno-code-hoisting", "-fsched-pressure", "-fno-inline-functions-called-once",
	"-Wimplicit-fallthrough=", "-fasan-shadow-offset=", "-fsanitize-coverage=trace-cmp",
	"-mabi=ms", "-fno-partial-inlining", "-Wno-alloc-size-larger-than",
	"-Wno-dangling-pointer", "-Wno-stringop-", "-Wno-packed-not-aligned",
	"-Wno-maybe-uninitialized", "-Wno-restrict", "-Wno-format-overflow",
	"-Wno-format-truncation", "-Wno-array-bounds", "-Wno-zero-length-bounds",
};

bool sources_gcc_only_flag(const char *argument)
{
	for (size_t i = 0; i < sizeof(gcc_only_prefixes) / sizeof(gcc_only_prefixes[0]); i++)
		if (!strncmp(argument, gcc_only_prefixes[i], strlen(gcc_only_prefixes[i])))
			return true;
	return false;
}

static char *join(const char *folder, const char *name)
{
	return xasprintf("%s/%s", folder, name);
}

static bool tree_has(const char *root, const char *name)
{
	char *path = join(root, name);
	struct stat st;
	bool found = stat(path, &st) == 0;
	free(path);
	return found;
}

static void add_job(struct source_plan *plan, char *path, const char *directory,
		    const struct cg_list *arguments)
{
	array_reserve(&plan->jobs, &plan->job_capacity, plan->job_count + 1, sizeof(*plan->jobs));
	struct tu_job *job = &plan->jobs[plan->job_count++];
	memset(job, 0, sizeof(*job));
	job->path = path;
	job->directory = xstrdup(directory);
	for (size_t i = 0; i < arguments->count; i++)
		cg_list_add(&job->arguments, arguments->items[i]);
}

/* --- configuration ------------------------------------------------------- */

/* Each non-empty line of a text file, in order (nothing when it cannot be read). */
static void each_line(const char *path, void (*visit)(char *line, void *context), void *context)
{
	char *text;
	size_t size;
	if (!cg_read_file(path, &text, &size))
		return;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		visit(line, context);
	free(text);
}

/* autoconf.h back into symbols: "#define CONFIG_X_MODULE 1" is X=m. */
static void header_symbol(char *line, void *context)
{
	struct kconfig *config = context;
	char name[256], value[1024] = "";
	if (sscanf(line, "#define %255s %1023[^\n]", name, value) < 1 || strncmp(name, "CONFIG_", 7))
		return;
	size_t length = strlen(name);
	if (length > 7 && !strcmp(name + length - 7, "_MODULE") && !strcmp(value, "1")) {
		name[length - 7] = '\0';
		kconfig_set(config, name, "m");
	} else {
		kconfig_set(config, name, strcmp(value, "1") ? value : "y");
	}
}

static void config_from_header(const char *path, struct kconfig *config)
{
	each_line(path, header_symbol, config);
}

static void tree_version(const char *root, int *version, int *patchlevel)
{
	char *path = join(root, "Makefile"), *text;
	size_t size;
	*version = *patchlevel = -1;
	if (cg_read_file(path, &text, &size)) {
		char *at = strstr(text, "VERSION =");
		if (at)
			*version = atoi(at + 9);
		at = strstr(text, "PATCHLEVEL =");
		if (at)
			*patchlevel = atoi(at + 12);
		free(text);
	}
	free(path);
}

/* "2.4.20": the era a tree belongs to, for the designs that fit it. */
static char *tree_release(const char *root)
{
	char *path = join(root, "Makefile"), *text, *release;
	size_t size;
	const char *keys[] = { "VERSION =", "PATCHLEVEL =", "SUBLEVEL =" };
	int part[3] = { -1, -1, 0 };
	if (cg_read_file(path, &text, &size)) {
		for (size_t i = 0; i < 3; i++) {
			char *at = strstr(text, keys[i]);
			if (at)
				part[i] = atoi(at + strlen(keys[i]));
		}
		free(text);
	}
	free(path);
	release = part[0] >= 0 && part[1] >= 0 ? xasprintf("%d.%d.%d", part[0], part[1], part[2]) : xstrdup("");
	return release;
}

static int config_from_defconfig(const char *root, const struct layout *layout, struct kconfig *config,
				 struct source_plan *plan, struct error *error);

/* The configuration, in order of preference: --config, the tree's .config,
 * its generated header, the distribution's configuration for this version,
 * and last a handful of supplied MMU symbols. */
static int find_config(const struct analyzer_options *options, const char *root,
		       const struct layout *layout, struct kconfig *config,
		       struct source_plan *plan, struct error *error)
{
	if (options->config) {
		plan->config = xstrdup(options->config);
		return kconfig_read(options->config, config, error);
	}
	char *dot_config = join(root, ".config");
	if (cg_is_file(dot_config)) {
		plan->config = dot_config;
		return kconfig_read(dot_config, config, error);
	}
	free(dot_config);
	static const char *const headers[] = { "include/generated/autoconf.h", "include/linux/autoconf.h" };
	for (size_t i = 0; i < 2; i++) {
		char *header = join(root, headers[i]);
		if (cg_is_file(header)) {
			config_from_header(header, config);
			plan->config = header;
			return 0;
		}
		free(header);
	}
	int version, patchlevel;
	tree_version(root, &version, &patchlevel);
	char *debian = xasprintf("/usr/src/linux-config-%d.%d/%s", version, patchlevel,
				 layout->debian_config);
	if (cg_is_file(debian)) {
		plan->config = debian;
		return kconfig_read(debian, config, error);
	}
	free(debian);
	return config_from_defconfig(root, layout, config, plan, error);
}

/* What `make defconfig` would give, without running the tree's kconfig: the
 * arch's defconfig (a minimal one, 3.x+, says only what differs from the
 * Kconfig defaults), then the Kconfig files' defaults and selects for all
 * it leaves out (kconfig_defaults.c).  The MMU symbols are still supplied
 * where neither says anything (a tree without Kconfig: 2.4). */
static int config_from_defconfig(const char *root, const struct layout *layout, struct kconfig *config,
				 struct source_plan *plan, struct error *error)
{
	char *defconfig = join(root, layout->defconfig);
	bool has_defconfig = cg_is_file(defconfig);
	char *top = tree_has(root, "Kconfig") ? xstrdup("Kconfig") : xasprintf("arch/%s/Kconfig", layout->arch);
	char *arch = xasprintf("ARCH=%s", layout->kconfig_arch), *srcarch = xasprintf("SRCARCH=%s", layout->arch);
	const char *const env[] = { arch, srcarch, "srctree=.", NULL };
	char *said = NULL;
	int status = has_defconfig ? kconfig_read(defconfig, config, error) : 0;
	if (!status)
		status = kconfig_fill_defaults(root, top, env, config, &said, error);
	struct buffer added = { 0 };
	char *symbols = xstrdup(layout->supplied), *save = NULL;
	for (char *name = strtok_r(symbols, " ", &save); !status && name; name = strtok_r(NULL, " ", &save)) {
		if (kconfig_value(config, name))
			continue;
		kconfig_set(config, name, "y");
		plan->symbols_supplied++;
		buffer_printf(&added, "%s%s", added.length ? " " : "", name);
	}
	plan->config = xasprintf("%s%s%s%s%s", has_defconfig ? defconfig : "no .config or defconfig",
				 said ? "; " : "", said ? said : "", added.length ? "; supplied " : "",
				 added.length ? added.data : "");
	free(defconfig);
	free(top);
	free(arch);
	free(srcarch);
	free(said);
	buffer_free(&added);
	free(symbols);
	return status;
}

/* --- the shim folder ----------------------------------------------------- */

static bool write_text(const char *folder, const char *name, const char *text)
{
	char *path = join(folder, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	bool ok = cg_make_dirs(path);
	*slash = '/';
	/* a file that already says this is left alone: its mtime is part of
	 * every cached unit's inputs, and rewriting it would void them all */
	char *old = NULL;
	size_t old_size = 0;
	bool found = cg_read_file(path, &old, &old_size);
	bool same = found && old_size == strlen(text) && !memcmp(old, text, old_size);
	if (found)
		free(old);
	ok = ok && (same || cg_write_file_atomic(path, text, strlen(text)));
	free(path);
	return ok;
}

static bool link_asm(const char *folder, const char *target)
{
	if (!cg_make_dirs(folder))
		return false;
	/* made under a private name and renamed over: two runs at once (make
	 * check and make check SANITIZE=1) may both be building this shim */
	char *link = join(folder, "asm");
	char current[PATH_MAX];
	ssize_t length = readlink(link, current, sizeof(current) - 1);
	if (length > 0 && (size_t)length == strlen(target) && !memcmp(current, target, (size_t)length)) {
		free(link);
		return true;
	}
	char *temporary = xasprintf("%s.%ld", link, (long)getpid());
	unlink(temporary);
	bool ok = symlink(target, temporary) == 0 && rename(temporary, link) == 0;
	if (!ok)
		unlink(temporary);
	free(temporary);
	free(link);
	return ok;
}

static char *make_shim(const char *cache_dir, const char *root, const char *old_asm,
		       const char *header, struct error *error)
{
	/* bumped when what the shim holds changes, so old shims are not reused */
	static const char shim_version[] = "shim 3";
	uint64_t hash = hash_bytes_more(hash_bytes(header, strlen(header)), root, strlen(root));
	hash = hash_bytes_more(hash, shim_version, sizeof(shim_version));
	char *shim_root = xasprintf("%s/shim", cache_dir);
	bool private_root = cache_make_folder(shim_root);   /* cache.c: ours alone */
	free(shim_root);
	char *shim = xasprintf("%s/shim/%016llx", cache_dir, (unsigned long long)hash);
	char *generic = join(root, "include/asm-generic");
	char *uapi = join(root, "include/uapi/asm-generic");
	char *folders[3] = { join(shim, "generic"), join(shim, "uapi"), join(shim, "arch") };
	bool ok = private_root && write_text(shim, "config/generated/autoconf.h", header) &&
		  write_text(shim, "config/linux/autoconf.h", header) &&
		  link_asm(folders[0], generic) && link_asm(folders[1], uapi) &&
		  (!old_asm || link_asm(folders[2], old_asm));
	for (int i = 0; i < 3; i++)
		free(folders[i]);
	free(generic);
	free(uapi);
	if (!ok) {
		error_internal(error, shim, 0, "cannot write the configuration shim folder");
		free(shim);
		return NULL;
	}
	return shim;
}

/* --- headers read as their era's compiler read them ------------------- */

/*
 * gcc up to 3.x accepted an extern array of a struct that its header defines
 * further down (2.4's and 2.5's include/asm-i386/processor.h: `extern struct
 * tss_struct init_tss[NR_CPUS];` above `struct tss_struct {`).  C forbids an
 * array of an incomplete type and clang refuses it, in every unit that
 * includes the header.  Such a header is read from a copy in the shim
 * (compat/asm/NAME.h, searched before the arch folder) in which the
 * declaration is moved to the end of the line that closes the struct's
 * definition: no other line moves, so every line number stays the tree's.
 * The summary names each declaration moved.
 */

/* "extern struct NAME ident[...];": NAME's length, else 0. */
static size_t extern_array_of_struct(const char *line, size_t length, const char **name)
{
	static const char prefix[] = "extern struct ";
	if (length < sizeof(prefix) || strncmp(line, prefix, sizeof(prefix) - 1))
		return 0;
	while (length && isspace((unsigned char)line[length - 1]))
		length--;
	if (length < 3 || strncmp(line + length - 2, "];", 2) || !memchr(line, '[', length))
		return 0;
	*name = line + sizeof(prefix) - 1;
	size_t n = 0;
	while (isalnum((unsigned char)(*name)[n]) || (*name)[n] == '_')
		n++;
	return n && (*name)[n] == ' ' ? n : 0;
}

/* Whether the line opens the definition "struct NAME {". */
static bool opens_struct(const char *line, size_t length, const char *name, size_t name_length)
{
	if (length < 8 + name_length || strncmp(line, "struct ", 7) || strncmp(line + 7, name, name_length))
		return false;
	const char *rest = line + 7 + name_length;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	return *rest == '{';
}

struct text_line {
	const char *start;
	size_t length;
};

/* The index of the line that closes the struct NAME defined after line
 * `after`, or SIZE_MAX (not defined below it, or defined above it too). */
static size_t struct_end(const struct text_line *lines, size_t count, size_t after, const char *name,
			 size_t name_length)
{
	size_t opening = SIZE_MAX;
	for (size_t i = 0; i < count && opening == SIZE_MAX; i++)
		if (opens_struct(lines[i].start, lines[i].length, name, name_length))
			opening = i;
	if (opening == SIZE_MAX || opening < after)
		return SIZE_MAX;
	int depth = 0;
	for (size_t i = opening; i < count; i++) {
		for (size_t c = 0; c < lines[i].length; c++)
			depth += lines[i].start[c] == '{' ? 1 : lines[i].start[c] == '}' ? -1 : 0;
		if (depth <= 0)
			return i;
	}
	return SIZE_MAX;
}

/* The header's text with each such declaration moved, or NULL when it has
 * none (or includes by "quotes", which a copy elsewhere would not find);
 * notes gets "FILE:LINE (struct NAME)" for each. */
static char *defer_declarations(const char *text, size_t size, const char *shown, struct buffer *notes)
{
	if (memmem(text, size, "#include \"", 10))
		return NULL;
	size_t count = 0, capacity = 0;
	struct text_line *lines = NULL;
	for (const char *at = text, *end = text + size; at < end;) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		size_t length = newline ? (size_t)(newline - at) : (size_t)(end - at);
		*ARRAY_PUSH(lines, count, capacity) = (struct text_line){ at, length };
		at += length + 1;
	}
	size_t *moved_to = xcalloc(count + 1, sizeof(size_t));   /* declaration -> closing line + 1 */
	bool any = false;
	for (size_t i = 0; i < count; i++) {
		const char *name;
		size_t name_length = extern_array_of_struct(lines[i].start, lines[i].length, &name);
		size_t end = name_length ? struct_end(lines, count, i, name, name_length) : SIZE_MAX;
		if (end == SIZE_MAX)
			continue;
		moved_to[i] = end + 1;
		any = true;
		buffer_printf(notes, "%s%s:%zu (struct %.*s)", notes->length ? ", " : "", shown, i + 1, (int)name_length,
			      name);
	}
	char *copy = NULL;
	if (any) {
		struct buffer out = { 0 };
		for (size_t i = 0; i < count; i++) {
			if (!moved_to[i])
				buffer_printf(&out, "%.*s", (int)lines[i].length, lines[i].start);
			for (size_t d = 0; d < count; d++)
				if (moved_to[d] == i + 1)
					buffer_printf(&out, " %.*s", (int)lines[d].length, lines[d].start);
			buffer_printf(&out, "\n");
		}
		copy = xstrdup(out.data);
		buffer_free(&out);
	}
	free(moved_to);
	free(lines);
	return copy;
}

/* Every header of include/asm-ARCH: a copy in the shim where one needs it,
 * none (a stale one removed) where it does not. */
static void compat_headers(const char *root, const char *old_asm, const char *shim, char **compat)
{
	DIR *folder = opendir(old_asm);
	struct buffer notes = { 0 };
	for (struct dirent *entry; folder && (entry = readdir(folder));) {
		size_t n = strlen(entry->d_name);
		if (n < 3 || strcmp(entry->d_name + n - 2, ".h"))
			continue;
		char *path = join(old_asm, entry->d_name), *text = NULL;
		char *place = xasprintf("compat/asm/%s", entry->d_name);
		char *shown = xasprintf("%s/%s", old_asm + strlen(root) + 1, entry->d_name);
		size_t size = 0;
		char *copy = cg_read_file(path, &text, &size) ? defer_declarations(text, size, shown, &notes) : NULL;
		if (copy) {
			write_text(shim, place, copy);
		} else {
			char *stale = join(shim, place);
			unlink(stale);
			free(stale);
		}
		free(copy);
		free(text);
		free(shown);
		free(place);
		free(path);
	}
	if (folder)
		closedir(folder);
	*compat = notes.length ? xasprintf("extern arrays of a struct defined further down, read after the definition as gcc <= 3.x did: %s",
					   notes.data) : NULL;
	buffer_free(&notes);
}

/* --- the tree ------------------------------------------------------------ */

static bool is_mm_object(const struct cg_list *objects, const char *name)
{
	char *stem = xstrndup(name, strlen(name) - 2);
	bool found = cg_list_has(objects, stem);
	free(stem);
	return found;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in folder ending in suffix, sorted (readdir order is arbitrary). */
static void list_folder(const char *folder, const char *suffix, struct cg_list *names)
{
	DIR *dir = opendir(folder);
	if (!dir)
		return;
	size_t suffix_length = strlen(suffix);
	for (struct dirent *entry; (entry = readdir(dir)); ) {
		size_t length = strlen(entry->d_name);
		if (length > suffix_length && !strcmp(entry->d_name + length - suffix_length, suffix))
			cg_list_add(names, entry->d_name);
	}
	closedir(dir);
	if (names->count)
		array_sort(names->items, names->count, sizeof(char *), compare_strings);
}

/* The mm C files that kbuild would build (all of them if the Makefile names none). */
static void mm_files(const char *root, const struct kconfig *config, struct cg_list *files)
{
	char *makefile = join(root, "mm/Makefile");
	char *folder = join(root, "mm");
	struct cg_list objects = { 0 }, all = { 0 };
	kbuild_objects(makefile, config, &objects);
	list_folder(folder, ".c", &all);
	size_t kept = 0;
	for (size_t i = 0; i < all.count; i++)
		kept += is_mm_object(&objects, all.items[i]);
	for (size_t i = 0; i < all.count; i++)
		if (!kept || is_mm_object(&objects, all.items[i]))
			cg_list_add_owned(files, join(folder, all.items[i]));
	cg_list_free(&objects);
	cg_list_free(&all);
	free(makefile);
	free(folder);
}

/* Everything but mm/: fork, exit, the fault handler and --file. */
static int other_files(const struct analyzer_options *options, const char *root,
		       const struct layout *layout, struct cg_list *files, struct error *error)
{
	for (size_t i = 0; i < sizeof(kernel_files) / sizeof(kernel_files[0]); i++)
		if (tree_has(root, kernel_files[i]))
			cg_list_add_owned(files, join(root, kernel_files[i]));
	for (size_t i = 0; i < sizeof(fault_files) / sizeof(fault_files[0]); i++) {
		char *name = xasprintf("arch/%s/%s", layout->arch, fault_files[i]);
		if (tree_has(root, name)) {
			cg_list_add_owned(files, join(root, name));
			free(name);
			break;
		}
		free(name);
	}
	for (size_t i = 0; i < options->file_count; i++) {
		const char *file = options->files[i];
		char *path = file[0] == '/' ? xstrdup(file) : join(root, file);
		if (!cg_is_file(path)) {
			error_set(error, path, 0, "--file: no such file");
			free(path);
			return -1;
		}
		if (cg_list_has(files, path))
			free(path);
		else
			cg_list_add_owned(files, path);
	}
	return 0;
}

static void add_include(struct cg_list *arguments, const char *root, const char *folder)
{
	char *path = join(root, folder);
	if (cg_is_dir(path))
		cg_list_add_owned(arguments, xasprintf("-I%s", path));
	free(path);
}

static bool makefile_says(const char *root, const char *needle)
{
	char *path = join(root, "Makefile"), *text;
	size_t size;
	bool found = false;
	if (cg_read_file(path, &text, &size)) {
		found = strstr(text, needle) != NULL;
		free(text);
	}
	free(path);
	return found;
}

/* The flags kbuild would pass, as far as an unbuilt tree allows. */
static void tree_arguments(const char *root, const struct layout *layout, const struct kconfig *config,
			   const char *shim, bool old_asm, struct cg_list *arguments)
{
	bool sixty_four = kconfig_get(config, "CONFIG_X86_64") || kconfig_get(config, "CONFIG_64BIT");
	const char *target = !strcmp(layout->arch, "x86") && !sixty_four ? "i386-linux-gnu" : layout->target;
	cg_list_add_owned(arguments, xasprintf("--target=%s", target));
	/* New trees carry their own stdarg.h; old ones need the compiler's. */
	if (tree_has(root, "include/linux/stdarg.h"))
		cg_list_add(arguments, "-nostdinc");
	cg_list_add(arguments, makefile_says(root, "-std=gnu11") ? "-std=gnu11" : "-std=gnu89");
	cg_list_add(arguments, "-D__KERNEL__");
	cg_list_add(arguments, "-ferror-limit=0");
	/* gcc merged a regparm() that only some declarations of a function
	 * carry (2.5's FASTCALL(smp_send_reschedule) against asm/smp.h's plain
	 * one); clang refuses the mix.  A calling convention changes no call,
	 * so the attribute is read as a harmless one. */
	cg_list_add(arguments, "-Dregparm(n)=__unused__");
	static const char *const includes[] = {
		"arch/%s/include", "arch/%s/include/generated", "include", "arch/%s/include/uapi",
		"arch/%s/include/generated/uapi", "include/uapi", "include/generated/uapi",
	};
	for (size_t i = 0; i < sizeof(includes) / sizeof(includes[0]); i++) {
		char *folder = xasprintf(includes[i], layout->arch);
		add_include(arguments, root, folder);
		free(folder);
	}
	/* arch and asmgen (generated <asm/...> headers) stand in for old trees'
	 * include/asm symlink, which kbuild searched before anything else: they
	 * come before the generic fallback, or <asm/page.h> of a 2.4-2.6.23 tree
	 * would find include/asm-generic/page.h instead of the arch's own */
	cg_list_add_owned(arguments, xasprintf("-I%s/config", shim));
	if (old_asm) {
		cg_list_add_owned(arguments, xasprintf("-I%s/compat", shim));   /* compat_headers */
		cg_list_add_owned(arguments, xasprintf("-I%s/arch", shim));
		cg_list_add_owned(arguments, xasprintf("-I%s/asmgen", shim));
	}
	cg_list_add_owned(arguments, xasprintf("-I%s/generic", shim));
	cg_list_add_owned(arguments, xasprintf("-I%s/uapi", shim));
	char *kconfig_h = join(root, "include/linux/kconfig.h");
	cg_list_add(arguments, "-include");
	if (cg_is_file(kconfig_h))
		cg_list_add(arguments, kconfig_h);
	else
		cg_list_add_owned(arguments, xasprintf("%s/config/linux/autoconf.h", shim));
	free(kconfig_h);
	char *compiler_types = join(root, "include/linux/compiler_types.h");
	if (cg_is_file(compiler_types)) {
		cg_list_add(arguments, "-include");
		cg_list_add(arguments, compiler_types);
	}
	free(compiler_types);
}

/* What kbuild defines per object: its base name, module name and (since 5.x)
 * the module file, which MODULE_LICENSE() of a built-in object refers to. */
static void file_arguments(const char *root, const char *path, struct cg_list *arguments)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *stem = xstrndup(base, strcspn(base, "."));
	for (char *p = stem; *p; p++)
		if (*p == '-')
			*p = '_';   /* as kbuild's modname does */
	size_t root_length = strlen(root);
	const char *relative = !strncmp(path, root, root_length) && path[root_length] == '/'
			       ? path + root_length + 1 : base;
	cg_list_add_owned(arguments, xasprintf("-DKBUILD_BASENAME=\"%s\"", stem));
	cg_list_add_owned(arguments, xasprintf("-DKBUILD_MODNAME=\"%s\"", stem));
	cg_list_add_owned(arguments, xasprintf("-D__KBUILD_MODNAME=kmod_%s", stem));
	cg_list_add_owned(arguments, xasprintf("-DKBUILD_MODFILE=\"%.*s\"",
					       (int)(strlen(relative) - (strrchr(relative, '.') ? strlen(strrchr(relative, '.')) : 0)),
					       relative));
	free(stem);
}

/* Headers "make prepare" would generate that mm code includes.  bounds.h is
 * computed (its values decide page-flags layout and with it whole inline
 * helpers); the syscall numbers come from the tree's syscall tables; the
 * rest only carry constants, so an empty stand-in keeps the preprocessor
 * going. */
static const char *const generated_stand_ins[] = { "generated/timeconst.h" };

static const struct syscall_header {
	const char *header;      /* as included */
	const char *table;       /* in the tree */
	const char *abis;        /* rows of these ABIs */
	const char *prefix;      /* macro prefix */
	unsigned long offset;    /* added to the number (x32) */
} syscall_headers[] = {
	{ "asm/unistd_64.h", "arch/x86/entry/syscalls/syscall_64.tbl", " common 64 ", "__NR_", 0 },
	{ "asm/unistd_64_x32.h", "arch/x86/entry/syscalls/syscall_64.tbl", " common x32 ", "__NR_x32_", 0x40000000UL },
	{ "asm/unistd_32.h", "arch/x86/entry/syscalls/syscall_32.tbl", " i386 ", "__NR_", 0 },
	{ "asm/unistd_32_ia32.h", "arch/x86/entry/syscalls/syscall_32.tbl", " i386 ", "__NR_ia32_", 0 },
};

struct syscall_lines {
	const struct syscall_header *header;
	struct buffer *out;
};

/* "0 common read sys_read" -> "#define __NR_read 0" for the wanted ABIs. */
static void syscall_line(char *line, void *context)
{
	const struct syscall_lines *lines = context;
	unsigned long number;
	char abi[32], name[128];
	if (line[0] == '#' || sscanf(line, "%lu %31s %127s", &number, abi, name) != 3)
		return;
	char *wanted = xasprintf(" %s ", abi);
	if (strstr(lines->header->abis, wanted))
		buffer_printf(lines->out, "#define %s%s %lu\n", lines->header->prefix, name,
			      number + lines->header->offset);
	free(wanted);
}

static void syscall_defines(const char *table_path, const struct syscall_header *header, struct buffer *out)
{
	struct syscall_lines lines = { header, out };
	each_line(table_path, syscall_line, &lines);
}

/*
 * Headers kbuild computes from the tree's own C (kernel/bounds.c,
 * arch/ARCH/kernel/asm-offsets.c) by compiling it to assembly: clang
 * evaluates the same DEFINE()s here (parse_constants).  Where the build puts
 * the header is read from the tree's Kbuild or Makefile, since it moved:
 * include/asm-$(ARCH)/asm_offsets.h (2.6.0-2.6.15), include/asm-$(SRCARCH)/
 * asm-offsets.h, include/linux/bounds.h (2.6.27), include/generated/ (2.6.35+).
 */
struct constants_header {
	const char *source;             /* relative to the tree; %s: the arch folder */
	const char *stem;               /* the header's name ends so: "offsets.h" */
	const char *fallback;           /* under include/, when no build file names it */
	const char *guard;
};

static const struct constants_header constant_headers[] = {
	{ "kernel/bounds.c", "bounds.h", "generated/bounds.h", "__LINUX_BOUNDS_H__" },
	{ "arch/%s/kernel/asm-offsets.c", "offsets.h", "generated/asm-offsets.h", "__ASM_OFFSETS_H__" },
};

/* "include/asm-$(ARCH)/asm_offsets.h" and the like, as the tree's build files
 * name the header: the part after include/, or NULL. */
static char *named_header(const char *root, const char *arch, const char *stem)
{
	char *arch_makefile = xasprintf("arch/%s/Makefile", arch);
	const char *const files[] = { "Kbuild", "Makefile", arch_makefile };
	char *found = NULL;
	for (size_t f = 0; !found && f < sizeof(files) / sizeof(files[0]); f++) {
		char *path = join(root, files[f]), *text;
		size_t size;
		if (cg_read_file(path, &text, &size)) {
			for (char *at = strstr(text, stem); !found && at; at = strstr(at + 1, stem)) {
				char *start = at;
				while (start > text && (isalnum((unsigned char)start[-1]) || strchr("_$()/.-", start[-1])))
					start--;
				char *include = strstr(start, "include/");
				if (include && include < at)
					found = xstrndup(include + 8, (size_t)(at + strlen(stem) - include - 8));
			}
			free(text);
		}
		free(path);
	}
	free(arch_makefile);
	return found;
}

/* "asm-$(ARCH)/x.h" -> the arch folder's name in place of the variable */
static char *with_arch(const char *name, const char *arch)
{
	static const char *const variables[] = { "$(ARCH)", "$(SRCARCH)" };
	for (size_t v = 0; v < 2; v++) {
		const char *at = strstr(name, variables[v]);
		if (at)
			return xasprintf("%.*s%s%s", (int)(at - name), name, arch, at + strlen(variables[v]));
	}
	return xstrdup(name);
}

static int constants_header(const char *root, const char *arch, const char *shim, const struct cg_list *common,
			    const struct read_roots *roots, const struct constants_header *header,
			    struct error *error)
{
	int status = 0;
	char *relative = xasprintf(header->source, arch);
	char *source = join(root, relative);
	char *named = named_header(root, arch, header->stem);
	char *name = with_arch(named ? named : header->fallback, arch);
	/* include/asm-ARCH/x.h is reached as <asm/x.h>: the shim's asmgen/asm;
	 * include/asm/x.h (2.6.28-2.6.3x, beside arch/ARCH/include) through
	 * the shim's config folder, which stands in for include/ */
	const char *slash = strchr(name, '/');
	char *place = !strncmp(name, "asm-", 4) && slash ? xasprintf("asmgen/asm%s", slash)
							 : xasprintf("config/%s", name);
	char *in_tree = xasprintf("%s/include/%s", root, name);
	char *path = join(shim, place);
	if (cg_is_file(source) && !cg_is_file(in_tree) && !cg_is_file(path)) {
		struct buffer text = { 0 };
		buffer_printf(&text, "/* computed by ptscope from %s */\n#ifndef %s\n#define %s\n",
				 relative, header->guard, header->guard);
		struct cg_list arguments = { 0 };
		for (size_t i = 0; i < common->count; i++)
			cg_list_add(&arguments, common->items[i]);
		file_arguments(root, source, &arguments);
		status = parse_constants(source, &arguments, roots, &text, error) < 0 ? -1 : 0;
		buffer_printf(&text, "#endif\n");
		if (!status)
			write_text(shim, place, text.data);
		cg_list_free(&arguments);
		buffer_free(&text);
	}
	free(relative);
	free(source);
	free(named);
	free(name);
	free(place);
	free(in_tree);
	free(path);
	return status;
}

static int generate_headers(const char *root, const char *arch, const char *shim, const struct cg_list *common,
			    const struct read_roots *roots, struct error *error)
{
	for (size_t i = 0; i < sizeof(generated_stand_ins) / sizeof(generated_stand_ins[0]); i++) {
		char *in_tree = xasprintf("%s/include/%s", root, generated_stand_ins[i]);
		char *name = xasprintf("config/%s", generated_stand_ins[i]);
		char *path = join(shim, name);
		if (!cg_is_file(in_tree) && !cg_is_file(path))
			write_text(shim, name, "/* stand-in written by ptscope */\n");
		free(in_tree);
		free(name);
		free(path);
	}
	for (size_t i = 0; i < sizeof(syscall_headers) / sizeof(syscall_headers[0]); i++) {
		const struct syscall_header *header = &syscall_headers[i];
		char *table = join(root, header->table);
		char *name = xasprintf("config/%s", header->header);
		char *path = join(shim, name);
		if (!cg_is_file(path)) {
			struct buffer text = { 0 };
			buffer_printf(&text, "/* written by ptscope from %s */\n", header->table);
			syscall_defines(table, header, &text);
			write_text(shim, name, text.data);
			buffer_free(&text);
		}
		free(table);
		free(name);
		free(path);
	}
	int status = 0;
	for (size_t i = 0; !status && i < sizeof(constant_headers) / sizeof(constant_headers[0]); i++)
		status = constants_header(root, arch, shim, common, roots, &constant_headers[i], error);
	return status;
}

/* The -I and -D words of a kbuild flags value, once each; relative folders
 * are relative to the tree, where kbuild runs. */
static void add_flag_words(const char *root, char *value, struct cg_list *arguments)
{
	char *save = NULL;
	for (char *word = value ? strtok_r(value, " \t", &save) : NULL; word; word = strtok_r(NULL, " \t", &save)) {
		const char *folder = NULL;
		if (!strcmp(word, "-I"))
			folder = strtok_r(NULL, " \t", &save);
		else if (!strncmp(word, "-I", 2))
			folder = word + 2;
		if (folder && *folder) {
			char *flag = folder[0] == '/' ? xasprintf("-I%s", folder) : xasprintf("-I%s/%s", root, folder);
			if (!cg_list_has(arguments, flag))
				cg_list_add(arguments, flag);
			free(flag);
		} else if (!strncmp(word, "-D", 2) && word[2] && !cg_list_has(arguments, word)) {
			cg_list_add(arguments, word);
		}
	}
}

/* The -I and -D flags that the file's own kbuild Makefile adds for it
 * (CFLAGS_fault.o := -I $(srctree)/$(src)/../include/asm/trace; 6.10+
 * writes -I $(src)/..., $(src) relative to the tree) and for its folder
 * (ccflags-y). */
static void kbuild_arguments(const struct kbuild *kbuild, const char *root, const char *path,
			     struct cg_list *arguments)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *object = xasprintf("CFLAGS_%.*s.o", (int)strcspn(base, "."), base);
	char *values[2] = { kbuild_get(kbuild, object), kbuild_get(kbuild, "ccflags-y") };
	for (int v = 0; v < 2; v++) {
		add_flag_words(root, values[v], arguments);
		free(values[v]);
	}
	free(object);
	/* 2.4's Rules.make compiled the objects listed in export-objs with
	 * -DEXPORT_SYMTAB; without it EXPORT_SYMBOL() expands to a deliberate
	 * syntax error ("error this_object_must_be_defined_as_export_objs...") */
	char *exports = kbuild_get(kbuild, "export-objs");
	char *wanted = xasprintf("%.*s.o", (int)strcspn(base, "."), base), *save = NULL;
	bool listed = false;
	for (char *word = exports ? strtok_r(exports, " \t", &save) : NULL; word && !listed;
	     word = strtok_r(NULL, " \t", &save))
		listed = !strcmp(word, wanted);
	if (listed && !cg_list_has(arguments, "-DEXPORT_SYMTAB"))
		cg_list_add(arguments, "-DEXPORT_SYMTAB");
	free(wanted);
	free(exports);
}

/*
 * The -I and -D flags the tree's arch Makefile adds for every file, as its
 * own kbuild evaluates it for this configuration: 2.6 i386's
 * "mflags-y += -Iinclude/asm-i386/mach-default; CFLAGS += $(mflags-y)".
 * Relative folders are relative to the tree, where kbuild runs.
 */
static const char *const arch_flag_variables[] = {
	"CFLAGS", "CPPFLAGS", "KBUILD_CFLAGS", "KBUILD_CPPFLAGS", "cflags-y",
};

static void arch_arguments(const char *root, const struct layout *layout, const struct kconfig *config,
			   struct cg_list *arguments)
{
	char *makefile = xasprintf("%s/arch/%s/Makefile", root, layout->arch);
	char *presets[] = { xasprintf("srctree=%s", root), xasprintf("TOPDIR=%s", root),
			    xasprintf("ARCH=%s", layout->arch), xasprintf("SRCARCH=%s", layout->arch), NULL };
	struct kbuild *kbuild = cg_is_file(makefile) ? kbuild_load(makefile, config, (const char *const *)presets) : NULL;
	for (size_t i = 0; kbuild && i < sizeof(arch_flag_variables) / sizeof(arch_flag_variables[0]); i++) {
		char *value = kbuild_get(kbuild, arch_flag_variables[i]);
		add_flag_words(root, value, arguments);
		free(value);
	}
	kbuild_free(kbuild);
	for (int p = 0; presets[p]; p++)
		free(presets[p]);
	free(makefile);
}

/* Defines the top-level Makefile adds when the configuration asks for them. */
static const struct { const char *symbols; const char *define; } config_defines[] = {
	{ "CONFIG_FUNCTION_TRACER CONFIG_HAVE_FENTRY", "-DCC_USING_FENTRY" },
};

static void config_arguments(const struct kconfig *config, struct cg_list *arguments)
{
	for (size_t i = 0; i < sizeof(config_defines) / sizeof(config_defines[0]); i++) {
		char *symbols = xstrdup(config_defines[i].symbols), *save = NULL;
		bool all = true;
		for (char *name = strtok_r(symbols, " ", &save); name; name = strtok_r(NULL, " ", &save))
			all = all && kconfig_get(config, name);
		if (all)
			cg_list_add(arguments, config_defines[i].define);
		free(symbols);
	}
}

/* Does the configuration the run will use (--config, the tree's .config or
 * generated autoconf.h) set symbol?  Read before the layout is chosen. */
static bool config_sets(const struct analyzer_options *options, const char *root, const char *symbol)
{
	struct kconfig config = { 0 };
	struct error ignored;   /* the run reads it again and reports it */
	char *dot_config = join(root, ".config");
	const char *path = options->config ? options->config : cg_is_file(dot_config) ? dot_config : NULL;
	if (path) {
		if (kconfig_read(path, &config, &ignored))
			kconfig_free(&config);
	} else {
		static const char *const headers[] = { "include/generated/autoconf.h", "include/linux/autoconf.h" };
		for (size_t i = 0; i < 2 && !config.symbols.names.count; i++) {
			char *header = join(root, headers[i]);
			if (cg_is_file(header))
				config_from_header(header, &config);
			free(header);
		}
	}
	bool set = kconfig_get(&config, symbol) != NULL;
	kconfig_free(&config);
	free(dot_config);
	return set;
}

static const struct layout *find_layout(const struct analyzer_options *options, const char *root)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		char *folder = xasprintf("arch/%s", layouts[i].arch);
		bool found = tree_has(root, folder);
		free(folder);
		if (found && (!layouts[i].needs || config_sets(options, root, layouts[i].needs)))
			return &layouts[i];
	}
	return &layouts[0];
}

/* A folder's Makefile, evaluated as kbuild would for it. */
static struct kbuild *folder_kbuild(const char *root, const char *folder, const struct kconfig *config)
{
	char *makefile = join(folder, "Makefile");
	const char *relative = folder + strlen(root) + (folder[strlen(root)] == '/');
	char *presets[] = { xasprintf("srctree=%s", root), xasprintf("src=%s", relative),
			    xasprintf("obj=%s", relative), NULL };
	struct kbuild *kbuild = kbuild_load(makefile, config, (const char *const *)presets);
	for (int p = 0; presets[p]; p++)
		free(presets[p]);
	free(makefile);
	return kbuild;
}

/* A job per file: the common arguments, the file's own and its Makefile's. */
static void plan_jobs(struct source_plan *plan, const char *root, const struct kconfig *config,
		      const struct cg_list *files, const struct cg_list *common)
{
	struct kbuild *kbuild = NULL;
	char *kbuild_folder = NULL;
	for (size_t i = 0; i < files->count; i++) {
		/* one Makefile evaluation per folder: files come sorted by folder */
		char *folder = xstrndup(files->items[i], (size_t)(strrchr(files->items[i], '/') - files->items[i]));
		if (!kbuild_folder || strcmp(folder, kbuild_folder)) {
			kbuild_free(kbuild);
			free(kbuild_folder);
			kbuild_folder = folder;
			kbuild = folder_kbuild(root, folder, config);
		} else {
			free(folder);
		}
		struct cg_list arguments = { 0 };
		for (size_t j = 0; j < common->count; j++)
			cg_list_add(&arguments, common->items[j]);
		file_arguments(root, files->items[i], &arguments);
		kbuild_arguments(kbuild, root, files->items[i], &arguments);
		add_job(plan, xstrdup(files->items[i]), root, &arguments);
		cg_list_free(&arguments);
	}
	kbuild_free(kbuild);
	free(kbuild_folder);
}

static int tree_plan(const struct analyzer_options *options, const char *cache_dir,
		     struct source_plan *plan, struct error *error)
{
	char resolved[PATH_MAX];
	if (!realpath(options->source, resolved) || !tree_has(resolved, "mm"))
		return error_set(error, options->source, 0, "not a kernel tree (no mm/ folder)");
	plan->root = xstrdup(resolved);
	char cache_resolved[PATH_MAX];
	plan->roots = (struct read_roots){
		.tree = xstrdup(resolved),
		.cache = cache_dir && realpath(cache_dir, cache_resolved) ? xstrdup(cache_resolved) : NULL,
	};
	const struct layout *layout = find_layout(options, resolved);
	plan->arch = xstrdup(layout->arch);
	plan->release = tree_release(resolved);
	struct kconfig config = { 0 };
	int status = find_config(options, resolved, layout, &config, plan, error);
	char *old_asm = xasprintf("%s/include/asm-%s", resolved, layout->arch);
	if (!cg_is_dir(old_asm)) {
		free(old_asm);
		old_asm = NULL;
	}
	struct buffer header = { 0 };
	kconfig_header(&config, &header);
	plan->config_digest = hash_bytes(header.data ? header.data : "", header.length);
	char *shim = status ? NULL : make_shim(cache_dir, resolved, old_asm, header.data, error);
	if (!shim && !status)
		status = -1;
	struct cg_list files = { 0 }, common = { 0 };
	if (!status) {
		mm_files(resolved, &config, &files);
		status = other_files(options, resolved, layout, &files, error);
	}
	if (!status && old_asm)
		compat_headers(resolved, old_asm, shim, &plan->compat);
	if (!status) {
		tree_arguments(resolved, layout, &config, shim, old_asm != NULL, &common);
		config_arguments(&config, &common);
		arch_arguments(resolved, layout, &config, &common);
		status = generate_headers(resolved, layout->arch, shim, &common, &plan->roots, error);
	}
	if (!status)
		plan_jobs(plan, resolved, &config, &files, &common);
	cg_list_free(&files);
	cg_list_free(&common);
	buffer_free(&header);
	kconfig_free(&config);
	free(shim);
	free(old_asm);
	return status;
}

/* --- compile_commands.json ------------------------------------------------ */

/* A shell command line into words: quotes and backslashes as sh reads them. */
static void split_command(const char *command, struct cg_list *words)
{
	struct buffer word = { 0 };
	bool in_word = false;
	char quote = 0;
	for (const char *p = command; ; p++) {
		char c = *p;
		if (!c || (!quote && (c == ' ' || c == '\t' || c == '\n'))) {
			if (in_word)
				cg_list_add(words, word.data ? word.data : "");
			word.length = 0;
			if (word.data)
				word.data[0] = '\0';
			in_word = false;
			if (!c)
				break;
			continue;
		}
		in_word = true;
		if (quote) {
			if (c == quote)
				quote = 0;
			else if (c == '\\' && quote == '"' && p[1] && strchr("\"\\$`", p[1]))
				buffer_add(&word, ++p, 1);
			else
				buffer_add(&word, p, 1);
		} else if (c == '\'' || c == '"') {
			quote = c;
			buffer_add(&word, "", 0);
		} else if (c == '\\' && p[1]) {
			buffer_add(&word, ++p, 1);
		} else {
			buffer_add(&word, p, 1);
		}
	}
	buffer_free(&word);
}

static char *absolute(const char *directory, const char *path)
{
	return path[0] == '/' ? xstrdup(path) : join(directory, path);
}

/*
 * Compile-database flags pass through an allowlist: what decides how a
 * kernel file reads (include folders, macros, the language standard, the
 * target and code-generation switches that name no file, warnings).  Any
 * other word is dropped, counted and named in the summary, so no flag of a
 * database can make libclang write a file (-MJ, -H with -Xclang
 * -header-include-file, -ftime-trace, -save-temps) or read one outside the
 * tree, ptscope's own cache and the system headers.
 */
enum flag_kind {
	FLAG_DIRECTORY,     /* -I and its kin: a folder inside the allowed roots */
	FLAG_FILE,          /* -include, -imacros: a regular file inside them */
	FLAG_MACRO,         /* -D, -U: any text */
	FLAG_WORD,          /* -std=, --target=, -f..., -m..., -O: a plain word, no path */
	FLAG_WARNING,       /* -W..., -w: no comma (-Wl, -Wa, -Wp pass words on to tools) */
	FLAG_EXACT,         /* the flag as written, nothing more */
};
static const struct kept_flag {
	const char *prefix;
	enum flag_kind kind;
	bool separate;      /* "-I dir" as well as "-Idir" */
} kept_flags[] = {
	{ "-I", FLAG_DIRECTORY, true }, { "-isystem", FLAG_DIRECTORY, true },
	{ "-iquote", FLAG_DIRECTORY, true }, { "-idirafter", FLAG_DIRECTORY, true },
	{ "-include", FLAG_FILE, true }, { "-imacros", FLAG_FILE, true },
	{ "-D", FLAG_MACRO, true }, { "-U", FLAG_MACRO, true },
	{ "-std=", FLAG_WORD, false }, { "--target=", FLAG_WORD, false },
	{ "-f", FLAG_WORD, false }, { "-m", FLAG_WORD, false }, { "-O", FLAG_WORD, false },
	{ "-W", FLAG_WARNING, false }, { "-w", FLAG_EXACT, false },
	{ "-nostdinc", FLAG_EXACT, false }, { "-ansi", FLAG_EXACT, false },
};
/* -f and -m families that read or write a file, or hand words on to a
 * back end, whatever their value: never kept. */
static const char *const file_naming_flags[] = {
	"-fmodule", "-fimplicit-module", "-fprebuilt-module", "-fbuild-session", "-fcrash",
	"-ftime-trace", "-fsave-", "-foptimization-record", "-fprofile", "-fcoverage", "-fdump",
	"-fplugin", "-fpass-plugin", "-fproc-stat-report", "-fstack-usage", "-fcallgraph-info",
	"-fbasic-block-sections", "-fsanitize-ignorelist", "-fsanitize-blacklist",
	"-fsanitize-system", "-fxray", "-fembed", "-fapinotes", "-fdebug-compilation-dir",
	"-fdiagnostics-add-output", "-frewrite-map-file", "-fthinlto", "-fdepfile", "-fdump-",
	"-mllvm", "-fexperimental", "-fmemory-profile", "-fsplit-lto", "-fintegrated-",
	"-fsanitize-coverage-", "-fcs-profile", "-fpch", "-fms-secure-hotpatch",
	"-frandomize-layout-seed-file", "-fsystem-module",
};
/* Build-only words every compile database carries: dropped without a count. */
static const char *const build_only_with_argument[] = { "-o", "-MF", "-MT", "-MQ" };
static const char *const build_only[] = { "-c", "-S", "-E", "-MD", "-MMD", "-MP", "-M", "-MM", "-pipe" };

static bool in_table(const char *const *table, size_t count, const char *text)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(table[i], text))
			return true;
	return false;
}
#define IN_TABLE(table, text) in_table(table, sizeof(table) / sizeof(table[0]), text)

static bool has_prefix_in(const char *const *table, size_t count, const char *text)
{
	for (size_t i = 0; i < count; i++)
		if (!strncmp(text, table[i], strlen(table[i])))
			return true;
	return false;
}

/* A resolved path for a folder (want_file false) or a regular file inside
 * the allowed roots, or NULL (*missing: because nothing is there). */
static char *allowed_path(const struct read_roots *roots, const char *directory, const char *path,
			  bool want_file, bool *missing)
{
	char *full = absolute(directory, path), resolved[PATH_MAX];
	bool found = realpath(full, resolved) != NULL;
	*missing = !found && errno == ENOENT;
	free(full);
	struct stat st;
	if (!found || stat(resolved, &st) != 0 || !read_roots_allow(roots, resolved) ||
	    !(want_file ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode)))
		return NULL;
	return xstrdup(resolved);
}

/* A plain word: letters, digits and _ . , + - = only, no path, no "..". */
static bool plain_word(const char *text)
{
	if (!*text || strstr(text, ".."))
		return false;
	for (const char *p = text; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.,+-=", *p))
			return false;
	return true;
}

static const struct kept_flag *kept_flag_of(const char *word)
{
	for (size_t i = 0; i < sizeof(kept_flags) / sizeof(kept_flags[0]); i++) {
		const struct kept_flag *flag = &kept_flags[i];
		size_t length = strlen(flag->prefix);
		if (flag->kind == FLAG_EXACT ? !strcmp(word, flag->prefix) : !strncmp(word, flag->prefix, length))
			return flag;
	}
	return NULL;
}

/* Keep word (and value, for a separate argument) if the allowlist does:
 * appends to arguments, true when kept. */
static bool keep_flag(const struct read_roots *roots, const char *directory, const char *word,
		      const char *value, struct cg_list *arguments)
{
	const struct kept_flag *flag = kept_flag_of(word);
	if (!flag)
		return false;
	const char *rest = value ? value : word + strlen(flag->prefix);
	switch (flag->kind) {
	case FLAG_DIRECTORY:
	case FLAG_FILE: {
		bool missing;
		char *path = allowed_path(roots, directory, rest, flag->kind == FLAG_FILE, &missing);
		if (!path)   /* a folder that is not there changes nothing: not kept, not counted */
			return missing && flag->kind == FLAG_DIRECTORY;
		cg_list_add(arguments, flag->prefix);
		cg_list_add_owned(arguments, path);
		return true;
	}
	case FLAG_MACRO:
		if (!*rest)
			return false;
		cg_list_add_owned(arguments, xasprintf("%s%s", flag->prefix, rest));
		return true;
	case FLAG_WORD:
		if (!plain_word(word + 1) || sources_gcc_only_flag(word) ||
		    has_prefix_in(file_naming_flags, sizeof(file_naming_flags) / sizeof(file_naming_flags[0]), word))
			return false;
		break;
	case FLAG_WARNING:
		if (!plain_word(word + 1) || strchr(word, ',') || sources_gcc_only_flag(word))
			return false;
		break;
	case FLAG_EXACT:
		break;
	}
	cg_list_add(arguments, word);
	return true;
}

/* Say what was dropped: the first distinct words, at most this many. */
#define DROPPED_NAMED_MAX 8

static void note_dropped(struct source_plan *plan, const char *word)
{
	plan->flags_dropped++;
	if (cg_list_has(&plan->dropped_names, word))
		return;
	if (plan->dropped_names.count < DROPPED_NAMED_MAX)
		cg_list_add(&plan->dropped_names, word);
	else
		plan->dropped_names_more = true;
}

static void database_arguments(struct source_plan *plan, const struct read_roots *roots,
			       char **words, size_t count, const char *directory, const char *file,
			       struct cg_list *arguments)
{
	for (size_t i = 1; i < count; i++) {   /* words[0] is the compiler */
		const char *word = words[i];
		if (IN_TABLE(build_only_with_argument, word)) {
			i++;
			continue;
		}
		if (IN_TABLE(build_only, word) || !strncmp(word, "-Wp,", 4))
			continue;
		if (word[0] != '-') {
			/* the source file itself, relative to the directory, or a stray word */
			char *full = absolute(directory, word);
			bool is_file = !strcmp(full, file);
			free(full);
			if (!is_file)
				note_dropped(plan, word);
			continue;
		}
		const struct kept_flag *flag = kept_flag_of(word);
		bool separate = flag && flag->separate && !strcmp(word, flag->prefix);
		if (separate && i + 1 < count) {
			if (!keep_flag(roots, directory, word, words[i + 1], arguments))
				note_dropped(plan, word);
			i++;
		} else if (separate || !keep_flag(roots, directory, word, NULL, arguments)) {
			note_dropped(plan, word);
		}
	}
}

/* The mm C files, fork, exit, the fault handler, --file: what a tree would give. */
static bool wanted(const struct analyzer_options *options, const char *relative)
{
	static const char *const patterns[] = {
		"mm/*.c", "kernel/fork.c", "kernel/exit.c", "arch/*/mm/fault*.c",
	};
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (!fnmatch(patterns[i], relative, FNM_PATHNAME))
			return true;
	for (size_t i = 0; i < options->file_count; i++)
		if (!strcmp(options->files[i], relative))
			return true;
	return false;
}

static unsigned line_of_offset(const char *text, size_t offset)
{
	unsigned line = 1;
	for (size_t i = 0; i < offset && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* One entry as the database gives it, before its flags are filtered. */
struct database_entry {
	char *file;                 /* absolute */
	const char *directory;
	struct cg_list words;
};

/* The string of member name, or NULL when absent or not a non-empty string. */
static const char *string_member(json_object *entry, const char *name)
{
	json_object *value;
	if (!json_object_object_get_ex(entry, name, &value) || !json_object_is_type(value, json_type_string))
		return NULL;
	const char *text = json_object_get_string(value);
	return *text ? text : NULL;
}

static int read_entry(json_object *entry, const char *path, unsigned index,
		      struct database_entry *out, struct error *error)
{
	if (!json_object_is_type(entry, json_type_object))
		return error_set(error, path, 1, "entry %u is not an object", index);
	const char *directory = string_member(entry, "directory"), *file = string_member(entry, "file");
	if (!directory || !file)
		return error_set(error, path, 1, "entry %u has no \"directory\" or \"file\" string", index);
	if (directory[0] != '/')
		return error_set(error, path, 1, "entry %u: \"directory\" is not an absolute path", index);
	json_object *arguments;
	const char *command = string_member(entry, "command");
	memset(out, 0, sizeof(*out));
	if (json_object_object_get_ex(entry, "arguments", &arguments)) {
		if (!json_object_is_type(arguments, json_type_array))
			return error_set(error, path, 1, "entry %u: \"arguments\" is not an array", index);
		for (size_t i = 0; i < json_object_array_length(arguments); i++) {
			json_object *word = json_object_array_get_idx(arguments, i);
			if (!json_object_is_type(word, json_type_string)) {
				cg_list_free(&out->words);
				return error_set(error, path, 1, "entry %u: argument %zu is not a string", index, i);
			}
			cg_list_add(&out->words, json_object_get_string(word));
		}
	} else if (command) {
		split_command(command, &out->words);
	} else {
		return error_set(error, path, 1, "entry %u has no \"arguments\" or \"command\"", index);
	}
	out->directory = directory;
	out->file = absolute(directory, file);
	return 0;
}

static const char *relative_to(const char *root, const char *path)
{
	size_t length = strlen(root);
	return !strncmp(path, root, length) && path[length] == '/' ? path + length + 1 : path;
}

/* Entries of distinct files (a file's first entry wins: the work is bounded
 * by the files, not by how often a database repeats one). */
static int read_entries(json_object *root, const char *path, struct database_entry **entries,
			size_t *count, struct error *error)
{
	size_t total = json_object_array_length(root), capacity = 0;
	struct cg_strings seen = { 0 };
	int status = 0;
	*entries = NULL;
	*count = 0;
	for (size_t i = 0; i < total && !status; i++) {
		struct database_entry entry;
		status = read_entry(json_object_array_get_idx(root, i), path, (unsigned)i, &entry, error);
		if (status)
			break;
		size_t before = seen.count;
		if (cg_intern(&seen, entry.file) == before) {
			array_reserve(entries, &capacity, *count + 1, sizeof(**entries));
			(*entries)[(*count)++] = entry;
		} else {
			free(entry.file);
			cg_list_free(&entry.words);
		}
	}
	cg_strings_free(&seen);
	return status;
}

static void free_entries(struct database_entry *entries, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(entries[i].file);
		cg_list_free(&entries[i].words);
	}
	free(entries);
}

static void plan_entries(const struct analyzer_options *options, const char *cache_dir,
			 struct source_plan *plan, struct database_entry *entries, size_t count)
{
	char resolved[PATH_MAX];
	plan->root = xstrdup(realpath(entries[0].directory, resolved) ? resolved : entries[0].directory);
	plan->roots = (struct read_roots){
		.tree = strcmp(plan->root, "/") ? xstrdup(plan->root) : NULL,
		.cache = cache_dir && realpath(cache_dir, resolved) ? xstrdup(resolved) : NULL,
	};
	const struct read_roots *roots = &plan->roots;
	size_t matching = 0;
	for (size_t i = 0; i < count; i++)
		matching += wanted(options, relative_to(plan->root, entries[i].file));
	for (size_t i = 0; i < count; i++) {
		if (matching && !wanted(options, relative_to(plan->root, entries[i].file)))
			continue;
		struct cg_list arguments = { 0 };
		database_arguments(plan, roots, entries[i].words.items, entries[i].words.count,
				   entries[i].directory, entries[i].file, &arguments);
		add_job(plan, xstrdup(entries[i].file), entries[i].directory, &arguments);
		cg_list_free(&arguments);
	}
}

static int database_plan(const struct analyzer_options *options, const char *cache_dir,
			 struct source_plan *plan, struct error *error)
{
	struct buffer input = { 0 };
	if (file_read_input(options->source, "compile database", FILE_LIMIT_COMPILE_DB_BYTES, &input, error)) {
		buffer_free(&input);
		return -1;
	}
	size_t size = input.length;
	buffer_reserve(&input, 0);   /* an empty file still gets its NUL */
	char *text = buffer_release(&input);
	json_tokener *tokener = json_tokener_new();
	json_object *root = json_tokener_parse_ex(tokener, text, (int)size);
	enum json_tokener_error parsed = json_tokener_get_error(tokener);
	if (!root || parsed != json_tokener_success || !json_object_is_type(root, json_type_array)) {
		size_t offset = json_tokener_get_parse_end(tokener);
		error_set(error, options->source, line_of_offset(text, offset), "%s",
			  root && parsed == json_tokener_success ? "not a JSON array of compile commands"
								 : json_tokener_error_desc(parsed));
		json_tokener_free(tokener);
		json_object_put(root);
		free(text);
		return -1;
	}
	json_tokener_free(tokener);
	struct database_entry *entries;
	size_t count;
	int status = read_entries(root, options->source, &entries, &count, error);
	if (!status && count)
		plan_entries(options, cache_dir, plan, entries, count);
	else if (!status)
		status = error_set(error, options->source, 1, "no compile commands");
	plan->arch = xstrdup("");
	plan->config = xstrdup("compile_commands.json");
	free_entries(entries, count);
	json_object_put(root);
	free(text);
	return status;
}

int sources_plan(const struct analyzer_options *options, const char *cache_dir,
		 struct source_plan *plan, struct error *error)
{
	memset(plan, 0, sizeof(*plan));
	if (cg_is_dir(options->source))
		return tree_plan(options, cache_dir, plan, error);
	if (cg_is_file(options->source))
		return database_plan(options, cache_dir, plan, error);
	return error_set(error, options->source, 0, "no such kernel tree or compile_commands.json");
}

void sources_free(struct source_plan *plan)
{
	for (size_t i = 0; i < plan->job_count; i++) {
		free(plan->jobs[i].path);
		free(plan->jobs[i].directory);
		cg_list_free(&plan->jobs[i].arguments);
		tu_facts_free(&plan->jobs[i].facts);
		free(plan->jobs[i].refused);
	}
	FREE_ALL(plan->jobs, plan->root, plan->arch, plan->release, plan->config, plan->roots.tree,
		 plan->roots.cache, plan->compat);
	cg_list_free(&plan->dropped_names);
	memset(plan, 0, sizeof(*plan));
}
