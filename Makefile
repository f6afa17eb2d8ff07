# ptscope - build, deps, check, bench, install.
#
#   make run     install missing Debian packages, build, report on this machine
#   make check   install missing packages, build, run every test suite
#   make check SANITIZE=1   the same under AddressSanitizer + UBSan
#   make bench   speed figures side by side with smem, cflow, clang and cat

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
CACHE   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ptscope

# Debian packages the project needs (checked and installed by `make deps`).
PACKAGES = libclang-14-dev llvm-14-dev clang-14 libclang-rt-14-dev libgraphviz-dev libxml2-dev \
           libcunit1-dev libarchive-dev libjson-c-dev pkg-config smem \
           xz-utils zstd cflow linux-config-6.1 smemcap time python3 jq

LLVM_CONFIG ?= llvm-config-14
PKGS     = libxml-2.0 libarchive libgvc libcgraph json-c
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CLANG_INC  := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)

CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(if $(CLANG_INC),-I$(CLANG_INC))
LDLIBS  += $(PKG_LIBS) -ldl -lpthread -lm

ifeq ($(SANITIZE),1)
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  BUILD   := $(BUILD)-sanitize
endif

DIRS     = base inputs model analyzer outputs
LIB_SRC  = $(foreach d,$(DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/unit/test_*.c)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/unit/main.o
# Files generated at build time from data (kernel profiles, schema).
GENERATED = $(BUILD)/model/builtin_profiles.h

PROGRAM  = $(if $(filter 1,$(SANITIZE)),$(BUILD)/ptscope,ptscope)

.PHONY: all deps run check unit cli bench fuzz install clean kernel-source
all: $(PROGRAM)

$(PROGRAM): $(BUILD)/ptscope.o $(BUILD)/libptscope.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libptscope.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c $(GENERATED)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(WARN) $(CFLAGS) -MMD -MP -c -o $@ $<

# Built-in kernel profiles: every model/profiles/*.xml compiled in as a string.
$(BUILD)/model/builtin_profiles.h: $(sort $(wildcard model/profiles/*.xml model/profiles/*.xsd)) model/embed.sh
	@mkdir -p $(dir $@)
	sh model/embed.sh $(sort $(wildcard model/profiles/*.xml model/profiles/*.xsd)) > $@.tmp && mv $@.tmp $@

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
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcunit

deps:
	@sh tests/deps.sh $(PACKAGES)

run: deps
	$(MAKE) all
	./ptscope report

check: deps
	$(MAKE) $(PROGRAM) $(BUILD)/unit-tests
	sh tests/check.sh $(BUILD)/unit-tests $(PROGRAM)

unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

cli: $(PROGRAM)
	sh tests/check.sh --cli-only $(BUILD)/unit-tests $(PROGRAM)

# Debian's linux-source-6.1, unpacked once into the cache (never into the repo).
kernel-source:
	@sh tests/kernel-source.sh "$(CACHE)" 6.1 && sh tests/kernel-source.sh "$(CACHE)" 6.12

bench: deps $(PROGRAM)
	sh tests/bench/run.sh ./$(PROGRAM) "$(CACHE)"

# libFuzzer over every parser (clang's libFuzzer runtime: libclang-rt-14-dev):
# snapshot members and whole archives (through the model and every report
# format), kernel profile XML, profile text, kbuild Makefiles and .config,
# compile_commands.json.  `sh tests/fuzz/run.sh SECONDS` runs them all.
FUZZ_TARGETS = fuzz_members fuzz_archive fuzz_profile_xml fuzz_profile_text fuzz_kbuild fuzz_compile_commands
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang-14 CFLAGS="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link" build-fuzz/libptscope.a
	for target in $(FUZZ_TARGETS); do \
		clang-14 $(CPPFLAGS) -Ibuild-fuzz $(WARN) $(FUZZ_CFLAGS) -o build-fuzz/$$target \
			tests/fuzz/$$target.c build-fuzz/libptscope.a $(LDLIBS) || exit 1; \
	done

install: ptscope
	install -D -m 755 ptscope $(DESTDIR)$(PREFIX)/bin/ptscope

clean:
	rm -rf build build-sanitize build-fuzz build-clang ptscope

-include $(LIB_OBJ:.o=.d) $(BUILD)/ptscope.d $(TEST_OBJ:.o=.d)
