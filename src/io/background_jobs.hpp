// One background thread that runs jobs one at a time, in the order given: what lets a grid snapshot be
// written while the next steps run. The owner hands over a job after the previous one has ended
// (submit() waits for it), so at most one job is ever in flight and a job may use state the owner does
// not touch until the next wait(). A job's exception is kept and rethrown, as the same type, by the next
// wait() or submit() on the owner's thread. The thread blocks the stop signals (they belong to the main
// thread's run control) and is started on first use. This file knows nothing of HDF5 or MPI; a job that
// calls MPI needs MPI_THREAD_MULTIPLE and a communicator of its own.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace stratus {

class BackgroundJobs {
 public:
  BackgroundJobs() = default;
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;
  /// Waits for the job in flight (its error, if any, is dropped) and ends the thread.
  ~BackgroundJobs();

  /// Waits for the job in flight, then starts `job` on the background thread and returns.
  void submit(std::function<void()> job);
  /// Returns when no job is in flight; rethrows the exception of a job that failed since the last wait.
  void wait();
  /// Seconds the background thread spent in jobs so far (those that ended).
  double busy_seconds();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> job_;  // handed over by submit(), taken by the thread
  bool in_flight_ = false;     // from submit() until the job has ended
  std::exception_ptr error_;
  bool stop_ = false;
  double busy_ = 0.0;
  std::thread thread_;
};

}  // namespace stratus
