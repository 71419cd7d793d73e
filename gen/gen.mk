# Build tools and what they generate (included by the top Makefile).
#
#   $(BUILD)/bin/ptgen      phase list -> header (installed)
#   $(BUILD)/bin/ptembed    files -> C strings (build only)
#   $(BUILD)/gen/pt_dev_embed.c   pt_dev.h and the headers it includes, as
#                                 text for pt_nvrtc_headers(); part of libptkit

PTGEN   := $(BUILD)/bin/ptgen
PTEMBED := $(BUILD)/bin/ptembed
GEN_TOOL_OBJS := $(BUILD)/obj/gen/ptgen.o $(BUILD)/obj/gen/ptembed.o

.PHONY: ptgen
ptgen: $(PTGEN)
all: $(PTGEN)
INSTALL_BINS += $(PTGEN)
TEST_PREREQS += $(PTGEN)

# Every PT_ name ptkit's public headers define or use, sorted, as C string
# literals: a phase whose enum member would be one of them (ptgen
# --prefix PT_DEV_ with a phase named "phases") is refused, since the
# header's macro would shadow it.
PT_PUBLIC_HDRS := $(wildcard include/pt/*.h include/pt/detail/*.h)
$(BUILD)/gen/pt_reserved.h: $(PT_PUBLIC_HDRS) gen/gen.mk
	@mkdir -p $(@D)
	grep -ohE '\bPT_[A-Z0-9_]+' $(PT_PUBLIC_HDRS) | LC_ALL=C sort -u | sed 's/.*/    "&",/' > $@.tmp
	mv $@.tmp $@
$(BUILD)/obj/gen/ptgen.o: $(BUILD)/gen/pt_reserved.h

$(PTGEN): $(BUILD)/obj/gen/ptgen.o
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(PTEMBED): $(BUILD)/obj/gen/ptembed.o
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The headers an NVRTC program reaches from <pt/pt_dev.h>, by include name:
# pt_dev.h, the record format, and the detail headers named pt_dev*.h.
PT_DEV_EMBED_NAMES := pt/pt_dev.h pt/pt_dev_buf.h \
    $(patsubst include/%,%,$(sort $(wildcard include/pt/detail/pt_dev*.h)))

$(BUILD)/gen/pt_dev_embed.c: $(PTEMBED) $(addprefix include/,$(PT_DEV_EMBED_NAMES))
	@mkdir -p $(@D)
	$(PTEMBED) -o $@ -n pt__dev_embed -C include $(PT_DEV_EMBED_NAMES)

# Generated sources compile exactly as the library's own.
$(BUILD)/obj/generated/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(PT_CPPFLAGS) $(CPPFLAGS) $(PT_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

LIB_GEN_OBJS += $(BUILD)/obj/generated/pt_dev_embed.o

# The HTML report's page (styles and script), written as a plain file and
# embedded for host/report/export_html.c, which puts the run's data into it.
$(BUILD)/gen/pt_html_embed.c: $(PTEMBED) host/report/export_html.html
	@mkdir -p $(@D)
	$(PTEMBED) -o $@ -n pt__html_embed -C host/report export_html.html

LIB_GEN_OBJS += $(BUILD)/obj/generated/pt_html_embed.o
