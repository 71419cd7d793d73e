# ptreport: reads the runs pt_export_json() saves (show, diff, merge,
# convert). Included by the top Makefile.
#
#   $(BUILD)/bin/ptreport     installed beside ptgen
#
# It reads JSON with jansson (Debian: libjansson-dev). `make` and `make
# demo` build it only when jansson is found, so they never fail on a
# machine without it; `make test` and `make ptreport` install it as root
# (tests/deps.sh), or stop with the exact apt command.

PTREPORT      := $(BUILD)/bin/ptreport
PTREPORT_SRCS := $(wildcard tools/ptreport/*.c)
PTREPORT_OBJS := $(PTREPORT_SRCS:%.c=$(BUILD)/obj/%.o)
PTREPORT_HAVE_JANSSON := $(shell printf '\043include <jansson.h>\n' | \
                           $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo 1)

.PHONY: ptreport ptreport-deps
ptreport: $(PTREPORT)
TEST_PREREQS += $(PTREPORT)
ifeq ($(PTREPORT_HAVE_JANSSON),1)
all: $(PTREPORT)
INSTALL_BINS += $(PTREPORT)
endif

ptreport-deps:
	@[ "$(PTREPORT_HAVE_JANSSON)" = 1 ] || sh tests/deps.sh

$(PTREPORT_OBJS): | ptreport-deps
# show and convert rebuild a timing through the library's hidden restore API, so
# ptreport links the static library (hidden symbols link there); the library's
# headers come from host/ (-Ihost, as for every object built here).

$(PTREPORT): $(PTREPORT_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ljansson $(PT_LDLIBS)
