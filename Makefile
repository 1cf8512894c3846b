# Thin wrapper over meson/ninja. `make demo` and `make test` are the two set-up commands.
BUILD ?= build
ASAN_BUILD ?= build-asan
ASAN_SUITES ?= unit cli-asan fuzz
PREFIX ?= /usr/local
MESON_FLAGS ?= -Dwerror=true
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps build test test-run test-asan test-asan-run test-asan-build test-asan-tests test-asan-cli test-fuzz demo bench install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS) --prefix=$(PREFIX)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Every test of the build (gcc); then, in build-asan (clang, AddressSanitizer + UBSan, libFuzzer
# coverage), the unit tests, the cli-asan scenarios against a sanitized tether and plugins, and
# the fuzz targets of fuzz/. Both builds come first; then one throwaway Ceph object gateway
# (tests/s3/with-cluster --shared) serves every S3 test of both runs, one bucket per test. The
# last line is the total: `N passed, N failed, N skipped`.
test: build $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-build
	@tests/s3/with-cluster --shared $(MAKE) --no-print-directory test-run

test-run:
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs --num-processes 2 || rc=1; \
	$(MAKE) --no-print-directory test-asan-tests || rc=1; \
	scripts/test-summary $(BUILD) $(ASAN_BUILD) || rc=1; \
	exit $$rc

# One sanitizer build serves the unit tests, the CLI scenarios and the fuzz targets: clang (for
# libFuzzer), -Dfuzz=true, ASan + UBSan. Only what those tests run is built (scripts/test-targets).
$(ASAN_BUILD)/build.ninja:
	CC="$$(command -v ccache >/dev/null && echo 'ccache ')clang" \
	CXX="$$(command -v ccache >/dev/null && echo 'ccache ')clang++" \
	  meson setup $(ASAN_BUILD) $(MESON_FLAGS) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false

test-asan: deps $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-run; scripts/test-summary $(ASAN_BUILD)

# Leak reports (detect_leaks=1) and the first UBSan report fail the run; a fuzz target fails on
# its first crash (fuzz/run).
test-asan-run: test-asan-build
	@tests/s3/with-cluster --shared $(MAKE) --no-print-directory test-asan-tests

test-asan-build:
	ninja -C $(ASAN_BUILD) build.ninja  # reconfigure first if a meson.build changed, so the target list is current
	ninja -C $(ASAN_BUILD) $$(scripts/test-targets $(ASAN_BUILD) $(ASAN_SUITES))

test-asan-tests:
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(ASAN_BUILD) --no-rebuild $(addprefix --suite ,$(ASAN_SUITES)) --print-errorlogs --num-processes 2

# Just the fuzz targets, or just the sanitized CLI scenarios.
test-fuzz: deps $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-run ASAN_SUITES=fuzz; scripts/test-summary $(ASAN_BUILD)

test-asan-cli: deps $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-run ASAN_SUITES=cli-asan; scripts/test-summary $(ASAN_BUILD)

demo: build
	@scripts/demo $(BUILD)

bench: build
	@bench/run $(BUILD)

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
