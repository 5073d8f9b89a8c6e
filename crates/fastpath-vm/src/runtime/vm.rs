//! The VM: one per process, reachable from one pointer (the JIT's
//! `vmctx`): the class registry, the heap, the global roots, the interned
//! strings, the options, and the threads' bookkeeping.
//!
//! Where it sits: at the top of `runtime`; `main.rs` builds it from the
//! command line ([`Vm::boot`]), every thread holds `&'static Vm`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use fastpath::gc::layout::RefWidth;
use fastpath::gc::{Heap, HeapConfig, RootScanner};

use super::globals::GlobalSlots;
use crate::link::archive::Archive;
use crate::link::classpath::ClassPath;
use crate::link::{Class, Loader};
use crate::runtime::Error;

/// What the mutators may allocate before the heap's first collection
/// when `-Xms` is not given, in bytes: the heap's soft capacity starts at
/// its evacuation reserve plus this
/// ([`fastpath::gc::HeapConfig::evacuation_reserve_bytes`]; 32 MiB for the
/// default 256 MiB heap, whose reserve is 16). HotSpot starts at a 64th of
/// the machine's memory and stays small where it matters through its
/// young generation; this collector has none, and every region it hands
/// out for the first time costs the first write to its pages (0.54–0.72
/// ns a byte on the guests of BENCHMARKS.md: 2 ms for each 4 MiB a
/// program allocates into fresh memory). So it collects within the
/// capacity, and the capacity grows with the live data and the
/// collector's share of the time (`fastpath::gc`'s `heap/capacity.rs`).
/// Why 16 MiB and not less (BENCHMARKS.md, 4 Dec): with 4 or 8, Sieve
/// (little live data) warms up in 24–36 ms instead of 58, but a program
/// whose live data grows the capacity pays the first writes to the
/// regions it grows by later, inside its steady state (Json's iterations
/// 7–12 at two to three times its peak; LruCache's peak 1.16 x with 4).
pub const DEFAULT_FIRST_ALLOCATION: usize = 16 << 20;

/// The heap's read-ahead: regions kept faulted in past the highest one the
/// program's allocation has reached, within the soft capacity, by the
/// heap's own thread (`fastpath::gc`'s `heap/read_ahead.rs`), so that the
/// first writes to fresh regions, 2 ms for each 4 MiB on the guests of
/// BENCHMARKS.md, are not the program's: Sieve's first iterations after
/// compilation ran at its peak with it, 1.2 times it without. Eight
/// regions of the default heap: at the 0.5–1.5 GB/s the programs of
/// BENCHMARKS.md allocate, several milliseconds' allocation ahead, which
/// is what the thread, at about 1.5 GB/s, needs to stay in front.
/// With the passive collector only, by default: with the concurrent one,
/// whose cycles race the mutators' allocation, a mutator spared its first
/// writes ran the heap dry during cycles (GcTrees at 64 MiB: 6–12
/// degenerated cycles in 25 runs with it, the thread in the idle
/// scheduling class or not, none without it).
pub const DEFAULT_READ_AHEAD: usize = 8 << 20;

/// The reference width of a heap of `heap_bytes` when neither
/// `-XX:±UseCompressedOops` nor `FASTPATH_GC_REFS` chose one: 4-byte slots
/// when they reach the whole heap (HotSpot's ergonomics), whose smaller
/// objects put more of them in each cache line and give the collector less
/// to copy; unscaled ones (the address itself) for a heap that fits below
/// 4 GiB, as HotSpot's first choice of mode, since they leave out the
/// shift between loading a reference and loading through it (Callgrind per
/// iteration, against compressed: BENCHMARKS.md). [`Vm::boot`] falls back
/// to compressed ones when no range below 4 GiB is free.
pub fn default_ref_width(heap_bytes: usize) -> RefWidth {
    [RefWidth::Unscaled, RefWidth::Compressed]
        .into_iter()
        .find(|w| heap_bytes <= w.max_heap_bytes())
        .unwrap_or(RefWidth::Full)
}

/// What the command line and environment chose.
#[derive(Clone, Debug)]
pub struct Options {
    /// The class path.
    pub class_path: String,
    /// `-Xmx` in bytes.
    pub heap_bytes: usize,
    /// `-Xms` in bytes: the heap's soft capacity at the start
    /// (`fastpath::gc::HeapConfig::initial_bytes`); `None`:
    /// the evacuation reserve plus [`DEFAULT_FIRST_ALLOCATION`], or the
    /// whole heap when that is smaller.
    pub initial_heap_bytes: Option<usize>,
    /// `-Xss` in bytes (each Java thread's slot stack).
    pub stack_bytes: usize,
    /// The heap's read-ahead in bytes
    /// (`fastpath::gc::HeapConfig::read_ahead_bytes`;
    /// `FASTPATH_VM_READ_AHEAD`, a size, 0 off); `None`:
    /// [`DEFAULT_READ_AHEAD`] with the passive collector, none with the
    /// concurrent one.
    pub read_ahead_bytes: Option<usize>,
    /// Run the collector's heap verifier after every cycle
    /// (`FASTPATH_VM_VERIFY_HEAP=1`).
    pub verify_heap: bool,
    /// Which tiers run (`-Xint`, `-Xcomp`, `FASTPATH_VM_JIT`).
    pub jit: crate::jit::Mode,
    /// What the `-XX:` flags select (`cli::xx`).
    pub xx: crate::cli::xx::XxOptions,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            class_path: ".".into(),
            heap_bytes: 256 << 20,
            initial_heap_bytes: None,
            stack_bytes: 1 << 20,
            read_ahead_bytes: None,
            verify_heap: false,
            jit: crate::jit::Mode::Mixed,
            xx: Default::default(),
        }
    }
}

/// Live threads, for the VM's exit rule (it ends when every non-daemon
/// thread has ended).
#[derive(Default)]
pub struct Threads {
    /// Non-daemon Java threads started and not yet ended (main excluded).
    pub non_daemon: Mutex<usize>,
    /// Signalled when `non_daemon` drops.
    pub ended: Condvar,
    /// Threads ever started (for names `Thread-N`).
    pub started: AtomicUsize,
}

/// The VM.
pub struct Vm {
    /// Classes.
    pub loader: Loader,
    /// The heap.
    pub heap: Heap,
    /// Global roots.
    pub globals: GlobalSlots,
    /// Interned strings: contents → the literal (its global slot).
    pub interned: Mutex<HashMap<Box<[u16]>, &'static Literal>>,
    /// `String.value`'s reference index.
    pub string_value_index: OnceLock<usize>,
    /// Options.
    pub options: Options,
    /// Thread bookkeeping.
    pub threads: Threads,
    /// Classes the runtime names often.
    pub known: Known,
    /// The JIT.
    pub jit: crate::jit::Jit,
    /// An `OutOfMemoryError` made at start-up, thrown when even a new one
    /// cannot be allocated.
    pub preallocated_oom: OnceLock<&'static AtomicUsize>,
    /// A `StackOverflowError` made at start-up, thrown when even the
    /// reserve is not enough to make a new one.
    pub preallocated_soe: OnceLock<&'static AtomicUsize>,
    /// The built-in classes `ldc`'s and natives need, by name.
    cache: Mutex<HashMap<&'static str, &'static Class>>,
}

/// An interned string: its contents and the global slot of its `String`
/// (0 until the first thread that needs the object makes it).
#[derive(Debug)]
pub struct Literal {
    /// The global root holding the `String`.
    pub slot: &'static AtomicUsize,
    /// Its characters.
    pub units: Box<[u16]>,
}

/// Classes the interpreter and natives use on hot paths.
#[derive(Default)]
pub struct Known {
    /// `java.lang.Object`
    pub object: OnceLock<&'static Class>,
    /// `java.lang.String`
    pub string: OnceLock<&'static Class>,
    /// `char[]`
    pub char_array: OnceLock<&'static Class>,
    /// `java.lang.Class`
    pub class: OnceLock<&'static Class>,
}

/// The heap-wide roots: global slots and every class's static references.
struct VmRoots(&'static Vm);

impl RootScanner for VmRoots {
    fn scan(&self, visit: &mut dyn FnMut(&mut usize)) {
        self.0.globals.scan(visit);
        self.0.loader.for_each_class(|c| {
            for &i in &c.static_refs {
                let s = &c.statics[i as usize];
                // Relaxed: in a pause (globals.rs says why).
                let mut v = s.load(Ordering::Relaxed) as usize;
                if v != 0 {
                    visit(&mut v);
                    s.store(v as u64, Ordering::Relaxed);
                }
            }
        });
    }
}

/// A library setting's value as the command line (`-XX:` flags, the
/// last one first) or else the environment gives it.
fn given_setting(xx: &[(&'static str, String)], var: &str) -> Option<String> {
    xx.iter()
        .rev()
        .find(|(v, _)| *v == var)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(var).ok())
}

/// The settings the VM chooses where neither the command line nor the
/// environment did (HotSpot's ergonomics): the passive collector, chosen
/// by default, runs without barriers. It stops every thread and moves
/// objects only then, updating every reference in the pause, so no load,
/// store or CAS of compiled or interpreted code needs a barrier, as
/// HotSpot's Shenandoah turns its barriers off in its passive mode
/// (`ShenandoahPassiveMode::initialize_flags`). The library's default set
/// (`shenandoah`) stays the concurrent collector's, which needs it;
/// `FASTPATH_GC_BARRIERS` or a collector's `-XX:` flag chooses any other.
pub fn ergonomic_settings(xx: &[(&'static str, String)]) -> Vec<(&'static str, &'static str)> {
    use fastpath::gc::{BarrierBits, GcMode};
    // A mode that does not parse is the configuration's error to report.
    let passive = given_setting(xx, GcMode::VAR).is_none_or(|m| m.parse() == Ok(GcMode::Passive));
    if passive && given_setting(xx, BarrierBits::VAR).is_none() {
        vec![(BarrierBits::VAR, "none")]
    } else {
        Vec::new()
    }
}

impl Vm {
    /// Builds the VM: the heap from `FASTPATH_GC_*` and `-Xmx`, the class
    /// library from the archive built into the binary, the class path.
    pub fn boot(options: Options, archive: Option<&'static [u8]>) -> Result<&'static Vm, String> {
        // The library's settings (`FASTPATH_*`: locking mode, barrier set,
        // GC mode, icache sync, spin pause) are fixed before anything reads
        // them: a bad value stops the start, as a bad `-XX:` flag stops
        // HotSpot's, instead of the default being taken with a warning.
        // `-XX:` flags name some of those settings: theirs win over the
        // environment's.
        let xx = &options.xx.settings;
        let ergonomic = ergonomic_settings(xx);
        let settings = if xx.is_empty() && ergonomic.is_empty() {
            fastpath::config::init()
        } else {
            let (c, errors) = fastpath::config::Config::read(
                |var| {
                    given_setting(xx, var).or_else(|| {
                        ergonomic
                            .iter()
                            .find(|(v, _)| *v == var)
                            .map(|(_, value)| value.to_string())
                    })
                },
                Some(fastpath::cpu::info()),
            );
            match errors.into_iter().next() {
                Some(e) => Err(e),
                None => fastpath::config::set(c),
            }
        }
        .map_err(|e| format!("Error occurred during initialization of VM\n{e}"))?;
        let mut config = HeapConfig::from_config(options.heap_bytes);
        // Compressed references unless `-XX:-UseCompressedOops` or
        // `FASTPATH_GC_REFS` chose, for a heap they reach (HotSpot's
        // ergonomics: `UseCompressedOops` is on below 32 GiB).
        let ergonomic_refs = given_setting(&options.xx.settings, RefWidth::VAR).is_none();
        if ergonomic_refs {
            config.refs = default_ref_width(options.heap_bytes);
        }
        config.verify = options.verify_heap;
        config.read_ahead_bytes = options.read_ahead_bytes.unwrap_or(match config.mode {
            fastpath::gc::GcMode::Passive => DEFAULT_READ_AHEAD,
            fastpath::gc::GcMode::Concurrent => 0,
        });
        config.initial_bytes = Some(match options.initial_heap_bytes {
            Some(n) if n > options.heap_bytes => {
                return Err("Error occurred during initialization of VM\nInitial heap size set to a larger value than the maximum heap size".into());
            }
            Some(n) => n,
            None => (config.evacuation_reserve_bytes() + DEFAULT_FIRST_ALLOCATION).min(options.heap_bytes),
        });
        let heap = match Heap::new(config.clone()) {
            // No free range below 4 GiB (HotSpot then tries the next mode
            // too): compressed slots, below 32 GiB.
            Err(fastpath::gc::GcError::HeapMemory { .. })
                if ergonomic_refs && config.refs == RefWidth::Unscaled =>
            {
                config.refs = RefWidth::Compressed;
                Heap::new(config)
            }
            made => made,
        }
        .map_err(|e| format!("Error occurred during initialization of VM\n{e}"))?;
        let boot = archive.and_then(Archive::open);
        let mut jit = crate::jit::Jit::new(options.jit)?;
        if let (Some(n), crate::jit::Mode::Mixed) = (options.xx.compile_threshold, options.jit) {
            // As `FASTPATH_VM_JIT_THRESHOLD`: a back edge weighs 1/16 of a call.
            jit.invoke_threshold = n.max(1);
            jit.backedge_threshold = n.max(1).saturating_mul(16);
            jit.osr_threshold = jit.backedge_threshold;
        }
        if options.xx.no_osr {
            jit.osr_threshold = u32::MAX;
        }
        if options.xx.no_background {
            jit.background = false;
        }
        if options.xx.no_eliminate_locks {
            jit.eliminate_locks = false;
        }
        if options.xx.print_flags_final {
            print!(
                "{}",
                crate::cli::xx::flags_final(
                    settings,
                    &options.xx,
                    jit.invoke_threshold,
                    jit.osr_threshold != u32::MAX,
                    jit.background,
                    options.verify_heap,
                    heap.ref_width(),
                )
            );
        }
        let vm: &'static Vm = Box::leak(Box::new(Vm {
            loader: Loader::new(boot, ClassPath::parse(&options.class_path))
                .with_odd_refs(heap.ref_width().is_compressed()),
            heap,
            globals: GlobalSlots::default(),
            interned: Mutex::new(HashMap::new()),
            string_value_index: OnceLock::new(),
            options,
            threads: Threads::default(),
            known: Known::default(),
            jit,
            preallocated_oom: OnceLock::new(),
            preallocated_soe: OnceLock::new(),
            cache: Mutex::new(HashMap::new()),
        }));
        vm.heap.add_root_scanner(Arc::new(VmRoots(vm)));
        vm.loader.set_heap(&vm.heap)?;
        Ok(vm)
    }

    /// A built-in class by name (cached).
    pub fn class(&self, name: &'static str) -> Result<&'static Class, Error> {
        if let Some(c) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
            return Ok(c);
        }
        let c = self.loader.load(name)?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, c);
        Ok(c)
    }

    /// `java.lang.Object`.
    pub fn object_class(&self) -> &'static Class {
        self.known
            .object
            .get_or_init(|| self.loader.load("java/lang/Object").expect("java.lang.Object"))
    }

    /// `java.lang.String`.
    pub fn string_class(&self) -> &'static Class {
        self.known
            .string
            .get_or_init(|| self.loader.load("java/lang/String").expect("java.lang.String"))
    }

    /// The interned literal with `units` (made, with an empty slot, if new).
    pub fn literal(&self, units: Vec<u16>) -> &'static Literal {
        let mut map = self.interned.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = map.get(units.as_slice()) {
            return l;
        }
        let slot = self
            .globals
            .alloc(0)
            .expect("the VM's global roots are exhausted");
        let units: Box<[u16]> = units.into_boxed_slice();
        let lit: &'static Literal = Box::leak(Box::new(Literal {
            slot,
            units: units.clone(),
        }));
        map.insert(units, lit);
        lit
    }

    /// `char[]`.
    pub fn char_array_class(&self) -> &'static Class {
        self.known
            .char_array
            .get_or_init(|| self.loader.load("[C").expect("char[]"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HotSpot's order of modes: unscaled 4-byte slots while the heap fits
    /// below 4 GiB from 2 GiB up, zero-based compressed ones while it fits
    /// below 32 GiB, then full-width slots.
    #[test]
    fn the_default_reference_width_is_the_narrowest_that_reaches_the_heap() {
        use fastpath::gc::layout::{MAX_COMPRESSED_HEAP_BYTES, MAX_UNSCALED_HEAP_BYTES};
        assert_eq!(default_ref_width(64 << 20), RefWidth::Unscaled);
        assert_eq!(default_ref_width(MAX_UNSCALED_HEAP_BYTES), RefWidth::Unscaled);
        assert_eq!(
            default_ref_width(MAX_UNSCALED_HEAP_BYTES + 1),
            RefWidth::Compressed
        );
        assert_eq!(default_ref_width(MAX_COMPRESSED_HEAP_BYTES), RefWidth::Compressed);
        assert_eq!(default_ref_width(MAX_COMPRESSED_HEAP_BYTES + 1), RefWidth::Full);
    }
}
