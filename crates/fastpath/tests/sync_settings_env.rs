//! `sync`'s tuning knobs start from their variables, and their setters
//! change them afterwards; in a process of its own (the starting values are
//! process-wide and read once).
//!
//! One test only: it sets the variables before anything in this process
//! reads them.

use std::time::Duration;

use fastpath::sync::{self, fast_lock_spin};

#[test]
fn the_knobs_start_from_their_variables_and_the_setters_win() {
    std::env::set_var("FASTPATH_FAST_LOCKING_SPINS", "5");
    std::env::set_var("FASTPATH_FAST_LOCKING_YIELDS", "2");
    std::env::set_var("FASTPATH_DEFLATION_INTERVAL_MS", "100");
    std::env::set_var("FASTPATH_DEFLATION_THRESHOLD", "50");
    std::env::set_var("FASTPATH_WAIT_SPIN_NS", "1234");

    assert_eq!(fast_lock_spin::fast_locking_spins(), 5);
    assert_eq!(fast_lock_spin::fast_locking_yields(), 2);
    assert_eq!(sync::wait_spin::wait_spin_ns(), 1234);
    let policy = sync::deflation_policy();
    assert_eq!(policy.interval, Duration::from_millis(100));
    assert_eq!(policy.used_threshold_percent, 50);
    // The rest of the policy is HotSpot's.
    assert_eq!(
        policy.guaranteed_interval,
        sync::DeflationPolicy::HOTSPOT.guaranteed_interval
    );

    fast_lock_spin::set_fast_locking_spins(7).unwrap();
    fast_lock_spin::set_fast_locking_yields(0).unwrap();
    assert_eq!(fast_lock_spin::fast_locking_spins(), 7);
    assert_eq!(fast_lock_spin::fast_locking_yields(), 0);
    sync::wait_spin::set_wait_spin_ns(0).unwrap();
    assert_eq!(sync::wait_spin::wait_spin_ns(), 0);
    sync::set_deflation_policy(sync::DeflationPolicy::HOTSPOT);
    assert_eq!(sync::deflation_policy(), sync::DeflationPolicy::HOTSPOT);

    // The configuration keeps the starting values.
    let c = fastpath::config::global();
    assert_eq!(
        (
            c.fast_locking_spins.0,
            c.fast_locking_yields.0,
            c.deflation_interval_ms.0,
            c.deflation_threshold.0,
            c.wait_spin_ns.0
        ),
        (5, 2, 100, 50, 1234)
    );
}
