# heapfs build.  `make` builds ./heapfs; `make check` runs every test and
# ends with one line "N passed, N failed".  SANITIZE=1 builds everything
# with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer on).
CC      ?= cc
PKGS    := fuse3 glib-2.0 libdw
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
           -I. $(shell pkg-config --cflags $(PKGS))
LDLIBS  := $(shell pkg-config --libs $(PKGS)) -lpthread -lm
ifeq ($(SANITIZE),1)
B       := build/san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
B       := build/rel
endif

LIB_SRC  := $(wildcard decoders/*.c) $(wildcard cache/*.c)
FS_SRC   := $(filter-out fs/main.c,$(wildcard fs/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
FS_OBJ   := $(FS_SRC:%.c=$(B)/%.o)
TESTS    := $(patsubst tests/%.c,$(B)/tests/%,$(wildcard tests/test_*.c))

.PHONY: all check unit demo bench clean heapfs fuzz
all: heapfs

heapfs: $(B)/heapfs
	ln -sf $< $@

$(B)/heapfs: $(B)/fs/main.o $(FS_OBJ) $(B)/libheapfs.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/libheapfs.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/%: tests/%.c $(FS_OBJ) $(B)/libheapfs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

unit: $(TESTS)

check: heapfs $(TESTS)
	@B=$(B) bash tests/run.sh $(TESTS)

# demo installs what it needs first, so it works on a fresh machine.
demo:
	bash contrib/install-deps.sh
	$(MAKE) heapfs
	bash contrib/demo.sh

# libFuzzer targets (clang): see tests/fuzz/fuzz.mk.  FUZZ_SECONDS per target.
fuzz:
	$(MAKE) -f tests/fuzz/fuzz.mk run

bench: heapfs
	bash bench/bench.sh

clean:
	rm -rf build heapfs

-include $(shell find build -name '*.d' 2>/dev/null)
