/* Uncontended fastpath_monitor_enter + fastpath_monitor_exit from C: the
 * time of one pair, in ns, per round. Usage: enter_exit [pairs] [rounds].
 * Compared with the same pair from Rust (enter_exit.rs) by enter_exit.sh;
 * see BENCHMARKS.md. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fastpath.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  long pairs = argc > 1 ? atol(argv[1]) : 10000000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  fastpath_header h;
  if (fastpath_header_init(&h) != FASTPATH_OK) return 1;
  /* Warm up: attaches the thread, faults the lock-stack in. */
  for (long i = 0; i < 1000; i++) {
    fastpath_monitor_enter(&h);
    fastpath_monitor_exit(&h);
  }
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
      /* The statuses are checked once per round (the sum): a failure
       * would show, a branch per call would not be what C code pays. */
      if ((fastpath_monitor_enter(&h) | fastpath_monitor_exit(&h)) != FASTPATH_OK) return 2;
    }
    double t1 = now_ns();
    printf("c_enter_exit_ns %.3f\n", (t1 - t0) / (double)pairs);
  }
  fastpath_lock_state st;
  if (fastpath_header_lock_state(&h, &st) != FASTPATH_OK || st != FASTPATH_UNLOCKED) return 3;
  fastpath_header_destroy(&h);
  return 0;
}
