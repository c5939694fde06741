# electra.c — see README.md. Targets: all test bench run install uninstall clean.
# Switches: SANITIZE=address,undefined  PORTABLE=1 (no -march=native)  DEBUG=1
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
PYTHON ?= /usr/bin/python3

PKGS := openblas libmicrohttpd libcjson libuv libutf8proc
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

OPT := -O3 -march=native
ifdef PORTABLE
OPT := -O2 -mtune=generic
endif
ifdef DEBUG
OPT := -O0
endif
SAN :=
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
OPT := -O1
endif

CFLAGS ?=
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes -g $(OPT) \
  $(SAN) -fopenmp -Iinclude -Iengine -Itrain -Iserver $(PKG_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) -lm -lpthread
override LDFLAGS += $(SAN) -fopenmp

ENGINE_SRC := $(wildcard engine/*.c)
TRAIN_SRC := $(filter-out train/main.c,$(wildcard train/*.c))
SERVER_SRC := $(filter-out server/main.c,$(wildcard server/*.c))
TEST_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard tests/bench/*.c)
TEST_SUPPORT := $(wildcard tests/support/*.c)

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TRAIN_OBJ := $(TRAIN_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

LIB_ENGINE := $(BUILD)/libelectra.a
LIB_TRAIN := $(BUILD)/libelectra_train.a
LIB_SERVER := $(BUILD)/libelectra_server.a
BINS := $(BUILD)/bin/electra-train $(BUILD)/bin/electra-server

.PHONY: all deps test bench run install uninstall clean results fresh-test
all: $(BINS) $(TEST_BIN) $(BENCH_BIN)

deps:
	@deploy/install-deps.sh --check >/dev/null 2>&1 || deploy/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB_ENGINE): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
$(LIB_TRAIN): $(TRAIN_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
$(LIB_SERVER): $(SERVER_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/bin/electra-train: $(BUILD)/train/main.o $(LIB_TRAIN) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bin/electra-server: $(BUILD)/server/main.o $(LIB_SERVER) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Tests link only the libraries their name asks for, so one half-written
# module does not block the others' tests: test_engine_* -> engine,
# test_train_* -> train + engine, test_server_* -> server + engine.
$(BUILD)/tests/test_engine_%: $(BUILD)/tests/unit/test_engine_%.o $(SUPPORT_OBJ) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_train_%: $(BUILD)/tests/unit/test_train_%.o $(SUPPORT_OBJ) $(LIB_TRAIN) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/test_server_%: $(BUILD)/tests/unit/test_server_%.o $(SUPPORT_OBJ) $(LIB_SERVER) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(SUPPORT_OBJ) $(LIB_TRAIN) $(LIB_ENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The README's test command. Installs missing Debian packages first.
test: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/bench/run.sh

run: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) deploy/run.sh

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/electra-train $(DESTDIR)$(PREFIX)/bin/electra-server

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
