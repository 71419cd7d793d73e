# Device code: ptkit's own kernels (clock calibration, the fold's
# reduction), built by nvcc into fatbins for CUDA_ARCHS plus PTX of the
# newest one (so later GPUs can JIT it), and embedded into libptkit as C
# arrays with bin2c. The library loads them at run time through the CUDA
# runtime it dlopens; it never links CUDA. With CUDA=0 each array is an
# empty stand-in: the library links, and the calibration and reduction say
# they are unavailable.

BIN2C ?= $(CUDA_HOME)/bin/bin2c
NVCCFLAGS ?=
PT_NVCCFLAGS := -O3 -std=c++17 -Iinclude -Idevice

DEVICE_KERNELS := calibrate reduce
DEVICE_HDRS := device/pt_fold_math.h device/pt_hist.h device/pt_calibrate.h include/pt/pt_dev_buf.h include/pt/pt_dev.h \
               $(wildcard include/pt/detail/pt_dev_*.h)

ifeq ($(CUDA),1)
DEVICE_GEN := $(DEVICE_KERNELS:%=$(BUILD)/gen/pt_fatbin_%.c)

$(BUILD)/gen/pt_%.fatbin: device/%.cu $(DEVICE_HDRS)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(PT_NVCCFLAGS) $(NVCCFLAGS) $(PT_GENCODE) -fatbin -o $@ $<

# -t longlong aligns the array as the loader needs a fatbin aligned. It
# lies in the .nv_fatbin section, as nvcc puts a program's fatbins, so
# tools that read a binary's device code there (cuobjdump, and the
# simulator, which takes its kernels from cuobjdump) find ptkit's too.
$(BUILD)/gen/pt_fatbin_%.c: $(BUILD)/gen/pt_%.fatbin
	@mkdir -p $(@D)
	{ echo '#include <stddef.h>'; \
	  $(BIN2C) -c -t longlong -n pt__fatbin_$* $< | \
	    sed 's/^const unsigned long long pt__fatbin_$*\[\]/__attribute__((section(".nv_fatbin"), aligned(8))) &/'; \
	  echo 'const size_t pt__fatbin_$*_size = sizeof pt__fatbin_$*;'; } > $@.tmp
	grep -q 'section(".nv_fatbin")' $@.tmp
	mv $@.tmp $@
else
DEVICE_GEN := $(DEVICE_KERNELS:%=$(BUILD)/gen/pt_nofatbin_%.c)

$(BUILD)/gen/pt_nofatbin_%.c: device/device.mk
	@mkdir -p $(@D)
	printf '%s\n' '/* Built with CUDA=0: no device code. */' '#include <stddef.h>' \
	    'const unsigned long long pt__fatbin_$*[1] = { 0 };' \
	    'const size_t pt__fatbin_$*_size = 0;' > $@
endif

# Kept, so a rebuild does not run nvcc again.
.SECONDARY: $(DEVICE_GEN) $(DEVICE_KERNELS:%=$(BUILD)/gen/pt_%.fatbin)

DEVICE_GEN_OBJS := $(DEVICE_GEN:$(BUILD)/gen/%.c=$(BUILD)/obj/device/%.o)
LIB_GEN_OBJS += $(DEVICE_GEN_OBJS)

$(BUILD)/obj/device/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(CPPFLAGS) $(PT_CFLAGS) $(CFLAGS) -c $< -o $@

