// The C++ RAII wrappers of fastpath.hpp: a lock guard used from several
// std::threads with wait/notify, errors as exceptions, record lock guards
// in legacy mode, a GC heap/mutator/scope/lock, and a code-cache owner
// whose entries free themselves (x86-64 machine code).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "fastpath.hpp"

static unsigned long checks;
#define CHECK(cond)                                                                    \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
      std::exit(1);                                                                    \
    }                                                                                  \
    checks++;                                                                          \
  } while (0)

struct Account {
  fastpath::Header header;
  long balance = 0;
};

int main() {
  Account account;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      fastpath_block *self = fastpath_thread_block();
      for (int i = 0; i < 5000; i++) {
        // Odd threads through the inline pair, every other lock.
        if (t % 2 == 1 && i % 2 == 0) {
          fastpath::LockGuard g(account.header, self);
          account.balance++;
          if (account.balance == 20000) g.notify_all();
        } else {
          fastpath::LockGuard g(account.header);
          account.balance++;
          if (account.balance == 20000) g.notify_all();
        }
      }
    });
  {
    fastpath::LockGuard g(account.header);
    g.wait_until([&] { return account.balance == 20000; });
    CHECK(account.header.held_by_current_thread());
    CHECK(!g.wait(std::chrono::microseconds(100)));  // timed out, lock held again
    CHECK(account.header.held_by_current_thread());
  }
  for (auto &t : threads) t.join();
  CHECK(account.balance == 20000);
  CHECK(!account.header.held_by_current_thread());
  CHECK(account.header.identity_hash() != 0);

  // Errors are exceptions with the status.
  try {
    fastpath::check(fastpath_monitor_exit(account.header.native()));
    CHECK(false);
  } catch (const fastpath::Error &e) {
    CHECK(e.status() == FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
  }

  // Legacy stack-locks whose records live in the guards, from 2 threads
  // in legacy mode (so they contend and inflate through INFLATING).
  {
    Account shared;
    std::vector<std::thread> legacy;
    for (int t = 0; t < 2; t++)
      legacy.emplace_back([&] {
        fastpath::check(fastpath_set_thread_locking_mode(FASTPATH_LOCKING_LEGACY));
        for (int i = 0; i < 5000; i++) {
          fastpath::RecordLockGuard g(shared.header);
          fastpath::RecordLockGuard nested(shared.header);  // recursion: a second record
          shared.balance++;
        }
      });
    for (auto &t : legacy) t.join();
    CHECK(shared.balance == 10000);
    CHECK(!shared.header.held_by_current_thread());
  }

  // A GC heap with an initial size: its soft capacity starts there.
  {
    fastpath::GcHeap sized(8u << 20, "shenandoah", "passive", false, 2u << 20);
    CHECK(sized.stats().capacity_bytes == (2u << 20));
    CHECK(sized.cell_format() == FASTPATH_GC_CELL_FORMAT_COMPACT);
  }

  // A GC heap: a 100-node list, built in a scope that pops its temporaries,
  // survives collections; a node can be locked.
  {
    fastpath::GcHeap heap(8u << 20, "g1", "passive", true);
    {
      fastpath::GcMutator m(heap);
      fastpath_gc_handle head = m.alloc(1, 1);
      {
        fastpath::GcScope scope(m);
        fastpath_gc_handle prev = head;
        for (uintptr_t i = 1; i < 100; i++) {
          fastpath_gc_handle n = m.alloc(1, 1);
          m.write(n, 0, i);
          m.store(prev, 0, n);
          prev = n;
          m.alloc(0, 40);  // garbage
        }
      }
      m.collect();
      m.collect();
      uintptr_t i = 0;
      {
        fastpath::GcScope scope(m);
        for (fastpath_gc_handle n = head; n != FASTPATH_GC_NULL; n = m.load(n, 0)) CHECK(m.read(n, 0) == i++);
      }
      CHECK(i == 100);
      fastpath::GcLock lock(m, head);
      m.collect();  // the locked head is pinned, the rest may move
      CHECK(m.read(head, 0) == 0);
    }
    CHECK(heap.stats().cycles == 3 && heap.stats().verify_errors == 0);
  }

  // Tagged objects keep their tags through collections; an untagged one has
  // none; a tag out of range is an error; reference CAS and identity.
  {
    fastpath::GcHeap heap(8u << 20, "shenandoah", "passive", true);
    fastpath::GcMutator m(heap);
    fastpath_gc_handle tagged = m.alloc_tagged(2, 3, 123456u);
    fastpath_gc_handle plain = m.alloc(1, 0);
    for (int i = 0; i < 50; i++) {
      fastpath::GcScope scope(m);
      m.alloc_tagged(1, 1, 7u);  // garbage
    }
    m.collect();
    CHECK(m.tag(tagged) == std::optional<std::uint32_t>(123456u));
    CHECK(!m.tag(plain).has_value());
    CHECK(m.shape(tagged) == std::make_pair(std::size_t{2}, std::size_t{3}));
    try {
      m.alloc_tagged(1, 1, FASTPATH_GC_MAX_LAYOUT_TAG + 1u);
      CHECK(false);
    } catch (const fastpath::Error &e) {
      CHECK(e.status() == FASTPATH_ERR_INVALID_ARGUMENT);
    }
    // A tag's counts are the heap's: defined once, kept.
    heap.define_tag(99u, 0, 2);
    heap.define_tag(99u, 0, 2);
    CHECK(m.shape(m.alloc_tagged(0, 2, 99u)) == std::make_pair(std::size_t{0}, std::size_t{2}));
    try {
      heap.define_tag(7u, 2, 2);  // 7 is (1, 1), by the allocations above
      CHECK(false);
    } catch (const fastpath::Error &e) {
      CHECK(e.status() == FASTPATH_ERR_INVALID_ARGUMENT);
    }
    CHECK(m.cas(tagged, 1, FASTPATH_GC_NULL, plain));
    CHECK(!m.cas(tagged, 1, FASTPATH_GC_NULL, tagged));
    CHECK(m.same(m.load(tagged, 1), plain));
    CHECK(!m.same(tagged, plain));
    m.collect();
    CHECK(m.same(m.load(tagged, 1), plain));
    CHECK(heap.stats().verify_errors == 0);
  }

#if defined(__x86_64__)
  fastpath::CodeCache cache(16 * 1024);
  {
    const unsigned char code[] = {0xB8, 42, 0, 0, 0, 0xC3};  // mov eax, 42; ret
    fastpath::CodeEntry f = cache.install(code, sizeof code);
    CHECK(f.as<unsigned (*)()>()() == 42);
    const uint32_t seven = 7;
    f.patch(1, &seven, 4);
    fastpath::CodeCache::publish();
    CHECK(f.as<unsigned (*)()>()() == 7);
    CHECK(cache.info().live_entries == 1);
    try {
      cache.install(code, 0);
      CHECK(false);
    } catch (const fastpath::Error &e) {
      CHECK(e.status() == FASTPATH_ERR_CODE_EMPTY);
    }
  }
  CHECK(cache.info().live_entries == 0);  // the entry freed itself
#endif
  std::printf("test_raii: passed %lu checks\n", checks);
  return 0;
}
