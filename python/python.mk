# The Python package (python/), tested as a user installs it: Debian's
# python3 (not another one first on PATH), a virtual environment that sees
# Debian's NumPy and pytest, and `pip install --no-build-isolation`, which
# builds libptkit with this Makefile into $(BUILD)/python/libptkit and
# ships it with the headers. Tests: python/tests, run from the build folder;
# the benchmark: tests/bench/bench_python.py.

PYTHON3     ?= /usr/bin/python3
PY_DEPS     := python3-numpy python3-pytest python3-venv python3-pip python3-setuptools \
               python3-wheel python3-dev
PY_VENV     := $(BUILD)/python/venv
PYTEST_ARGS ?=

.PHONY: python-venv test-python bench-python python-clean
python-venv:
	@sh tests/deps.sh $(PY_DEPS)
	rm -rf $(PY_VENV)
	$(PYTHON3) -m venv --system-site-packages $(PY_VENV)
	PTKIT_CUDA=$(CUDA) PTKIT_BUILD_DIR=$(abspath $(BUILD))/python/libptkit PTKIT_BUILD_JOBS=2 \
	    $(PY_VENV)/bin/pip install -q --no-build-isolation --no-index --no-deps ./python

test-python: python-venv
	cd $(BUILD)/python && CUDA_HOME=$(CUDA_HOME) venv/bin/python -m pytest -p no:cacheprovider \
	    -q $(CURDIR)/python/tests $(PYTEST_ARGS)

# A section's cost from Python against ctypes alone (tests/bench/bench_python.py).
bench-python: python-venv
	cd $(BUILD)/python && venv/bin/python $(CURDIR)/tests/bench/bench_python.py

# What setuptools leaves beside the package's sources.
python-clean:
	rm -rf python/build python/ptkit.egg-info
clean: python-clean
