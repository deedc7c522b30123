// Tests of io/background_jobs: jobs run one at a time in the order given, submit() waits for the job in
// flight, a job's exception comes back once, as its own type, from the next wait() or submit() (and a
// job submitted then does not run), the thread never takes the stop signals, and the destructor waits
// for the job in flight without throwing. Built into test_grid_output (the snapshot writer's thread).
#include <pthread.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>
#include <vector>

#include "io/background_jobs.hpp"

namespace {

struct JobFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST_CASE("background jobs run one at a time, in order", "[io]") {
  stratus::BackgroundJobs jobs;
  std::vector<int> order;  // touched by one job at a time, read here after wait()
  std::atomic<int> running{0}, most{0};
  for (int j = 0; j < 5; ++j) {
    jobs.submit([&, j] {
      most = std::max(most.load(), ++running);
      pause_ms(j == 0 ? 60 : 5);  // the first is slow: the second must not start before it ends
      order.push_back(j);
      --running;
    });
  }
  jobs.wait();
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(most == 1);
  CHECK(jobs.busy_seconds() >= 0.06);
}

TEST_CASE("a background job's error comes back once, as its own type", "[io]") {
  stratus::BackgroundJobs jobs;
  bool after = false;
  SECTION("from wait()") {
    jobs.submit([] { throw JobFailed("disk full"); });
    REQUIRE_THROWS_AS(jobs.wait(), JobFailed);
    jobs.wait();  // reported once
    jobs.submit([&] { after = true; });
    jobs.wait();
    CHECK(after);
  }
  SECTION("from submit(), which then runs nothing") {
    jobs.submit([] {
      pause_ms(20);
      throw JobFailed("disk full");
    });
    REQUIRE_THROWS_WITH(jobs.submit([&] { after = true; }), "disk full");
    jobs.wait();
    CHECK_FALSE(after);
  }
}

TEST_CASE("the background thread blocks the stop signals", "[io]") {
  stratus::BackgroundJobs jobs;
  std::vector<int> blocked;
  jobs.submit([&] {
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    for (int s : {SIGTERM, SIGINT, SIGUSR1, SIGALRM})
      if (sigismember(&mask, s) == 1) blocked.push_back(s);
  });
  jobs.wait();
  CHECK(blocked.size() == 4);
  // ... and the caller's own mask is as it was.
  sigset_t mine;
  pthread_sigmask(SIG_BLOCK, nullptr, &mine);
  CHECK(sigismember(&mine, SIGTERM) == 0);
}

TEST_CASE("destroying background jobs waits for the job in flight", "[io]") {
  std::atomic<bool> done{false};
  {
    stratus::BackgroundJobs jobs;
    jobs.submit([&] {
      pause_ms(50);
      done = true;
      throw JobFailed("never reported");
    });
  }
  CHECK(done);
}
