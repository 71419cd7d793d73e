# The hardware kit (make hw-kit): everything a machine with a CUDA GPU runs
# to prove ptkit's device claims, built here (no GPU needed) into one
# folder, $(HW_KIT_DIR), that travels to that machine and runs there with one
# command, `$(HW_KIT_DIR)/run` (tests/hw/kit.sh; docs/hardware/README.md):
#   bin/      the GPU suite and its probe, bench-gpu
#   samples/  every CUDA sample, the NVRTC one, and the Python ones
#   python/   the Python package with its libptkit and headers, as installed
#   bench/    the peer: Proton on Triton's matmul (tests/bench/proton_matmul.py)
#   libs/     the shared libraries the suite links beyond the C and C++
#             runtimes and CUDA's own (Criterion and what it needs); the
#             kit puts on the library path only those the machine lacks
#   run, summary.py, COMMIT
# All of it for CUDA_ARCHS (sm_80 and sm_90 by default), at most
# HW_KIT_MAX_MB. `make test` builds it and runs it dry (tests/hw_kit.c):
# without a device it says so and exits 0. HW_KIT=0 leaves it out (the
# sanitizer builds, whose objects nvcc cannot link).
HW_KIT_DIR    := $(BUILD)/hw-kit
HW_KIT_MAX_MB ?= 32
HW_KIT_SRC    := tests/hw/kit.sh tests/hw/summary.py tests/hw/assemble.sh \
                 tests/bench/proton_matmul.py
HW_KIT        ?= $(CUDA)
HW_KIT_ON     := $(if $(filter 1,$(HW_KIT)),$(filter 1,$(CUDA)))

.PHONY: hw-kit

ifeq ($(HW_KIT_ON),1)
HW_KIT_BINS := $(GPU_TEST_BIN) $(GPU_PROBE) $(BENCH_GPU) $(BENCH_GRAPH_HOST) \
               $(filter-out $(BUILD)/samples/led_optimizer,$(SAMPLE_BINS))

$(HW_KIT_DIR)/COMMIT: $(HW_KIT_BINS) $(LIB_SO) $(HW_KIT_SRC) $(wildcard python/ptkit/*.py) \
                  $(wildcard samples/python/*.* samples/python/torch_ext/*)
	@sh tests/deps.sh python3
	CUDA_HOME=$(CUDA_HOME) CUDA_ARCHS="$(CUDA_ARCHS)" HW_KIT_MAX_MB=$(HW_KIT_MAX_MB) sh tests/hw/assemble.sh $(HW_KIT_DIR) \
	    $(LIB_SO_V) $(HW_KIT_BINS)

hw-kit: $(HW_KIT_DIR)/COMMIT
	@echo "hw-kit: $(HW_KIT_DIR) ($$(du -sm $(HW_KIT_DIR) | cut -f1) MiB); on a GPU machine run $(HW_KIT_DIR)/run"
TEST_PREREQS += $(HW_KIT_DIR)/COMMIT
# This file is read after tests/tests.mk, whose test-build rule has taken
# TEST_PREREQS' value by then: the kit is named to the rule itself, so
# `make test` builds it (tests/hw_kit.c checks it, and skips without it).
test-build: $(HW_KIT_DIR)/COMMIT
else
hw-kit:
	@echo "hw-kit: skipped: this build has CUDA=$(CUDA) HW_KIT=$(HW_KIT); the kit needs nvcc ($(NVCC))"
endif
