//! A [`Header`] embedded in the user's own struct, locked without `unsafe`
//! through the pin projection `Pin<&MyObject>` → `Pin<&Header>`.
//!
//! Where it sits: in front of the lock API. A runtime's object is usually
//! its own struct with a header field beside its data; the lock operations
//! take `Pin<&Header>`, and getting one from `Pin<&MyObject>` is a *pin
//! projection*, which is `unsafe` to write by hand because the compiler
//! cannot check that the field stays pinned. [`embed_header!`](crate::embed_header!) writes it
//! once, after checking at compile time what makes it sound (the rules of
//! `core::pin`'s "structural pinning", as the pin-project crate enforces
//! them):
//! - the field is a `Header` field of the struct itself, not reached
//!   through a `Deref` (a struct pattern names it, and a trait bound that
//!   only `Header` meets checks its type);
//! - the struct is not `Unpin` (a `Header` field already makes it so; a
//!   hand-written `impl Unpin` is refused, since `Pin<&T>` of an `Unpin`
//!   `T` pins nothing);
//! - the struct has no `Drop` impl (one could move the header out of a
//!   pinned object; a conflicting impl refuses it).
//!
//! Then [`HasHeader::header`] gives the pinned header and
//! [`HasHeader::lock`] locks the object.

use core::pin::Pin;

use super::api::HeaderGuard;
use super::header::Header;

/// A type that can give its header pinned. Implement it with
/// [`embed_header!`](crate::embed_header!); a hand-written impl is safe too, but can only hand
/// out a header that is already pinned (a `static`, a `Pin<Box<Header>>`
/// field), since that needs no projection.
///
/// ```
/// use std::pin::pin;
/// use fastpath::sync::{self, HasHeader, Header};
///
/// /// A runtime object: a header and the object's own data.
/// struct Account {
///     header: Header,
///     balance: core::cell::Cell<i64>,
/// }
/// fastpath::embed_header!(Account, header);
///
/// let acct = pin!(Account { header: Header::new(), balance: core::cell::Cell::new(10) });
/// {
///     let _guard = acct.as_ref().lock(); // monitorenter on the embedded header
///     acct.balance.set(acct.balance.get() + 5);
///     assert!(sync::holds_lock(&acct.as_ref().header()));
/// } // monitorexit
/// assert!(!sync::holds_lock(&acct.as_ref().header()));
/// assert_eq!(acct.balance.get(), 15);
/// ```
///
/// Shared between threads, the object must be `Sync`, which a `Cell` is
/// not. Fields of atomics are, with no `unsafe`: the monitor orders every
/// access made under it, so `Relaxed` suffices for data only touched while
/// locked. Four threads, `wait`/`notify` on the embedded header:
///
/// ```
/// use std::pin::pin;
/// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
/// use fastpath::sync::{HasHeader, Header};
///
/// /// Jobs handed from producers to consumers; read and written only with
/// /// the object locked.
/// struct Jobs {
///     header: Header,
///     ready: AtomicU64,
///     done: AtomicU64,
/// }
/// fastpath::embed_header!(Jobs, header);
///
/// let jobs = pin!(Jobs { header: Header::new(), ready: AtomicU64::new(0), done: AtomicU64::new(0) });
/// let jobs = jobs.as_ref(); // Pin<&Jobs>: Copy, and Send because Jobs is Sync
/// std::thread::scope(|s| {
///     for _ in 0..2 {
///         // A consumer: waits (releasing the lock) until a job is ready.
///         s.spawn(move || {
///             for _ in 0..50 {
///                 let guard = jobs.lock();
///                 guard.wait_while(|| jobs.ready.load(Relaxed) == 0, None).unwrap();
///                 jobs.ready.fetch_sub(1, Relaxed);
///                 jobs.done.fetch_add(1, Relaxed);
///             }
///         });
///         // A producer: makes a job and wakes one waiting consumer.
///         s.spawn(move || {
///             for _ in 0..50 {
///                 let guard = jobs.lock();
///                 jobs.ready.fetch_add(1, Relaxed);
///                 guard.notify().unwrap();
///             }
///         });
///     }
/// });
/// assert_eq!(jobs.done.load(Relaxed), 100);
/// ```
///
/// Data that is only ever used under its lock and needs no header of its
/// own is simpler in a [`Synchronized<T>`](crate::sync::Synchronized): it
/// holds the value (a `VecDeque`, any `T: Send`) beside its header, and its
/// guard hands out `&mut T` and has the same `wait_while`/`notify`, with no
/// atomics and no `unsafe`.
pub trait HasHeader {
    /// The object's header, pinned because the object is.
    fn header(self: Pin<&Self>) -> Pin<&Header>;

    /// Locks the object (its header) until the guard is dropped; see
    /// [`super::lock`].
    #[inline]
    fn lock(self: Pin<&Self>) -> HeaderGuard<'_> {
        super::lock(self.header())
    }
}

/// Implements [`HasHeader`](crate::sync::HasHeader) for a struct `$ty`
/// whose field `$field` is a [`Header`](crate::sync::Header): a checked pin
/// projection, so user code locks its own objects with no `unsafe` (see
/// the `HasHeader` example). Refuses, at compile time, a field of another
/// type, a struct that implements `Unpin` or `Drop`:
///
/// ```compile_fail
/// struct Boxed { header: Box<fastpath::sync::Header> } // not a Header field
/// fastpath::embed_header!(Boxed, header);
/// ```
/// ```compile_fail
/// struct Moves { header: fastpath::sync::Header }
/// impl Unpin for Moves {} // Pin<&Moves> would pin nothing
/// fastpath::embed_header!(Moves, header);
/// ```
/// ```compile_fail
/// struct Drops { header: fastpath::sync::Header }
/// impl Drop for Drops { fn drop(&mut self) {} } // could move the header out
/// fastpath::embed_header!(Drops, header);
/// ```
#[macro_export]
macro_rules! embed_header {
    ($ty:ident, $field:ident) => {
        const _: () = {
            // `Unpin` would make `Pin<&$ty>` promise nothing: the
            // `AmbiguousIfUnpin` trick (static_assertions'
            // `assert_not_impl_any`) fails to resolve if `$ty: Unpin`.
            trait AmbiguousIfUnpin<A> {
                fn check() {}
            }
            impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
            struct IsUnpin;
            impl<T: ?Sized + ::core::marker::Unpin> AmbiguousIfUnpin<IsUnpin> for T {}
            const _: fn() = <$ty as AmbiguousIfUnpin<_>>::check;

            // A `Drop` impl could move the header out of a pinned object:
            // this impl conflicts with the blanket one if `$ty: Drop`.
            #[allow(dead_code)] // only its impls matter
            trait MustNotImplDrop {}
            #[allow(drop_bounds)]
            impl<T: ::core::ops::Drop> MustNotImplDrop for T {}
            impl MustNotImplDrop for $ty {}

            impl $crate::sync::HasHeader for $ty {
                #[inline]
                fn header(self: ::core::pin::Pin<&Self>) -> ::core::pin::Pin<&$crate::sync::Header> {
                    // Generic, so `T` is the field's own type: no coercion.
                    fn assert_is_header<T: $crate::sync::embed_private::IsHeader>(_: &T) {}
                    // SAFETY: structural pinning of `$field` (module docs of
                    // `fastpath::sync::embed`): it is a field of `$ty` itself
                    // (the struct pattern refuses one reached through
                    // `Deref`), of type `Header` exactly (`IsHeader` is
                    // implemented for nothing else, and a generic argument
                    // is never coerced); `$ty` is not `Unpin` and has no
                    // `Drop` (both checked above), so nothing moves the
                    // header while the object is pinned.
                    unsafe {
                        self.map_unchecked(|s| {
                            let $ty { $field: h, .. } = s;
                            assert_is_header(h);
                            h
                        })
                    }
                }
            }
        };
    };
}

/// Items [`embed_header!`](crate::embed_header!) names; not part of the API.
#[doc(hidden)]
pub mod private {
    /// Implemented by [`Header`](super::Header) only: the macro's check
    /// that the projected field is a header.
    pub trait IsHeader {}
    impl IsHeader for super::Header {}
}
