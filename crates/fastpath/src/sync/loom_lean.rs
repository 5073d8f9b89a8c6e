//! Loom models of the inline inflated paths: the flat
//! critical section (`Critical::section`, one word's parity) around an
//! enter that is only the owner CAS, and around an exit whose cold part
//! (a successor to wake) runs with the section handed to it, racing a
//! deflation pass that frees the monitor after its grace period (run as
//! the other models: `RUSTFLAGS="--cfg loom" cargo test -p fastpath
//! --release --lib -- loom`). A monitor freed while a thread still reads
//! it is a loom error; loom's `UnsafeCell` flags an unordered access to
//! the value.

use loom::sync::Arc;
use loom::thread;

use super::loom_tests::{bump_races_deflation, idle_monitor, model, Counted};

/// [`model`] with at least `bound` preemptions: some windows need more than
/// the suite's bound to be reached at all.
fn model_at_least(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(b.preemption_bound.map_or(bound, |env| env.max(bound)));
    b.check(f);
}
use super::*;

/// Registers the calling model thread (its first lock takes the slow
/// path, which registers it), so that its next lock of an inflated object
/// takes the inline path.
fn register_current() {
    let own = Box::pin(Header::new());
    enter(own.as_ref());
    exit(own.as_ref()).unwrap();
}

/// An inline enter (owner CAS only, no `contentions`) and its inline exit
/// vs deflation: either the CAS wins (the deflater's fails and it leaves
/// the monitor alone) or the deflater's marker makes the inline attempt
/// fail and the slow path finds the restored header.
#[test]
fn loom_inline_enter_races_deflation() {
    model(|| {
        bump_races_deflation(|c| {
            register_current();
            enter(c.header.as_ref());
            c.bump();
            exit(c.header.as_ref()).unwrap();
        });
    });
}

/// An inline exit that finds a contender queued and wakes it out of line,
/// its critical section handed to that cold part, vs a deflation pass: the
/// monitor may be deflated once the contender has it and lets it go, but
/// not freed while the exiting thread still looks at it. The window (the
/// contender takes the free monitor by itself, lets it go, and the pass
/// frees it, all between the exit's entry-list test and its wake-up) needs
/// 4 preemptions: at 3 this model did not notice the section dropped
/// before the cold part; at 4 it does (loom reports the freed monitor).
#[test]
fn loom_inline_exit_wake_races_deflation() {
    model_at_least(4, || {
        let c = Arc::new(Counted::new());
        idle_monitor(&c); // also registers this thread
        enter(c.header.as_ref()); // the inline path
        let a = {
            let c = c.clone();
            thread::spawn(move || {
                enter(c.header.as_ref()); // contends: spins or queues
                c.bump();
                exit(c.header.as_ref()).unwrap();
            })
        };
        let d = thread::spawn(|| deflate_idle_monitors().deflated);
        c.bump();
        exit(c.header.as_ref()).unwrap();
        a.join().unwrap();
        assert!(d.join().unwrap() <= 1);
        assert_eq!(c.locked_get(), 2);
    });
}
