/*
 * fastpath.hpp: C++ RAII wrappers over the C ABI in fastpath.h (hand
 * written; C++17). Errors become fastpath::Error exceptions carrying the
 * status and fastpath_last_error()'s text; destructors never throw.
 *
 *   fastpath::Header      an object's header word: init in the constructor,
 *                         destroy in the destructor; neither copyable nor
 *                         movable (a locked header must not move).
 *   fastpath::LockGuard   enter in the constructor, exit in the destructor
 *                         (same thread); wait / notify / notify_all.
 *   fastpath::CodeCache   owns a code cache and the entries it installs:
 *                         install() returns a CodeEntry, freed when it goes
 *                         out of scope (or with free()).
 *   fastpath::RecordLockGuard  a legacy stack-lock whose lock record is a
 *                         member of the guard (so it lives on the stack, as
 *                         the record must); enter/exit with it.
 *   fastpath::GcHeap, GcMutator, GcScope, GcLock  a GC heap (freed last), a
 *                         thread's mutator (detached in the destructor), a
 *                         handle scope (pops the handles pushed in it) and
 *                         an object lock (unlocks in the destructor).
 */
#ifndef FASTPATH_HPP
#define FASTPATH_HPP

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "fastpath.h"

namespace fastpath {

/** A fastpath_status other than FASTPATH_OK, with its detailed message. */
class Error : public std::runtime_error {
 public:
  Error(fastpath_status status, const char *what)
      : std::runtime_error(std::string(fastpath_status_str(status)) + ": " + what), status_(status) {}
  fastpath_status status() const noexcept { return status_; }

 private:
  fastpath_status status_;
};

/** Throws Error unless `status` is FASTPATH_OK. */
inline void check(fastpath_status status) {
  if (status != FASTPATH_OK) throw Error(status, fastpath_last_error());
}

/** The header word to embed first in an object. */
class Header {
 public:
  Header() { check(fastpath_header_init(&raw_)); }
  explicit Header(uintptr_t spare_bits) { check(fastpath_header_init_with_spare_bits(&raw_, spare_bits)); }
  ~Header() { (void)fastpath_header_destroy(&raw_); }
  Header(const Header &) = delete;
  Header &operator=(const Header &) = delete;

  fastpath_header *native() noexcept { return &raw_; }
  const fastpath_header *native() const noexcept { return &raw_; }

  uint32_t identity_hash() const {
    uint32_t h = 0;
    check(fastpath_identity_hash(&raw_, &h));
    return h;
  }
  bool held_by_current_thread() const {
    bool held = false;
    check(fastpath_holds_lock(&raw_, &held));
    return held;
  }
  fastpath_lock_state lock_state() const {
    fastpath_lock_state s;
    check(fastpath_header_lock_state(&raw_, &s));
    return s;
  }

 private:
  fastpath_header raw_;
};

/** Holds a Header's lock for the guard's scope (reentrant). */
class LockGuard {
 public:
  explicit LockGuard(Header &h) : h_(h) { check(fastpath_monitor_enter(h_.native())); }
  /** The same through the inline pair (`fastpath_monitor_enter_inline`):
   *  `thread` is the calling thread's `fastpath_thread_block()`, loaded
   *  once by the caller; the uncontended lock and unlock make no call. */
  LockGuard(Header &h, fastpath_block *thread) : h_(h), thread_(thread) {
    check(fastpath_monitor_enter_inline(thread_, h_.native()));
  }
  ~LockGuard() {
    (void)(thread_ != nullptr ? fastpath_monitor_exit_inline(thread_, h_.native())
                              : fastpath_monitor_exit(h_.native()));
  }
  LockGuard(const LockGuard &) = delete;
  LockGuard &operator=(const LockGuard &) = delete;

  /** Object.wait: false if the timeout expired; throws if interrupted. */
  bool wait(std::chrono::nanoseconds timeout) {
    fastpath_status s = fastpath_monitor_wait(h_.native(), static_cast<int64_t>(timeout.count()));
    if (s == FASTPATH_ERR_TIMED_OUT) return false;
    check(s);
    return true;
  }
  /** Object.wait with no timeout; throws if interrupted. */
  void wait() { check(fastpath_monitor_wait(h_.native(), FASTPATH_WAIT_FOREVER)); }
  /** Waits until `ready()` holds, re-checking after every wake-up. */
  template <class Pred>
  void wait_until(Pred ready) {
    while (!ready()) wait();
  }
  std::size_t notify() {
    std::size_t n = 0;
    check(fastpath_monitor_notify(h_.native(), &n));
    return n;
  }
  std::size_t notify_all() {
    std::size_t n = 0;
    check(fastpath_monitor_notify_all(h_.native(), &n));
    return n;
  }

 private:
  Header &h_;
  fastpath_block *thread_ = nullptr;
};

/** Holds a Header's lock through a lock record that is part of the guard
 * (a legacy stack-lock in any locking mode). Declare it as a local. */
class RecordLockGuard {
 public:
  explicit RecordLockGuard(Header &h) : h_(h) {
    check(fastpath_lock_record_init(&rec_));
    check(fastpath_monitor_enter_with_record(h_.native(), &rec_));
  }
  ~RecordLockGuard() {
    (void)fastpath_monitor_exit_with_record(h_.native(), &rec_);
    (void)fastpath_lock_record_destroy(&rec_);
  }
  RecordLockGuard(const RecordLockGuard &) = delete;
  RecordLockGuard &operator=(const RecordLockGuard &) = delete;

 private:
  Header &h_;
  fastpath_lock_record rec_;
};

/** A GC heap; destroy it after every GcMutator on it. */
class GcHeap {
 public:
  /** `barriers`/`mode` as FASTPATH_GC_BARRIERS / FASTPATH_GC_MODE spell them;
   * `initial_bytes` the soft capacity to start with (0: the whole heap; see
   * fastpath_gc_heap_new_sized). */
  GcHeap(std::size_t heap_bytes, const char *barriers, const char *mode, bool verify = false,
         std::size_t initial_bytes = 0) {
    fastpath_gc_heap_config cfg = {heap_bytes, 0, barriers, mode, false, verify};
    check(fastpath_gc_heap_new_sized(&cfg, initial_bytes, &heap_));
  }
  ~GcHeap() { (void)fastpath_gc_heap_free(heap_); }
  GcHeap(const GcHeap &) = delete;
  GcHeap &operator=(const GcHeap &) = delete;

  fastpath_gc_stats stats() const {
    fastpath_gc_stats s;
    check(fastpath_gc_get_stats(heap_, &s));
    return s;
  }
  /** FASTPATH_GC_CELL_FORMAT_BROOKS or _COMPACT (fastpath_gc_cell_format). */
  std::uint32_t cell_format() const {
    std::uint32_t f;
    check(fastpath_gc_cell_format(heap_, &f));
    return f;
  }
  /** Defines `tag`'s counts for every mutator, before generated code
   * allocates objects of it inline (fastpath_gc_define_tag). */
  void define_tag(std::uint32_t tag, std::size_t nrefs, std::size_t ndata) {
    check(fastpath_gc_define_tag(heap_, tag, nrefs, ndata));
  }
  fastpath_gc_heap *native() noexcept { return heap_; }

 private:
  fastpath_gc_heap *heap_ = nullptr;
};

/** The calling thread's mutator on a heap (this thread only). */
class GcMutator {
 public:
  explicit GcMutator(GcHeap &heap) { check(fastpath_gc_mutator_attach(heap.native(), &m_)); }
  ~GcMutator() { (void)fastpath_gc_mutator_detach(m_); }
  GcMutator(const GcMutator &) = delete;
  GcMutator &operator=(const GcMutator &) = delete;

  fastpath_gc_handle alloc(std::size_t nrefs, std::size_t ndata) {
    fastpath_gc_handle h;
    check(fastpath_gc_alloc(m_, nrefs, ndata, &h));
    return h;
  }
  /** An object whose layout word is in the tagged form, carrying `tag` (a
   * class index; fastpath_gc_alloc_tagged, which defines the tag's counts
   * if nothing has). */
  fastpath_gc_handle alloc_tagged(std::size_t nrefs, std::size_t ndata, std::uint32_t tag) {
    fastpath_gc_handle h;
    check(fastpath_gc_alloc_tagged(m_, nrefs, ndata, tag, &h));
    return h;
  }
  /** The tag of an object allocated tagged; none for one allocated untagged. */
  std::optional<std::uint32_t> tag(fastpath_gc_handle obj) {
    bool tagged = false;
    std::uint32_t t = 0;
    check(fastpath_gc_tag(m_, obj, &tagged, &t));
    return tagged ? std::optional<std::uint32_t>(t) : std::nullopt;
  }
  /** The object's reference and data word counts. */
  std::pair<std::size_t, std::size_t> shape(fastpath_gc_handle obj) {
    std::size_t nrefs = 0, ndata = 0;
    check(fastpath_gc_shape(m_, obj, &nrefs, &ndata));
    return {nrefs, ndata};
  }
  fastpath_gc_handle load(fastpath_gc_handle obj, std::size_t i) {
    fastpath_gc_handle h;
    check(fastpath_gc_load(m_, obj, i, &h));
    return h;
  }
  void store(fastpath_gc_handle obj, std::size_t i, fastpath_gc_handle value) {
    check(fastpath_gc_store(m_, obj, i, value));
  }
  /** Swaps reference field `i` from `expected` to `desired`; whether it did. */
  bool cas(fastpath_gc_handle obj, std::size_t i, fastpath_gc_handle expected, fastpath_gc_handle desired) {
    bool swapped = false;
    check(fastpath_gc_cas(m_, obj, i, expected, desired, &swapped));
    return swapped;
  }
  /** Whether `a` and `b` are the same object (either may be FASTPATH_GC_NULL). */
  bool same(fastpath_gc_handle a, fastpath_gc_handle b) {
    bool out = false;
    check(fastpath_gc_same(m_, a, b, &out));
    return out;
  }
  uintptr_t read(fastpath_gc_handle obj, std::size_t j) {
    uintptr_t v;
    check(fastpath_gc_read(m_, obj, j, &v));
    return v;
  }
  void write(fastpath_gc_handle obj, std::size_t j, uintptr_t v) { check(fastpath_gc_write(m_, obj, j, v)); }
  void collect() { check(fastpath_gc_collect(m_)); }
  fastpath_gc_mutator *native() noexcept { return m_; }

 private:
  fastpath_gc_mutator *m_ = nullptr;
};

/** Pops, at the end of its scope, the handles pushed during it. */
class GcScope {
 public:
  explicit GcScope(GcMutator &m) : m_(m) { check(fastpath_gc_roots_len(m_.native(), &mark_)); }
  ~GcScope() { (void)fastpath_gc_roots_truncate(m_.native(), mark_); }
  GcScope(const GcScope &) = delete;
  GcScope &operator=(const GcScope &) = delete;

 private:
  GcMutator &m_;
  std::size_t mark_ = 0;
};

/** Holds a heap object's lock (the object is pinned meanwhile). */
class GcLock {
 public:
  GcLock(GcMutator &m, fastpath_gc_handle obj) { check(fastpath_gc_lock(m.native(), obj, &l_)); }
  ~GcLock() { (void)fastpath_gc_unlock(l_); }
  GcLock(const GcLock &) = delete;
  GcLock &operator=(const GcLock &) = delete;

 private:
  fastpath_gc_object_lock *l_ = nullptr;
};

class CodeCache;

/** Installed code, freed from its cache when destroyed. Movable. */
class CodeEntry {
 public:
  CodeEntry(CodeEntry &&o) noexcept : cache_(o.cache_), entry_(std::exchange(o.entry_, nullptr)) {}
  CodeEntry &operator=(CodeEntry &&o) noexcept {
    if (this != &o) {
      reset();
      cache_ = o.cache_;
      entry_ = std::exchange(o.entry_, nullptr);
    }
    return *this;
  }
  CodeEntry(const CodeEntry &) = delete;
  CodeEntry &operator=(const CodeEntry &) = delete;
  ~CodeEntry() { reset(); }

  const void *address() const noexcept { return fastpath_code_entry_addr(entry_); }
  std::size_t size() const noexcept { return fastpath_code_entry_len(entry_); }
  /** The entry as a function pointer of type `F` (the caller vouches for it). */
  template <class F>
  F as() const noexcept {
    return reinterpret_cast<F>(const_cast<void *>(address()));
  }
  void patch(std::size_t offset, const void *bytes, std::size_t len) {
    check(fastpath_code_patch(cache_, entry_, offset, static_cast<const uint8_t *>(bytes), len));
  }
  /** Frees the code now (no thread may be running it). */
  void free() {
    if (entry_) {
      check(fastpath_code_free(cache_, entry_));
      entry_ = nullptr;
    }
  }

 private:
  friend class CodeCache;
  CodeEntry(fastpath_code_cache *c, fastpath_code_entry *e) noexcept : cache_(c), entry_(e) {}
  void reset() noexcept {
    if (entry_) (void)fastpath_code_free(cache_, entry_);
    entry_ = nullptr;
  }
  fastpath_code_cache *cache_;
  fastpath_code_entry *entry_;
};

/** Owns a code cache. Its entries must be destroyed before it is. */
class CodeCache {
 public:
  explicit CodeCache(std::size_t capacity) { check(fastpath_code_cache_new(capacity, &cache_)); }
  CodeCache(std::size_t capacity, const char *icache_sync) {
    check(fastpath_code_cache_new_with_strategy(capacity, icache_sync, &cache_));
  }
  ~CodeCache() { (void)fastpath_code_cache_free(cache_); }
  CodeCache(const CodeCache &) = delete;
  CodeCache &operator=(const CodeCache &) = delete;

  CodeEntry install(const void *code, std::size_t len) {
    fastpath_code_entry *e = nullptr;
    check(fastpath_code_install(cache_, static_cast<const uint8_t *>(code), len, &e));
    return CodeEntry(cache_, e);
  }
  fastpath_code_cache_info info() const {
    fastpath_code_cache_info i;
    check(fastpath_code_cache_get_info(cache_, &i));
    return i;
  }
  /** Makes patches visible to every thread; returns the guarantee. */
  static fastpath_publish_guarantee publish() {
    fastpath_publish_guarantee g;
    check(fastpath_code_publish(&g));
    return g;
  }
  fastpath_code_cache *native() noexcept { return cache_; }

 private:
  fastpath_code_cache *cache_ = nullptr;
};

}  // namespace fastpath

#endif
