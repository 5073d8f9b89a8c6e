//! The x86-64 harness: a template run from fastpath's `CodeCache` with a
//! test thread block in the thread register and every other register set
//! to a known value, reporting the label reached and every register's
//! final value; and the iced-x86 checks of emitted code (registers written
//! ⊆ the declared clobbers, memory written, instruction counts and exits,
//! and what a slow-path stub saves around its call).

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::{Emit, EmitStub, Isa, Labels, SlowStub};
use iced_x86::{Decoder, DecoderOptions, FlowControl, Instruction, InstructionInfoFactory, OpAccess};

use super::block::TestThread;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    FellThrough,
    Done,
    Slow,
}

pub struct Outcome {
    pub reached: Reached,
    pub regs: [u64; 16],
}

fn initial(r: usize) -> u64 {
    0x5EED_0000_0000_0000 | (r as u64) << 8 | 0x11
}

/// Assembles harness + template (+ stub), installs it, runs it on
/// `thread`: the label reached and the registers after. Checks that every
/// register outside the clobbers (and the stub's unsaved caller-saved
/// registers and result) kept its value, and the thread register the
/// block.
pub fn run<T: Emit<X64Relocation>>(
    t: &T,
    thread_reg: Reg,
    thread: *mut TestThread,
    set: &[(Reg, u64)],
    stub: Option<&SlowStub>,
) -> Outcome {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let (slow, done) = (labels.slow, labels.done);
    let mut init = [0u64; 16];
    for (r, v) in init.iter_mut().enumerate() {
        *v = initial(r);
    }
    for &(r, v) in set {
        init[r.0 as usize] = v;
    }
    dynasm!(ops
        ; .arch x64
        ; push rbp ; push rbx ; push r12 ; push r13 ; push r14 ; push r15
        ; push rsi ; push 0 ; sub rsp, 8
        ; mov Rq(thread_reg.0), rdi
    );
    for r in 0..16u8 {
        if r != RSP.0 && r != thread_reg.0 {
            let v = init[r as usize] as i64;
            dynasm!(ops ; .arch x64 ; mov Rq(r), QWORD v);
        }
    }
    t.emit(&mut ops, labels).unwrap();
    dynasm!(ops ; .arch x64 ; mov QWORD [rsp + 8], 0 ; jmp >exit);
    if stub.is_none() {
        dynasm!(ops ; .arch x64 ; =>slow ; mov QWORD [rsp + 8], 2 ; jmp >exit);
    }
    dynasm!(ops
        ; .arch x64
        ; =>done ; mov QWORD [rsp + 8], 1
        ; exit:
        ; push rax
        ; mov rax, [rsp + 24]
    );
    for r in 1..16u8 {
        if r != RSP.0 {
            let off = 8 * r as i32;
            dynasm!(ops ; .arch x64 ; mov [rax + off], Rq(r));
        }
    }
    dynasm!(ops
        ; .arch x64
        ; pop rcx ; mov [rax], rcx
        ; add rsp, 8 ; pop rax ; add rsp, 8
        ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx ; pop rbp
        ; ret
    );
    if let Some(s) = stub {
        s.emit(&mut ops, slow, done).unwrap();
    }
    let code = ops.finalize().unwrap();
    let cache = CodeCache::new(64 * 1024).unwrap();
    let entry = cache.install(&code).unwrap();
    // SAFETY: the harness is a complete extern "C" fn(*mut TestThread, *mut
    // [u64; 16]) -> u64 that saves and restores every callee-saved register
    // and keeps rsp 16-aligned at the template and its stub.
    let f: extern "C" fn(*mut TestThread, *mut [u64; 16]) -> u64 = unsafe { entry.as_fn() };
    let mut regs = [0u64; 16];
    let label = f(thread, &mut regs);
    cache.free(entry).unwrap();
    let reached = match label {
        0 => Reached::FellThrough,
        1 => Reached::Done,
        2 => Reached::Slow,
        l => panic!("harness returned {l}"),
    };
    // Every register outside the clobbers (and the thread register, which
    // holds the block) kept its value.
    let mut expect_kept = RegSet(0xFFFF & !(1 << RSP.0) & !(1 << thread_reg.0) & !t.clobbers(Isa::X64).0);
    if let Some(s) = stub {
        expect_kept = RegSet(expect_kept.0 & (s.saved(Isa::X64).0 | !CALLER_SAVED.0));
        if let Some(r) = s.ret {
            expect_kept = RegSet(expect_kept.0 & !(1 << r.0));
        }
    }
    for r in expect_kept.iter() {
        assert_eq!(
            regs[r.0 as usize],
            init[r.0 as usize],
            "{} changed {r:?}",
            t.name()
        );
    }
    assert_eq!(regs[thread_reg.0 as usize], thread as u64);
    Outcome { reached, regs }
}

/// A memory write of decoded code.
pub struct MemWrite {
    /// Its mnemonic in lower case, `lock ` first if locked.
    pub mnemonic: String,
    /// The address's base register.
    pub base: Reg,
    pub locked: bool,
    /// The instruction, for messages.
    pub text: String,
}

/// Decoded code.
pub struct Decoded {
    pub insns: Vec<Instruction>,
    /// Registers written (all 64-bit general registers).
    pub written: RegSet,
    pub mem_writes: Vec<MemWrite>,
}

impl Decoded {
    pub fn count(&self) -> usize {
        self.insns.len()
    }
    /// The memory-writing instructions' mnemonics.
    pub fn mnemonics(&self) -> Vec<String> {
        self.mem_writes.iter().map(|m| m.mnemonic.clone()).collect()
    }
    /// The instruction count to each conditional branch (the exits when
    /// the branches are taken).
    pub fn exits(&self) -> Vec<usize> {
        (1..=self.insns.len())
            .filter(|&n| self.insns[n - 1].flow_control() == FlowControl::ConditionalBranch)
            .collect()
    }
}

fn is_write(a: OpAccess) -> bool {
    matches!(
        a,
        OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
    )
}

fn reg_of(r: iced_x86::Register) -> Reg {
    Reg(r.full_register().number() as u8)
}

/// Decodes `code` (at ip 0): every instruction valid, only 64-bit general
/// registers written, and those ⊆ `clobbers`.
pub fn decode_bytes(name: &str, code: &[u8], clobbers: RegSet) -> Decoded {
    let mut factory = InstructionInfoFactory::new();
    let (mut insns, mut mem_writes, mut written) = (Vec::new(), Vec::new(), RegSet::EMPTY);
    for insn in Decoder::with_ip(64, code, 0, DecoderOptions::NONE).iter() {
        assert!(!insn.is_invalid(), "{name}: undecodable bytes");
        let info = factory.info(&insn);
        for u in info.used_registers() {
            if is_write(u.access()) {
                let full = u.register().full_register();
                assert!(full.is_gpr64(), "{name}: writes {:?}", u.register());
                written = written.with(reg_of(u.register()));
            }
        }
        for m in info.used_memory() {
            if is_write(m.access()) {
                let lock = if insn.has_lock_prefix() { "lock " } else { "" };
                mem_writes.push(MemWrite {
                    mnemonic: format!("{lock}{:?}", insn.mnemonic()).to_lowercase(),
                    base: reg_of(m.base()),
                    locked: insn.has_lock_prefix(),
                    text: insn.to_string(),
                });
            }
        }
        insns.push(insn);
    }
    assert!(
        written.is_subset(clobbers),
        "{name} writes {written:?}, declares {clobbers:?}"
    );
    Decoded {
        insns,
        written,
        mem_writes,
    }
}

/// The bytes `emit` writes, with `slow` and `done` bound after them (not
/// included).
pub fn emitted(emit: impl FnOnce(&mut VecAssembler<X64Relocation>, Labels)) -> Vec<u8> {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    emit(&mut ops, labels);
    let end = ops.offset().0;
    dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; int3);
    let mut code = ops.finalize().unwrap();
    code.truncate(end);
    code
}

/// Decodes the template alone ([`decode_bytes`]'s checks).
pub fn decode<T: Emit<X64Relocation>>(t: &T) -> Decoded {
    let d = decode_bytes(
        t.name(),
        &emitted(|a, l| t.emit(a, l).unwrap()),
        t.clobbers(Isa::X64),
    );
    println!(
        "{}: {} instructions, budget {}, writes {:?}",
        t.name(),
        d.count(),
        t.budget(Isa::X64),
        d.written
    );
    d
}

/// [`decode`], and: memory written only through `allowed_write_bases`,
/// unlocked; the common path within budget.
pub fn check<T: Emit<X64Relocation>>(t: &T, allowed_write_bases: &[Reg]) -> Decoded {
    let d = decode(t);
    for m in &d.mem_writes {
        assert!(
            allowed_write_bases.contains(&m.base),
            "{}: writes through {:?}: {}",
            t.name(),
            m.base,
            m.text
        );
        assert!(!m.locked, "{}: a locked write: {}", t.name(), m.text);
    }
    assert!(
        d.count() <= t.budget(Isa::X64),
        "{}: {} instructions, budget {}",
        t.name(),
        d.count(),
        t.budget(Isa::X64)
    );
    d
}

/// Decodes a slow-path stub alone and checks what it saves against what
/// it declares: memory written only through rsp (its saves), one call;
/// before the call, pushes of [`SlowStub::saved`] then of the arguments,
/// popped into the ABI's argument registers; after it, the result moved
/// and [`SlowStub::saved`] popped in reverse. So every live caller-saved
/// register but the result is restored, and the registers the stub
/// itself writes are the arguments', rax, the result's and the saved
/// ones (restored). Returns the saved set.
pub fn check_stub(s: &SlowStub) -> RegSet {
    check_stub_code(s, &stub_code(s))
}

/// The bytes `s` emits (resuming at a label before them).
pub fn stub_code(s: &SlowStub) -> Vec<u8> {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (slow, resume) = (ops.new_dynamic_label(), ops.new_dynamic_label());
    dynasm!(ops ; .arch x64 ; =>resume ; ret);
    let start = ops.offset().0;
    s.emit(&mut ops, slow, resume).unwrap();
    ops.finalize().unwrap()[start..].to_vec()
}

/// [`check_stub`] of `code` as the stub `s` declares.
pub fn check_stub_code(s: &SlowStub, code: &[u8]) -> RegSet {
    let args = RegSet::of(&ARGS[..s.args.len()]);
    let mut may_write = args.with(RAX).with(RSP);
    for r in s.saved(Isa::X64).iter().chain(s.ret) {
        may_write = may_write.with(r);
    }
    let d = decode_bytes("slow-path stub", code, may_write);
    for m in &d.mem_writes {
        assert_eq!(m.base, RSP, "the stub writes memory: {}", m.text);
    }
    let call = d
        .insns
        .iter()
        .position(|i| i.flow_control() == FlowControl::IndirectCall)
        .expect("a call");
    assert_eq!(
        d.insns
            .iter()
            .filter(|i| i.flow_control() == FlowControl::IndirectCall)
            .count(),
        1
    );
    let pushes = |insns: &[Instruction]| -> Vec<Reg> {
        insns
            .iter()
            .filter(|i| i.mnemonic() == iced_x86::Mnemonic::Push)
            .map(|i| reg_of(i.op0_register()))
            .collect()
    };
    let pops = |insns: &[Instruction]| -> Vec<Reg> {
        insns
            .iter()
            .filter(|i| i.mnemonic() == iced_x86::Mnemonic::Pop)
            .map(|i| reg_of(i.op0_register()))
            .collect()
    };
    let saved: Vec<Reg> = s.saved(Isa::X64).iter().collect();
    let before = pushes(&d.insns[..call]);
    assert_eq!(before[..saved.len()], saved[..], "saves first");
    assert_eq!(before[saved.len()..], s.args[..], "then the arguments");
    let moved: Vec<Reg> = pops(&d.insns[..call]);
    let mut want: Vec<Reg> = ARGS[..s.args.len()].to_vec();
    want.reverse();
    assert_eq!(moved, want, "arguments popped into the ABI's registers");
    let mut restored = pops(&d.insns[call..]);
    restored.reverse();
    assert_eq!(restored, saved, "restores what it saved, in reverse");
    assert!(pushes(&d.insns[call..]).is_empty());
    // What the JIT may rely on: every live register kept but the result.
    let mut kept_by_callee = RegSet(s.live.0 & !CALLER_SAVED.0);
    for r in s.saved(Isa::X64).iter() {
        kept_by_callee = kept_by_callee.with(r);
    }
    for r in s.live.iter() {
        assert!(
            kept_by_callee.contains(r) || s.ret == Some(r),
            "live {r:?} is neither saved nor callee-saved"
        );
    }
    assert_eq!(
        d.insns.last().map(|i| i.flow_control()),
        Some(FlowControl::UnconditionalBranch),
        "resumes with a jump"
    );
    s.saved(Isa::X64)
}
