# `make test-consumers`: ptkit as its users build against it, from a
# staged install (tests/consumers/run.sh): a C program with cc and
# pkg-config; a .cu program with nvcc and pkg-config alone; a CMake
# project (find_package(ptkit CONFIG REQUIRED)) with a CUDA-language and a
# C target; C++ consumers under -std=c++11/14/17/20 and nvcc with -Wall
# -Wextra -Wpedantic -Werror; the samples built with -DPT_DISABLE and
# with -DPT_DEV_DISABLE under -Werror. Each program runs (on the CPU path
# without a GPU). About 2 minutes on 2 cores; CI runs it.
.PHONY: test-consumers
test-consumers: lib $(INSTALL_BINS)
	@command -v pkg-config >/dev/null || { echo "test-consumers needs pkg-config:" \
	    "sudo apt-get install -y pkg-config" >&2; exit 1; }
	MAKE='$(MAKE)' BUILD='$(BUILD)' CUDA='$(CUDA)' NVCC='$(NVCC)' CUDA_HOME='$(CUDA_HOME)' \
	    CONSUMER_ARCH='$(lastword $(CUDA_ARCHS))' sh tests/consumers/run.sh
