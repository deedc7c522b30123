// Tests of io/background_jobs: jobs run one at a time in the order given, submit() waits for room (with
// depth 1 for the job in flight, with depth 3 for the oldest of three), a job's exception comes back
// once, as its own type, from the first call that waited for the failed job (and the jobs after it do not
// run), jobs are numbered and end in order (ended()), the thread never takes the stop signals, and the
// destructor waits for the jobs in flight without throwing. Built into test_grid_output (the snapshot
// writer's thread).
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

TEST_CASE("with depth 3, two jobs queue behind a running one, and make_room() waits for the oldest", "[io]") {
  REQUIRE_THROWS(stratus::BackgroundJobs(0));
  stratus::BackgroundJobs jobs(3);
  CHECK(jobs.idle());
  std::atomic<bool> release{false}, first_done{false};
  std::vector<int> order;  // touched by one job at a time, read here after wait()
  CHECK(jobs.submit([&] {
    while (!release) pause_ms(1);
    first_done = true;
    order.push_back(0);
  }) == 0);
  // Room for two more while the first runs: neither submit() waits for it. Jobs are numbered in order.
  CHECK(jobs.submit([&] { order.push_back(1); }) == 1);
  CHECK(jobs.submit([&] { order.push_back(2); }) == 2);
  CHECK_FALSE(first_done);
  CHECK_FALSE(jobs.idle());
  CHECK_FALSE(jobs.ended(0));
  CHECK_FALSE(jobs.ended(2));
  std::thread releaser([&] {
    pause_ms(30);
    release = true;
  });
  jobs.make_room();  // three in flight: returns once the first has ended
  CHECK(first_done);
  CHECK(jobs.ended(0));
  releaser.join();
  CHECK(jobs.submit([&] { order.push_back(3); }) == 3);
  jobs.wait();
  CHECK(jobs.idle());
  CHECK(jobs.ended(3));
  CHECK_FALSE(jobs.ended(4));
  CHECK(order == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("with depth 3, a job's error comes back from the call that waited for it, and its followers never run",
          "[io]") {
  stratus::BackgroundJobs jobs(3);
  std::atomic<int> ran{0};
  std::atomic<bool> failing{false};
  jobs.submit([&] {
    failing = true;
    throw JobFailed("disk full");
  });
  // The first has failed (or is about to) before the next two calls, which do not wait for it: they do
  // not throw, and their jobs, given after its failure or queued after it, do not run.
  while (!failing) pause_ms(1);
  pause_ms(20);
  CHECK_NOTHROW(jobs.submit([&] { ++ran; }));
  CHECK_NOTHROW(jobs.submit([&] { ++ran; }));
  // Three in flight: this waits for the first, and so reports it.
  REQUIRE_THROWS_AS(jobs.make_room(), JobFailed);
  CHECK(jobs.idle());
  CHECK(ran == 0);
  jobs.make_room();  // reported once
  jobs.submit([&] { ++ran; });
  jobs.wait();
  CHECK(ran == 1);
}

TEST_CASE("with depth 3, the jobs queued behind one that fails are dropped with it", "[io]") {
  stratus::BackgroundJobs jobs(3);
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  jobs.submit([&] {
    while (!release) pause_ms(1);
    throw JobFailed("disk full");
  });
  // Both queued while the first runs: its failure must take them off the queue.
  jobs.submit([&] { ++ran; });
  CHECK(jobs.submit([&] { ++ran; }) == 2);
  CHECK_FALSE(jobs.ended(1));
  release = true;
  REQUIRE_THROWS_AS(jobs.make_room(), JobFailed);  // three in flight: waits for the first
  CHECK(jobs.idle());
  CHECK(jobs.ended(2));  // dropped: ended without running
  CHECK(ran == 0);
}
