//! The Cranelift forms of `fastpath jit`'s loops: the same loops as
//! [`super::code`], built as CLIF with fastpath-cranelift's emitters in the
//! body, compiled by cranelift-codegen (`opt_level=speed`) and installed
//! with their relocations in fastpath's `CodeCache` by
//! `fastpath_cranelift::install`.
//!
//! Where it sits: beside [`super::code`]; only the fast paths
//! fastpath-cranelift emits have a Cranelift row (lightweight monitor
//! enter/exit, the poll and the SATB and LRB idle tests); the other rows
//! say so.
//!
//! The lock loops: `lock_enter`, `*aux += 1` (a plain load, add and store,
//! which Cranelift's x64 backend fuses into the template's `add qword
//! [aux], 1`), `lock_exit`, their slow paths
//! `fastpath_jit::slow::monitor_enter`/`monitor_exit` called from cold
//! blocks (the exit's status unused, as the template's stub drops it). The
//! churn loop copies the prototype word into a 16-byte explicit stack slot
//! each trip and locks that slot, as the template's `[rsp]` slot.
//!
//! ```text
//! entry(thread, obj, aux, n, proto): brif n, loop(n, 0), exit(0)
//! loop(i, acc):  <body>; i' = i - 1; brif i', loop(i', acc'), exit(acc')
//! exit(acc):     (loads: store acc to *aux); return
//! ```

use cranelift_codegen::ir::{
    types::I32, types::I64, AbiParam, Function, InstBuilder, MemFlagsData, Signature, StackSlotData,
    StackSlotKind, UserFuncName,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::{slow, LockStackLayout, ThreadLayout};

use super::code::{Body, LoopFn};

/// A Cranelift-compiled loop, installed; callable while this lives.
pub struct Compiled {
    entry: Entry,
    _cache: CodeCache,
}

impl Compiled {
    /// The loop as a function.
    pub fn func(&self) -> LoopFn {
        // SAFETY: `compile` builds a function of the `LoopFn` signature
        // (five i64 parameters, SystemV, no result), installed in `_cache`,
        // which lives as long as `self`.
        unsafe { self.entry.as_fn::<LoopFn>() }
    }
}

/// Whether fastpath-cranelift emits `body`'s fast path.
pub fn has(body: Body) -> bool {
    matches!(
        body,
        Body::LockPair | Body::LockChurn | Body::Poll | Body::SatbStore | Body::LrbLoad
    )
}

/// Import indices of the lock loops' slow paths (index 0 is the counted
/// slow path, `code::count_slow_ptr`).
const ENTER: u32 = 1;
const EXIT: u32 = 2;

/// The address `install` links import `index` to.
fn resolve(index: u32) -> usize {
    match index {
        ENTER => slow::monitor_enter as *const () as usize,
        EXIT => slow::monitor_exit as *const () as usize,
        _ => super::code::count_slow_ptr(),
    }
}

/// Builds, compiles and installs `body`'s loop (one of [`has`]'s).
pub fn compile(body: Body) -> anyhow::Result<Compiled> {
    build(body, None)
}

/// The lock pair's loop ([`Body::LockPair`]) with the guessing emitters,
/// `lock_enter_guessing`/`lock_exit_guessing`, guessing `neutral` (the
/// `cranelift-guessing` row: the template-guessing row's counterpart).
pub fn compile_guessing(neutral: u64) -> anyhow::Result<Compiled> {
    build(Body::LockPair, Some(neutral))
}

/// `body`'s loop; a lock body's emitters guess `guess` when given.
fn build(body: Body, guess: Option<u64>) -> anyhow::Result<Compiled> {
    anyhow::ensure!(has(body), "fastpath-cranelift has no emitter for {body:?}");
    let layout = ThreadLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let lock_layout = LockStackLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let isa = fastpath_cranelift::host_isa();
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend((0..5).map(|_| AbiParam::new(I64)));
    let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let (entry, lp, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.append_block_params_for_function_params(entry);
    b.append_block_param(lp, I64);
    b.append_block_param(lp, I64);
    b.append_block_param(exit, I64);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (thread, obj, aux, n, proto) = (p[0], p[1], p[2], p[3], p[4]);
    // The churn loop's fresh header: 16 bytes, 8-aligned (a header word).
    let slot = (body == Body::LockChurn)
        .then(|| b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3)));
    let zero = b.ins().iconst(I64, 0);
    b.ins()
        .brif(n, lp, &[n.into(), zero.into()], exit, &[zero.into()]);

    b.switch_to_block(lp);
    let (i, acc) = (b.block_params(lp)[0], b.block_params(lp)[1]);
    let slow = fastpath_cranelift::import_slow_path(&mut b, 0, 2, false);
    // Plain (not atomic) accesses of the loop's own memory, as the dynasm
    // loops' `mov`s: nothing else touches it while the loop runs.
    let flags = MemFlagsData::trusted();
    let acc2 = match body {
        Body::LockPair | Body::LockChurn => {
            let enter = fastpath_cranelift::import_slow_path(&mut b, ENTER, 2, false);
            let exit = fastpath_cranelift::import_slow_path_with_result(&mut b, EXIT, 2, I32, false);
            let target = match slot {
                Some(slot) => {
                    let word = b.ins().load(I64, flags, proto, 0);
                    b.ins().stack_store(I64, word, slot, 0);
                    b.ins().stack_addr(I64, slot, 0)
                }
                None => obj,
            };
            match guess {
                Some(neutral) => fastpath_cranelift::lock_enter_guessing(
                    &mut b,
                    thread,
                    target,
                    neutral,
                    &lock_layout,
                    enter,
                ),
                None => fastpath_cranelift::lock_enter(&mut b, thread, target, &lock_layout, enter),
            }
            let c = b.ins().load(I64, flags, aux, 0);
            let c1 = b.ins().iadd_imm_s(c, 1);
            b.ins().store(flags, c1, aux, 0);
            // The status (1: not held) is dropped, as the template's stub
            // drops it; the lab's tests check the header after the loop.
            match guess {
                Some(neutral) => fastpath_cranelift::lock_exit_guessing(
                    &mut b,
                    thread,
                    target,
                    neutral,
                    &lock_layout,
                    exit,
                ),
                None => fastpath_cranelift::lock_exit(&mut b, thread, target, &lock_layout, exit),
            };
            acc
        }
        Body::Poll => {
            // The emitter passes the thread alone; the slow path's second
            // argument is whatever the register holds (unused).
            let slow1 = fastpath_cranelift::import_slow_path(&mut b, 0, 1, false);
            fastpath_cranelift::safepoint_poll(&mut b, thread, &layout, slow1);
            acc
        }
        Body::SatbStore => {
            // The SATB emitter takes the previous value (enqueued while
            // marking): loaded first, as its contract asks.
            let previous = b.ins().load(I64, flags, obj, 8);
            fastpath_cranelift::satb_pre_barrier(&mut b, thread, previous, &layout, slow);
            b.ins().store(flags, aux, obj, 8);
            acc
        }
        Body::LrbLoad => {
            let r = b.ins().load(I64, flags, obj, 8);
            fastpath_cranelift::lrb_idle_test(&mut b, thread, r, &layout, slow);
            let d = b.ins().load(I64, flags, r, 16);
            b.ins().iadd(acc, d)
        }
        _ => unreachable!("checked by `has`"),
    };
    let i2 = b.ins().iadd_imm_s(i, -1);
    b.ins()
        .brif(i2, lp, &[i2.into(), acc2.into()], exit, &[acc2.into()]);

    b.switch_to_block(exit);
    let total = b.block_params(exit)[0];
    if body == Body::LrbLoad {
        b.ins().store(flags, total, aux, 0);
    }
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());

    let cache = CodeCache::new(4096).map_err(|e| anyhow::anyhow!("code cache: {e}"))?;
    let entry = fastpath_cranelift::install(&cache, &*isa, func, resolve)
        .map_err(|e| anyhow::anyhow!("cranelift {body:?} loop: {e}"))?;
    Ok(Compiled { entry, _cache: cache })
}

#[cfg(test)]
mod tests {
    use super::super::fixture::Fixture;
    use super::*;
    use fastpath::sync::{self, LockState};

    /// The Cranelift lock loops run `n` pairs: the counter is incremented
    /// once per pair, and the header (the prototype for churn) is unlocked
    /// and not on this thread's lock-stack after each run; the recursive
    /// loop's pairs leave the Rust-held lock held until Rust releases it.
    #[test]
    fn lock_loops_count_every_pair_and_leave_the_header_unlocked() {
        for (body, hold, guessing) in [
            (Body::LockPair, false, false),
            (Body::LockPair, true, false),
            (Body::LockChurn, false, false),
            (Body::LockPair, false, true),
        ] {
            let mut f = if guessing {
                Fixture::cranelift_guessing().unwrap()
            } else {
                Fixture::new(body, true, hold).unwrap()
            };
            for round in 1..=2u64 {
                f.run(1000);
                assert_eq!(*f.counter, 1000 * round, "{body:?} hold={hold}");
                assert_eq!(f.header.lock_state(), LockState::Unlocked, "{body:?} hold={hold}");
                assert!(
                    !sync::holds_lock(f.header.as_ref().get_ref()),
                    "{body:?} hold={hold}"
                );
                assert_eq!(f.proto.lock_state(), LockState::Unlocked, "{body:?}");
            }
            // The header still locks and unlocks from Rust afterwards.
            let g = sync::lock(f.header.as_ref());
            assert!(sync::holds_lock(f.header.as_ref().get_ref()));
            drop(g);
            assert_eq!(f.header.lock_state(), LockState::Unlocked);
        }
    }

    /// The recursive loop's pairs on a header held from Rust: after them
    /// the header is still fast-locked by this thread, released by Rust.
    #[test]
    fn recursive_pairs_keep_the_rust_lock() {
        let mut f = Fixture::new(Body::LockPair, true, false).unwrap();
        let header: *const fastpath::sync::Header = &*f.header;
        // SAFETY: the fixture's header is pinned in its box, which lives
        // (unmoved) until `f` drops at the end of this test, after `h`'s
        // last use.
        let h = unsafe { std::pin::Pin::new_unchecked(&*header) };
        let g = sync::lock(h);
        f.run(100);
        assert_eq!(h.lock_state(), LockState::FastLocked);
        assert!(sync::holds_lock(h.get_ref()));
        assert_eq!(*f.counter, 100);
        drop(g);
        assert_eq!(h.lock_state(), LockState::Unlocked);
        assert!(!sync::holds_lock(h.get_ref()));
    }
}
