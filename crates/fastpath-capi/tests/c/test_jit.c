/* The JIT templates' bytes from C (fastpath_jit_emit), as a C JIT uses
 * them on x86-64 and AArch64: emit a fast path for chosen registers into
 * its buffer, append its own out-of-line code, point the recorded
 * slow/done sites at it (fastpath_jit_patch), install through the code
 * cache and run. Lock enter/exit on the real
 * thread block with the library's _on slow paths (single thread, then
 * four pthreads with an exact counter), the exit expecting a header word
 * (right, wrong and recursive guesses), the enter guessing the header
 * (right, wrong, recursive, not on top); poll, SATB/LRB idle, card (plain,
 * conditional), G1's filtered card (every filter), Brooks read and write
 * barriers, reference CAS, TLAB bump and on-spin-wait against a test
 * block at the published offsets; and the refusals. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>

#include "check.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "test_jit.c runs x86-64 or AArch64 machine code"
#endif

#if defined(__x86_64__)
enum { RAX = 0, RCX = 1, RDX = 2, RSP = 4, RSI = 6, RDI = 7 };
/* Argument registers 0-3 and two temporaries, by encoding number. */
enum { A0 = RDI, A1 = RSI, A2 = RDX, A3 = RCX, T0 = RCX, T1 = RDX };
#else
enum { A0 = 0, A1 = 1, A2 = 2, A3 = 3, A4 = 4, A5 = 5, T0 = 9, T1 = 10, T2 = 11, T3 = 12, T4 = 13 };
#endif

static fastpath_code_cache *cache;

/* A function under construction: bytes, then installed. */
typedef struct {
  uint8_t b[512];
  size_t n;
} buf;

static void put(buf *f, const void *p, size_t n) {
  memcpy(f->b + f->n, p, n);
  f->n += n;
}

/* The template at the buffer's end; its sites are rebased to the buffer. */
static fastpath_jit_code emit(buf *f, int which, fastpath_jit_regs r) {
  fastpath_jit_code c;
  CHECK_OK(fastpath_jit_emit(which, &r, f->b + f->n, sizeof f->b - f->n, &c));
  CHECK(c.len > 0 || which == FASTPATH_JIT_SPIN_WAIT);
  for (uint32_t i = 0; i < c.n_slow; i++) c.slow_sites[i] += (uint32_t)f->n;
  for (uint32_t i = 0; i < c.n_done; i++) c.done_sites[i] += (uint32_t)f->n;
  f->n += c.len;
  return c;
}

/* Points each site at `target` (an offset in the same buffer). */
static void patch(buf *f, const uint32_t *sites, uint32_t n, size_t target) {
  for (uint32_t i = 0; i < n; i++) CHECK_OK(fastpath_jit_patch(f->b, sizeof f->b, sites[i], target));
}

#if defined(__x86_64__)
static void put1(buf *f, uint8_t x) { put(f, &x, 1); }
/* mov rax, imm64 ; jmp rax: a tail call with the arguments untouched. */
static void tail_call(buf *f, const void *fn) {
  uint64_t a;
  memcpy(&a, &fn, sizeof a);
  put1(f, 0x48), put1(f, 0xB8), put(f, &a, 8), put1(f, 0xFF), put1(f, 0xE0);
}
static void ret(buf *f) { put1(f, 0xC3); }
/* mov eax, imm32 ; ret */
static void ret_imm(buf *f, uint32_t v) { put1(f, 0xB8), put(f, &v, 4), ret(f); }
/* mov rax, <reg> ; ret (the registers used here: rdi, rdx, rax) */
static void ret_reg(buf *f, int r) {
  if (r != RAX) put1(f, 0x48), put1(f, 0x89), put1(f, (uint8_t)(0xC0 | r << 3));
  ret(f);
}
#else
static void put32(buf *f, uint32_t w) { put(f, &w, 4); }
/* movz/movk x16, fn ; br x16: a tail call with the arguments untouched. */
static void tail_call(buf *f, const void *fn) {
  uint64_t a;
  memcpy(&a, &fn, sizeof a);
  put32(f, 0xD2800010u | (uint32_t)(a & 0xffff) << 5);
  put32(f, 0xF2A00010u | (uint32_t)(a >> 16 & 0xffff) << 5);
  put32(f, 0xF2C00010u | (uint32_t)(a >> 32 & 0xffff) << 5);
  put32(f, 0xF2E00010u | (uint32_t)(a >> 48 & 0xffff) << 5);
  put32(f, 0xD61F0200u);
}
static void ret(buf *f) { put32(f, 0xD65F03C0u); }
/* movz w0, lo ; movk w0, hi, lsl 16 ; ret */
static void ret_imm(buf *f, uint32_t v) {
  put32(f, 0x52800000u | (v & 0xffff) << 5), put32(f, 0x72A00000u | (v >> 16) << 5), ret(f);
}
/* mov x0, <reg> ; ret */
static void ret_reg(buf *f, int r) {
  if (r != 0) put32(f, 0xAA0003E0u | (uint32_t)r << 16);
  ret(f);
}
#endif

static fastpath_code_entry *entries[32];
static size_t n_entries;

static void *install(buf *f) {
  fastpath_code_entry *e = NULL;
  CHECK(n_entries < sizeof entries / sizeof entries[0]);
  CHECK_OK(fastpath_code_install(cache, f->b, f->n, &e));
  entries[n_entries++] = e;
  return (void *)fastpath_code_entry_addr(e);
}

/* ---- lock enter / exit ------------------------------------------------ */

typedef int (*lock_fn)(fastpath_block *, fastpath_header *);
static lock_fn enter_fn, exit_fn;
static unsigned long slow_enters, slow_exits; /* this thread's, single-threaded part */

/* The slow paths the stubs tail-call: 1 the slow path ran and succeeded,
 * 2 the exit was illegal (this thread did not hold the object). */
static int slow_enter(fastpath_block *t, fastpath_header *h) {
  __atomic_add_fetch(&slow_enters, 1, __ATOMIC_RELAXED);
  return fastpath_monitor_enter_on(t, h) == FASTPATH_OK ? 1 : 3;
}
static int slow_exit(fastpath_block *t, fastpath_header *h) {
  __atomic_add_fetch(&slow_exits, 1, __ATOMIC_RELAXED);
  fastpath_status s = fastpath_monitor_exit_on(t, h);
  return s == FASTPATH_OK ? 1 : s == FASTPATH_ERR_ILLEGAL_MONITOR_STATE ? 2 : 3;
}

/* fn(block, header): the template, `return 0`, and at its slow sites a
 * tail call of the slow path. */
static lock_fn lock_function(int which, const void *slow) {
  buf f = {.n = 0};
#if defined(__x86_64__)
  fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1};
  uint32_t clobbers = 1u << RAX | 1u << T0 | 1u << T1, budget = which == FASTPATH_JIT_LOCK_ENTER ? 15 : 12;
#else
  fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1, .tmp2 = T2, .tmp3 = T3, .tmp4 = T4};
  uint32_t clobbers = 1u << T0 | 1u << T1 | 1u << T2 | 1u << T3 | 1u << T4, budget = 18;
#endif
  fastpath_jit_code c = emit(&f, which, r);
  CHECK(c.n_slow >= 2 && c.n_done == 0);
  CHECK(c.clobbers == clobbers);
  CHECK(c.budget == budget);
  ret_imm(&f, 0);
  patch(&f, c.slow_sites, c.n_slow, f.n);
  tail_call(&f, slow);
  void *p = install(&f);
  lock_fn fn;
  memcpy(&fn, &p, sizeof fn);
  return fn;
}

typedef struct {
  fastpath_header *h;
  unsigned long *counter;
  int iterations;
} worker_arg;

static void *worker(void *p) {
  worker_arg *a = p;
  fastpath_block *t = fastpath_thread_block();
  for (int i = 0; i < a->iterations; i++) {
    int depth = 1 + (i & 1);
    for (int d = 0; d < depth; d++) CHECK(enter_fn(t, a->h) <= 1);
    unsigned long v = __atomic_load_n(a->counter, __ATOMIC_RELAXED);
    __atomic_store_n(a->counter, v + 1, __ATOMIC_RELAXED);
    for (int d = 0; d < depth; d++) CHECK(exit_fn(t, a->h) <= 1);
  }
  return NULL;
}

static void lock_tests(void) {
  enter_fn = lock_function(FASTPATH_JIT_LOCK_ENTER, (const void *)slow_enter);
  exit_fn = lock_function(FASTPATH_JIT_LOCK_EXIT, (const void *)slow_exit);
  fastpath_header h, other;
  CHECK_OK(fastpath_header_init(&h));
  CHECK_OK(fastpath_header_init(&other));
  fastpath_block *t = fastpath_thread_block();
  bool held = false;

  /* This thread has not registered yet: its lock-stack is inactive, the
   * template goes to the slow path, which registers it and fast-locks h
   * (so the exit after it is the template's own). */
  CHECK(enter_fn(t, &h) == 1 && slow_enters == 1);
  CHECK(exit_fn(t, &h) == 0 && slow_exits == 0);
  /* Registered: thin and recursive locking never leave the templates. */
  CHECK(enter_fn(t, &h) == 0);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(held);
  CHECK(enter_fn(t, &h) == 0);
  CHECK(exit_fn(t, &h) == 0);
  CHECK(exit_fn(t, &h) == 0);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(!held && slow_enters == 1 && slow_exits == 0);
  /* Not on top: the slow enter inflates; exits go slow while inflated. */
  CHECK(enter_fn(t, &h) == 0);
  CHECK(enter_fn(t, &other) == 0);
  CHECK(enter_fn(t, &h) == 1);
  CHECK(exit_fn(t, &h) == 1);
  CHECK(exit_fn(t, &other) == 0);
  CHECK(exit_fn(t, &h) == 1);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(!held);
  /* An exit of an object not held: the slow path's error, nothing changed. */
  CHECK(exit_fn(t, &other) == 2);

  /* Four threads, template enter/exit (recursive every other time). */
  enum { THREADS = 4, ITERATIONS = 20000 };
  unsigned long counter = 0;
  pthread_t th[THREADS];
  worker_arg a = {.h = &h, .counter = &counter, .iterations = ITERATIONS};
  for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, worker, &a) == 0);
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
  CHECK(counter == (unsigned long)THREADS * ITERATIONS);
  CHECK_OK(fastpath_holds_lock(&h, &held));
  CHECK(!held);
  printf("test_jit: %d threads x %d template critical sections, %lu slow enters, %lu slow exits\n",
         THREADS, ITERATIONS, slow_enters, slow_exits);

  /* The exit expecting a header word: fn(block, header, word), the word
   * in the third argument register (x86-64: rdx, the enter's mark
   * temporary; AArch64: x2). */
  typedef int (*exit_expecting_fn)(fastpath_block *, fastpath_header *, size_t);
  exit_expecting_fn exit_exp;
  {
    buf f = {.n = 0};
#if defined(__x86_64__)
    fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1, .imm = A2};
    uint32_t budget = 12;
#else
    fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1, .tmp2 = T2, .tmp3 = T3, .tmp4 = T4, .imm = A2};
    uint32_t budget = 17; /* the expecting form's own: one instruction fewer than the exit's 18 */
#endif
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_LOCK_EXIT_EXPECTING, r);
    CHECK(c.n_slow >= 2 && c.n_done == 0 && c.budget == budget);
    ret_imm(&f, 0);
    patch(&f, c.slow_sites, c.n_slow, f.n);
    tail_call(&f, (const void *)slow_exit);
    void *p = install(&f);
    memcpy(&exit_exp, &p, sizeof p);
  }
  /* A fresh header (h may be inflated after the threads' contention). */
  fastpath_header x;
  CHECK_OK(fastpath_header_init(&x));
  unsigned long slow0 = slow_exits;
  size_t word;
  CHECK(enter_fn(t, &x) == 0);
  memcpy(&word, &x, sizeof word); /* the word the enter's CAS stored */
  CHECK(exit_exp(t, &x, word) == 0);
  CHECK_OK(fastpath_holds_lock(&x, &held));
  CHECK(!held && slow_exits == slow0);
  /* A wrong guess: the CAS fails, the slow site's library exit unlocks. */
  CHECK(enter_fn(t, &x) == 0);
  CHECK(exit_exp(t, &x, 0x1234) == 1 && slow_exits == slow0 + 1);
  CHECK_OK(fastpath_holds_lock(&x, &held));
  CHECK(!held);
  /* Recursive: the inner exit pops without reading the guess. */
  CHECK(enter_fn(t, &x) == 0 && enter_fn(t, &x) == 0);
  memcpy(&word, &x, sizeof word);
  CHECK(exit_exp(t, &x, 0x5678) == 0);
  CHECK(exit_exp(t, &x, word) == 0);
  CHECK_OK(fastpath_holds_lock(&x, &held));
  CHECK(!held && slow_exits == slow0 + 1);
  /* Not held: the slow site's library exit refuses. */
  CHECK(exit_exp(t, &x, word) == 2);

  /* The enter guessing the header: fn(block, header), the guess a fresh
   * header's word (the neutral header every fastpath_header starts
   * with). Right, it locks with the one CAS; wrong, the CAS fails and
   * the enter goes on from the word it found, still without the slow
   * path; recursive, it pushes before any CAS; held elsewhere in the
   * lock-stack (not on top), the slow path inflates as the loaded form's. */
  fastpath_header fresh;
  CHECK_OK(fastpath_header_init(&fresh));
  uint64_t neutral;
  memcpy(&neutral, &fresh, sizeof neutral);
  CHECK((neutral & 3) == 1 && neutral == FASTPATH_GC_INITIAL_HEADER);
  lock_fn guessing[2];
  for (int g = 0; g < 2; g++) {
    buf f = {.n = 0};
#if defined(__x86_64__)
    fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1};
    uint32_t budget = 11;
#else
    fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1, .tmp2 = T2, .tmp3 = T3, .tmp4 = T4};
    uint32_t budget = 17; /* 15 and a movz/movk per non-zero half of the guess: 2 here */
#endif
    r.guess = g == 0 ? neutral : 0x0123456789abcdefu;
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_LOCK_ENTER_GUESSING, r);
    CHECK(c.n_slow >= 2 && c.n_done == 0);
    CHECK(g == 1 || c.budget == budget);
    ret_imm(&f, 0);
    patch(&f, c.slow_sites, c.n_slow, f.n);
    tail_call(&f, (const void *)slow_enter);
    void *p = install(&f);
    memcpy(&guessing[g], &p, sizeof p);
  }
  unsigned long enters0 = slow_enters;
  slow0 = slow_exits;
  for (int g = 0; g < 2; g++) {
    CHECK(guessing[g](t, &fresh) == 0);
    CHECK_OK(fastpath_holds_lock(&fresh, &held));
    CHECK(held);
    CHECK(guessing[g](t, &fresh) == 0); /* recursive */
    CHECK(exit_fn(t, &fresh) == 0 && exit_fn(t, &fresh) == 0);
    CHECK_OK(fastpath_holds_lock(&fresh, &held));
    CHECK(!held);
  }
  CHECK(slow_enters == enters0 && slow_exits == slow0);
  memcpy(&word, &fresh, sizeof word);
  CHECK(word == neutral); /* unlocked again: the guess stays right */
  /* Not on top of the lock-stack: the slow site's library enter. */
  CHECK(guessing[0](t, &fresh) == 0 && enter_fn(t, &x) == 0);
  CHECK(guessing[0](t, &fresh) == 1 && slow_enters == enters0 + 1);
  CHECK(exit_fn(t, &fresh) == 1 && exit_fn(t, &x) == 0 && exit_fn(t, &fresh) == 1);
  CHECK_OK(fastpath_holds_lock(&fresh, &held));
  CHECK(!held);
  CHECK_OK(fastpath_header_destroy(&fresh));

  CHECK_OK(fastpath_header_destroy(&x));
  CHECK_OK(fastpath_header_destroy(&other));
  CHECK_OK(fastpath_header_destroy(&h));
}

/* ---- thread-block templates on a test block ---------------------------- */

static _Alignas(16) uint8_t block[256];

/* fn(...) -> 0 when the template falls through, 1 at its slow sites. */
static void *flag_function(int which, fastpath_jit_regs r) {
  buf f = {.n = 0};
  fastpath_jit_code c = emit(&f, which, r);
  ret_imm(&f, 0);
  patch(&f, c.slow_sites, c.n_slow, f.n);
  ret_imm(&f, 1);
  return install(&f);
}

/* Reference CAS template `which` installed as fn(block, field, expected,
 * new): it returns the witnessed value from a genuine failure, `expected`
 * on success and 0xFFFFFFFF from the slow site; the template's record goes
 * to `*c`. */
static void *cas_function(int which, fastpath_jit_code *c) {
  buf f = {.n = 0};
#if defined(__x86_64__)
  fastpath_jit_regs cr = {.thread = A0, .obj = A1, .tmp0 = A3, .tmp1 = A2, .tmp2 = 8 /* r8 */};
  int witnessed = RAX, expected = A2;
#else
  fastpath_jit_regs cr = {.thread = A0, .obj = A1, .tmp0 = A2, .tmp1 = A3, .tmp2 = A4, .tmp3 = A5};
  int witnessed = A4, expected = A2;
#endif
  *c = emit(&f, which, cr);
  CHECK(c->n_slow == 1 && c->n_done == 1);
  ret_reg(&f, witnessed); /* genuine failure */
  patch(&f, c->done_sites, c->n_done, f.n);
  ret_reg(&f, expected); /* success */
  patch(&f, c->slow_sites, c->n_slow, f.n);
  ret_imm(&f, 0xFFFFFFFFu);
  return install(&f);
}

/* Reference CAS template `which` on a 4-byte slot holding the address
 * shifted right by `shift`: the template takes and returns addresses,
 * with its `budget` and `clobbers`. `top` is the highest address the slot
 * reaches, whose encoding fills the slot's bits: its witness comes back
 * zero-extended. */
static void cas_on_4_byte_slots(int which, unsigned shift, uint64_t top, uint32_t budget, uint32_t clobbers) {
  fastpath_jit_code c;
  void *p = cas_function(which, &c);
  CHECK(c.budget == budget && c.clobbers == clobbers);
  uint64_t (*cas)(uint8_t *, uint32_t *, uint64_t, uint64_t);
  memcpy(&cas, &p, sizeof p);
  const uint32_t top_slot = (uint32_t)(top >> shift);
  uint32_t slots[3] = {0x11111111, 0x80u >> shift, 0x22222222};
  CHECK(cas(block, &slots[1], 0x80, 0x7fff0) == 0x80 && slots[1] == 0x7fff0u >> shift);
  CHECK(cas(block, &slots[1], 0x80, 0x100) == 0x7fff0 && slots[1] == 0x7fff0u >> shift);
  CHECK(cas(block, &slots[1], 0x7fff0, 0) == 0x7fff0 && slots[1] == 0);
  CHECK(cas(block, &slots[1], 0, top) == 0 && slots[1] == top_slot);
  CHECK(cas(block, &slots[1], 0x80, 0) == top && slots[1] == top_slot);
  CHECK(cas(block, &slots[1], top, 0x80) == top && slots[1] == 0x80u >> shift);
  block[FASTPATH_THREAD_GC_STATE_OFFSET] = 4;
  CHECK(cas(block, &slots[1], 0x100, 0) == 0xFFFFFFFFu && slots[1] == 0x80u >> shift);
  block[FASTPATH_THREAD_GC_STATE_OFFSET] = 0;
  CHECK(slots[0] == 0x11111111 && slots[2] == 0x22222222);
}

static void block_tests(void) {
  typedef int (*t_fn)(uint8_t *);
  fastpath_jit_regs r = {.thread = A0, .tmp0 = T0};
  void *p;
  t_fn poll, satb, lrb;
  p = flag_function(FASTPATH_JIT_SAFEPOINT_POLL, r), memcpy(&poll, &p, sizeof p);
  p = flag_function(FASTPATH_JIT_SATB_IDLE, r), memcpy(&satb, &p, sizeof p);
  p = flag_function(FASTPATH_JIT_LRB_IDLE, r), memcpy(&lrb, &p, sizeof p);
  CHECK(poll(block) == 0 && satb(block) == 0 && lrb(block) == 0);
  block[FASTPATH_THREAD_POLL_WORD_OFFSET] = 1;
  CHECK(poll(block) == 1 && satb(block) == 0);
  block[FASTPATH_THREAD_POLL_WORD_OFFSET] = 0;
  block[FASTPATH_THREAD_GC_STATE_OFFSET] = 1; /* marking */
  CHECK(satb(block) == 1 && lrb(block) == 0 && poll(block) == 0);
  block[FASTPATH_THREAD_GC_STATE_OFFSET] = 4; /* has forwarded objects */
  CHECK(satb(block) == 0 && lrb(block) == 1);
  block[FASTPATH_THREAD_GC_STATE_OFFSET] = 0;

  /* Card marks: fn(block, addr), the conditional one's done site at ret. */
  static _Alignas(512) uint8_t heap[4 * 512];
  uint8_t cards[4];
  uintptr_t biased = (uintptr_t)cards - ((uintptr_t)heap >> 9);
  memcpy(block + FASTPATH_THREAD_CARD_TABLE_BASE_OFFSET, &biased, 8);
  for (int conditional = 0; conditional < 2; conditional++) {
    buf f = {.n = 0};
    fastpath_jit_regs cr = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1};
    fastpath_jit_code c =
        emit(&f, conditional ? FASTPATH_JIT_CARD_MARK_CONDITIONAL : FASTPATH_JIT_CARD_MARK, cr);
    CHECK(c.n_slow == 0 && c.n_done == (uint32_t)conditional);
    CHECK(c.budget == 3 + 2 * (uint32_t)conditional);
    patch(&f, c.done_sites, c.n_done, f.n);
    ret(&f);
    void (*mark)(uint8_t *, void *);
    p = install(&f), memcpy(&mark, &p, sizeof p);
    memset(cards, 0xff, sizeof cards);
    mark(block, heap + 2 * 512 + 24);
    mark(block, heap + 2 * 512 + 32);
    CHECK(cards[0] == 0xff && cards[1] == 0xff && cards[2] == 0 && cards[3] == 0xff);
  }

  /* Brooks: fn(obj) -> the word at obj - 8. */
  {
    buf f = {.n = 0};
    fastpath_jit_regs br = {.obj = A0, .imm = -8};
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_BROOKS_READ_BARRIER, br);
    CHECK(c.budget == 1 && c.clobbers == 1u << A0);
    ret_reg(&f, A0);
    uint64_t (*rb)(uint64_t *);
    p = install(&f), memcpy(&rb, &p, sizeof p);
    uint64_t obj[2] = {0x1234, 0};
    CHECK(rb(obj + 1) == 0x1234);
  }

  /* Brooks write barrier: fn(block, obj) -> the object to write (its
   * forwardee), or 0xFFFFFFFF from the slow site (evacuation running or
   * forwarded objects). */
  {
    buf f = {.n = 0};
    fastpath_jit_regs wr = {.thread = A0, .obj = A1, .tmp0 = T0, .imm = -8};
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_BROOKS_WRITE_BARRIER, wr);
#if defined(__x86_64__)
    CHECK(c.budget == 3 && c.clobbers == 1u << A1 && c.n_slow == 1);
#else
    CHECK(c.budget == 4 && c.clobbers == (1u << A1 | 1u << T0) && c.n_slow == 2);
#endif
    CHECK(c.n_done == 0);
    ret_reg(&f, A1);
    patch(&f, c.slow_sites, c.n_slow, f.n);
    ret_imm(&f, 0xFFFFFFFFu);
    uint64_t (*wb)(uint8_t *, uint64_t *);
    p = install(&f), memcpy(&wb, &p, sizeof p);
    uint64_t obj[2] = {0x1234, 0};
    CHECK(wb(block, obj + 1) == 0x1234);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 1; /* marking only */
    CHECK(wb(block, obj + 1) == 0x1234);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 2; /* evacuation */
    CHECK(wb(block, obj + 1) == 0xFFFFFFFFu);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 4; /* has forwarded objects */
    CHECK(wb(block, obj + 1) == 0xFFFFFFFFu);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 0;
  }

  /* G1's filtered card: fn(block, field, value) -> 2 from the done sites
   * (same region, null), 1 from the slow site (a clean card), 0 when it
   * falls through (a dirty card); 4 KiB regions (imm = 12), 512-byte cards
   * (clean 1, dirty 0). */
  {
    buf f = {.n = 0};
#if defined(__x86_64__)
    fastpath_jit_regs gr = {.thread = A0, .obj = A1, .tmp0 = A2, .tmp1 = RAX, .imm = 12};
    uint32_t budget = 11, clobbers = 1u << RAX;
#else
    fastpath_jit_regs gr = {.thread = A0, .obj = A1, .tmp0 = A2, .tmp1 = T0, .tmp2 = T1, .imm = 12};
    uint32_t budget = 8, clobbers = 1u << T0 | 1u << T1;
#endif
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_G1_CARD, gr);
    CHECK(c.n_slow == 1 && c.n_done == 2 && c.budget == budget && c.clobbers == clobbers);
    ret_imm(&f, 0);
    patch(&f, c.done_sites, c.n_done, f.n);
    ret_imm(&f, 2);
    patch(&f, c.slow_sites, c.n_slow, f.n);
    ret_imm(&f, 1);
    int (*g1)(uint8_t *, void *, void *);
    p = install(&f), memcpy(&g1, &p, sizeof p);
    static _Alignas(4096) uint8_t gheap[4 * 4096];
    uint8_t gcards[4 * 4096 / 512], want[sizeof gcards];
    memset(gcards, 1, sizeof gcards);
    uintptr_t gbiased = (uintptr_t)gcards - ((uintptr_t)gheap >> 9);
    memcpy(block + FASTPATH_THREAD_CARD_TABLE_BASE_OFFSET, &gbiased, 8);
    void *field = gheap + 4096 + 520; /* region 1, card 9 */
    CHECK(g1(block, field, gheap + 4096 + 8) == 2);
    CHECK(g1(block, field, NULL) == 2);
    CHECK(g1(block, field, gheap + 3 * 4096) == 1);
    CHECK(g1(block, field, gheap + 16) == 1);
    gcards[9] = 0; /* the stub would have dirtied it */
    CHECK(g1(block, field, gheap + 3 * 4096) == 0);
    CHECK(g1(block, gheap + 4096 + 1024, gheap) == 1); /* card 10: clean */
    memset(want, 1, sizeof want), want[9] = 0;
    CHECK(memcmp(gcards, want, sizeof want) == 0); /* the template writes no card */
  }

  /* Reference CAS: fn(block, field, expected, new) -> witnessed, or
   * 0xFFFFFFFF from the slow site. */
  {
    fastpath_jit_code c;
    uint64_t (*cas)(uint8_t *, uint64_t *, uint64_t, uint64_t);
    p = cas_function(FASTPATH_JIT_CAS_REF, &c), memcpy(&cas, &p, sizeof p);
    uint64_t field = 10;
    CHECK(cas(block, &field, 10, 20) == 10 && field == 20);
    CHECK(cas(block, &field, 10, 30) == 20 && field == 20);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 4;
    CHECK(cas(block, &field, 10, 30) == 0xFFFFFFFFu && field == 20);
    block[FASTPATH_THREAD_GC_STATE_OFFSET] = 0;
  }

  /* Reference CAS on a compressed slot (the address >> 3) and on an
   * unscaled one (the address itself). x86-64's compressed form takes r8
   * (tmp2) for the encoded new value; the unscaled one uses rax alone. */
#if defined(__x86_64__)
  cas_on_4_byte_slots(FASTPATH_JIT_CAS_REF_COMPRESSED, FASTPATH_GC_COMPRESSED_REF_SHIFT,
                      FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT - 8, 7, 1u << RAX | 1u << 8);
  cas_on_4_byte_slots(FASTPATH_JIT_CAS_REF_UNSCALED, 0, FASTPATH_GC_UNSCALED_ADDRESS_LIMIT - 8, 3,
                      1u << RAX);
#else
  cas_on_4_byte_slots(FASTPATH_JIT_CAS_REF_COMPRESSED, FASTPATH_GC_COMPRESSED_REF_SHIFT,
                      FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT - 8, 6, 1u << A4 | 1u << A5);
  cas_on_4_byte_slots(FASTPATH_JIT_CAS_REF_UNSCALED, 0, FASTPATH_GC_UNSCALED_ADDRESS_LIMIT - 8, 4,
                      1u << A4 | 1u << A5);
#endif

  /* TLAB: fn(block) -> the new object (rax), or 0 from the slow site. */
  {
    buf f = {.n = 0};
    fastpath_jit_regs tr = {.thread = A0, .obj = T0, .tmp0 = T1, .tmp1 = A1, .imm = 32};
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_TLAB_ALLOC, tr);
    ret_reg(&f, T0);
    patch(&f, c.slow_sites, c.n_slow, f.n);
    ret_imm(&f, 0);
    uint64_t (*alloc)(uint8_t *);
    p = install(&f), memcpy(&alloc, &p, sizeof p);
    uint64_t top = 0x1000, end = 0x1040;
    memcpy(block + FASTPATH_THREAD_TLAB_TOP_OFFSET, &top, 8);
    memcpy(block + FASTPATH_THREAD_TLAB_END_OFFSET, &end, 8);
    CHECK(alloc(block) == 0x1000 && alloc(block) == 0x1020 && alloc(block) == 0);
    memcpy(&top, block + FASTPATH_THREAD_TLAB_TOP_OFFSET, 8);
    CHECK(top == 0x1040);
  }

  /* On-spin-wait: the configured pause, then mov eax, 7 ; ret. */
  {
    buf f = {.n = 0};
    fastpath_jit_regs none = {0};
    fastpath_jit_code c = emit(&f, FASTPATH_JIT_SPIN_WAIT, none);
    CHECK(c.clobbers == 0 && c.n_slow == 0);
    ret_imm(&f, 7);
    int (*spin)(void);
    p = install(&f), memcpy(&spin, &p, sizeof p);
    CHECK(spin() == 7);
  }
}

static void refusals(void) {
  fastpath_jit_regs r = {.thread = A0, .obj = A1, .tmp0 = T0, .tmp1 = T1};
#if defined(__aarch64__)
  r.tmp2 = T2, r.tmp3 = T3, r.tmp4 = T4;
  const uint8_t reserved = 16, not_a_register = 31;
#else
  const uint8_t reserved = RAX, not_a_register = 16;
#endif
  fastpath_jit_code c;
  uint8_t small[4];
  CHECK_STATUS(fastpath_jit_emit(99, &r, small, sizeof small, &c), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_ENTER, NULL, small, sizeof small, &c), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_ENTER, &r, small, sizeof small, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_ENTER, &r, small, sizeof small, &c),
               FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK(c.len > sizeof small);
  fastpath_jit_regs bad = r;
  bad.obj = reserved; /* x86-64: the CAS's operand; AArch64: the stubs' scratch */
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_EXIT, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.tmp0 = A1; /* two roles */
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_ENTER, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.thread = not_a_register;
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_SAFEPOINT_POLL, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.obj = not_a_register;
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_CARD_MARK, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.imm = 0; /* a G1 region shift of 0 */
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_G1_CARD, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.imm = 64;
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_G1_CARD, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  bad = r, bad.imm = bad.tmp0; /* the expected word in the exit's first temporary */
  CHECK_STATUS(fastpath_jit_emit(FASTPATH_JIT_LOCK_EXIT_EXPECTING, &bad, small, sizeof small, &c),
               FASTPATH_ERR_INVALID_ARGUMENT);
  /* Patching: outside the buffer, and (AArch64) a word that is no branch. */
  uint8_t code[8] = {0};
  CHECK_STATUS(fastpath_jit_patch(code, sizeof code, 6, 0), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_jit_patch(code, sizeof code, 0, 9), FASTPATH_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(fastpath_jit_patch(NULL, sizeof code, 0, 4), FASTPATH_ERR_NULL);
#if defined(__aarch64__)
  CHECK_STATUS(fastpath_jit_patch(code, sizeof code, 0, 4), FASTPATH_ERR_INVALID_ARGUMENT);
#endif
}

int main(void) {
  CHECK(fastpath_thread_layout_version() == FASTPATH_THREAD_LAYOUT_VERSION);
  /* The object layout a C JIT addresses objects with (each constant is
   * asserted equal to the library's when the library is built). */
  CHECK(fastpath_gc_layout_version() == FASTPATH_GC_LAYOUT_VERSION);
  CHECK(FASTPATH_GC_LAYOUT_VERSION == 6);
  CHECK(FASTPATH_GC_FORWARDING_OFFSET == -(intptr_t)FASTPATH_GC_BROOKS_CELL_TO_OBJECT);
  CHECK(FASTPATH_GC_REFS_OFFSET + FASTPATH_GC_BROOKS_CELL_TO_OBJECT ==
        FASTPATH_GC_BROOKS_CELL_HEADER_WORDS * FASTPATH_GC_WORD_BYTES);
  CHECK(FASTPATH_GC_REFS_OFFSET + FASTPATH_GC_COMPACT_CELL_TO_OBJECT ==
        FASTPATH_GC_COMPACT_CELL_HEADER_WORDS * FASTPATH_GC_WORD_BYTES);
  CHECK(FASTPATH_GC_LAYOUT_FORWARDED_BIT == (uint64_t)1 << 31);
  CHECK(FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET == 12);
  CHECK((FASTPATH_GC_INITIAL_HEADER & 3) == 1); /* unlocked */
  CHECK_OK(fastpath_code_cache_new(256 * 1024, &cache));
  refusals();
  lock_tests();
  block_tests();
  for (size_t i = 0; i < n_entries; i++) CHECK_OK(fastpath_code_free(cache, entries[i]));
  CHECK_OK(fastpath_code_cache_free(cache));
  report_passed("test_jit");
  return 0;
}
