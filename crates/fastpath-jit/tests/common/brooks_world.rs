//! The Brooks write barrier templates' differential test, shared by every
//! architecture's test binary (x64_brooks_wb.rs, aarch64_brooks_wb.rs): a
//! hand-built thread block and heap (forwarding words, a collection set,
//! a slow path that evacuates as the library's `brooks_wb_slow_entry`
//! does) and a Rust model of `fastpath::gc`'s Brooks write barrier
//! (`barriers/brooks_wb.rs`), run on twin worlds.

pub const EVACUATION: u8 = 1 << 1;
pub const HAS_FORWARDED: u8 = 1 << 2;
pub const REGION: usize = 4096;

/// Three 4 KiB regions: 0 outside the collection set, 1 in it, 2 where
/// evacuation copies region 1's objects (same offset). Objects are two
/// words (forwarding, payload) at 32-byte steps from offset 16.
pub struct World {
    /// The buffer `base` points into (owned here, read through `base`).
    _mem: Vec<u64>,
    base: usize,
    /// Objects the slow path evacuated, in order.
    evacuated: Vec<usize>,
}

impl World {
    fn new() -> World {
        let mem = vec![0u64; 4 * REGION / 8];
        let base = (mem.as_ptr() as usize + REGION - 1) & !(REGION - 1);
        let mut w = World {
            _mem: mem,
            base,
            evacuated: Vec::new(),
        };
        for region in 0..2 {
            for i in 0..4 {
                let o = w.obj(region, i);
                w.set_fwd(o, o);
                w.set_payload(o, (region * 10 + i) as u64);
            }
        }
        // Region 1's object 0 was copied already (its copy in region 2).
        let (b, copy) = (w.obj(1, 0), w.obj(1, 0) + REGION);
        w.set_fwd(copy, copy);
        w.set_payload(copy, w.payload(b));
        w.set_fwd(b, copy);
        // Region 0's object 3 was copied to region 0's object 2 (an
        // earlier cycle left it forwarded outside the collection set).
        let (a3, a2) = (w.obj(0, 3), w.obj(0, 2));
        w.set_fwd(a3, a2);
        w
    }
    fn obj(&self, region: usize, i: usize) -> usize {
        self.base + region * REGION + 16 + 32 * i
    }
    fn word(&self, addr: usize) -> *mut u64 {
        assert!(addr >= self.base && addr < self.base + 3 * REGION && addr & 7 == 0);
        addr as *mut u64
    }
    fn fwd(&self, o: usize) -> usize {
        // SAFETY: a word of this world's live buffer (checked by `word`).
        unsafe { self.word(o - 8).read() as usize }
    }
    fn set_fwd(&mut self, o: usize, to: usize) {
        // SAFETY: as `fwd`; `&mut self` is the only access now.
        unsafe { self.word(o - 8).write(to as u64) }
    }
    fn payload(&self, o: usize) -> u64 {
        // SAFETY: as `fwd`.
        unsafe { self.word(o).read() }
    }
    fn set_payload(&mut self, o: usize, v: u64) {
        // SAFETY: as `set_fwd`.
        unsafe { self.word(o).write(v) }
    }
    fn in_cset(&self, o: usize) -> bool {
        (o - self.base) / REGION == 1
    }
    /// The library's evacuation: the existing copy, or a new one.
    fn evacuate(&mut self, o: usize) -> usize {
        let f = self.fwd(o);
        if f != o {
            return f;
        }
        let copy = o + REGION;
        self.set_fwd(copy, copy);
        self.set_payload(copy, self.payload(o));
        self.set_fwd(o, copy);
        self.evacuated.push(o);
        copy
    }
    /// The forwarding words (`None`: no object there yet) and payloads,
    /// relative to `base`.
    fn snapshot(&self) -> Vec<(usize, Option<usize>, u64)> {
        (0..3)
            .flat_map(|r| (0..4).map(move |i| (r, i)))
            .map(|(r, i)| {
                let o = self.obj(r, i);
                let f = self.fwd(o);
                (o - self.base, (f != 0).then(|| f - self.base), self.payload(o))
            })
            .collect()
    }
}

#[repr(C)]
pub struct TestThread {
    pub gc_state: u8,
    pub world: *mut World,
}

/// The slow path the stub calls: `brooks_wb_slow_entry`'s rule on the
/// test world.
pub extern "C" fn slow_entry(t: *mut TestThread, obj: usize) -> usize {
    // SAFETY: the generated code passes the test block it was given, live
    // for the call, used by this thread only.
    let t = unsafe { &mut *t };
    // SAFETY: the block's world outlives the call and nothing else touches
    // it meanwhile (the test waits for the generated code).
    let w = unsafe { &mut *t.world };
    if t.gc_state & EVACUATION != 0 && w.in_cset(obj) {
        w.evacuate(obj)
    } else {
        w.fwd(obj)
    }
}

/// The Rust Brooks write barrier (`resolve_for_write` and
/// `brooks_wb_slow` in `fastpath::gc`), on the test world.
pub fn rust_barrier(w: &mut World, state: u8, obj: usize, v: usize) -> (usize, usize) {
    if state & (EVACUATION | HAS_FORWARDED) != 0 {
        let o = if state & EVACUATION != 0 && w.in_cset(obj) {
            w.evacuate(obj)
        } else {
            w.fwd(obj)
        };
        (o, if v != 0 { w.fwd(v) } else { 0 })
    } else {
        (w.fwd(obj), v)
    }
}

/// fn(thread, obj, val, out): out = [object to write, value to store].
pub type Wb = extern "C" fn(*mut TestThread, usize, usize, *mut [usize; 2]);

/// Every GC state × object × value case through `wb` (generated code)
/// and the Rust model on twin worlds: the objects and values returned, the
/// heaps and the evacuations must be equal. Returns the cases run.
pub fn differential(wb: Wb) -> usize {
    let (mut cases, mut slow_calls) = (0, 0);
    for state in [0, HAS_FORWARDED, EVACUATION | HAS_FORWARDED, EVACUATION] {
        // Objects: unforwarded outside the collection set, forwarded
        // outside it, forwarded in it, unforwarded in it (twice: the second
        // write finds the first's copy).
        for obj_ix in [(0, 0), (0, 3), (1, 0), (1, 1), (1, 2)] {
            // Values: null, unforwarded, forwarded (in and outside the
            // collection set), unforwarded in the collection set.
            for val_ix in [None, Some((0, 1)), Some((0, 3)), Some((1, 0)), Some((1, 3))] {
                let mut wt = Box::new(World::new());
                let mut wr = World::new();
                let rel = |w: &World, a: usize| if a == 0 { 0 } else { a - w.base };
                let (obj_t, obj_r) = (wt.obj(obj_ix.0, obj_ix.1), wr.obj(obj_ix.0, obj_ix.1));
                let (val_t, val_r) = match val_ix {
                    None => (0, 0),
                    Some((r, i)) => (wt.obj(r, i), wr.obj(r, i)),
                };
                let mut t = TestThread {
                    gc_state: state,
                    world: &mut *wt,
                };
                let mut out = [0usize; 2];
                wb(&mut t, obj_t, val_t, &mut out);
                // A second write through the same object: after the first,
                // every case is on its fast or resolving path.
                let mut out2 = [0usize; 2];
                wb(&mut t, obj_t, val_t, &mut out2);
                let r = rust_barrier(&mut wr, state, obj_r, val_r);
                let r2 = rust_barrier(&mut wr, state, obj_r, val_r);
                let what = format!("state {state:#x}, obj {obj_ix:?}, val {val_ix:?}");
                assert_eq!(
                    (rel(&wt, out[0]), rel(&wt, out[1])),
                    (rel(&wr, r.0), rel(&wr, r.1)),
                    "{what}: first write"
                );
                assert_eq!(
                    (rel(&wt, out2[0]), rel(&wt, out2[1])),
                    (rel(&wr, r2.0), rel(&wr, r2.1)),
                    "{what}: second write"
                );
                assert_eq!(wt.snapshot(), wr.snapshot(), "{what}: the heap");
                let ev = |w: &World| w.evacuated.iter().map(|&o| o - w.base).collect::<Vec<_>>();
                assert_eq!(ev(&wt), ev(&wr), "{what}: evacuations");
                // The object to write is never a from-space object while
                // evacuation runs.
                if state & EVACUATION != 0 {
                    assert!(!wt.in_cset(out[0]), "{what}: writes to from-space");
                }
                if state != 0 {
                    slow_calls += 2;
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 100);
    println!("{cases} cases (x2 writes), {slow_calls} through the slow path, equal to the Rust barrier");
    cases
}
