/*
 * base/decompress.h - the decompressors a libarchive reader may use.
 *
 * archive_read_support_filter_all() also enables lzop, lrzip, grzip, lzip
 * and others that libarchive runs as external programs found on $PATH:
 * reading a crafted snapshot as root would run whatever `lzop` comes first.
 * Every reader enables filters here instead: gzip, bzip2, xz/lzma, zstd and
 * lz4, each only when libarchive was built with its library (libarchive
 * would otherwise fall back to the external program), so no program runs
 * but ptscope.
 */
#ifndef PTSCOPE_BASE_DECOMPRESS_H
#define PTSCOPE_BASE_DECOMPRESS_H

struct archive;

/* Enable the built-in decompression filters on a read archive; 0 or -1. */
int decompress_enable_builtin(struct archive *archive);

#endif
