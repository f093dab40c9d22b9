# dladbg -- an interactive debugger with an embedded NVDLA simulator.
#
#   make            build ./dladbg, build/libdlasim.a and the decoder plugins
#   make run        open the debugger on the built-in sample network
#   make check      every test suite, once plain and once under ASan+UBSan, after
#                   building everything with clang too (its warnings are errors)
#   make conformance  NVIDIA's traces and loadables from $(NVDLA_TESTDATA)
#   make bench      speed figures against a reference run in the same process
#   make fuzz       every libFuzzer harness of tests/fuzz for FUZZ_SECONDS each (clang)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Sources are found by wildcard: adding a file under sim/, sim/UNIT/, src/,
# src/STAGE/, ui/, plugins/ or tests/unit/ needs no edit here.

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
NVDLA_TESTDATA ?= ../shared/testdata
CC ?= cc
OPT ?= -O2
SAN ?=
VERSION := 0.1.0

WARN := -Wall -Wextra -Werror
CSTD := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
CPPFLAGS += -Isim -Isrc -Iui -Iplugins/include -I$(BUILD)/gen -DDLADBG_VERSION='"$(VERSION)"'
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# the fuzz build (make fuzz): libFuzzer's coverage instrumentation on everything
ifeq ($(SAN),fuzz)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
endif
CFLAGS ?= $(OPT) -g
# each function in a section of its own, so the link can place a run's
# functions together (HOT_TEXT below)
ALL_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(SANFLAGS) -ffunction-sections -MMD -MP
LDFLAGS_ALL := $(LDFLAGS) $(SANFLAGS)
# Objects are rebuilt when the compiler or its flags change (CC=clang, OPT=,
# a flag added here): by timestamps alone make kept objects compiled before
# -ffunction-sections came in, and the link's hot-text layout silently missed
# them (0.3 MiB more of the program resident).  The stamp is rewritten only
# when the line differs, so an unchanged build stays up to date.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(CC) $(CPPFLAGS) $(ALL_CFLAGS)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
LIBS := -lreadline -lncursesw -lcsv -ljpeg -lz -ldl -lm -pthread
TEST_LIBS := -lcmocka

# sim/ and src/ hold one folder per hardware unit / per stage of the data's way;
# sim/gen is the register database's generator, a host tool
SIM_SRC := $(wildcard sim/*.c $(filter-out sim/gen/%,$(wildcard sim/*/*.c)))
CORE_SRC := $(filter-out src/main.c src/tools/%,$(wildcard src/*.c src/*/*.c))
UI_SRC := $(wildcard ui/*.c)
# plugins/test_*.c are deliberately broken decoders, built only for the tests
PLUGIN_SRC := $(filter-out plugins/test_%.c,$(wildcard plugins/*.c))
TEST_PLUGIN_SRC := $(wildcard plugins/test_*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)
REGDB := $(wildcard share/regdb/*.regs)

GEN_C := $(BUILD)/gen/regdb_tables.c
SIM_OBJ := $(SIM_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/regdb_tables.o
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
UI_OBJ := $(UI_SRC:%.c=$(BUILD)/%.o)
PLUGINS := $(PLUGIN_SRC:plugins/%.c=$(BUILD)/plugins/%.so)
TEST_PLUGINS := $(TEST_PLUGIN_SRC:plugins/test_%.c=$(BUILD)/tests/plugins/%.so)
TESTS := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# tests/fuzz/fuzz_NAME.c: a libFuzzer harness (make fuzz) and, linked with the
# plain driver tests/fuzz/replay.c, the replay of its seeds and regression
# inputs that make check runs with any compiler.
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60

LIBSIM := $(BUILD)/libdlasim.a
# dladbg-mknet writes the project's sample networks; the example loadables are
# generated into $(BUILD)/samples at build time (never committed).
MKNET := $(BUILD)/dladbg-mknet
SAMPLES := $(BUILD)/samples/.written
LIBCORE := $(BUILD)/libdladbg.a
# The ncurses frontend in an archive of its own: what needs only the core
# (dladbg-mknet) is not relinked when ui/ changes.
LIBUI := $(BUILD)/libdladbg-ui.a
BIN := $(BUILD)/dladbg

.PHONY: all run check check-plain check-san test-build test-run conformance bench clean install deps deps-test \
	deps-bench deps-clang format fuzz fuzz-run
.DEFAULT_GOAL := all

all: deps $(BIN) $(PLUGINS) dladbg $(SAMPLES)

# The top-level ./dladbg is the plain build's binary; sanitizer builds live in build/asan.
# (copy then rename: works while an older ./dladbg is still running)
dladbg: $(BIN)
ifeq ($(BUILD),build)
	$(Q)cp $(BIN) $@.tmp && mv -f $@.tmp $@
endif

# ---------------------------------------------------------------- dependencies
# Header -> Debian package (bin/NAME: a command; lib/NAME: a library the linker
# must find as -lNAME, for headers that more than one package provides; py/NAME:
# a module of Debian's /usr/bin/python3, for tests only).  Missing
# packages are installed with apt-get when we are root or have password-less sudo;
# otherwise we stop and print the command.
define need_pkgs
	@missing=""; \
	for pair in $(1); do \
		hdr=$${pair%%:*}; pkg=$${pair##*:}; \
		case "$$hdr" in \
		bin/*) command -v $${hdr#bin/} >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
		py/*) /usr/bin/python3 -c "import $${hdr#py/}" >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
		lib/*) printf 'int main(void) { return 0; }\n' | \
			$(CC) -x c - -l$${hdr#lib/} -o /dev/null >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
		*) printf '#include <%s>\n' "$$hdr" | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
		esac; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; \
		elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; \
		else echo "dladbg: missing packages:$$missing"; \
			echo "run:  sudo apt-get install -y$$missing"; exit 1; fi; \
		echo "dladbg: installing$$missing"; \
		$$sudo apt-get install -y $$missing >/dev/null 2>&1 || \
		{ $$sudo apt-get update >/dev/null 2>&1 && $$sudo apt-get install -y $$missing >/dev/null; } || \
		{ echo "dladbg: could not install; run:  sudo apt-get install -y$$missing"; exit 1; }; \
	fi
endef

# A check that passed is remembered in a stamp of the build folder, so make
# runs it once (it took up to 1.6 s a call), and again when the Makefile (the
# package lists) changes; rm $(BUILD)/.deps-* checks again.
DEPS_STAMP = $(BUILD)/.deps-$(1)
define deps_remembered
	@mkdir -p $(@D) && touch $@
endef

deps: $(call DEPS_STAMP,build)
$(call DEPS_STAMP,build): Makefile
	$(call need_pkgs,ncurses.h:libncurses-dev readline/readline.h:libreadline-dev csv.h:libcsv-dev \
		jpeglib.h:libjpeg-dev zlib.h:zlib1g-dev)
	$(deps_remembered)

deps-test: deps $(call DEPS_STAMP,test)
$(call DEPS_STAMP,test): Makefile
	$(call need_pkgs,cmocka.h:libcmocka-dev bin/tmux:tmux bin/flatc:flatbuffers-compiler \
		py/numpy:python3-numpy)
	$(deps_remembered)

deps-bench: deps $(call DEPS_STAMP,bench)
$(call DEPS_STAMP,bench): Makefile
	$(call need_pkgs,cblas.h:libopenblas-dev lib/openblas:libopenblas-dev)
	$(deps_remembered)

deps-clang: deps $(call DEPS_STAMP,clang)
$(call DEPS_STAMP,clang): Makefile
	$(call need_pkgs,bin/clang:clang)
	$(deps_remembered)

# ---------------------------------------------------------------- build rules
# V=1 shows full command lines
Q := $(if $(V),,@)
# The MAC kernels are the hot loop of the convolution model, and pooling's
# row and column passes PDP's: let the compiler vectorise them (portable
# flags only; no -march).
$(addprefix $(BUILD)/sim/conv/,cmac.o cmac_simd.o cmac_fp16.o cmac_fp16_x86.o cmac_fp16_fma.o cmac_fp16_sliced.o) \
		$(BUILD)/sim/pdp/pdp_pool.o: HOT_CFLAGS := -O3

$(BUILD)/%.o: %.c $(FLAGS_STAMP) | $(GEN_C)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(HOT_CFLAGS) -c $< -o $@

$(BUILD)/regdb_gen: sim/gen/regdb_gen.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  HOSTCC  $<")
	$(Q)$(CC) $(CSTD) $(WARN) -O1 -g $< -o $@

# after deps (order-only): every object waits for this file, so under make -j
# nothing compiles against a header that deps is still installing
$(GEN_C): $(BUILD)/regdb_gen $(REGDB) | deps
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  GEN     $@")
	$(Q)$(BUILD)/regdb_gen $@.tmp $(REGDB) && mv $@.tmp $@

$(BUILD)/gen/regdb_tables.o: $(GEN_C) $(FLAGS_STAMP)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIBSIM): $(SIM_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBCORE): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBUI): $(UI_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# dladbg itself is linked as a fixed-address executable: as a PIE, the dynamic
# loader applies 10,000 relocations at start-up (240 KB of .rela.dyn read) and
# writes every page of .data.rel.ro (the register database's tables, 185 KB),
# all resident for the whole run whatever the network; without them a small
# network's peak RSS is 0.25 MiB lower (issue 34's memory target).
BIN_LDFLAGS := -no-pie
# Its calls into libc and libm are bound at start-up (223 of them), not at
# their first call: every forked child (a plugin's probe, export csv's
# decoding) made its first calls again, each a symbol lookup in the dynamic
# loader and page faults on its code and the GOT, some 12 of a dma export's
# 60 in the child (3-4 us each on the development VM) and half of a
# batch start-up's time with its eight probes.
BIN_LDFLAGS += -Wl,-z,now
# The small libraries are linked in from their Debian archives (libreadline-dev,
# libncurses-dev, libcsv-dev, libjpeg62-turbo-dev, zlib1g-dev ship them): as shared objects
# each cost its symbol tables, read at start-up, and the kernel maps 64 KiB of
# code around every page a call touches, 0.45-0.55 MiB of every run's RSS for a
# few dozen functions (a batch run calls next to nothing of readline or
# ncurses).  libc and libm stay shared: glibc's archives need a static libc.
BIN_LIBS := -Wl,-Bstatic -lreadline -lncursesw -ltinfo -lcsv -ljpeg -lz -Wl,-Bdynamic -ldl -lm -pthread
# The functions a batch run calls (share/hot-text.order, which
# tests/bench/hot_text.sh writes from callgrind runs of the bench's networks)
# are laid out together by gold: the kernel maps 64 KiB of code around every
# page a call touches, so spread over 1.4 MB of text they kept 0.85 MiB of it
# resident in a run of sample:lenet, 0.3-0.4 MiB more than packed (issue 34).
# Not in the sanitizer builds, nor without gold (the layout alone changes).
# The link's list adds what callgrind cannot see, the functions an AVX-512
# host runs, taken from the objects (tests/bench/hot_text_avx512.sh).
HOT_TEXT := share/hot-text.order
HOT_ORDER := $(BUILD)/hot-text.order
ifeq ($(SAN)$(shell command -v ld.gold >/dev/null 2>&1 || echo none),)
BIN_LDFLAGS += -fuse-ld=gold -Wl,--section-ordering-file=$(HOT_ORDER)
endif
$(HOT_ORDER): $(HOT_TEXT) tests/bench/hot_text_avx512.sh $(SIM_OBJ) $(CORE_OBJ)
	$(Q)sh tests/bench/hot_text_avx512.sh $(HOT_TEXT) $(SIM_OBJ) $(CORE_OBJ) > $@.tmp && mv $@.tmp $@
# The link's own stamp, like the objects' (FLAGS_STAMP): a flag added to
# BIN_LDFLAGS relinks dladbg without recompiling anything.
LINK_STAMP := $(BUILD)/.ldflags
LINK_NOW := $(CC) $(LDFLAGS_ALL) $(BIN_LDFLAGS) $(BIN_LIBS)
ifneq ($(file <$(LINK_STAMP)),$(LINK_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(LINK_STAMP),$(LINK_NOW))
endif
$(BIN): $(BUILD)/src/main.o $(LIBUI) $(LIBCORE) $(LIBSIM) $(HOT_ORDER) $(LINK_STAMP)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) $(BIN_LDFLAGS) $(filter-out $(HOT_ORDER) $(LINK_STAMP),$^) $(BIN_LIBS) -o $@

$(MKNET): src/tools/dladbg-mknet.c $(LIBCORE) $(LIBSIM)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $< $(LIBCORE) $(LIBSIM) $(LDFLAGS_ALL) $(LIBS) -o $@

$(SAMPLES): $(MKNET)
	@mkdir -p $(dir $@)
	$(MKNET) $(dir $@) && touch $@

$(BUILD)/plugins/%.so: plugins/%.c plugins/include/dladbg/decoder.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC.so   $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -shared $< -o $@

$(BUILD)/tests/plugins/%.so: plugins/test_%.c plugins/include/dladbg/decoder.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -shared $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIBUI) $(LIBCORE) $(LIBSIM)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC+LD   $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $< $(LIBUI) $(LIBCORE) $(LIBSIM) $(LDFLAGS_ALL) \
		$(TEST_LIBS) $(LIBS) -o $@

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_util.h \
		$(LIBUI) $(LIBCORE) $(LIBSIM)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC+LD   $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/fuzz $(ALL_CFLAGS) $< tests/fuzz/replay.c $(LIBUI) $(LIBCORE) \
		$(LIBSIM) $(LDFLAGS_ALL) $(LIBS) -o $@

$(BUILD)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(LIBUI) $(LIBCORE) $(LIBSIM)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  FUZZ    $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/fuzz $(ALL_CFLAGS) -fsanitize=fuzzer $< $(LIBUI) $(LIBCORE) \
		$(LIBSIM) $(LDFLAGS_ALL) $(LIBS) -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- use
# The main job: the debugger on the built-in sample network (sample:lenet).
run: all
	./dladbg

# Every suite twice: plain, then under AddressSanitizer + UndefinedBehaviorSanitizer.
# The second compiler only builds (its -Wall -Wextra -Werror catch what gcc's
# do not); the suites run on gcc's build, plain and sanitized.
check: deps-test deps-clang
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory BUILD=build/clang CC=clang test-build
	$(MAKE) --no-print-directory test-run
	$(MAKE) --no-print-directory BUILD=build/asan SAN=1 OPT=-O1 test-run

test-build: $(BIN) $(PLUGINS) $(TEST_PLUGINS) $(TESTS) $(SAMPLES) $(FUZZ_REPLAY)

test-run: test-build
	@BUILD=$(BUILD) SAN=$(SAN) sh tests/run.sh

# Every harness for FUZZ_SECONDS (niced, one at a time), in build/fuzz with
# clang's libFuzzer + ASan + UBSan; a crash is copied to tests/fuzz/regress/
# (make check replays it from then on) and fails the target.
fuzz: deps-clang
	$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang SAN=fuzz OPT=-O1 fuzz-run

fuzz-run: $(FUZZ_BINS)
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) NVDLA_TESTDATA=$(NVDLA_TESTDATA) \
		sh tests/fuzz/run.sh $(FUZZ_NAMES)

conformance: all
	@NVDLA_TESTDATA=$(NVDLA_TESTDATA) DLADBG=./dladbg sh tests/conformance.sh

bench: deps-bench
	$(MAKE) --no-print-directory all
	$(CC) $(CPPFLAGS) -Itests/bench $(CSTD) $(WARN) -O2 -g $(wildcard tests/bench/*.c) \
		$(LIBCORE) $(LIBSIM) -lopenblas $(LIBS) -o $(BUILD)/bench
	DLADBG_PLUGIN_PATH=$(BUILD)/plugins NVDLA_TESTDATA=$(NVDLA_TESTDATA) DLADBG_BENCH_CACHE=$(BUILD) \
		DLADBG=$(BIN) $(BUILD)/bench $(BENCH)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/dladbg/plugins \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/include/dladbg
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/dladbg
	install -m 644 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/dladbg/plugins/
	install -m 644 plugins/include/dladbg/decoder.h $(DESTDIR)$(PREFIX)/include/dladbg/
	install -m 644 share/dladbg.1 $(DESTDIR)$(PREFIX)/share/man/man1/dladbg.1

format:
	clang-format -i $(SIM_SRC) $(wildcard sim/*.h sim/*/*.h) $(CORE_SRC) src/main.c $(wildcard src/*/*.h) \
		$(UI_SRC) $(wildcard ui/*.h) $(PLUGIN_SRC) $(TEST_PLUGIN_SRC) $(wildcard plugins/*.h) \
		plugins/include/dladbg/decoder.h $(TEST_SRC) $(wildcard tests/unit/*.h tests/bench/*.c)

clean:
	rm -rf build dladbg
