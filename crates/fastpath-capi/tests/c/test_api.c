/* Every function of the fastpath C ABI from one thread, good and bad
 * inputs: version, statuses, headers and monitors, threads and interrupts,
 * locking mode, statistics, spinning, CPU identification, configuration
 * read-back. Threads: test_threads.c; code cache: test_code.c;
 * configuration by name: test_config.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdalign.h>
#include <stdint.h>

#include "check.h"

static void version_and_statuses(void) {
  CHECK(fastpath_version() == ((FASTPATH_VERSION_MAJOR << 16) | (FASTPATH_VERSION_MINOR << 8) | FASTPATH_VERSION_PATCH));
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", FASTPATH_VERSION_MAJOR, FASTPATH_VERSION_MINOR, FASTPATH_VERSION_PATCH);
  CHECK(strcmp(fastpath_version_string(), expect) == 0);
  for (int s = FASTPATH_OK; s <= FASTPATH_ERR_DANGLING_HANDLE; s++) {
    CHECK(fastpath_status_str(s) != NULL);
    CHECK(strcmp(fastpath_status_str(s), "unknown status") != 0);
  }
  CHECK(strcmp(fastpath_status_str(FASTPATH_ERR_DANGLING_HANDLE + 1), "unknown status") == 0);
  CHECK(strcmp(fastpath_status_str(-1), "unknown status") == 0);
  CHECK(strcmp(fastpath_status_str(FASTPATH_OK), "ok") == 0);
  /* The detailed message of the last failure on this thread. */
  CHECK_STATUS(fastpath_monitor_enter(NULL), FASTPATH_ERR_NULL);
  CHECK(strstr(fastpath_last_error(), "NULL") != NULL);
}

/* An object of a C runtime: the header first, then the fields. */
struct object {
  fastpath_header header;
  long value;
};

static void headers_and_monitors(void) {
  struct object o = {.value = 0};
  fastpath_lock_state st;
  bool held;

  /* Bad pointers: error codes, never a crash. */
  alignas(8) unsigned char raw[2 * sizeof(fastpath_header)];
  fastpath_header *misaligned = (fastpath_header *)(void *)(raw + 1);
  CHECK_STATUS(fastpath_header_init(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_header_init(misaligned), FASTPATH_ERR_MISALIGNED);
  CHECK(strstr(fastpath_last_error(), "misaligned") != NULL);
  CHECK_STATUS(fastpath_header_init_with_spare_bits(NULL, 0), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_enter(misaligned), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_monitor_exit(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_exit(misaligned), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_monitor_try_enter(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_wait(NULL, 0), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_notify(NULL, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_monitor_notify_all(misaligned, NULL), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_identity_hash(NULL, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_holds_lock(misaligned, &held), FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_header_lock_state(NULL, &st), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_header_destroy(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_header_destroy(misaligned), FASTPATH_ERR_MISALIGNED);

  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_STATUS(fastpath_header_lock_state(&o.header, NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(!held);
  CHECK_STATUS(fastpath_holds_lock(&o.header, NULL), FASTPATH_ERR_NULL);

  /* Not held: exit, wait and notify are IllegalMonitorState, nothing changes. */
  CHECK_STATUS(fastpath_monitor_exit(&o.header), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_STATUS(fastpath_monitor_wait(&o.header, 1000), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_STATUS(fastpath_monitor_notify(&o.header, NULL), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_STATUS(fastpath_monitor_notify_all(&o.header, NULL), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);

  /* Enter, reentrant enter, try-enter; fast-locked, never inflated. */
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_FAST_LOCKED);
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(held);
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_monitor_try_enter(&o.header));
  o.value = 1;
  size_t woken = 99;
  CHECK_OK(fastpath_monitor_notify(&o.header, &woken));
  CHECK(woken == 0);
  woken = 99;
  CHECK_OK(fastpath_monitor_notify_all(&o.header, &woken));
  CHECK(woken == 0);
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_STATUS(fastpath_monitor_exit(&o.header), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_OK(fastpath_monitor_try_enter(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));

  /* Identity hash: non-zero, 31 bits, stable across locking. */
  uint32_t h1 = 0, h2 = 0;
  CHECK_OK(fastpath_identity_hash(&o.header, &h1));
  CHECK(h1 != 0 && h1 < (1u << 31));
  CHECK_STATUS(fastpath_identity_hash(&o.header, NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_identity_hash(&o.header, &h2));
  CHECK(h1 == h2);

  /* wait: timeout (the lock is held again afterwards), bad timeout. */
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_STATUS(fastpath_monitor_wait(&o.header, 1000000), FASTPATH_ERR_TIMED_OUT);
  CHECK_STATUS(fastpath_monitor_wait(&o.header, -5), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_monitor_wait(&o.header, 0), FASTPATH_ERR_TIMED_OUT);
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(held);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_INFLATED); /* wait needs a monitor */
  CHECK_OK(fastpath_identity_hash(&o.header, &h2));
  CHECK(h1 == h2);
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(held); /* the wait kept both levels */
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(!held);
  /* An inflated, unowned object (main turned the deflater off, so it stays
   * inflated): try-enter takes the free monitor, re-enters it, and the
   * exits balance. */
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_INFLATED);
  CHECK_OK(fastpath_monitor_try_enter(&o.header));
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(held);
  CHECK_OK(fastpath_monitor_try_enter(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_holds_lock(&o.header, &held));
  CHECK(!held);
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));

  /* Destroy frees the monitor; the word may be re-initialised. */
  fastpath_sync_stats before, after;
  CHECK_OK(fastpath_thread_get_sync_stats(&before));
  CHECK_OK(fastpath_header_destroy(&o.header));
  CHECK_OK(fastpath_thread_get_sync_stats(&after));
  CHECK(after.monitors_freed == before.monitors_freed + 1);

  /* Destroying a header the caller holds is allowed (the lock ends). */
  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_header_destroy(&o.header));

  /* Spare bits: the runtime's own, kept by locking. */
  struct object s;
  CHECK_OK(fastpath_header_init_with_spare_bits(&s.header, FASTPATH_HEADER_SPARE_MASK));
  CHECK_OK(fastpath_monitor_enter(&s.header));
  CHECK_OK(fastpath_monitor_exit(&s.header));
  CHECK_OK(fastpath_header_lock_state(&s.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_OK(fastpath_header_destroy(&s.header));

  /* An unlocked header moved bitwise (a moving GC) stays usable. */
  struct object a, b;
  CHECK_OK(fastpath_header_init(&a.header));
  CHECK_OK(fastpath_identity_hash(&a.header, &h1));
  memcpy(&b, &a, sizeof a);
  CHECK_OK(fastpath_identity_hash(&b.header, &h2));
  CHECK(h1 == h2);
  CHECK_OK(fastpath_monitor_enter(&b.header));
  CHECK_OK(fastpath_monitor_exit(&b.header));
  CHECK_OK(fastpath_header_destroy(&b.header));
}

static void threads_and_interrupts(void) {
  fastpath_thread *me = NULL;
  uint64_t id = 0;
  bool flag = true;
  CHECK_OK(fastpath_thread_attach());
  CHECK_OK(fastpath_thread_attach()); /* idempotent */
  CHECK_STATUS(fastpath_thread_current(NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_thread_current(&me));
  CHECK(me != NULL);
  CHECK_OK(fastpath_thread_id(me, &id));
  CHECK(id >= 3);
  CHECK_STATUS(fastpath_thread_id(NULL, &id), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_thread_id((const fastpath_thread *)(const void *)((const char *)me + 1), &id),
               FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_thread_id(me, NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_thread_is_interrupted(me, &flag));
  CHECK(!flag);
  CHECK_STATUS(fastpath_thread_is_interrupted(NULL, &flag), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_thread_interrupt(NULL), FASTPATH_ERR_NULL);

  /* Interrupt, then wait: interrupted at once, status cleared. */
  struct object o;
  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_OK(fastpath_thread_interrupt(me));
  CHECK_OK(fastpath_thread_is_interrupted(me, &flag));
  CHECK(flag);
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_STATUS(fastpath_monitor_wait(&o.header, FASTPATH_WAIT_FOREVER), FASTPATH_ERR_INTERRUPTED);
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_thread_is_interrupted(me, &flag));
  CHECK(!flag);
  /* Interrupt, then interrupted(): true once, then false. */
  CHECK_OK(fastpath_thread_interrupt(me));
  CHECK_OK(fastpath_interrupted(&flag));
  CHECK(flag);
  CHECK_OK(fastpath_interrupted(&flag));
  CHECK(!flag);
  CHECK_STATUS(fastpath_interrupted(NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_header_destroy(&o.header));
  CHECK_OK(fastpath_thread_release(me));
  CHECK_OK(fastpath_thread_release(NULL));
}

static void locking_mode_and_stats(void) {
  fastpath_locking_mode mode;
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(mode == FASTPATH_LOCKING_LIGHTWEIGHT);
  CHECK_STATUS(fastpath_current_locking_mode(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_set_thread_locking_mode(42), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_set_thread_locking_mode(-1), FASTPATH_ERR_INVALID_ARGUMENT);

  struct object o;
  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_OK(fastpath_monitor_enter(&o.header));
  /* A fast-lock is held: switching would orphan it. */
  CHECK_STATUS(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_MONITOR), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_monitor_exit(&o.header));

  fastpath_sync_stats before, after, global;
  CHECK_OK(fastpath_thread_get_sync_stats(&before));
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_MONITOR));
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(mode == FASTPATH_LOCKING_MONITOR);
  CHECK_OK(fastpath_monitor_enter(&o.header));
  fastpath_lock_state st;
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_INFLATED);
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_thread_get_sync_stats(&after));
  CHECK(strcmp(fastpath_inflate_cause_name(FASTPATH_INFLATE_MONITOR_MODE), "monitor-mode") == 0);
  CHECK(after.inflations[FASTPATH_INFLATE_MONITOR_MODE] == before.inflations[FASTPATH_INFLATE_MONITOR_MODE] + 1);
  CHECK(after.live_monitors >= 1);
  CHECK_OK(fastpath_sync_get_stats(&global));
  CHECK(global.inflations[FASTPATH_INFLATE_MONITOR_MODE] >= after.inflations[FASTPATH_INFLATE_MONITOR_MODE]);
  CHECK_STATUS(fastpath_sync_get_stats(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_thread_get_sync_stats(NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LIGHTWEIGHT));
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LEGACY));
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(mode == FASTPATH_LOCKING_LEGACY);
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LIGHTWEIGHT));
  CHECK_OK(fastpath_header_destroy(&o.header));

  for (unsigned i = 0; i < FASTPATH_INFLATE_CAUSES; i++) CHECK(fastpath_inflate_cause_name(i) != NULL);
  CHECK(fastpath_inflate_cause_name(FASTPATH_INFLATE_CAUSES) == NULL);
  CHECK(strcmp(fastpath_inflate_cause_name(0), "contention") == 0);
  CHECK(strcmp(fastpath_inflate_cause_name(8), "identity-hash") == 0);
}

static void spinning(void) {
  fastpath_spin_pause();
  fastpath_spin_calibration cal;
  CHECK_OK(fastpath_spin_get_calibration(&cal));
  CHECK(cal.ns_per_pause > 0.0);
  CHECK(cal.pauses_timed > 0);
  CHECK_STATUS(fastpath_spin_get_calibration(NULL), FASTPATH_ERR_NULL);

  size_t needed = 0;
  CHECK_STATUS(fastpath_spin_pause_name(NULL, 0, &needed), FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK(needed >= 2);
  char name[32];
  CHECK_OK(fastpath_spin_pause_name(name, sizeof name, NULL));
  CHECK(strlen(name) + 1 == needed);
  CHECK(strcmp(name, "auto") != 0); /* resolved */

  alignas(4) uint32_t words[2] = {7, 0};
  CHECK_OK(fastpath_spin_wait_u32(&words[0], 7, 1000, 0));
  CHECK_STATUS(fastpath_spin_wait_u32(&words[0], 8, 1000, 1), FASTPATH_ERR_TIMED_OUT);
  CHECK_STATUS(fastpath_spin_wait_u32(NULL, 0, 0, 0), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_spin_wait_u32((const uint32_t *)(const void *)((const char *)words + 1), 0, 0, 0),
               FASTPATH_ERR_MISALIGNED);
}

static void cpu_identification(void) {
  fastpath_cpu_info info;
  CHECK_OK(fastpath_cpu_get_info(&info));
  CHECK_STATUS(fastpath_cpu_get_info(NULL), FASTPATH_ERR_NULL);
  CHECK(info.cache_line_size > 0 && (info.cache_line_size & (info.cache_line_size - 1)) == 0);
  CHECK(info.logical_cpus >= 1);
  CHECK(info.vendor_string[sizeof info.vendor_string - 1] == 0);
  CHECK(info.brand[sizeof info.brand - 1] == 0);
  for (unsigned i = 0; i < FASTPATH_CPU_FEATURES; i++) CHECK(fastpath_cpu_feature_name(i) != NULL);
  CHECK(fastpath_cpu_feature_name(FASTPATH_CPU_FEATURES) == NULL);
#if defined(__x86_64__)
  CHECK(info.isa == FASTPATH_ISA_X86_64);
  int sse2 = -1;
  for (unsigned i = 0; i < FASTPATH_CPU_FEATURES; i++)
    if (strcmp(fastpath_cpu_feature_name(i), "sse2") == 0) sse2 = (int)i;
  CHECK(sse2 >= 0 && (info.features >> sse2 & 1));
  CHECK(info.vendor != FASTPATH_VENDOR_OTHER || strlen(info.vendor_string) > 0);
#endif
  CHECK(info.has_hypervisor == (info.hypervisor[0] != 0) || info.has_hypervisor);

  size_t needed = 0;
  CHECK_STATUS(fastpath_cpu_features_string(false, NULL, 0, &needed), FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK(needed > 10);
  char small[4];
  CHECK_STATUS(fastpath_cpu_features_string(false, small, sizeof small, NULL), FASTPATH_ERR_BUFFER_TOO_SMALL);
  char *text = malloc(needed);
  CHECK(text != NULL);
  CHECK_OK(fastpath_cpu_features_string(false, text, needed, NULL));
  CHECK(strlen(text) + 1 == needed);
#if defined(__x86_64__)
  CHECK(strstr(text, "sse2") != NULL);
#endif
  free(text);

  uint64_t rev = 0;
  fastpath_status m = fastpath_cpu_microcode(&rev);
  CHECK(m == FASTPATH_OK || m == FASTPATH_ERR_UNAVAILABLE);
  if (m == FASTPATH_ERR_UNAVAILABLE) CHECK(strstr(fastpath_last_error(), "unavailable") != NULL);
  CHECK(fastpath_cpu_microcode(NULL) != FASTPATH_OK);
  needed = 0;
  CHECK_STATUS(fastpath_cpu_features_string(true, NULL, 0, &needed), FASTPATH_ERR_BUFFER_TOO_SMALL);
  text = malloc(needed);
  CHECK(text != NULL);
  CHECK_OK(fastpath_cpu_features_string(true, text, needed, NULL));
  CHECK(strstr(text, "microcode") != NULL);
  free(text);
}

static void configuration_read_back(void) {
  char buf[64];
  size_t needed = 0;
  CHECK_OK(fastpath_config_get(buf, sizeof buf, &needed));
  CHECK(strncmp(buf, "lightweight ", 12) == 0);
  CHECK(strlen(buf) + 1 == needed);
  CHECK_STATUS(fastpath_config_get(buf, 3, NULL), FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fastpath_config_get(NULL, 64, NULL), FASTPATH_ERR_NULL);
  /* In force since first use: the same choice is accepted, another is not. */
  CHECK_OK(fastpath_config_init());
  CHECK_STATUS(fastpath_config_set("monitor", NULL, NULL), FASTPATH_ERR_ALREADY_CONFIGURED);
  CHECK(strstr(fastpath_last_error(), "already in force") != NULL);
}

/* Legacy stack-locking with records the caller keeps on its stack, in
 * every locking mode (a record makes it a stack-lock), and in legacy mode
 * through the record-less enter/exit. */
static void lock_records(void) {
  struct object o;
  fastpath_lock_record r1, r2;
  bool b;
  fastpath_lock_state st;
  CHECK_STATUS(fastpath_lock_record_init(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_lock_record_init((fastpath_lock_record *)((char *)&r1 + 1)), FASTPATH_ERR_MISALIGNED);
  CHECK_OK(fastpath_lock_record_init(&r1));
  CHECK_OK(fastpath_lock_record_init(&r2));
  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_STATUS(fastpath_monitor_enter_with_record(&o.header, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_lock_record_in_use(&r1, NULL), FASTPATH_ERR_NULL);

  CHECK_OK(fastpath_monitor_enter_with_record(&o.header, &r1));
  CHECK_OK(fastpath_lock_record_in_use(&r1, &b));
  CHECK(b);
  CHECK_OK(fastpath_holds_lock(&o.header, &b));
  CHECK(b);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_FAST_LOCKED); /* a stack-lock: no monitor */
  /* One lock per record: the record in use is refused, nothing changes. */
  CHECK_STATUS(fastpath_monitor_enter_with_record(&o.header, &r1), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_STATUS(fastpath_lock_record_destroy(&r1), FASTPATH_ERR_BUSY);
  /* Recursion with a second record, still no monitor. */
  CHECK_OK(fastpath_monitor_enter_with_record(&o.header, &r2));
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_FAST_LOCKED);
  /* An idle record does not hold the object. */
  fastpath_lock_record idle;
  CHECK_OK(fastpath_lock_record_init(&idle));
  CHECK_STATUS(fastpath_monitor_exit_with_record(&o.header, &idle), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_lock_record_destroy(&idle));
  CHECK_OK(fastpath_monitor_exit_with_record(&o.header, &r2));
  CHECK_OK(fastpath_holds_lock(&o.header, &b));
  CHECK(b);
  /* The hash of an object I stack-locked; it survives the unlock. */
  uint32_t h1, h2;
  CHECK_OK(fastpath_identity_hash(&o.header, &h1));
  CHECK_OK(fastpath_monitor_exit_with_record(&o.header, &r1));
  CHECK_OK(fastpath_lock_record_in_use(&r1, &b));
  CHECK(!b);
  CHECK_OK(fastpath_holds_lock(&o.header, &b));
  CHECK(!b);
  CHECK_OK(fastpath_identity_hash(&o.header, &h2));
  CHECK(h1 == h2);
  CHECK_STATUS(fastpath_monitor_exit_with_record(&o.header, &r1), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);

  /* Wait on a stack-locked object inflates it and keeps the record's lock. */
  CHECK_OK(fastpath_monitor_enter_with_record(&o.header, &r1));
  CHECK_STATUS(fastpath_monitor_wait(&o.header, 1000), FASTPATH_ERR_TIMED_OUT);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_INFLATED);
  CHECK_OK(fastpath_holds_lock(&o.header, &b));
  CHECK(b);
  CHECK_OK(fastpath_monitor_exit_with_record(&o.header, &r1));
  CHECK_OK(fastpath_holds_lock(&o.header, &b));
  CHECK(!b);
  CHECK_OK(fastpath_lock_record_destroy(&r1));
  CHECK_OK(fastpath_lock_record_destroy(&r2));
  CHECK_OK(fastpath_header_destroy(&o.header));

  /* Legacy mode: the plain enter/exit stack-lock too (per-thread records). */
  fastpath_locking_mode mode;
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LEGACY));
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(mode == FASTPATH_LOCKING_LEGACY);
  CHECK_OK(fastpath_header_init(&o.header));
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_monitor_enter(&o.header));
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_FAST_LOCKED);
  size_t woken = 9;
  CHECK_OK(fastpath_monitor_notify(&o.header, &woken)); /* nobody waits */
  CHECK(woken == 0);
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_OK(fastpath_monitor_exit(&o.header));
  CHECK_STATUS(fastpath_monitor_exit(&o.header), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  CHECK_OK(fastpath_header_lock_state(&o.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_OK(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LIGHTWEIGHT));
  CHECK_OK(fastpath_header_destroy(&o.header));
}

/* Deflation: the policy's defaults and checks, a pass on request that
 * turns an idle monitor back into a plain header (hash kept) and leaves a
 * held one alone. main() turned the deflation thread off first, so only
 * the passes asked for here deflate. */
static void deflation(void) {
  fastpath_deflation_policy p, q;
  CHECK_STATUS(fastpath_deflation_policy_get(NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_deflation_policy_set(NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_deflation_policy_get(&p));
  CHECK(!p.enabled);
  CHECK(p.interval_ns == 250000000ull && p.guaranteed_interval_ns == 60000000000ull);
  CHECK(p.used_threshold_percent == 90 && p.monitors_per_thread == 1024);
  q = p;
  q.interval_ns = 0;
  CHECK_STATUS(fastpath_deflation_policy_set(&q), FASTPATH_ERR_INVALID_ARGUMENT);
  q = p;
  q.used_threshold_percent = 101;
  CHECK_STATUS(fastpath_deflation_policy_set(&q), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_OK(fastpath_deflation_policy_get(&q));
  CHECK(q.interval_ns == p.interval_ns && q.used_threshold_percent == 90);

  struct object idle, held;
  fastpath_lock_state st;
  uint32_t h1, h2;
  CHECK_OK(fastpath_header_init_with_spare_bits(&idle.header, 0xAB0));
  CHECK_OK(fastpath_header_init(&held.header));
  /* Inflate both through a timed wait; keep `held` locked. */
  CHECK_OK(fastpath_monitor_enter(&idle.header));
  CHECK_STATUS(fastpath_monitor_wait(&idle.header, 1000), FASTPATH_ERR_TIMED_OUT);
  CHECK_OK(fastpath_identity_hash(&idle.header, &h1));
  CHECK_OK(fastpath_monitor_exit(&idle.header));
  CHECK_OK(fastpath_monitor_enter(&held.header));
  CHECK_STATUS(fastpath_monitor_wait(&held.header, 1000), FASTPATH_ERR_TIMED_OUT);
  CHECK_OK(fastpath_header_lock_state(&idle.header, &st));
  CHECK(st == FASTPATH_INFLATED);

  fastpath_sync_stats before, after;
  fastpath_deflation_report rep = {0, 0, 0};
  CHECK_OK(fastpath_sync_get_stats(&before));
  CHECK_OK(fastpath_deflate_idle_monitors(&rep));
  CHECK_OK(fastpath_sync_get_stats(&after));
  CHECK(rep.deflated >= 1 && rep.scanned >= rep.deflated + 1);
  CHECK(after.deflation_passes >= before.deflation_passes + 1);
  CHECK(after.monitors_deflated >= before.monitors_deflated + rep.deflated);
  CHECK_OK(fastpath_header_lock_state(&idle.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_OK(fastpath_header_lock_state(&held.header, &st));
  CHECK(st == FASTPATH_INFLATED); /* held: never deflated */
  bool b;
  CHECK_OK(fastpath_holds_lock(&held.header, &b));
  CHECK(b);
  CHECK_OK(fastpath_identity_hash(&idle.header, &h2));
  CHECK(h1 == h2);
  /* Back at fast-lock cost: no monitor on the next lock. */
  CHECK_OK(fastpath_monitor_enter(&idle.header));
  CHECK_OK(fastpath_header_lock_state(&idle.header, &st));
  CHECK(st == FASTPATH_FAST_LOCKED);
  CHECK_OK(fastpath_monitor_exit(&idle.header));
  CHECK_OK(fastpath_monitor_exit(&held.header));
  CHECK_OK(fastpath_deflate_idle_monitors(NULL)); /* the report is optional */
  CHECK_OK(fastpath_header_lock_state(&held.header, &st));
  CHECK(st == FASTPATH_UNLOCKED);
  CHECK_OK(fastpath_header_destroy(&idle.header));
  CHECK_OK(fastpath_header_destroy(&held.header));
}

int main(void) {
  /* Only explicit passes deflate in this program (deterministic stats). */
  fastpath_deflation_policy policy;
  CHECK_OK(fastpath_deflation_policy_get(&policy));
  CHECK(policy.enabled); /* HotSpot's default */
  policy.enabled = false;
  CHECK_OK(fastpath_deflation_policy_set(&policy));
  version_and_statuses();
  headers_and_monitors();
  threads_and_interrupts();
  locking_mode_and_stats();
  spinning();
  cpu_identification();
  configuration_read_back();
  lock_records();
  deflation();
  report_passed("test_api");
  return 0;
}
