/* The GC heap from C: errors as statuses; each barrier set's cell format
 * (fastpath_gc_cell_format) and the compact format's record of a copy as a C
 * JIT resolves it; the layout word's tagged form (fastpath_gc_define_tag,
 * fastpath_gc_alloc_tagged, fastpath_gc_tag: refusals, the published
 * constants, tags kept through collections in both cell formats); for each
 * barrier set and mode, a
 * linked list built through the barriers survives collections (objects
 * moved by evacuation included) with every value intact and the verifier
 * clean; CAS, handles and scopes; and two pthreads incrementing a word of a
 * heap object under fastpath_gc_lock while the collector runs. Bounded: a
 * few seconds on two cores in a debug build. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>

#include "check.h"

enum { NODES = 300, GARBAGE_PER_NODE = 4, LOCKERS = 2, LOCKED_INCREMENTS = 1500 };

static fastpath_gc_heap *new_heap(const char *barriers, const char *mode, bool aggressive) {
  fastpath_gc_heap_config cfg = {8u << 20, 0, barriers, mode, aggressive, true};
  fastpath_gc_heap *heap = NULL;
  CHECK_OK(fastpath_gc_heap_new(&cfg, &heap));
  CHECK(heap != NULL);
  return heap;
}

static void errors(void) {
  fastpath_gc_heap *heap = NULL;
  fastpath_gc_heap_config cfg = {8u << 20, 0, "shenandoa", NULL, false, false};
  CHECK_STATUS(fastpath_gc_heap_new(NULL, &heap), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, &heap), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "shenandoah") != NULL); /* the accepted names */
  cfg.barriers = "serial";
  cfg.mode = "concurent";
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, &heap), FASTPATH_ERR_UNKNOWN_NAME);
  cfg.mode = "concurrent"; /* card marks alone cannot make it correct */
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, &heap), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fastpath_last_error(), "concurrent mode needs") != NULL);
  cfg.barriers = NULL;
  cfg.mode = NULL;
  cfg.heap_bytes = 12345;
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, &heap), FASTPATH_ERR_INVALID_ARGUMENT);
  cfg.heap_bytes = 8u << 20;
  cfg.region_bytes = 3000;
  CHECK_STATUS(fastpath_gc_heap_new(&cfg, &heap), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK(heap == NULL);
  CHECK_OK(fastpath_gc_heap_free(NULL));
  CHECK_OK(fastpath_gc_mutator_detach(NULL));
  CHECK_OK(fastpath_gc_unlock(NULL));

  /* Defaults (NULL names): shenandoah, passive. A comma list works too. */
  cfg.region_bytes = 0;
  CHECK_OK(fastpath_gc_heap_new(&cfg, &heap));
  char text[64];
  size_t needed = 0;
  CHECK_OK(fastpath_gc_barriers(heap, text, sizeof text, &needed));
  CHECK(strcmp(text, "shenandoah") == 0 && needed == strlen(text) + 1);
  CHECK_STATUS(fastpath_gc_barriers(heap, text, 3, NULL), FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK_OK(fastpath_gc_heap_free(heap));
  cfg.barriers = "satb, lrb,cas";
  cfg.mode = "concurrent";
  CHECK_OK(fastpath_gc_heap_new(&cfg, &heap));
  CHECK_OK(fastpath_gc_barriers(heap, text, sizeof text, NULL));
  CHECK(strcmp(text, "shenandoah") == 0); /* that list is the preset */

  /* Mutator-level refusals. */
  fastpath_gc_mutator *m = NULL;
  CHECK_STATUS(fastpath_gc_mutator_attach(NULL, &m), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_gc_mutator_attach(heap, &m));
  CHECK_STATUS(fastpath_gc_heap_free(heap), FASTPATH_ERR_BUSY); /* attached */
  size_t free_bytes = 0, max_words = 0;
  CHECK_OK(fastpath_gc_free_bytes(heap, &free_bytes, &max_words));
  CHECK(free_bytes > 0 && max_words > 8);
  fastpath_gc_handle o, o2, got;
  CHECK_STATUS(fastpath_gc_alloc(m, 0, max_words + 1, &o), FASTPATH_ERR_OBJECT_TOO_LARGE);
  CHECK_STATUS(fastpath_gc_alloc(NULL, 1, 1, &o), FASTPATH_ERR_NULL);
  size_t depth;
  CHECK_OK(fastpath_gc_roots_len(m, &depth));
  CHECK(depth == 0);
  CHECK_OK(fastpath_gc_alloc(m, 2, 1, &o));
  CHECK(o != FASTPATH_GC_NULL);
  size_t nrefs, ndata;
  CHECK_OK(fastpath_gc_shape(m, o, &nrefs, &ndata));
  CHECK(nrefs == 2 && ndata == 1);
  CHECK_STATUS(fastpath_gc_load(m, o, 2, &got), FASTPATH_ERR_FIELD_OUT_OF_RANGE);
  CHECK_STATUS(fastpath_gc_read(m, o, 1, &free_bytes), FASTPATH_ERR_FIELD_OUT_OF_RANGE);
  CHECK_STATUS(fastpath_gc_write(m, o, 1, 7), FASTPATH_ERR_FIELD_OUT_OF_RANGE);
  CHECK_STATUS(fastpath_gc_store(m, o, 5, FASTPATH_GC_NULL), FASTPATH_ERR_FIELD_OUT_OF_RANGE);
  CHECK_STATUS(fastpath_gc_read(m, FASTPATH_GC_NULL, 0, &free_bytes), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_read(m, o + 1, 0, &free_bytes), FASTPATH_ERR_DANGLING_HANDLE);
  CHECK_STATUS(fastpath_gc_read(m, 0x12345678ull << 32, 0, &free_bytes), FASTPATH_ERR_DANGLING_HANDLE);
  CHECK_OK(fastpath_gc_load(m, o, 0, &got));
  CHECK(got == FASTPATH_GC_NULL); /* a fresh object's references are null */

  /* CAS by object, null included. */
  CHECK_OK(fastpath_gc_alloc(m, 0, 1, &o2));
  bool swapped = true, same = false;
  CHECK_OK(fastpath_gc_cas(m, o, 0, o2, o2, &swapped));
  CHECK(!swapped); /* the field is null, not o2 */
  CHECK_OK(fastpath_gc_cas(m, o, 0, FASTPATH_GC_NULL, o2, &swapped));
  CHECK(swapped);
  CHECK_OK(fastpath_gc_load(m, o, 0, &got));
  CHECK_OK(fastpath_gc_same(m, got, o2, &same));
  CHECK(same);
  CHECK_OK(fastpath_gc_same(m, got, o, &same));
  CHECK(!same);
  CHECK_OK(fastpath_gc_same(m, FASTPATH_GC_NULL, FASTPATH_GC_NULL, &same));
  CHECK(same);
  CHECK_OK(fastpath_gc_cas(m, o, 0, o2, FASTPATH_GC_NULL, &swapped));
  CHECK(swapped);

  /* Scopes: popped handles dangle, even when the depth is reached again. */
  CHECK_OK(fastpath_gc_roots_len(m, &depth));
  CHECK(depth == 3);
  CHECK_OK(fastpath_gc_roots_truncate(m, 1));
  CHECK_STATUS(fastpath_gc_write(m, o2, 0, 1), FASTPATH_ERR_DANGLING_HANDLE);
  fastpath_gc_handle again;
  CHECK_OK(fastpath_gc_alloc(m, 0, 1, &again));
  CHECK(again != o2);
  CHECK_STATUS(fastpath_gc_write(m, o2, 0, 1), FASTPATH_ERR_DANGLING_HANDLE);
  CHECK_OK(fastpath_gc_write(m, again, 0, 1));
  CHECK_OK(fastpath_gc_set_root(m, again, o));
  CHECK_OK(fastpath_gc_shape(m, again, &nrefs, &ndata));
  CHECK(nrefs == 2);
  CHECK_STATUS(fastpath_gc_set_root(m, again, FASTPATH_GC_NULL), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_safe_region(m, NULL, NULL), FASTPATH_ERR_NULL);

  /* One mutator per thread: a second attach is refused while one is. */
  fastpath_gc_mutator *other = NULL;
  CHECK_STATUS(fastpath_gc_mutator_attach(heap, &other), FASTPATH_ERR_BUSY);
  CHECK_OK(fastpath_gc_mutator_detach(m));
  /* A handle of another mutator is not this one's. */
  CHECK_OK(fastpath_gc_mutator_attach(heap, &other));
  CHECK_STATUS(fastpath_gc_read(other, again, 0, &free_bytes), FASTPATH_ERR_DANGLING_HANDLE);
  CHECK_OK(fastpath_gc_mutator_detach(other));
  CHECK_OK(fastpath_gc_heap_free(heap));
}

/* Node: ref 0 = next; data 0 = index, data 1 = index * 7 + 3. Between nodes,
 * garbage objects that point into the list (so barriers fire on them too). */
static void list_survives(const char *barriers, const char *mode, bool aggressive) {
  fastpath_gc_heap *heap = new_heap(barriers, mode, aggressive);
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(heap, &m));
  fastpath_gc_handle head, node, garbage;
  CHECK_OK(fastpath_gc_alloc(m, 1, 2, &head));
  CHECK_OK(fastpath_gc_write(m, head, 0, 0));
  CHECK_OK(fastpath_gc_write(m, head, 1, 3));
  size_t scope;
  CHECK_OK(fastpath_gc_roots_len(m, &scope)); /* 1: head */
  fastpath_gc_handle tail;
  CHECK_OK(fastpath_gc_alloc(m, 0, 0, &tail)); /* a cursor slot */
  CHECK_OK(fastpath_gc_set_root(m, tail, head));
  for (uintptr_t i = 1; i < NODES; i++) {
    size_t mark;
    CHECK_OK(fastpath_gc_roots_len(m, &mark));
    CHECK_OK(fastpath_gc_alloc(m, 1, 2, &node));
    CHECK_OK(fastpath_gc_write(m, node, 0, i));
    CHECK_OK(fastpath_gc_write(m, node, 1, i * 7 + 3));
    CHECK_OK(fastpath_gc_store(m, tail, 0, node));
    CHECK_OK(fastpath_gc_set_root(m, tail, node));
    for (int g = 0; g < GARBAGE_PER_NODE; g++) {
      CHECK_OK(fastpath_gc_alloc(m, 1, 30, &garbage));
      CHECK_OK(fastpath_gc_store(m, garbage, 0, node));
    }
    CHECK_OK(fastpath_gc_roots_truncate(m, mark));
    if (i % 100 == 0) CHECK_OK(fastpath_gc_collect(m));
  }
  CHECK_OK(fastpath_gc_roots_truncate(m, scope)); /* only the head is rooted */
  for (int c = 0; c < 3; c++) CHECK_OK(fastpath_gc_collect(m));
  CHECK_OK(fastpath_gc_safepoint_poll(m));

  /* Walk it: every node, in order, with its values. */
  fastpath_gc_handle cur, next;
  CHECK_OK(fastpath_gc_alloc(m, 0, 0, &cur));
  CHECK_OK(fastpath_gc_set_root(m, cur, head));
  size_t count = 0;
  for (;;) {
    uintptr_t a, b;
    CHECK_OK(fastpath_gc_read(m, cur, 0, &a));
    CHECK_OK(fastpath_gc_read(m, cur, 1, &b));
    CHECK(a == count && b == count * 7 + 3);
    count++;
    CHECK_OK(fastpath_gc_load(m, cur, 0, &next));
    if (next == FASTPATH_GC_NULL) break;
    CHECK_OK(fastpath_gc_set_root(m, cur, next));
    CHECK_OK(fastpath_gc_roots_truncate(m, scope + 1));
  }
  CHECK(count == NODES);
  fastpath_gc_stats st;
  CHECK_OK(fastpath_gc_get_stats(heap, &st));
  CHECK(st.cycles >= 3 && st.pauses >= st.cycles);
  CHECK(st.verified_cycles >= 1 && st.verify_errors == 0);
  CHECK(st.regions_freed >= 1); /* the garbage went */
  CHECK(st.workers >= 1 && st.humongous_allocated == 0);
  CHECK(st.workers > 1 || st.parallel_phases == 0);
  CHECK(st.capacity_bytes == (8u << 20)); /* no initial size: the whole heap */
  printf("%s/%s%s: %zu nodes intact after %llu cycles (%llu verified, %llu objects evacuated, max pause %llu us)\n",
         barriers, mode, aggressive ? " aggressive" : "", count, (unsigned long long)st.cycles,
         (unsigned long long)st.verified_cycles,
         (unsigned long long)(st.evacuated_by_collector + st.evacuated_by_mutators),
         (unsigned long long)(st.max_pause_ns / 1000));
  CHECK_OK(fastpath_gc_mutator_detach(m));
  CHECK_OK(fastpath_gc_heap_free(heap));
}

/* Two threads increment data word 0 of one heap object under
 * fastpath_gc_lock, allocating garbage while they hold it (so pauses and
 * evacuations run under the lock: the locked object is pinned); the object
 * is shared through a global root, and the main thread joins them inside a
 * safe region so that it never stalls a pause. */
static fastpath_gc_heap *shared_heap;
static size_t shared_global;

static void *locker(void *arg) {
  (void)arg;
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(shared_heap, &m));
  fastpath_gc_handle counter, garbage;
  CHECK_OK(fastpath_gc_global_get(m, shared_global, &counter));
  size_t mark;
  CHECK_OK(fastpath_gc_roots_len(m, &mark));
  for (int i = 0; i < LOCKED_INCREMENTS; i++) {
    fastpath_gc_object_lock *l;
    CHECK_OK(fastpath_gc_lock(m, counter, &l));
    uintptr_t v;
    CHECK_OK(fastpath_gc_read(m, counter, 0, &v));
    CHECK_OK(fastpath_gc_alloc(m, 0, 60, &garbage)); /* may stop for a pause */
    CHECK_OK(fastpath_gc_write(m, counter, 0, v + 1));
    CHECK_OK(fastpath_gc_unlock(l));
    CHECK_OK(fastpath_gc_roots_truncate(m, mark));
  }
  CHECK_OK(fastpath_gc_mutator_detach(m));
  return NULL;
}

struct joiner {
  pthread_t *threads;
  int n;
};

static void join_all(void *arg) {
  struct joiner *j = arg;
  for (int i = 0; i < j->n; i++) CHECK(pthread_join(j->threads[i], NULL) == 0);
}

static void locking_under_collection(void) {
  shared_heap = new_heap("shenandoah", "concurrent", true);
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(shared_heap, &m));
  fastpath_gc_handle counter;
  CHECK_OK(fastpath_gc_alloc(m, 0, 1, &counter));
  CHECK_OK(fastpath_gc_global_new(m, counter, &shared_global));
  CHECK_STATUS(fastpath_gc_global_get(m, shared_global + 1, &counter), FASTPATH_ERR_INVALID_ARGUMENT);
  pthread_t t[LOCKERS];
  for (int i = 0; i < LOCKERS; i++) CHECK(pthread_create(&t[i], NULL, locker, NULL) == 0);
  struct joiner j = {t, LOCKERS};
  CHECK_OK(fastpath_gc_safe_region(m, join_all, &j));
  uintptr_t v;
  CHECK_OK(fastpath_gc_read(m, counter, 0, &v));
  CHECK(v == (uintptr_t)LOCKERS * LOCKED_INCREMENTS);
  fastpath_gc_stats st;
  CHECK_OK(fastpath_gc_get_stats(shared_heap, &st));
  CHECK(st.verify_errors == 0);
  printf("locked increments checked: %lu over %llu concurrent cycles\n", (unsigned long)v,
         (unsigned long long)st.cycles);
  CHECK_OK(fastpath_gc_mutator_detach(m));
  CHECK_OK(fastpath_gc_heap_free(shared_heap));
}

/* A mutator is its thread's: a call from another thread is refused and
 * leaves it untouched. */
static fastpath_gc_mutator *main_mutator;

static void *use_from_another_thread(void *arg) {
  (void)arg;
  CHECK_STATUS(fastpath_gc_safepoint_poll(main_mutator), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_mutator_detach(main_mutator), FASTPATH_ERR_INVALID_ARGUMENT);
  return NULL;
}

static void another_threads_mutator(void) {
  fastpath_gc_heap *heap = new_heap("shenandoah", "passive", false);
  CHECK_OK(fastpath_gc_mutator_attach(heap, &main_mutator));
  pthread_t t;
  CHECK(pthread_create(&t, NULL, use_from_another_thread, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0); /* no pause can be requested meanwhile */
  fastpath_gc_handle h;
  CHECK_OK(fastpath_gc_alloc(main_mutator, 0, 1, &h));
  CHECK_OK(fastpath_gc_mutator_detach(main_mutator));
  CHECK_OK(fastpath_gc_heap_free(heap));
}

/* A heap with an initial size: its soft capacity starts there; garbage
 * alone makes a passive heap collect within it, not at the whole heap;
 * live data past 60 % of it grows it at the next collection; a size past
 * the heap is refused. */
static void initial_size(void) {
  fastpath_gc_heap *heap = NULL;
  fastpath_gc_heap_config cfg = {8u << 20, 0, "shenandoah", "passive", false, true};
  CHECK_STATUS(fastpath_gc_heap_new_sized(&cfg, (8u << 20) + 1, &heap), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_heap_new_sized(NULL, 1u << 20, &heap), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_heap_new_sized(&cfg, 1u << 20, NULL), FASTPATH_ERR_NULL);
  /* 128 regions of 64 KiB: a reserve of 8. */
  size_t reserve = 0;
  CHECK_OK(fastpath_gc_evacuation_reserve_bytes(&cfg, &reserve));
  CHECK(reserve == 8u * (64u << 10));
  CHECK_STATUS(fastpath_gc_evacuation_reserve_bytes(NULL, &reserve), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_evacuation_reserve_bytes(&cfg, NULL), FASTPATH_ERR_NULL);
  fastpath_gc_heap_config odd = cfg;
  odd.region_bytes = 3u << 16;
  CHECK_STATUS(fastpath_gc_evacuation_reserve_bytes(&odd, &reserve), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_OK(fastpath_gc_heap_new_sized(&cfg, 1u << 20, &heap));
  fastpath_gc_stats st;
  CHECK_OK(fastpath_gc_get_stats(heap, &st));
  CHECK(st.capacity_bytes == (1u << 20));
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(heap, &m));
  size_t scope;
  CHECK_OK(fastpath_gc_roots_len(m, &scope));
  /* 8 MiB of garbage in objects of 1 KiB: collections within 1 MiB. */
  for (int i = 0; i < 8 * 1024; i++) {
    fastpath_gc_handle o;
    CHECK_OK(fastpath_gc_alloc(m, 0, 125, &o));
    CHECK_OK(fastpath_gc_roots_truncate(m, scope));
  }
  CHECK_OK(fastpath_gc_get_stats(heap, &st));
  /* A heap collected only when full would collect once or twice here.
   * The time rule (collecting over 1/13 of the time) grows the capacity by
   * half at a collection, more often on a busy machine; with the reserve
   * (8 of 128 regions) the fills before each collection are still at most
   * 8, 16, 28 and 46 regions if it grows at every one: 4 collections. */
  CHECK(st.cycles >= 4 && st.capacity_bytes >= (1u << 20) && st.capacity_bytes < (8u << 20));
  /* 3 MiB kept live: the capacity grows to at least 3 / 0.6 MiB. */
  for (int i = 0; i < 3 * 1024; i++) {
    fastpath_gc_handle o;
    CHECK_OK(fastpath_gc_alloc(m, 0, 125, &o));
  }
  CHECK_OK(fastpath_gc_collect(m));
  CHECK_OK(fastpath_gc_get_stats(heap, &st));
  CHECK(st.capacity_bytes >= (5u << 20) && st.capacity_bytes <= (8u << 20));
  CHECK(st.verified_cycles >= 1 && st.verify_errors == 0);
  printf("initial size: 1 MiB of 8, %llu cycles, grown to %llu KiB for 3 MiB live\n",
         (unsigned long long)st.cycles, (unsigned long long)(st.capacity_bytes >> 10));
  CHECK_OK(fastpath_gc_mutator_detach(m));
  CHECK_OK(fastpath_gc_heap_free(heap));
}

/* The 8 bytes at the layout word of a compact original copied to `copy`:
 * the copy's address with its halves swapped, bit 31 set. */
static uint64_t forwarded_word(uint64_t copy) {
  return (copy << 32 | copy >> 32) | FASTPATH_GC_LAYOUT_FORWARDED_BIT;
}

/* A copy as a C JIT resolves it inline in the compact format: the 8 bytes
 * at the original's layout word, bit 31 set, cleared and the halves
 * swapped back; the object itself when the bit is clear (test words, not
 * a heap's). */
static uint64_t compact_forwardee(const uint64_t *obj) {
  uint64_t word = obj[FASTPATH_GC_LAYOUT_WORD_OFFSET / FASTPATH_GC_WORD_BYTES];
  if (!(word & FASTPATH_GC_LAYOUT_FORWARDED_BIT)) return (uint64_t)(uintptr_t)obj;
  word &= ~FASTPATH_GC_LAYOUT_FORWARDED_BIT;
  return word << 32 | word >> 32;
}

static void cell_formats(void) {
  static const struct {
    const char *barriers;
    uint32_t format;
  } sets[] = {
      {"none", FASTPATH_GC_CELL_FORMAT_COMPACT},
      {"serial", FASTPATH_GC_CELL_FORMAT_COMPACT},
      {"g1", FASTPATH_GC_CELL_FORMAT_COMPACT},
      {"shenandoah", FASTPATH_GC_CELL_FORMAT_COMPACT},
      {"shenandoah-2017", FASTPATH_GC_CELL_FORMAT_BROOKS},
      {"satb,lrb,cas,brooks-rb", FASTPATH_GC_CELL_FORMAT_BROOKS},
  };
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    fastpath_gc_heap *heap = new_heap(sets[i].barriers, "passive", false);
    uint32_t format = 99;
    CHECK_OK(fastpath_gc_cell_format(heap, &format));
    CHECK(format == sets[i].format);
    CHECK_STATUS(fastpath_gc_cell_format(heap, NULL), FASTPATH_ERR_NULL);
    CHECK_OK(fastpath_gc_heap_free(heap));
  }
  uint32_t format;
  CHECK_STATUS(fastpath_gc_cell_format(NULL, &format), FASTPATH_ERR_NULL);
  /* The cells: the Brooks one starts at the forwarding word, the compact
   * one at the header; both reach reference 0 after their header words. */
  CHECK(FASTPATH_GC_FORWARDING_OFFSET == -(intptr_t)FASTPATH_GC_BROOKS_CELL_TO_OBJECT);
  CHECK(FASTPATH_GC_COMPACT_CELL_TO_OBJECT == FASTPATH_GC_HEADER_OFFSET);
  CHECK(FASTPATH_GC_REFS_OFFSET + FASTPATH_GC_BROOKS_CELL_TO_OBJECT ==
        FASTPATH_GC_BROOKS_CELL_HEADER_WORDS * FASTPATH_GC_WORD_BYTES);
  CHECK(FASTPATH_GC_REFS_OFFSET + FASTPATH_GC_COMPACT_CELL_TO_OBJECT ==
        FASTPATH_GC_COMPACT_CELL_HEADER_WORDS * FASTPATH_GC_WORD_BYTES);
  /* A compact original holds its own layout word (bit 31 clear) until it
   * is copied, then the copy's forwarded word. */
  static uint64_t original[4], copy[4];
  original[1] = 2 | (uint64_t)1 << FASTPATH_GC_LAYOUT_NDATA_SHIFT; /* 2 refs, 1 data word */
  CHECK((original[1] & FASTPATH_GC_LAYOUT_FORWARDED_BIT) == 0);
  CHECK(compact_forwardee(original) == (uint64_t)(uintptr_t)original);
  original[1] = forwarded_word((uint64_t)(uintptr_t)copy);
  CHECK(compact_forwardee(original) == (uint64_t)(uintptr_t)copy);
  /* Addresses with either half's top bit set decode as well. */
  static const uint64_t addrs[] = {0x80000008u, 0xfffffff8u, 0x7f1234567890u, 16};
  for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
    original[1] = forwarded_word(addrs[i]);
    CHECK(compact_forwardee(original) == addrs[i]);
  }
  /* A tagged original whose next 4 bytes (reference 0, with 4-byte slots)
   * have their top bit set is not a copy: only bit 31 tells one. */
  original[1] = (FASTPATH_GC_LAYOUT_TAGGED_BIT | 0x2345) | (uint64_t)0x80001010u << 32;
  CHECK(compact_forwardee(original) == (uint64_t)(uintptr_t)original);
}

/* The width of a heap's reference slots: 8 bytes by default, 4 when the
 * process runs with FASTPATH_GC_REFS=compressed (the harness runs this
 * program both ways; every other test here then runs on compressed slots
 * through the same calls). */
static void ref_slots(void) {
  const char *refs = getenv("FASTPATH_GC_REFS");
  bool compressed = refs != NULL && strcmp(refs, "compressed") == 0;
  bool unscaled = refs != NULL && strcmp(refs, "unscaled") == 0;
  uint32_t want = compressed || unscaled ? FASTPATH_GC_COMPRESSED_REF_BYTES : FASTPATH_GC_WORD_BYTES;
  uint32_t want_shift = compressed ? FASTPATH_GC_COMPRESSED_REF_SHIFT : 0;
  const char *sets[] = {"shenandoah", "shenandoah-2017"};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    fastpath_gc_heap *heap = new_heap(sets[i], "passive", false);
    uint32_t bytes = 0;
    CHECK_OK(fastpath_gc_ref_slot_bytes(heap, &bytes));
    CHECK(bytes == want);
    CHECK_STATUS(fastpath_gc_ref_slot_bytes(heap, NULL), FASTPATH_ERR_NULL);
    uint32_t shift = 99;
    CHECK_OK(fastpath_gc_ref_shift(heap, &shift));
    CHECK(shift == want_shift);
    CHECK_STATUS(fastpath_gc_ref_shift(heap, NULL), FASTPATH_ERR_NULL);
    CHECK_OK(fastpath_gc_heap_free(heap));
  }
  uint32_t bytes;
  CHECK_STATUS(fastpath_gc_ref_slot_bytes(NULL, &bytes), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_ref_shift(NULL, &bytes), FASTPATH_ERR_NULL);
  /* A compressed slot decodes with one shift, null staying 0, and every
   * address below the limit fits its 32 bits. */
  CHECK(FASTPATH_GC_COMPRESSED_REF_SHIFT == 3);
  CHECK(((FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT - 8) >> FASTPATH_GC_COMPRESSED_REF_SHIFT) == UINT32_MAX);
  /* An unscaled slot is the address: every address below its limit fits. */
  CHECK(FASTPATH_GC_UNSCALED_ADDRESS_LIMIT - 8 <= UINT32_MAX);
  printf("reference slots: %u bytes, shift %u\n", (unsigned)want, (unsigned)want_shift);
}

/* A layout word as a C JIT takes it apart with the published constants,
 * testing the form first (in the low 4 bytes): the counts of an untagged
 * word, the tag of a tagged one (whose counts are the tag's). `word` is the
 * 8 bytes at the layout word; a tagged word's next 4 bytes are not its own. */
typedef struct {
  uint64_t nrefs, ndata;
  bool tagged;
  uint32_t tag;
} decoded_layout;

static decoded_layout decode_layout(uint64_t word) {
  decoded_layout d;
  uint32_t low = (uint32_t)word;
  d.tagged = (low & FASTPATH_GC_LAYOUT_TAGGED_BIT) != 0;
  if (d.tagged) {
    d.nrefs = d.ndata = 0; /* the tag's: the runtime's own table */
    d.tag = (uint32_t)(low & FASTPATH_GC_LAYOUT_TAG_MASK);
  } else {
    d.nrefs = word & FASTPATH_GC_LAYOUT_NREFS_MASK;
    d.ndata = word >> FASTPATH_GC_LAYOUT_NDATA_SHIFT;
    d.tag = 0;
  }
  return d;
}

/* The layout word of an object of `nrefs` references and `ndata` data
 * words, as inline allocation writes it: untagged (8 bytes), or tagged with
 * `tag` (4 bytes, zero-extended: an 8-byte store of it also clears the 4
 * bytes after it). */
static uint64_t compose_layout(uint64_t nrefs, uint64_t ndata, bool tagged, uint32_t tag) {
  if (!tagged) return nrefs | ndata << FASTPATH_GC_LAYOUT_NDATA_SHIFT;
  return FASTPATH_GC_LAYOUT_TAGGED_BIT | tag;
}

/* The tagged form's refusals, an untagged object told from one tagged 0,
 * a tag's counts defined once, and the published constants' words
 * agreeing with what the heap reports of its objects (test words: C sees
 * no object's address). */
static void tagged_layout(void) {
  CHECK(FASTPATH_GC_LAYOUT_TAGGED_BIT == (uint64_t)1 << 30);
  CHECK(FASTPATH_GC_LAYOUT_TAG_MASK == FASTPATH_GC_LAYOUT_TAGGED_BIT - 1);
  CHECK(FASTPATH_GC_LAYOUT_FORWARDED_BIT == (uint64_t)1 << 31);
  CHECK(FASTPATH_GC_MAX_LAYOUT_TAG == (1u << 22) - 1);
  CHECK(FASTPATH_GC_MAX_TAGGED_COUNT == 0xffff);
  CHECK(FASTPATH_GC_MAX_CELL_WORDS == (1u << 30) - 1);
  CHECK(FASTPATH_GC_TAGGED_WORD_BYTES == 4);
  CHECK(FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET ==
        FASTPATH_GC_LAYOUT_WORD_OFFSET + FASTPATH_GC_TAGGED_WORD_BYTES);
  /* Neither form's largest word has bit 31 (a forwarded original's) or
   * passes for the other form; a tagged word is 4 bytes. */
  uint64_t top = compose_layout(0, 0, true, FASTPATH_GC_MAX_LAYOUT_TAG);
  CHECK((top & FASTPATH_GC_LAYOUT_FORWARDED_BIT) == 0 && top <= UINT32_MAX);
  uint64_t big = compose_layout(FASTPATH_GC_MAX_CELL_WORDS, FASTPATH_GC_MAX_CELL_WORDS, false, 0);
  CHECK((big & (FASTPATH_GC_LAYOUT_FORWARDED_BIT | FASTPATH_GC_LAYOUT_TAGGED_BIT)) == 0);
  CHECK(!decode_layout(big).tagged && decode_layout(big).nrefs == FASTPATH_GC_MAX_CELL_WORDS);
  static uint64_t obj[4];
  obj[FASTPATH_GC_LAYOUT_WORD_OFFSET / FASTPATH_GC_WORD_BYTES] = top | (uint64_t)UINT32_MAX << 32;
  CHECK(compact_forwardee(obj) == (uint64_t)(uintptr_t)obj); /* a tagged object is not a copy */
  CHECK(decode_layout(obj[1]).tagged && decode_layout(obj[1]).tag == FASTPATH_GC_MAX_LAYOUT_TAG);

  fastpath_gc_heap *heap = new_heap("shenandoah", "passive", false);
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(heap, &m));
  fastpath_gc_handle o = FASTPATH_GC_NULL;
  size_t max = FASTPATH_GC_MAX_TAGGED_COUNT;
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, max + 1, 0, 1, &o), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fastpath_last_error(), "tag") != NULL);
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, 0, max + 1, 1, &o), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, 1, 1, FASTPATH_GC_MAX_LAYOUT_TAG + 1, &o),
               FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, 1, 1, UINT32_MAX, &o), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_alloc_tagged(NULL, 1, 1, 1, &o), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, 1, 1, 1, NULL), FASTPATH_ERR_NULL);
  /* A tag's counts, defined once for the heap: again with the same is
   * fine, with others refused (the tag keeps its own), as is an allocation
   * of the tag with others. */
  CHECK_OK(fastpath_gc_define_tag(heap, 77, 3, 4));
  CHECK_OK(fastpath_gc_define_tag(heap, 77, 3, 4));
  CHECK_STATUS(fastpath_gc_define_tag(heap, 77, 3, 5), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fastpath_last_error(), "77") != NULL);
  CHECK_STATUS(fastpath_gc_alloc_tagged(m, 4, 3, 77, &o), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_define_tag(heap, FASTPATH_GC_MAX_LAYOUT_TAG + 1, 0, 0),
               FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_define_tag(heap, 78, max + 1, 0), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_define_tag(heap, 78, 0, max + 1), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_define_tag(NULL, 78, 0, 0), FASTPATH_ERR_NULL);
  CHECK(o == FASTPATH_GC_NULL);
  size_t depth;
  CHECK_OK(fastpath_gc_roots_len(m, &depth));
  CHECK(depth == 0); /* nothing pushed by a refusal */
  /* An allocation of a defined tag takes its counts. */
  CHECK_OK(fastpath_gc_alloc_tagged(m, 3, 4, 77, &o));
  size_t defined_nrefs = 0, defined_ndata = 0;
  CHECK_OK(fastpath_gc_shape(m, o, &defined_nrefs, &defined_ndata));
  CHECK(defined_nrefs == 3 && defined_ndata == 4);
  /* A tag 78 refused above stays undefined: any counts take it. */
  CHECK_OK(fastpath_gc_alloc_tagged(m, 0, 1, 78, &o));

  static const struct {
    size_t nrefs, ndata;
    bool tagged;
    uint32_t tag;
  } shapes[] = {
      {0, 0, false, 0},
      {2, 1, false, 0},
      {0, 0, true, 0},
      {2, 1, true, 0x234567},
      {3, 5, true, FASTPATH_GC_MAX_LAYOUT_TAG},
      {FASTPATH_GC_MAX_TAGGED_COUNT, FASTPATH_GC_MAX_TAGGED_COUNT, true, 1}, /* the largest tagged */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    if (shapes[i].tagged) {
      CHECK_OK(fastpath_gc_alloc_tagged(m, shapes[i].nrefs, shapes[i].ndata, shapes[i].tag, &o));
    } else {
      CHECK_OK(fastpath_gc_alloc(m, shapes[i].nrefs, shapes[i].ndata, &o));
    }
    size_t nrefs = 99, ndata = 99;
    bool tagged = !shapes[i].tagged;
    uint32_t tag = 99;
    CHECK_OK(fastpath_gc_shape(m, o, &nrefs, &ndata));
    CHECK_OK(fastpath_gc_tag(m, o, &tagged, &tag));
    CHECK(nrefs == shapes[i].nrefs && ndata == shapes[i].ndata);
    CHECK(tagged == shapes[i].tagged && tag == shapes[i].tag); /* 0 when untagged */
    decoded_layout d = decode_layout(compose_layout(nrefs, ndata, tagged, tag));
    CHECK(d.tagged == tagged && d.tag == tag);
    CHECK(tagged || (d.nrefs == nrefs && d.ndata == ndata)); /* a tagged word has no counts */
    if (ndata > 0) { /* the last data word, through the counts */
      CHECK_OK(fastpath_gc_write(m, o, ndata - 1, 0x7a9));
      uintptr_t v;
      CHECK_OK(fastpath_gc_read(m, o, ndata - 1, &v));
      CHECK(v == 0x7a9);
      CHECK_STATUS(fastpath_gc_read(m, o, ndata, &v), FASTPATH_ERR_FIELD_OUT_OF_RANGE);
    }
    if (nrefs > 0) CHECK_OK(fastpath_gc_store(m, o, nrefs - 1, o));
  }
  bool tagged;
  uint32_t tag;
  CHECK_STATUS(fastpath_gc_tag(m, o, NULL, &tag), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_tag(m, o, &tagged, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_tag(NULL, o, &tagged, &tag), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_gc_tag(m, FASTPATH_GC_NULL, &tagged, &tag), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_gc_tag(m, o + 1, &tagged, &tag), FASTPATH_ERR_DANGLING_HANDLE);
  CHECK_OK(fastpath_gc_mutator_detach(m));
  CHECK_OK(fastpath_gc_heap_free(heap));
}

enum { TAGGED_NODES = 200 };

/* The tag of node i of tagged_survives's list (0 included), in the lower
 * half of the tags (the nodes' counts), or none for every third node,
 * which is untagged. */
static bool node_tag(uintptr_t i, uint32_t *tag) {
  *tag = (uint32_t)(i * 2654435761u) & (FASTPATH_GC_MAX_LAYOUT_TAG >> 1);
  return i % 3 != 2;
}

/* The tag of the tagged garbage after a node of tag `tag`: in the upper
 * half of the tags (the garbage's counts). */
static uint32_t garbage_tag(uint32_t tag) {
  return tag | ((FASTPATH_GC_MAX_LAYOUT_TAG >> 1) + 1);
}

/* A list of tagged and untagged nodes, with tagged and untagged garbage
 * between them, keeps every node's form, tag, counts and data through
 * collections that move it. Returns the objects the heap copied. */
static uint64_t tagged_survives(const char *barriers, const char *mode, bool aggressive) {
  fastpath_gc_heap *heap = new_heap(barriers, mode, aggressive);
  fastpath_gc_mutator *m;
  CHECK_OK(fastpath_gc_mutator_attach(heap, &m));
  fastpath_gc_handle head, tail, node, garbage;
  uint32_t tag;
  CHECK(node_tag(0, &tag));
  CHECK_OK(fastpath_gc_alloc_tagged(m, 1, 2, tag, &head));
  CHECK_OK(fastpath_gc_write(m, head, 1, 0));
  size_t scope;
  CHECK_OK(fastpath_gc_roots_len(m, &scope)); /* 1: head */
  CHECK_OK(fastpath_gc_alloc(m, 0, 0, &tail));
  CHECK_OK(fastpath_gc_set_root(m, tail, head));
  for (uintptr_t i = 1; i < TAGGED_NODES; i++) {
    size_t mark;
    CHECK_OK(fastpath_gc_roots_len(m, &mark));
    if (node_tag(i, &tag)) {
      CHECK_OK(fastpath_gc_alloc_tagged(m, 1, 2, tag, &node));
    } else {
      CHECK_OK(fastpath_gc_alloc(m, 1, 2, &node));
    }
    CHECK_OK(fastpath_gc_write(m, node, 1, i));
    CHECK_OK(fastpath_gc_store(m, tail, 0, node));
    CHECK_OK(fastpath_gc_set_root(m, tail, node));
    for (int g = 0; g < GARBAGE_PER_NODE; g++) {
      if (g % 2) {
        CHECK_OK(fastpath_gc_alloc_tagged(m, 1, 40, garbage_tag(tag), &garbage));
      } else {
        CHECK_OK(fastpath_gc_alloc(m, 1, 40, &garbage));
      }
      CHECK_OK(fastpath_gc_store(m, garbage, 0, node));
    }
    CHECK_OK(fastpath_gc_roots_truncate(m, mark));
    if (i % 50 == 0) CHECK_OK(fastpath_gc_collect(m));
  }
  CHECK_OK(fastpath_gc_roots_truncate(m, scope));
  for (int c = 0; c < 3; c++) CHECK_OK(fastpath_gc_collect(m));

  fastpath_gc_handle cur, next;
  CHECK_OK(fastpath_gc_alloc(m, 0, 0, &cur));
  CHECK_OK(fastpath_gc_set_root(m, cur, head));
  size_t count = 0, tagged_count = 0;
  for (;;) {
    bool tagged;
    uint32_t got, want;
    size_t nrefs, ndata;
    uintptr_t index;
    CHECK_OK(fastpath_gc_tag(m, cur, &tagged, &got));
    CHECK(tagged == node_tag(count, &want));
    CHECK(got == (tagged ? want : 0));
    CHECK_OK(fastpath_gc_shape(m, cur, &nrefs, &ndata));
    CHECK(nrefs == 1 && ndata == 2);
    CHECK_OK(fastpath_gc_read(m, cur, 1, &index));
    CHECK(index == count);
    tagged_count += tagged;
    count++;
    CHECK_OK(fastpath_gc_load(m, cur, 0, &next));
    if (next == FASTPATH_GC_NULL) break;
    CHECK_OK(fastpath_gc_set_root(m, cur, next));
    CHECK_OK(fastpath_gc_roots_truncate(m, scope + 1));
  }
  CHECK(count == TAGGED_NODES && tagged_count == TAGGED_NODES - TAGGED_NODES / 3);
  fastpath_gc_stats st;
  CHECK_OK(fastpath_gc_get_stats(heap, &st));
  CHECK(st.cycles >= 3 && st.verified_cycles >= 1 && st.verify_errors == 0);
  uint64_t copied = st.evacuated_by_collector + st.evacuated_by_mutators;
  printf("%s/%s%s: %zu tags intact after %llu cycles (%zu tagged nodes, %llu objects evacuated)\n",
         barriers, mode, aggressive ? " aggressive" : "", count, (unsigned long long)st.cycles,
         tagged_count, (unsigned long long)copied);
  CHECK_OK(fastpath_gc_mutator_detach(m));
  CHECK_OK(fastpath_gc_heap_free(heap));
  return copied;
}

int main(void) {
  errors();
  cell_formats();
  ref_slots();
  tagged_layout();
  uint64_t tagged_copies = tagged_survives("shenandoah", "passive", false) +
                           tagged_survives("shenandoah", "concurrent", true) +
                           tagged_survives("shenandoah-2017", "concurrent", true);
  CHECK(tagged_copies > 0); /* some tagged or untagged node was moved */
  initial_size();
  another_threads_mutator();
  list_survives("none", "passive", false);
  list_survives("g1", "passive", false);
  list_survives("shenandoah", "passive", false);
  list_survives("shenandoah-2017", "concurrent", true);
  list_survives("shenandoah", "concurrent", true);
  locking_under_collection();
  report_passed("test_gc");
  return 0;
}
