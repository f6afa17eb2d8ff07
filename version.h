/*
 * version.h - the one version string of ptscope, printed by `ptscope
 * --version` and carried by every structured report ("version") beside the
 * report's own "schema" number (docs/report.schema.json).  Capture writes it
 * into snapshot.info (`ptscope_version:`).  The Makefile reads it from here
 * (VERSION); debian/changelog must agree (tests/cli/deb.sh checks).
 */
#ifndef PTSCOPE_VERSION_H
#define PTSCOPE_VERSION_H

#define PTSCOPE_VERSION "0.9.0"

/* Bumped when a structured report changes incompatibly (a key removed or
 * its meaning changed); new keys do not bump it. */
#define PTSCOPE_REPORT_SCHEMA 1

#endif
