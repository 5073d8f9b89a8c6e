/* Uncontended fastpath_monitor_enter + fastpath_monitor_exit from C: the
 * time of one pair, in ns, per round. Usage: enter_exit [pairs] [rounds]
 * [on|inline]. With "on", the explicit-thread pair:
 * fastpath_monitor_enter_on/exit_on with the block from
 * fastpath_thread_block() loaded once, as a runtime carrying its thread
 * does (no thread-local lookup per call); with "inline", the same pair's
 * inline form (fastpath_monitor_enter_inline/exit_inline: no call).
 * Compared with the same pair from Rust (enter_exit.rs) by enter_exit.sh;
 * see BENCHMARKS.md. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  int on = argc > 3 && strcmp(argv[3], "on") == 0;
  int inl = argc > 3 && strcmp(argv[3], "inline") == 0;
  if (pairs < 1 || rounds < 1 || (argc > 3 && !on && !inl)) {
    fprintf(stderr, "usage: enter_exit [pairs >= 1] [rounds >= 1] [on|inline]\n");
    return 2;
  }
  fastpath_header h;
  if (fastpath_header_init(&h) != FASTPATH_OK) return 1;
  /* Warm up: attaches the thread, faults the lock-stack in. */
  for (long i = 0; i < 1000; i++) {
    fastpath_monitor_enter(&h);
    fastpath_monitor_exit(&h);
  }
  fastpath_block *t = fastpath_thread_block();
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    if (inl) {
      for (long i = 0; i < pairs; i++) {
        if ((fastpath_monitor_enter_inline(t, &h) | fastpath_monitor_exit_inline(t, &h)) != FASTPATH_OK) return 2;
      }
    } else if (on) {
      for (long i = 0; i < pairs; i++) {
        if ((fastpath_monitor_enter_on(t, &h) | fastpath_monitor_exit_on(t, &h)) != FASTPATH_OK) return 2;
      }
    } else {
      for (long i = 0; i < pairs; i++) {
        /* A failure shows in the OR of the two statuses; one branch per
         * pair, as C code checking its calls pays. */
        if ((fastpath_monitor_enter(&h) | fastpath_monitor_exit(&h)) != FASTPATH_OK) return 2;
      }
    }
    double t1 = now_ns();
    printf("%s %.3f\n", inl ? "c_enter_exit_inline_ns" : on ? "c_enter_exit_on_ns" : "c_enter_exit_ns",
           (t1 - t0) / (double)pairs);
  }
  fastpath_lock_state st;
  if (fastpath_header_lock_state(&h, &st) != FASTPATH_OK || st != FASTPATH_UNLOCKED) return 3;
  fastpath_header_destroy(&h);
  return 0;
}
