//! Register-preserving stubs: `preserve_all` functions between compiled
//! code and the System V runtime functions it calls on cold paths that
//! join its hot ones (the safepoint poll's stop, a coarsened lock's
//! release), so that such a call destroys no register.
//!
//! Where it sits: `Jit::init` compiles one [`preserving_stub`] for each
//! helper whose [`Helper::call_conv`] is `preserve_all`, installs it in
//! the code cache and puts its address in the helper's table slot in
//! place of the runtime function's; the translator imports those helpers
//! with that convention (`Helper::import_signature`). Their calls are:
//! every poll `translate.rs` emits (method entries, loop back edges, a
//! leaf's calls) from its cold block and, with inline monitors, the
//! runtime exit of a coarsened lock's release (`Helper::SpanExit`,
//! `coarsen.rs`).
//!
//! Why: a loop's back edge polls, and the poll's stop joins the loop
//! again; a coarsened `synchronized` loop releases its lock once every few
//! dozen rounds, and that release's slow path joins the loop the same
//! way. Through a System V call, every value live around the loop would
//! have to sit in one of the four callee-saved registers the pinned
//! context register leaves, or in a stack slot reloaded on the hot path
//! too (Sieve's inner loop spilled its index and count, five stack
//! accesses an iteration; SyncCounter's coarsened loop its bound, the
//! rounds its lock was kept and the deferred object, fourteen). With a
//! call that clobbers nothing the cold path constrains no register.
//! HotSpot does the same: its poll's stub reaches `SafepointBlob`, which
//! saves every register (`sharedRuntime_x86_64.cpp`,
//! `generate_handler_blob`), and C1 calls its monitor slow paths through
//! the `monitorenter` and `monitorexit` runtime stubs, which save every
//! live register around the runtime call (`c1_Runtime1_x86.cpp`,
//! `save_live_registers`).
//!
//! A stub is compiled by Cranelift with the `preserve_all` convention
//! itself: its prologue saves every register it clobbers, the System V
//! call's clobbers included (the integer caller-saved registers and the
//! whole 128 bits of each vector register), so it keeps the promise on
//! x86-64 and AArch64 alike. That is some 60 instructions a call, paid
//! where the call is made: so a helper goes through a stub only where its
//! calls are rare (`Helper::call_conv` has the measurements), and a stub
//! whose runtime function only returns constants returns them itself
//! (the misses: a call and a return). `preserve_all` signatures cannot
//! return values (Cranelift's verifier), so a stub whose runtime function
//! returns some stores them in the caller's result block, whose address
//! is its last argument (`fastpath_cranelift::slow`'s convention, which
//! `fastpath_cranelift::call_slow` calls). A call that can reach a
//! safepoint is made as any other helper's: the frame published and its
//! references spilled before it, and reloaded after it by the caller (the
//! collector may have moved them); every other value is the same bits
//! after it.

use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, MemFlagsData, Signature, UserFuncName};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath_cranelift::slow::{MAX_RESULTS, RESULT_STRIDE};

use super::helpers::Helper;

/// The name space of the stubs' function names (the helper's index), apart
/// from the methods' (0), the imports' (1), the adapters' (2), the OSR
/// entries' (3) and the OSR adapters' (4).
const NAMESPACE: u32 = 5;

/// The stub of `h`, whose runtime function is the System V function at
/// `target` with `h`'s C signature ([`Helper::signature`]): a
/// `preserve_all` function with [`Helper::import_signature`] that calls
/// `target` with its arguments, stores its results (if any) in the result
/// block its last argument points to, and returns.
pub fn preserving_stub(h: Helper, target: usize, frontend: TargetFrontendConfig) -> Function {
    let (params, returns) = h.signature();
    assert!(returns.len() <= MAX_RESULTS, "{h:?}'s results");
    let (stub_params, stub_returns) = h.import_signature(CallConv::PreserveAll);
    debug_assert!(stub_returns.is_empty());
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params.extend(stub_params.iter().map(|&t| AbiParam::new(t)));
    let mut func = Function::with_name_signature(UserFuncName::user(NAMESPACE, h.index()), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let all = b.block_params(entry).to_vec();
    let (args, out) = all.split_at(params.len());
    let mut target_sig = Signature::new(CallConv::SystemV);
    target_sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    target_sig
        .returns
        .extend(returns.iter().map(|&t| AbiParam::new(t)));
    let sigref = b.import_signature(target_sig);
    let callee = b.ins().iconst(I64, target as i64);
    let call = b.ins().call_indirect(sigref, callee, args);
    let results = b.inst_results(call).to_vec();
    if let Some(&out) = out.first() {
        for (i, r) in results.into_iter().enumerate() {
            b.ins()
                .store(MemFlagsData::trusted(), r, out, RESULT_STRIDE * i as i32);
        }
    }
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(frontend);
    func
}

#[cfg(all(test, target_arch = "x86_64", not(windows)))]
mod tests {
    use super::*;
    use cranelift_codegen::ir::types::{F64, I32};
    use cranelift_codegen::ir::{ExtFuncData, ExternalName, UserExternalName};
    use fastpath::code::CodeCache;

    /// Integer and floating-point values live across the call: more than
    /// the callee-saved registers hold.
    const INTS: usize = 12;
    const FLOATS: usize = 8;

    /// `SpanExit`'s runtime function's shape, `(ctx, obj) -> u32`, that
    /// destroys every caller-saved general and vector register before
    /// returning `ctx * 3 + obj`.
    extern "C" fn clobbering_exit(ctx: u64, obj: u64) -> u32 {
        // SAFETY: writes only registers declared clobbered; touches no memory.
        unsafe {
            core::arch::asm!(
                "mov rax, -1", "mov rcx, -1", "mov rdx, -1", "mov rsi, -1", "mov rdi, -1",
                "mov r8, -1", "mov r9, -1", "mov r10, -1", "mov r11, -1",
                "pcmpeqd xmm0, xmm0", "pcmpeqd xmm1, xmm1", "pcmpeqd xmm2, xmm2", "pcmpeqd xmm3, xmm3",
                "pcmpeqd xmm4, xmm4", "pcmpeqd xmm5, xmm5", "pcmpeqd xmm6, xmm6", "pcmpeqd xmm7, xmm7",
                "pcmpeqd xmm8, xmm8", "pcmpeqd xmm9, xmm9", "pcmpeqd xmm10, xmm10", "pcmpeqd xmm11, xmm11",
                "pcmpeqd xmm12, xmm12", "pcmpeqd xmm13, xmm13", "pcmpeqd xmm14, xmm14", "pcmpeqd xmm15, xmm15",
                out("rax") _, out("rcx") _, out("rdx") _, out("rsi") _, out("rdi") _,
                out("r8") _, out("r9") _, out("r10") _, out("r11") _,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
                out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
            );
        }
        (ctx * 3 + obj) as u32
    }

    /// A caller `fn(ints, floats, ctx, obj) -> i64` compiled as the JIT
    /// calls a helper (`call_slow` on the `preserve_all` import): loads
    /// `INTS` words and `FLOATS` doubles, calls `SpanExit`'s stub, returns
    /// the status plus every word times its index plus the doubles' sum
    /// times their index, truncated.
    #[test]
    fn a_stub_keeps_every_register_and_returns_its_result_through_memory() {
        let isa = fastpath_cranelift::host_isa();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let h = Helper::SpanExit;
        let stub = preserving_stub(h, clobbering_exit as *const () as usize, isa.frontend_config());
        let stub = fastpath_cranelift::install(&cache, &*isa, stub, |_| 0).unwrap();

        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.extend([AbiParam::new(I64); 4]);
        sig.returns.push(AbiParam::new(I64));
        let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let a = b.block_params(entry).to_vec();
        let (params, returns) = h.import_signature(CallConv::PreserveAll);
        assert!(returns.is_empty());
        let mut import = Signature::new(CallConv::PreserveAll);
        import.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        let signature = b.import_signature(import);
        let name = b.func.declare_imported_user_function(UserExternalName {
            namespace: 1,
            index: h.index(),
        });
        let f = b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated: false,
            patchable: false,
        });
        let flags = MemFlagsData::trusted();
        let ints: Vec<_> = (0..INTS)
            .map(|i| b.ins().load(I64, flags, a[0], 8 * i as i32))
            .collect();
        let floats: Vec<_> = (0..FLOATS)
            .map(|i| b.ins().load(F64, flags, a[1], 8 * i as i32))
            .collect();
        let status = fastpath_cranelift::call_slow(&mut b, f, &[a[2], a[3]], &[I32])[0];
        let mut acc = b.ins().uextend(I64, status);
        for (i, v) in ints.into_iter().enumerate() {
            let k = b.ins().imul_imm_s(v, i as i64 + 1);
            acc = b.ins().iadd(acc, k);
        }
        let mut facc = b.ins().f64const(0.0);
        for (i, v) in floats.into_iter().enumerate() {
            let k = b.ins().f64const(i as f64 + 1.0);
            let m = b.ins().fmul(v, k);
            facc = b.ins().fadd(facc, m);
        }
        let t = b.ins().fcvt_to_sint_sat(I64, facc);
        let r = b.ins().iadd(acc, t);
        b.ins().return_(&[r]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
        let caller = fastpath_cranelift::install(&cache, &*isa, func, |i| {
            assert_eq!(i, h.index(), "the caller imports the stub only");
            stub.addr() as usize
        })
        .unwrap();

        let ints: Vec<i64> = (0..INTS as i64).map(|i| 3 + 5 * i).collect();
        let floats: Vec<f64> = (0..FLOATS).map(|i| 0.5 + i as f64).collect();
        // SAFETY: `caller` is the function compiled above with that
        // signature, and its stub is installed in the same cache.
        let run: extern "C" fn(*const i64, *const f64, u64, u64) -> i64 =
            unsafe { std::mem::transmute(caller.addr()) };
        let got = run(ints.as_ptr(), floats.as_ptr(), 7, 100);
        let mut want = 7 * 3 + 100;
        for (i, v) in ints.iter().enumerate() {
            want += v * (i as i64 + 1);
        }
        let fsum: f64 = floats.iter().enumerate().map(|(i, v)| v * (i as f64 + 1.0)).sum();
        want += fsum as i64;
        assert_eq!(
            got, want,
            "a value live across the stub's call was destroyed, or its result lost"
        );
    }
}
