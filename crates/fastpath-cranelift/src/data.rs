//! Data loads and stores as CLIF, the shapes of the templates described in
//! `fastpath_jit::template::data` (`DataLoad`, `DataStore`): `width`
//! bytes at `obj + offset`, or at `obj + offset + index × width` for an
//! element, after the barrier the heap's set needs on data
//! (`DataBarrier::read`/`write` compute it from a set):
//!
//! - `DataBarrier::None`: the access alone (the LRB sets, and every set
//!   without Brooks barriers);
//! - `DataBarrier::Forwarded`: `load [obj+forwarding]` first, the access
//!   through the copy (Brooks read barrier; like the next, only on a heap
//!   of the Brooks cell format, whose objects have the forwarding word);
//! - `DataBarrier::BrooksWrite` (stores): the GC-state byte at `thread +
//!   gc_state` tested for `state_bits`; when clear, `load [obj+forwarding]`;
//!   when set, in a cold block, `slow(thread, obj) -> the object to write`
//!   (fastpath's: `fastpath_jit::slow::brooks_wb`, which copies the object
//!   first while evacuation runs); then the store.
//!
//! Loads are zero- or sign-extended to `I64` (`uload8`/`sload8` …
//! `load.i64`); stores write the value's low bytes (`istore8` …
//! `store.i64`). A reference slot (`DataWidth::Ref`, the heap's width) is
//! `load.i64`/`store.i64` at full width, and compressed `uload32` then
//! `ishl_imm 3` (decoded, null 0) or `ushr_imm 3` then `istore32`, as the
//! templates' forms. Every access is aligned (the offset a multiple of the
//! width, checked: an error otherwise), so each is single-copy atomic: no
//! tearing. Plain accesses (the Rust accessors' Relaxed); a runtime's
//! volatile fields add their fences.

use cranelift_codegen::ir::{types::I64, FuncRef, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use fastpath::gc::layout::COMPRESSED_REF_SHIFT;
use fastpath_jit::{DataBarrier, DataWidth, Isa, RefWidth, TemplateError};

use crate::slow::cold_call;

/// The address of the access: `base`, plus `index << shift` for an element.
fn address(b: &mut FunctionBuilder<'_>, base: Value, index: Option<Value>, width: DataWidth) -> Value {
    match index {
        None => base,
        Some(i) => {
            let scaled = b.ins().ishl_imm_u(i, i64::from(width.shift()));
            b.ins().iadd(base, scaled)
        }
    }
}

/// The load of a data field (`index` `None`) or element of `obj`,
/// extended to `I64`; see the module docs. `DataBarrier::BrooksWrite` and
/// a misaligned offset are refused (as the description refuses them).
pub fn data_load(
    b: &mut FunctionBuilder<'_>,
    obj: Value,
    index: Option<Value>,
    offset: i32,
    width: DataWidth,
    barrier: DataBarrier,
) -> Result<Value, TemplateError> {
    width.check_offset(offset)?;
    let trusted = MemFlagsData::trusted();
    let base = match barrier {
        DataBarrier::None => obj,
        // As the read barrier: the access depends on the loaded address.
        DataBarrier::Forwarded { forwarding } => b.ins().load(I64, trusted, obj, forwarding),
        DataBarrier::BrooksWrite { .. } => {
            return Err(TemplateError::Unsupported {
                what: "the Brooks write barrier on a load",
                isa: Isa::HOST.unwrap_or(Isa::X64),
            })
        }
    };
    let at = address(b, base, index, width);
    let ins = b.ins();
    Ok(match width {
        DataWidth::U8 => ins.uload8(I64, trusted, at, offset),
        DataWidth::I8 => ins.sload8(I64, trusted, at, offset),
        DataWidth::U16 => ins.uload16(I64, trusted, at, offset),
        DataWidth::I16 => ins.sload16(I64, trusted, at, offset),
        DataWidth::U32 | DataWidth::Ref(RefWidth::Unscaled) => ins.uload32(trusted, at, offset),
        DataWidth::I32 => ins.sload32(trusted, at, offset),
        DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => ins.load(I64, trusted, at, offset),
        DataWidth::Ref(RefWidth::Compressed) => {
            let slot = ins.uload32(trusted, at, offset);
            b.ins().ishl_imm_u(slot, i64::from(COMPRESSED_REF_SHIFT))
        }
    })
}

/// The store of `value`'s low `width` bytes into a data field or element
/// of `obj`; returns the object written (`obj`, or its copy under a Brooks
/// barrier). `slow` is the Brooks write barrier's slow path `(thread, obj)
/// -> obj` (fastpath's: `import_library_slow_path` of
/// `LibraryPath::BrooksWb`), required with `DataBarrier::BrooksWrite` and
/// unused otherwise. Refused: a misaligned offset, `BrooksWrite` without
/// `slow` or with no state bit.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn data_store(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    index: Option<Value>,
    offset: i32,
    width: DataWidth,
    value: Value,
    barrier: DataBarrier,
    slow: Option<FuncRef>,
) -> Result<Value, TemplateError> {
    width.check_offset(offset)?;
    let trusted = MemFlagsData::trusted();
    let target = match barrier {
        DataBarrier::None => obj,
        DataBarrier::Forwarded { forwarding } => b.ins().load(I64, trusted, obj, forwarding),
        DataBarrier::BrooksWrite {
            gc_state,
            state_bits,
            forwarding,
        } => {
            if state_bits == 0 {
                return Err(TemplateError::NoBit);
            }
            let slow = slow.ok_or(TemplateError::Unsupported {
                what: "the Brooks write barrier without its slow path",
                isa: Isa::HOST.unwrap_or(Isa::X64),
            })?;
            let (fast, call, cont) = (b.create_block(), b.create_block(), b.create_block());
            let target = b.append_block_param(cont, I64);
            let gc = b.ins().uload8(I64, trusted, thread, gc_state);
            let active = b.ins().band_imm_u(gc, i64::from(state_bits));
            b.ins().brif(active, call, &[], fast, &[]);

            b.switch_to_block(fast);
            let to = b.ins().load(I64, trusted, obj, forwarding);
            b.ins().jump(cont, &[to.into()]);

            cold_call(b, call, slow, &[thread, obj], cont);
            b.switch_to_block(cont);
            target
        }
    };
    let at = address(b, target, index, width);
    let value = if width.compressed() {
        b.ins().ushr_imm_u(value, i64::from(COMPRESSED_REF_SHIFT))
    } else {
        value
    };
    let ins = b.ins();
    match width.bytes() {
        1 => ins.istore8(trusted, value, at, offset),
        2 => ins.istore16(trusted, value, at, offset),
        4 => ins.istore32(trusted, value, at, offset),
        _ => ins.store(trusted, value, at, offset),
    };
    Ok(target)
}
