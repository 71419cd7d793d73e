# The Criterion suites. tests/*.c make the CPU suite (no GPU needed);
# tests/gpu/*.c (and their .cu kernels) make the GPU suite.
# Included by the top Makefile after tests/kernels/kernels.mk, which adds
# to TEST_EXTRA_OBJS, TEST_LDLIBS and TEST_PREREQS (defined there).
TEST_SRCS := $(wildcard tests/*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(BUILD)/tests/ptkit_tests
# Criterion's runner flags; e.g. make test TEST_ARGS='--filter tree/*'
TEST_ARGS ?=

# BROWSER=1 also installs Chromium (about 100 MB), which the HTML suite's
# rendering tests and `make screenshots` need, and speedscope from the npm
# registry (into $(BUILD)/npm, with Debian's npm), in which the trace_view
# suite opens the traces; without them those tests skip.
SPEEDSCOPE := speedscope@1.25.0
SPEEDSCOPE_PAGE := $(BUILD)/npm/node_modules/speedscope/dist/release/index.html
test-deps:
	@sh tests/deps.sh $(if $(filter 1,$(BROWSER)),chromium)
ifeq ($(BROWSER),1)
	@[ -f $(SPEEDSCOPE_PAGE) ] || { command -v npm >/dev/null || sh tests/deps.sh npm; } && \
	    [ -f $(SPEEDSCOPE_PAGE) ] || npm install --no-audit --no-fund --prefix $(BUILD)/npm $(SPEEDSCOPE)
endif

$(TEST_BIN): $(TEST_OBJS) $(TEST_EXTRA_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

$(TEST_OBJS): | test-deps

# A CUDA runtime under another soname, which tests/runtime.c loads before
# ptkit needs one (or names in PT_CUDART).
FAKE_CUDART := $(BUILD)/tests/runtime/libcudart.so.11.0
$(FAKE_CUDART): tests/runtime/fake_cudart.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O1 $(WARN) -Wno-missing-prototypes $(CFLAGS) $(LDFLAGS) \
	    -Wl,-soname,libcudart.so.11.0 -o $@ $<
TEST_PREREQS += $(FAKE_CUDART) $(LIB_SO)

# Two plugins whose one literal title is "alpha" and "omega", loaded one
# after the other by tests/tree.c.
TITLE_PLUGINS := $(BUILD)/tests/plugins/title_alpha.so $(BUILD)/tests/plugins/title_omega.so
$(BUILD)/tests/plugins/title_%.so: tests/plugins/title_plugin.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O1 $(WARN) $(CFLAGS) $(LDFLAGS) -DTITLE='"$*"' -o $@ $<
TEST_PREREQS += $(TITLE_PLUGINS)

# make test is quiet unless something fails: the build's commands go to
# $(BUILD)/test-build.log, printed whole when the build fails; V=1 shows
# them as they run. Then the suite, whose summary is the last line.
test:
ifeq ($(V),1)
	@$(MAKE) --no-print-directory test-build
else
	@mkdir -p $(BUILD) && echo "make test: building the suite ($(BUILD)/test-build.log; V=1 shows the commands)" && \
	    $(MAKE) --no-print-directory test-build > $(BUILD)/test-build.log 2>&1 || \
	    { cat $(BUILD)/test-build.log; echo "make test: the build failed (its log above)"; exit 1; }
endif
	@cd $(CURDIR) && PT_BUILD=$(BUILD) $(TEST_BIN) $(TEST_ARGS)
test-build: test-deps $(TEST_BIN) $(TEST_PREREQS)
.PHONY: test test-build

BENCH_HOST := $(BUILD)/bench/bench_host
BENCH_HOST_OBJS := $(BUILD)/obj/tests/bench/bench_host.o
$(BENCH_HOST): $(BUILD)/obj/tests/bench/bench_host.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PT_LDLIBS)

# Reports at scale (tests/bench/bench_scale.c): 100,000 sections, or
# BENCH_SECTIONS; CI (CI=true) runs 10,000, a few seconds.
BENCH_SCALE := $(BUILD)/bench/bench_scale
BENCH_HOST_OBJS += $(BUILD)/obj/tests/bench/bench_scale.o
BENCH_SECTIONS ?= $(if $(filter true,$(CI)),10000,100000)
# Then every report once of a chain BENCH_DEEP deep and of BENCH_WIDE
# sections at the top (0 leaves one out).
BENCH_DEEP ?= 100000
BENCH_WIDE ?= $(if $(filter true,$(CI)),0,1000000)
$(BENCH_SCALE): $(BUILD)/obj/tests/bench/bench_scale.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PT_LDLIBS)

# A graph replay's host work against the fake runtime (no GPU):
# tests/bench/bench_graph_host.c.
BENCH_GRAPH_HOST := $(BUILD)/bench/bench_graph_host
BENCH_HOST_OBJS += $(BUILD)/obj/tests/bench/bench_graph_host.o
$(BENCH_GRAPH_HOST): $(BUILD)/obj/tests/bench/bench_graph_host.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PT_LDLIBS)

bench-host: $(BENCH_HOST) $(BENCH_SCALE) $(BENCH_GRAPH_HOST) $(PTREPORT)
	$(BENCH_HOST)
	$(BENCH_GRAPH_HOST)
	PT_BENCH_DEEP=$(BENCH_DEEP) PT_BENCH_WIDE=$(BENCH_WIDE) $(BENCH_SCALE) $(PTREPORT) $(BENCH_SECTIONS)

# The host suites under valgrind memcheck, each test's process traced
# (Criterion forks one per test; VALGRIND_JOBS of them run at once). A binary of
# its own links only those suites: the full one links NVRTC (about 100 MB),
# which valgrind takes seconds to load in every test's process. Left out:
# the suites that run nvcc or NVRTC (dev_compile, dev_header, nvrtc,
# ptgen's compile checks) and the HTML suite's browser; ptreport's suite,
# which runs a shell and the tool per case (about 4 s each traced on 2
# cores), is left to the sanitizer build and its fuzz target
# (VALGRIND_SUITES='... ptreport' adds it). Compilers are never traced.
# The limits suite runs its occurrence loops 1000 times shorter here.
VALGRIND_SUITES ?= tree scope errors report export fold events records threads pack rank ffi \
                   memory trace flops schedule roofline limits nvtx honest
VALGRIND_BIN    := $(BUILD)/tests/ptkit_tests_valgrind
# One log per traced process. Criterion reports a test by what it asserted,
# not by its process's exit code, so --error-exitcode alone would let a
# test process with errors pass: with --quiet a clean process logs
# nothing, and any log that is not empty fails the run.
VALGRIND_LOGS   := $(BUILD)/valgrind
VALGRIND_FLAGS  ?= --quiet --trace-children=yes --trace-children-skip='*/cc,*/gcc,*/clang,*/nvcc' \
                   --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
# Test processes run side by side under valgrind: each is traced on its own
# (Criterion warns that its report may interleave); 1 runs them in turn.
VALGRIND_JOBS   ?= $(shell nproc 2>/dev/null || echo 1)

# The suite list as a file that changes only with the list, so a binary
# linked for other suites is linked again.
VALGRIND_LIST := $(BUILD)/tests/valgrind_suites
.PHONY: valgrind-list-always
valgrind-list-always:
$(VALGRIND_LIST): valgrind-list-always
	$(call write_if_changed,$(VALGRIND_SUITES))

$(VALGRIND_BIN): $(VALGRIND_SUITES:%=$(BUILD)/obj/tests/%.o) $(LIB_A) $(VALGRIND_LIST)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -lcriterion -ljansson \
	    $(PT_LDLIBS)

.PHONY: test-valgrind
test-valgrind: test-deps $(VALGRIND_BIN) $(TEST_PREREQS)
	@command -v valgrind >/dev/null || { echo "test-valgrind needs valgrind:" \
	    "sudo apt-get install -y valgrind" >&2; exit 1; }
	@rm -rf $(VALGRIND_LOGS) && mkdir -p $(VALGRIND_LOGS)
	cd $(CURDIR) && PT_BUILD=$(BUILD) PT_UNDER_VALGRIND=1 valgrind $(VALGRIND_FLAGS) \
	    --log-file=$(VALGRIND_LOGS)/%p.log $(VALGRIND_BIN) --jobs $(VALGRIND_JOBS) $(TEST_ARGS)
	@bad=$$(find $(VALGRIND_LOGS) -name '*.log' -size +0c); \
	if [ -n "$$bad" ]; then cat $$bad; \
	    echo "test-valgrind: memcheck reported errors in $$(echo $$bad | wc -w) process(es)" >&2; \
	    exit 1; fi; \
	echo "test-valgrind: $$(ls $(VALGRIND_LOGS) | wc -l) processes traced, no memcheck error"

# The threads under ThreadSanitizer: the library and a plain program
# (Criterion cannot start under TSan) built into a build folder of their
# own. TSan exits with 66 on the first race it reports.
TSAN_BUILD ?= $(BUILD)/tsan
TSAN_FLAGS ?= -O1 -g -fsanitize=thread
.PHONY: test-tsan tsan-run
test-tsan:
	@$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CFLAGS="$(TSAN_FLAGS)" \
	    LDFLAGS="-fsanitize=thread" tsan-run

$(BUILD)/tests/threads_tsan: tests/tsan/threads_tsan.c tests/threads_jobs.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(PT_LDLIBS)

# The fold's own thread (host/gpu/fold_worker.c) beside the launching
# one: bench_graph_host's replays, fewer of them, under TSan.
$(BUILD)/tests/fold_tsan: tests/bench/bench_graph_host.c tests/cuda_fake.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) -Itests $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(PT_LDLIBS)

tsan-run: $(BUILD)/tests/threads_tsan $(BUILD)/tests/fold_tsan
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" $(BUILD)/tests/threads_tsan
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" $(BUILD)/tests/fold_tsan 200

# bench-static: the device macros' registers, stack and code on the
# benchmark kernels (tests/kernels/kernels.mk builds them), no GPU needed.
BENCH_STATIC := $(BUILD)/bench/bench_static
$(BENCH_STATIC): $(BUILD)/obj/tests/bench/bench_static.o $(BUILD)/obj/tests/kernels/kstat.o
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^

.PHONY: bench-static
ifeq ($(CUDA),1)
bench-static: $(BENCH_STATIC) $(BENCH_STATIC_FILES)
	$(BENCH_STATIC) $(BK_DIR)
else
bench-static:
	@echo "bench-static: built with CUDA=0, so there is no nvcc to compile the kernels with"
endif

# Every C, C++ and CUDA block of README.md and docs/*.md compiles, each as
# its <!-- check: ... --> line says (tests/docs/check.py).
.PHONY: test-docs
test-docs:
ifeq ($(CUDA),1)
	CUDA_HOME=$(CUDA_HOME) NVCC="$(NVCC_CMD)" python3 tests/docs/check.py $(BUILD)/docs README.md docs/*.md
else
	@echo "test-docs: skipped: the examples are CUDA programs, and CUDA=0 (no nvcc at $(NVCC))"
endif
