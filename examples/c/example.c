/*
 * fastpath from C in five minutes.
 *
 * A runtime's object embeds a fastpath_header; the header is the object's
 * lock (Java's `synchronized`), taken here from four threads. Then a
 * function is installed into a code cache and called, the way a JIT hands
 * its output to the machine.
 *
 * Build and run (from the repository root):
 *   cargo build --release -p fastpath-capi
 *   cc -std=c11 -O2 -pthread -Iinclude examples/c/example.c \
 *      target/release/libfastpath.a -lpthread -ldl -lm -lrt -o example
 *   ./example
 * or against the shared library, with pkg-config:
 *   cc -std=c11 -O2 -pthread examples/c/example.c -o example \
 *      $(PKG_CONFIG_PATH=target/release pkg-config --cflags --libs fastpath)
 *   LD_LIBRARY_PATH=target/release ./example
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastpath.h"

/* Stop with fastpath's message on any error. */
static void ok(fastpath_status s, const char *what) {
  if (s != FASTPATH_OK) {
    fprintf(stderr, "%s: %s (%s)\n", what, fastpath_status_str(s), fastpath_last_error());
    exit(1);
  }
}

/* 1. An object: the header first, then the fields it guards. It must not
 *    move while locked (here it is a global). */
struct account {
  fastpath_header header;
  long balance;
};

static struct account account;

enum { THREADS = 4, DEPOSITS = 10000 };

static void *deposit(void *arg) {
  (void)arg;
  for (int i = 0; i < DEPOSITS / 2; i++) {
    ok(fastpath_monitor_enter(&account.header), "enter"); /* one CAS when uncontended */
    account.balance += 1;
    ok(fastpath_monitor_exit(&account.header), "exit");
  }
  /* A runtime's own lock path: the thread's block, loaded once, and the
   * inline pair (the end of fastpath.h), whose uncontended lock and
   * unlock make no call into the library. */
  fastpath_block *self = fastpath_thread_block();
  for (int i = DEPOSITS / 2; i < DEPOSITS; i++) {
    ok(fastpath_monitor_enter_inline(self, &account.header), "enter inline");
    account.balance += 1;
    ok(fastpath_monitor_exit_inline(self, &account.header), "exit inline");
  }
  return NULL; /* a thread that forgot an exit would have its locks released here */
}

int main(void) {
  printf("fastpath %s\n", fastpath_version_string());
  /* The inline pair reads the thread block at this header's offsets. */
  if (fastpath_thread_layout_version() != FASTPATH_THREAD_LAYOUT_VERSION) {
    fprintf(stderr, "fastpath.h does not match the library\n");
    return 1;
  }

  /* 2. Lock it from several threads. */
  ok(fastpath_header_init(&account.header), "init");
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, deposit, NULL);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  printf("balance %ld after %d deposits from %d threads\n", account.balance, THREADS * DEPOSITS, THREADS);

  fastpath_sync_stats stats;
  ok(fastpath_sync_get_stats(&stats), "stats");
  printf("monitors inflated by contention: %llu\n", (unsigned long long)stats.inflations[FASTPATH_INFLATE_CONTENTION]);
  ok(fastpath_header_destroy(&account.header), "destroy"); /* frees its monitor, if any */

#if defined(__x86_64__)
  /* 3. Install a function into a code cache and call it. */
  static const uint8_t add[] = {0x8D, 0x04, 0x37, 0xC3}; /* lea eax, [rdi+rsi]; ret */
  fastpath_code_cache *cache;
  fastpath_code_entry *entry;
  ok(fastpath_code_cache_new(64 * 1024, &cache), "code cache");
  ok(fastpath_code_install(cache, add, sizeof add, &entry), "install");
  uint32_t (*fn)(uint32_t, uint32_t);
  const void *addr = fastpath_code_entry_addr(entry);
  memcpy(&fn, &addr, sizeof fn); /* object pointer to function pointer, as dlsym */
  printf("installed add(20, 22) = %u\n", fn(20, 22));
  ok(fastpath_code_free(cache, entry), "free");
  ok(fastpath_code_cache_free(cache), "cache free");
#endif
  return 0;
}
