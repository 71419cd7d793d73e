#!/usr/bin/env python3
"""Every C, C++ and CUDA code block of README.md and docs/*.md compiles.

A block's fence names its language (```c, ```cpp, ```cuda) and the line
before it says how the block is checked:

    <!-- check: body -->        statements: compiled as a function's body
    <!-- check: file -->        a file's top level
    <!-- check: file=PATH -->   the whole of PATH, byte for byte, compiled as it is
    <!-- check: skip REASON --> not compiled, for the reason given

A body or a file is compiled after tests/docs/prelude.h, which declares
the names the examples use (t, stream, x, ...) and their phases, unless
the block defines PT_DEV_PHASES itself. A line that is only
`...` stands for the user's code. A block without its check line fails,
so no example can go unchecked. Exit status: 0 when every block passed.

    check.py BUILD_DIR FILE.md...
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
NVCC = shlex.split(os.environ.get("NVCC", os.path.join(CUDA_HOME, "bin", "nvcc")))
CC = os.environ.get("CC", "cc")
CXX = os.environ.get("CXX", "g++")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PRELUDE = os.path.join(HERE, "prelude.h")
LANGS = {"c": ".c", "cpp": ".cpp", "cuda": ".cu"}
QUIET = ["-Wno-unused-variable", "-Wno-unused-but-set-variable", "-Wno-unused-function",
         "-Wno-unused-value", "-Wno-unknown-pragmas", "-Wno-sign-compare"]
CHECK = re.compile(r"^<!--\s*check:\s*(body|file=\S+|file|skip\s+.+?)\s*-->\s*$")


def blocks(path):
    """(line, language, check, text) of every fenced block in path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        check = CHECK.match(lines[prev]) if prev >= 0 else None
        yield start + 1, lang, check.group(1) if check else None, "\n".join(lines[i + 1:j]) + "\n"
        i = j + 1


def elide(text, filler):
    return "\n".join(filler if l.strip() == "..." else l for l in text.split("\n"))


def compiler(lang, src, obj):
    inc = ["-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(CUDA_HOME, "include")]
    if lang == "c":
        return [CC, "-std=c11", "-Wall", "-Wextra", "-Werror"] + QUIET + inc + ["-c", src, "-o", obj]
    if lang == "cpp":
        return [CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror"] + QUIET + inc + ["-c", src, "-o", obj]
    # -rdc: the user's device functions are declared, not defined.
    return NVCC + ["-std=c++17", "-arch=sm_90", "-rdc=true", "-Werror", "all-warnings"] + inc + \
        ["-Xcompiler", ",".join(["-Wall"] + QUIET), "-x", "cu", "-c", src, "-o", obj]


def main():
    build, docs = sys.argv[1], sys.argv[2:]
    os.makedirs(build, exist_ok=True)
    passed = failed = skipped = 0
    for doc in docs:
        rel = os.path.relpath(doc, ROOT)
        for line, lang, check, text in blocks(doc):
            if lang not in LANGS:
                continue
            where = "%s:%d" % (rel, line)
            if check is None:
                print("FAIL %s: a ```%s block without a <!-- check: ... --> line before it" % (where, lang))
                failed += 1
                continue
            if check.startswith("skip"):
                print("skip %s: %s" % (where, check[4:].strip()))
                skipped += 1
                continue
            extra = []
            if "pt/pt_mpi.h" in text:
                if not shutil.which("mpicc"):
                    print("skip %s: no MPI here (mpicc)" % where)
                    skipped += 1
                    continue
                extra = subprocess.run(["mpicc", "--showme:compile"], capture_output=True,
                                       text=True).stdout.split()
            base = os.path.join(build, re.sub(r"[^A-Za-z0-9]+", "_", rel) + "_%d" % line)
            if check.startswith("file="):
                path = os.path.join(ROOT, check[5:])
                try:
                    whole = open(path, encoding="utf-8").read()
                except OSError as e:
                    print("FAIL %s: %s" % (where, e))
                    failed += 1
                    continue
                if whole != text:
                    print("FAIL %s: the block is not %s as it is now" % (where, check[5:]))
                    failed += 1
                    continue
                src = path
            else:
                src = base + LANGS[lang]
                with open(src, "w", encoding="utf-8") as f:
                    if "PT_DEV_PHASES" in text:   # its own phases, not the prelude's
                        f.write("#define PT_DOC_OWN_PHASES 1\n")
                    f.write('#include "%s"\n' % PRELUDE)
                    if check == "body":
                        f.write("void pt_doc_block(void);\nvoid pt_doc_block(void)\n{\n")
                    f.write('#line %d "%s"\n' % (line + 1, rel))
                    if check == "body":
                        f.write("%s}\n" % elide(text, "    ;"))
                    else:
                        f.write(elide(text, "/* ... */"))
            run = subprocess.run(compiler(lang, src, base + ".o") + extra, capture_output=True, text=True)
            if run.returncode:
                print("FAIL %s (%s, %s):\n%s%s" % (where, lang, check, run.stdout, run.stderr))
                failed += 1
            else:
                print("ok   %s (%s, %s)" % (where, lang, check))
                passed += 1
    print("docs: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
