# Samples: complete programs, each a real use. `make demo` runs the flagship.
# With CUDA they are built by nvcc for CUDA_ARCHS and run on a GPU when the
# machine has one, else on the CPU path; with CUDA=0 the C++ compiler builds
# the CPU path alone.
SAMPLE_NAMES := transport_step led_optimizer solver_phases gpu_ops warp_roles
# quickstart is README.md's example: a .cu file as written, so nvcc alone builds it.
ifeq ($(CUDA),1)
SAMPLE_NAMES += nvrtc_phases quickstart
endif
SAMPLE_BINS  := $(SAMPLE_NAMES:%=$(BUILD)/samples/%)
SAMPLE_OUT   := $(BUILD)/samples/out

SAMPLE_NVCCFLAGS ?= -O2 -std=c++17 $(PT_GENCODE) --cudart $(CUDART) -Xcompiler -Wall,-Wextra
SAMPLE_CXXFLAGS  ?= -O2 -std=c++17 -Wall -Wextra

# Plain C samples: the host API only.
$(BUILD)/samples/led_optimizer: samples/led_optimizer/led_optimizer.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(CPPFLAGS) -O2 $(WARN) $(CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS) $(PT_LDLIBS)

# CUDA samples: samples/NAME/NAME.cu.
CUDA_SAMPLES := transport_step solver_phases gpu_ops warp_roles

# solver_phases takes its phases from a ptgen list, as a header in the build
# directory that the kernel and the report share.
$(BUILD)/gen/solver_phases.h: samples/solver_phases/solver.phases $(PTGEN)
	@mkdir -p $(@D)
	$(PTGEN) $< -o $@ --prefix PH_ --name solver
$(BUILD)/samples/solver_phases: $(BUILD)/gen/solver_phases.h
ifeq ($(CUDA),1)
define cuda_sample
$$(BUILD)/samples/$(1): samples/$(1)/$(1).cu $$(LIB_A) $$(wildcard include/pt/*.h include/pt/detail/*.h)
	@mkdir -p $$(@D)
	$$(NVCC_CMD) $$(SAMPLE_NVCCFLAGS) -Iinclude -I$$(BUILD)/gen -o $$@ $$< $$(LIB_A) \
	    -Xlinker -rpath,$$(CUDA_HOME)/lib64 -ldl -lpthread -lm
endef
else
define cuda_sample
$$(BUILD)/samples/$(1): samples/$(1)/$(1).cu $$(LIB_A) $$(wildcard include/pt/*.h include/pt/detail/*.h)
	@mkdir -p $$(@D)
	$$(CXX) $$(SAMPLE_CXXFLAGS) $$(CPPFLAGS) $$(CXXFLAGS) -Iinclude -I$$(BUILD)/gen -x c++ \
	    -o $$@ $$< -x none $$(LIB_A) $$(LDFLAGS) -ldl -lpthread -lm
endef
endif
$(foreach s,$(CUDA_SAMPLES),$(eval $(call cuda_sample,$(s))))
ifeq ($(CUDA),1)
$(eval $(call cuda_sample,quickstart))
endif

# nvrtc_phases compiles its kernel at run time, so it needs NVRTC (and the
# driver API, opened at run time, to load the PTX): built only with CUDA.
ifeq ($(CUDA),1)
$(BUILD)/samples/nvrtc_phases: samples/nvrtc_phases/nvrtc_phases.cu $(LIB_A) $(wildcard include/pt/*.h include/pt/detail/*.h)
	@mkdir -p $(@D)
	$(NVCC_CMD) $(SAMPLE_NVCCFLAGS) -Iinclude -I$(BUILD)/gen -o $@ $< $(LIB_A) \
	    -L$(CUDA_HOME)/lib64 -lnvrtc -Xlinker -rpath,$(CUDA_HOME)/lib64 -ldl -lpthread -lm
endif

samples: $(SAMPLE_BINS)

list-samples: $(SAMPLE_BINS)
	@for b in $(SAMPLE_BINS); do echo $$b; done

# The report is the first screen: the build goes to a log, one line says
# so (and the log's end is shown when the build fails).
DEMO_LOG := $(BUILD)/demo-build.log
demo:
	@mkdir -p $(SAMPLE_OUT)
	@echo "building libptkit and samples/transport_step (log: $(DEMO_LOG))"
	@$(MAKE) --no-print-directory $(BUILD)/samples/transport_step > $(DEMO_LOG) 2>&1 || \
	    { tail -n 40 $(DEMO_LOG); echo "make demo: the build failed; the whole log is $(DEMO_LOG)"; exit 1; }
	@echo "running $(BUILD)/samples/transport_step"
	@$(BUILD)/samples/transport_step - $(SAMPLE_OUT)

# The picture of the demo's HTML report that README.md shows, taken by
# headless Chromium (installed here as root, as `make test BROWSER=1` does).
CHROMIUM ?= chromium
SCREENSHOT := samples/transport_step/report.png
.PHONY: screenshots
screenshots: $(BUILD)/samples/transport_step
	@sh tests/deps.sh chromium
	@mkdir -p $(SAMPLE_OUT) docs
	$(BUILD)/samples/transport_step - $(SAMPLE_OUT) > /dev/null
	profile=$$(mktemp -d) && timeout 120 $(CHROMIUM) --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking --disable-component-update \
	    --disable-sync --hide-scrollbars --user-data-dir=$$profile --window-size=1400,1400 \
	    --screenshot=$(abspath $(SCREENSHOT)) file://$(abspath $(SAMPLE_OUT))/transport_step.html \
	    2> $(SAMPLE_OUT)/chromium.log; rc=$$?; rm -rf $$profile; exit $$rc
	@echo "wrote $(SCREENSHOT)"
