/*
 * base/decompress.c - libarchive's in-process decompressors only (see
 * decompress.h for why never archive_read_support_filter_all).
 */
#include <archive.h>
#include <stddef.h>

#include "base/decompress.h"

/* A filter and the library that makes libarchive decode it in-process. */
static const struct {
	int (*enable)(struct archive *);
	const char *(*library)(void);   /* NULL return: not built in */
} builtin_filters[] = {
	{ archive_read_support_filter_gzip,  archive_zlib_version },
	{ archive_read_support_filter_bzip2, archive_bzlib_version },
	{ archive_read_support_filter_xz,    archive_liblzma_version },
	{ archive_read_support_filter_lzma,  archive_liblzma_version },
	{ archive_read_support_filter_zstd,  archive_libzstd_version },
	{ archive_read_support_filter_lz4,   archive_liblz4_version },
};

int decompress_enable_builtin(struct archive *archive)
{
	for (size_t i = 0; i < sizeof(builtin_filters) / sizeof(builtin_filters[0]); i++) {
		if (!builtin_filters[i].library())
			continue;
		/* ARCHIVE_WARN would mean "through an external program" */
		if (builtin_filters[i].enable(archive) != ARCHIVE_OK)
			return -1;
	}
	return 0;
}
