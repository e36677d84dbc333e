# archcheck: GNU Makefile.
#
#   make              build build/archcheck and build/libarchcheck.a
#   make test         install missing dependencies, build, run every test, print "N passed, N failed"
#   make asan         the same tests under AddressSanitizer and UBSan (in build/asan)
#   make valgrind     representative end-to-end runs of the binary under valgrind (memcheck)
#   make demo         check a sample architecture and write its report
#   make bench        run the benchmarks in bench/ (not part of make test)
#   make accuracy     stated errors against the simulator on ACCURACY_COUNT random models
#   make fuzz         libFuzzer (clang): parser, analysis, units, search for FUZZ_SECONDS each
#   make install      PREFIX (/usr/local) and DESTDIR honoured
#   make format       clang-format every source file
#   make WERROR=1     turn warnings into errors (CI does)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/archcheck
BUILD      ?= build
FUZZ_SECONDS ?= 60

CC         ?= cc
CFLAGS     ?= -O2 -g
WARNINGS   := -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion \
              -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition \
              -Wformat=2 -Wundef -Wcast-qual -Wwrite-strings -Wpointer-arith \
              -Wnull-dereference -Wredundant-decls -Wmissing-declarations
ifeq ($(WERROR),1)
WARNINGS   += -Werror
endif
PKGS       := libxml-2.0 gsl
# Evaluated when a recipe runs, not when the Makefile is read: on a bare machine `make demo`
# installs pkg-config and the libraries (scripts/deps.sh) before the first compilation.
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libharu and SUNDIALS (CVODE, the transient's integrator) ship no pkg-config file on Debian.
SUNDIALS_LIBS = -lsundials_cvode -lsundials_sunlinsolklu -lklu -lsundials_sunmatrixsparse \
              -lsundials_nvecserial
LIBS        = $(PKG_LIBS) $(SUNDIALS_LIBS) -lhpdf -lm -pthread
TEST_LIBS   = $(shell pkg-config --libs cmocka 2>/dev/null)
ALL_CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -DAC_VERSION=\"$(VERSION)\" \
              -Iinclude -I. -I$(BUILD)/gen $(PKG_CFLAGS) -isystem /usr/include/suitesparse $(WARNINGS) $(CFLAGS) $(SAN_FLAGS) -MMD -MP

MODULES    := common parser solver sim analysis search report
LIB_SRCS   := $(foreach m,$(MODULES),$(sort $(wildcard $(m)/*.c)))
CLI_SRCS   := $(sort $(wildcard cli/*.c))
TEST_SRCS  := $(sort $(wildcard tests/test_*.c))
GEN_SRCS   := $(BUILD)/gen/schema_xsd.c

LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/schema_xsd.o
CLI_OBJS   := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
LIB        := $(BUILD)/libarchcheck.a
BIN        := $(BUILD)/archcheck

.PHONY: all test asan valgrind demo bench accuracy fuzz fuzz-lib install uninstall format clean deps check-deps
.DEFAULT_GOAL := all

all: $(BIN) $(LIB)

$(BUILD)/gen/schema_xsd.c: schema/archcheck.xsd scripts/embed.sh
	@mkdir -p $(@D)
	sh scripts/embed.sh ac_parser_schema_xsd $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/schema_xsd.o: $(BUILD)/gen/schema_xsd.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJS) $(LIB)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LIBS)

$(BUILD)/tests/%: tests/%.c tests/helpers.h $(LIB) $(BIN)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DAC_TEST_BIN=\"$(abspath $(BIN))\" -DAC_SOURCE_DIR=\"$(CURDIR)\" \
	    -o $@ $< $(LIB) $(TEST_LIBS) $(LIBS)

# The accuracy harness (tests/accuracy.h): linked into test_accuracy and bench/accuracy.
ACC_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tests/accuracy_*.c)))
ACCURACY_COUNT ?= 1000
ACCURACY_SEED  ?= 1

$(BUILD)/tests/test_accuracy: tests/test_accuracy.c tests/helpers.h $(ACC_OBJS) $(LIB) $(BIN)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ACC_OBJS) $(LIB) $(TEST_LIBS) $(LIBS)

$(BUILD)/bench/accuracy: bench/accuracy.c $(ACC_OBJS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ACC_OBJS) $(LIB) $(LIBS)

accuracy: $(BUILD)/bench/accuracy
	$(BUILD)/bench/accuracy --count $(ACCURACY_COUNT) --seed $(ACCURACY_SEED) --out $(BUILD)/accuracy

deps check-deps:
	@sh scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(TEST_BINS)
	@sh scripts/run-tests.sh $(TEST_BINS)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan CFLAGS="-O1 -g" \
	    SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

valgrind: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/valgrind.sh $(BIN)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(BIN)

bench: all
	@$(MAKE) --no-print-directory -C bench BUILD=$(abspath $(BUILD)) run

FUZZ_CC ?= clang
# fuzz/fuzz_<target>.c, one after the other, each for FUZZ_SECONDS (or FUZZ_SECONDS_<target>)
# on build/fuzz/corpus_<target> (seeded with the samples at run time for parser and analysis)
# and the committed FUZZ_DIRS_<target>. Findings go to build/fuzz/<target>-crash-... (and
# -timeout-, -oom-); UBSan reports are fatal.
FUZZ_TARGETS ?= parser analysis units search
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_MAXLEN_parser   := 65536
FUZZ_MAXLEN_analysis := 16384
FUZZ_MAXLEN_units    := 256
FUZZ_MAXLEN_search   := 16384
FUZZ_SEEDS_parser    := samples/*.xml samples/bad/*.xml
FUZZ_SEEDS_analysis  := samples/*.xml samples/bad/*.xml
FUZZ_SEEDS_search    := samples/*.xml
FUZZ_DIRS_parser     := fuzz/corpus
FUZZ_DIRS_analysis   := fuzz/corpus
FUZZ_DIRS_units      := fuzz/corpus_units
FUZZ_DIRS_search     := fuzz/corpus
FUZZ_DICT_parser     := fuzz/archcheck.dict
FUZZ_DICT_analysis   := fuzz/archcheck.dict
FUZZ_DICT_units      := fuzz/units.dict
FUZZ_DICT_search     := fuzz/archcheck.dict
FUZZ_TIMEOUT_analysis := 30
FUZZ_TIMEOUT_search   := 30
fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))

fuzz-lib: deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=$(FUZZ_CC) CFLAGS="-O1 -g" \
	    SAN_FLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzz/libarchcheck.a

fuzz-%: fuzz-lib
	$(FUZZ_CC) -std=c11 -Iinclude -I. $(PKG_CFLAGS) -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) \
	    -o build/fuzz/fuzz_$* fuzz/fuzz_$*.c build/fuzz/libarchcheck.a $(LIBS)
	@mkdir -p build/fuzz/corpus_$*
	$(if $(FUZZ_SEEDS_$*),cp $(FUZZ_SEEDS_$*) build/fuzz/corpus_$*/)
	build/fuzz/fuzz_$* -max_total_time=$(or $(FUZZ_SECONDS_$*),$(FUZZ_SECONDS)) \
	    -max_len=$(FUZZ_MAXLEN_$*) -timeout=$(or $(FUZZ_TIMEOUT_$*),10) -rss_limit_mb=2048 \
	    -print_final_stats=1 -dict=$(FUZZ_DICT_$*) -artifact_prefix=build/fuzz/$*- \
	    build/fuzz/corpus_$* $(FUZZ_DIRS_$*)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/archcheck
	install -m 644 doc/archcheck.1 $(DESTDIR)$(MANDIR)/man1/archcheck.1
	install -m 644 schema/archcheck.xsd $(DESTDIR)$(DATADIR)/archcheck.xsd

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/archcheck $(DESTDIR)$(MANDIR)/man1/archcheck.1 \
	    $(DESTDIR)$(DATADIR)/archcheck.xsd

format:
	clang-format -i $$(find include common parser solver sim search analysis report cli tests fuzz bench \
	    -name '*.[ch]' 2>/dev/null)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/tests -name '*.d' 2>/dev/null)
