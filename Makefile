# heapfs build.  `make` builds ./heapfs; `make check` runs every test and
# ends with one line "N passed, N failed".  SANITIZE=1 builds everything
# with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer on).
#
# The layering is enforced here (docs/architecture.md):
#   libheapfs.a   decoders/: the decoding library.  Compiled without
#                 FUSE's include path, so it cannot include FUSE.
#   libhftree.a   fs/ minus the FUSE front end (the tree, views, inodes) and
#                 cache/ (the view cache).  Also compiled without FUSE.
#   heapfs        the FUSE front end (FUSE_SRC) linked with both.
# Unit tests link the two libraries (the linker takes only the objects a test
# uses) and never libfuse.
CC      ?= cc
LIB_PKGS  := glib-2.0 libdw libprotobuf-c zlib libpng
FUSE_PKGS := fuse3
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
           -I. $(shell pkg-config --cflags $(LIB_PKGS))
FUSE_CFLAGS := $(shell pkg-config --cflags $(FUSE_PKGS))
LIB_LDLIBS  := $(shell pkg-config --libs $(LIB_PKGS)) -lpthread -lm
LDLIBS  := $(shell pkg-config --libs $(FUSE_PKGS)) $(LIB_LDLIBS)
ifeq ($(SANITIZE),1)
B       := build/san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
B       := build/rel
endif

FUSE_SRC := fs/main.c fs/fuse_ops.c
# pprof's profile.proto, compiled by protoc-c at build time (never committed):
# build/gen/pprof/profile.pb-c.[ch], included as "build/gen/pprof/profile.pb-c.h".
PB_GEN   := build/gen/pprof/profile.pb-c.c
PB_H     := $(PB_GEN:.c=.h)
LIB_SRC  := $(sort $(shell find decoders -name '*.c')) $(PB_GEN)
TREE_SRC := $(filter-out $(FUSE_SRC),$(wildcard fs/*.c)) $(wildcard cache/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TREE_OBJ := $(TREE_SRC:%.c=$(B)/%.o)
FUSE_OBJ := $(FUSE_SRC:%.c=$(B)/%.o)
TESTS    := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/test_*.c))

.PHONY: all check unit demo bench clean heapfs fuzz
all: heapfs

heapfs: $(B)/heapfs
	ln -sf $< $@

$(B)/heapfs: $(FUSE_OBJ) $(B)/libhftree.a $(B)/libheapfs.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Several folders have a read.c or a decoder.c: `ar q` keeps members with
# the same base name apart (`ar r` would replace one with the other).
$(B)/libheapfs.a: $(LIB_OBJ)
	rm -f $@ && ar qcs $@ $^

$(B)/libhftree.a: $(TREE_OBJ)
	rm -f $@ && ar qcs $@ $^

$(FUSE_OBJ): CFLAGS += $(FUSE_CFLAGS)

$(PB_H): $(PB_GEN)
$(PB_GEN): decoders/pprof/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --proto_path=$(dir $<) --c_out=$(dir $@) $(notdir $<)

$(LIB_OBJ) $(TREE_OBJ) $(FUSE_OBJ) $(B)/tests/unit/helpers.o: | $(PB_H)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# tests/unit/helpers.c: what several unit tests share (rendering views by
# name, temp files, corpus paths).
$(B)/tests/unit/%: tests/unit/%.c $(B)/tests/unit/helpers.o $(B)/libhftree.a $(B)/libheapfs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LDLIBS) -lcmocka

unit: $(TESTS)

check: heapfs $(TESTS) build/hprofgen
	@B=$(B) bash tests/run.sh $(TESTS)

# The HPROF dump generator (tests/mount/t_hprofgen.sh, bench/bench_big.sh):
# libc only, not part of `all`.
HPROFGEN_SRC := $(wildcard tests/programs/hprofgen/*.c)
build/hprofgen: $(HPROFGEN_SRC) tests/programs/hprofgen/hprofgen.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(HPROFGEN_SRC)

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

# ---- install ---------------------------------------------------------------
# `make install` (PREFIX=/usr/local, DESTDIR for staging) installs the binary,
# heapfs(1), heapfs-tree(7) and, under share/doc/heapfs, README.md and the
# contrib examples;
# `make uninstall` removes them.  mount(8) runs fstab and `mount -t
# fuse.heapfs` mounts through mount.fuse3, whose shell finds heapfs in
# /usr/local/bin or /usr/bin (mount clears PATH): see heapfs(1).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/heapfs
INSTALL ?= install
DOC_FILES     := README.md contrib/nfs.md contrib/ganesha-heapfs.conf
SYSTEMD_FILES := contrib/systemd/heapfs@.service
# The man pages, installed under man1/, man7/, ... as their suffix says.
MAN_PAGES     := docs/heapfs.1 docs/heapfs-tree.7
man_path = $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(1)))/$(notdir $(1))
# The page and the unit name the default paths; installed, they name these.
INSTALL_PATHS := sed -e 's|/usr/local/bin/heapfs|$(BINDIR)/heapfs|g' \
                     -e 's|/usr/local/share/doc/heapfs|$(DOCDIR)|g'

.PHONY: install uninstall
install: $(B)/heapfs
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(foreach p,$(MAN_PAGES),$(dir $(call man_path,$(p)))) \
	    $(DESTDIR)$(DOCDIR)/contrib/systemd
	$(INSTALL) -m 755 $(B)/heapfs $(DESTDIR)$(BINDIR)/heapfs
	$(foreach p,$(MAN_PAGES),$(INSTALL_PATHS) $(p) >$(call man_path,$(p)) && \
	    chmod 644 $(call man_path,$(p)) &&) true
	$(INSTALL) -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(INSTALL) -m 644 contrib/nfs.md contrib/ganesha-heapfs.conf $(DESTDIR)$(DOCDIR)/contrib/
	$(INSTALL_PATHS) $(SYSTEMD_FILES) >$(DESTDIR)$(DOCDIR)/contrib/systemd/heapfs@.service
	chmod 644 $(DESTDIR)$(DOCDIR)/contrib/systemd/heapfs@.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/heapfs $(foreach p,$(MAN_PAGES),$(call man_path,$(p)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_FILES) $(SYSTEMD_FILES))
	-rmdir $(DESTDIR)$(DOCDIR)/contrib/systemd $(DESTDIR)$(DOCDIR)/contrib $(DESTDIR)$(DOCDIR)
