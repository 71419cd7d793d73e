#!/bin/sh
# Assembles the hardware kit (tests/hw/hw.mk): assemble.sh DIR LIBPTKIT BIN...
# The suite's programs go to DIR/bin, the samples' to DIR/samples; the
# Python package with LIBPTKIT and the headers to DIR/python, as pip
# installs it; the shared libraries the programs link beyond the C and C++
# runtimes and CUDA's own to DIR/libs. Written to DIR.new and renamed, so a
# failed assembly leaves no half kit; fails when the kit is over
# HW_KIT_MAX_MB MiB.
set -eu
dir=$1 lib=$2
shift 2
cuda=${CUDA_HOME:-/usr/local/cuda}
new=$dir.new
rm -rf "$new"
mkdir -p "$new/bin" "$new/samples/python/torch_ext" "$new/python/ptkit/_lib" "$new/libs" "$new/bench"

for b in "$@"; do
    case $b in
    */samples/*) cp "$b" "$new/samples/" ;;
    *) cp "$b" "$new/bin/" ;;
    esac
done
# Host debug information is for a debugger, which the kit does not run;
# the device code, its line information included, stays.
for b in "$new"/bin/* "$new"/samples/*; do
    [ -f "$b" ] && strip --strip-debug "$b"
done

cp samples/python/*.py samples/python/*.cuh "$new/samples/python/"
find samples/python/torch_ext -maxdepth 1 -type f -exec cp {} "$new/samples/python/torch_ext/" \;
cp python/ptkit/*.py "$new/python/ptkit/"
cp "$lib" "$new/python/ptkit/_lib/libptkit.so"
strip --strip-debug "$new/python/ptkit/_lib/libptkit.so"
cp -r include "$new/python/ptkit/include"
cp tests/bench/proton_matmul.py "$new/bench/"
cp tests/hw/kit.sh "$new/run"
cp tests/hw/summary.py "$new/summary.py"
chmod +x "$new/run"

# What the programs link beyond glibc, the C++ runtime and CUDA: Criterion
# and its dependencies, resolved here.
for b in "$new"/bin/* "$new"/samples/*; do
    [ -f "$b" ] && ldd "$b" 2>/dev/null
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r name path; do
    case $name in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libresolv.so*) continue ;;
    libstdc++.so*|libgcc_s.so*) continue ;;
    esac
    case $path in "$cuda"/*|/usr/local/cuda*) continue ;; esac
    cp -L "$path" "$new/libs/$name"
done

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+uncommitted"
printf '%s %s CUDA_ARCHS=%s\n' "$commit" "$(date -u +%Y-%m-%dT%H:%MZ)" "${CUDA_ARCHS:-80 90}" \
    > "$new/COMMIT"

mb=$(du -sm "$new" | cut -f1)
if [ "$mb" -gt "${HW_KIT_MAX_MB:-32}" ]; then
    echo "hw-kit: $mb MiB, over the limit of ${HW_KIT_MAX_MB:-32} MiB:" >&2
    du -sm "$new"/* >&2
    exit 1
fi
rm -rf "$dir"
mv "$new" "$dir"
