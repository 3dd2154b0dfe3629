# tests/fuzz/fuzz.mk - libFuzzer targets (one per decoder) and the hf_walk
# test driver.  Run from the project root:
#
#   make fuzz [FUZZ_SECONDS=300]           every target for FUZZ_SECONDS each, then
#                                          FUZZ_CHANGE_SECONDS (60) each with the
#                                          dump changing underneath (fuzz_target.c)
#   make -f tests/fuzz/fuzz.mk fuzzers     build them (clang, ASan + UBSan)
#   make -f tests/fuzz/fuzz.mk smoke       each target a few seconds on its seeds,
#                                          then every input of tests/fuzz/regress/
#   make -f tests/fuzz/fuzz.mk hf_walk [SANITIZE=1]   the driver (project CC)
#   make -f tests/fuzz/fuzz.mk run-hprof   one target (change-hprof: changing dump)
#   ... FZ=DIR                             build and run somewhere else than build/fuzz
#
# A new decoder is covered by one line in the list below: its format name
# (hf_decoder.format) and where its seed files are.  t_fuzz_smoke.sh fails
# when a registered decoder has no line here.
#
# Findings: libFuzzer writes a crashing input to build/fuzz/artifacts/NAME/;
# copy it to tests/fuzz/regress/NAME/ (a regression input, replayed by every
# `make check`) before fixing.  The corpus a run grows is kept in
# build/fuzz/corpus/NAME/ (not committed).  `make fuzz` leaves a summary in
# build/fuzz/report.txt: executions and findings per target.

# The project Makefile: its B, CFLAGS, LDLIBS, object rules and lists.
include Makefile

CORPUS       ?= tests/corpus
FUZZ_SECONDS ?= 300
# then each target again with the dump changing underneath (HF_FUZZ_CHANGE)
FUZZ_CHANGE_SECONDS ?= 60
SMOKE_SECONDS ?= 4
FUZZ_CC      ?= clang
FZ           ?= build/fuzz
# Hostile lengths must not make a decoder allocate gigabytes.
FUZZ_FLAGS   ?= -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 -max_len=131072 \
                -print_final_stats=1 -detect_leaks=1
FUZZ_DECODERS :=

# decoder FORMAT, SEED-DIRS: a target fuzz_FORMAT seeded from those dirs.
define decoder
FUZZ_DECODERS += $(1)
SEEDS_$(1) := $(2)
endef

# ---- one line per decoder ----
$(eval $(call decoder,hprof,$(CORPUS)/hprof))
$(eval $(call decoder,gperftools,$(CORPUS)/pprof-heap))
$(eval $(call decoder,oemp,$(wildcard tests/fixtures/*.oemp)))
$(eval $(call decoder,hprof-text,$(CORPUS)/hprof-txt))
$(eval $(call decoder,bmd,$(CORPUS)/bmd))
$(eval $(call decoder,gopprof,tests/fuzz/regress/gopprof))
$(eval $(call decoder,v8,tests/fuzz/regress/v8))
# ------------------------------

# Only decoders whose format name is in decoders/*/*.c get built: a line may
# come before its decoder lands.  (t_fuzz_smoke.sh checks the other way:
# every registered decoder has a line.)
REGISTERED := $(shell sed -n 's/.*\.format *= *"\([^"]*\)".*/\1/p' decoders/*/*.c 2>/dev/null | sort -u)
FUZZ_ACTIVE := $(filter $(REGISTERED),$(FUZZ_DECODERS))

FUZZ_SRC  := $(LIB_SRC) $(TREE_SRC) tests/fuzz/walk.c
FUZZ_OBJ  := $(FUZZ_SRC:%.c=$(FZ)/obj/%.o)
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
               -fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE -I. \
               $(shell pkg-config --cflags $(LIB_PKGS))
FUZZ_BINS := $(FUZZ_ACTIVE:%=$(FZ)/fuzz_%)

HF_WALK     := $(B)/tests/fuzz/hf_walk

.PHONY: fuzzers run smoke replay seeds hf_walk list $(FUZZ_ACTIVE:%=run-%) $(FUZZ_ACTIVE:%=smoke-%) \
        $(FUZZ_ACTIVE:%=change-%)
.DEFAULT_GOAL := fuzzers
# Objects are built through a pattern rule: keep them (no rebuild next time).
.SECONDARY:

fuzzers: $(FUZZ_BINS)

$(FUZZ_OBJ): | $(PB_H)

list:
	@echo $(FUZZ_ACTIVE)

$(FZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# The walker itself is sanitized but not coverage-instrumented: its loops
# (hashing every byte read) would only slow the search down.
$(FZ)/obj/tests/fuzz/walk.o: tests/fuzz/walk.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -fsanitize=fuzzer-no-link%,$(FUZZ_CFLAGS)) -fsanitize=address,undefined -MMD -MP -c -o $@ $<

$(FZ)/fuzz_%: tests/fuzz/fuzz_target.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DHF_FUZZ_FORMAT='"$*"' -o $@ $^ $(LIB_LDLIBS)

# ---- seeds: small inputs built from the seed dirs (tests/fuzz/mkseeds.py) ----
seeds: $(FUZZ_ACTIVE:%=$(FZ)/seeds/%/.done)

$(FZ)/seeds/%/.done: tests/fuzz/mkseeds.py
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	python3 tests/fuzz/mkseeds.py $* $(dir $@) $(SEEDS_$*) tests/fixtures $(wildcard tests/fuzz/regress/$*)
	@touch $@

# ---- running ----
# run-NAME: FUZZ_SECONDS of fuzzing; the stats line goes to the report.
# change-NAME: FUZZ_CHANGE_SECONDS with the dump changing underneath (its
# own corpus and log, "NAME+change" in the report).
define run_one
	@mkdir -p $(FZ)/corpus/$(2) $(FZ)/artifacts/$(2) $(FZ)/logs
	@echo "fuzz_$(1)$(if $(3), (dump changing underneath)): $(4)s"
	-@$(3) $(FZ)/fuzz_$(1) $(FUZZ_FLAGS) -max_total_time=$(4) \
	    -artifact_prefix=$(FZ)/artifacts/$(2)/ $(FZ)/corpus/$(2) $(FZ)/seeds/$(1) \
	    >$(FZ)/logs/$(2).log 2>&1; echo $$? >$(FZ)/logs/$(2).rc
	@bash tests/fuzz/report.sh $(2) $(FZ)
endef

$(FUZZ_ACTIVE:%=run-%): run-%: $(FZ)/fuzz_% $(FZ)/seeds/%/.done
	$(call run_one,$*,$*,,$(FUZZ_SECONDS))

$(FUZZ_ACTIVE:%=change-%): change-%: $(FZ)/fuzz_% $(FZ)/seeds/%/.done
	$(call run_one,$*,$*+change,HF_FUZZ_CHANGE=1,$(FUZZ_CHANGE_SECONDS))

run: $(FUZZ_BINS) seeds
	@rm -f $(FZ)/report.txt
	@$(foreach d,$(FUZZ_ACTIVE),$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk run-$(d) &&) true
	@$(foreach d,$(FUZZ_ACTIVE),$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk change-$(d) &&) true
	@cat $(FZ)/report.txt
	@! grep -q 'FOUND' $(FZ)/report.txt

# smoke: a few seconds each on the seeds only (no corpus kept), then replay.
$(FUZZ_ACTIVE:%=smoke-%): smoke-%: $(FZ)/fuzz_% $(FZ)/seeds/%/.done
	@mkdir -p $(FZ)/smoke/$* $(FZ)/artifacts/$*
	@rm -rf $(FZ)/smoke/$*/*
	$(FZ)/fuzz_$* $(FUZZ_FLAGS) -seed=1 -max_total_time=$(SMOKE_SECONDS) \
	    -artifact_prefix=$(FZ)/artifacts/$*/ $(FZ)/smoke/$* $(FZ)/seeds/$*

smoke: $(FUZZ_ACTIVE:%=smoke-%) replay

# Every regression input through its target once (no fuzzing), as it is and
# with the dump changing underneath (HF_FUZZ_CHANGE=1).
replay: $(FUZZ_BINS)
	@set -e; for d in $(FUZZ_ACTIVE); do \
	  files=$$(find tests/fuzz/regress/$$d -type f 2>/dev/null | sort); \
	  [ -z "$$files" ] && continue; \
	  echo "replay fuzz_$$d: $$(echo "$$files" | wc -l) inputs"; \
	  $(FZ)/fuzz_$$d $(FUZZ_FLAGS) $$files; \
	  HF_FUZZ_CHANGE=1 $(FZ)/fuzz_$$d $(FUZZ_FLAGS) $$files; \
	done

# ---- the driver, built like the unit tests (SANITIZE=1 honoured) ----
hf_walk: $(HF_WALK)

$(HF_WALK): $(B)/tests/fuzz/hf_walk.o $(B)/tests/fuzz/walk.o $(B)/libhftree.a $(B)/libheapfs.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LDLIBS)
