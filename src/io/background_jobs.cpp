// BackgroundJobs (io/background_jobs.hpp).
#include "io/background_jobs.hpp"

#include <pthread.h>

#include <chrono>
#include <csignal>

namespace stratus {

BackgroundJobs::~BackgroundJobs() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return !in_flight_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundJobs::submit(std::function<void()> job) {
  wait();
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    in_flight_ = true;
  }
  cv_.notify_all();
}

void BackgroundJobs::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !in_flight_; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

double BackgroundJobs::busy_seconds() {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

void BackgroundJobs::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || in_flight_; });
    if (!in_flight_) return;  // stop_ with nothing in flight
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
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
    if (error && !error_) error_ = error;
    in_flight_ = false;
    cv_.notify_all();
  }
}

}  // namespace stratus
