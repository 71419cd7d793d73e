# The Criterion suites. tests/*.c make the CPU suite (no GPU needed);
# tests/gpu/*.c (and their .cu kernels) make the GPU suite.
TEST_SRCS := $(wildcard tests/*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(BUILD)/tests/ptkit_tests
TEST_LDLIBS := -lcriterion -ljansson $(PT_LDLIBS)
# Extra objects some tests link (kernels built by nvcc, embedded files).
TEST_EXTRA_OBJS ?=
# Criterion's runner flags; e.g. make test TEST_ARGS='--filter tree/*'
TEST_ARGS ?=
-include tests/kernels/kernels.mk

test-deps:
	@sh tests/deps.sh

$(TEST_BIN): $(TEST_OBJS) $(TEST_EXTRA_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

$(TEST_OBJS): | test-deps

test: test-deps $(TEST_BIN) $(TEST_PREREQS)
	cd $(CURDIR) && PT_BUILD=$(BUILD) $(TEST_BIN) $(TEST_ARGS)

BENCH_HOST := $(BUILD)/bench/bench_host
$(BENCH_HOST): $(BUILD)/obj/tests/bench/bench_host.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PT_LDLIBS)

bench-host: $(BENCH_HOST)
	$(BENCH_HOST)
