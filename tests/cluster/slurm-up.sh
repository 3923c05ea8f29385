#!/usr/bin/env bash
# A one-node SLURM cluster on loopback, for tests/test_cluster.py. No systemd, no slurmdbd.
#
#   bash tests/cluster/slurm-up.sh        # installs slurm-wlm + munge (Debian 12: 22.05) if needed
#   source "$PARACOMP_SLURM_STATE/env.sh" # SLURM_CONF, PARACOMP_SLURM=1 for the client commands
#   bash tests/cluster/slurm-down.sh      # stops exactly the daemons started here
#
# Needs root (apt-get, slurmd). Everything the cluster writes lives in one state folder,
# $PARACOMP_SLURM_STATE (default /tmp/paracomp-slurm): munge key and socket, slurm.conf, spool,
# state, logs, and `pids` (one PID per line, read by slurm-down.sh). /etc/munge is not used;
# /etc/slurm/slurm.conf becomes a symlink to the state folder's slurm.conf (see below), and
# the script stops if a real configuration is there.
#
# No accounting storage (slurmdbd): `sacct` does not work here, so the test profile sets
# `slurm-status-command: squeue`, which sees finished jobs for MinJobAge (300) seconds.
set -euo pipefail

STATE="${PARACOMP_SLURM_STATE:-/tmp/paracomp-slurm}"
CTLD_PORT="${PARACOMP_SLURM_CTLD_PORT:-6817}"
SLURMD_PORT="${PARACOMP_SLURM_SLURMD_PORT:-6818}"
WAIT_S="${PARACOMP_SLURM_WAIT:-60}"

log() { echo "slurm-up: $*" >&2; }
# A PID that exists and is not a zombie (killed daemons may wait a moment to be reaped).
alive() { [[ -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
# ...and is one of our daemons (a stale PID file must not hit a process that reused the PID).
ours() { alive "$1" && [[ $(cat "/proc/$1/comm" 2>/dev/null) =~ ^(munged|slurmctld|slurmd)$ ]]; }

if [[ $(id -u) -ne 0 ]]; then
    log "must run as root (it installs packages and runs slurmd); try: sudo bash $0"
    exit 1
fi

if [[ -s "$STATE/pids" ]]; then
    while read -r pid; do
        if [[ "$pid" =~ ^[0-9]+$ ]] && ours "$pid"; then
            log "a cluster is up already (PID $pid in $STATE/pids); run tests/cluster/slurm-down.sh"
            exit 1
        fi
    done < "$STATE/pids"
    log "removing the state of an earlier cluster whose daemons are gone"
    rm -f "$STATE/pids"
fi

# --- packages -------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # The packages' init scripts must not start system daemons: without systemd they would
    # fail, and the daemons below use their own configuration. policy-rc.d exit 101 forbids it.
    policy_created=""
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        policy_created=1
    fi
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
    if [[ -n "$policy_created" ]]; then rm -f /usr/sbin/policy-rc.d; fi
fi
SLURMCTLD=$(command -v slurmctld)
SLURMD=$(command -v slurmd)
MUNGED=$(command -v munged)
log "$("$SLURMCTLD" -V), munge $("$MUNGED" -V 2>&1 | awk '{print $1}' | head -1)"

# --- state folder ---------------------------------------------------------------------------
rm -rf "$STATE"
mkdir -p "$STATE"/{munge,munge-key,spool,state,log}
# Readable by all (slurm.conf, env.sh, the munge socket's folder): under sudo the tests and the
# client commands run as the calling user. Only the munge key is private.
chmod 755 "$STATE" "$STATE/munge"
chmod 700 "$STATE/munge-key"
: > "$STATE/pids"

# --- munge ----------------------------------------------------------------------------------
KEY="$STATE/munge-key/munge.key"
SOCKET="$STATE/munge/munge.socket"
if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$KEY" --bits=1024 --force
else
    dd if=/dev/urandom of="$KEY" bs=1 count=1024 status=none
fi
chmod 400 "$KEY"
# --force: munged refuses some root-owned/tmp layouts without it (it only warns with it).
"$MUNGED" --key-file="$KEY" --socket="$SOCKET" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/log/munged.log" \
    --seed-file="$STATE/munge/munged.seed" --num-threads=2
for _ in $(seq 50); do
    [[ -s "$STATE/munge/munged.pid" && -S "$SOCKET" ]] && break
    sleep 0.1
done
cat "$STATE/munge/munged.pid" >> "$STATE/pids"
munge --socket="$SOCKET" -n | unmunge --socket="$SOCKET" >/dev/null \
    || { log "munge does not work; see $STATE/log/munged.log"
         bash "$(dirname "$0")/slurm-down.sh" || true; exit 1; }

# --- slurm.conf -----------------------------------------------------------------------------
HOST=$(hostname -s)
CPUS=$(nproc)
# Leave 512 MB for the system; with CR_Core_Memory a job's --mem must fit in RealMemory.
REALMEM=$(awk '/^MemTotal:/ {m = int($2 / 1024) - 512; print (m > 256 ? m : 256)}' /proc/meminfo)
CONF="$STATE/slurm.conf"
cat > "$CONF" <<EOF
# Written by tests/cluster/slurm-up.sh: a one-node test cluster on loopback.
ClusterName=paracomp-test
SlurmctldHost=${HOST}(127.0.0.1)
SlurmctldPort=${CTLD_PORT}
SlurmdPort=${SLURMD_PORT}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${SOCKET}
StateSaveLocation=${STATE}/state
SlurmdSpoolDir=${STATE}/spool
SlurmctldPidFile=${STATE}/slurmctld.pid
SlurmdPidFile=${STATE}/slurmd.pid
SlurmctldLogFile=${STATE}/log/slurmctld.log
SlurmdLogFile=${STATE}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# squeue shows a finished job for MinJobAge seconds; the squeue status check relies on it.
MinJobAge=300
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
# Trust the node line below instead of the detected hardware (containers, odd topologies).
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${REALMEM} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# The client commands inside a job must find the configuration too. The job's nested
# `srun` (snakemake-executor-plugin-slurm-jobstep) runs with every SLURM_* variable except the
# job's identity removed, SLURM_CONF included, so srun reads the default path, as on a real
# cluster. Link it there unless a real configuration (not one of ours) is in the way.
ETC_CONF=/etc/slurm/slurm.conf
if [[ -e "$ETC_CONF" || -L "$ETC_CONF" ]]; then
    target=$(readlink "$ETC_CONF" || true)
    if [[ -z "$target" ]] || { [[ -e "$target" ]] \
        && ! grep -q '^# Written by tests/cluster/slurm-up.sh' "$target"; }; then
        log "$ETC_CONF belongs to another SLURM set-up; not replacing it"
        bash "$(dirname "$0")/slurm-down.sh" || true
        exit 1
    fi
fi
mkdir -p /etc/slurm
ln -sfn "$CONF" "$ETC_CONF"
echo "$ETC_CONF" > "$STATE/etc-link"

cat > "$STATE/env.sh" <<EOF
# source me: client commands (sbatch, squeue, sinfo, srun) find the test cluster
export SLURM_CONF=${CONF}
export PARACOMP_SLURM=1
export PARACOMP_SLURM_STATE=${STATE}
EOF
export SLURM_CONF="$CONF"

# --- daemons --------------------------------------------------------------------------------
# -D: stay in the foreground (we background them ourselves and record their PIDs);
# -i: ignore state saved by an earlier run (there is none: the state folder is fresh).
"$SLURMCTLD" -D -i -f "$CONF" > "$STATE/log/slurmctld.out" 2>&1 &
echo $! >> "$STATE/pids"
"$SLURMD" -D -f "$CONF" -N "$HOST" > "$STATE/log/slurmd.out" 2>&1 &
echo $! >> "$STATE/pids"

log "waiting up to ${WAIT_S}s for node $HOST to become idle"
for ((i = 0; i < WAIT_S * 2; i++)); do
    state=$(sinfo -h -n "$HOST" -o '%t' 2>/dev/null || true)
    if [[ "$state" == idle* ]]; then
        log "up: $(sinfo -h -o '%P %a %D %t %N %c CPUs %m MB')"
        log "state in $STATE; run: source $STATE/env.sh"
        exit 0
    fi
    # a daemon that died will not come back: stop early
    while read -r pid; do
        if ! alive "$pid"; then
            log "daemon $pid exited; logs:"
            tail -n 20 "$STATE"/log/*.log "$STATE"/log/*.out >&2 || true
            bash "$(dirname "$0")/slurm-down.sh" || true
            exit 1
        fi
    done < "$STATE/pids"
    sleep 0.5
done
log "node $HOST not idle after ${WAIT_S}s (state: '${state:-none}'); logs:"
tail -n 20 "$STATE"/log/*.log >&2 || true
bash "$(dirname "$0")/slurm-down.sh" || true
exit 1
