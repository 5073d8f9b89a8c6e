// The C++ RAII wrappers of fastpath.hpp: a lock guard used from several
// std::threads with wait/notify, errors as exceptions, and a code-cache
// owner whose entries free themselves (x86-64 machine code).
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
    threads.emplace_back([&] {
      for (int i = 0; i < 5000; i++) {
        fastpath::LockGuard g(account.header);
        account.balance++;
        if (account.balance == 20000) g.notify_all();
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
