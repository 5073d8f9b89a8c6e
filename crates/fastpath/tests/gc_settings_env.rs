//! `FASTPATH_GC_BARRIERS` and `FASTPATH_GC_MODE` reach a heap made with
//! `HeapConfig::from_config`, in a process of its own (the settings are
//! process-wide and fixed once read).
//!
//! One test only: it sets the variables before anything in this process
//! reads them.

use fastpath::gc::{with_barrier_set, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, WithBarrierSet};

/// Allocates and stores through a mutator of the set's own type.
struct Use<'h>(&'h Heap);

impl WithBarrierSet for Use<'_> {
    type Output = Option<u16>;
    fn run<B: BarrierSet>(self, _bits: BarrierBits) -> Option<u16> {
        let mut m = self.0.mutator::<B>().expect("the heap's own set");
        let a = m.alloc(1, 0).unwrap();
        let b = m.alloc(0, 1).unwrap();
        let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
        m.store(oa, 0, Some(ob)).unwrap();
        assert!(m.load(oa, 0).unwrap().is_some());
        B::BITS
    }
}

#[test]
fn the_environment_reaches_a_heap_made_from_the_configuration() {
    std::env::set_var("FASTPATH_GC_BARRIERS", "shenandoah-2017");
    std::env::set_var("FASTPATH_GC_MODE", "concurrent");

    let config = HeapConfig::from_config(8 << 20);
    assert_eq!(config.barriers, BarrierBits::SHENANDOAH_2017);
    assert_eq!(config.mode, GcMode::Concurrent);
    let heap = Heap::new(config).unwrap();
    assert_eq!(heap.config().barriers, BarrierBits::SHENANDOAH_2017);
    assert_eq!(heap.config().mode, GcMode::Concurrent);
    // The set, chosen at run time, runs monomorphised.
    assert_eq!(
        with_barrier_set(heap.config().barriers, Use(&heap)),
        Some(BarrierBits::SHENANDOAH_2017.0)
    );

    // The gathered configuration says the same, and the strict entry point
    // accepts it.
    let c = fastpath::config::global();
    assert_eq!(
        (c.gc_barriers, c.gc_mode),
        (BarrierBits::SHENANDOAH_2017, GcMode::Concurrent)
    );
    assert_eq!(fastpath::config::init().unwrap(), c);
    println!("{c}");
}
