/* Configuration by name from C, in a fresh process (the configuration is
 * fixed at first use): unknown names are error codes with the accepted
 * values in the message; a valid choice made before first use is the one in
 * force; a different later one is refused.
 * `test_config --env`: the strict environment path with a bad variable. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

static void by_name(void) {
  CHECK_STATUS(fastpath_config_set("lightwieght", NULL, NULL), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "FASTPATH_LOCKING_MODE") != NULL);
  CHECK(strstr(fastpath_last_error(), "lightweight, legacy, monitor") != NULL);
  CHECK_STATUS(fastpath_config_set(NULL, NULL, "pasue"), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "FASTPATH_SPIN_PAUSE") != NULL);
  CHECK_STATUS(fastpath_config_set(NULL, NULL, "pause:100"), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK_STATUS(fastpath_config_set(NULL, "clfush", NULL), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "FASTPATH_ICACHE_SYNC") != NULL);
  CHECK_STATUS(fastpath_config_set("\xff", NULL, NULL), FASTPATH_ERR_INVALID_ARGUMENT);
#if defined(__x86_64__)
  /* Known names the CPU may lack: refused as unsupported, or accepted. */
  fastpath_status s = fastpath_config_set(NULL, NULL, "tpause");
  CHECK(s == FASTPATH_ERR_UNSUPPORTED || s == FASTPATH_OK);
  if (s == FASTPATH_ERR_UNSUPPORTED) CHECK(strstr(fastpath_last_error(), "lacks") != NULL);
  const char *pause = "pause:2";
#else
  const char *pause = NULL;
#endif
  /* Nothing was installed by the refusals: this choice is the first. */
  CHECK_OK(fastpath_config_set("monitor", "none", pause));
  char buf[64];
  CHECK_OK(fastpath_config_get(buf, sizeof buf, NULL));
#if defined(__x86_64__)
  CHECK(strcmp(buf, "monitor none pause:2") == 0);
#endif
  CHECK_OK(fastpath_config_set("monitor", "none", pause)); /* the same again */
  CHECK_STATUS(fastpath_config_set(NULL, NULL, NULL), FASTPATH_ERR_ALREADY_CONFIGURED);
  CHECK_OK(fastpath_config_init()); /* keeps the one in force */

  /* A new thread runs the configured locking mode. */
  fastpath_locking_mode mode;
  CHECK_OK(fastpath_current_locking_mode(&mode));
  CHECK(mode == FASTPATH_LOCKING_MONITOR);
  fastpath_header h;
  CHECK_OK(fastpath_header_init(&h));
  CHECK_OK(fastpath_monitor_enter(&h));
  fastpath_lock_state st;
  CHECK_OK(fastpath_header_lock_state(&h, &st));
  CHECK(st == FASTPATH_INFLATED);
  CHECK_OK(fastpath_monitor_exit(&h));
  CHECK_OK(fastpath_header_destroy(&h));
  char name[16];
  CHECK_OK(fastpath_spin_pause_name(name, sizeof name, NULL));
#if defined(__x86_64__)
  CHECK(strcmp(name, "pause:2") == 0);
#endif
  report_passed("test_config");
}

static void from_environment(void) {
  /* The harness sets FASTPATH_SPIN_PAUSE=pasue. */
  CHECK_STATUS(fastpath_config_init(), FASTPATH_ERR_UNKNOWN_NAME);
  CHECK(strstr(fastpath_last_error(), "pasue") != NULL);
  report_passed("test_config --env");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--env") == 0)
    from_environment();
  else
    by_name();
  return 0;
}
