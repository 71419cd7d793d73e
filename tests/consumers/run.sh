#!/bin/sh
# ptkit as its users build against it (make test-consumers). Installs the
# tree into a staging prefix, builds and runs programs against that
# install alone, then uninstalls it and checks nothing is left. Any
# failure stops the run with the command that failed; the last line says
# what passed.
#
# Environment (set by the make target): MAKE, BUILD, CUDA (1 or 0), NVCC,
# CUDA_HOME, CONSUMER_ARCH (the SM the CUDA builds target, e.g. 90).
set -eu
cd "$(dirname "$0")/../.."
here=tests/consumers
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
CUDA=${CUDA:-1}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
arch=${CONSUMER_ARCH:-90}
work=$(mktemp -d "${TMPDIR:-/tmp}/ptkit-consumers-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0

step() { printf '\n---- %s\n' "$*"; }
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "test-consumers: $*" >&2; exit 1; }
# Runs a built program; its output goes to a log shown on failure.
run() {
    log="$work/run.log"
    rc=0
    "$@" > "$log" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$log"; fail "$* exited with $rc"; }
}

# ---- the install, twice: ptkit.pc and the CMake package follow the prefix
step "make install into two prefixes, one after the other"
for p in first second; do
    $MAKE --no-print-directory -s BUILD="$BUILD" install prefix="$work/$p" > /dev/null
    grep -qx "prefix=$work/$p" "$work/$p/lib/pkgconfig/ptkit.pc" ||
        fail "$p install: ptkit.pc names another prefix: $(head -1 "$work/$p/lib/pkgconfig/ptkit.pc")"
done
rm -rf "$work/first"
prefix=$work/second
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
libdir=$(pkg-config --variable=libdir ptkit)
[ "$libdir" = "$prefix/lib" ] || fail "pkg-config's libdir is $libdir, not $prefix/lib"
case " $(pkg-config --cflags --libs ptkit) " in
*" -Wl,"* | *" -pthread "*) fail "pkg-config gives flags nvcc refuses: $(pkg-config --cflags --libs ptkit)" ;;
esac
ok "ptkit.pc follows the prefix of each install and gives nvcc-safe flags"

# ---- (1) C with cc and pkg-config
step "C11 with cc and pkg-config, -Wall -Wextra -Wpedantic -Werror"
for d in "" -DPT_DISABLE; do
    cc -std=c11 -Wall -Wextra -Wpedantic -Werror $d -o "$work/c" "$here/consumer.c" \
        $(pkg-config --cflags --libs ptkit) -Xlinker -rpath="$libdir"
    run "$work/c"
    ok "cc -std=c11 $d"
done

# ---- (4) C++ under every standard
step "C++ with g++, -std=c++11/14/17/20, -Wall -Wextra -Wpedantic -Werror"
for std in c++11 c++14 c++17 c++20; do
    for d in "" -DPT_DISABLE; do
        g++ -std=$std -Wall -Wextra -Wpedantic -Werror $d -o "$work/cpp" "$here/consumer.cpp" \
            $(pkg-config --cflags --libs ptkit) -Xlinker -rpath="$libdir"
        run "$work/cpp"
        [ -n "$d" ] || grep -q "chained" "$log" || fail "the C++ program's report lacks its sections"
        ok "g++ -std=$std $d"
    done
done

if [ "$CUDA" != 1 ]; then
    echo "test-consumers: $passed checks passed; nvcc, CMake's CUDA language and the CUDA samples skipped (CUDA=0)"
    exit 0
fi

# ---- (2) a .cu program with nvcc and pkg-config alone
step "nvcc app.cu \$(pkg-config --cflags --libs ptkit)"
"$NVCC" -arch=sm_$arch "$here/consumer.cu" $(pkg-config --cflags --libs ptkit) -o "$work/cu"
LD_LIBRARY_PATH="$libdir" run "$work/cu"
grep -q "step\|host only" "$log" || fail "the nvcc program's report lacks its sections"
ok "nvcc with pkg-config alone (run with LD_LIBRARY_PATH)"
"$NVCC" -arch=sm_$arch "$here/consumer.cu" $(pkg-config --cflags --libs ptkit) \
    -Xlinker -rpath="$libdir" -o "$work/cu"
run "$work/cu"
ok "nvcc with pkg-config and -Xlinker -rpath=libdir"

# ---- (4) nvcc's C++: -Werror on nvcc's warnings and -Wall -Wextra; then
# -Wpedantic, under which nvcc's own generated #line directives warn in
# every .cu file: any other warning fails.
step "nvcc -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror; then -Wpedantic"
for d in "" -DPT_DISABLE; do
    "$NVCC" -arch=sm_$arch -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror $d \
        -c "$here/consumer.cu" $(pkg-config --cflags ptkit) -o "$work/cu.o"
    "$NVCC" -arch=sm_$arch -std=c++17 -Xcompiler -Wall,-Wextra,-Wpedantic,-fdiagnostics-plain-output \
        $d -c "$here/consumer.cu" $(pkg-config --cflags ptkit) -o "$work/cu.o" 2> "$work/nvcc.log"
    others=$(grep -E '(warning|error)' "$work/nvcc.log" |
             grep -v 'style of line directive is a GCC extension' || true)
    [ -z "$others" ] || { printf '%s\n' "$others"; fail "nvcc -Wpedantic $d: warnings beyond nvcc's #line directives"; }
    ok "nvcc -std=c++17 $d"
done

# ---- (3) CMake: find_package(ptkit CONFIG REQUIRED), CUDA and C targets
if command -v cmake >/dev/null; then
    step "CMake: find_package(ptkit CONFIG REQUIRED), a CUDA-language and a C target"
    cmake -S "$here/cmake" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$work/cmake.log" 2>&1 ||
        { cat "$work/cmake.log"; fail "cmake configure"; }
    cmake --build "$work/cmake" -j 2 > "$work/cmake-build.log" 2>&1 ||
        { cat "$work/cmake-build.log"; fail "cmake --build"; }
    run "$work/cmake/consumer_cu"
    run "$work/cmake/consumer_c"
    ok "CMake $(cmake --version | sed -n 's/cmake version //p')"
    # The version rules: 0.y releases are compatible within their minor version.
    for want in 0.1:FOUND 0:FOUND 0.1.0:FOUND 0.0.1:NOT-FOUND 0.2:NOT-FOUND 1.0:NOT-FOUND; do
        cmake -S "$here/cmake/version" -B "$work/cmake-version" -DCMAKE_PREFIX_PATH="$prefix" \
            -DWANT="${want%%:*}" > "$work/version.log" 2>&1 || { cat "$work/version.log"; fail "cmake (version)"; }
        grep -q "ptkit ${want%%:*}: ${want#*:}" "$work/version.log" ||
            { cat "$work/version.log"; fail "find_package(ptkit ${want%%:*}) is not ${want#*:}"; }
        rm -rf "$work/cmake-version"
    done
    ok "find_package(ptkit X.Y) takes 0, 0.1 and 0.1.0, refuses 0.0.1, 0.2 and 1.0"
else
    echo "test-consumers: no cmake; the CMake package is not checked (apt-get install cmake)"
fi

# ---- (5) the samples with -DPT_DISABLE and -DPT_DEV_DISABLE, -Werror
step "the samples with -DPT_DISABLE and with -DPT_DEV_DISABLE, -Werror"
inc="$work/gen"
mkdir -p "$inc"
"$prefix/bin/ptgen" samples/solver_phases/solver.phases -o "$inc/solver_phases.h" --prefix PH_ --name solver
for d in -DPT_DISABLE -DPT_DEV_DISABLE; do
    for src in samples/*/*.cu samples/*/*.c; do
        name=$(basename "${src%.*}")
        extra=""
        case $name in nvrtc_phases) extra="-L$CUDA_HOME/lib64 -lnvrtc" ;; esac
        case $src in
        *.cu) "$NVCC" -arch=sm_$arch -std=c++17 -O1 -Werror all-warnings \
                  -Xcompiler -Wall,-Wextra,-Werror $d -I"$inc" -o "$work/$name" "$src" \
                  $(pkg-config --cflags --libs ptkit) -Xlinker -rpath="$libdir" $extra ;;
        *.c) cc -std=c11 -O1 -Wall -Wextra -Werror $d -o "$work/$name" "$src" \
                  $(pkg-config --cflags --libs ptkit) -Xlinker -rpath="$libdir" -lm ;;
        esac
        mkdir -p "$work/out"
        run "$work/$name" - "$work/out"
        ok "$name $d"
    done
done

# ---- nothing left behind
step "make uninstall"
$MAKE --no-print-directory -s BUILD="$BUILD" uninstall prefix="$prefix" > /dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
ok "make uninstall leaves no file"

echo
echo "test-consumers: $passed checks passed"
