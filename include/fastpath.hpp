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
 */
#ifndef FASTPATH_HPP
#define FASTPATH_HPP

#include <chrono>
#include <cstdint>
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
  ~LockGuard() { (void)fastpath_monitor_exit(h_.native()); }
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
