# libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined):
#
#   make fuzz [FUZZ_SECONDS=60]   builds each target and runs it for that long
#                                 from its seeds in tests/fuzz/corpus/<target>/;
#                                 fails on the first crash, leak or sanitizer error
#
# Inputs found along the way go to $(BUILD)/fuzz/corpus/<target>/, a crash
# to $(BUILD)/fuzz/<target>-crash-*. Clang's libFuzzer is in Debian's
# libclang-rt-14-dev (a Recommends of clang, so not always there).
#
# The output target (tests/fuzz/fuzz_output.c) claims the files of a
# PT_OUTPUT value and lets them go unwritten; its seeds in
# tests/fuzz/corpus/output/ are values users write, and broken ones.
#
# The fold target (tests/fuzz/fuzz_fold.c) folds host-mode records whose
# words are the input's; its seeds in tests/fuzz/corpus/fold/ are a shape
# header and records as END leaves them.
#
# The pack target links the whole library, built with the same sanitizers
# (and CUDA=0: no device code) into $(BUILD)/fuzz/lib by a make of its own.
# Its seeds in tests/fuzz/corpus/pack/ are trees pt_pack() wrote:
#
#   make fuzz-pack-seeds          writes them to $(BUILD)/fuzz/pack-seeds/
#                                 (tests/fuzz/pack_seeds.c); copy them to
#                                 tests/fuzz/corpus/pack/ when the format changes

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-function \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_DIR     := $(BUILD)/fuzz
# The einsum parser is fuzzed where host/core/flops.c provides it.
FUZZ_TARGETS := ptgen ptreport_json $(if $(wildcard host/core/flops.c),einsum) pack fold output
FUZZ_LIB_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB     := $(FUZZ_DIR)/lib/lib/libptkit.a

.PHONY: fuzz fuzz-build fuzz-lib fuzz-lib-always fuzz-pack-seeds
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# ptgen includes the list of ptkit's own PT_ names, generated in $(BUILD)/gen.
$(FUZZ_DIR)/fuzz_ptgen: tests/fuzz/fuzz_ptgen.c gen/ptgen.c gen/ptgen_write.h gen/gen_out.h $(BUILD)/gen/pt_reserved.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(BUILD)/gen -o $@ $<

# ptreport's reader is built on the library (its figure list, its UTF-8
# helper, its writers), so the target links the sanitized library too.
PTREPORT_READER := tools/ptreport/read.c tools/ptreport/members.c tools/ptreport/sections.c \
                   tools/ptreport/launch.c tools/ptreport/where.c tools/ptreport/csv.c
$(FUZZ_DIR)/fuzz_ptreport_json: tests/fuzz/fuzz_ptreport_json.c $(PTREPORT_READER) \
                                $(wildcard tools/ptreport/*.h) $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itools/ptreport -Iinclude -Ihost -Idevice -o $@ $< $(PTREPORT_READER) \
	    $(FUZZ_LIB) -ljansson -lm -lpthread -ldl

$(FUZZ_DIR)/fuzz_einsum: tests/fuzz/fuzz_einsum.c host/core/flops.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iinclude -Ihost -Idevice -o $@ $< host/core/flops.c -lm

# The library's own make decides what to rebuild, so it runs every time.
fuzz-lib: $(FUZZ_LIB)
$(FUZZ_LIB): fuzz-lib-always
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR)/lib CUDA=0 CC=$(FUZZ_CC) \
	    CFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_LIB_SAN)" LDFLAGS="$(FUZZ_LIB_SAN)" $@
fuzz-lib-always:

$(FUZZ_DIR)/fuzz_pack: tests/fuzz/fuzz_pack.c tests/fuzz/fuzz_common.h $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iinclude -Ihost -Idevice -o $@ $< $(FUZZ_LIB) -lm -lpthread -ldl

# Host-mode records folded: the library again (calibrate.h for the clock).
$(FUZZ_DIR)/fuzz_fold: tests/fuzz/fuzz_fold.c tests/fuzz/fuzz_common.h $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iinclude -Ihost -Idevice -o $@ $< $(FUZZ_LIB) -lm -lpthread -ldl

# PT_OUTPUT claimed and let go, never written: the library again.
$(FUZZ_DIR)/fuzz_output: tests/fuzz/fuzz_output.c tests/fuzz/fuzz_common.h $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iinclude -Ihost -Idevice -o $@ $< $(FUZZ_LIB) -lm -lpthread -ldl

$(FUZZ_DIR)/pack_seeds: tests/fuzz/pack_seeds.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra $(FUZZ_LIB_SAN) -Iinclude \
	    -Ihost -Idevice -o $@ $< $(FUZZ_LIB) -lm -lpthread -ldl

fuzz-pack-seeds: $(FUZZ_DIR)/pack_seeds
	@mkdir -p $(FUZZ_DIR)/pack-seeds
	$(FUZZ_DIR)/pack_seeds $(FUZZ_DIR)/pack-seeds

# One rule per target, so that make -j runs them side by side (each is one
# process: two cores run two at once).
FUZZ_RUNS := $(FUZZ_TARGETS:%=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz: $(FUZZ_RUNS)
$(FUZZ_RUNS): fuzz-run-%: $(FUZZ_DIR)/fuzz_%
	@echo "fuzz: $* for $(FUZZ_SECONDS) s"
	@mkdir -p $(FUZZ_DIR)/corpus/$*
	@$(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$*- \
	    $(FUZZ_DIR)/corpus/$* tests/fuzz/corpus/$* 2>$(FUZZ_DIR)/$*.log \
	    || { tail -n 60 $(FUZZ_DIR)/$*.log; echo "fuzz: $* failed" >&2; exit 1; }
	@grep -E '^(Done|stat::number_of_executed_units)' $(FUZZ_DIR)/$*.log | sed 's/^/fuzz: $*: /'
