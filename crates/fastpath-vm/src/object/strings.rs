//! `java.lang.String` objects: made from UTF-16 by the VM, read back by
//! natives, and interned (literals and `String.intern`).
//!
//! The class library's `String` holds its characters in `char[] value`
//! (reference field `value`) and caches its hash in `int hash`; the VM
//! finds both by name once.

use std::sync::atomic::Ordering;

use fastpath::gc::BarrierSet;

use super::Kind;
use crate::runtime::vm::Literal;
use crate::runtime::{JResult, JThread};

impl<B: BarrierSet> JThread<B> {
    /// The reference index of `String.value`.
    fn string_value_index(&self) -> usize {
        *self.vm.string_value_index.get_or_init(|| {
            self.vm
                .string_class()
                .declared_field("value", "[C")
                .expect("String.value is a char[]")
                .offset as usize
        })
    }

    /// A new `String` with `units`.
    pub fn new_string(&mut self, units: &[u16]) -> JResult<usize> {
        let arr = self.alloc_array(self.vm.char_array_class(), units.len() as i32)?;
        let p = self.elem_ptr_mut(arr, Kind::Char, 0) as *mut u16;
        // SAFETY: the array has `units.len()` chars, unpublished.
        unsafe { std::ptr::copy_nonoverlapping(units.as_ptr(), p, units.len()) };
        let mark = self.stack.temps_len();
        let t = self.stack.push_temp(arr);
        let s = self.alloc_object(self.vm.string_class());
        let arr = self.stack.temp(t);
        self.stack.truncate_temps(mark);
        let s = s?;
        let vi = self.string_value_index();
        self.store_ref(s, vi, arr);
        Ok(s)
    }

    /// A new `String` from Rust text.
    pub fn new_string_from(&mut self, s: &str) -> JResult<usize> {
        let units: Vec<u16> = s.encode_utf16().collect();
        self.new_string(&units)
    }

    /// The characters of `String` `s`.
    pub fn string_units(&self, s: usize) -> Vec<u16> {
        let arr = self.load_ref(s, self.string_value_index());
        if arr == 0 {
            return Vec::new();
        }
        let n = self.array_len(arr) as usize;
        let p = self.elem_ptr(arr, Kind::Char, 0) as *const std::sync::atomic::AtomicU16;
        // SAFETY: `n` chars from the array's first element.
        (0..n)
            .map(|i| unsafe { (*p.add(i)).load(Ordering::Relaxed) })
            .collect()
    }

    /// The text of `String` `s` (unpaired surrogates as U+FFFD).
    pub fn string_text(&self, s: usize) -> String {
        if s == 0 {
            return "null".into();
        }
        String::from_utf16_lossy(&self.string_units(s))
    }

    /// The interned string of a literal: the one in its slot, made by the
    /// first thread to need it.
    pub fn literal(&mut self, lit: &'static Literal) -> JResult<usize> {
        // Acquire: pairs with the Release of the thread that made it.
        let v = lit.slot.load(Ordering::Acquire);
        if v != 0 {
            return Ok(v);
        }
        let s = self.new_string(&lit.units)?;
        // AcqRel: publishes our string, or reads the winner's.
        match lit
            .slot
            .compare_exchange(0, s, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(s),
            Err(winner) => Ok(winner),
        }
    }

    /// `String.intern()` of `s`.
    pub fn intern(&mut self, s: usize) -> JResult<usize> {
        let units = self.string_units(s);
        let lit = self.vm.literal(units);
        // Acquire: as `literal`.
        let v = lit.slot.load(Ordering::Acquire);
        if v != 0 {
            return Ok(v);
        }
        // `s` itself becomes the interned one (it may have moved: re-read
        // through the caller's root is not possible here, so store the
        // value we were given, valid since no safepoint happened).
        match lit
            .slot
            .compare_exchange(0, s, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(s),
            Err(winner) => Ok(winner),
        }
    }
}
