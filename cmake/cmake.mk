# The CMake package (included by the top Makefile): ptkitConfig.cmake and
# ptkitConfigVersion.cmake, made from the templates here and installed to
# $(cmakedir), so a CMake project finds ptkit with
# find_package(ptkit CONFIG REQUIRED). The package names its directories
# relative to its own place (a moved or DESTDIR-staged tree still works);
# they are made again when the install's directories change
# ($(INSTALL_VARS)).

cmakedir ?= $(libdir)/cmake/ptkit
CMAKE_PKG := $(BUILD)/cmake/ptkitConfig.cmake $(BUILD)/cmake/ptkitConfigVersion.cmake

# A directory as seen from $(cmakedir).
cmake_rel = $(shell realpath -m --relative-to='$(cmakedir)' '$(1)')

$(BUILD)/cmake/%.cmake: cmake/%.cmake.in $(INSTALL_VARS) $(BUILD)/cmake/dirs.vars
	@mkdir -p $(@D)
	sed -e 's|@INCLUDEDIR_REL@|$(call cmake_rel,$(includedir))|' \
	    -e 's|@LIBDIR_REL@|$(call cmake_rel,$(libdir))|' \
	    -e 's|@BINDIR_REL@|$(call cmake_rel,$(bindir))|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@SOMAJOR@|$(SOMAJOR)|' \
	    -e 's|@VERSION_MAJOR@|$(word 1,$(subst ., ,$(VERSION)))|' \
	    -e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(VERSION)))|' $< > $@.tmp
	mv $@.tmp $@

# cmakedir may be set alone.
.PHONY: cmake-dirs-always
cmake-dirs-always:
$(BUILD)/cmake/dirs.vars: cmake-dirs-always
	$(call write_if_changed,$(cmakedir))

.PHONY: install-cmake uninstall-cmake
install: install-cmake
install-cmake: $(CMAKE_PKG)
	install -d $(DESTDIR)$(cmakedir)
	install -m 644 $(CMAKE_PKG) $(DESTDIR)$(cmakedir)/

uninstall: uninstall-cmake
uninstall-cmake:
	rm -f $(addprefix $(DESTDIR)$(cmakedir)/,$(notdir $(CMAKE_PKG)))
	rmdir $(DESTDIR)$(cmakedir) 2>/dev/null || true
