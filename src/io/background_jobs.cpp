// BackgroundJobs (io/background_jobs.hpp).
#include "io/background_jobs.hpp"

#include <pthread.h>

#include <chrono>
#include <csignal>

#include "core/error.hpp"

namespace stratus {

BackgroundJobs::BackgroundJobs(int depth) : depth_(static_cast<std::size_t>(depth)) {
  STRATUS_REQUIRE(depth >= 1, "BackgroundJobs: depth " << depth << " (1 or more)");
}

BackgroundJobs::~BackgroundJobs() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return ended_ == submitted_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundJobs::wait_until(std::unique_lock<std::mutex>& lock, std::size_t most) {
  cv_.wait(lock, [this, most] { return submitted_ - ended_ <= most; });
  // A job that failed after the oldest of the `most` in flight ended may not have failed yet elsewhere:
  // its error waits for the call that waits for it.
  if (error_ && failed_ + most < submitted_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

std::size_t BackgroundJobs::submit(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_until(lock, depth_ - 1);
  if (error_) {  // a job that follows a failed one, whose error is still to come back
    ++ended_;
    return submitted_++;
  }
  if (!thread_.joinable()) {
    // The thread inherits the signal mask in force when it is created: block the stop signals for it, so
    // that they always reach the main thread and never interrupt a job's system calls.
    sigset_t block, old;
    sigemptyset(&block);
    for (int s : {SIGTERM, SIGINT, SIGUSR1, SIGALRM, SIGHUP}) sigaddset(&block, s);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    thread_ = std::thread([this] { loop(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  queue_.push_back(std::move(job));
  const std::size_t number = submitted_++;
  lock.unlock();
  cv_.notify_all();
  return number;
}

void BackgroundJobs::make_room() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_until(lock, depth_ - 1);
}

void BackgroundJobs::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_until(lock, 0);
}

bool BackgroundJobs::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ended_ == submitted_;
}

bool BackgroundJobs::ended(std::size_t job) {
  std::lock_guard<std::mutex> lock(mutex_);
  return job < ended_;
}

double BackgroundJobs::busy_seconds() {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

void BackgroundJobs::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ with nothing in flight
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    job = nullptr;  // what it captured goes before the owner hears that the job has ended
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    lock.lock();
    busy_ += took.count();
    if (error) {
      // No error is pending (submit() drops jobs while one is); the jobs queued after this one do not run.
      error_ = error;
      failed_ = ended_;
      ended_ += queue_.size();
      queue_.clear();
    }
    ++ended_;
    cv_.notify_all();
  }
}

}  // namespace stratus
