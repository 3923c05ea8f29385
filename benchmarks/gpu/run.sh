#!/usr/bin/env bash
# On a lent GPU machine, after benchmarks/gpu/prepare.sh staged .gpu/ here: one device run,
#   run(command="bash benchmarks/gpu/run.sh", carry=[".gpu"], timeout_s=590)
# runs the tests CI skips for want of CUDA, then the GPU benchmarks, the figures issue #29
# asks for first. Logs go to $OUT (else .gpu/out). GPU_DEADLINE (seconds, default 540) stops
# starting benchmarks past it, so that the logs come back within the call's limit;
# GPU_TESTS=0 skips the tests, GPU_BENCH=0 the benchmarks; GPU_ONLY="compvec paragram" runs
# just the benchmarks named.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$SECONDS
DEADLINE=${GPU_DEADLINE:-540}
OUT="${OUT:-.gpu/out}"
mkdir -p "$OUT"
SITE=/tmp/paracomp-site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
    .gpu/wheels/*.whl || exit 1
cp -r .gpu/wheels/pysword "$SITE/"
export PYTHONPATH="$PWD/src:$SITE" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export PARACOMP_MIRROR="$PWD/.gpu/mirror" PARACOMP_PACKAGE_CACHE="$PWD/.gpu/packages"

{
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
        "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name())'
} 2>&1 | tee "$OUT/device.txt"

if [[ "${GPU_TESTS:-1}" == 1 ]]; then
    # the tests CI skips for want of CUDA, listed from this tree (benchmarks/gpu/cuda_tests.py)
    python3 benchmarks/gpu/cuda_tests.py "$OUT/cuda_tests.txt" >/dev/null || exit 1
    mapfile -t TESTS < "$OUT/cuda_tests.txt"
    echo "${#TESTS[@]} CUDA tests" | tee "$OUT/tests.log"
    timeout 300 python3 -m pytest -q -ra -p no:cacheprovider -n 4 --timeout 240 \
        --durations 10 "${TESTS[@]}" 2>&1 | tee -a "$OUT/tests.log"
    echo "tests: exit ${PIPESTATUS[0]} after $((SECONDS - START)) s" | tee -a "$OUT/tests.log"
fi

# name, limit in seconds, command: skipped once past the deadline.
bench() {
    local name=$1 limit=$2
    shift 2
    [[ -n "${GPU_ONLY:-}" && " $GPU_ONLY " != *" $name "* ]] && return
    if ((SECONDS - START + limit > DEADLINE)); then
        echo "== $name: skipped, $((SECONDS - START)) s gone" | tee -a "$OUT/bench.log"
        return
    fi
    echo "== $name: $*" | tee -a "$OUT/bench.log"
    timeout "$limit" python3 "$@" 2>&1 | tee -a "$OUT/bench.log"
    echo "-- $name: exit ${PIPESTATUS[0]} at $((SECONDS - START)) s" | tee -a "$OUT/bench.log"
}

if [[ "${GPU_BENCH:-1}" == 1 ]]; then
    B=benchmarks
    bench train-b100 90 $B/bench_train.py --devices cuda --steps eager static graphed
    bench train-b25 60 $B/bench_train.py --devices cuda --steps graphed --batch-size 25
    bench compvec 90 $B/bench_compvec.py --devices cuda --kinds eager graphed \
        --composers sum mean max max_pad sum_proj gru --steps 40 --warmup 10
    bench encoders 60 $B/bench_encoders.py --synthetic --device cuda --encoders lstmavg gran \
        --steps 20 --warmup 3 --repeats 2
    for size in 25 50 100; do
        bench "grid-stack-b$size" 60 $B/bench_train.py --pairs .gpu/bible_pairs.parquet \
            --devices cuda --steps graphed --epochs 2 --min-pairs 30000 --batch-size "$size" \
            --runs "J_bi ref k=10 batch-pool" "J_pa MAX cosine" --stack 60
    done
    bench compvec-profile 60 $B/bench_compvec.py --devices cuda --kinds graphed \
        --composers sum --steps 40 --warmup 10 --profile
    bench encoders-eager 60 $B/bench_encoders.py --synthetic --device cuda --encoders lstmavg gran \
        --steps 10 --warmup 2 --no-cuda-graph
    bench paragram 60 $B/bench_paragram.py --device cuda --steps 20 --warmup 5
    bench gaussian 60 $B/bench_gaussian.py --device cuda --repeats 1
fi
echo "run.sh: $((SECONDS - START)) s"
