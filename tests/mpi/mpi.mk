# test-mpi: pt_mpi_gather (include/pt/pt_mpi.h) run by mpirun on MPI_NP
# ranks, built with mpicc against the static libptkit. Included by the top
# Makefile. Without mpicc or mpirun it says so and succeeds: MPI is
# optional (Debian: apt-get install libopenmpi-dev openmpi-bin).
#
# The run is set up through Open MPI's environment variables rather than
# its flags, so another MPI's mpirun ignores them instead of refusing an
# unknown option: run as root when root (containers), more ranks than
# cores, shared memory only (no network needed), and no ssh needed for a
# launch on this machine alone.

MPICC   ?= mpicc
MPIRUN  ?= mpirun
MPI_NP  ?= 2
MPI_ENV ?= OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
           OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader \
           OMPI_MCA_plm_rsh_agent=

MPI_TEST := $(BUILD)/tests/mpi_gather
MPI_OUT  := $(BUILD)/tests/mpi-out

.PHONY: test-mpi test-mpi-run

$(MPI_TEST): tests/mpi/gather.c include/pt/pt_mpi.h include/pt/pt.h $(LIB_A)
	@mkdir -p $(@D)
	$(MPICC) $(PT_CPPFLAGS) $(CPPFLAGS) -O2 -g $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ \
	    tests/mpi/gather.c $(LIB_A) $(PT_LDLIBS)

test-mpi:
	@if command -v $(MPICC) >/dev/null 2>&1 && command -v $(MPIRUN) >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory test-mpi-run; \
	else \
	    echo "test-mpi: skipped: $(MPICC) or $(MPIRUN) not found (Debian: apt-get install" \
	         "libopenmpi-dev openmpi-bin)"; \
	fi

test-mpi-run: $(MPI_TEST)
	rm -rf $(MPI_OUT)
	@mkdir -p $(MPI_OUT)
	$(MPI_ENV) $(MPIRUN) -np $(MPI_NP) $(MPI_TEST) $(MPI_OUT)
