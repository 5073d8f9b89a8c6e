//! Lightweight monitor enter and exit as CLIF (HotSpot lightweight
//! locking), the same protocol and shape as the templates described in
//! `fastpath_jit::template::lock`: the lock-stack in the thread block at a
//! [`LockStackLayout`]'s offsets, one CAS on the header, every uncommon
//! state to a cold block calling the library's slow path
//! (`fastpath_jit::slow::monitor_enter` / `monitor_exit`, imported by the
//! JIT with [`crate::import_slow_path`] / [`crate::import_slow_path_with_result`]).
//!
//! Enter: `top = u32 [thread+top]`; `top >= end` → cold (full, or a thread
//! not running lightweight locking); `[thread+top-8] == obj` → push
//! (recursive); `mark = [obj]`; `mark & 2` → cold (monitor or GC word);
//! `cas [obj], mark|1 → mark&~1` (Cranelift's `atomic_cas`, sequentially
//! consistent: `lock cmpxchg` on x86-64, `casal` with LSE on AArch64, at
//! least the Acquire the Rust path uses) ≠ → cold; push: `[thread+top] =
//! obj; [thread+top] = top+8`.
//!
//! Exit: `top = u32 [thread+top] & 0xff` (the low byte: an inactive
//! thread's reads as the empty lock-stack's, whose sentinel fails the next
//! test; the load is as wide as the stores of `top`, see `exit_top_tests`);
//! `[thread+top-8] != obj` → cold; `[thread+top-16] == obj` → pop
//! (recursive); `expected = [obj] & ~3 | 1<<63` (fast-locked, own word);
//! `cas [obj], expected → expected|1` ≠ → cold; pop: `[thread+top] = top-8`.
//!
//! The shared-memory protocol is the Rust fast path's, which the library's
//! loom models check: a plain load of the header, one CAS on it, and the
//! lock-stack (private to its thread) written with plain stores. Loads and
//! stores of the block are `trusted` (aligned, cannot trap); the header
//! load is not `readonly` (other threads write it).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types::I32, types::I64, Block, FuncRef, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use fastpath_jit::LockStackLayout;

/// `monitorenter`'s lightweight fast path on `obj` (its header word's
/// address), `slow(thread, obj)` in a cold block otherwise; the builder
/// continues after both.
pub fn lock_enter(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
    slow: FuncRef,
) {
    enter(b, thread, obj, layout, slow, false);
}

/// [`lock_enter`], returning the header word its CAS stored on the
/// first-level fast path (0 on the recursive and slow paths): the guess
/// for [`lock_exit_expecting`] of the same lock, which the JIT keeps live
/// between the two.
pub fn lock_enter_with_mark(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
    slow: FuncRef,
) -> Value {
    enter(b, thread, obj, layout, slow, true).expect("with_mark gives the mark")
}

/// The enter; with `with_mark`, the word stored on the first-level path
/// (0 on the others) as `cont`'s block parameter (kept out of the plain
/// form, whose lowering the instruction-count test pins).
fn enter(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
    slow: FuncRef,
    with_mark: bool,
) -> Option<Value> {
    let trusted = MemFlagsData::trusted();
    let (check, try_cas, cas, push, cold, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    // Block arguments of `push` and `cont` (none without the mark).
    let (pushed, marked, zero) = if with_mark {
        let (p, m) = (b.append_block_param(push, I64), b.append_block_param(cont, I64));
        (vec![p.into()], Some(m), vec![b.ins().iconst(I64, 0).into()])
    } else {
        (vec![], None, vec![])
    };
    let top = b.ins().load(I32, trusted, thread, layout.top);
    let full = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, top, i64::from(layout.end));
    b.ins().brif(full, cold, &[], check, &[]);

    b.switch_to_block(check);
    let top64 = b.ins().uextend(I64, top);
    let slot = b.ins().iadd(thread, top64);
    let prev = b.ins().load(I64, trusted, slot, -8);
    let recursive = b.ins().icmp(IntCC::Equal, prev, obj);
    b.ins().brif(recursive, push, &zero, try_cas, &[]);

    b.switch_to_block(try_cas);
    let mark = b.ins().load(I64, header_flags(), obj, 0);
    let monitor = b.ins().band_imm_u(mark, 2);
    b.ins().brif(monitor, cold, &[], cas, &[]);

    b.switch_to_block(cas);
    let expected = b.ins().bor_imm_u(mark, 1);
    let new = b.ins().band_imm_s(mark, -2);
    let old = b.ins().atomic_cas(header_flags(), obj, expected, new);
    let won = b.ins().icmp(IntCC::Equal, old, expected);
    let new_arg: Vec<_> = if with_mark { vec![new.into()] } else { vec![] };
    b.ins().brif(won, push, &new_arg, cold, &[]);

    b.switch_to_block(push);
    b.ins().store(trusted, obj, slot, 0);
    let next = b.ins().iadd_imm_s(top, 8);
    b.ins().store(trusted, next, thread, layout.top);
    b.ins().jump(cont, &pushed);

    b.set_cold_block(cold);
    b.switch_to_block(cold);
    b.ins().call(slow, &[thread, obj]);
    b.ins().jump(cont, &zero);

    b.switch_to_block(cont);
    marked
}

/// [`lock_enter`] whose CAS first expects `neutral`, the header word an
/// object of the class holds until it is hashed or locked (its lock bits
/// forced to 01), instead of the word loaded from the header (as
/// `fastpath_jit::LockEnter::emit_guessing`). On x86-64 the load of the
/// header between the previous exit's locked instruction and this enter's
/// is most of the loaded pair's cost over a lock that expects a constant;
/// with the guess right the pair loads nothing between its CASes.
///
/// Any guess is safe: the CAS succeeds only on the unlocked word equal to
/// the guess and stores it with lock bits 00, as the loaded form would. A
/// failed CAS returns the word it found, and the loaded form's checks and
/// CAS run on that word (no second load): a monitor or GC word goes to the
/// cold block, an unlocked one (hashed, other spare bits) is locked by a
/// second CAS. Pair it with [`lock_exit_guessing`] and the same word.
pub fn lock_enter_guessing(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    slow: FuncRef,
) {
    let (cold, cont) = (b.create_block(), b.create_block());
    enter_guessing(b, thread, obj, neutral, layout, cold, cont);
    crate::slow::cold_call(b, cold, slow, &[thread, obj], cont);
    b.switch_to_block(cont);
}

/// [`lock_enter_guessing`] whose every miss jumps to the caller's block
/// `miss` instead of calling a slow path there: the lock-stack as it was
/// before the enter (the push undone), the header untouched by this
/// thread. The builder continues on the locked path. A JIT whose runtime
/// takes the enter over at `miss` (a safepoint, a call of its own
/// monitor code) then needs no call that only reports the miss and no
/// test after the enter that tells the two ways apart: the miss is its
/// own edge.
pub fn lock_enter_guessing_or(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    miss: Block,
) {
    let cont = b.create_block();
    enter_guessing(b, thread, obj, neutral, layout, miss, cont);
    b.switch_to_block(cont);
}

/// The guessing enter's blocks: locked to `cont`, missed to `cold`.
fn enter_guessing(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    cold: Block,
    cont: Block,
) {
    let trusted = MemFlagsData::trusted();
    let (check, guess, found, cas, undo) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let top = b.ins().load(I32, trusted, thread, layout.top);
    let full = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, top, i64::from(layout.end));
    b.ins().brif(full, cold, &[], check, &[]);

    // The push before the CAS, undone if it fails: a locked instruction
    // waits for the stores before it to drain, so stores between enter's
    // CAS and exit's would make exit's wait (the library's fast path,
    // `sync/lock_stack.rs`, measures it). A recursive enter is the push
    // alone.
    b.switch_to_block(check);
    let top64 = b.ins().uextend(I64, top);
    let slot = b.ins().iadd(thread, top64);
    let prev = b.ins().load(I64, trusted, slot, -8);
    b.ins().store(trusted, obj, slot, 0);
    let next = b.ins().iadd_imm_s(top, 8);
    b.ins().store(trusted, next, thread, layout.top);
    let recursive = b.ins().icmp(IntCC::Equal, prev, obj);
    b.ins().brif(recursive, cont, &[], guess, &[]);

    // A wrong guess (a hashed object, a contender's monitor) is the
    // uncommon case: its blocks go out of line, so that a right guess
    // falls through to the code after the enter.
    b.set_cold_block(found);
    b.set_cold_block(cas);

    b.switch_to_block(guess);
    let unlocked = ((neutral & !0b11) | 0b01) as i64;
    let expected = b.ins().iconst(I64, unlocked);
    let new = b.ins().iconst(I64, unlocked - 1);
    let old = b.ins().atomic_cas(header_flags(), obj, expected, new);
    let lost = cas_lost(b, old, unlocked, new, unlocked - 1);
    b.ins().brif(lost, found, &[], cont, &[]);

    // The word the failed CAS found: the loaded form's checks on it.
    b.switch_to_block(found);
    let monitor = b.ins().band_imm_u(old, 2);
    b.ins().brif(monitor, undo, &[], cas, &[]);

    b.switch_to_block(cas);
    let expected = b.ins().bor_imm_u(old, 1);
    let new = b.ins().band_imm_s(old, -2);
    let old2 = b.ins().atomic_cas(header_flags(), obj, expected, new);
    let won = b.ins().icmp(IntCC::Equal, old2, expected);
    b.ins().brif(won, cont, &[], undo, &[]);

    // Not locked: the push taken back before the slow path looks.
    b.set_cold_block(undo);
    b.switch_to_block(undo);
    b.ins().store(trusted, top, thread, layout.top);
    b.ins().jump(cold, &[]);
}

/// [`lock_exit`] whose CAS first expects `neutral` fast-locked (lock bits
/// 00, own-word bit set), as [`lock_enter_guessing`] with the same word
/// leaves it: no load of the header between the two locked instructions.
/// A failed CAS goes on from the word it found: a fast-locked word (hashed
/// while held, other spare bits) is unlocked by a second CAS; anything
/// else (a contender's monitor) goes to the cold block. Returns the status
/// as [`lock_exit`] does.
pub fn lock_exit_guessing(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    slow: FuncRef,
) -> Value {
    let (cold, cont) = (b.create_block(), b.create_block());
    let status = b.append_block_param(cont, I32);
    let zero = b.ins().iconst(I32, 0);
    exit_guessing(b, thread, obj, neutral, layout, cold, cont, Some(zero));
    crate::slow::cold_call(b, cold, slow, &[thread, obj], cont);
    b.switch_to_block(cont);
    status
}

/// [`lock_exit_guessing`] whose every miss jumps to the caller's block
/// `miss` instead of calling a slow path there: the lock-stack and the
/// header as they were (the runtime's exit takes over). The builder
/// continues on the unlocked path, where nothing is left to test: the
/// miss is its own edge, as [`lock_enter_guessing_or`]'s.
pub fn lock_exit_guessing_or(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    miss: Block,
) {
    let cont = b.create_block();
    exit_guessing(b, thread, obj, neutral, layout, miss, cont, None);
    b.switch_to_block(cont);
}

/// The guessing exit's blocks: unlocked to `cont` (with `done` as its
/// argument, when given), missed to `cold`.
#[allow(clippy::too_many_arguments)]
fn exit_guessing(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    neutral: u64,
    layout: &LockStackLayout,
    cold: Block,
    cont: Block,
    done: Option<Value>,
) {
    let trusted = MemFlagsData::trusted();
    let (below, guess, found, cas, pop) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let top32 = exit_top_tests(b, thread, obj, layout, [below, cold, pop, guess]);
    // A wrong guess goes out of line, as the enter's.
    let pop_after_miss = b.create_block();
    for block in [found, cas, pop_after_miss] {
        b.set_cold_block(block);
    }

    b.switch_to_block(guess);
    let locked = ((neutral & !0b11) | (1 << 63)) as i64;
    let expected = b.ins().iconst(I64, locked);
    let new = b.ins().iconst(I64, locked | 1);
    let old = b.ins().atomic_cas(header_flags(), obj, expected, new);
    let lost = cas_lost(b, old, locked, new, locked | 1);
    b.ins().brif(lost, found, &[], pop, &[]);

    // The pop the right guess falls through to (the miss path has its
    // own, as the enter's push).
    for block in [pop, pop_after_miss] {
        b.switch_to_block(block);
        let next = b.ins().iadd_imm_s(top32, -8);
        b.ins().store(trusted, next, thread, layout.top);
        let args: Vec<_> = done.iter().map(|&d| d.into()).collect();
        b.ins().jump(cont, &args);
    }

    // The word the failed CAS found: fast-locked (own-word bit, lock bits
    // 00) or to the cold block.
    b.switch_to_block(found);
    let bits = b.ins().band_imm_u(old, 0b11);
    let own = b.ins().icmp_imm_s(IntCC::SignedLessThan, old, 0);
    let zero_bits = b.ins().icmp_imm_u(IntCC::Equal, bits, 0);
    let fast_locked = b.ins().band(own, zero_bits);
    b.ins().brif(fast_locked, cas, &[], cold, &[]);

    b.switch_to_block(cas);
    let new = b.ins().bor_imm_u(old, 1);
    let old2 = b.ins().atomic_cas(header_flags(), obj, old, new);
    let won = b.ins().icmp(IntCC::Equal, old2, old);
    b.ins().brif(won, pop_after_miss, &[], cold, &[]);
}

/// `monitorexit`'s lightweight fast path on `obj`, `slow(thread, obj)` in
/// a cold block otherwise (a slow path returning a `u32` status, as
/// `fastpath_jit::slow::monitor_exit`). Returns the status as an `i32`
/// value: 0 on the fast path, the slow path's result otherwise (1: this
/// thread did not hold `obj`).
pub fn lock_exit(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
    slow: FuncRef,
) -> Value {
    exit(b, thread, obj, None, layout, slow)
}

/// [`lock_exit`] with its expected header word taken from `word` instead
/// of loaded from the header (as `fastpath_jit::LockExitExpecting`):
/// pass [`lock_enter_with_mark`]'s result for the same lock. Saves the
/// exit's load of the header. Any value is safe: the expected word still
/// gets lock bits 00 and the own-word bit forced, so the CAS succeeds only
/// on a word the loaded form would have accepted (the lock-stack checks
/// before it are unchanged); a wrong guess fails the CAS and takes the
/// slow path with nothing changed.
pub fn lock_exit_expecting(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    word: Value,
    layout: &LockStackLayout,
    slow: FuncRef,
) -> Value {
    exit(b, thread, obj, Some(word), layout, slow)
}

fn exit(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    word: Option<Value>,
    layout: &LockStackLayout,
    slow: FuncRef,
) -> Value {
    let trusted = MemFlagsData::trusted();
    let (below, cas, pop, cold, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let status = b.append_block_param(cont, I32);
    let top32 = exit_top_tests(b, thread, obj, layout, [below, cold, pop, cas]);

    b.switch_to_block(cas);
    let mark = match word {
        Some(w) => w,
        None => b.ins().load(I64, header_flags(), obj, 0),
    };
    let cleared = b.ins().band_imm_s(mark, -4);
    let expected = b.ins().bor_imm_s(cleared, i64::MIN);
    let new = b.ins().bor_imm_u(expected, 1);
    let old = b.ins().atomic_cas(header_flags(), obj, expected, new);
    let won = b.ins().icmp(IntCC::Equal, old, expected);
    b.ins().brif(won, pop, &[], cold, &[]);

    b.switch_to_block(pop);
    let next = b.ins().iadd_imm_s(top32, -8);
    b.ins().store(trusted, next, thread, layout.top);
    let zero = b.ins().iconst(I32, 0);
    b.ins().jump(cont, &[zero.into()]);

    crate::slow::cold_call(b, cold, slow, &[thread, obj], cont);
    b.switch_to_block(cont);
    status
}

/// Whether a CAS that expected the constant `expected` and stored `new`
/// (the constant `new_word`, in a register for the CAS) lost: `old`, the
/// word it found, differs from `expected`. Cranelift's `atomic_cas` gives
/// no flags, so the test is a compare after the locked instruction. A
/// constant that fits a 32-bit immediate is compared as one; a wider one
/// would be compared from the constant pool (`cmp rax, [rip+k]`, a load
/// after the locked instruction), so it is tested as `new - old ==
/// new_word - expected` instead: a subtraction from the register the CAS
/// already holds (a constant on the left is kept in its register, as
/// `isub` does not commute) against a small immediate, both exact in
/// wrapping arithmetic.
fn cas_lost(b: &mut FunctionBuilder<'_>, old: Value, expected: i64, new: Value, new_word: i64) -> Value {
    if i32::try_from(expected).is_ok() {
        return b.ins().icmp_imm_s(IntCC::NotEqual, old, expected);
    }
    let diff = b.ins().isub(new, old);
    b.ins()
        .icmp_imm_s(IntCC::NotEqual, diff, new_word.wrapping_sub(expected))
}

/// The exit's two lock-stack tests, shared by both exits: `obj` on top
/// (else `cold`: the library's exit), then the entry below it (`obj` again:
/// a recursive exit, to `pop`; else the unlocking CAS, to `unlock`). Leaves
/// the builder in `below`, after its branch; returns the lock-stack's top
/// offset as loaded (32 bits, the width the pop stores).
fn exit_top_tests(
    b: &mut FunctionBuilder,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
    [below, cold, pop, unlock]: [Block; 4],
) -> Value {
    let trusted = MemFlagsData::trusted();
    let OnTop { top32, slot, on_top } = on_top(b, thread, obj, layout);
    b.ins().brif(on_top, below, &[], cold, &[]);

    b.switch_to_block(below);
    let prev2 = b.ins().load(I64, trusted, slot, -16);
    let recursive = b.ins().icmp(IntCC::Equal, prev2, obj);
    b.ins().brif(recursive, pop, &[], unlock, &[]);
    // The whole word, for the pop: where `obj` was found on top, the thread
    // is active and its `top` is below 256, so the word is its low byte
    // (an inactive thread's low byte finds the sentinel, never `obj`).
    top32
}

/// Whether `obj` is the top entry of the thread's lock-stack (an `i8`
/// condition): the thread holds it fast-locked as its latest lock, so an
/// exit of it cannot throw. The exits' first test; a JIT that keeps a
/// lock across rounds (lock coarsening) asks it to prove it may. A thread
/// not running lightweight locking reads as an empty lock-stack (false).
pub fn lock_stack_top_is(
    b: &mut FunctionBuilder,
    thread: Value,
    obj: Value,
    layout: &LockStackLayout,
) -> Value {
    on_top(b, thread, obj, layout).on_top
}

/// [`lock_stack_top_is`]'s values: `top` as loaded (32 bits), the address
/// just above the top entry, and the test.
struct OnTop {
    top32: Value,
    slot: Value,
    on_top: Value,
}

fn on_top(b: &mut FunctionBuilder, thread: Value, obj: Value, layout: &LockStackLayout) -> OnTop {
    let trusted = MemFlagsData::trusted();
    // `top` loaded 32 bits wide, as wide as every store of it, then its low
    // byte taken in a register: AMD's Zen 2 and later rename a reload of
    // what a store of the same size wrote at the same address, and a byte
    // load misses that and waits the whole store-to-load forwarding. A
    // recursive pair's loop-carried chain is `top`'s store, this load, the
    // pop's store (the library's `LockStack::top_low_byte` has the figures).
    // An inactive thread's `top` (another locking mode) keeps its load
    // inside the thread block by its low byte, which finds the empty
    // lock-stack's sentinel, never an object.
    let top32 = b.ins().load(I32, trusted, thread, layout.top);
    let low = b.ins().band_imm_u(top32, 0xff);
    let top = b.ins().uextend(I64, low);
    let slot = b.ins().iadd(thread, top);
    let prev = b.ins().load(I64, trusted, slot, -8);
    let on_top = b.ins().icmp(IntCC::Equal, prev, obj);
    OnTop { top32, slot, on_top }
}

/// The header: aligned and dereferenceable (the JIT passes a live
/// object), written by other threads.
fn header_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}
