// What the batch system says about this job: the Slurm environment of the step (job id, partition,
// nodes, tasks, restart count) and the time left before Slurm ends the job, plus the duration syntax the
// deck and Slurm share. Only reads the environment and asks squeue; never writes, never signals. Other
// batch systems are not recognised (in_slurm is false there).
#pragma once
#include <optional>
#include <string>

namespace stratus {

/// The Slurm job this process runs in, as its environment describes it.
struct BatchJob {
  bool in_slurm = false;  ///< SLURM_JOB_ID is set
  std::string job_id, partition, nodelist, cluster;
  int nnodes = 0;              ///< nodes in the job (0: unknown)
  int ntasks = 0;              ///< tasks (MPI ranks) of the step (0: unknown)
  int restart_count = 0;       ///< times Slurm requeued the job (0 on the first run)
  int cpus_per_task = 0;       ///< 0: unknown
  int gpus_per_node_hint = 0;  ///< from SLURM_GPUS_ON_NODE (else SLURM_GPUS_PER_NODE); 0: unknown or none
};

/// The job from SLURM_JOB_ID, SLURM_JOB_PARTITION, SLURM_JOB_NODELIST, SLURM_CLUSTER_NAME,
/// SLURM_JOB_NUM_NODES (or SLURM_NNODES), SLURM_NTASKS, SLURM_RESTART_COUNT, SLURM_CPUS_PER_TASK and
/// SLURM_GPUS_ON_NODE / SLURM_GPUS_PER_NODE. Unset variables leave the defaults. Throws InputError naming
/// the variable when a count is not a non-negative integer (SLURM_GPUS_PER_NODE may carry a type,
/// "h100:4", and an unparsable one is ignored: it is only a hint).
BatchJob slurm_job();

/// Seconds left in the Slurm job (until its end time): from SLURM_JOB_END_TIME (epoch seconds) when set,
/// else from `squeue -h -j JOBID -o %L` (run under `timeout 10`). nullopt when not in Slurm, when the job
/// has no time limit, when the job id is not of the form DIGITS[_DIGITS], or when squeue fails. Never
/// throws. Can be negative when the end time has passed.
std::optional<double> slurm_seconds_left();

/// Parses squeue's time-left text, "[days-][hours:]minutes:seconds" (also "MINUTES" alone), into seconds;
/// nullopt for "UNLIMITED", "NOT_SET", "INVALID" and anything malformed.
std::optional<double> parse_slurm_time_left(const std::string& text);

/// Parses "SECONDS" (a non-negative number) or "[D-]HH:MM:SS" / "MM:SS" into seconds. Throws InputError
/// naming `key` (e.g. "run.max_walltime") otherwise.
double parse_duration(const std::string& key, const std::string& text);

}  // namespace stratus
