//! The test cases every architecture (and fastpath-cranelift's CLIF
//! emitters) run the same way on their own builders, as macros a test
//! binary expands once: each case builds the generated function with the
//! binary's builder and runs the shared scenario on it.
// Each binary expands the macros of its own cases.
#![allow(unused_macros, unused_imports)]

/// The SATB enqueue and LRB collection-set scenarios (`gc_world`, in both
/// cell formats) and the LRB on real concurrent heaps of both formats
/// (`lrb_real`: `shenandoah` with each format), on `$satb(&CodeCache) -> Entry` (a
/// [`super::gc_world::SatbFn`]) and `$lrb(&CodeCache, ThreadLayout,
/// CsetMap, Forwardee, slow) -> Entry` (the barrier of a loaded reference,
/// its stub calling `slow`: a [`super::gc_world::LrbFn`] on the test
/// world, a [`super::lrb_real::LrbFn`] on a real heap and thread block).
macro_rules! gc_medium_tests {
    ($satb:path, $lrb:path) => {
        #[test]
        fn satb_records_every_overwritten_non_null_value_once() {
            let cache = fastpath::code::CodeCache::new(64 * 1024).unwrap();
            let e = $satb(&cache);
            // SAFETY: an `extern "C" fn(*mut TestThread, *mut u64)` reading
            // the field and the test block, writing the block and its
            // buffer.
            let barrier: crate::common::gc_world::SatbFn = unsafe { e.as_fn() };
            crate::common::gc_world::satb_records_every_overwritten_non_null_value_once(barrier);
        }

        #[test]
        fn lrb_resolves_forwarded_objects_and_evacuates_through_the_slow_path() {
            use fastpath_jit::{CellFormat, Forwardee};
            for format in [CellFormat::Brooks, CellFormat::Compact] {
                let cache = fastpath::code::CodeCache::new(64 * 1024).unwrap();
                let heap = crate::common::gc_world::lrb_heap(Forwardee::fastpath(format));
                let evacuate = crate::common::gc_world::lrb_evacuate as *const () as usize;
                let layout = crate::common::gc_world::layout();
                let e = $lrb(&cache, layout, heap.cset, heap.forwardee, evacuate);
                // SAFETY: an `extern "C" fn(*mut TestThread, u64, u64) ->
                // u64` reading the test block, the map and the objects'
                // words that record copies, calling `lrb_evacuate`.
                let lrb: crate::common::gc_world::LrbFn = unsafe { e.as_fn() };
                crate::common::gc_world::lrb_resolves_forwarded_objects_and_evacuates_through_the_slow_path(
                    &heap, lrb,
                );
            }
        }

        /// On a `shenandoah` heap of compact cells: copies in layout words.
        #[test]
        fn lrb_resolves_real_copies_on_a_compact_heap() {
            std::thread::spawn(|| {
                crate::common::lrb_real::lrb_resolves_real_copies($lrb, fastpath_jit::CellFormat::Compact)
            })
            .join()
            .unwrap();
        }

        /// On a `shenandoah` heap of Brooks cells: copies in forwarding
        /// words.
        #[test]
        fn lrb_resolves_real_copies_on_a_brooks_heap() {
            std::thread::spawn(|| {
                crate::common::lrb_real::lrb_resolves_real_copies($lrb, fastpath_jit::CellFormat::Brooks)
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use gc_medium_tests;

/// The Brooks write barrier's differential against the Rust model
/// (`brooks_world`) and its run with the library's slow path on a
/// concurrent heap (`brooks_real`), on `$wb(&CodeCache, gc_state offset,
/// slow path) -> F`, the binary's `fn(block, obj, val, out)` builder.
macro_rules! brooks_wb_tests {
    ($wb:path) => {
        #[test]
        fn brooks_wb_template_matches_the_rust_barrier_on_every_case() {
            use crate::common::brooks_world;
            let cache = fastpath::code::CodeCache::new(64 * 1024).unwrap();
            let gc_state = std::mem::offset_of!(brooks_world::TestThread, gc_state) as i32;
            let wb: brooks_world::Wb = $wb(
                &cache,
                gc_state,
                brooks_world::slow_entry as *const () as usize,
            );
            brooks_world::differential(wb);
        }

        /// The same function with the real block's offset and the
        /// library's slow path, on a concurrent `shenandoah-2017` heap
        /// (`brooks_real`): the stub copies or finds the copy, the
        /// original forwards to it.
        #[test]
        fn brooks_wb_stub_reaches_the_library_on_a_concurrent_heap() {
            use crate::common::brooks_real;
            std::thread::spawn(|| {
                let cache = fastpath::code::CodeCache::new(64 * 1024).unwrap();
                let gc_state = fastpath::thread::GC_STATE_OFFSET as i32;
                let wb: brooks_real::Wb = $wb(
                    &cache,
                    gc_state,
                    brooks_real::slow_counted as *const () as usize,
                );
                brooks_real::copies_through_the_stub(wb);
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use brooks_wb_tests;

/// The data load and store templates against the Rust accessors
/// (`data_world`), on `$load(&CodeCache, Access) -> LoadFn` and
/// `$store(&CodeCache, Access, slow) -> StoreFn`, the binary's builders:
/// every preset in passive mode, then a concurrent Brooks heap and a
/// concurrent LRB heap during evacuation (each on a thread of its own: a
/// thread is one heap's mutator at a time).
macro_rules! data_access_tests {
    ($load:path, $store:path) => {
        #[test]
        fn data_templates_agree_with_the_rust_accessors_in_every_preset() {
            std::thread::spawn(|| {
                crate::common::data_world::every_form_agrees_with_the_rust_accessors($load, $store)
            })
            .join()
            .unwrap();
        }

        #[test]
        fn brooks_data_stores_reach_the_copy_during_evacuation() {
            std::thread::spawn(|| {
                crate::common::data_world::brooks_stores_reach_the_copy_during_evacuation($load, $store)
            })
            .join()
            .unwrap();
        }

        #[test]
        fn lrb_data_accesses_need_no_barrier_during_evacuation() {
            std::thread::spawn(|| {
                crate::common::data_world::lrb_accesses_need_no_barrier_during_evacuation($load, $store)
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use data_access_tests;

/// The reference CAS template's false failures retried by the library's
/// slow entry on a concurrent heap (`cas_real`), on `$cas(&CodeCache,
/// slow) -> CasFn`, the binary's builder.
macro_rules! cas_ref_tests {
    ($cas:path) => {
        #[test]
        fn reference_cas_false_failures_succeed_through_the_library_slow_entry() {
            std::thread::spawn(|| {
                crate::common::cas_real::false_failures_succeed_through_the_slow_entry($cas)
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use cas_ref_tests;

/// The data templates' reference loads and stores on real heaps of every
/// reference width (`ref_slots`), on the binary's data builders
/// (`$load(&CodeCache, Access) -> LoadFn`, `$store(&CodeCache, Access,
/// slow) -> StoreFn`).
macro_rules! reference_access_tests {
    ($load:path, $store:path) => {
        #[test]
        fn reference_loads_and_stores_round_trip_real_objects_in_every_width() {
            std::thread::spawn(|| {
                crate::common::ref_slots::references_round_trip_real_objects($load, $store)
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use reference_access_tests;

/// The reference CAS in every reference width (`cas_real`): its outcomes
/// on the slots of passive heaps, and the false failures retried by the
/// library on concurrent heaps with compressed and with unscaled
/// references, on `$cas(&CodeCache, RefWidth, slow) -> CasFn`, the
/// binary's builder.
macro_rules! cas_ref_width_tests {
    ($cas:path) => {
        #[test]
        fn reference_cas_succeeds_and_fails_on_real_slots_of_every_width() {
            std::thread::spawn(|| crate::common::cas_real::cas_on_real_slots($cas))
                .join()
                .unwrap();
        }

        #[test]
        fn reference_cas_false_failures_succeed_on_a_compressed_heap() {
            std::thread::spawn(|| {
                crate::common::cas_real::false_failures_succeed_through_the_slow_entry_in(
                    $cas,
                    fastpath::gc::layout::RefWidth::Compressed,
                )
            })
            .join()
            .unwrap();
        }

        #[test]
        fn reference_cas_false_failures_succeed_on_an_unscaled_heap() {
            std::thread::spawn(|| {
                crate::common::cas_real::false_failures_succeed_through_the_slow_entry_in(
                    $cas,
                    fastpath::gc::layout::RefWidth::Unscaled,
                )
            })
            .join()
            .unwrap();
        }
    };
}
pub(crate) use cas_ref_width_tests;
