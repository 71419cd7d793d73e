# Samples: complete programs, each a real use. `make demo` runs the flagship.
# With CUDA they are built by nvcc for CUDA_ARCHS and run on a GPU when the
# machine has one, else on the CPU path; with CUDA=0 the C++ compiler builds
# the CPU path alone.
SAMPLE_NAMES := transport_step
SAMPLE_BINS  := $(SAMPLE_NAMES:%=$(BUILD)/samples/%)
SAMPLE_OUT   := $(BUILD)/samples/out

NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
SAMPLE_NVCCFLAGS ?= -O2 -std=c++17 $(NVCC_GENCODE) -Xcompiler -Wall,-Wextra
SAMPLE_CXXFLAGS  ?= -O2 -std=c++17 -Wall -Wextra

ifeq ($(CUDA),1)
$(BUILD)/samples/%: samples/%/*.cu $(LIB_A) $(wildcard include/pt/*.h include/pt/detail/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(SAMPLE_NVCCFLAGS) -Iinclude -I$(BUILD)/gen -o $@ $(filter %.cu,$^) $(LIB_A) \
	    -Xlinker -rpath,$(CUDA_HOME)/lib64 -ldl -lpthread -lm
else
$(BUILD)/samples/%: samples/%/*.cu $(LIB_A) $(wildcard include/pt/*.h include/pt/detail/*.h)
	@mkdir -p $(@D)
	$(CXX) $(SAMPLE_CXXFLAGS) $(CPPFLAGS) $(CXXFLAGS) -Iinclude -I$(BUILD)/gen -x c++ \
	    -o $@ $(filter %.cu,$^) -x none $(LIB_A) $(LDFLAGS) -ldl -lpthread -lm
endif

samples: $(SAMPLE_BINS)

list-samples: $(SAMPLE_BINS)
	@for b in $(SAMPLE_BINS); do echo $$b; done

demo: $(BUILD)/samples/transport_step
	@mkdir -p $(SAMPLE_OUT)
	$(BUILD)/samples/transport_step 10 $(SAMPLE_OUT)
