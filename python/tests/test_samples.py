"""The Python samples where no GPU, CuPy or torch is needed: the CuPy
kernel compiled by NVRTC (through libnvrtc, with the options CuPy adds)
against the package's headers, its pt_dev_buf parameter laid out as the
NumPy scalar CuPy passes; the torch extension's kernel and launcher built
by nvcc, its decoding of Phases.arg_bytes; both programs saying what they
need when it is missing. On a GPU with CuPy or torch, run the samples."""

import ctypes
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

import ptkit

from conftest import TREE

SAMPLES = os.path.join(TREE, "samples", "python")
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def load_sample(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def cupy_sample():
    return load_sample(os.path.join(SAMPLES, "cupy_phases.py"), "cupy_phases")


@pytest.fixture(scope="module")
def nvrtc():
    found = sorted(glob.glob(os.path.join(CUDA_HOME, "lib64", "libnvrtc.so*")))
    if not found:
        pytest.skip(f"no libnvrtc under {CUDA_HOME}/lib64")
    lib = ctypes.CDLL(found[0])
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def nvrtc_compile(lib, source, options):
    """PTX of source, as CuPy's compiler gets it from NVRTC; raises with the log."""
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kern.cu", 0, None, None)
    assert rc == 0, lib.nvrtcGetErrorString(rc)
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    rc = lib.nvrtcCompileProgram(prog, len(options), opts)
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    try:
        assert rc == 0, f"{lib.nvrtcGetErrorString(rc).decode()}:\n{log.value.decode()}"
        lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
        ptx = ctypes.create_string_buffer(n.value)
        assert lib.nvrtcGetPTX(prog, ptx) == 0
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def cupy_options(user, std, arch):
    """What cupy.RawModule hands NVRTC for a user's options (CuPy 13's
    assemble_cupy_compiler_options and _compile_with_cache_cuda): a C++
    standard unless one is given, the user's, CuPy's and CUDA's include
    folders, -ftz=true, the architecture."""
    opts = list(user)
    if not any("-std=" in o for o in opts):
        opts.append(std)
    return opts + ["-I" + os.path.join(CUDA_HOME, "include"), "-ftz=true", arch]


def entry_params(ptx, name):
    m = re.search(r"\.entry\s+" + name + r"\s*\((.*?)\)", ptx, re.S)
    assert m, f"no .entry {name} in the PTX"
    return [p.strip() for p in m.group(1).split(",")]


@pytest.mark.parametrize("std", ["--std=c++14", "--std=c++17"])
@pytest.mark.parametrize("arch", ["-arch=compute_80", "--gpu-architecture=compute_90"])
def test_the_cupy_kernel_compiles_with_cupys_options(cupy_sample, nvrtc, std, arch):
    ptx = nvrtc_compile(nvrtc, cupy_sample.KERNEL_SOURCE, cupy_options(cupy_sample.OPTIONS, std, arch))
    params = entry_params(ptx, "step")
    assert len(params) == 5
    # The pt_dev_buf parameter is the bytes CuPy copies from the NumPy scalar.
    dt = ptkit.dev_buf_dtype()
    m = re.match(r"\.param \.align (\d+) \.b8 \w+\[(\d+)\]", params[4])
    assert m, params[4]
    assert (int(m.group(1)), int(m.group(2))) == (dt.alignment, dt.itemsize) == (8, 24)
    # BEGIN, three marks and END each read the clock once.
    assert len(re.findall(r"%clock64", ptx)) == 5
    assert "%globaltimer" in ptx and "%smid" in ptx


def test_the_cupy_samples_options_name_the_packages_headers(cupy_sample):
    assert cupy_sample.OPTIONS == ("-I" + ptkit.get_include(), "-I" + SAMPLES)
    assert cupy_sample.PHASES == ["gather", "update", "reduce"]


def test_the_cupy_samples_reference_is_the_kernels_arithmetic(cupy_sample):
    import numpy
    x = numpy.full(300, 0.5, dtype=numpy.float32)
    ref = cupy_sample.reference(x, 2)
    # r = 2.5 settles at 0.6: the first tile is 256 of it, the second 44.
    assert ref == pytest.approx([256 * 0.6, 44 * 0.6], rel=1e-5)


def test_the_samples_say_what_they_need():
    for path in (os.path.join(SAMPLES, "cupy_phases.py"),
                 os.path.join(SAMPLES, "torch_ext", "torch_phases.py")):
        r = subprocess.run([sys.executable, path], capture_output=True, text=True)
        lib = "CuPy" if "cupy" in path else "PyTorch"
        try:
            __import__("cupy" if lib == "CuPy" else "torch")
            pytest.skip(f"{lib} is installed: run the sample itself")
        except ImportError:
            pass
        assert r.returncode == 2, r.stderr
        assert f"needs {lib}" in r.stderr and "not installed here" in r.stderr


@pytest.fixture(scope="module")
def torch_kernel(tmp_path_factory):
    nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
    if not os.access(nvcc, os.X_OK):
        pytest.skip(f"no nvcc at {nvcc}")
    d = tmp_path_factory.mktemp("torch_ext")
    src = os.path.join(SAMPLES, "torch_ext", "phases_kernel.cu")
    inc = ["-I", ptkit.get_include(), "-I", os.path.dirname(src)]
    so, ptx = str(d / "libphases.so"), str(d / "phases.ptx")
    # One architecture keeps it short; the extension builds for the GPU it runs on.
    subprocess.run([nvcc, "-O2", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC",
                    "-Xcompiler", "-Wall,-Wextra,-Werror", *inc, "-o", so, src],
                   check=True, capture_output=True, text=True)
    subprocess.run([nvcc, "-std=c++17", "-arch=compute_90", "-ptx", *inc, "-o", ptx, src],
                   check=True, capture_output=True, text=True)
    lib = ctypes.CDLL(so)
    lib.phases_arg_from_bytes.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.POINTER(ptkit._capi.DevBuf)]
    return lib, open(ptx).read()


def test_the_torch_kernels_buffer_parameter_is_pt_dev_buf(torch_kernel):
    _, ptx = torch_kernel
    names = re.findall(r"\.entry\s+(\w+)", ptx)
    assert len(names) == 1 and "phases_step" in names[0]
    params = entry_params(ptx, names[0])
    assert len(params) == 5 and re.match(r"\.param \.align 8 \.b8 \w+\[24\]", params[4]), params


def test_the_torch_extension_reads_the_argument_bytes(torch_kernel):
    lib, _ = torch_kernel
    t = ptkit.Timing("torch arg")
    buf = t.phases(40, ["gather", "update", "reduce"], host=True)
    out = ptkit._capi.DevBuf()
    raw = buf.arg_bytes
    assert lib.phases_arg_from_bytes(raw, len(raw), ctypes.byref(out)) == 0
    assert (out.data, out.nslots, out.nphases, out.mode) == (int(buf.arg["data"]), 40, 3, 0)
    assert lib.phases_arg_from_bytes(raw[:16], 16, ctypes.byref(out)) == -1, "a short argument"
    other = t.phases(40, ["a", "b"], host=True)
    assert lib.phases_arg_from_bytes(other.arg_bytes, 24, ctypes.byref(out)) == -1, \
        "a buffer for two phases"
    t.close()


def test_the_samples_compile_as_python():
    for path in glob.glob(os.path.join(SAMPLES, "**", "*.py"), recursive=True):
        compile(open(path).read(), path, "exec")
