// One background thread that runs jobs one at a time, in the order given: what lets a grid snapshot or a
// trajectory frame be written while the next steps run. At most `depth` jobs are ever queued or running
// (submit() waits for room), and a job may read state that the owner leaves alone until the job has ended:
// wait() waits for every job, make_room() for the oldest of the last `depth` submitted.
//
// A job's exception is kept and rethrown once, as the same type, on the owner's thread, by the first
// make_room(), submit() or wait() that has waited for the failed job itself: so where the same jobs fail
// together in every process of a parallel run (collective output), every process throws at the same call.
// The jobs queued after a failed one, and those submitted before its error is rethrown, do not run (each
// may rely on the one before). The thread blocks the stop signals (they belong to the main thread's run
// control) and is started on first use. This file knows nothing of HDF5 or MPI; a job that calls MPI needs
// MPI_THREAD_MULTIPLE and a communicator of its own.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace stratus {

class BackgroundJobs {
 public:
  /// At most `depth` (1 or more) jobs queued or running at once.
  explicit BackgroundJobs(int depth = 1);
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;
  /// Waits for the jobs in flight (their errors, if any, are dropped) and ends the thread.
  ~BackgroundJobs();

  /// make_room(), then queues `job` for the background thread (or drops it after a failed job whose error
  /// is still to come back) and returns its number: jobs are numbered 0, 1, ... in the order submitted.
  std::size_t submit(std::function<void()> job);
  /// Returns when fewer than `depth` jobs are in flight, so that the oldest of the last `depth` submitted
  /// has ended; rethrows the exception of a failed job among those it has waited for.
  void make_room();
  /// Returns when no job is in flight; rethrows the exception of a failed job.
  void wait();
  /// Whether no job is queued or running now (only the owner submits, so this stays true until it does).
  bool idle();
  /// Whether job number `job` (from submit()) has ended: run, failed or dropped. Jobs end in order.
  bool ended(std::size_t job);
  /// Seconds the background thread spent in jobs so far (those that ended).
  double busy_seconds();

 private:
  void loop();
  /// With mutex_ held: waits until at most `most` jobs are in flight, then rethrows the error of a failed
  /// job older than those.
  void wait_until(std::unique_lock<std::mutex>& lock, std::size_t most);

  std::mutex mutex_;
  std::condition_variable cv_;
  const std::size_t depth_;
  std::deque<std::function<void()>> queue_;  // handed over by submit(), taken by the thread in order
  // Jobs are numbered in the order submitted (dropped ones too); jobs 0 .. ended_ - 1 have ended, and the
  // submitted_ - ended_ after them are in flight.
  std::size_t submitted_ = 0, ended_ = 0;
  std::exception_ptr error_;  // of job failed_, until rethrown
  std::size_t failed_ = 0;
  bool stop_ = false;
  double busy_ = 0.0;
  std::thread thread_;
};

}  // namespace stratus
