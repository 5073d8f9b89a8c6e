//! The pairs table's `cranelift-guessing` row: the lock pair a Cranelift
//! JIT emits with fastpath-cranelift's guessing emitters
//! (`lock_enter_guessing`, `lock_exit_guessing`, guessing the neutral word
//! of `Header::new()`), in a loop compiled by cranelift-codegen
//! (`opt_level=speed`) and installed in fastpath's `CodeCache`.
//!
//! Where it sits: beside the Rust rows of [`super`]'s pairs table, timed
//! interleaved with parking_lot's and std's pairs, so that the emitted
//! pair's ratio to the peers is read in one run. (`fastpath jit --only
//! locks` times the loaded emitters, `lock_enter`/`lock_exit`, around a
//! counter increment.)
//!
//! ```text
//! entry(thread, obj, n): brif n, loop(n), done
//! loop(i):  lock_enter_guessing; lock_exit_guessing; i' = i - 1; brif i', loop(i'), done
//! done:     return
//! ```

use std::pin::Pin;

use cranelift_codegen::ir::{types::I64, AbiParam, Function, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::Header;
use fastpath_jit::slow::LibraryPath;
use fastpath_jit::LockStackLayout;

/// `extern "C" fn(thread, obj, n)`: `n` pairs on `obj`.
type PairLoop = unsafe extern "C" fn(*const fastpath::thread::ThreadBlock, *const Header, u64);

/// The compiled loop, installed; callable while this lives.
pub struct ClifPair {
    entry: Entry,
    _cache: CodeCache,
}

/// The slow paths' import indices.
const ENTER: u32 = 0;
const EXIT: u32 = 1;

impl ClifPair {
    /// Builds, compiles and installs the loop.
    pub fn compile() -> anyhow::Result<ClifPair> {
        let layout = LockStackLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
        let neutral = Header::new().raw() as u64;
        let isa = fastpath_cranelift::host_isa();
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.extend((0..3).map(|_| AbiParam::new(I64)));
        let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, lp, done) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        b.append_block_param(lp, I64);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let (thread, obj, n) = (p[0], p[1], p[2]);
        b.ins().brif(n, lp, &[n.into()], done, &[]);

        b.switch_to_block(lp);
        let i = b.block_params(lp)[0];
        let enter =
            fastpath_cranelift::import_library_slow_path(&mut b, ENTER, LibraryPath::MonitorEnter, false);
        let exit =
            fastpath_cranelift::import_library_slow_path(&mut b, EXIT, LibraryPath::MonitorExit, false);
        fastpath_cranelift::lock_enter_guessing(&mut b, thread, obj, neutral, &layout, enter);
        // The status (1: not held) is dropped, as the template loops drop
        // it; `run`'s caller checks the header after the loop.
        fastpath_cranelift::lock_exit_guessing(&mut b, thread, obj, neutral, &layout, exit);
        let i2 = b.ins().iadd_imm_s(i, -1);
        b.ins().brif(i2, lp, &[i2.into()], done, &[]);

        b.switch_to_block(done);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());

        let cache = CodeCache::new(4096).map_err(|e| anyhow::anyhow!("code cache: {e}"))?;
        let entry = fastpath_cranelift::install(&cache, &*isa, func, |index| match index {
            ENTER => LibraryPath::MonitorEnter.addr(),
            _ => LibraryPath::MonitorExit.addr(),
        })
        .map_err(|e| anyhow::anyhow!("cranelift lock pair loop: {e}"))?;
        Ok(ClifPair { entry, _cache: cache })
    }

    /// `n` pairs on `h`, on the calling thread.
    pub fn run(&self, h: Pin<&Header>, n: u64) {
        // SAFETY: `compile` built a function of the `PairLoop` signature,
        // installed in `_cache` (alive with `self`); it is called with the
        // calling thread's block and a live pinned header.
        unsafe {
            let f: PairLoop = self.entry.as_fn();
            f(fastpath::thread::current().as_ptr(), h.get_ref(), n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastpath::sync::{self, LockState};

    /// The loop takes and releases the lock `n` times: the header is
    /// unlocked and not held after each run, fresh or hashed (the guess
    /// missing, so every pair takes the second CAS), and inside an outer
    /// Rust hold the pairs are recursive and leave it held.
    #[test]
    fn the_loop_leaves_the_header_as_it_found_it() {
        let pair = ClifPair::compile().unwrap();
        let h = Box::pin(Header::new());
        // The thread's first lock registers it (the loop's slow path would).
        sync::enter(h.as_ref());
        sync::exit(h.as_ref()).unwrap();
        pair.run(h.as_ref(), 1000);
        assert_eq!(h.raw(), Header::new().raw());
        let hash = sync::identity_hash(&h);
        pair.run(h.as_ref(), 1000);
        assert_eq!(
            (h.lock_state(), sync::identity_hash(&h)),
            (LockState::Unlocked, hash)
        );
        let outer = sync::lock(h.as_ref());
        pair.run(h.as_ref(), 1000);
        assert!(sync::holds_lock(&h));
        drop(outer);
        assert!(!sync::holds_lock(&h));
    }
}
