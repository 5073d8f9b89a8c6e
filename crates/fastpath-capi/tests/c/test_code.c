/* The code cache from C on x86-64: install machine code, call it, patch it
 * while installed, batch-install, publish, and every refusal: NULL, empty,
 * oversized, full, out-of-bounds patch, an entry from another cache, an
 * unknown or unsupported strategy name. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "check.h"

#if !defined(__x86_64__)
#error "test_code.c installs x86-64 machine code"
#endif

typedef uint32_t (*ret_fn)(void);
typedef uint32_t (*add_fn)(uint32_t, uint32_t);

/* mov eax, imm32 ; ret */
static void mov_eax_ret(uint8_t code[6], uint32_t imm) {
  code[0] = 0xB8;
  memcpy(code + 1, &imm, 4);
  code[5] = 0xC3;
}

/* Casting an object pointer to a function pointer is what a JIT does;
 * POSIX guarantees it works (dlsym relies on it). */
static ret_fn as_ret(const fastpath_code_entry *e) {
  ret_fn f;
  const void *p = fastpath_code_entry_addr(e);
  memcpy(&f, &p, sizeof f);
  return f;
}

int main(void) {
  fastpath_code_cache *cache = NULL, *other = NULL;
  fastpath_code_entry *e = NULL;
  uint8_t code[6];

  CHECK_STATUS(fastpath_code_cache_new(64 * 1024, NULL), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_code_cache_new(64 * 1024, &cache));
  CHECK(cache != NULL);
  fastpath_code_cache_info info;
  CHECK_OK(fastpath_code_cache_get_info(cache, &info));
  CHECK(info.capacity >= 64 * 1024 && info.used == 0 && info.live_entries == 0);
  CHECK(info.alignment >= 16);
  CHECK_STATUS(fastpath_code_cache_get_info(NULL, &info), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_cache_get_info(cache, NULL), FASTPATH_ERR_NULL);

  char strategy[64];
  size_t needed = 0;
  CHECK_STATUS(fastpath_code_cache_strategy(cache, NULL, 0, &needed), FASTPATH_ERR_BUFFER_TOO_SMALL);
  CHECK(needed > 1 && needed <= sizeof strategy);
  CHECK_OK(fastpath_code_cache_strategy(cache, strategy, sizeof strategy, NULL));
  CHECK(strncmp(strategy, "auto", 4) == 0);
  CHECK_STATUS(fastpath_code_cache_strategy(NULL, strategy, sizeof strategy, NULL), FASTPATH_ERR_NULL);

  /* Install and call: mov eax, 42 ; ret. */
  mov_eax_ret(code, 42);
  CHECK_OK(fastpath_code_install(cache, code, sizeof code, &e));
  CHECK(fastpath_code_entry_len(e) == sizeof code);
  CHECK(((uintptr_t)fastpath_code_entry_addr(e) % info.alignment) == 0);
  CHECK(as_ret(e)() == 42);
  CHECK(fastpath_code_entry_addr(NULL) == NULL);
  CHECK(fastpath_code_entry_len(NULL) == 0);

  /* Patch the immediate (4 aligned-or-not bytes inside the entry). */
  uint32_t seven = 7;
  CHECK_OK(fastpath_code_patch(cache, e, 1, (const uint8_t *)&seven, 4));
  fastpath_publish_guarantee g;
  CHECK_OK(fastpath_code_publish(&g));
  CHECK(g == FASTPATH_PUBLISH_SYNC_CORE || g == FASTPATH_PUBLISH_MEMORY_BARRIER || g == FASTPATH_PUBLISH_NOTHING);
  CHECK_OK(fastpath_code_publish(NULL));
  CHECK_OK(fastpath_cross_modify_fence());
  CHECK(as_ret(e)() == 7);
  CHECK_STATUS(fastpath_code_patch(cache, e, 3, (const uint8_t *)&seven, 4), FASTPATH_ERR_CODE_OUT_OF_BOUNDS);
  CHECK_STATUS(fastpath_code_patch(cache, e, SIZE_MAX, (const uint8_t *)&seven, 4), FASTPATH_ERR_CODE_OUT_OF_BOUNDS);
  CHECK_STATUS(fastpath_code_patch(cache, e, 1, NULL, 4), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_patch(cache, NULL, 1, (const uint8_t *)&seven, 4), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_patch(NULL, e, 1, (const uint8_t *)&seven, 4), FASTPATH_ERR_NULL);
  /* A pointer that cannot be a handle (misaligned) is refused, not read. */
  CHECK_STATUS(fastpath_code_patch(cache, (const fastpath_code_entry *)(const void *)((const char *)e + 1), 1,
                                   (const uint8_t *)&seven, 4),
               FASTPATH_ERR_MISALIGNED);
  CHECK_STATUS(fastpath_code_cache_get_info((const fastpath_code_cache *)(const void *)((const char *)cache + 3), &info),
               FASTPATH_ERR_MISALIGNED);
  CHECK(as_ret(e)() == 7); /* refusals change nothing */

  /* A function with arguments: lea eax, [rdi + rsi] ; ret. */
  static const uint8_t add[] = {0x8D, 0x04, 0x37, 0xC3};
  fastpath_code_entry *add_entry = NULL;
  CHECK_OK(fastpath_code_install(cache, add, sizeof add, &add_entry));
  add_fn addf;
  const void *p = fastpath_code_entry_addr(add_entry);
  memcpy(&addf, &p, sizeof addf);
  CHECK(addf(20, 22) == 42);

  /* Refused installs. */
  fastpath_code_entry *none = (fastpath_code_entry *)1;
  CHECK_STATUS(fastpath_code_install(cache, code, 0, &none), FASTPATH_ERR_CODE_EMPTY);
  CHECK_STATUS(fastpath_code_install(cache, NULL, 6, &none), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_install(cache, code, sizeof code, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_install(NULL, code, sizeof code, &none), FASTPATH_ERR_NULL);
  uint8_t *huge = calloc(info.capacity + 1, 1);
  CHECK(huge != NULL);
  CHECK_STATUS(fastpath_code_install(cache, huge, info.capacity + 1, &none), FASTPATH_ERR_CODE_OVERSIZED);
  free(huge);
  CHECK(none == (fastpath_code_entry *)1); /* untouched on error */

  /* Batch: three functions, one sync. */
  uint8_t b1[6], b2[6], b3[6];
  mov_eax_ret(b1, 1);
  mov_eax_ret(b2, 2);
  mov_eax_ret(b3, 3);
  const uint8_t *blobs[3] = {b1, b2, b3};
  size_t lens[3] = {6, 6, 6};
  fastpath_code_entry *batch[3] = {NULL, NULL, NULL};
  CHECK_OK(fastpath_code_install_batch(cache, blobs, lens, 3, batch));
  for (int i = 0; i < 3; i++) CHECK(as_ret(batch[i])() == (uint32_t)i + 1);
  CHECK_OK(fastpath_code_install_batch(cache, blobs, lens, 0, NULL));
  size_t bad_lens[3] = {6, 0, 6};
  fastpath_code_entry *untouched[3] = {NULL, NULL, NULL};
  CHECK_STATUS(fastpath_code_install_batch(cache, blobs, bad_lens, 3, untouched), FASTPATH_ERR_CODE_EMPTY);
  CHECK(untouched[0] == NULL && untouched[2] == NULL); /* all or nothing */
  CHECK_STATUS(fastpath_code_install_batch(cache, NULL, lens, 3, untouched), FASTPATH_ERR_NULL);
  CHECK_OK(fastpath_code_cache_get_info(cache, &info));
  CHECK(info.live_entries == 5);

  /* A foreign entry: refused, and still valid in its own cache. */
  CHECK_OK(fastpath_code_cache_new_with_strategy(4096, "none", &other));
  CHECK_OK(fastpath_code_cache_strategy(other, strategy, sizeof strategy, NULL));
  CHECK(strncmp(strategy, "none", 4) == 0);
  CHECK_STATUS(fastpath_code_free(other, e), FASTPATH_ERR_FOREIGN_ENTRY);
  CHECK(strstr(fastpath_last_error(), "another code cache") != NULL);
  CHECK_STATUS(fastpath_code_patch(other, e, 1, (const uint8_t *)&seven, 4), FASTPATH_ERR_FOREIGN_ENTRY);
  CHECK(as_ret(e)() == 7);
  CHECK_OK(fastpath_code_free(cache, e));
  CHECK_STATUS(fastpath_code_free(cache, NULL), FASTPATH_ERR_NULL);
  CHECK_STATUS(fastpath_code_free(NULL, add_entry), FASTPATH_ERR_NULL);

  /* Fill a small cache until it is full, then free and reuse. */
  fastpath_code_entry *fill[256];
  int n = 0;
  fastpath_status s;
  while ((s = fastpath_code_install(other, code, sizeof code, &fill[n])) == FASTPATH_OK && n < 255) n++;
  CHECK(s == FASTPATH_ERR_CODE_FULL);
  CHECK(n >= 4096 / 256);
  CHECK_OK(fastpath_code_free(other, fill[0]));
  CHECK_OK(fastpath_code_install(other, code, sizeof code, &fill[0]));
  for (int i = 0; i < n; i++) CHECK_OK(fastpath_code_free(other, fill[i]));
  CHECK_OK(fastpath_code_cache_get_info(other, &info));
  CHECK(info.live_entries == 0 && info.used == 0);

  /* Strategy names: unknown → UNKNOWN_NAME with the accepted list;
   * serialize exists but may be missing on this CPU → UNSUPPORTED. */
  fastpath_code_cache *bad = (fastpath_code_cache *)1;
  CHECK_STATUS(fastpath_code_cache_new_with_strategy(4096, "clfush", &bad), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "accepted") != NULL);
  CHECK(bad == (fastpath_code_cache *)1);
  s = fastpath_code_cache_new_with_strategy(4096, "serialize", &bad);
  CHECK(s == FASTPATH_OK || s == FASTPATH_ERR_UNSUPPORTED);
  if (s == FASTPATH_OK) CHECK_OK(fastpath_code_cache_free(bad));
  CHECK_STATUS(fastpath_code_cache_new_with_strategy(4096, "dc-ic", &bad), FASTPATH_ERR_UNKNOWN_NAME);
  fastpath_code_cache *dflt = NULL;
  CHECK_OK(fastpath_code_cache_new_with_strategy(4096, NULL, &dflt));
  CHECK_OK(fastpath_code_cache_free(dflt));

  /* Destroying a cache with live entries: their handles are discarded. */
  for (int i = 0; i < 3; i++) CHECK_OK(fastpath_code_free(cache, batch[i]));
  CHECK_OK(fastpath_code_cache_free(cache));
  CHECK_OK(fastpath_code_entry_discard(add_entry));
  CHECK_OK(fastpath_code_entry_discard(NULL));
  CHECK_OK(fastpath_code_cache_free(other));
  CHECK_OK(fastpath_code_cache_free(NULL));
  report_passed("test_code");
  return 0;
}
