# shellcheck shell=bash
# A private Slurm cluster of one node on this machine, for tests: sourced after tests/lib.sh (which sets
# $T, fail and skip). Defines:
#   slurm_install        installs slurm-wlm, slurm-client and munge with apt where slurmctld, slurmd,
#                        sbatch or munged is missing (apt-get update first; skip where that is impossible)
#   slurm_start          a munge key, munged, slurm.conf, slurmctld and slurmd (`slurmd -N localhost`), all
#                        under $T/slurm with non-default ports; waits until sinfo shows the node idle.
#                        Exports SLURM_CONF so that sbatch, squeue, scontrol, scancel and sinfo use it.
#   slurm_stop           cancels the cluster's jobs, kills exactly the daemons it started (their PIDs) and
#                        any process a job left behind (its environment names this cluster's slurm.conf)
#   slurm_wait_state J S... [TIMEOUT]  waits until job J is in one of the states S (squeue %T, or
#                        the final state from scontrol), fails after TIMEOUT s (default 60)
#   slurm_job_field J F  a field of `scontrol show job J` (e.g. Restarts, JobState, ExitCode)
# Requires root (slurmd runs jobs as their owner) and skips (77) where the daemons cannot run at all.
# The configuration follows docs/batch.md's test notes: ProctrackType=proctrack/linuxproc, no
# accounting, AuthInfo cred_expire=10 (else a requeued job waits about 2 minutes before it starts again).

SLURM_DIR=""
SLURM_PIDS=()

slurm_install() {
  local missing=0 tool
  for tool in slurmctld slurmd sbatch munged; do
    command -v "$tool" > /dev/null || PATH=$PATH:/usr/sbin command -v "$tool" > /dev/null || missing=1
  done
  export PATH=$PATH:/usr/sbin
  [[ $missing -eq 1 ]] || return 0
  [[ $(id -u) -eq 0 ]] || skip "slurm-wlm and munge are not installed and installing them needs root"
  command -v apt-get > /dev/null || skip "slurm-wlm and munge are not installed and there is no apt-get"
  echo "installing slurm-wlm slurm-client munge with apt"
  local mpi_before mpirun_before
  mpi_before=$(readlink -f /etc/alternatives/mpi 2> /dev/null || true)
  mpirun_before=$(readlink -f /etc/alternatives/mpirun 2> /dev/null || true)
  # the test tools of scripts/install-deps.sh include them (and prepare munge's key)
  bash "$SRC/scripts/install-deps.sh" --test-tools > "$T/apt.log" 2>&1 ||
    { grep -E -A8 "^dpkg: error|postinst" "$T/apt.log" | head -n 60 >&2; tail -n 20 "$T/apt.log" >&2
      fail "scripts/install-deps.sh --test-tools (slurm-wlm slurm-client munge) failed"; }
  # A package that pulls in OpenMPI can switch the mpi/mpirun alternatives away from MPICH: put them back.
  if [[ -n $mpi_before && $(readlink -f /etc/alternatives/mpi) != "$mpi_before" ]]; then
    update-alternatives --set mpi "$mpi_before" > /dev/null && echo "note: set the mpi alternative back to $mpi_before"
  fi
  if [[ -n $mpirun_before && $(readlink -f /etc/alternatives/mpirun) != "$mpirun_before" ]]; then
    update-alternatives --set mpirun "$mpirun_before" > /dev/null && echo "note: set the mpirun alternative back to $mpirun_before"
  fi
}

# A TCP port that nothing listens on, from a range Slurm does not use by default.
_slurm_free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$(( 20000 + RANDOM % 20000 ))
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null && ! (exec 3<> "/dev/tcp/127.0.0.1/$((p + 1))") 2> /dev/null; then
      echo "$p"
      return
    fi
  done
  fail "no free TCP port found for Slurm"
}

slurm_start() {
  [[ $(id -u) -eq 0 ]] || skip "a private slurmd needs root (it runs jobs as their owners)"
  SLURM_DIR=$T/slurm
  local d=$SLURM_DIR
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log" "$d/run"
  chmod 0755 "$d" "$d/munge"
  # munge: a fresh key, its own socket; munged insists on owner-only key and state files
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$d/munge/munge.key"
  local sock=$d/munge/munge.socket
  munged --force --key-file="$d/munge/munge.key" --socket="$sock" --pid-file="$d/munge/munged.pid" \
    --log-file="$d/log/munged.log" --seed-file="$d/munge/munged.seed" > "$d/log/munged.out" 2>&1 ||
    { cat "$d/log/munged.out" "$d/log/munged.log" >&2 2> /dev/null; skip "munged does not start here"; }

  for _ in $(seq 1 50); do [[ -s $d/munge/munged.pid ]] && break; sleep 0.1; done
  [[ -s $d/munge/munged.pid ]] || skip "munged wrote no pid file"
  SLURM_PIDS+=("$(cat "$d/munge/munged.pid")")
  munge --socket="$sock" -n > /dev/null 2>&1 || skip "munged runs but does not issue credentials"

  local port cpus
  port=$(_slurm_free_port)
  cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (nproc obeys OMP_NUM_THREADS)
  cat > "$d/slurm.conf" <<EOF
ClusterName=stratustest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=10
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -f "$SLURM_CONF" > "$d/log/slurmctld.out" 2>&1 ||
    { cat "$d/log/slurmctld.out" "$d/log/slurmctld.log" >&2 2> /dev/null; fail "slurmctld did not start"; }
  for _ in $(seq 1 50); do [[ -s $d/run/slurmctld.pid ]] && break; sleep 0.1; done
  [[ -s $d/run/slurmctld.pid ]] || fail "slurmctld wrote no pid file (log: $(tail -n 5 "$d/log/slurmctld.log"))"
  SLURM_PIDS+=("$(cat "$d/run/slurmctld.pid")")
  slurmd -f "$SLURM_CONF" -N localhost > "$d/log/slurmd.out" 2>&1 ||
    { cat "$d/log/slurmd.out" >&2; tail -n 20 "$d/log/slurmd.log" >&2 2> /dev/null
      # e.g. in a chroot without a cgroup file system: "No filesystem mounted on /sys/fs/cgroup"
      skip "slurmd cannot run here: $(grep -m 1 -E 'error|fatal' "$d/log/slurmd.log" 2> /dev/null | cut -c 27-)"; }
  for _ in $(seq 1 50); do [[ -s $d/run/slurmd.pid ]] && break; sleep 0.1; done
  [[ -s $d/run/slurmd.pid ]] || skip "slurmd wrote no pid file (log: $(tail -n 5 "$d/log/slurmd.log"))"
  SLURM_PIDS+=("$(cat "$d/run/slurmd.pid")")
  local state=""
  for _ in $(seq 1 300); do
    state=$(sinfo -h -n localhost -o %T 2> /dev/null || true)
    [[ $state == idle ]] && return 0
    sleep 0.1
  done
  tail -n 20 "$d/log/slurmctld.log" "$d/log/slurmd.log" >&2
  fail "the Slurm node did not become idle within 30 s (state '$state')"
}

slurm_stop() {
  local p
  if [[ ${#SLURM_PIDS[@]} -gt 0 && -n ${SLURM_CONF:-} ]]; then  # no job of this cluster outlives it
    scancel --full --user "$(id -un)" 2> /dev/null || true
    for _ in $(seq 1 100); do [[ -z $(squeue -h 2> /dev/null) ]] && break; sleep 0.1; done
  fi
  local conf=${SLURM_CONF:-}
  for p in "${SLURM_PIDS[@]+"${SLURM_PIDS[@]}"}"; do kill "$p" 2> /dev/null || true; done
  for p in "${SLURM_PIDS[@]+"${SLURM_PIDS[@]}"}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2> /dev/null || true
  done
  # what a job of this cluster may leave (a process whose parent died escapes proctrack/linuxproc, and
  # its slurmstepd stays): the processes whose environment names this cluster's slurm.conf and a job
  [[ -n $conf ]] || { SLURM_PIDS=(); return 0; }
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [[ $p != "$$" && $p != "$BASHPID" ]] || continue
    tr '\0' '\n' 2> /dev/null < "/proc/$p/environ" | grep -qxF "SLURM_CONF=$conf" || continue
    if [[ $(cat "/proc/$p/comm" 2> /dev/null) == slurmstepd ]] ||
      tr '\0' '\n' 2> /dev/null < "/proc/$p/environ" | grep -q '^SLURM_JOB_ID='; then
      echo "note: killing process $p ($(tr '\0' ' ' < "/proc/$p/cmdline" | cut -c1-80)) left by a job of the test cluster"
      kill -KILL "$p" 2> /dev/null || true
    fi
  done
  SLURM_PIDS=()
}

slurm_job_field() {
  scontrol show job "$1" 2> /dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

slurm_wait_state() {
  local job=$1 timeout=60
  shift
  local states=("$@")
  if [[ ${states[-1]} =~ ^[0-9]+$ ]]; then timeout=${states[-1]}; unset 'states[-1]'; fi
  local t0=$SECONDS s want
  while (( SECONDS - t0 < timeout )); do
    s=$(slurm_job_field "$job" JobState)
    for want in "${states[@]}"; do [[ $s == "$want" ]] && return 0; done
    sleep 0.2
  done
  fail "job $job: state '$s' after $timeout s, waited for ${states[*]}"
}
