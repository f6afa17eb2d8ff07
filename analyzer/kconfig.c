/*
 * analyzer/kconfig.c - a kernel configuration: read a .config (plain, or
 * compressed as Debian ships them in linux-config-*), and write the
 * autoconf.h that kconfig would generate from it, so that a tree that was
 * never configured parses as the configured kernel instead of as a
 * !CONFIG_MMU one.
 */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "base/decompress.h"

/* Whole file, bounded (base/file.h), then through libarchive's raw reader:
 * it undoes gzip, bzip2, xz, zstd and lz4, in-process only
 * (base/decompress.h), and the text it gives is bounded too. */
static int read_maybe_compressed(const char *path, char **text, size_t *size, struct error *error)
{
	struct buffer raw = { 0 };
	if (file_read_input(path, "configuration", FILE_LIMIT_CONFIG_BYTES, &raw, error)) {
		buffer_free(&raw);
		return -1;
	}
	struct archive *archive = archive_read_new();
	decompress_enable_builtin(archive);   /* never external programs (base/decompress.h) */
	archive_read_support_format_raw(archive);
	struct archive_entry *entry;
	bool ok = archive_read_open_memory(archive, raw.data ? raw.data : "", raw.length) == ARCHIVE_OK &&
		  archive_read_next_header(archive, &entry) == ARCHIVE_OK;
	bool too_big = false;
	struct buffer buffer = { 0 };
	char chunk[65536];
	la_ssize_t got = 0;
	while (ok && !too_big && (got = archive_read_data(archive, chunk, sizeof(chunk))) > 0) {
		buffer_add(&buffer, chunk, (size_t)got);
		too_big = buffer.length > FILE_LIMIT_CONFIG_BYTES;
	}
	if (ok && got < 0)
		ok = false;
	archive_read_free(archive);
	buffer_free(&raw);
	buffer_add(&buffer, "", 0);
	*text = buffer.data;
	*size = buffer.length;
	if (ok && !too_big)
		return 0;
	free(buffer.data);
	if (too_big)
		return error_set(error, path, 0, "more than %zu MiB decompressed: no configuration is that large",
				 FILE_LIMIT_CONFIG_BYTES >> 20);
	return error_set(error, path, 0, "cannot read the configuration");
}

void kconfig_set(struct kconfig *config, const char *name, const char *value)
{
	cg_values_set(&config->symbols, name, value ? xstrdup(value) : NULL);
}

const char *kconfig_get(const struct kconfig *config, const char *name)
{
	const char *value = cg_values_get(&config->symbols, name);
	return value && strcmp(value, "n") ? value : NULL;
}

const char *kconfig_value(const struct kconfig *config, const char *name)
{
	return cg_values_get(&config->symbols, name);
}

static bool is_symbol(const char *start, size_t length)
{
	if (length <= 7 || strncmp(start, "CONFIG_", 7))
		return false;
	for (size_t i = 7; i < length; i++)
		if (!isalnum((unsigned char)start[i]) && start[i] != '_')
			return false;
	return true;
}

/* "# CONFIG_X is not set": a defconfig's way of saying X=n against a
 * Kconfig default of y (kept as "n", which kconfig_get hides). */
static void not_set_line(struct kconfig *config, const char *line)
{
	char name[256];
	int end = 0;
	if (sscanf(line, "# %255[A-Za-z0-9_] is not set%n", name, &end) == 1 && end &&
	    !line[end] && is_symbol(name, strlen(name)))
		kconfig_set(config, name, "n");
}

/* One .config line: CONFIG_X=value, "# CONFIG_X is not set", comment or blank. */
static bool config_line(struct kconfig *config, char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '#')
		not_set_line(config, line);
	if (*line == '\0' || *line == '#')
		return true;
	char *equals = strchr(line, '=');
	if (!equals || !is_symbol(line, (size_t)(equals - line)))
		return false;
	*equals = '\0';
	kconfig_set(config, line, equals + 1);
	return true;
}

int kconfig_read(const char *path, struct kconfig *config, struct error *error)
{
	char *text;
	size_t size;
	if (read_maybe_compressed(path, &text, &size, error))
		return -1;
	if (memchr(text, '\0', size)) {
		free(text);
		return error_set(error, path, 1, "not a kernel .config (binary data)");
	}
	unsigned line_number = 0;
	for (char *line = text; line < text + size; ) {
		char *end = strchr(line, '\n');
		char *next = end ? end + 1 : text + size;
		if (end)
			*end = '\0';
		line_number++;
		size_t length = strlen(line);
		if (length && line[length - 1] == '\r')
			line[length - 1] = '\0';
		if (!config_line(config, line)) {
			free(text);
			return error_set(error, path, line_number,
					 "not a kconfig line (want CONFIG_NAME=value)");
		}
		line = next;
	}
	free(text);
	return 0;
}

/* What kconfig's autoconf.h says for each symbol: y -> 1, m -> NAME_MODULE 1,
 * anything else (numbers, "strings") as written. */
void kconfig_header(const struct kconfig *config, struct buffer *out)
{
	buffer_printf(out, "/* written by ptscope from a kernel .config */\n"
			      "#ifndef PTSCOPE_AUTOCONF_H\n#define PTSCOPE_AUTOCONF_H\n");
	for (size_t i = 0; i < config->symbols.names.count; i++) {
		const char *name = config->symbols.names.text[i];
		const char *value = config->symbols.values[i];
		if (!value || !*value || !strcmp(value, "n"))
			continue;
		if (!strcmp(value, "y"))
			buffer_printf(out, "#define %s 1\n", name);
		else if (!strcmp(value, "m"))
			buffer_printf(out, "#define %s_MODULE 1\n", name);
		else
			buffer_printf(out, "#define %s %s\n", name, value);
	}
	buffer_printf(out, "#endif\n");
}

void kconfig_free(struct kconfig *config)
{
	cg_values_free(&config->symbols);
}
