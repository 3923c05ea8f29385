#!/usr/bin/env bash
# Snakemake's own CPU on a large DAG: in DIR, a finished whole run (bench_whole_run.py run),
# force-rerun every `evaluate` job and what it feeds (126 jobs at c31b334), and print the wall
# time and the Snakemake process's own CPU (utime + stime of /proc/<pid>/stat, polled every 2 s;
# its jobs are children and not counted). Extra arguments go to Snakemake, e.g.
#
#     benchmarks/bench_scheduler.sh /tmp/whole default
#     benchmarks/bench_scheduler.sh /tmp/whole ts10 --max-jobs-per-timespan 100/10s
#
# Appends a line to DIR/scheduler.log; Snakemake's own log is DIR/scheduler-TAG.log.
set -u
dir=$(realpath "$1"); tag=$2; shift 2
cd "$dir"
export PYTHONPATH="$dir/src"
tck=$(getconf CLK_TCK)
start=$(date +%s.%N)
snakemake --cores 2 findings leaderboard --forcerun evaluate "$@" > "scheduler-$tag.log" 2>&1 &
pid=$!; own=0
while kill -0 $pid 2>/dev/null; do
  stat=$(cat /proc/$pid/stat 2>/dev/null) && own=$(echo "$stat" | awk -v t="$tck" '{printf "%.2f", ($14 + $15) / t}')
  sleep 2
done
wait $pid; rc=$?
wall=$(echo "$(date +%s.%N) - $start" | bc)
echo "$tag rc=$rc wall=$wall snakemake_own_cpu=$own jobs=$(grep -c 'Finished job' "scheduler-$tag.log") opts=$*" | tee -a scheduler.log
