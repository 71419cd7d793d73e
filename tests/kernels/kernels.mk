# Test artifacts made by the build, all under $(BUILD)/kernels/ (the tests
# find them through PT_BUILD):
#   - ptgen headers compiled into the tests, and the outcomes of compiling
#     ptgen headers with pt_dev.h in every order (tests/ptgen.c);
#   - with CUDA: PTX of the test kernels, ptxas reports, the disabled and
#     the stripped PTX, and a host runner of __host__ __device__ phase code
#     (tests/dev_compile.c), and NVRTC for tests/nvrtc.c.
# nvcc is slow, so this is a handful of compiles.

KDIR := $(BUILD)/kernels
PT_DEV_HDRS := include/pt/pt_dev.h include/pt/pt_dev_buf.h $(wildcard include/pt/detail/pt_dev*.h)

$(KDIR)/pt_test_phases.h: tests/kernels/phases.txt $(PTGEN)
	@mkdir -p $(@D)
	$(PTGEN) $< -o $@ --name test --prefix PH_

$(BUILD)/obj/tests/ptgen.o: $(KDIR)/pt_test_phases.h
$(BUILD)/obj/tests/ptgen.o: PT_CPPFLAGS += -I$(KDIR)

# Lists of 20 and 24 phases, p0..pN-1.
$(KDIR)/many%.h: $(PTGEN)
	@mkdir -p $(@D)
	for i in $$(seq 0 $$(($* - 1))); do echo "p$$i"; done > $@.txt
	$(PTGEN) $@.txt -o $@ --name many$* --prefix M$*_

# Header combinations that must build or must not: each case's exit status
# (0: it compiled) in header_cases.txt, its diagnostics in header_cases.N.log.
$(KDIR)/header_cases.txt: tests/kernels/header_cases.c $(KDIR)/many20.h $(KDIR)/many24.h \
                          $(KDIR)/pt_test_phases.h $(PT_DEV_HDRS)
	for c in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do \
	    $(CC) $(PT_CPPFLAGS) -I$(KDIR) $(WARN) -Werror -fsyntax-only -DCASE=$$c $< \
	        > $(KDIR)/header_cases.$$c.log 2>&1; \
	    echo "$$c $$?"; \
	done > $@.tmp
	mv $@.tmp $@
TEST_PREREQS += $(KDIR)/header_cases.txt

# Host mode built with PT_DEV_DISABLE, and the reader of compiled kernels'
# figures (kstat.h), linked into the tests.
TEST_EXTRA_OBJS += $(BUILD)/obj/tests/kernels/dev_disabled.o $(BUILD)/obj/tests/kernels/kstat.o

ifeq ($(CUDA),1)
KERNEL_NVCCFLAGS ?= --Werror all-warnings
K_NVCC := $(NVCC_CMD) -std=c++17 -Iinclude -I$(KDIR) $(KERNEL_NVCCFLAGS)
K_DEPS := $(KDIR)/pt_test_phases.h $(PT_DEV_HDRS)

# The C-style kernels, for sm_80 and sm_90, as CUDA whatever the extension.
$(KDIR)/phases_c.sm_%.ptx: tests/kernels/phases_c.c $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) -x cu -ptx -arch=sm_$* -o $@ $<

# The same with PT_DEV_DISABLE, and with the macro lines deleted instead:
# tests/dev_compile.c expects the same PTX.
$(KDIR)/phases_c.disabled.sm_90.ptx: tests/kernels/phases_c.c $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) -DPT_DEV_DISABLE -x cu -ptx -arch=sm_90 -o $@ $<
$(KDIR)/phases_c.stripped.c: tests/kernels/phases_c.c
	@mkdir -p $(@D)
	sed -e '/^[[:space:]]*PT_DEV_\(BEGIN\|BEGIN_AT\|MARK\|END\)(/d' $< > $@.tmp
	mv $@.tmp $@
$(KDIR)/phases_c.stripped.sm_90.ptx: $(KDIR)/phases_c.stripped.c $(K_DEPS)
	$(K_NVCC) -x cu -ptx -arch=sm_90 -o $@ $<

# C++: templates, enum class phases, PT_DEV_PER_WARP.
$(KDIR)/phases_cpp.sm_90.ptx: tests/kernels/phases.cu $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) -ptx -arch=sm_90 -o $@ $<

# A warp-specialized kernel, a buffer per role (PT_DEV_BEGIN_ROLE).
$(KDIR)/roles.sm_90.ptx: tests/kernels/roles.cu $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) -ptx -arch=sm_90 -o $@ $<

# Marks that must build or must not under nvcc, as header_cases.txt above.
$(KDIR)/mark_cases.txt: tests/kernels/mark_cases.cu $(PT_DEV_HDRS)
	@mkdir -p $(@D)
	for c in 1 2 3 4 5; do \
	    $(K_NVCC) -Xcompiler -Wall,-Wextra,-Werror -c -arch=sm_90 -DCASE=$$c -o /dev/null $< \
	        > $(KDIR)/mark_cases.$$c.log 2>&1; \
	    echo "$$c $$?"; \
	done > $@.tmp
	mv $@.tmp $@
TEST_PREREQS += $(KDIR)/mark_cases.txt

# Registers, stack and spills, from ptxas -v on the PTX above.
$(KDIR)/%.ptxas.txt: $(KDIR)/%.ptx
	$(K_NVCC) -cubin -arch=$(lastword $(subst ., ,$*)) -Xptxas -v -o $(KDIR)/$*.cubin $< \
	    > $@.tmp 2>&1
	mv $@.tmp $@

# A __host__ __device__ phase function built for sm_90 and for the host;
# the test runs it on the CPU.
$(KDIR)/hostdev: tests/kernels/hostdev.cu host/gpu/dev_host.c $(PT_DEV_HDRS)
	@mkdir -p $(@D)
	$(K_NVCC) -arch=sm_90 -Xcompiler -Wall,-Wextra -o $@ tests/kernels/hostdev.cu host/gpu/dev_host.c

TEST_PREREQS += $(KDIR)/phases_c.sm_80.ptx $(KDIR)/phases_c.sm_90.ptx \
                $(KDIR)/phases_c.sm_80.ptxas.txt $(KDIR)/phases_c.sm_90.ptxas.txt \
                $(KDIR)/phases_c.disabled.sm_90.ptx $(KDIR)/phases_c.stripped.sm_90.ptx \
                $(KDIR)/phases_cpp.sm_90.ptx $(KDIR)/phases_cpp.sm_90.ptxas.txt $(KDIR)/hostdev \
                $(KDIR)/roles.sm_90.ptxas.txt

# The benchmark kernels (tests/kernels/{gemm,attention,dynamic,helper}.cu,
# see forms.h), each in its forms: orig (no instrumentation), ptkit (its
# default: the accumulators in shared memory), reg (PT_DEV_SHARED=0: in
# registers), hand (the hand-written clock64 pattern), trace (ptkit with
# PT_DEV_TRACING), off (ptkit with PT_DEV_DISABLE); PTX, then cubin and ptxas report through
# the rule above, and -G builds straight from the source. The tests read
# some (TEST_PREREQS), bench-static all (BENCH_STATIC_FILES).
BK_DIR     := $(KDIR)/bench
BK_KERNELS := gemm attention dynamic helper
BK_FORMS   := orig ptkit reg hand trace off release
BK_FLAGS_orig  := -DPT_KFORM=0
BK_FLAGS_ptkit := -DPT_KFORM=1
BK_FLAGS_reg   := -DPT_KFORM=1 -DPT_DEV_SHARED=0
BK_FLAGS_hand  := -DPT_KFORM=2
BK_FLAGS_trace := -DPT_KFORM=1 -DPT_DEV_TRACING
BK_FLAGS_off   := -DPT_KFORM=1 -DPT_DEV_DISABLE
BK_FLAGS_release := -DPT_KFORM=1 -DPT_DEV_END_RELEASE
BK_PREFIX_gemm      := GEMM_
BK_PREFIX_attention := ATT_
BK_PREFIX_solve     := SOLVE_
BK_DEPS := $(KDIR)/pt_bench_gemm.h $(KDIR)/pt_bench_attention.h $(KDIR)/pt_bench_solve.h \
           tests/kernels/forms.h $(K_DEPS)

$(KDIR)/pt_bench_%.h: tests/kernels/%.phases $(PTGEN)
	@mkdir -p $(@D)
	$(PTGEN) $< -o $@ --name $* --prefix $(BK_PREFIX_$*)

# $(call bk_rules,kernel,form)
define bk_rules
$(BK_DIR)/$(1).$(2).sm_%.ptx: tests/kernels/$(1).cu $(BK_DEPS)
	@mkdir -p $$(@D)
	$(K_NVCC) $(BK_FLAGS_$(2)) -ptx -arch=sm_$$* -o $$@ $$<
$(BK_DIR)/$(1).$(2).G.sm_90.ptxas.txt: tests/kernels/$(1).cu $(BK_DEPS)
	@mkdir -p $$(@D)
	$(K_NVCC) $(BK_FLAGS_$(2)) -G -cubin -arch=sm_90 -Xptxas -v \
	    -o $(BK_DIR)/$(1).$(2).G.sm_90.cubin $$< > $$@.tmp 2>&1
	mv $$@.tmp $$@
endef
$(foreach k,$(BK_KERNELS),$(foreach f,$(BK_FORMS),$(eval $(call bk_rules,$(k),$(f)))))

# Kept: the cubins and reports are made from them.
.SECONDARY: $(foreach k,$(BK_KERNELS),$(foreach f,$(BK_FORMS),$(foreach a,80 90,$(BK_DIR)/$(k).$(f).sm_$(a).ptx))) \
            $(BK_DIR)/cost.sm_90.ptx $(BK_DIR)/cost_warp.sm_90.ptx

# What each macro costs on its own (tests/kernels/cost.cu), and a role's
# marks and a span's events beside a phase mark (tests/kernels/cost_warp.cu).
$(BK_DIR)/cost.sm_90.ptx $(BK_DIR)/cost_warp.sm_90.ptx: $(BK_DIR)/%.sm_90.ptx: tests/kernels/%.cu $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) -ptx -arch=sm_90 -o $@ $<
TEST_PREREQS += $(BK_DIR)/cost_warp.sm_90.ptxas.txt

# Marks between a multiply and its add, in every mode (tests/kernels/contract.cu).
CT_MODES := off smem reg smem_trace reg_trace warp
CT_FLAGS_off        := -DPT_DEV_DISABLE
CT_FLAGS_smem       :=
CT_FLAGS_reg        := -DPT_DEV_SHARED=0
CT_FLAGS_smem_trace := -DPT_DEV_TRACING
CT_FLAGS_reg_trace  := -DPT_DEV_TRACING -DPT_DEV_SHARED=0
CT_FLAGS_warp       := -DPT_DEV_PER_WARP
$(KDIR)/contract.%.sm_90.ptx: tests/kernels/contract.cu $(K_DEPS)
	@mkdir -p $(@D)
	$(K_NVCC) $(CT_FLAGS_$*) -ptx -arch=sm_90 -o $@ $<
TEST_PREREQS += $(foreach m,$(CT_MODES),$(KDIR)/contract.$(m).sm_90.ptx)

# The compile checks' share: the instrumented kernels' registers and stack
# (sm_80 and sm_90), the GEMM's -G registers, and the PTX they compare.
TEST_PREREQS += $(foreach k,$(BK_KERNELS),$(foreach a,80 90,$(BK_DIR)/$(k).ptkit.sm_$(a).ptxas.txt) \
                  $(foreach f,orig ptkit reg hand trace off release,$(BK_DIR)/$(k).$(f).sm_90.ptx) \
                  $(foreach f,reg hand,$(BK_DIR)/$(k).$(f).sm_90.ptxas.txt)) \
                $(BK_DIR)/gemm.orig.sm_90.ptxas.txt $(BK_DIR)/gemm.ptkit.G.sm_90.ptxas.txt \
                $(BK_DIR)/gemm.reg.G.sm_90.ptxas.txt
BENCH_STATIC_FILES := $(foreach k,$(BK_KERNELS),$(foreach f,orig ptkit reg hand,\
                        $(BK_DIR)/$(k).$(f).sm_90.ptxas.txt $(BK_DIR)/$(k).$(f).G.sm_90.ptxas.txt)) \
                      $(BK_DIR)/cost.sm_90.ptxas.txt $(BK_DIR)/cost_warp.sm_90.ptxas.txt

# bench-gpu runs the GEMM and the attention pass in four forms, each an
# object of its own whose kernel is renamed <kernel>_<form>.
# release: ptkit with END's DONE a release store (PT_DEV_END_RELEASE);
# clock and clockall: the floors of a mark, forms.h's probes.
BK_FLAGS_clock    := -DPT_KFORM=3
BK_FLAGS_clockall := -DPT_KFORM=4
BK_OBJ_FORMS    := orig ptkit reg hand release clock clockall
BENCH_GPU_KOBJS := $(foreach k,gemm attention,$(foreach f,$(BK_OBJ_FORMS),$(BK_DIR)/$(k).$(f).o))
define bk_obj_rule
$(BK_DIR)/$(1).$(2).o: tests/kernels/$(1).cu $(BK_DEPS)
	@mkdir -p $$(@D)
	$(K_NVCC) -O3 $(LINEINFO) $(NVCCFLAGS) $(PT_GENCODE) $(BK_FLAGS_$(2)) -D$(1)=$(1)_$(2) -c -o $$@ $$<
endef
$(foreach k,gemm attention,$(foreach f,$(BK_OBJ_FORMS),$(eval $(call bk_obj_rule,$(k),$(f)))))
$(BENCH_GPU): $(BENCH_GPU_KOBJS)
# The GPU suite launches them too (tests/gpu/forms.cu).
$(GPU_TEST_BIN): $(BENCH_GPU_KOBJS)

# NVRTC compiles kernels at run time; it needs no GPU.
$(BUILD)/obj/tests/nvrtc.o: PT_CPPFLAGS += -isystem $(CUDA_HOME)/include
TEST_LDLIBS += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnvrtc
endif

# The corpus (tests/kernels/corpus/): kernels of public projects rebuilt
# in their shape (each file says which, and its licence), compiled bare,
# with ptkit in shared memory (the default) and in registers, for sm_80
# and sm_90 in one nvcc run each; tests/corpus.c holds the default mode
# to the kernel's registers, stack and occupancy, bench-static prints
# every form. CORPUS=0 leaves it out (24 compiles).
CORPUS         ?= $(CUDA)
CORPUS_KERNELS := $(basename $(notdir $(wildcard tests/kernels/corpus/*.cu)))
CORPUS_FORMS   := orig ptkit reg
CORPUS_DIR     := $(KDIR)/corpus
CORPUS_FLAGS_orig  := -DPT_KFORM=0
CORPUS_FLAGS_ptkit := -DPT_KFORM=1
CORPUS_FLAGS_reg   := -DPT_KFORM=1 -DPT_DEV_SHARED=0
CORPUS_REPORTS := $(foreach k,$(CORPUS_KERNELS),$(foreach f,$(CORPUS_FORMS),$(CORPUS_DIR)/$(k).$(f).ptxas.txt))

ifeq ($(CUDA)$(CORPUS),11)
define corpus_rule
$(CORPUS_DIR)/$(1).$(2).ptxas.txt: tests/kernels/corpus/$(1).cu tests/kernels/forms.h $(PT_DEV_HDRS)
	@mkdir -p $$(@D)
	$(K_NVCC) -O3 $(CORPUS_FLAGS_$(2)) -gencode arch=compute_80,code=sm_80 \
	    -gencode arch=compute_90,code=sm_90 -Xptxas -v -c -o $$(@:.ptxas.txt=.o) $$< > $$@.tmp 2>&1
	mv $$@.tmp $$@
endef
$(foreach k,$(CORPUS_KERNELS),$(foreach f,$(CORPUS_FORMS),$(eval $(call corpus_rule,$(k),$(f)))))
TEST_PREREQS += $(CORPUS_REPORTS)
BENCH_STATIC_FILES += $(CORPUS_REPORTS)
endif
