//! What a generated loop of `fastpath jit` runs on: a header and a counter
//! for the lock loops, a barrier object (forwarding word, header, a
//! reference field, a data word) and its card table for the barrier loops.
//!
//! Where it sits: [`super::regions`] builds one [`Fixture`] per
//! template or Cranelift row, around the loop [`super::code`] or
//! [`super::clif`] generated.

use std::pin::Pin;

use fastpath::sync::{self, Header};

use super::{clif, code, code::Body};

/// The object the generated barrier loops access: a forwarding word (to
/// the object itself, as a Brooks pointer of an object not copied), then
/// the object: a header word, a reference field (pointing to the object
/// itself) and a data word.
pub(super) struct BarrierObject {
    words: Pin<Box<[u64; 4]>>,
    /// The card table the card loop marks; its biased base is embedded in
    /// the code as an immediate.
    cards: Vec<u8>,
}

impl BarrierObject {
    fn new() -> BarrierObject {
        let mut words = Box::pin([0u64; 4]);
        let base = words.as_ptr() as u64;
        let obj = base + 8;
        words.as_mut().copy_from_slice(&[obj, 0, obj, 1]);
        BarrierObject {
            words,
            cards: vec![1u8; 2],
        }
    }

    fn obj(&self) -> *const u8 {
        // The object starts after the forwarding word.
        self.words.as_ptr().wrapping_add(1).cast()
    }

    /// `cards − (obj >> 9)`: the card of `obj` is `cards[0]` (the object's
    /// 24 bytes may end on the next card, which `cards[1]` covers).
    fn biased_card_base(&self) -> u64 {
        (self.cards.as_ptr() as u64).wrapping_sub(self.obj() as u64 >> 9)
    }
}

/// What a generated (dynasm or Cranelift) loop runs on.
pub(super) struct Fixture {
    func: code::LoopFn,
    /// Keeps the code installed.
    _code: Box<dyn std::any::Any>,
    pub(super) header: Pin<Box<Header>>,
    pub(super) proto: Pin<Box<Header>>,
    object: BarrierObject,
    pub(super) counter: Box<u64>,
    sum: Box<u64>,
    body: Body,
    /// Hold the header from Rust around each run (the recursive row).
    hold: bool,
}

impl Fixture {
    pub(super) fn new(body: Body, cranelift: bool, hold: bool) -> anyhow::Result<Fixture> {
        let object = BarrierObject::new();
        let body = match body {
            Body::CardStore(_) => Body::CardStore(object.biased_card_base()),
            b => b,
        };
        let (func, code): (code::LoopFn, Box<dyn std::any::Any>) = if cranelift {
            let c = clif::compile(body)?;
            (c.func(), Box::new(c))
        } else {
            let c = code::generate(body)?;
            (c.func(), Box::new(c))
        };
        Ok(Fixture::with_loop(object, body, hold, func, code))
    }

    /// The lock pair's Cranelift loop with the guessing emitters, guessing
    /// the fresh header's word (`cranelift-guessing`).
    pub(super) fn cranelift_guessing() -> anyhow::Result<Fixture> {
        let c = clif::compile_guessing(Header::new().raw() as u64)?;
        let func = c.func();
        Ok(Fixture::with_loop(
            BarrierObject::new(),
            Body::LockPair,
            false,
            func,
            Box::new(c),
        ))
    }

    fn with_loop(
        object: BarrierObject,
        body: Body,
        hold: bool,
        func: code::LoopFn,
        code: Box<dyn std::any::Any>,
    ) -> Fixture {
        Fixture {
            func,
            _code: code,
            header: Box::pin(Header::new()),
            proto: code::fresh_header(),
            object,
            counter: Box::new(0),
            sum: Box::new(0),
            body,
            hold,
        }
    }

    pub(super) fn run(&mut self, n: u64) {
        let thread = fastpath::thread::current().as_ptr();
        let proto: *const u64 = (&*self.proto as *const Header).cast();
        let (obj, aux): (*const u8, *mut u64) = match self.body {
            Body::LockPair | Body::LockChurn | Body::Empty | Body::Poll => {
                ((&*self.header as *const Header).cast(), &mut *self.counter)
            }
            // The stored reference is the object itself.
            Body::Store | Body::SatbStore | Body::CardStore(_) => {
                (self.object.obj(), self.object.obj() as *mut u64)
            }
            Body::Load | Body::LrbLoad | Body::BrooksLoad => (self.object.obj(), &mut *self.sum),
        };
        let _held = self.hold.then(|| sync::lock(self.header.as_ref()));
        (self.func)(thread, obj, aux, n, proto);
    }
}
