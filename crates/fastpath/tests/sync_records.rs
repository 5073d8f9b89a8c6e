//! Lock records may live anywhere the caller keeps them, as long as they
//! stay pinned: on the stack, in a heap box, in the caller's own structure.
//! Legacy stack-locking must recognise its own records wherever they are.

use std::pin::pin;

use fastpath::sync::LockingMode;
use fastpath::sync::{self, enter_with_record, exit_with_record, holds_lock, Header, LockRecord};

#[test]
fn a_boxed_record_owns_its_stack_lock() {
    sync::set_current_thread_locking_mode(LockingMode::Legacy).unwrap();
    let h = pin!(Header::new());
    let rec = Box::pin(LockRecord::new());
    enter_with_record(h.as_ref(), rec.as_ref()).unwrap();
    assert!(holds_lock(&h), "the thread holds what its boxed record locked");
    let inner = Box::pin(LockRecord::new());
    enter_with_record(h.as_ref(), inner.as_ref()).unwrap();
    exit_with_record(h.as_ref(), inner.as_ref()).unwrap();
    assert!(holds_lock(&h));
    exit_with_record(h.as_ref(), rec.as_ref()).unwrap();
    assert!(!holds_lock(&h));
    let other = std::thread::scope(|s| s.spawn(|| holds_lock(&h)).join().unwrap());
    assert!(!other);
}
