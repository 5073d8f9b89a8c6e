//! The data load and store templates on x86-64, run from the `CodeCache`
//! against the Rust accessors on real heaps (`common::data_world`: every
//! preset, and during evacuation on a Brooks and an LRB heap, the store's
//! stub calling the library's Brooks slow path), and iced-x86 checks of
//! the machine code: registers written ⊆ clobbers, the one memory write
//! the store itself (through the object's register), counts within budget.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::data_world::{Access, LoadFn, StoreFn};
use common::x64::decode_bytes;
use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::*;

/// `fn(block rdi, obj rsi, index rdx) -> rax`.
fn load_function(cache: &CodeCache, a: Access) -> LoadFn {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    DataLoad {
        obj: RSI,
        dst: RAX,
        index: a.indexed.then_some(RDX),
        offset: a.offset,
        width: a.width,
        barrier: a.barrier,
    }
    .emit(&mut ops, labels)
    .unwrap();
    dynasm!(ops ; .arch x64 ; ret);
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, obj, index) -> u64` reading
    // the object (and its forwarding word).
    unsafe { e.as_fn() }
}

/// `fn(block rdi, obj rsi, index rdx, value rcx) -> the object written`:
/// the object moved to r9 and the value to rsi (a byte store from sil
/// needs its REX prefix), the template's own slow call in its stub.
fn store_function(cache: &CodeCache, a: Access, slow: usize) -> StoreFn {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let t = store(a);
    dynasm!(ops ; .arch x64 ; push rbx ; mov r9, rsi ; mov rsi, rcx); // rsp 16-aligned for the stub
    t.emit(&mut ops, labels).unwrap();
    dynasm!(ops ; .arch x64 ; mov rax, r9 ; pop rbx ; ret);
    if let Some(call) = t.slow_call() {
        call.stub(slow, &[], RegSet::of(&[RDI, R9, RSI, RDX]))
            .unwrap()
            .emit(&mut ops, labels.slow, labels.done)
            .unwrap();
    }
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, obj, index, value) -> obj`
    // writing the object's data (and through the stub the heap).
    unsafe { e.as_fn() }
}

fn store(a: Access) -> DataStore {
    DataStore {
        thread: RDI,
        obj: R9,
        src: RSI,
        index: a.indexed.then_some(RDX),
        tmp: R10,
        tmp2: R10,
        offset: a.offset,
        width: a.width,
        barrier: a.barrier,
    }
}

common::cases::data_access_tests!(load_function, store_function);
common::cases::reference_access_tests!(load_function, store_function);

/// Every width and barrier, field and element: the registers written are
/// the declared clobbers, the only memory write is the store's (through
/// the object's register), the common path within budget; the Brooks
/// write barrier's stub saves the live caller-saved registers.
#[test]
fn machine_checks_of_the_data_templates() {
    let wb = DataBarrier::BrooksWrite {
        gc_state: fastpath::thread::GC_STATE_OFFSET as i32,
        state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
        forwarding: -8,
    };
    let fwd = DataBarrier::Forwarded { forwarding: -8 };
    let mut n = 0;
    let refs = [
        DataWidth::Ref(RefWidth::Full),
        DataWidth::Ref(RefWidth::Compressed),
        DataWidth::Ref(RefWidth::Unscaled),
    ];
    for width in DataWidth::ALL.into_iter().chain(refs) {
        for index in [None, Some(RCX)] {
            let offset = 24 + 8 * width.bytes() as i32;
            for barrier in [DataBarrier::None, fwd] {
                let load = DataLoad {
                    obj: RSI,
                    dst: R11,
                    index,
                    offset,
                    width,
                    barrier,
                };
                let d = decode_bytes(
                    "data load",
                    &code(|a, l| load.emit(a, l).unwrap()),
                    load.clobbers(Isa::X64),
                );
                assert!(d.mem_writes.is_empty(), "a load writes no memory");
                assert_eq!(d.count(), load.budget(Isa::X64), "{load:?}");
                n += 1;
            }
            for barrier in [DataBarrier::None, fwd, wb] {
                let store = DataStore {
                    thread: R15,
                    obj: RDI,
                    src: RSI,
                    index,
                    tmp: RAX,
                    tmp2: RAX,
                    offset,
                    width,
                    barrier,
                };
                let d = decode_bytes(
                    "data store",
                    &code(|a, l| store.emit(a, l).unwrap()),
                    store.clobbers(Isa::X64),
                );
                assert_eq!(d.mem_writes.len(), 1, "{store:?}");
                assert_eq!((d.mem_writes[0].base, d.mem_writes[0].locked), (RDI, false));
                assert_eq!(d.count(), store.budget(Isa::X64), "{store:?}");
                n += 1;
            }
        }
    }
    println!("{n} data templates decoded");
    let stub = store(Access {
        width: DataWidth::U8,
        barrier: wb,
        offset: 16,
        indexed: true,
    })
    .slow_call()
    .unwrap()
    .stub(
        slow::brooks_wb as *const () as usize,
        &[],
        RegSet::of(&[RDI, R9, RSI, RDX]),
    )
    .unwrap();
    assert_eq!(common::x64::check_stub(&stub), RegSet::of(&[RDI, RSI, RDX]));
}

/// An unscaled reference slot is a plain 32-bit access: its loads and
/// stores are the U32 ones byte for byte (`mov r32, dword` zero-extending,
/// `mov dword, r32`, no shift, no scratch), field and element, under every
/// barrier; the compressed ones differ from them (the shifts).
#[test]
fn unscaled_reference_accesses_are_the_u32_ones() {
    let wb = DataBarrier::BrooksWrite {
        gc_state: fastpath::thread::GC_STATE_OFFSET as i32,
        state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
        forwarding: -8,
    };
    let fwd = DataBarrier::Forwarded { forwarding: -8 };
    let unscaled = DataWidth::Ref(RefWidth::Unscaled);
    let compressed = DataWidth::Ref(RefWidth::Compressed);
    let mut n = 0;
    for indexed in [false, true] {
        for barrier in [DataBarrier::None, fwd, wb] {
            let a = Access {
                width: unscaled,
                barrier,
                offset: 20,
                indexed,
            };
            let (u, plain) = (
                store(a),
                store(Access {
                    width: DataWidth::U32,
                    ..a
                }),
            );
            let bytes = code(|o, l| u.emit(o, l).unwrap());
            assert_eq!(bytes, code(|o, l| plain.emit(o, l).unwrap()), "store {a:?}");
            assert_eq!(
                (u.operands(Isa::X64), u.clobbers(Isa::X64), u.budget(Isa::X64)),
                (
                    plain.operands(Isa::X64),
                    plain.clobbers(Isa::X64),
                    plain.budget(Isa::X64)
                ),
                "store {a:?}"
            );
            let c = store(Access {
                width: compressed,
                ..a
            });
            assert_ne!(bytes, code(|o, l| c.emit(o, l).unwrap()), "store {a:?}");
            let d = decode_bytes("unscaled store", &bytes, u.clobbers(Isa::X64));
            let last = d.mem_writes.last().unwrap().text.clone();
            assert!(last.starts_with("mov [r9"), "{last}");
            assert!(last.ends_with(",esi"), "{last}");
            n += 1;
            if barrier == wb {
                continue;
            }
            let load = |width| DataLoad {
                obj: RSI,
                dst: RAX,
                index: indexed.then_some(RDX),
                offset: 20,
                width,
                barrier,
            };
            let (u, plain) = (load(unscaled), load(DataWidth::U32));
            let bytes = code(|o, l| u.emit(o, l).unwrap());
            assert_eq!(bytes, code(|o, l| plain.emit(o, l).unwrap()), "load {a:?}");
            assert_eq!(u.budget(Isa::X64), plain.budget(Isa::X64), "load {a:?}");
            assert_ne!(
                bytes,
                code(|o, l| load(compressed).emit(o, l).unwrap()),
                "load {a:?}"
            );
            n += 1;
        }
    }
    assert_eq!(n, 10);
}

/// A data store's bytes, `slow` bound after them (the Brooks write form
/// binds `done` itself; the others leave it unbound).
fn code(emit: impl FnOnce(&mut VecAssembler<X64Relocation>, Labels)) -> Vec<u8> {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    emit(&mut ops, labels);
    let end = ops.offset().0;
    dynasm!(ops ; .arch x64 ; =>labels.slow ; int3);
    let mut code = ops.finalize().unwrap();
    code.truncate(end);
    code
}

/// The byte store from sil keeps its REX prefix (`mov [rdi+16], sil`, not
/// `dh`), and refusals: an operand twice, a misaligned offset.
#[test]
fn byte_stores_from_the_low_registers_and_refusals() {
    let s = DataStore {
        thread: R15,
        obj: RDI,
        src: RSI,
        index: None,
        tmp: RAX,
        tmp2: RAX,
        offset: 16,
        width: DataWidth::I8,
        barrier: DataBarrier::None,
    };
    let bytes = code(|a, l| s.emit(a, l).unwrap());
    let d = decode_bytes("byte store", &bytes, RegSet::EMPTY);
    assert_eq!(d.count(), 1);
    assert_eq!(d.insns[0].to_string(), "mov [rdi+10h],sil");
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert!(DataStore { src: RDI, ..s }.emit(&mut ops, l).is_err(), "aliased");
    assert!(DataStore {
        offset: 17,
        width: DataWidth::U16,
        ..s
    }
    .emit(&mut ops, l)
    .is_err());
    assert!(DataStore { obj: RSP, ..s }.emit(&mut ops, l).is_err(), "rsp");
}
