//! Loom models of the guessed fast paths (`lock_stack.rs`: enter's CAS
//! expects a neutral word, exit's that word fast-locked, and a miss goes
//! on from the word the failed CAS found), racing what makes a guess
//! miss: a hash installed into the header while it is held or free, a
//! contender's monitor, spare bits the guess lacks. Run as the other
//! models (`RUSTFLAGS="--cfg loom" cargo test -p fastpath --release --lib
//! -- loom`). A lost hash, a lost increment (loom's `UnsafeCell` flags an
//! unordered access) or a thread that never gets the lock fails them.

use loom::sync::Arc;
use loom::thread;

use super::loom_tests::{model, Counted};
use super::*;

/// A guessed pair racing a hash and a second locker: the hash may land
/// while the header is free (the enter's guess misses) or while it is
/// held (the exit's does); the misses go on from the word found, so the
/// hash survives every interleaving and both increments happen under the
/// lock. An exit that stored its guessed word back instead of CASing
/// from the word found would drop the hash (the second `identity_hash`
/// would differ).
#[test]
fn loom_guessed_pair_races_a_hash() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            c2.bump();
            exit(c2.header.as_ref()).unwrap();
        });
        let hash = identity_hash(&c.header);
        enter(c.header.as_ref());
        c.bump();
        exit(c.header.as_ref()).unwrap();
        t.join().unwrap();
        assert_eq!(identity_hash(&c.header), hash, "a miss dropped the hash");
        assert_eq!(c.locked_get(), 2);
        // Unlocked, or a contender's monitor nobody owns.
        assert_ne!(c.header.lock_state(), LockState::FastLocked);
    });
}

/// A runtime's guess (`enter_guessing`) on objects with spare bits, right
/// for one thread and wrong for the other, racing each other: the wrong
/// guess misses (a failed CAS finding the other's fast-lock, or the
/// unlocked word with its spare bits) and still locks through the word it
/// found; the spare bits are never lost.
#[test]
fn loom_right_and_wrong_guesses_race() {
    model(|| {
        const SPARE: usize = 0b1010_00;
        let c = Arc::new(Counted::with_header(Header::with_spare_bits(SPARE)));
        let c2 = c.clone();
        let t = thread::spawn(move || {
            let right = Header::neutral_word(SPARE);
            enter_guessing(c2.header.as_ref(), right);
            c2.bump();
            exit_guessing(c2.header.as_ref(), right).unwrap();
        });
        let wrong = Header::neutral_word(0);
        enter_guessing(c.header.as_ref(), wrong);
        c.bump();
        exit_guessing(c.header.as_ref(), wrong).unwrap();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
        assert_eq!(c.header.spare_bits(), SPARE, "a miss dropped the spare bits");
        assert_ne!(c.header.lock_state(), LockState::FastLocked);
    });
}
