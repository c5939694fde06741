# electra.c — see README.md. Targets: all test bench bench-large run install uninstall clean.
# Switches: SANITIZE=address,undefined  PORTABLE=1 (no -march=native)  DEBUG=1
#           MPI=1|0 (data-parallel electra-train over Open MPI; default: 1 when
#           pkg-config finds ompi-c, i.e. Debian's libopenmpi-dev is installed)
#           DNNL=0 (build without oneDNN: no int8 inference)
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
PYTHON ?= /usr/bin/python3

PKGS := openblas libmicrohttpd libcjson libuv libutf8proc hunspell sphinxbase
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

OPT := -O3 -march=native
ifdef PORTABLE
OPT := -O2 -mtune=generic -DEL_PORTABLE
endif
ifdef DEBUG
OPT := -O0
endif
SAN :=
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
OPT := -O1
endif

# oneDNN (libdnnl-dev) gives the int8 path (--dtype int8): used when its header
# is found; DNNL=0 builds without it (int8 is then refused at load).
DNNL ?= $(shell test -f /usr/include/oneapi/dnnl/dnnl.h && echo 1 || echo 0)
DNNL_CFLAGS :=
DNNL_LIBS :=
ifeq ($(DNNL),1)
DNNL_CFLAGS := -DEL_HAVE_DNNL
DNNL_LIBS := -ldnnl
endif

CFLAGS ?=
# -fno-trapping-math: we never read FP exception flags, and without it GCC 12
# will not if-convert the clamps in op_fastmath.h, leaving GELU, softmax and the
# Gumbel sampler scalar. It changes no arithmetic (unlike -ffast-math).
# -ffp-contract=fast: -std=c11 turns GCC's default contraction off, so a*b+c
# stayed a multiply and an add even where the CPU has FMA; contracted, the
# training ops' polynomials (GELU's erfc and exp, LayerNorm, Adam) take half
# the instructions (GELU forward 4.9 -> 2.1 ns per element, one AVX2 core).
# Results move by rounding only (one rounding instead of two per a*b+c).
override CFLAGS += -fno-trapping-math -ffp-contract=fast -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes -g $(OPT) \
  $(SAN) -fopenmp $(PKG_CFLAGS) $(DNNL_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) $(DNNL_LIBS) -lm -lpthread

# MPI (train/pretrain/dist.h): train/pretrain/dist_mpi.c with Open MPI, train/pretrain/dist_none.c
# without. The choice is recorded in $(BUILD)/mpi.flag so that switching it
# rebuilds the trainer's archive and relinks.
MPI ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c)
MPI_LIBS := $(shell pkg-config --libs ompi-c)
ifeq ($(MPI_LIBS),)
$(error MPI=1 but pkg-config finds no ompi-c: install libopenmpi-dev (deploy/install-deps.sh))
endif
XCFLAGS_train/pretrain/dist_mpi := $(MPI_CFLAGS)
LDLIBS += $(MPI_LIBS)
endif
MPI_FLAG := $(BUILD)/mpi.flag
$(shell mkdir -p $(BUILD) && (echo $(MPI) | cmp -s - $(MPI_FLAG) || echo $(MPI) > $(MPI_FLAG)))
# `make` alone builds everything (the first rule below would otherwise be the goal).
.DEFAULT_GOAL := all
print-mpi:
	@echo $(MPI)
# `make -s PORTABLE=1 print-cflags`: the compile flags (tests/e2e/test_portable_kernels.sh)
print-cflags:
	@echo $(CFLAGS)
override LDFLAGS += $(SAN) -fopenmp

# The layers (docs/ARCHITECTURE.md): each folder sees only the headers it may
# use, so an include across a layer boundary fails to compile. The folder is
# the first component of the source path (tests/ covers unit tests, benches
# and the reference driver).
#   nn/      tensors' ops, losses, RNG, the thread pool: nothing else
#   engine/  the library behind include/electra/, on nn/
#   common/  the option-table engine both programs share
#   train/   nn/ and common/, and of the engine only engine/internal/
#            (trainer_api.h, its one way in); -iquote keeps it to "..." includes
#   server/  the public API and common/ only
INC_nn := -Iinclude -Inn
INC_engine := -Iinclude -Inn -Iengine
INC_common := -Iinclude -Icommon
# lang/: the English the checker and the learner-error generator know (verb
#   forms, noun number, closed classes, spellings): include/ and the engine's
#   internal helpers only, so both programs can link it.
# train/ is arranged by job; each sub-folder sees the ones below it in this
# list and nothing above: report < data < model < vocab < pretrain < finetune
# < cmd (tests/e2e/test_layers.sh checks the same order).
INC_lang := -Iinclude -Ilang -iquote engine/internal
# check/: the grammar checker (corrections, types, LanguageTool's format) on
#   the public API and lang/; both programs link it.
INC_check := -Iinclude -Ilang -Icheck -iquote engine/shared
TRAIN_BASE := -Iinclude -Inn -Ilang -iquote engine/internal
INC_train/report := $(TRAIN_BASE) -Icommon -Itrain/report
INC_train/data := $(TRAIN_BASE) -Itrain/report -Itrain/data
INC_train/model := $(TRAIN_BASE) -Itrain/report -Itrain/data -Itrain/model
INC_train/vocab := $(TRAIN_BASE) -Itrain/report -Itrain/data -Itrain/vocab
INC_train/pretrain := $(TRAIN_BASE) -Icommon -Itrain/report -Itrain/data -Itrain/model -Itrain/vocab -Itrain/pretrain
INC_train/finetune := $(TRAIN_BASE) -Icommon -Itrain/report -Itrain/data -Itrain/model -Itrain/vocab -Itrain/pretrain -Itrain/finetune
INC_train/cmd := $(TRAIN_BASE) -Icheck -Icommon -Itrain/report -Itrain/data -Itrain/model -Itrain/vocab -Itrain/pretrain -Itrain/finetune -Itrain/cmd
TRAIN_SUBS := report data model vocab pretrain finetune cmd
INC_server := -Iinclude -Icommon -Ilang -Icheck -Iserver -iquote engine/shared
INC_tests := -Iinclude -Inn -Iengine -Iengine/internal -Iengine/shared -Icommon -Ilang -Icheck $(TRAIN_SUBS:%=-Itrain/%) -Iserver
# nn/ and engine/ are built with hidden visibility: only what the public
# headers mark (#pragma GCC visibility in include/electra/) has default
# visibility, so a shared build of libelectra would export the public API
# alone, and tests/e2e/test_layers.sh can tell public from internal in the
# archives. (Static linking is unaffected: hidden symbols still link within
# one program.)
VIS_nn := -fvisibility=hidden
VIS_engine := -fvisibility=hidden
VIS_lang := -fvisibility=hidden
VIS_check := -fvisibility=hidden
# A source's layer: its first folder, or for train/ its first two (train/data).
layer = $(if $(filter train,$(firstword $(subst /, ,$(1)))),train/$(word 2,$(subst /, ,$(1))),$(firstword $(subst /, ,$(1))))
# `make -s print-inc-server`, `print-inc-train-data`: a folder's include flags
# (tests/e2e/test_layers.sh; a sub-folder's / spelt -)
print-inc-%:
	@echo $(INC_$(subst -,/,$*))

NN_SRC := $(wildcard nn/*.c)
ENGINE_SRC := $(wildcard engine/*.c)
# common/: the internal pieces both programs share (the option-table engine)
COMMON_SRC := $(wildcard common/*.c)
LANG_SRC := $(wildcard lang/*.c)
CHECK_SRC := $(wildcard check/*.c)
TRAIN_SRC := $(filter-out train/cmd/main.c train/pretrain/dist_mpi.c train/pretrain/dist_none.c,$(wildcard train/*/*.c))
ifeq ($(MPI),1)
TRAIN_SRC += train/pretrain/dist_mpi.c
else
TRAIN_SRC += train/pretrain/dist_none.c
endif
SERVER_SRC := $(filter-out server/main.c,$(wildcard server/*.c))
TEST_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard tests/bench/*.c)

NN_OBJ := $(NN_SRC:%.c=$(BUILD)/%.o)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
LANG_OBJ := $(LANG_SRC:%.c=$(BUILD)/%.o)
CHECK_OBJ := $(CHECK_SRC:%.c=$(BUILD)/%.o)
TRAIN_OBJ := $(TRAIN_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# the corrupt-checkpoint driver of tests/reference/test_checkpoint_corrupt.sh
CKPT_DRIVER := $(BUILD)/tests/reference/checkpoint_driver

LIB_NN := $(BUILD)/libelectra_nn.a
LIB_ENGINE := $(BUILD)/libelectra.a
LIB_COMMON := $(BUILD)/libelectra_common.a
LIB_LANG := $(BUILD)/libelectra_lang.a
LIB_CHECK := $(BUILD)/libelectra_check.a
LIB_TRAIN := $(BUILD)/libelectra_train.a
LIB_SERVER := $(BUILD)/libelectra_server.a
BINS := $(BUILD)/bin/electra-train $(BUILD)/bin/electra-server

# The installable library (make install): the public API of include/electra/
# as libelectra.a (engine + nn objects) and a versioned libelectra.so built
# from the same sources compiled -fPIC; the hidden visibility of nn/ and
# engine/ makes it export the el_ API alone. The version is the header's
# EL_VERSION; the soname carries its major number.
EL_VERSION := $(shell sed -n 's/^\#define EL_VERSION "\(.*\)"/\1/p' include/electra/electra.h)
EL_SOMAJOR := $(firstword $(subst ., ,$(EL_VERSION)))
PIC_OBJ := $(NN_SRC:%.c=$(BUILD)/pic/%.o) $(ENGINE_SRC:%.c=$(BUILD)/pic/%.o)
LIB_STATIC := $(BUILD)/lib/libelectra.a
LIB_SHARED := $(BUILD)/lib/libelectra.so.$(EL_VERSION)

.PHONY: all lib deps test bench bench-large run install uninstall clean results results-ged results-ged-table fresh-test
# keep intermediate objects so a second make does not rebuild every test
.SECONDARY:
all: $(BINS) $(TEST_BIN) $(BENCH_BIN) $(CKPT_DRIVER) $(BUILD)/tests/electra-server-checkdouble

deps:
	@deploy/install-deps.sh --check >/dev/null 2>&1 || deploy/install-deps.sh

# Objects depend on the Makefile too: a change of flags (a folder's include
# paths, visibility) rebuilds them.
$(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_$(call layer,$*)) $(VIS_$(call layer,$*)) $(XCFLAGS_$*) -c $< -o $@

# Archives are rebuilt from scratch (rm first): `ar r` alone would keep the
# object of a source file that moved or was deleted.

$(BUILD)/pic/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC $(INC_$(call layer,$*)) $(VIS_$(call layer,$*)) -c $< -o $@
$(LIB_STATIC): $(NN_OBJ) $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
# --no-undefined: the library names every library it needs; --as-needed
# keeps only those (no libmicrohttpd or MPI for the engine).
$(LIB_SHARED): $(PIC_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libelectra.so.$(EL_SOMAJOR) -Wl,--no-undefined \
	  -Wl,--as-needed -o $@ $^ $(LDLIBS)
lib: $(LIB_STATIC) $(LIB_SHARED)

$(LIB_NN): $(NN_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIB_ENGINE): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIB_COMMON): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIB_CHECK): $(CHECK_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIB_LANG): $(LANG_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIB_TRAIN): $(TRAIN_OBJ) $(MPI_FLAG)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $(filter %.o,$^)
$(LIB_SERVER): $(SERVER_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/electra-train: $(BUILD)/train/cmd/main.o $(LIB_TRAIN) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bin/electra-server: $(BUILD)/server/main.o $(LIB_SERVER) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Tests link only the libraries their name asks for, so one half-written
# module does not block the others' tests: test_engine_* -> engine,
# test_train_* -> train + engine, test_server_* -> server + engine (both
# also link common/, the option engine they share).
$(BUILD)/tests/test_engine_%: $(BUILD)/tests/unit/test_engine_%.o $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_train_%: $(BUILD)/tests/unit/test_train_%.o $(LIB_TRAIN) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_lang_%: $(BUILD)/tests/unit/test_lang_%.o $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_check_%: $(BUILD)/tests/unit/test_check_%.o $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_server_%: $(BUILD)/tests/unit/test_server_%.o $(LIB_SERVER) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(LIB_TRAIN) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# The server with tests/double/check_double.c in place of the checker
# (tests/e2e/test_server_ltapi.sh uses it while check/check.c is not on
# this branch); never installed, not part of `all`.
$(BUILD)/tests/electra-server-checkdouble: $(BUILD)/server/main.o $(BUILD)/tests/double/check_double.o $(LIB_SERVER) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(CKPT_DRIVER): $(BUILD)/tests/reference/checkpoint_driver.o $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The README's test command. Installs missing Debian packages first.
test: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/bench/run.sh

# The ELECTRA-large-shaped model (tests/bench/bench_large.sh): 10-20 minutes, a 1.3 GB
# checkpoint, so not part of `make bench` unless BENCH_LARGE=1.
bench-large: deps
	@$(MAKE) --no-print-directory all
	@BENCH_LARGE=1 BUILD=$(BUILD) PYTHON=$(PYTHON) tests/bench/run.sh bench_large

run: deps
	@$(MAKE) --no-print-directory $(BINS)
	@BUILD=$(BUILD) deploy/run.sh

# make install PREFIX=/usr/local DESTDIR=: binaries to $(PREFIX)/bin; the
# systemd unit to $(SYSTEMDUNITDIR) (systemd looks in /usr/local/lib/systemd/system
# and /usr/lib/systemd/system; for another PREFIX pass
# SYSTEMDUNITDIR=/etc/systemd/system), its ExecStart pointing at $(PREFIX)/bin;
# the example options to $(PREFIX)/share/electra/ (copy to /etc/electra/ to use);
# both binaries' --help as text in $(PREFIX)/share/doc/electra/ and as man
# pages (deploy/man-page.sh wraps the same text); the library: include/electra/
# to $(PREFIX)/include/electra/, libelectra.a and libelectra.so.VERSION (with
# its soname and development links) to $(LIBDIR), electra.pc to
# $(LIBDIR)/pkgconfig (cc x.c $$(pkg-config --cflags --libs electra);
# docs/examples/score.c).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
EL_SHAREDIR = $(PREFIX)/share/electra
EL_DOCDIR = $(PREFIX)/share/doc/electra
EL_HEADERS := $(wildcard include/electra/*.h)
# what a static link of libelectra.a needs besides it (pkg-config --static)
EL_LIBS_PRIVATE = $(shell pkg-config --libs openblas libcjson libutf8proc) $(DNNL_LIBS) -lgomp -lm -lpthread
EL_SUMMARY_train := ELECTRA pretraining, fine-tuning and evaluation on CPU
EL_SUMMARY_server := batched REST inference for ELECTRA checkpoints
install: $(BINS) $(LIB_STATIC) $(LIB_SHARED)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(EL_SHAREDIR) $(DESTDIR)$(EL_DOCDIR) \
	  $(DESTDIR)$(PREFIX)/include/electra $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	sed 's|/usr/local/|$(PREFIX)/|g' deploy/electra-server.service >$(DESTDIR)$(SYSTEMDUNITDIR)/electra-server.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/electra-server.service
	install -m 644 deploy/electra-server.env $(DESTDIR)$(EL_SHAREDIR)/electra-server.env
	install -m 644 deploy/electra-server-int8.conf $(DESTDIR)$(EL_SHAREDIR)/electra-server-int8.conf
	deploy/help-docs.sh $(BUILD)/bin $(DESTDIR)$(EL_DOCDIR)
	chmod 644 $(DESTDIR)$(EL_DOCDIR)/*.txt
	deploy/man-page.sh $(DESTDIR)$(EL_DOCDIR)/electra-train.txt electra-train $(EL_VERSION) \
	  '$(EL_SUMMARY_train)' >$(DESTDIR)$(MANDIR)/man1/electra-train.1
	deploy/man-page.sh $(DESTDIR)$(EL_DOCDIR)/electra-server.txt electra-server $(EL_VERSION) \
	  '$(EL_SUMMARY_server)' >$(DESTDIR)$(MANDIR)/man1/electra-server.1
	chmod 644 $(DESTDIR)$(MANDIR)/man1/electra-train.1 $(DESTDIR)$(MANDIR)/man1/electra-server.1
	install -m 644 $(EL_HEADERS) $(DESTDIR)$(PREFIX)/include/electra/
	install -m 644 $(LIB_STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libelectra.so.$(EL_VERSION) $(DESTDIR)$(LIBDIR)/libelectra.so.$(EL_SOMAJOR)
	ln -sf libelectra.so.$(EL_SOMAJOR) $(DESTDIR)$(LIBDIR)/libelectra.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' -e 's|@VERSION@|$(EL_VERSION)|' \
	  -e 's|@LIBS_PRIVATE@|$(EL_LIBS_PRIVATE)|' deploy/electra.pc.in \
	  >$(DESTDIR)$(LIBDIR)/pkgconfig/electra.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/electra.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/electra-train $(DESTDIR)$(PREFIX)/bin/electra-server
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/electra-server.service
	rm -f $(DESTDIR)$(EL_SHAREDIR)/electra-server.env $(DESTDIR)$(EL_SHAREDIR)/electra-server-int8.conf
	rm -f $(DESTDIR)$(EL_DOCDIR)/electra-server.txt $(DESTDIR)$(EL_DOCDIR)/electra-train.txt
	rm -f $(DESTDIR)$(MANDIR)/man1/electra-server.1 $(DESTDIR)$(MANDIR)/man1/electra-train.1
	rm -f $(EL_HEADERS:include/%=$(DESTDIR)$(PREFIX)/include/%)
	rm -f $(DESTDIR)$(LIBDIR)/libelectra.a $(DESTDIR)$(LIBDIR)/libelectra.so.$(EL_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libelectra.so.$(EL_SOMAJOR) $(DESTDIR)$(LIBDIR)/libelectra.so \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/electra.pc
	rmdir $(DESTDIR)$(EL_SHAREDIR) $(DESTDIR)$(EL_DOCDIR) $(DESTDIR)$(PREFIX)/include/electra 2>/dev/null || true

# Slow deployment checks, outside `make test` (each debootstraps Debian 12 into
# a cached scratch folder; root needed). EL_FRESH_DIR picks the folder,
# EL_FRESH_ARGS passes options (e.g. --skip-test).
EL_FRESH_DIR ?= /var/tmp/electra-fresh
.PHONY: docker-check
fresh-test:
	tests/fresh/fresh_machine.sh $(EL_FRESH_ARGS) $(EL_FRESH_DIR)
docker-check:
	tests/fresh/docker_check.sh $(EL_FRESH_ARGS) $(EL_FRESH_DIR)

# The fine-tuning table of docs/RESULTS.md: pretrain on ../shared/data/corpus,
# fine-tune on each task next to a random init; long (about an hour on 2 cores).
results: $(BINS)
	scripts/results.sh $(RESULTS_ARGS)

# FCE dev F0.5 against CPU time for `recipe ged` with FCE data (docs/RESULTS.md,
# "recipe ged with FCE training data"): 10- and 60-minute budgets, 3 seeds, about 1.8 hours on 2 cores.
results-ged: $(BINS)
	scripts/ged_curve.sh $(RESULTS_GED_ARGS)

# The paper's question on GED (docs/RESULTS.md): random / RTD / MLM / RTD + learner
# errors / + synthetic stage at 20 and 60 minutes of pretraining, 3 seeds, FCE dev F0.5
# medians; ~14 CPU-hours (about 7 hours on 2 cores), resumable with the same --out.
results-ged-table: $(BINS)
	scripts/ged_table.sh $(RESULTS_GED_TABLE_ARGS)

# libFuzzer targets (tests/fuzz/README.md; needs clang and libclang-rt, from
# deploy/install-deps.sh --fuzz): every library rebuilt by clang under
# ASan/UBSan with fuzzer coverage in $(FUZZ_BUILD), one binary per target.
# make fuzz-smoke runs each for FUZZ_SECONDS (20) from its seed corpus and
# fails on the first target that crashes, leaks, times out or reports undefined
# behaviour (the input is kept as $(FUZZ_BUILD)/NAME-crash-*; .ci/run runs it);
# make fuzz only builds (run a target by hand, see tests/fuzz/README.md).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := request tokenizer safetensors config data ltcheck markdown wordfreq
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz_%)
.PHONY: fuzz fuzz-bins fuzz-smoke
fuzz:
	@deploy/install-deps.sh --fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang \
	  SANITIZE=fuzzer-no-link,address,undefined fuzz-bins
fuzz-bins: $(FUZZ_BINS)
$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIB_SERVER) $(LIB_TRAIN) $(LIB_COMMON) $(LIB_CHECK) $(LIB_LANG) $(LIB_ENGINE) $(LIB_NN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
fuzz-smoke: fuzz
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	  log=$(FUZZ_BUILD)/fuzz-$$t.log; \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -artifact_prefix=$(FUZZ_BUILD)/$$t- -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t >$$log 2>&1; \
	  rc=$$?; \
	  echo "fuzz-smoke: $$t: exit $$rc, $$(grep -o 'number_of_executed_units: [0-9]*' $$log)"; \
	  [ $$rc -eq 0 ] || { tail -40 $$log; exit 1; }; \
	done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
