//! Natives for the class library's breadth: new arrays of a class
//! (`Arrays.copyOf`), `Character`'s Unicode properties beyond ASCII,
//! `Float.parseFloat`, record `equals`, and the atomic operations the
//! `java.util.concurrent.atomic` classes are built on (`VMAtomic`: a CAS
//! or read-modify-write on a field or an array element, through the
//! heap's barriers for references).

use std::sync::atomic::{AtomicI32, AtomicI64, Ordering};

use fastpath::gc::BarrierSet;

use crate::interp::{Args, NativeFn};
use crate::link::{Class, ClassKind, Kind};
use crate::runtime::{JResult, JThread};

fn new_array<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (comp, len) = (a.obj(0), a.int(1));
    if comp == 0 {
        return Err(t.throw_npe_plain());
    }
    let c = t.class_of_mirror(comp);
    if matches!(c.kind, ClassKind::Primitive(_)) && c.name.as_ref() == "void" {
        return Err(t.throw_new("java/lang/IllegalArgumentException", None));
    }
    let ac = t.vm.loader.array_of(c).map_err(|e| t.throw_error(&e))?;
    Ok(t.alloc_array(ac, len)? as u64)
}

fn parse_float<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let s = a.obj(0);
    if s == 0 {
        return Err(t.throw_npe_plain());
    }
    let text = t.string_text(s);
    // Parse as Java's grammar, then to the nearest float from the
    // decimal itself (Rust's f32 parser rounds once, as Java's does).
    match super::numbers::parse_java_double(&text) {
        Some(v) if v.is_nan() || v.is_infinite() => Ok((v as f32).to_bits() as u64),
        Some(_) => {
            let t2 = text.trim_matches(|c: char| c <= ' ');
            let body = t2.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t2);
            let body = body.strip_prefix('+').unwrap_or(body);
            match body.parse::<f32>() {
                Ok(f) => Ok(f.to_bits() as u64),
                Err(_) => Err(t.throw_new(
                    "java/lang/NumberFormatException",
                    Some(&format!("For input string: \"{text}\"")),
                )),
            }
        }
        None => Err(t.throw_new(
            "java/lang/NumberFormatException",
            Some(&super::numbers::parse_error_message(&text)),
        )),
    }
}

fn char_prop(cp: i32, f: fn(char) -> bool) -> u64 {
    char::from_u32(cp as u32).is_some_and(f) as u64
}

/// The digit zero of every run of ten Unicode decimal digits (general
/// category Nd) in Unicode 16.0, the version of Java 25's `Character`:
/// Unicode keeps each Nd run as 0 to 9 in consecutive code points, so a
/// digit's value is its distance from its run's zero. The list is every
/// code point where JDK 25's `Character.getType` is
/// `DECIMAL_DIGIT_NUMBER` and `Character.digit(cp, 10)` is 0 (each one
/// checked to start such a run of ten, and no Nd code point outside them).
const DECIMAL_DIGIT_ZEROS: [u32; 76] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6, 0xe50,
    0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40,
    0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0, 0x10d30, 0x10d40,
    0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x116d0, 0x116da,
    0x11730, 0x118e0, 0x11950, 0x11bf0, 0x11c50, 0x11d50, 0x11da0, 0x11f50, 0x16130, 0x16a60, 0x16ac0,
    0x16b50, 0x16d70, 0x1ccf0, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e4f0,
    0x1e5f1, 0x1e950, 0x1fbf0,
];

/// The value of decimal digit `cp` (category Nd), or `None`.
fn decimal_digit_value(cp: u32) -> Option<u32> {
    let after = DECIMAL_DIGIT_ZEROS.partition_point(|&zero| zero <= cp);
    let zero = DECIMAL_DIGIT_ZEROS[after.checked_sub(1)?];
    (cp - zero < 10).then_some(cp - zero)
}

/// Unicode category Nd (Java's `isDigit`).
fn is_decimal_digit(c: char) -> bool {
    decimal_digit_value(c as u32).is_some()
}

/// `Character.digit0(cp)`: what `Character.digit` gives a code point
/// above 127 in radix 36: a decimal digit's value (any Nd run), or the
/// full-width Latin letters' 10–35 (U+FF21–FF3A, U+FF41–FF5A, as Java's
/// own rule names them); otherwise -1 (the JIT's `Character.digit`
/// intrinsic calls it too, `jit/digit.rs`).
pub(crate) fn digit0(cp: i32) -> i32 {
    let Ok(cp) = u32::try_from(cp) else {
        return -1;
    };
    match cp {
        0xff21..=0xff3a => (cp - 0xff21 + 10) as i32,
        0xff41..=0xff5a => (cp - 0xff41 + 10) as i32,
        _ => decimal_digit_value(cp).map_or(-1, |d| d as i32),
    }
}

fn to_upper(cp: i32) -> i32 {
    match char::from_u32(cp as u32) {
        Some(c) => {
            let mut u = c.to_uppercase();
            match (u.next(), u.next()) {
                (Some(x), None) => x as i32,
                _ => cp,
            }
        }
        None => cp,
    }
}

fn to_lower(cp: i32) -> i32 {
    match char::from_u32(cp as u32) {
        Some(c) => {
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(x), None) => x as i32,
                _ => cp,
            }
        }
        None => cp,
    }
}

/// `Record.equalsByComponents(a, b)`: the same record class and every
/// component field equal (primitives bit for bit as their boxes' `equals`
/// compares them, references by `equals`).
fn record_equals<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (x, y) = (a.obj(0), a.obj(1));
    if y == 0 {
        return Ok(0);
    }
    let c = t.class_of(x);
    if !std::ptr::eq(c, t.class_of(y)) {
        return Ok(0);
    }
    let object_equals =
        t.vm.object_class()
            .vtable
            .iter()
            .position(|m| m.matches("equals", "(Ljava/lang/Object;)Z"))
            .expect("Object.equals");
    let fields: Vec<(Kind, u32)> = c
        .fields
        .iter()
        .filter(|f| !f.is_static())
        .map(|f| (f.kind, f.offset))
        .collect();
    let mark = t.stack.temps_len();
    let (kx, ky) = (t.stack.push_temp(x), t.stack.push_temp(y));
    let mut result = 1;
    for (kind, off) in fields {
        let (x, y) = (t.stack.temp(kx), t.stack.temp(ky));
        let equal = if kind == Kind::Ref {
            let (fx, fy) = (t.load_ref(x, off as usize), t.load_ref(y, off as usize));
            if fx == fy {
                true
            } else if fx == 0 || fy == 0 {
                false
            } else {
                let m = t.class_of(fx).vtable[object_equals];
                match t.call(m, &[fx as u64, fy as u64]) {
                    Ok(v) => v & 1 != 0,
                    Err(e) => {
                        t.stack.truncate_temps(mark);
                        return Err(e);
                    }
                }
            }
        } else {
            let (vx, vy) = (t.get_prim(x, off, kind), t.get_prim(y, off, kind));
            match kind {
                Kind::Float => {
                    let (fx, fy) = (f32::from_bits(vx as u32), f32::from_bits(vy as u32));
                    (fx.is_nan() && fy.is_nan()) || vx as u32 == vy as u32
                }
                Kind::Double => {
                    let (dx, dy) = (f64::from_bits(vx), f64::from_bits(vy));
                    (dx.is_nan() && dy.is_nan()) || vx == vy
                }
                _ => vx == vy,
            }
        };
        if !equal {
            result = 0;
            break;
        }
    }
    t.stack.truncate_temps(mark);
    Ok(result)
}

/// The field token `VMAtomic.fieldOffset` hands out: the reference index
/// with bit 30 set for reference fields, the data byte offset otherwise.
const REF_TOKEN: i32 = 1 << 30;

fn field_offset<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    let name = t.string_text(a.obj(1));
    let mut k: Option<&'static Class> = Some(c);
    while let Some(cls) = k {
        if let Some(f) = cls.fields.iter().find(|f| *f.name == *name && !f.is_static()) {
            let tok = if f.kind == Kind::Ref {
                REF_TOKEN | f.offset as i32
            } else {
                f.offset as i32
            };
            return Ok(tok as i64 as u64);
        }
        k = cls.super_class;
    }
    Err(t.throw_new("java/lang/InternalError", Some(&format!("no field {name}"))))
}

fn int_cell<B: BarrierSet>(t: &JThread<B>, o: usize, off: i32) -> &'static AtomicI32 {
    // SAFETY: `off` is a data byte offset of an int field of `o`
    // (`fieldOffset`'s token); the data area lives until the next
    // safepoint, and the reference is used before one.
    unsafe { &*(t.data_mut(o).add(off as usize) as *const AtomicI32) }
}

fn long_cell<B: BarrierSet>(t: &JThread<B>, o: usize, off: i32) -> &'static AtomicI64 {
    // SAFETY: as `int_cell`, a long field (8-aligned).
    unsafe { &*(t.data_mut(o).add(off as usize) as *const AtomicI64) }
}

fn int_elem<B: BarrierSet>(t: &mut JThread<B>, arr: usize, i: i32) -> JResult<&'static AtomicI32> {
    let len = t.array_len(arr);
    if i < 0 || i >= len {
        return Err(t.throw_new("java/lang/IndexOutOfBoundsException", Some(&format!("index {i}"))));
    }
    // SAFETY: in bounds; used before the next safepoint.
    Ok(unsafe { &*(t.elem_ptr_mut(arr, Kind::Int, i as usize) as *const AtomicI32) })
}

fn long_elem<B: BarrierSet>(t: &mut JThread<B>, arr: usize, i: i32) -> JResult<&'static AtomicI64> {
    let len = t.array_len(arr);
    if i < 0 || i >= len {
        return Err(t.throw_new("java/lang/IndexOutOfBoundsException", Some(&format!("index {i}"))));
    }
    // SAFETY: in bounds; used before the next safepoint.
    Ok(unsafe { &*(t.elem_ptr_mut(arr, Kind::Long, i as usize) as *const AtomicI64) })
}

fn cas_ref<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (o, tok, e, n) = (a.obj(0), a.int(1), a.obj(2), a.obj(3));
    let i = (tok & !REF_TOKEN) as usize;
    let obj = t.obj(o);
    let (eo, no) = ((e != 0).then(|| t.obj(e)), (n != 0).then(|| t.obj(n)));
    Ok(t.m.cas(obj, i, eo, no).unwrap_or(false) as u64)
}

fn get_and_set_ref<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (o, tok, n) = (a.obj(0), a.int(1), a.obj(2));
    let i = (tok & !REF_TOKEN) as usize;
    loop {
        let cur = t.load_ref(o, i);
        let obj = t.obj(o);
        let (co, no) = ((cur != 0).then(|| t.obj(cur)), (n != 0).then(|| t.obj(n)));
        if t.m.cas(obj, i, co, no).unwrap_or(false) {
            return Ok(cur as u64);
        }
    }
}

fn cas_ref_elem<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (arr, i, e, n) = (a.obj(0), a.int(1), a.obj(2), a.obj(3));
    if i < 0 || i as usize >= t.nrefs(arr) {
        return Err(t.throw_new("java/lang/IndexOutOfBoundsException", Some(&format!("index {i}"))));
    }
    let obj = t.obj(arr);
    let (eo, no) = ((e != 0).then(|| t.obj(e)), (n != 0).then(|| t.obj(n)));
    Ok(t.m.cas(obj, i as usize, eo, no).unwrap_or(false) as u64)
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    const A: &str = "java/util/concurrent/atomic/VMAtomic";
    Some(match (class, name, desc) {
        ("java/util/Arrays", "newArray", "(Ljava/lang/Class;I)Ljava/lang/Object;") => new_array::<B>,
        ("java/lang/Float", "parseFloat", "(Ljava/lang/String;)F") => parse_float::<B>,
        ("java/lang/Record", "equalsByComponents", "(Ljava/lang/Object;Ljava/lang/Object;)Z") => {
            record_equals::<B>
        }
        ("java/lang/Character", "isDigit0", "(I)Z") => |_t, a| Ok(char_prop(a.int(0), is_decimal_digit)),
        ("java/lang/Character", "isLetter0", "(I)Z") => |_t, a| Ok(char_prop(a.int(0), char::is_alphabetic)),
        ("java/lang/Character", "isAlphabetic0", "(I)Z") => {
            |_t, a| Ok(char_prop(a.int(0), char::is_alphabetic))
        }
        ("java/lang/Character", "isUpperCase0", "(I)Z") => {
            |_t, a| Ok(char_prop(a.int(0), char::is_uppercase))
        }
        ("java/lang/Character", "isLowerCase0", "(I)Z") => {
            |_t, a| Ok(char_prop(a.int(0), char::is_lowercase))
        }
        ("java/lang/Character", "toUpperCase0", "(I)I") => |_t, a| Ok(to_upper(a.int(0)) as i64 as u64),
        ("java/lang/Character", "toLowerCase0", "(I)I") => |_t, a| Ok(to_lower(a.int(0)) as i64 as u64),
        ("java/lang/Character", "digit0", "(I)I") => |_t, a| Ok(digit0(a.int(0)) as i64 as u64),
        ("java/lang/Character", "numericValue0", "(I)I") => {
            |_t, a| Ok(super::numeric::numeric_value0(a.int(0)) as i64 as u64)
        }
        (A, "fieldOffset", "(Ljava/lang/Class;Ljava/lang/String;)I") => field_offset::<B>,
        (A, "casInt", "(Ljava/lang/Object;III)Z") => |t, a| {
            let c = int_cell(t, a.obj(0), a.int(1));
            Ok(
                c.compare_exchange(a.int(2), a.int(3), Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok() as u64,
            )
        },
        (A, "getAndAddInt", "(Ljava/lang/Object;II)I") => {
            |t, a| Ok(int_cell(t, a.obj(0), a.int(1)).fetch_add(a.int(2), Ordering::SeqCst) as i64 as u64)
        }
        (A, "getAndSetInt", "(Ljava/lang/Object;II)I") => {
            |t, a| Ok(int_cell(t, a.obj(0), a.int(1)).swap(a.int(2), Ordering::SeqCst) as i64 as u64)
        }
        (A, "casLong", "(Ljava/lang/Object;IJJ)Z") => |t, a| {
            let c = long_cell(t, a.obj(0), a.int(1));
            Ok(
                c.compare_exchange(a.long(2), a.long(4), Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok() as u64,
            )
        },
        (A, "getAndAddLong", "(Ljava/lang/Object;IJ)J") => {
            |t, a| Ok(long_cell(t, a.obj(0), a.int(1)).fetch_add(a.long(2), Ordering::SeqCst) as u64)
        }
        (A, "getAndSetLong", "(Ljava/lang/Object;IJ)J") => {
            |t, a| Ok(long_cell(t, a.obj(0), a.int(1)).swap(a.long(2), Ordering::SeqCst) as u64)
        }
        (A, "casRef", "(Ljava/lang/Object;ILjava/lang/Object;Ljava/lang/Object;)Z") => cas_ref::<B>,
        (A, "getAndSetRef", "(Ljava/lang/Object;ILjava/lang/Object;)Ljava/lang/Object;") => {
            get_and_set_ref::<B>
        }
        (A, "casIntElem", "([IIII)Z") => |t, a| {
            let (arr, i) = (a.obj(0), a.int(1));
            let c = int_elem(t, arr, i)?;
            Ok(
                c.compare_exchange(a.int(2), a.int(3), Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok() as u64,
            )
        },
        (A, "getAndAddIntElem", "([III)I") => |t, a| {
            let c = int_elem(t, a.obj(0), a.int(1))?;
            Ok(c.fetch_add(a.int(2), Ordering::SeqCst) as i64 as u64)
        },
        (A, "getIntElem", "([II)I") => {
            |t, a| Ok(int_elem(t, a.obj(0), a.int(1))?.load(Ordering::SeqCst) as i64 as u64)
        }
        (A, "setIntElem", "([III)V") => |t, a| {
            int_elem(t, a.obj(0), a.int(1))?.store(a.int(2), Ordering::SeqCst);
            Ok(0)
        },
        (A, "casLongElem", "([JIJJ)Z") => |t, a| {
            let c = long_elem(t, a.obj(0), a.int(1))?;
            Ok(
                c.compare_exchange(a.long(2), a.long(4), Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok() as u64,
            )
        },
        (A, "getAndAddLongElem", "([JIJ)J") => |t, a| {
            let c = long_elem(t, a.obj(0), a.int(1))?;
            Ok(c.fetch_add(a.long(2), Ordering::SeqCst) as u64)
        },
        (A, "getLongElem", "([JI)J") => {
            |t, a| Ok(long_elem(t, a.obj(0), a.int(1))?.load(Ordering::SeqCst) as u64)
        }
        (A, "setLongElem", "([JIJ)V") => |t, a| {
            long_elem(t, a.obj(0), a.int(1))?.store(a.long(2), Ordering::SeqCst);
            Ok(0)
        },
        (A, "casRefElem", "([Ljava/lang/Object;ILjava/lang/Object;Ljava/lang/Object;)Z") => cas_ref_elem::<B>,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_of_every_script_and_full_width_letters_have_java_25s_values() {
        // (code point, Character.digit(cp, 36) on JDK 25, Character.isDigit)
        let cases = [
            (0x663, 3, true),      // ARABIC-INDIC DIGIT THREE
            (0x6f9, 9, true),      // EXTENDED ARABIC-INDIC DIGIT NINE
            (0xff10, 0, true),     // FULLWIDTH DIGIT ZERO
            (0xff21, 10, false),   // FULLWIDTH LATIN CAPITAL LETTER A
            (0xff5a, 35, false),   // FULLWIDTH LATIN SMALL LETTER Z
            (0xff5b, -1, false),   // FULLWIDTH LEFT CURLY BRACKET
            (0x1d7d7, 9, true),    // the last of one mathematical run...
            (0x1d7d8, 0, true),    // ...and the first of the next, adjacent
            (0x1fbf9, 9, true),    // SEGMENTED DIGIT NINE, the last run
            (0x1fbfa, -1, false),  // past it
            (0xb2, -1, false),     // SUPERSCRIPT TWO: No, not Nd
            (0x2160, -1, false),   // ROMAN NUMERAL ONE: Nl
            (0x2460, -1, false),   // CIRCLED DIGIT ONE: No
            (0x10ffff, -1, false), // the last code point
            (0x110000, -1, false), // past Unicode
            (-1, -1, false),
        ];
        for (cp, digit, is_digit) in cases {
            assert_eq!(digit0(cp), digit, "digit0({cp:#x})");
            let nd = u32::try_from(cp)
                .ok()
                .and_then(char::from_u32)
                .is_some_and(is_decimal_digit);
            assert_eq!(nd, is_digit, "isDigit({cp:#x})");
        }
        // Every run is ten digits 0..9 in order.
        for zero in DECIMAL_DIGIT_ZEROS {
            for k in 0..10 {
                assert_eq!(decimal_digit_value(zero + k), Some(k), "{zero:#x} + {k}");
            }
        }
        assert!(
            DECIMAL_DIGIT_ZEROS.windows(2).all(|w| w[1] >= w[0] + 10),
            "sorted, runs apart"
        );
    }
}
