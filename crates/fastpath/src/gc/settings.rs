//! The GC's settings: barriers, presets and modes, `FASTPATH_GC_BARRIERS`,
//! `FASTPATH_GC_MODE`, `FASTPATH_GC_WORKERS` and
//! `FASTPATH_GC_IMMEDIATE_GARBAGE`, and the heap configuration they make.
//!
//! Where it sits: the top of the GC's data flow. A runtime (or the lab)
//! gets a [`BarrierBits`] and a [`GcMode`] here (parsed, or the process's
//! values through [`HeapConfig::from_config`](crate::gc::HeapConfig::from_config)),
//! hands both to [`HeapConfig`](crate::gc::HeapConfig), and
//! [`HeapConfig::validate`](crate::gc::HeapConfig::validate) refuses a
//! concurrent heap whose barrier set the collector cannot be correct with
//! ([`check_barriers_for_mode`]).
//! `barrier_set.rs` turns a set into the type that monomorphises the fast
//! paths.
//!
//! Each name is listed once, in a table of [`Choice`]s: barriers
//! ([`Barrier`]), presets ([`Preset`]) and modes ([`GcMode`]); parsing, the
//! accepted lists, `Display` and `--help` read the tables. The settings
//! machinery is the crate's one (`crate::setting`), as for every other
//! `FASTPATH_*` variable: `GcMode` is a table setting, `BarrierBits` (a
//! preset or a comma list of barriers) implements [`Setting`] by hand.
//!
//! Adding a barrier: its variant and row here, and its file in
//! `barriers/`; everything that lists barriers (the parser, `--help`, the
//! lab's rows, the probes' names, the set→type dispatch) reads the table.

use std::fmt;
use std::str::FromStr;

use crate::cpu::CpuInfo;
use crate::gc::layout::{CellFormat, RefWidth};
use crate::setting::{self, Choice, Choices, ConfigError, ProcessValue, Setting, Variable};

/// One barrier of a barrier set. Its bit in a [`BarrierBits`] is its
/// position in this enum ([`Barrier::bit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Barrier {
    /// Pre-write SATB: while marking, enqueue the value a store overwrites.
    Satb,
    /// Post-write unconditional card mark (Serial/Parallel).
    Card,
    /// Post-write card mark that first tests the card (`UseCondCardMark`).
    CardCond,
    /// Post-write G1 card mark: null and same-region filters, then enqueue.
    G1Card,
    /// Brooks read barrier: every access goes through the forwarding word.
    BrooksRb,
    /// Brooks write barrier: evacuate on write while evacuation runs.
    BrooksWb,
    /// Shenandoah's load-reference barrier, self-healing the loaded field.
    Lrb,
    /// Reference CAS that retries when the field holds a from-space copy.
    Cas,
}

impl Choices for Barrier {
    const VAR: &'static str = BarrierBits::VAR;
    const TABLE: &'static [Choice<Self>] = &[
        Choice::everywhere(Barrier::Satb, "satb"),
        Choice::everywhere(Barrier::Card, "card"),
        Choice::everywhere(Barrier::CardCond, "card-cond"),
        Choice::everywhere(Barrier::G1Card, "g1-card"),
        Choice::everywhere(Barrier::BrooksRb, "brooks-rb"),
        Choice::everywhere(Barrier::BrooksWb, "brooks-wb"),
        Choice::everywhere(Barrier::Lrb, "lrb"),
        Choice::everywhere(Barrier::Cas, "cas"),
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_api!(Barrier);

impl Barrier {
    /// The barrier's bit in a [`BarrierBits`].
    pub const fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// The barrier whose bit is exactly `bits`, if any.
    pub fn from_bits(bits: BarrierBits) -> Option<Barrier> {
        Barrier::all().find(|b| b.bit() == bits.0)
    }
}

/// A preset: a named barrier set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// No barriers at all: the baseline.
    None,
    /// Serial/Parallel: the unconditional card mark.
    Serial,
    /// G1: SATB and the filtered card mark.
    G1,
    /// Shenandoah as in the seed (2017): SATB, Brooks WB and RB, CAS.
    Shenandoah2017,
    /// Shenandoah since JDK 13: SATB, LRB, CAS.
    Shenandoah,
}

impl Choices for Preset {
    const VAR: &'static str = BarrierBits::VAR;
    const TABLE: &'static [Choice<Self>] = &[
        Choice::everywhere(Preset::None, "none"),
        Choice::everywhere(Preset::Serial, "serial"),
        Choice::everywhere(Preset::G1, "g1"),
        Choice::everywhere(Preset::Shenandoah2017, "shenandoah-2017"),
        Choice::everywhere(Preset::Shenandoah, "shenandoah"),
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_api!(Preset);

impl Preset {
    /// The barriers it stands for.
    pub const fn bits(self) -> BarrierBits {
        match self {
            Preset::None => BarrierBits::NONE,
            Preset::Serial => BarrierBits::SERIAL,
            Preset::G1 => BarrierBits::G1,
            Preset::Shenandoah2017 => BarrierBits::SHENANDOAH_2017,
            Preset::Shenandoah => BarrierBits::SHENANDOAH,
        }
    }
}

/// A barrier set as a bit set of [`Barrier::bit`]s. The fast paths test
/// these bits at compile time (see [`BarrierSet`](crate::gc::BarrierSet)). Its `Default`
/// is `FASTPATH_GC_BARRIERS`' default, [`BarrierBits::SHENANDOAH`] (the
/// empty set is [`BarrierBits::NONE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarrierBits(pub u16);

impl Default for BarrierBits {
    fn default() -> Self {
        BarrierBits::SHENANDOAH
    }
}

impl BarrierBits {
    /// The empty set.
    pub const NONE: BarrierBits = BarrierBits(0);
    /// The `serial` preset.
    pub const SERIAL: BarrierBits = BarrierBits(Barrier::Card.bit());
    /// The `g1` preset.
    pub const G1: BarrierBits = BarrierBits(Barrier::Satb.bit() | Barrier::G1Card.bit());
    /// The `shenandoah-2017` preset (the seed's configuration).
    pub const SHENANDOAH_2017: BarrierBits = BarrierBits(
        Barrier::Satb.bit() | Barrier::BrooksWb.bit() | Barrier::BrooksRb.bit() | Barrier::Cas.bit(),
    );
    /// The `shenandoah` preset.
    pub const SHENANDOAH: BarrierBits =
        BarrierBits(Barrier::Satb.bit() | Barrier::Lrb.bit() | Barrier::Cas.bit());

    /// The variable that selects a barrier set.
    pub const VAR: &'static str = "FASTPATH_GC_BARRIERS";

    /// Every accepted word: the presets, then the individual barriers, from
    /// their tables (a comma list of barriers is accepted too).
    pub const ACCEPTED: &'static [&'static str] =
        &concat::<{ Preset::ACCEPTED.len() + Barrier::ACCEPTED.len() }>(Preset::ACCEPTED, Barrier::ACCEPTED);

    /// Whether `b` is in the set.
    pub const fn has(self, b: Barrier) -> bool {
        self.0 & b.bit() != 0
    }

    /// The barriers in the set, in table order.
    pub fn barriers(self) -> impl Iterator<Item = Barrier> {
        Barrier::all().filter(move |b| self.has(*b))
    }

    /// The preset this set is, if any.
    pub fn preset(self) -> Option<Preset> {
        Preset::all().find(|p| p.bits() == self)
    }

    /// The barriers a concurrent collector needs that this set lacks, as
    /// names; empty when the set is complete. Concurrent mark needs `satb`
    /// (a store must not hide a snapshot object from the marker); concurrent
    /// evacuation needs either `lrb` or both Brooks barriers (no access may
    /// reach a stale copy); a reference CAS needs `cas` (the field may hold
    /// the from-space copy of the expected object).
    pub fn missing_for_concurrent(self) -> Vec<String> {
        let mut missing = Vec::new();
        if !self.has(Barrier::Satb) {
            missing.push(Barrier::Satb.name().to_string());
        }
        let (rb, wb) = (Barrier::BrooksRb, Barrier::BrooksWb);
        if !(self.has(Barrier::Lrb) || self.has(rb) && self.has(wb)) {
            missing.push(match (self.has(rb), self.has(wb)) {
                (true, false) => wb.name().to_string(),
                (false, true) => rb.name().to_string(),
                _ => format!("{} (or {} + {})", Barrier::Lrb, rb, wb),
            });
        }
        if !self.has(Barrier::Cas) {
            missing.push(Barrier::Cas.name().to_string());
        }
        missing
    }

    fn refusal(value: &str, reason: String) -> ConfigError {
        ConfigError {
            setting: Self::VAR,
            value: value.to_string(),
            reason,
            accepted: Self::ACCEPTED,
        }
    }
}

/// `a` then `b`, as one array of `N = a.len() + b.len()` names.
const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

impl fmt::Display for BarrierBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.preset() {
            return f.write_str(p.name());
        }
        let names: Vec<&str> = self.barriers().map(Barrier::name).collect();
        f.write_str(&names.join(","))
    }
}

impl FromStr for BarrierBits {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let wanted = s.trim().to_ascii_lowercase();
        if let Some(p) = Preset::TABLE.iter().find(|c| c.name == wanted) {
            return Ok(p.value.bits());
        }
        let mut bits = BarrierBits::NONE;
        for word in wanted.split(',').map(str::trim) {
            match Barrier::TABLE.iter().find(|c| c.name == word) {
                Some(c) => bits.0 |= c.value.bit(),
                None if Preset::TABLE.iter().any(|c| c.name == word) => {
                    return Err(Self::refusal(
                        s,
                        format!(
                        "{word:?} is a preset, and a preset stands alone: a comma list names barriers ({})",
                        Barrier::ACCEPTED.join(", ")
                    ),
                    ))
                }
                None => {
                    return Err(Self::refusal(
                        s,
                        format!("{word:?} is neither a preset nor a barrier"),
                    ))
                }
            }
        }
        let cards = [Barrier::Card, Barrier::CardCond, Barrier::G1Card];
        if cards.iter().filter(|b| bits.has(**b)).count() > 1 {
            let names: Vec<&str> = cards.iter().map(|b| b.name()).collect();
            return Err(Self::refusal(
                s,
                format!("at most one card barrier ({})", names.join(", ")),
            ));
        }
        Ok(bits)
    }
}

impl Setting for BarrierBits {
    const VAR: &'static str = BarrierBits::VAR;
    fn parse_setting(value: &str) -> Result<Self, ConfigError> {
        value.parse()
    }
    /// Every set runs on every CPU; a set built in code is checked as its
    /// parser would (known barriers only, at most one card barrier).
    fn validate(self, _cpu: &CpuInfo) -> Result<(), ConfigError> {
        let known = Barrier::all().fold(0, |bits, b| bits | b.bit());
        if self.0 & !known != 0 {
            return Err(Self::refusal(
                &format!("{:#x}", self.0),
                format!("bits {:#x} name no barrier", self.0 & !known),
            ));
        }
        self.to_string().parse::<BarrierBits>().map(|_| ())
    }
    fn variable() -> Variable {
        Variable {
            var: BarrierBits::VAR,
            values: format!(
                "{} (or a comma list of barriers)",
                BarrierBits::ACCEPTED.join("|")
            ),
            default: BarrierBits::default().to_string(),
            about: "the GC barrier set: a preset or barriers (fastpath::gc)",
        }
    }
}

/// When the collector runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GcMode {
    /// No concurrent cycle ever runs: a stop-the-world collection happens
    /// only when a TLAB cannot be refilled (HotSpot's
    /// `-XX:ShenandoahGCMode=passive`). Any barrier subset is accepted.
    #[default]
    Passive,
    /// A collector thread runs concurrent mark and evacuation.
    Concurrent,
}

impl Choices for GcMode {
    const VAR: &'static str = "FASTPATH_GC_MODE";
    const TABLE: &'static [Choice<Self>] = &[
        Choice::everywhere(GcMode::Passive, "passive"),
        Choice::everywhere(GcMode::Concurrent, "concurrent"),
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_setting!(
    GcMode,
    "when the GC runs: passive (stop-the-world when full) or concurrent (fastpath::gc)"
);
setting::choices_api!(GcMode);

/// The cell format of a heap (`gc::layout::CellFormat`): whether every
/// object carries a forwarding word. `auto` takes the barrier set's own
/// (Brooks with `brooks-rb` or `brooks-wb`, compact otherwise); `brooks`
/// gives any set the forwarding word, as Shenandoah 2017 had it under
/// every barrier configuration (a barrier ablation then compares barriers
/// on one layout); `compact` is refused with a Brooks barrier, which reads
/// through the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GcCellFormat {
    /// The barrier set's format.
    #[default]
    Auto,
    /// A forwarding word before every object's header.
    Brooks,
    /// No forwarding word.
    Compact,
}

impl Choices for GcCellFormat {
    const VAR: &'static str = "FASTPATH_GC_CELL_FORMAT";
    const TABLE: &'static [Choice<Self>] = &[
        Choice::everywhere(GcCellFormat::Auto, "auto"),
        Choice::everywhere(GcCellFormat::Brooks, "brooks"),
        Choice::everywhere(GcCellFormat::Compact, "compact"),
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_setting!(
    GcCellFormat,
    "object cells: auto (the barrier set's), brooks (a forwarding word before every object) or compact (fastpath::gc)"
);
setting::choices_api!(GcCellFormat);

impl GcCellFormat {
    /// The format a heap with barrier set `bits` gets, or why not.
    pub fn resolve(self, bits: BarrierBits) -> Result<CellFormat, ConfigError> {
        let own = CellFormat::for_barriers(bits);
        match self {
            GcCellFormat::Auto => Ok(own),
            GcCellFormat::Brooks => Ok(CellFormat::Brooks),
            GcCellFormat::Compact if own == CellFormat::Brooks => Err(ConfigError {
                setting: Self::VAR,
                value: self.name().to_string(),
                reason: format!(
                    "barrier set {bits} reads through the forwarding word (brooks-rb, brooks-wb)"
                ),
                accepted: &["auto", "brooks"],
            }),
            GcCellFormat::Compact => Ok(CellFormat::Compact),
        }
    }
}

/// The process-wide cell format (`FASTPATH_GC_CELL_FORMAT`, or what
/// `config::init`/`set` installed).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static CELL_FORMAT: ProcessValue<GcCellFormat> = ProcessValue::new();

/// `FASTPATH_GC_REFS`: the width of a heap's reference slots
/// ([`RefWidth`], `gc::layout`): `full` (8 bytes, the address),
/// `compressed` (4 bytes, the address shifted right by 3, the heap placed
/// below 32 GiB: HotSpot's `UseCompressedOops` in its zero-based form) or
/// `unscaled` (4 bytes, the address itself, the heap placed below 4 GiB:
/// HotSpot's unscaled form, which it takes when the heap fits there).
/// Compressed slots make every object with references smaller (half a
/// word each), so more of them fit each cache line and each collection
/// copies less; unscaled ones also leave out the shift between loading a
/// reference and using it. A heap larger than
/// [`MAX_COMPRESSED_HEAP_BYTES`](crate::gc::layout::MAX_COMPRESSED_HEAP_BYTES)
/// (compressed) or
/// [`MAX_UNSCALED_HEAP_BYTES`](crate::gc::layout::MAX_UNSCALED_HEAP_BYTES)
/// (unscaled) is refused with them.
impl Choices for RefWidth {
    const VAR: &'static str = "FASTPATH_GC_REFS";
    const TABLE: &'static [Choice<Self>] = &[
        Choice::everywhere(RefWidth::Full, "full"),
        Choice::everywhere(RefWidth::Compressed, "compressed"),
        Choice::everywhere(RefWidth::Unscaled, "unscaled"),
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_setting!(
    RefWidth,
    "reference slots: full (8 bytes, the address), compressed (4 bytes, the address >> 3, the heap below 32 GiB) or unscaled (4 bytes, the address, the heap below 4 GiB) (fastpath::gc)"
);
setting::choices_api!(RefWidth);

/// The process-wide reference width (`FASTPATH_GC_REFS`, or what
/// `config::init`/`set` installed).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static REFS: ProcessValue<RefWidth> = ProcessValue::new();

setting::number_setting! {
    /// Collector worker threads for the parallel phases: marking (with work
    /// stealing), evacuation, update-refs and the pauses' root work
    /// (`collector/workers.rs`). The default is half the CPUs this process may run
    /// on, at least 1 and at most 8: the concurrent phases share the CPUs
    /// with the mutators, which HotSpot answers with `ConcGCThreads` a
    /// quarter of `ParallelGCThreads` (itself the CPU count up to 8); one
    /// number serves both here.
    GcWorkers(u32): "FASTPATH_GC_WORKERS", 1..=64,
    default (crate::cpu::info().logical_cpus / 2).clamp(1, 8),
    "collector worker threads: parallel marking, evacuation, update-refs (fastpath::gc)"
}

/// The process-wide worker count (`FASTPATH_GC_WORKERS`, or what
/// `config::init`/`set` installed).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static WORKERS: ProcessValue<GcWorkers> = ProcessValue::new();

setting::number_setting! {
    /// The share of a concurrent cycle's garbage, in percent, that the
    /// regions its final-mark frees whole (nothing live in them) must
    /// exceed for the cycle to end there, with no collection set: no
    /// evacuation, no update-refs (a parse of every live object), two
    /// pauses fewer (Shenandoah's abbreviated cycle and its
    /// `ShenandoahImmediateThreshold`, 90 by default). 100: every cycle
    /// that found garbage outside the freed regions evacuates.
    GcImmediateGarbage(u32): "FASTPATH_GC_IMMEDIATE_GARBAGE", 0..=100,
    default 90,
    "percent of a cycle's garbage in wholly dead regions above which it skips evacuation (HotSpot -XX:ShenandoahImmediateThreshold)"
}

/// The process-wide immediate-garbage threshold
/// (`FASTPATH_GC_IMMEDIATE_GARBAGE`, or what `config::init`/`set`
/// installed).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static IMMEDIATE_GARBAGE: ProcessValue<GcImmediateGarbage> = ProcessValue::new();

/// Refuses concurrent mode with a barrier set that is missing a barrier.
pub fn check_barriers_for_mode(bits: BarrierBits, mode: GcMode) -> Result<(), ConfigError> {
    let missing = bits.missing_for_concurrent();
    if mode == GcMode::Concurrent && !missing.is_empty() {
        let complete: Vec<&str> = Preset::all()
            .filter(|p| p.bits().missing_for_concurrent().is_empty())
            .map(Preset::name)
            .collect();
        return Err(ConfigError {
            setting: BarrierBits::VAR,
            value: bits.to_string(),
            reason: format!("concurrent mode needs {}", missing.join(", ")),
            accepted: setting::intern(complete),
        });
    }
    Ok(())
}

/// The process-wide barrier set (`FASTPATH_GC_BARRIERS`, or what
/// `config::init`/`set` installed).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static BARRIERS: ProcessValue<BarrierBits> = ProcessValue::new();

/// The process-wide mode (`FASTPATH_GC_MODE`, or what `config::init`/`set`
/// installed). Every lazy read checks the pair: a concurrent mode read from
/// the environment with an incomplete process barrier set is reported once
/// and falls back to passive, as any bad variable does, whichever reader
/// comes first ([`ModeValue`]).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static MODE: ModeValue = ModeValue(ProcessValue::new());

/// The process-wide mode's value: a [`ProcessValue`] whose only lazy read
/// is the one that checks the mode against the process's barrier set, so
/// no reader can fix an unsupported pair.
pub(crate) struct ModeValue(ProcessValue<GcMode>);

#[cfg_attr(loom, allow(dead_code))]
impl ModeValue {
    /// The mode in force; the first call reads `FASTPATH_GC_MODE` and the
    /// process's barrier set ([`check_barriers_for_mode`]).
    pub(crate) fn get(&self) -> GcMode {
        self.0
            .get_fitting(|mode| check_barriers_for_mode(BARRIERS.get(), mode))
    }

    /// The mode, if one is fixed already.
    pub(crate) fn peek(&self) -> Option<GcMode> {
        self.0.peek()
    }

    /// Fixes `mode` unless one is fixed already (`config::init`/`set`,
    /// which check the pair first); returns the one in force.
    pub(crate) fn install(&self, mode: GcMode) -> GcMode {
        self.0.install(mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_cover_every_variant_and_bits_match() {
        for (i, b) in Barrier::all().enumerate() {
            assert_eq!(b.bit(), 1 << i, "{b}");
            assert_eq!(b.name().parse::<BarrierBits>().unwrap(), BarrierBits(b.bit()));
            assert_eq!(Barrier::from_bits(BarrierBits(b.bit())), Some(b));
            assert!(BarrierBits::ACCEPTED.contains(&b.name()));
        }
        for p in Preset::all() {
            assert_eq!(p.name().parse::<BarrierBits>().unwrap(), p.bits());
            assert!(BarrierBits::ACCEPTED.contains(&p.name()));
            assert_eq!(p.bits().to_string(), p.name());
        }
        assert_eq!(
            BarrierBits::ACCEPTED.len(),
            Preset::TABLE.len() + Barrier::TABLE.len()
        );
        assert_eq!(BarrierBits::ACCEPTED[0], "none");
        for m in GcMode::all() {
            assert_eq!(m.name().parse::<GcMode>().unwrap(), m);
        }
    }

    #[test]
    fn comma_lists_and_errors() {
        let b: BarrierBits = "satb, lrb,cas".parse().unwrap();
        assert_eq!(b, BarrierBits::SHENANDOAH);
        let e = "satb,lbr".parse::<BarrierBits>().unwrap_err();
        assert!(e.to_string().contains("lbr") && e.to_string().contains("brooks-wb"));
        assert!("card,g1-card".parse::<BarrierBits>().is_err());
        // A preset in a list is refused as one, with what a list may name.
        for list in ["satb,none", "shenandoah, cas", "lrb,G1"] {
            let e = list.parse::<BarrierBits>().unwrap_err().to_string();
            assert!(
                e.contains("is a preset, and a preset stands alone") && e.contains("satb, card, card-cond"),
                "{list}: {e}"
            );
        }
        assert!("paused"
            .parse::<GcMode>()
            .unwrap_err()
            .to_string()
            .contains("concurrent"));
        // A set built in code is checked as the parser would.
        let cpu = crate::cpu::info();
        assert!(BarrierBits(1 << 15).validate(cpu).is_err());
        assert!(BarrierBits(Barrier::Card.bit() | Barrier::CardCond.bit())
            .validate(cpu)
            .is_err());
        assert!(BarrierBits::G1.validate(cpu).is_ok());
    }

    #[test]
    fn cell_formats_resolve_per_barrier_set() {
        let resolve = |f: &str, b: &str| f.parse::<GcCellFormat>().unwrap().resolve(b.parse().unwrap());
        assert_eq!(resolve("auto", "shenandoah"), Ok(CellFormat::Compact));
        assert_eq!(resolve("auto", "none"), Ok(CellFormat::Compact));
        assert_eq!(resolve("auto", "shenandoah-2017"), Ok(CellFormat::Brooks));
        assert_eq!(resolve("auto", "satb,brooks-rb"), Ok(CellFormat::Brooks));
        assert_eq!(resolve("brooks", "g1"), Ok(CellFormat::Brooks));
        assert_eq!(resolve("compact", "lrb"), Ok(CellFormat::Compact));
        let e = resolve("compact", "brooks-wb").unwrap_err();
        assert_eq!(
            (e.setting, e.accepted),
            ("FASTPATH_GC_CELL_FORMAT", &["auto", "brooks"][..])
        );
        assert!(e.to_string().contains("forwarding word"), "{e}");
        assert!("brook".parse::<GcCellFormat>().is_err());
        assert_eq!(GcCellFormat::default(), GcCellFormat::Auto);
    }

    /// `FASTPATH_GC_REFS` takes `full` and `compressed`, refuses the rest
    /// naming both; a compressed heap over the largest one compressed
    /// references reach is refused by the configuration's check, the same
    /// size with full references accepted.
    #[test]
    #[cfg(not(loom))] // the heap is not built under loom
    fn reference_widths_parse_and_bound_the_heap() {
        assert_eq!("full".parse::<RefWidth>(), Ok(RefWidth::Full));
        assert_eq!(
            " compressed ".trim().parse::<RefWidth>(),
            Ok(RefWidth::Compressed)
        );
        let e = "narrow".parse::<RefWidth>().unwrap_err();
        assert_eq!(
            (e.setting, e.accepted),
            ("FASTPATH_GC_REFS", &["full", "compressed", "unscaled"][..])
        );
        assert_eq!(RefWidth::default(), RefWidth::Full);
        let big = crate::gc::layout::MAX_COMPRESSED_HEAP_BYTES + (32 << 20);
        let mut c = crate::gc::HeapConfig::new(big, BarrierBits::SHENANDOAH, GcMode::Passive);
        c.region_bytes = 32 << 20;
        c.heap_bytes = big / c.region_bytes * c.region_bytes;
        c.refs = RefWidth::Full;
        assert!(c.validate().is_ok());
        c.refs = RefWidth::Compressed;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("FASTPATH_GC_REFS=compressed"), "{e}");
        assert_eq!("unscaled".parse::<RefWidth>(), Ok(RefWidth::Unscaled));
        let small = crate::gc::layout::MAX_UNSCALED_HEAP_BYTES / c.region_bytes * c.region_bytes;
        c.heap_bytes = small + c.region_bytes;
        c.refs = RefWidth::Unscaled;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("FASTPATH_GC_REFS=unscaled"), "{e}");
        c.heap_bytes = small;
        assert!(c.validate().is_ok());
    }

    #[test]
    fn concurrent_refuses_incomplete_sets_naming_what_is_missing() {
        let pair = |b: &str| check_barriers_for_mode(b.parse().unwrap(), GcMode::Concurrent);
        assert!(pair("shenandoah").is_ok());
        assert!(pair("shenandoah-2017").is_ok());
        let e = pair("g1").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("lrb") && text.contains("cas") && !text.contains("satb,"),
            "{text}"
        );
        assert_eq!(e.accepted, ["shenandoah-2017", "shenandoah"]);
        let e = pair("satb,brooks-rb,cas").unwrap_err().to_string();
        assert!(e.contains("brooks-wb"), "{e}");
        // Passive accepts any subset.
        assert!(check_barriers_for_mode("card".parse().unwrap(), GcMode::Passive).is_ok());
    }
}
