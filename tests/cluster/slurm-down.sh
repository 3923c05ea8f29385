#!/usr/bin/env bash
# Stop the test cluster started by tests/cluster/slurm-up.sh: cancel its jobs, then end exactly
# the daemons whose PIDs slurm-up.sh recorded (munged, slurmctld, slurmd), remove its
# /etc/slurm/slurm.conf symlink and the state folder (kept with PARACOMP_SLURM_KEEP=1, e.g. to
# read the daemons' logs).
set -uo pipefail

STATE="${PARACOMP_SLURM_STATE:-/tmp/paracomp-slurm}"
log() { echo "slurm-down: $*" >&2; }
# A PID that exists and is not a zombie (killed daemons may wait a moment to be reaped).
alive() { [[ -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
# ...and is one of our daemons (a stale PID file must not hit a process that reused the PID).
ours() { alive "$1" && [[ $(cat "/proc/$1/comm" 2>/dev/null) =~ ^(munged|slurmctld|slurmd)$ ]]; }

if [[ ! -f "$STATE/pids" ]]; then
    log "no cluster recorded in $STATE (nothing to stop)"
    exit 0
fi

# Cancel this cluster's jobs first, so that no slurmstepd outlives slurmd.
if [[ -f "$STATE/slurm.conf" ]]; then
    export SLURM_CONF="$STATE/slurm.conf"
    jobs=$(timeout 10 squeue -h -o '%i' 2>/dev/null || true)
    if [[ -n "$jobs" ]]; then
        # shellcheck disable=SC2086
        timeout 10 scancel $jobs 2>/dev/null || true
        for _ in $(seq 20); do
            [[ -z "$(timeout 5 squeue -h -t RUNNING,COMPLETING -o '%i' 2>/dev/null)" ]] && break
            sleep 0.5
        done
    fi
fi

# Reverse order: slurmd, slurmctld, munged.
mapfile -t pids < <(tac "$STATE/pids")
live=()
for pid in "${pids[@]}"; do
    if [[ "$pid" =~ ^[0-9]+$ ]] && ours "$pid"; then
        live+=("$pid")
        kill -TERM "$pid" 2>/dev/null || true
    fi
done
for pid in "${live[@]}"; do
    for _ in $(seq 50); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        log "PID $pid did not stop on TERM; sending KILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
done
rm -f "$STATE/pids"

# The /etc/slurm/slurm.conf symlink, if it is still ours.
if [[ -f "$STATE/etc-link" ]]; then
    link=$(cat "$STATE/etc-link")
    if [[ -L "$link" && "$(readlink "$link")" == "$STATE/slurm.conf" ]]; then
        rm -f "$link"
    fi
    rm -f "$STATE/etc-link"
fi

if [[ "${PARACOMP_SLURM_KEEP:-0}" == 1 ]]; then
    log "stopped; state and logs kept in $STATE"
else
    rm -rf "$STATE"
    log "stopped; removed $STATE"
fi
