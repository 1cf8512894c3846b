# Thin wrapper over meson/ninja. `make demo` and `make test` are the two set-up commands.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PREFIX ?= /usr/local
MESON_FLAGS ?= -Dwerror=true
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps build test test-asan test-asan-run test-asan-cli test-fuzz test-fuzz-run demo bench install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS) --prefix=$(PREFIX)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Every test of the build; then the unit tests under AddressSanitizer + UBSan (build-asan).
# The last line is the total: `N passed, N failed, N skipped`. Not yet part of it (they have
# not run green on a fresh clone of the merged tree): `make test-asan-cli` (the cli-asan
# scenarios against an ASan build of tether and the plugins) and `make test-fuzz`.
test: build $(ASAN_BUILD)/build.ninja
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs --num-processes 2 || rc=1; \
	$(MAKE) --no-print-directory test-asan-run || rc=1; \
	scripts/test-summary $(BUILD) $(ASAN_BUILD) || rc=1; \
	exit $$rc

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(MESON_FLAGS) -Db_sanitize=address,undefined -Db_lundef=false

# The unit tests and the cli-asan scenarios under AddressSanitizer + UBSan (building only what
# they need: the unit tests, tether and the plugins).
test-asan: deps $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-run; scripts/test-summary $(ASAN_BUILD)

# Leak reports (detect_leaks=1) and the first UBSan report fail the run.
test-asan-run:
	ninja -C $(ASAN_BUILD) $$(scripts/test-targets $(ASAN_BUILD) unit)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(ASAN_BUILD) --no-rebuild --suite unit --print-errorlogs --num-processes 2

# The cli-asan scenarios against an ASan + UBSan build of tether and the plugins.
test-asan-cli: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD) $$(scripts/test-targets $(ASAN_BUILD) cli-asan)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(ASAN_BUILD) --no-rebuild --suite cli-asan --print-errorlogs --num-processes 2; \
	  scripts/test-summary $(ASAN_BUILD)

# The fuzz targets (fuzz/): clang, ASan + UBSan, libFuzzer. Only the fuzz targets and what
# they link are built there.
$(FUZZ_BUILD)/build.ninja:
	CC="$$(command -v ccache >/dev/null && echo 'ccache ')clang" \
	CXX="$$(command -v ccache >/dev/null && echo 'ccache ')clang++" \
	  meson setup $(FUZZ_BUILD) $(MESON_FLAGS) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false

test-fuzz: deps $(FUZZ_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-fuzz-run; scripts/test-summary $(FUZZ_BUILD)

test-fuzz-run:
	ninja -C $(FUZZ_BUILD) $$(scripts/test-targets $(FUZZ_BUILD) fuzz)
	meson test -C $(FUZZ_BUILD) --no-rebuild --suite fuzz --print-errorlogs --num-processes 2

demo: build
	@scripts/demo $(BUILD)

bench: build
	@bench/run $(BUILD)

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
