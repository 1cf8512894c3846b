# Thin wrapper over meson/ninja. `make demo` and `make test` are the two set-up commands.
BUILD ?= build
ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
MESON_FLAGS ?= -Dwerror=true
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps build test test-asan test-asan-run demo bench install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS) --prefix=$(PREFIX)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Every test of the build, then the unit tests under AddressSanitizer + UBSan; the last line
# is the total: `N passed, N failed, N skipped`.
test: build $(ASAN_BUILD)/build.ninja
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs --num-processes 2 || rc=1; \
	$(MAKE) --no-print-directory test-asan-run || rc=1; \
	scripts/test-summary $(BUILD) $(ASAN_BUILD) || rc=1; \
	exit $$rc

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(MESON_FLAGS) -Db_sanitize=address,undefined -Db_lundef=false

# The unit tests under AddressSanitizer + UBSan (building only what they need).
test-asan: deps $(ASAN_BUILD)/build.ninja
	@$(MAKE) --no-print-directory test-asan-run; scripts/test-summary $(ASAN_BUILD)

test-asan-run:
	ninja -C $(ASAN_BUILD) $$(scripts/test-targets $(ASAN_BUILD) unit)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(ASAN_BUILD) --no-rebuild --suite unit --print-errorlogs --num-processes 2

demo: build
	@scripts/demo $(BUILD)

bench: build
	@bench/run $(BUILD)

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
