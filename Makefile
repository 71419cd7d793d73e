# ptkit: in-kernel clock instrumentation for CUDA.
#
#   make            static and shared libptkit, ptgen   (build/lib, build/bin)
#   make demo       the flagship sample: a multi-phase transport step
#   make test       the Criterion suite (no GPU needed)
#   make test-gpu   the GPU suite (skips without a device)
#   make test-mpi   pt_mpi_gather under mpirun -np 2 (skips without MPI)
#   make test-python the Python package, installed with pip into a venv, and its tests
#   make bench-host / bench-static / bench-gpu
#   make hw-kit     what a machine with a GPU runs, in one folder (docs/hardware/README.md)
#   make install prefix=DIR [DESTDIR=...] / uninstall
#
# CUDA is looked for at CUDA_HOME (/usr/local/cuda); CUDA=0 builds without
# it: the library never links CUDA (it loads libcudart at run time), only
# the device-side tests, samples and the calibration kernel need nvcc.
#
# The library's sources are host/<layer>/*.c (core, gpu, report); each
# part of the build beside it has a makefile of its own, all included
# below, in one list.

prefix      ?= /usr/local
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
libdir      ?= $(exec_prefix)/lib
includedir  ?= $(prefix)/include
pkgconfigdir ?= $(libdir)/pkgconfig
DESTDIR     ?=
BUILD       ?= build
CUDA_HOME   ?= /usr/local/cuda
NVCC        ?= $(CUDA_HOME)/bin/nvcc
CUDA        ?= $(if $(wildcard $(NVCC)),1,0)
# The toolkit's major version (11, 12, 13), read from nvcc.
CUDA_MAJOR  := $(if $(filter 1,$(CUDA)),$(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p'))
# The host compiler nvcc runs: nvcc's own choice, but for CUDA 11, which
# takes gcc 11 at most, g++-11 where it is installed (Debian 12's gcc is 12).
NVCC_CCBIN  ?= $(if $(filter 11,$(CUDA_MAJOR)),$(shell command -v g++-11 2>/dev/null))
# How ptkit's own CUDA programs (the GPU suite, bench-gpu, the samples)
# link the CUDA runtime: shared, so the process has one runtime, which
# libptkit then uses too (static is nvcc's default; docs/gpu.md says what
# that means).
CUDART      ?= shared
# Source lines in the GPU suite's and benchmark's SASS, for a profiler.
# GPGPU-Sim's PTX parser reads no `.loc ... inlined_at`: a simulated run
# sets LINEINFO= (docs/gpu.md).
LINEINFO    ?= -lineinfo
# nvcc as every rule runs it.
NVCC_CMD     = $(NVCC)$(if $(NVCC_CCBIN), -ccbin $(NVCC_CCBIN))
# Architectures the device code is built for; sm_80 (A100) and sm_90 (H100/H200).
# The simulated GPU (GPGPU-Sim, docs/gpu.md) is sm_70, with CUDA 11.
CUDA_ARCHS  ?= 80 90
# nvcc's targets for them: SASS for each, and PTX of the newest, which
# later GPUs compile when they load it.
PT_GENCODE  := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
               -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))

VERSION := $(shell sed -n 's/^\#define PT_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' include/pt/pt_version.h | paste -sd. -)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))

WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wundef -Wpointer-arith -Wformat=2 -Wvla
# Ours first, the user's CPPFLAGS/CFLAGS/LDFLAGS appended so they win.
PT_CPPFLAGS := -Iinclude -Ihost -Idevice -I$(BUILD)/gen -D_POSIX_C_SOURCE=200809L -DPT_CUDA_HOME='"$(CUDA_HOME)"' \
               -DPT_BUILD_CUDA=$(CUDA)
PT_CFLAGS   := -O2 -g -fPIC -fvisibility=hidden $(WARN)
PT_LDLIBS   := -lm -lpthread -ldl
DEPFLAGS     = -MMD -MP

LIB_SRCS := $(wildcard host/*/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

# What the included makefiles add to: generated sources compiled into the
# library (embedded headers, kernels), programs installed with it, what
# `make test` builds first, and what the suite links beside its objects.
LIB_GEN_OBJS :=
INSTALL_BINS :=
TEST_PREREQS :=
TEST_LDLIBS  := -lcriterion -ljansson $(PT_LDLIBS)
TEST_EXTRA_OBJS ?=

LIB_A  := $(BUILD)/lib/libptkit.a
LIB_SO := $(BUILD)/lib/libptkit.so
LIB_SO_V := $(LIB_SO).$(VERSION)

PKGCONFIG_IN := ptkit.pc.in

.PHONY: all lib clean test test-gpu bench-host bench-static bench-gpu demo samples list-samples \
        install uninstall test-deps

all: lib

# Every other makefile, in the order their variables build up: the tools
# and generated sources first, then what is built on them. A missing one
# stops the build.
include gen/gen.mk
include tools/ptreport/ptreport.mk
include tests/fuzz/fuzz.mk
include device/device.mk
include tests/gpu/gpu.mk
include tests/kernels/kernels.mk
include tests/tests.mk
include tests/mpi/mpi.mk
include samples/samples.mk
include tests/hw/hw.mk
include python/python.mk
include cmake/cmake.mk
include tests/consumers/consumers.mk

lib: $(LIB_A) $(LIB_SO)

# NVTX 3 is header-only, found beside CUDA's other headers.
ifeq ($(CUDA),1)
$(BUILD)/obj/host/core/nvtx.o $(BUILD)/obj/tests/nvtx.o: PT_CPPFLAGS += -I$(CUDA_HOME)/include
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(CPPFLAGS) $(PT_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJS) $(LIB_GEN_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO_V): $(LIB_OBJS) $(LIB_GEN_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libptkit.so.$(SOMAJOR) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ $^ $(PT_LDLIBS)

$(LIB_SO): $(LIB_SO_V)
	ln -sf $(notdir $(LIB_SO_V)) $(BUILD)/lib/libptkit.so.$(SOMAJOR)
	ln -sf $(notdir $(LIB_SO_V)) $@

# A recipe: $@ holds $(1), written only when $(1) differs from what it
# holds, so whatever depends on $@ is made again exactly when $(1) changes.
write_if_changed = @mkdir -p $(@D); echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@

# The directories and version the installed files name (ptkit.pc, the
# CMake package), so `make install prefix=B` after `prefix=A` writes B.
INSTALL_VARS := $(BUILD)/install.vars
.PHONY: install-vars-always
install-vars-always:
$(INSTALL_VARS): install-vars-always
	$(call write_if_changed,$(prefix) $(exec_prefix) $(bindir) $(libdir) $(includedir) $(VERSION))

$(BUILD)/ptkit.pc: $(PKGCONFIG_IN) $(INSTALL_VARS)
	@mkdir -p $(@D)
	sed -e 's|@prefix@|$(prefix)|' -e 's|@libdir@|$(libdir)|' \
	    -e 's|@includedir@|$(includedir)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

install: lib $(BUILD)/ptkit.pc $(INSTALL_BINS)
	install -d $(DESTDIR)$(includedir)/pt $(DESTDIR)$(libdir) $(DESTDIR)$(pkgconfigdir) \
	    $(DESTDIR)$(bindir)
	install -m 644 include/pt/*.h $(DESTDIR)$(includedir)/pt/
	if [ -d include/pt/detail ] && ls include/pt/detail/*.h >/dev/null 2>&1; then \
	    install -d $(DESTDIR)$(includedir)/pt/detail; \
	    install -m 644 include/pt/detail/*.h $(DESTDIR)$(includedir)/pt/detail/; fi
	install -m 644 $(LIB_A) $(DESTDIR)$(libdir)/
	install -m 755 $(LIB_SO_V) $(DESTDIR)$(libdir)/
	ln -sf $(notdir $(LIB_SO_V)) $(DESTDIR)$(libdir)/libptkit.so.$(SOMAJOR)
	ln -sf $(notdir $(LIB_SO_V)) $(DESTDIR)$(libdir)/libptkit.so
	install -m 644 $(BUILD)/ptkit.pc $(DESTDIR)$(pkgconfigdir)/
	$(if $(INSTALL_BINS),install -m 755 $(INSTALL_BINS) $(DESTDIR)$(bindir)/)

uninstall:
	rm -rf $(DESTDIR)$(includedir)/pt
	rm -f $(DESTDIR)$(libdir)/libptkit.a $(DESTDIR)$(libdir)/libptkit.so \
	    $(DESTDIR)$(libdir)/libptkit.so.$(SOMAJOR) $(DESTDIR)$(libdir)/$(notdir $(LIB_SO_V)) \
	    $(DESTDIR)$(pkgconfigdir)/ptkit.pc
	$(foreach b,$(notdir $(INSTALL_BINS)),rm -f $(DESTDIR)$(bindir)/$(b);)

clean:
	rm -rf $(BUILD)

# The dependency files the compiler writes beside each object (-MMD -MP):
# those of this build's objects alone, whichever other builds share the
# folder. Silent, since there are none before the first build.
DEP_OBJS := $(LIB_OBJS) $(filter $(BUILD)/obj/generated/%,$(LIB_GEN_OBJS)) $(GEN_TOOL_OBJS) \
            $(PTREPORT_OBJS) $(TEST_OBJS) $(TEST_EXTRA_OBJS) $(BENCH_HOST_OBJS) \
            $(GPU_TEST_C:%.c=$(BUILD)/obj/%.o)
-include $(DEP_OBJS:.o=.d)
