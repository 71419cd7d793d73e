# The GPU suite (make test-gpu) and the GPU benchmark (make bench-gpu).
# Included by the top Makefile, after device/device.mk. Both are built by nvcc and link the real
# CUDA runtime (nvcc's default, static) beside libptkit, which loads the
# shared runtime itself at run time. Both build without a device; then the
# suite skips every test with the reason and the benchmark says so.
#
# On a machine without the suite's libraries (Criterion and what it links),
# copy them next to the binary with `make gpu-test-libs` and run with
# LD_LIBRARY_PATH=$(BUILD)/gpu-libs.

GPU_TEST_BIN   := $(BUILD)/tests/ptkit_gpu_tests
GPU_PROBE      := $(BUILD)/tests/ptkit_gpu_probe
GPU_TEST_C     := $(filter-out tests/gpu/probe.c,$(wildcard tests/gpu/*.c))
GPU_TEST_CU    := $(wildcard tests/gpu/*.cu)
GPU_TEST_OBJS  := $(GPU_TEST_C:%.c=$(BUILD)/obj/%.o) $(GPU_TEST_CU:%.cu=$(BUILD)/obj/%.cu.o)
GPU_NVCCFLAGS  ?= -O2 -std=c++17 $(LINEINFO)
BENCH_GPU_NVCCFLAGS ?= -O3 -std=c++17 $(LINEINFO)
# Verbose, so each skip says why and each test logs its figures.
GPU_TEST_ARGS  ?= --verbose
# The suite's size: hw (spins of 10 us to 10 ms on up to 10,000 blocks) or
# sim (a few microseconds on a few blocks, for a simulated GPU).
GPU_SCALE      ?= hw
GPU_HDRS       := $(wildcard include/pt/*.h include/pt/detail/*.h)
BENCH_GPU      := $(BUILD)/bench/bench_gpu
# wgmma is sm_90a's alone (no part of sm_90's portable set): where nvcc
# knows sm_90a (12 and later), tests/gpu/wgmma90.cu is built for it and
# nothing else, so that no other image of its kernel is ever chosen; its
# launcher says so on any other device. Older nvcc builds it empty.
GPU_COMMA      := ,
GPU_SM90A      := $(if $(filter-out 9 10 11,$(CUDA_MAJOR)),-gencode arch=compute_90a$(GPU_COMMA)code=sm_90a -DPT_TEST_SM90A)

.PHONY: gpu-test-libs

ifeq ($(CUDA),1)
$(BUILD)/obj/tests/gpu/%.cu.o: tests/gpu/%.cu tests/gpu/kernels.h tests/gpu/spin.cuh \
                              tests/gpu/hopper.cuh tests/kernels/inputs.h $(GPU_HDRS)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(GPU_NVCCFLAGS) $(NVCCFLAGS) $(GPU_GENCODE) -Iinclude -c -o $@ $<

GPU_GENCODE = $(PT_GENCODE)
$(BUILD)/obj/tests/gpu/wgmma90.cu.o: GPU_GENCODE = $(or $(GPU_SM90A),$(PT_GENCODE))

$(GPU_TEST_C:%.c=$(BUILD)/obj/%.o): | test-deps

$(GPU_TEST_BIN): $(GPU_TEST_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(PT_GENCODE) --cudart $(CUDART) -o $@ $^ -lcriterion -lm -lpthread -ldl \
	    -L$(CUDA_HOME)/lib64 -lnvrtc -Xlinker -rpath,$(CUDA_HOME)/lib64

# A CPU program that times a GPU section and says what it was told.
$(GPU_PROBE): tests/gpu/probe.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(CPPFLAGS) $(PT_CFLAGS) $(CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS) $(PT_LDLIBS)

test-gpu: test-deps $(GPU_TEST_BIN) $(GPU_PROBE)
	PT_GPU_SCALE=$(GPU_SCALE) $(GPU_TEST_BIN) $(GPU_TEST_ARGS) $(TEST_ARGS)

# The mark loops in both modes, each an object whose launchers are
# named for it.
BENCH_LOOP_OBJS := $(BUILD)/obj/tests/bench/bench_loops.shared.o $(BUILD)/obj/tests/bench/bench_loops.reg.o \
                   $(BUILD)/obj/tests/bench/bench_loops.release.o $(BUILD)/obj/tests/bench/bench_loops.warp.o
$(BUILD)/obj/tests/bench/bench_loops.shared.o: BENCH_LOOP_FLAGS := -DBENCH_MODE=shared
$(BUILD)/obj/tests/bench/bench_loops.reg.o: BENCH_LOOP_FLAGS := -DBENCH_MODE=reg -DPT_DEV_SHARED=0
$(BUILD)/obj/tests/bench/bench_loops.release.o: BENCH_LOOP_FLAGS := -DBENCH_MODE=release -DPT_DEV_END_RELEASE
$(BUILD)/obj/tests/bench/bench_loops.warp.o: BENCH_LOOP_FLAGS := -DBENCH_MODE=warp -DPT_DEV_PER_WARP -DPT_DEV_TRACING
$(BENCH_LOOP_OBJS): tests/bench/bench_loops.cu $(GPU_HDRS)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(BENCH_GPU_NVCCFLAGS) $(NVCCFLAGS) $(PT_GENCODE) $(BENCH_LOOP_FLAGS) -Iinclude -c -o $@ $<

$(BENCH_GPU): tests/bench/bench_gpu.cu tests/kernels/inputs.h tests/thread_cpu.h $(LIB_A) $(GPU_HDRS) $(BENCH_LOOP_OBJS)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(BENCH_GPU_NVCCFLAGS) $(NVCCFLAGS) $(PT_GENCODE) --cudart $(CUDART) -Iinclude -o $@ $< \
	    $(BENCH_GPU_KOBJS) $(BENCH_LOOP_OBJS) $(LIB_A) \
	    -lm -lpthread -ldl

# GEMM_SIZES=224,256,288 times the SGEMM at each size (PT_BENCH_GEMM_SIZES).
bench-gpu: $(BENCH_GPU)
	PT_GPU_SCALE=$(GPU_SCALE) $(if $(GEMM_SIZES),PT_BENCH_GEMM_SIZES=$(GEMM_SIZES)) $(BENCH_GPU)

# The shared libraries the suite needs beyond the C library, for a GPU
# machine that has no Criterion installed, and the CUDA runtime libptkit
# loads (this toolkit's libcudart.so.<major>), for one without this CUDA installed.
gpu-test-libs: $(GPU_TEST_BIN) $(BENCH_GPU)
	@mkdir -p $(BUILD)/gpu-libs
	ldd $(GPU_TEST_BIN) | awk '$$3 ~ /^\// && $$1 !~ /^(libc|libm|libdl|libpthread|librt|ld-linux)[.-]/ { print $$3 }' | \
	    xargs -r cp -L -t $(BUILD)/gpu-libs
	cp -L $(wildcard $(CUDA_HOME)/lib64/libcudart.so.$(CUDA_MAJOR)*) $(BUILD)/gpu-libs/
	@ls $(BUILD)/gpu-libs
else
test-gpu bench-gpu gpu-test-libs:
	@echo "$@: skipped: this build has CUDA=0, and the GPU suite and benchmark need nvcc ($(NVCC))"
endif
