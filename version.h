/*
 * version.h - ptscope's one version string.
 *
 * `ptscope --version` prints it, capture writes it into snapshot.info
 * (`ptscope_version:`), and the report's JSON and XML carry it.  The Makefile
 * reads it from here (VERSION), the .deb's debian/changelog must agree
 * (tests/cli/install.sh checks), so it is written down once.
 */
#ifndef PTSCOPE_VERSION_H
#define PTSCOPE_VERSION_H

#define PTSCOPE_VERSION "0.9.0"

#endif
