//! Intrinsics: library methods whose calls compiled code replaces with
//! inline code: `System.arraycopy` of primitive arrays and
//! `String.hashCode`.
//!
//! Where it sits: the translator (`translate.rs`) asks [`is_arraycopy`] at
//! each `invokestatic` and [`is_string_hash_code`] at each statically
//! bound instance call and, for one of them, emits
//! `Translator::arraycopy` or `Translator::string_hash_code` instead of
//! the call. The interpreter and the runtime keep the methods (the native
//! `runtime/natives/lang.rs` `arraycopy`, the class library's
//! `String.hashCode`), which stay the semantic reference: every case the
//! inline code does not handle calls them, as the call would have,
//! through `invoke`.
//!
//! ## `System.arraycopy`
//!
//! The inline path (HotSpot C2's `LibraryCallKit::inline_arraycopy`
//! guards, reduced to what a class-word compare proves):
//!
//! 1. Both arrays non-null (a fact already proven skips the test).
//! 2. Source and destination have the same class, and it is one of the
//!    primitive array classes loaded when the method is compiled (an
//!    array of a class not loaded yet cannot exist): the class gives the
//!    element size, as a shift. Equal classes rule out the type mismatch
//!    and a reference array's element store checks.
//! 3. `srcPos`, `destPos` and `length` non-negative (one test of their
//!    bitwise or), and `srcPos + length`, `destPos + length` at most the
//!    arrays' lengths (an unsigned compare of the 32-bit sum: each term is
//!    below 2^31, so the sum does not wrap).
//! 4. The copy, between the source's copy to read (`resolve_read`) and the
//!    destination's copy to write (`resolve_write`, as a primitive array
//!    store does): up to 16 bytes inline, each access a power of two wide,
//!    with every load before any store (so an overlapping copy within
//!    one array is right either way: memmove's short-copy scheme, as in
//!    glibc's `memmove-vec-unaligned-erms`: the first and the last `w`
//!    bytes for `w <= n <= 2w`); longer ones by a direct call of
//!    [`conjoint_copy`] (`memmove`), which neither allocates nor reaches
//!    a safepoint, so no frame is spilled and no reference reloaded.
//!    An access of width `w` starts at a multiple of the element size
//!    and `w` is at least the element size, so every element is read and
//!    written whole (no element tears, as HotSpot's `conjoint_jints_atomic`).
//!
//! Anything else (a null, a negative, out of bounds, reference arrays,
//! different classes, not arrays) goes to the cold call of the native,
//! whose checks in HotSpot's order throw HotSpot's exceptions and
//! messages, and whose reference copy runs the heap's barrier set
//! (SATB pre-barrier, load-reference barrier, card marks, store checks).
//!
//! Invariants: the inline path reads only the class word, the length
//! word and the elements; it writes only the destination's elements; it
//! calls nothing that allocates, throws or stops for the collector.
//!
//! ## `String.hashCode`
//!
//! The class library's method (`classlib/java/lang/String.java`) caches
//! the hash in `hash`, with `hashIsZero` for a hash of 0, and otherwise
//! computes `h = 31 * h + c` over `value`. The inline form does the same
//! with the fields' offsets read from the class when compiling (no
//! intrinsic when `String` lacks one of the three fields): `hash` when
//! non-zero, 0 when `hashIsZero`, else the polynomial over the chars by
//! the leaf routine [`string_hash_routine`] picks: [`string_hash_avx2`]
//! (32 chars a step in four vectors of eight lanes, each lane weighted by
//! its power of 31 at the end) where the CPU has AVX2, else
//! [`string_hash`] (four chars a step: `h * 31^4 + c0 * 31^3 + c1 * 31^2
//! + c2 * 31 + c3`); both give the one-char recurrence's wrapping value,
//! as HotSpot's `vectorizedHashCode` computes it with its powers of 31.
//! The hash is stored back as the method stores it. A receiver's null check is the
//! call's (`NullPointerException` naming `String.hashCode()`); a `value`
//! not yet set (a string under construction) calls the method. `String`
//! is final: a call bound to `String.hashCode` has a `String` receiver.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, Value};
use cranelift_codegen::isa::CallConv;

use super::emit::DataField;
use super::layout::{ELEMENTS, LENGTH_WORD, REFS};
use super::ops::{Dispatch, K};
use super::translate::{Translator, Unsupported};
use crate::link::{Class, Kind, Method};

/// Copies up to this many bytes inline; longer copies call [`conjoint_copy`].
pub const INLINE_COPY_MAX_BYTES: i64 = 16;

/// The primitive array classes by how often programs copy them (a miss
/// costs one compare and branch more), with their element size's log2.
const PRIMITIVE_ARRAYS: [(&str, i64); 8] = [
    ("[C", 1),
    ("[B", 0),
    ("[I", 2),
    ("[J", 3),
    ("[Z", 0),
    ("[S", 1),
    ("[F", 2),
    ("[D", 3),
];

/// The log2 of the element size of the primitive array class `c`.
fn elem_shift(c: &Class) -> i64 {
    let kind = c.elem_kind().expect("an array class");
    i64::from(kind.size().trailing_zeros())
}

/// Whether `m` is `java.lang.System.arraycopy(Object, int, Object, int, int)`.
pub fn is_arraycopy(m: &Method) -> bool {
    &*m.name == "arraycopy"
        && &*m.descriptor == "(Ljava/lang/Object;ILjava/lang/Object;II)V"
        && &*m.class.name == "java/lang/System"
}

/// `memmove(dst, src, bytes)`: the copy compiled code calls for more than
/// [`INLINE_COPY_MAX_BYTES`] bytes of a primitive array.
///
/// # Safety
///
/// `src` is readable and `dst` writable for `bytes` bytes (they may
/// overlap); compiled code passes element ranges it has bounds-checked.
///
/// Never inlined: compiled code calls it by address, and one address is
/// what a caller that takes it from another crate must find too (the
/// decoded-code tests). rustc's cross-crate inlining of small functions
/// (optimised builds) otherwise gives every crate that names a one-line
/// function its own local copy, at another address.
#[inline(never)]
pub unsafe extern "C" fn conjoint_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    // SAFETY: the caller's contract; `copy` allows the ranges to overlap.
    // glibc's `memmove` moves aligned chunks of at least 8 bytes but at
    // the ends, where it moves whole 2^k-byte pieces from element-aligned
    // addresses: no element is torn.
    unsafe { std::ptr::copy(src, dst, bytes) }
}

/// Where `String`'s `value`, `hash` and `hashIsZero` lie: the reference
/// index of the first, the data offsets of the others.
#[derive(Clone, Copy, Debug)]
struct StringFields {
    value: u32,
    hash: u32,
    hash_is_zero: u32,
}

fn string_fields(c: &Class) -> Option<StringFields> {
    let find = |name: &str, desc: &str, kind: Kind| {
        c.fields
            .iter()
            .find(|f| &*f.name == name && &*f.descriptor == desc && f.kind == kind && !f.is_static())
            .map(|f| f.offset)
    };
    Some(StringFields {
        value: find("value", "[C", Kind::Ref)?,
        hash: find("hash", "I", Kind::Int)?,
        hash_is_zero: find("hashIsZero", "Z", Kind::Boolean)?,
    })
}

/// Whether `m` is `java.lang.String.hashCode()` of a final `String` with
/// the fields the inline form reads.
pub fn is_string_hash_code(m: &Method) -> bool {
    &*m.name == "hashCode"
        && &*m.descriptor == "()I"
        && &*m.class.name == "java/lang/String"
        && m.class.flags & crate::classfile::access::FINAL != 0
        && string_fields(m.class).is_some()
}

/// The Java hash of `len` UTF-16 code units at `chars`
/// (`s[0] * 31^(n-1) + ... + s[n-1]`, wrapping), four at a step: the
/// portable form, and the one the vector form ends with.
///
/// # Safety
///
/// `chars` is aligned and readable for `len` code units.
pub unsafe extern "C" fn string_hash(chars: *const u16, len: usize) -> i32 {
    // SAFETY: the caller's contract (a `char[]`'s elements).
    let s = unsafe { std::slice::from_raw_parts(chars, len) };
    hash_from(0, s)
}

/// Continues the hash `h` of a prefix over the code units `s`:
/// `h * 31^n + s[0] * 31^(n-1) + ... + s[n-1]`, wrapping.
fn hash_from(mut h: i32, s: &[u16]) -> i32 {
    const P1: i32 = 31;
    const P2: i32 = 31 * 31;
    const P3: i32 = 31 * 31 * 31;
    const P4: i32 = 31 * 31 * 31 * 31;
    let mut steps = s.chunks_exact(4);
    for c in &mut steps {
        h = h
            .wrapping_mul(P4)
            .wrapping_add(i32::from(c[0]).wrapping_mul(P3))
            .wrapping_add(i32::from(c[1]).wrapping_mul(P2))
            .wrapping_add(i32::from(c[2]).wrapping_mul(P1))
            .wrapping_add(i32::from(c[3]));
    }
    for &c in steps.remainder() {
        h = h.wrapping_mul(P1).wrapping_add(i32::from(c));
    }
    h
}

/// `31^k` for `k` in `0..=32`, wrapping (the vector form's lane weights).
#[cfg(target_arch = "x86_64")]
const POWERS_OF_31: [i32; 33] = {
    let mut p = [1i32; 33];
    let mut k = 1;
    while k < 33 {
        p[k] = p[k - 1].wrapping_mul(31);
        k += 1;
    }
    p
};

/// The code units the vector form takes a step: four vectors of eight.
#[cfg(target_arch = "x86_64")]
const VECTOR_STEP: usize = 32;

/// [`string_hash`] with AVX2, 32 code units a step, as HotSpot's
/// `vectorizedHashCode` (`C2_MacroAssembler::arrays_hashcode`) splits the
/// polynomial: four accumulators of eight 32-bit lanes each, where lane
/// `j` of accumulator `k` gathers the units at `32 i + 8 k + j`, every
/// step multiplying each lane by `31^32` and adding the next units
/// (zero-extended). After `m` steps the unit at `32 i + 8 k + j` has the
/// weight `31^(32 (m - 1 - i))` in its lane; multiplying the lane by
/// `31^(31 - 8 k - j)` gives it its weight in the prefix's hash, which is
/// the lanes' sum. The rest (under 32 units) continues on the scalar
/// recurrence. All arithmetic wraps mod 2^32, as Java's `int`, so the sum
/// is the scalar polynomial's value exactly.
///
/// # Safety
///
/// As [`string_hash`]; the CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe extern "C" fn string_hash_avx2(chars: *const u16, len: usize) -> i32 {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract (a `char[]`'s elements).
    let s = unsafe { std::slice::from_raw_parts(chars, len) };
    let steps = len / VECTOR_STEP;
    if steps == 0 {
        return hash_from(0, s);
    }
    let lanes = |k: usize| -> __m256i {
        // The weights `31^(31 - 8 k - j)` of lanes j = 0..8 (the first
        // argument of `_mm256_set_epi32` is lane 7).
        let w = |j: usize| POWERS_OF_31[31 - 8 * k - j];
        _mm256_set_epi32(w(7), w(6), w(5), w(4), w(3), w(2), w(1), w(0))
    };
    let step = _mm256_set1_epi32(POWERS_OF_31[32]);
    let mut acc = [_mm256_setzero_si256(); 4];
    for i in 0..steps {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: units `32 i + 8 k .. + 8` lie inside `s`
            // (`32 (i + 1) <= len`); the load is unaligned.
            let units = unsafe { _mm_loadu_si128(chars.add(VECTOR_STEP * i + 8 * k).cast()) };
            let wide = _mm256_cvtepu16_epi32(units);
            *a = _mm256_add_epi32(_mm256_mullo_epi32(*a, step), wide);
        }
    }
    let mut sum = _mm256_setzero_si256();
    for (k, a) in acc.iter().enumerate() {
        sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(*a, lanes(k)));
    }
    let half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    let half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
    let half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b10_11_00_01));
    let h = _mm_cvtsi128_si32(half);
    hash_from(h, &s[steps * VECTOR_STEP..])
}

/// The hash routine compiled code calls: [`string_hash_avx2`] where the
/// CPU has AVX2 (asked once, when the first `String.hashCode` is
/// compiled), else [`string_hash`].
pub fn string_hash_routine() -> unsafe extern "C" fn(*const u16, usize) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return string_hash_avx2;
    }
    string_hash
}

impl Translator<'_, '_> {
    /// The fallback of an intrinsic that replaced a call, and the join
    /// after it: in the cold block `slow` the call's operands `args` go
    /// back on the operand stack, the call is made as the bytecode says
    /// (`dispatch`, `m`) and its result jumps to `done`; then `done` is
    /// current and its parameter `result`, the intrinsic's answer on
    /// either way, is pushed as the call's `int` result.
    pub(super) fn intrinsic_fallback(
        &mut self,
        slow: cranelift_codegen::ir::Block,
        args: &[(K, Value)],
        dispatch: Dispatch,
        m: &'static Method,
        done: cranelift_codegen::ir::Block,
        result: Value,
    ) -> Result<(), Unsupported> {
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        for &(k, v) in args {
            self.push(k, v);
        }
        self.invoke(dispatch, m)?;
        let v = self.pop_v();
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        self.push(K::I, result);
        Ok(())
    }

    /// `System.arraycopy(src, srcPos, dest, destPos, length)` with its five
    /// arguments on the operand stack: the inline copy of a primitive array
    /// (the module comment's steps), the native's call from a cold block
    /// for anything else. The stack holds neither afterwards.
    pub(super) fn arraycopy(&mut self, m: &'static Method) -> Result<(), Unsupported> {
        // The call's class initialization (`System`'s: done at start-up,
        // so nothing is emitted), with the arguments still on the stack.
        self.init_check(m.class);
        let unzeroed = self.take_unzeroed();
        let len = self.pop_v();
        let dp = self.pop_v();
        let dst = self.pop_v();
        let sp = self.pop_v();
        let src = self.pop_v();
        // A destination allocated unzeroed for this copy (`fill.rs`): its
        // class is known, and the copy zeroes what it leaves. The
        // lookahead found the array in the destination's stack slot on
        // the one path from the allocation here (no branch target in
        // between), so `dst` is it, though the SSA value may be another
        // name for it (a block parameter of an emitter's join).
        let fresh = unzeroed;
        let (slow, done) = (self.b.create_block(), self.b.create_block());

        // 1. Non-null.
        for a in [src, dst] {
            let key = self.key(a);
            if !self.facts().nonnull.contains(&key) {
                self.continue_if(a, slow);
                self.facts().nonnull.insert(key);
            }
        }
        // 2. The same primitive array class: its element size.
        let sc = self.class_of(src);
        let copy = self.b.create_block();
        let shift = self.b.append_block_param(copy, I64);
        let loaded: Vec<(usize, i64)> = match fresh {
            // The destination's class, a primitive array's.
            Some(u) => vec![(u.class as *const Class as usize, elem_shift(u.class))],
            None => {
                let dc = self.class_of(dst);
                let same = self.b.ins().icmp(IntCC::Equal, sc, dc);
                self.continue_if(same, slow);
                PRIMITIVE_ARRAYS
                    .iter()
                    .filter_map(|&(name, s)| {
                        let c = self.env.classes.0.find_loaded(name)?;
                        Some((c as *const _ as usize, s))
                    })
                    .collect()
            }
        };
        for (class, s) in loaded {
            let is = self.b.ins().icmp_imm_s(IntCC::Equal, sc, class as i64);
            let next = self.b.create_block();
            let sv = self.b.ins().iconst(I64, s);
            self.b.ins().brif(is, copy, &[sv.into()], next, &[]);
            self.b.switch_to_block(next);
            self.b.seal_block(next);
        }
        self.b.ins().jump(slow, &[]);
        self.b.switch_to_block(copy);
        self.b.seal_block(copy);

        // 3. Non-negative, in bounds.
        let any = self.b.ins().bor(sp, dp);
        let any = self.b.ins().bor(any, len);
        let nonneg = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, any, 0);
        self.continue_if(nonneg, slow);
        let rs = self.resolve_read(src);
        let zero = self.b.ins().iconst(I64, 0);
        let (rd, _) = self.resolve_write(dst, zero);
        let ro = MemFlagsData::trusted().with_readonly();
        let sl = self.b.ins().load(I32, ro, rs, REFS + LENGTH_WORD);
        let dl = self.b.ins().load(I32, ro, rd, REFS + LENGTH_WORD);
        for (pos, n) in [(sp, sl), (dp, dl)] {
            let end = self.b.ins().iadd(pos, len);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, n);
            self.continue_if(inside, slow);
        }

        // An unzeroed destination: zero the words past the copied range
        // (from the word its last element ends in; the copy then writes
        // that word's copied part).
        if let Some(u) = fresh {
            let s = elem_shift(u.class);
            let (_, end) = self.element_words(rd, s);
            let n = self.b.ins().uextend(I64, len);
            let copied = self.b.ins().ishl_imm_s(n, s);
            let head = self.b.ins().band_imm_s(copied, !7);
            let first = self.b.ins().iadd_imm_s(rd, i64::from(REFS + ELEMENTS));
            let from = self.b.ins().iadd(first, head);
            self.zero_range(from, end);
        }

        // 4. The copy.
        let at = |t: &mut Self, o: Value, pos: Value| {
            let p = t.b.ins().uextend(I64, pos);
            let p = t.b.ins().ishl(p, shift);
            let a = t.b.ins().iadd(o, p);
            t.b.ins().iadd_imm_s(a, i64::from(REFS + ELEMENTS))
        };
        let from = at(self, rs, sp);
        let to = at(self, rd, dp);
        let n = self.b.ins().uextend(I64, len);
        let bytes = self.b.ins().ishl(n, shift);
        self.copy_bytes(to, from, bytes, done);

        // The native, for everything the inline path does not take.
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        if let Some(u) = fresh {
            // The native throws here (the inline path takes every copy
            // that succeeds into a primitive array of the source's
            // class); the array is zeroed whole all the same, so that it
            // never holds garbage whatever the native does.
            let zero = self.b.ins().iconst(I64, 0);
            let (o, _) = self.resolve_write(dst, zero);
            let (first, end) = self.element_words(o, elem_shift(u.class));
            self.zero_range(first, end);
        }
        for k in [K::R, K::I, K::R, K::I, K::I] {
            self.s.stack.push(k);
        }
        self.invoke(Dispatch::Static, m)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        Ok(())
    }

    /// Continues in a new block (sealed, carrying the facts) when `ok`
    /// (an i8 condition or a reference, non-zero) holds; else branches to
    /// `otherwise`.
    pub(super) fn continue_if(&mut self, ok: Value, otherwise: cranelift_codegen::ir::Block) {
        let from = self.here();
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], otherwise, &[]);
        self.b.switch_to_block(cont);
        self.continue_from(from);
    }

    /// Moves `bytes` (an i64) from `from` to `to`, ranges that may
    /// overlap, then jumps to `done`: short copies inline, every load
    /// before any store; longer ones through [`conjoint_copy`].
    fn copy_bytes(&mut self, to: Value, from: Value, bytes: Value, done: cranelift_codegen::ir::Block) {
        // Unaligned: a copy of bytes may start at any element.
        let elements = self.heap_region(super::emit::HeapRegion::PrimElements);
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_alias_region(Some(elements));
        let (short, long) = (self.b.create_block(), self.b.create_block());
        let fits = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, bytes, INLINE_COPY_MAX_BYTES);
        self.b.ins().brif(fits, short, &[], long, &[]);

        // `n` in [w, 2w]: the first and the last `w` bytes, each loaded
        // before either is stored; w = 8, 4, 2, then one byte, then none.
        self.b.switch_to_block(short);
        self.b.seal_block(short);
        for (w, ty) in [(8i64, I64), (4, I32), (2, I16), (1, I8)] {
            let (this, next) = (self.b.create_block(), self.b.create_block());
            let wide = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, bytes, w);
            self.b.ins().brif(wide, this, &[], next, &[]);
            self.b.switch_to_block(this);
            self.b.seal_block(this);
            let last = self.b.ins().iadd_imm_s(bytes, -w);
            let from_last = self.b.ins().iadd(from, last);
            let to_last = self.b.ins().iadd(to, last);
            let head = self.b.ins().load(ty, flags, from, 0);
            let tail = self.b.ins().load(ty, flags, from_last, 0);
            self.b.ins().store(flags, head, to, 0);
            self.b.ins().store(flags, tail, to_last, 0);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(next);
            self.b.seal_block(next);
        }
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(long);
        self.b.seal_block(long);
        let routine = conjoint_copy as unsafe extern "C" fn(*mut u8, *const u8, usize);
        self.call_leaf(routine as usize, &[to, from, bytes], false);
        self.b.ins().jump(done, &[]);
    }

    /// Calls the `extern "C"` routine at `routine` with `args` (each an
    /// i64) directly, returning its i32 result when `returns_i32`: for the
    /// intrinsics' routines, which neither allocate, throw nor reach a
    /// safepoint, so the call needs no thread state, frame spill or poll.
    pub(super) fn call_leaf(&mut self, routine: usize, args: &[Value], returns_i32: bool) -> Option<Value> {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.extend(args.iter().map(|_| AbiParam::new(I64)));
        if returns_i32 {
            sig.returns.push(AbiParam::new(I32));
        }
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(I64, routine as i64);
        let call = self.b.ins().call_indirect(sig, f, args);
        self.b.inst_results(call).first().copied()
    }

    /// `String.hashCode()` with its receiver on the operand stack, by
    /// `dispatch` (statically bound: `String` is final): the module
    /// comment's inline form; the method's call from a cold block when
    /// `value` is null. Leaves the hash on the stack.
    pub(super) fn string_hash_code(
        &mut self,
        dispatch: Dispatch,
        m: &'static Method,
    ) -> Result<(), Unsupported> {
        let f = string_fields(m.class).expect("is_string_hash_code checked the fields");
        let recv = self.pop_v();
        // The receiver's check reports the instruction's entry state.
        self.s.stack.push(K::R);
        self.null_check(recv);
        self.s.stack.pop();
        let (done, zero_checked, compute, slow) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(done, I32);
        let cached = self.read_data(recv, DataField::new(m.class, f.hash, Kind::Int), false, None);
        self.b
            .ins()
            .brif(cached, done, &[cached.into()], zero_checked, &[]);
        self.b.switch_to_block(zero_checked);
        self.b.seal_block(zero_checked);
        let is_zero = self.read_data(
            recv,
            DataField::new(m.class, f.hash_is_zero, Kind::Byte),
            false,
            None,
        );
        let zero = self.b.ins().iconst(I32, 0);
        self.b.ins().brif(is_zero, done, &[zero.into()], compute, &[]);
        self.b.switch_to_block(compute);
        self.b.seal_block(compute);
        let value = self.load_ref_field(recv, m.class, i64::from(f.value), false);
        let set = self.b.create_block();
        self.b.ins().brif(value, set, &[], slow, &[]);
        self.b.switch_to_block(set);
        self.b.seal_block(set);
        let chars = self.resolve_read(value);
        let (first, len) = self.prim_array_span(chars);
        let routine = string_hash_routine();
        let h = self
            .call_leaf(routine as usize, &[first, len], true)
            .expect("string_hash returns its hash");
        let (nonzero, was_zero) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(h, nonzero, &[], was_zero, &[]);
        self.b.switch_to_block(nonzero);
        self.b.seal_block(nonzero);
        self.write_data(recv, DataField::new(m.class, f.hash, Kind::Int), h, false, None);
        self.b.ins().jump(done, &[h.into()]);
        self.b.switch_to_block(was_zero);
        self.b.seal_block(was_zero);
        let one = self.b.ins().iconst(I32, 1);
        self.write_data(
            recv,
            DataField::new(m.class, f.hash_is_zero, Kind::Byte),
            one,
            false,
            None,
        );
        self.b.ins().jump(done, &[h.into()]);
        self.intrinsic_fallback(slow, &[(K::R, recv)], dispatch, m, done, result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `h = 31 * h + c`, one unit at a time: the definition.
    fn recurrence(s: &[u16]) -> i32 {
        s.iter()
            .fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
    }

    /// Units from a xorshift generator, over the whole `u16` range (so
    /// lanes see units above `i16::MAX`, which zero-extend) or ASCII.
    fn units(n: usize, seed: u64, ascii: bool) -> Vec<u16> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if ascii {
                    (x % 95 + 32) as u16
                } else {
                    x as u16
                }
            })
            .collect()
    }

    /// Every routine compiled code may call gives the recurrence's value
    /// at every length 0..=300 (around each multiple of the vector step),
    /// at some long ones, on all-`0xffff` units, and from unaligned starts.
    #[test]
    fn string_hash_routines_match_the_recurrence() {
        let mut routines: Vec<(&str, unsafe extern "C" fn(*const u16, usize) -> i32)> =
            vec![("scalar", string_hash), ("selected", string_hash_routine())];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            routines.push(("avx2", string_hash_avx2));
        }
        let lengths = (0..=300).chain([1000, 1023, 1024, 1025, 4099, 65_536 + 17]);
        for n in lengths {
            for (seed, ascii) in [(n as u64 + 1, false), (n as u64 * 7 + 3, true)] {
                let s = units(n + 3, seed, ascii);
                for start in 0..3 {
                    let s = &s[start..start + n];
                    for (name, f) in &routines {
                        // SAFETY: `s` is `n` readable, aligned units.
                        let h = unsafe { f(s.as_ptr(), s.len()) };
                        assert_eq!(h, recurrence(s), "{name}, length {n}, start {start}");
                    }
                }
            }
            let ones = vec![0xffffu16; n];
            for (name, f) in &routines {
                // SAFETY: as above.
                let h = unsafe { f(ones.as_ptr(), n) };
                assert_eq!(h, recurrence(&ones), "{name}, {n} units of 0xffff");
            }
        }
    }
}
