#!/usr/bin/env bash
# ptkit's hardware kit, run on a machine with a CUDA GPU (built by
# `make hw-kit`; docs/hardware/README.md):
#
#   build/hw-kit/run [STEP...]   OUT=DIR for what it writes (default ./hw-kit-out)
#
# STEPs (default: all) name the steps to run, each a prefix of a step's
# name: card, gpu_suite, bench_gpu, bench_host, proton, ncu, sample_NAME,
# sanitizer_TOOL (`run bench proton` times the forms, the host's work of a
# graph replay and the peer alone).
# In about 5 minutes, each step under its own time limit and all of them
# under PT_HW_KIT_SECONDS (300): the card and ptkit's calibration; the GPU
# suite at hardware size; bench-gpu at GEMM sizes 1024, 2048 and 4096 and,
# beside it, this host's CPU on a graph replay's work (bench_graph_host); the
# peer (Proton on Triton's matmul) in the same minute; ncu on one launch of
# the quickstart beside ptkit's figures for it; every CUDA sample, the
# NVRTC one and the CuPy and PyTorch ones; compute-sanitizer's memcheck,
# racecheck and synccheck over the GPU suite at simulation size. It writes
# $OUT/summary.md (the table it prints last) and $OUT/logs.tar.gz (every
# step's log), two files. Without a device it says so and exits 0.
set -u
kit=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/hw-kit-out}
budget=${PT_HW_KIT_SECONDS:-300}
work=$(mktemp -d "${TMPDIR:-/tmp}/ptkit-hw-kit.XXXXXX")
logs=$work/logs
mkdir -p "$logs" "$work/ld" "$work/samples"
t_start=$(date +%s)
wanted=("$@")

# Criterion and what it links, where this machine lacks them.
for f in "$kit"/libs/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$n " || ln -s "$f" "$work/ld/$n"
done
export LD_LIBRARY_PATH="$work/ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$kit/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export PTKIT_LIBRARY="$kit/python/ptkit/_lib/libptkit.so"
# CUDA's tools (nvcc, compute-sanitizer) and Nsight Compute, where the
# machine's PATH lacks them.
for d in /usr/local/cuda/bin $(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -n 1); do
    case ":$PATH:" in *":$d:"*) ;; *) PATH="$PATH:$d" ;; esac
done
export PATH

# Is there a device? The probe, a CPU program over libptkit, asks the CUDA
# runtime as every ptkit program does.
probe=$("$kit/bin/ptkit_gpu_probe" 2>&1)
if ! printf '%s\n' "$probe" | grep -q '^gpu_timing=1'; then
    why=$(printf '%s\n' "$probe" | sed -n 's/^why=//p')
    echo "hw-kit: no CUDA device here (${why:-the probe did not run: $probe}); nothing run"
    rm -rf "$work"
    exit 0
fi

mkdir -p "$out"

# step NAME LIMIT COMMAND...: runs COMMAND into logs/NAME.log under LIMIT
# seconds (less where the kit's budget has less left), and notes its exit
# status and seconds in logs/steps.tsv.
wants() {
    local w
    [ ${#wanted[@]} -eq 0 ] && return 0
    for w in "${wanted[@]}"; do
        case $1 in "$w"*) return 0 ;; esac
    done
    return 1
}

step() {
    local name=$1 limit=$2 left rc t0 t1
    shift 2
    wants "$name" || return
    left=$((budget - ($(date +%s) - t_start)))
    if [ "$left" -lt 10 ]; then
        printf '%s\tskipped\t0\t%s\n' "$name" "the kit's $budget s were spent" >> "$logs/steps.tsv"
        echo "hw-kit: $name: skipped, the kit's $budget s are spent"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    echo "hw-kit: $name (at most ${limit} s)"
    t0=$(date +%s.%N)
    timeout -k 5 "$limit" "$@" > "$logs/$name.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" \
        "$([ "$rc" = 124 ] || [ "$rc" = 137 ] && echo "over its $limit s")" >> "$logs/steps.tsv"
}

card() {
    echo "kit: $(cat "$kit/COMMIT")"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,pstate,compute_mode \
        --format=csv
    echo "host: $(uname -r), $(nproc) CPUs"
    nvcc --version 2>/dev/null | tail -n 2
    printf '%s\n' "$probe"
}

# The PyTorch extension is compiled while the GPU steps run (CPU only).
torch_build() {
    cd "$kit/samples/python/torch_ext" && python3 -c '
import torch_phases
torch_phases.build_extension()
print("built")'
}
# Proton prints a warning per warp of every launch whose buffer filled;
# they are counted, not kept.
proton_peer() {
    python3 "$kit/bench/proton_matmul.py" 1024,2048,4096 2>&1 |
        awk '/events are dropped due to insufficient buffer size/ { n++; next } { print }
             END { if (n) print n " of Proton'"'"'s warnings of dropped events left out" }'
    return "${PIPESTATUS[0]}"
}
export -f card torch_build proton_peer
export kit probe TORCH_EXTENSIONS_DIR="$work/torch_ext" MAX_JOBS=8
torch_pid=
if wants sample_torch; then
    (timeout 240 bash -c torch_build > "$logs/torch_build.log" 2>&1
     echo "rc=$?" >> "$logs/torch_build.log") &
    torch_pid=$!
fi

step card 20 bash -c card
step gpu_suite 150 env PT_GPU_SCALE=hw "$kit/bin/ptkit_gpu_tests" --verbose --jobs 1
step bench_gpu 120 env PT_BENCH_GEMM_SIZES=1024,2048,4096 "$kit/bin/bench_gpu"
step bench_host 30 "$kit/bin/bench_graph_host"
step proton 100 bash -c proton_peer
step ncu 60 ncu --clock-control none --cache-control none -k regex:scale_norm \
    --metrics gpu__time_duration.sum --csv --log-file "$logs/ncu.csv" \
    "$kit/samples/quickstart"
for s in quickstart transport_step solver_phases gpu_ops nvrtc_phases warp_roles; do
    mkdir -p "$work/samples/$s"
    step "sample_$s" 60 "$kit/samples/$s" - "$work/samples/$s"
done
step sample_cupy 60 python3 "$kit/samples/python/cupy_phases.py" - "$work/samples/cupy"
[ -n "$torch_pid" ] && wait "$torch_pid"
step sample_torch 60 python3 "$kit/samples/python/torch_ext/torch_phases.py" - "$work/samples/torch"

# The sanitizers side by side: they judge correctness, not time.
for tool in memcheck racecheck synccheck; do
    step "sanitizer_$tool" 120 compute-sanitizer --tool "$tool" --target-processes all \
        --print-limit 20 env PT_GPU_SCALE=sim "$kit/bin/ptkit_gpu_tests" --jobs 2 &
done
wait
step card_after 20 nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,pstate \
    --format=csv

printf 'kit seconds\t%s\n' "$(($(date +%s) - t_start))" >> "$logs/steps.tsv"
tar czf "$out/logs.tar.gz" -C "$work" logs
python3 "$kit/summary.py" "$logs" > "$out/summary.md" 2> "$logs/summary.err" ||
    { echo "hw-kit: the summary failed:"; cat "$logs/summary.err"; }
cat "$out/summary.md"
rm -rf "$work"
