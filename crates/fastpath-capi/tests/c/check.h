/* Minimal checking for the C tests of the fastpath C ABI: every CHECK counts
 * one check; a failure prints the expression, the status text and
 * fastpath_last_error(), and exits 1. The Rust harness (tests/c_abi.rs)
 * asserts the exit status and the final "passed N checks" line. */
#ifndef FASTPATH_TEST_CHECK_H
#define FASTPATH_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastpath.h"

static unsigned long checks_passed;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,     \
              __LINE__, #cond, fastpath_last_error());                           \
      exit(1);                                                                   \
    }                                                                            \
    __atomic_add_fetch(&checks_passed, 1, __ATOMIC_RELAXED);                     \
  } while (0)

/* CHECK_STATUS(call, FASTPATH_OK): the call returns exactly that status. */
#define CHECK_STATUS(call, expected)                                             \
  do {                                                                           \
    fastpath_status s_ = (call);                                                 \
    if (s_ != (expected)) {                                                      \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %s (last error: %s)\n", \
              __FILE__, __LINE__, #call, (int)s_, fastpath_status_str(s_),        \
              #expected, fastpath_last_error());                                 \
      exit(1);                                                                   \
    }                                                                            \
    __atomic_add_fetch(&checks_passed, 1, __ATOMIC_RELAXED);                     \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, FASTPATH_OK)

static inline void report_passed(const char *what) {
  printf("%s: passed %lu checks\n", what, checks_passed);
}

#endif
