# ptscope - build, deps, check, bench, install.
#
#   make run     install what building and running need, build, report on this
#                machine (through sudo when not root: `make run` as root or as
#                a user with sudo)
#   make check   also install the test tools, build, run every test suite
#   make check SANITIZE=1   the same under AddressSanitizer + UBSan
#   make check SUITE=NAME   one suite: a CUnit suite (base, model, ...) or tests/cli/NAME.sh
#   make check SUITE=NAME:TEST   one test of a CUnit suite;  sh tests/cli/NAME.sh runs one CLI test alone
#   make bench   speed figures side by side with smem, clang, cat and the kernel's
#                read floor, into docs/measurements.md (BENCH_ONLY=, BENCH_QUICK=1)
#   make fuzz    libFuzzer targets (clang-14)
#   make install [PREFIX=/usr/local] [DESTDIR=]   binaries, man pages, completion
#   make uninstall

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
CACHE   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ptscope

# Debian packages, by the target that needs them (`make deps` installs the
# missing ones of the lists a target names; tests/deps.sh uses sudo when not
# root).  Add a package to the one list whose target needs it.
#   BUILD: compile and link;  RUN: what the commands use at run time
#   CHECK: `make check` (tests);  BENCH: `make bench`;  FUZZ: `make fuzz`
PACKAGES_BUILD = gcc libc6-dev make pkg-config libclang-14-dev libgraphviz-dev libxml2-dev \
                 libarchive-dev libjson-c-dev libgsl-dev libsodium-dev
PACKAGES_RUN   = libclang1-14 man-db libgsl27 libsodium23
PACKAGES_CHECK = libcunit1-dev libcsv-dev smem smemcap cflow time python3 jq xz-utils zstd linux-config-6.1 \
                 linux-config-6.12 bash-completion debhelper dpkg-dev fakeroot libclang-19-dev llvm-19-dev \
                 clang-19 python3-jsonschema sqlite3 chromium lintian prometheus
PACKAGES_BENCH = smem cflow time jq clang-14 linux-source-6.1 linux-config-6.1
PACKAGES_FUZZ  = clang-14 libclang-rt-14-dev

# The version, written once in version.h.
VERSION := $(shell sed -n 's/^\#define PTSCOPE_VERSION "\(.*\)"/\1/p' version.h)
PKGS     = libxml-2.0 libarchive libgvc libcgraph json-c gsl libsodium
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libclang's C headers (clang-c/Index.h), from the newest libclang-N-dev; its
# C API is stable, and the library itself is opened at run time (analyzer/libclang.c).
CLANG_INC  := $(patsubst %/clang-c/Index.h,%,$(lastword $(sort $(wildcard /usr/lib/llvm-1[4-9]/include/clang-c/Index.h))))

# -O3: the readers' word-at-a-time loops unrolled and inlined; on the bench's
# text-only 2000 processes info took 0.95 of -O2's CPU time, report on the
# 4000 0.98, outputs byte-identical.  A package build sets its own (Debian's -O2).
CFLAGS  ?= -O3 -g
# -Werror for the developers' builds; a package build leaves it out (WERROR=),
# so a newer compiler's new warning cannot break the build of a release.
WERROR  ?= -Werror
WARN     = -std=c11 -Wall -Wextra $(WERROR)
CPPFLAGS += -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(if $(CLANG_INC),-I$(CLANG_INC))
LDLIBS  += $(PKG_LIBS) -ldl -lpthread -lm

ifeq ($(SANITIZE),1)
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  BUILD   := $(BUILD)-sanitize
  # the unit runner too: see tests/cli-common.sh (libsanitizer and dlopened TLS)
  export ASAN_OPTIONS ?= intercept_tls_get_addr=0
endif

DIRS     = base inputs model analyzer outputs builtin
LIB_SRC  = $(foreach d,$(DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/unit/test_*.c)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/unit/main.o
# Files generated at build time from data: the kernel profiles and schema;
# each command's option table from what it says of itself (builtin/help/).
COMMAND_HELP = $(sort $(wildcard builtin/help/*.txt))
GENERATED = $(BUILD)/model/builtin_profiles.h $(COMMAND_HELP:builtin/help/%.txt=$(BUILD)/builtin/%_options.h)

PROGRAM  = $(if $(filter 1,$(SANITIZE)),$(BUILD)/ptscope,ptscope)
# The capture alone, for production hosts: libc and libarchive only at run time.
CAPTURE_PROGRAM = $(if $(filter 1,$(SANITIZE)),$(BUILD)/ptscope-capture,ptscope-capture)
CAPTURE_LIBS := $(shell pkg-config --libs libarchive 2>/dev/null)

# The process bench forks (--like, --calibrate): the C library alone, linked
# statically (PIE), so its own VMAs are a handful; never sanitized (a static
# program cannot carry ASan's runtime), its objects built apart.
SUBJECT_PROGRAM = $(dir $(PROGRAM))ptscope-subject
SUBJECT_SRC = ptscope-subject.c inputs/subject.c inputs/latency.c inputs/tracepoints.c base/file.c base/alloc.c \
              base/array.c base/error.c
SUBJECT_OBJ = $(SUBJECT_SRC:%.c=$(BUILD)/subject/%.o)
SUBJECT_CFLAGS = $(filter-out -fsanitize% -fno-sanitize%,$(CFLAGS))
SUBJECT_LDFLAGS = $(filter-out -fsanitize%,$(LDFLAGS))

.PHONY: all deps deps-check deps-bench deps-fuzz run check unit cli bench fuzz install uninstall clean kernel-source
all: $(PROGRAM) $(CAPTURE_PROGRAM) $(SUBJECT_PROGRAM)

$(PROGRAM): $(BUILD)/ptscope.o $(BUILD)/libptscope.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Linked from the same archive: only the members capture needs come in, and a
# member that needed Graphviz, libxml2 or json-c would fail this link.
$(CAPTURE_PROGRAM): $(BUILD)/ptscope-capture.o $(BUILD)/libptscope.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(CAPTURE_LIBS)

$(SUBJECT_PROGRAM): $(SUBJECT_OBJ)
	$(CC) $(SUBJECT_LDFLAGS) -static-pie -o $@ $^ -lm

$(BUILD)/subject/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(WARN) $(SUBJECT_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libptscope.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Made before any object; which object reads which, its .d file says (-MMD).
$(BUILD)/%.o: %.c | $(GENERATED)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(WARN) $(CFLAGS) -MMD -MP -c -o $@ $<

# Built-in kernel profiles: every model/profiles/*.xml compiled in as a string.
$(BUILD)/model/builtin_profiles.h: $(sort $(wildcard model/profiles/*.xml model/profiles/*.xsd)) model/embed.sh
	@mkdir -p $(dir $@)
	sh model/embed.sh $(sort $(wildcard model/profiles/*.xml model/profiles/*.xsd)) > $@.tmp && mv $@.tmp $@

# (kept: made by a pattern, they would go as intermediate files after a build)
.SECONDARY: $(GENERATED)
$(BUILD)/builtin/%_options.h: builtin/help/%.txt builtin/help.awk
	@mkdir -p $(dir $@)
	awk -v command=$* -f builtin/help.awk $< > $@.tmp && mv $@.tmp $@

# Test runner: every tests/unit/test_*.c offers `void suite_NAME(void)`.
$(BUILD)/tests/unit/suites.h: $(TEST_SRC)
	@mkdir -p $(dir $@)
	grep -ho '^void suite_[a-z0-9_]*' $(TEST_SRC) | sed 's/^void \(.*\)/SUITE(\1)/' > $@.tmp
	mv $@.tmp $@
$(BUILD)/tests/unit/main.o: $(BUILD)/tests/unit/suites.h
$(BUILD)/tests/unit/main.o: tests/unit/main.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD) -DPTSCOPE_TESTS_DIR='"$(CURDIR)/tests"' $(WARN) $(CFLAGS) -c -o $@ $<
$(BUILD)/unit-tests: $(TEST_OBJ) $(BUILD)/libptscope.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcunit -lcsv

deps:
	@sh tests/deps.sh $(PACKAGES_BUILD) $(PACKAGES_RUN)
deps-check:
	@sh tests/deps.sh $(PACKAGES_BUILD) $(PACKAGES_RUN) $(PACKAGES_CHECK)
deps-bench:
	@sh tests/deps.sh $(PACKAGES_BUILD) $(PACKAGES_RUN) $(PACKAGES_BENCH)
deps-fuzz:
	@sh tests/deps.sh $(PACKAGES_BUILD) $(PACKAGES_FUZZ)

# As root the report is exact (pagemap PFNs); as a user, through sudo.
SUDO = $(if $(filter 0,$(shell id -u)),,sudo)
run: deps
	$(MAKE) all
	$(SUDO) ./ptscope report

check: deps-check
	$(MAKE) $(PROGRAM) $(CAPTURE_PROGRAM) $(SUBJECT_PROGRAM) $(BUILD)/unit-tests
	@# the fuzz targets follow the code they call: compiled (not run) on every check
	for target in $(FUZZ_TARGETS); do \
		$(CC) $(CPPFLAGS) -I$(BUILD) $(WARN) -fsyntax-only tests/fuzz/$$target.c || exit 1; \
	done
	sh tests/check.sh $(if $(SUITE),--suite $(SUITE)) $(BUILD)/unit-tests $(PROGRAM)

unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

cli: $(PROGRAM) $(SUBJECT_PROGRAM)
	sh tests/check.sh --cli-only $(BUILD)/unit-tests $(PROGRAM)

# Debian's linux-source-6.1, unpacked once into the cache (never into the repo).
kernel-source:
	@sh tests/kernel-source.sh "$(CACHE)" 6.1 && sh tests/kernel-source.sh "$(CACHE)" 6.12

# make bench: every bench in one run (about 25 min on 2 loaded cores), written
# whole to docs/measurements.md.  BENCH_ONLY="inputs report" (of: inputs report
# scale callgraph time) or BENCH_QUICK=1 (fewer pairs, smaller sizes) is a
# partial run, written to $(BUILD)/measurements.md instead.  A whole run also
# writes the README's figures, quoted from docs/measurements.md.
BENCH_ONLY ?=
BENCH_QUICK ?=
BENCH_OUT = $(if $(BENCH_ONLY)$(BENCH_QUICK),$(BUILD)/measurements.md,docs/measurements.md)
bench: deps-bench $(PROGRAM) $(SUBJECT_PROGRAM)
	BENCH_ONLY="$(BENCH_ONLY)" BENCH_QUICK="$(BENCH_QUICK)" sh tests/bench/run.sh ./$(PROGRAM) "$(CACHE)" $(BENCH_OUT)
	$(if $(BENCH_ONLY)$(BENCH_QUICK),,python3 tests/bench/readme-figures.py docs/measurements.md README.md)

# libFuzzer over every parser (clang's libFuzzer runtime: libclang-rt-14-dev):
# snapshot members and whole archives (through the model and every report
# format), kernel profile XML, profile text, kbuild Makefiles and .config,
# compile_commands.json.  `sh tests/fuzz/run.sh SECONDS` runs them all.
FUZZ_TARGETS = fuzz_members fuzz_archive fuzz_profile_xml fuzz_profile_text fuzz_kbuild fuzz_compile_commands
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz: deps-fuzz
	$(MAKE) BUILD=build-fuzz CC=clang-14 CFLAGS="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link" build-fuzz/libptscope.a
	for target in $(FUZZ_TARGETS); do \
		clang-14 $(CPPFLAGS) -Ibuild-fuzz $(WARN) $(FUZZ_CFLAGS) -o build-fuzz/$$target \
			tests/fuzz/$$target.c build-fuzz/libptscope.a $(LDLIBS) || exit 1; \
	done

# Where Debian puts them: PREFIX/bin, PREFIX/share/man/man1 and
# PREFIX/share/bash-completion/completions (one file, installed under each
# command's name: a copy, not a link, since ptscope-capture's package is
# installed without ptscope's).
BINDIR     = $(PREFIX)/bin
LIBEXECDIR = $(PREFIX)/libexec/ptscope
MAN1DIR    = $(PREFIX)/share/man/man1
COMPLETION = $(PREFIX)/share/bash-completion/completions
MANPAGES   = $(sort $(wildcard man/*.1))
INSTALLED  = $(BINDIR)/ptscope $(BINDIR)/ptscope-capture $(LIBEXECDIR)/ptscope-subject $(MANPAGES:man/%=$(MAN1DIR)/%) \
             $(COMPLETION)/ptscope $(COMPLETION)/ptscope-capture
install: ptscope ptscope-capture ptscope-subject
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPLETION)
	install -m 755 ptscope ptscope-capture $(DESTDIR)$(BINDIR)/
	install -m 755 ptscope-subject $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 $(MANPAGES) $(DESTDIR)$(MAN1DIR)/
	install -m 644 completion/ptscope $(DESTDIR)$(COMPLETION)/ptscope
	install -m 644 completion/ptscope $(DESTDIR)$(COMPLETION)/ptscope-capture

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2> /dev/null

clean:
	rm -rf build build-sanitize build-fuzz build-clang ptscope ptscope-capture ptscope-subject

-include $(LIB_OBJ:.o=.d) $(BUILD)/ptscope.d $(BUILD)/ptscope-capture.d $(TEST_OBJ:.o=.d) $(SUBJECT_OBJ:.o=.d)
