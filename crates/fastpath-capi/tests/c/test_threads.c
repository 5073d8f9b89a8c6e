/* The fastpath C ABI from several pthreads: mutual exclusion (a plain,
 * non-atomic counter guarded by a header, enter/exit and try-enter mixed),
 * wait/notify (a one-slot queue), interrupting a waiting thread, and a
 * thread that exits holding a lock (released, as in Rust), the thread block
 * (its layout read through the published offsets, and enter/exit with the
 * block passed in, mixed with the thread-local forms, and the inline pair
 * of fastpath.h's trailer). Bounded: a few
 * hundred milliseconds on two cores. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "check.h"

enum { THREADS = 4, INCREMENTS = 20000, ITEMS = 2000 };

struct counter {
  fastpath_header header;
  long value; /* guarded by header */
};

static struct counter counter;

static void *increment(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < INCREMENTS; i++) {
    if (id % 2 == 1 && i % 3 == 0) {
      /* Some try-enters: BUSY is fine, then take the blocking path. */
      fastpath_status s = fastpath_monitor_try_enter(&counter.header);
      CHECK(s == FASTPATH_OK || s == FASTPATH_ERR_BUSY);
      if (s != FASTPATH_OK) CHECK_OK(fastpath_monitor_enter(&counter.header));
    } else {
      CHECK_OK(fastpath_monitor_enter(&counter.header));
    }
    long v = counter.value;
    if (i % 64 == 0) sched_yield(); /* widen the window a broken lock would lose */
    counter.value = v + 1;
    CHECK_OK(fastpath_monitor_exit(&counter.header));
  }
  return NULL;
}

static void mutual_exclusion(void) {
  pthread_t t[THREADS];
  CHECK_OK(fastpath_header_init(&counter.header));
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, increment, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  CHECK(counter.value == (long)THREADS * INCREMENTS);
  printf("increments checked: %ld\n", counter.value);
  CHECK_OK(fastpath_header_destroy(&counter.header));
}

/* The same guarded counter in legacy mode: even threads lock with a record
 * on their own stack (as compiled code passes a BasicLock), odd ones with
 * the record-less enter/exit, so contenders meet stack-locks and inflate
 * them through INFLATING. */
static void *increment_legacy(void *arg) {
  long id = (long)arg;
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LEGACY));
  for (int i = 0; i < INCREMENTS; i++) {
    fastpath_lock_record rec;
    CHECK_OK(fastpath_lock_record_init(&rec));
    if (id % 2 == 0) {
      CHECK_OK(fastpath_monitor_enter_with_record(&counter.header, &rec));
    } else {
      CHECK_OK(fastpath_monitor_enter(&counter.header));
    }
    long v = counter.value;
    if (i % 64 == 0) sched_yield();
    counter.value = v + 1;
    if (id % 2 == 0) {
      CHECK_OK(fastpath_monitor_exit_with_record(&counter.header, &rec));
    } else {
      CHECK_OK(fastpath_monitor_exit(&counter.header));
    }
    CHECK_OK(fastpath_lock_record_destroy(&rec));
  }
  return NULL;
}

static void legacy_mutual_exclusion(void) {
  pthread_t t[THREADS];
  counter.value = 0;
  CHECK_OK(fastpath_header_init(&counter.header));
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, increment_legacy, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  CHECK(counter.value == (long)THREADS * INCREMENTS);
  printf("legacy increments checked: %ld\n", counter.value);
  CHECK_OK(fastpath_header_destroy(&counter.header));
}

/* A one-slot queue: a producer waits while full, a consumer while empty. */
struct slot {
  fastpath_header header;
  int full;
  long item;
  long sum;
};

static struct slot slot;

static void *produce(void *arg) {
  (void)arg;
  for (long i = 1; i <= ITEMS; i++) {
    CHECK_OK(fastpath_monitor_enter(&slot.header));
    while (slot.full) CHECK_OK(fastpath_monitor_wait(&slot.header, FASTPATH_WAIT_FOREVER));
    slot.item = i;
    slot.full = 1;
    CHECK_OK(fastpath_monitor_notify_all(&slot.header, NULL));
    CHECK_OK(fastpath_monitor_exit(&slot.header));
  }
  return NULL;
}

static void *consume(void *arg) {
  (void)arg;
  for (long i = 1; i <= ITEMS; i++) {
    CHECK_OK(fastpath_monitor_enter(&slot.header));
    while (!slot.full) {
      /* A timed wait in the loop: a lost notification shows as TIMED_OUT
       * spinning, a broken one as a wrong sum. */
      fastpath_status s = fastpath_monitor_wait(&slot.header, 50 * 1000 * 1000);
      CHECK(s == FASTPATH_OK || s == FASTPATH_ERR_TIMED_OUT);
    }
    CHECK(slot.item == i);
    slot.sum += slot.item;
    slot.full = 0;
    size_t woken = 0;
    CHECK_OK(fastpath_monitor_notify(&slot.header, &woken));
    CHECK(woken <= 1);
    CHECK_OK(fastpath_monitor_exit(&slot.header));
  }
  return NULL;
}

static void wait_notify(void) {
  pthread_t p, c;
  CHECK_OK(fastpath_header_init(&slot.header));
  CHECK(pthread_create(&c, NULL, consume, NULL) == 0);
  CHECK(pthread_create(&p, NULL, produce, NULL) == 0);
  CHECK(pthread_join(p, NULL) == 0);
  CHECK(pthread_join(c, NULL) == 0);
  CHECK(slot.sum == (long)ITEMS * (ITEMS + 1) / 2);
  printf("items handed over: %d\n", ITEMS);
  CHECK_OK(fastpath_header_destroy(&slot.header));
}

/* Interrupt a thread blocked in an untimed wait. */
static struct {
  fastpath_header header;
  fastpath_thread *waiter;
  int waiting;
} gate;

static void *wait_to_be_interrupted(void *arg) {
  (void)arg;
  CHECK_OK(fastpath_monitor_enter(&gate.header));
  CHECK_OK(fastpath_thread_current(&gate.waiter));
  gate.waiting = 1;
  CHECK_OK(fastpath_monitor_notify_all(&gate.header, NULL));
  CHECK_STATUS(fastpath_monitor_wait(&gate.header, FASTPATH_WAIT_FOREVER), FASTPATH_ERR_INTERRUPTED);
  bool held = false;
  CHECK_OK(fastpath_holds_lock(&gate.header, &held));
  CHECK(held); /* re-acquired before returning */
  CHECK_OK(fastpath_monitor_exit(&gate.header));
  return NULL;
}

static void interrupt_a_waiter(void) {
  pthread_t t;
  CHECK_OK(fastpath_header_init(&gate.header));
  CHECK(pthread_create(&t, NULL, wait_to_be_interrupted, NULL) == 0);
  CHECK_OK(fastpath_monitor_enter(&gate.header));
  while (!gate.waiting) CHECK(fastpath_monitor_wait(&gate.header, 10 * 1000 * 1000) != FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  /* The waiter released the lock in wait (we hold it now): interrupt it. */
  CHECK_OK(fastpath_thread_interrupt(gate.waiter));
  CHECK_OK(fastpath_monitor_exit(&gate.header));
  CHECK(pthread_join(t, NULL) == 0);
  bool flag = true;
  CHECK_OK(fastpath_thread_is_interrupted(gate.waiter, &flag));
  CHECK(!flag); /* consumed by the wait */
  CHECK_OK(fastpath_thread_release(gate.waiter));
  CHECK_OK(fastpath_header_destroy(&gate.header));
}

/* A thread that exits holding a lock: its locks are released at exit (as
 * HotSpot does for a detaching JNI thread), so nobody blocks forever. */
static struct counter abandoned;

static void *lock_and_exit(void *arg) {
  (void)arg;
  CHECK_OK(fastpath_monitor_enter(&abandoned.header));
  CHECK_OK(fastpath_monitor_enter(&abandoned.header)); /* twice */
  abandoned.value = 42;
  return NULL; /* no exit */
}

static void *lock_explicitly_attached(void *arg) {
  (void)arg;
  CHECK_OK(fastpath_thread_attach());
  return lock_and_exit(NULL);
}

/* Detach (JNI's DetachCurrentThread) releases the locks before the thread
 * ends: its own exit then has nothing to release, and the thread can still
 * lock. A lock taken with the caller's record stays the caller's. */
static void *lock_and_detach(void *arg) {
  (void)arg;
  fastpath_header own;
  fastpath_lock_record rec;
  CHECK_OK(fastpath_header_init(&own));
  CHECK_OK(fastpath_lock_record_init(&rec));
  CHECK_OK(fastpath_monitor_enter_with_record(&own, &rec));
  lock_and_exit(NULL);
  CHECK_OK(fastpath_thread_detach());
  bool held = true;
  CHECK_OK(fastpath_holds_lock(&abandoned.header, &held));
  CHECK(!held);
  CHECK_STATUS(fastpath_monitor_exit(&abandoned.header), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_holds_lock(&own, &held));
  CHECK(held);
  CHECK_OK(fastpath_monitor_exit_with_record(&own, &rec));
  CHECK_OK(fastpath_lock_record_destroy(&rec));
  CHECK_OK(fastpath_header_destroy(&own));
  CHECK_OK(fastpath_thread_detach()); /* nothing held: a no-op */
  return NULL;
}

static void thread_exit_holding_a_lock(void *(*body)(void *)) {
  fastpath_sync_stats before, after;
  CHECK_OK(fastpath_sync_get_stats(&before));
  CHECK_OK(fastpath_header_init(&abandoned.header));
  pthread_t t;
  CHECK(pthread_create(&t, NULL, body, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  /* Would block forever if the lock had not been released. */
  CHECK_OK(fastpath_monitor_enter(&abandoned.header));
  CHECK(abandoned.value == 42);
  CHECK_OK(fastpath_monitor_exit(&abandoned.header));
  bool held = true;
  CHECK_OK(fastpath_holds_lock(&abandoned.header, &held));
  CHECK(!held);
  CHECK_OK(fastpath_sync_get_stats(&after));
  CHECK(after.released_at_thread_exit > before.released_at_thread_exit);
  CHECK_OK(fastpath_header_destroy(&abandoned.header));
}

/* Destroying a header another thread holds fast-locked (or stack-locked):
 * BUSY, no change. */
static struct {
  fastpath_header header;
  int locked, release;
} busy;

static void *hold_until_told(void *arg) {
  (void)arg;
  CHECK_OK(fastpath_monitor_enter(&busy.header));
  __atomic_store_n(&busy.locked, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&busy.release, __ATOMIC_ACQUIRE)) sched_yield();
  CHECK_OK(fastpath_monitor_exit(&busy.header));
  return NULL;
}

static void destroy_while_another_thread_holds(void) {
  pthread_t t;
  CHECK_OK(fastpath_header_init(&busy.header));
  CHECK(pthread_create(&t, NULL, hold_until_told, NULL) == 0);
  while (!__atomic_load_n(&busy.locked, __ATOMIC_ACQUIRE)) sched_yield();
  fastpath_lock_state st;
  CHECK_OK(fastpath_header_lock_state(&busy.header, &st));
  /* Visible from the header unless inflated (monitor mode): then the
   * caller's bug, which fastpath_header_destroy's comment describes. */
  if (st != FASTPATH_INFLATED) CHECK_STATUS(fastpath_header_destroy(&busy.header), FASTPATH_ERR_BUSY);
  CHECK_STATUS(fastpath_monitor_try_enter(&busy.header), FASTPATH_ERR_BUSY);
  CHECK_STATUS(fastpath_monitor_exit(&busy.header), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  __atomic_store_n(&busy.release, 1, __ATOMIC_RELEASE);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK_OK(fastpath_header_destroy(&busy.header));
}

/* fastpath_spin_wait_u32 sees another thread's store. */
static uint32_t flag_word;

static void *set_flag(void *arg) {
  (void)arg;
  struct timespec ts = {0, 1000 * 1000};
  nanosleep(&ts, NULL);
  __atomic_store_n(&flag_word, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void spin_wait_across_threads(void) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, set_flag, NULL) == 0);
  /* Spin with a small budget, then "park" (here: sleep) and retry. */
  while (fastpath_spin_wait_u32(&flag_word, 1, 10000, 2) == FASTPATH_ERR_TIMED_OUT) {
    struct timespec ts = {0, 100 * 1000};
    nanosleep(&ts, NULL);
  }
  CHECK(__atomic_load_n(&flag_word, __ATOMIC_ACQUIRE) == 1);
  CHECK(pthread_join(t, NULL) == 0);
}

/* The block seen through the published offsets: what generated code reads. */
#define BLOCK_U32(b, off) (*(const uint32_t *)((const char *)(b) + (off)))
#define BLOCK_WORD(b, off) (*(const uintptr_t *)((const char *)(b) + (off)))
#define BLOCK_U8(b, off) (*(const uint8_t *)((const char *)(b) + (off)))

static void *block_address(void *arg) {
  (void)arg;
  return fastpath_thread_block();
}

static int top_level_context;

static void thread_block_layout(void) {
  CHECK(fastpath_thread_layout_version() == FASTPATH_THREAD_LAYOUT_VERSION);
  fastpath_block *b = fastpath_thread_block();
  CHECK(b != NULL && b == fastpath_thread_block());
  pthread_t t;
  void *other = NULL;
  CHECK(pthread_create(&t, NULL, block_address, NULL) == 0);
  CHECK(pthread_join(t, &other) == 0);
  CHECK(other != NULL && other != (void *)b);
  CHECK(BLOCK_WORD(b, FASTPATH_THREAD_LOCK_STACK_SENTINEL_OFFSET) == 0);
  CHECK(FASTPATH_THREAD_LOCK_STACK_OFFSET == FASTPATH_THREAD_LOCK_STACK_SENTINEL_OFFSET + 8);
  CHECK(FASTPATH_THREAD_LOCK_STACK_END_OFFSET <= 255);
  /* The runtime's context word: 0 until the runtime writes it, and the
     library leaves what it writes there through attach and locking. */
  CHECK(BLOCK_WORD(b, FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET) == 0);
  CHECK(FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET + 8 <= 255);
  *(uintptr_t *)((char *)b + FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET) = (uintptr_t)&top_level_context;

  fastpath_header h;
  CHECK_OK(fastpath_header_init(&h));
  CHECK_OK(fastpath_thread_attach());
  CHECK(BLOCK_WORD(b, FASTPATH_THREAD_OWNER_ID_OFFSET) >= 3);
  fastpath_locking_mode mode;
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(BLOCK_U8(b, FASTPATH_THREAD_LOCKING_MODE_OFFSET) != 0);
  uint32_t top = BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET);
  CHECK_OK(fastpath_monitor_enter_on(b, &h));
  CHECK_OK(fastpath_monitor_enter_on(b, &h)); /* recursive */
  if (mode == FASTPATH_LOCKING_LIGHTWEIGHT) {
    /* Empty at attach; two entries of h now, at the published offsets. */
    CHECK(top == FASTPATH_THREAD_LOCK_STACK_OFFSET);
    CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top + 16);
    CHECK(BLOCK_WORD(b, top) == (uintptr_t)&h && BLOCK_WORD(b, top + 8) == (uintptr_t)&h);
  } else {
    CHECK(top == FASTPATH_THREAD_LOCK_STACK_INACTIVE);
    CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);
  }
  bool held = false;
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(held);
  /* The two forms are one lock: exit one level each way. */
  CHECK_OK(fastpath_monitor_exit(&h));
  CHECK_OK(fastpath_monitor_exit_on(b, &h));
  CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);
  CHECK_STATUS(fastpath_monitor_exit_on(b, &h), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_STATUS(fastpath_monitor_enter_on(NULL, &h), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_exit_on(NULL, &h), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_enter_on(b, NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_header_destroy(&h));
  CHECK(BLOCK_WORD(b, FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET) == (uintptr_t)&top_level_context);
  *(uintptr_t *)((char *)b + FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET) = 0;
}

static void *increment_on_block(void *arg) {
  long id = (long)arg;
  fastpath_block *b = fastpath_thread_block();
  for (int i = 0; i < INCREMENTS; i++) {
    /* Odd threads mix the forms: enter through the block, exit through TLS. */
    CHECK_OK(fastpath_monitor_enter_on(b, &counter.header));
    long v = counter.value;
    if (i % 64 == 0) sched_yield();
    counter.value = v + 1;
    if (id % 2 == 1 && i % 2 == 0) {
      CHECK_OK(fastpath_monitor_exit(&counter.header));
    } else {
      CHECK_OK(fastpath_monitor_exit_on(b, &counter.header));
    }
  }
  return NULL;
}

/* THREADS threads running `body` on a fresh counter, which must end at
 * every increment; returns the count and leaves the counter at 0 (as
 * mutual_exclusion expects it). */
static long counted_threads(void *(*body)(void *)) {
  pthread_t t[THREADS];
  counter.value = 0;
  CHECK_OK(fastpath_header_init(&counter.header));
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, body, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  long count = counter.value;
  CHECK(count == (long)THREADS * INCREMENTS);
  CHECK_OK(fastpath_header_destroy(&counter.header));
  counter.value = 0;
  return count;
}

static void block_mutual_exclusion(void) { counted_threads(increment_on_block); }

/* The inline pair (fastpath.h's trailer): the header words and lock-stack
 * entries it leaves at the published values, recursion and the called
 * forms mixed on one object, the _on functions' statuses for bad
 * arguments and for an object not held, a hashed header (the guess
 * misses: the called path, which remembers the object), an object
 * inflated under it (the exit's CAS fails: the called exit). */
static void inline_pair(void) {
  fastpath_block *b = fastpath_thread_block();
  fastpath_locking_mode mode;
  CHECK_OK(fastpath_current_locking_mode(&mode));
  bool lightweight = mode == FASTPATH_LOCKING_LIGHTWEIGHT;
  fastpath_header h;
  CHECK_OK(fastpath_header_init(&h));
  CHECK(h.opaque_word == FASTPATH_HEADER_NEUTRAL);
  uint32_t top = BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET);
  CHECK_OK(fastpath_monitor_enter_inline(b, &h));
  if (lightweight) {
    CHECK(h.opaque_word == FASTPATH_HEADER_FAST_LOCKED);
    CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top + 8);
    CHECK(BLOCK_WORD(b, top) == (uintptr_t)&h);
  }
  CHECK_OK(fastpath_monitor_enter_inline(b, &h)); /* recursive */
  CHECK_OK(fastpath_monitor_enter(&h));           /* a third level, called */
  if (lightweight) CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top + 24);
  bool held = false;
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(held);
  CHECK_OK(fastpath_monitor_exit_inline(b, &h));
  CHECK_OK(fastpath_monitor_exit(&h));
  CHECK_OK(fastpath_monitor_exit_inline(b, &h));
  CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);
  if (lightweight) CHECK(h.opaque_word == FASTPATH_HEADER_NEUTRAL);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(!held);
  CHECK_STATUS(fastpath_monitor_exit_inline(b, &h), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);

  CHECK_STATUS(fastpath_monitor_enter_inline(NULL, &h), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_exit_inline(NULL, &h), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_enter_inline(b, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_exit_inline(b, NULL), FASTPATH_ERR_NULL);
  fastpath_header *odd = (fastpath_header *)((char *)&h + 4);
  CHECK_STATUS(fastpath_monitor_enter_inline(b, odd), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_monitor_exit_inline(b, odd), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_monitor_enter_inline((fastpath_block *)((char *)b + 4), &h),
               FASTPATH_ERR_MISALIGNED);
  CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);

  uint32_t hash = 0, again = 0;
  CHECK_OK(fastpath_identity_hash(&h, &hash));
  CHECK(h.opaque_word != FASTPATH_HEADER_NEUTRAL);
  for (int i = 0; i < 3; i++) {
    CHECK_OK(fastpath_monitor_enter_inline(b, &h));
    CHECK_OK(fastpath_holds_lock(&h, &held));
    CHECK(held);
    if (lightweight) CHECK(BLOCK_WORD(b, FASTPATH_THREAD_GUESS_MISSED_OFFSET) == (uintptr_t)&h);
    CHECK_OK(fastpath_monitor_exit_inline(b, &h));
  }
  CHECK_OK(fastpath_identity_hash(&h, &again));
  CHECK(again == hash);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(!held);
  CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);
  CHECK_OK(fastpath_header_destroy(&h));

  fastpath_header g;
  CHECK_OK(fastpath_header_init(&g));
  CHECK_OK(fastpath_monitor_enter_inline(b, &g));
  CHECK_STATUS(fastpath_monitor_wait(&g, 1000), FASTPATH_ERR_TIMED_OUT); /* inflates */
  fastpath_lock_state st;
  CHECK_OK(fastpath_header_lock_state(&g, &st));
  CHECK(st == FASTPATH_INFLATED);
  CHECK_OK(fastpath_monitor_exit_inline(b, &g));
  CHECK_OK(fastpath_holds_lock(&g, &held));
  CHECK(!held);
  CHECK(BLOCK_U32(b, FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET) == top);
  CHECK_OK(fastpath_header_destroy(&g));
}

/* The guarded counter through the inline pair: even threads lightweight,
 * odd ones monitor-only (their inline pair is the call); some exits and
 * enters called, and now and then a timed wait, which inflates the object
 * under the others' inline pairs. */
static void *increment_inline(void *arg) {
  long id = (long)arg;
  if (id % 2 == 1) CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_MONITOR));
  fastpath_block *b = fastpath_thread_block();
  for (int i = 0; i < INCREMENTS; i++) {
    if (i % 5 == 4) {
      CHECK_OK(fastpath_monitor_enter(&counter.header));
    } else {
      CHECK_OK(fastpath_monitor_enter_inline(b, &counter.header));
    }
    /* The wait releases the lock: before the read-modify-write. */
    if (i % 997 == 0) CHECK_STATUS(fastpath_monitor_wait(&counter.header, 1000), FASTPATH_ERR_TIMED_OUT);
    long v = counter.value;
    if (i % 64 == 0) sched_yield();
    counter.value = v + 1;
    if (i % 3 == 2) {
      CHECK_OK(fastpath_monitor_exit_on(b, &counter.header));
    } else {
      CHECK_OK(fastpath_monitor_exit_inline(b, &counter.header));
    }
  }
  return NULL;
}

static void inline_mutual_exclusion(void) {
  printf("inline increments checked: %ld\n", counted_threads(increment_inline));
}

int main(void) {
  CHECK(fastpath_thread_layout_version() == FASTPATH_THREAD_LAYOUT_VERSION);
  thread_block_layout();
  inline_pair();
  inline_mutual_exclusion();
  block_mutual_exclusion();
  mutual_exclusion();
  legacy_mutual_exclusion();
  wait_notify();
  interrupt_a_waiter();
  thread_exit_holding_a_lock(lock_and_exit);
  thread_exit_holding_a_lock(lock_explicitly_attached);
  thread_exit_holding_a_lock(lock_and_detach);
  destroy_while_another_thread_holds();
  spin_wait_across_threads();
  report_passed("test_threads");
  return 0;
}
