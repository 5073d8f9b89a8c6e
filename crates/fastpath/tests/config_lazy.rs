//! The lazy configuration path as an embedding runtime meets it, in a
//! process of its own (the configuration is process-wide): one bad
//! `FASTPATH_*` variable does not cost the valid ones, and racing first
//! callers report it once, to the runtime's hook rather than stderr.
//!
//! One test only: it sets environment variables before anything in this
//! process reads them.

use std::sync::{Arc, Barrier, Mutex};

use fastpath::config;
use fastpath::spin::SpinPause;
use fastpath::sync::LockingMode;

#[test]
fn a_bad_variable_is_reported_once_to_the_hook_and_the_rest_are_kept() {
    std::env::set_var("FASTPATH_LOCKING_MODE", "bogus");
    std::env::set_var("FASTPATH_SPIN_PAUSE", "none:4");
    std::env::set_var("FASTPATH_ICACHE_SYNC", "none");

    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = reports.clone();
    assert!(config::on_invalid_variable(move |e| sink
        .lock()
        .unwrap()
        .push(e.clone())));
    // The first hook stays.
    assert!(!config::on_invalid_variable(|_| panic!(
        "a second hook must not replace the first"
    )));

    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let seen: Vec<config::Config> = (0..threads)
        .map(|_| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                *config::global()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();

    let expected_pause: SpinPause = "none:4".parse().unwrap();
    for c in &seen {
        assert_eq!(c.locking_mode, LockingMode::Lightweight, "the bad one falls back");
        assert_eq!(c.spin_pause, expected_pause, "the valid ones are kept");
        assert_eq!(c.icache_sync, fastpath::code::ICacheSync::None);
    }
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].setting, "FASTPATH_LOCKING_MODE");
    assert_eq!(reports[0].value, "bogus");
    assert!(reports[0].accepted.contains(&"lightweight"));
    // The strict entry point now returns what is in force.
    assert_eq!(config::init().unwrap(), &seen[0]);
    println!(
        "{threads} racing first callers, {} report(s): {}",
        reports.len(),
        reports[0]
    );
}
