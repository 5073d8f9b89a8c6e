//! The GC's user-facing names: barriers, presets and modes, and their
//! parsing from `FASTPATH_GC_BARRIERS` / `FASTPATH_GC_MODE`.
//!
//! Where it sits: the top of the GC's data flow. A runtime (or the lab)
//! resolves a [`BarrierBits`] and a [`GcMode`] here, hands both to
//! [`super::HeapConfig`], and [`super::HeapConfig::validate`] refuses a
//! concurrent heap whose barrier set the collector cannot be correct with.
//!
//! One table per enum: the names, the parser, the accepted list and `ALL`
//! all come from it, so they cannot drift apart (the pattern of issue 12).
//! Errors reuse [`crate::config::ConfigError`]. Both are
//! [`crate::config::Setting`]s, so [`crate::config::Config`] reads,
//! validates and lists them with the other `FASTPATH_*` variables; a
//! concurrent mode whose barrier set is incomplete is refused there too
//! ([`check_pair`]).

use std::fmt;
use std::str::FromStr;

use crate::config::{ConfigError, Setting, Variable};
use crate::cpu::CpuInfo;

/// One barrier of a barrier set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// The barrier table: the bit, the name and the barrier, in one row each.
const BARRIERS: &[(Barrier, &str, u16)] = &[
    (Barrier::Satb, "satb", 1 << 0),
    (Barrier::Card, "card", 1 << 1),
    (Barrier::CardCond, "card-cond", 1 << 2),
    (Barrier::G1Card, "g1-card", 1 << 3),
    (Barrier::BrooksRb, "brooks-rb", 1 << 4),
    (Barrier::BrooksWb, "brooks-wb", 1 << 5),
    (Barrier::Lrb, "lrb", 1 << 6),
    (Barrier::Cas, "cas", 1 << 7),
];

impl Barrier {
    /// Every barrier, in table order.
    pub const ALL: [Barrier; 8] = [
        Barrier::Satb,
        Barrier::Card,
        Barrier::CardCond,
        Barrier::G1Card,
        Barrier::BrooksRb,
        Barrier::BrooksWb,
        Barrier::Lrb,
        Barrier::Cas,
    ];

    fn row(self) -> &'static (Barrier, &'static str, u16) {
        // The table has a row for every variant (a unit test checks it).
        BARRIERS
            .iter()
            .find(|r| r.0 == self)
            .expect("every barrier has a table row")
    }

    /// The barrier's name, as `FASTPATH_GC_BARRIERS` spells it.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The barrier's bit in a [`BarrierBits`].
    pub const fn bit(self) -> u16 {
        1 << (self as u16)
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

const PRESETS: &[(Preset, &str, BarrierBits)] = &[
    (Preset::None, "none", BarrierBits::NONE),
    (Preset::Serial, "serial", BarrierBits::SERIAL),
    (Preset::G1, "g1", BarrierBits::G1),
    (
        Preset::Shenandoah2017,
        "shenandoah-2017",
        BarrierBits::SHENANDOAH_2017,
    ),
    (Preset::Shenandoah, "shenandoah", BarrierBits::SHENANDOAH),
];

impl Preset {
    /// Every preset, in table order.
    pub const ALL: [Preset; 5] = [
        Preset::None,
        Preset::Serial,
        Preset::G1,
        Preset::Shenandoah2017,
        Preset::Shenandoah,
    ];

    fn row(self) -> &'static (Preset, &'static str, BarrierBits) {
        PRESETS
            .iter()
            .find(|r| r.0 == self)
            .expect("every preset has a table row")
    }

    /// The preset's name.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The barriers it stands for.
    pub fn bits(self) -> BarrierBits {
        self.row().2
    }
}

/// A barrier set as a bit set of [`Barrier::bit`]s. The fast paths test
/// these bits at compile time (see [`super::BarrierSet`]). Its `Default`
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

    /// Whether `b` is in the set.
    pub const fn has(self, b: Barrier) -> bool {
        self.0 & b.bit() != 0
    }

    /// The barriers in the set, in table order.
    pub fn barriers(self) -> impl Iterator<Item = Barrier> {
        Barrier::ALL.into_iter().filter(move |b| self.has(*b))
    }

    /// The barriers a concurrent collector needs that this set lacks, as
    /// names; empty when the set is complete. Concurrent mark needs `satb`
    /// (a store must not hide a snapshot object from the marker); concurrent
    /// evacuation needs either `lrb` or both Brooks barriers (no access may
    /// reach a stale copy); a reference CAS needs `cas` (the field may hold
    /// the from-space copy of the expected object).
    pub fn missing_for_concurrent(self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !self.has(Barrier::Satb) {
            missing.push("satb");
        }
        let brooks = self.has(Barrier::BrooksRb) && self.has(Barrier::BrooksWb);
        if !(self.has(Barrier::Lrb) || brooks) {
            if self.has(Barrier::BrooksRb) || self.has(Barrier::BrooksWb) {
                missing.push(if self.has(Barrier::BrooksRb) {
                    "brooks-wb"
                } else {
                    "brooks-rb"
                });
            } else {
                missing.push("lrb (or brooks-rb + brooks-wb)");
            }
        }
        if !self.has(Barrier::Cas) {
            missing.push("cas");
        }
        missing
    }

    /// The variable that selects a barrier set.
    pub const VAR: &'static str = "FASTPATH_GC_BARRIERS";

    /// Every accepted word: the presets, then the individual barriers
    /// (a comma list of barriers is accepted too).
    pub const ACCEPTED: &'static [&'static str] = &[
        "none",
        "serial",
        "g1",
        "shenandoah-2017",
        "shenandoah",
        "satb",
        "card",
        "card-cond",
        "g1-card",
        "brooks-rb",
        "brooks-wb",
        "lrb",
        "cas",
    ];

    /// The preset this set is, if any.
    pub fn preset(self) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.bits() == self)
    }
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
        let s = s.trim();
        if let Some(p) = PRESETS.iter().find(|r| r.1 == s) {
            return Ok(p.2);
        }
        let mut bits = 0u16;
        for word in s.split(',').map(str::trim) {
            match BARRIERS.iter().find(|r| r.1 == word) {
                Some(r) => bits |= r.2,
                None => {
                    return Err(ConfigError {
                        setting: Self::VAR,
                        value: s.to_string(),
                        reason: format!("{word:?} is neither a preset nor a barrier"),
                        accepted: Self::ACCEPTED,
                    })
                }
            }
        }
        let post = [Barrier::Card, Barrier::CardCond, Barrier::G1Card];
        if post.iter().filter(|b| bits & b.bit() != 0).count() > 1 {
            return Err(ConfigError {
                setting: Self::VAR,
                value: s.to_string(),
                reason: "at most one card barrier (card, card-cond, g1-card)".to_string(),
                accepted: Self::ACCEPTED,
            });
        }
        Ok(BarrierBits(bits))
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

const MODES: &[(GcMode, &str)] = &[(GcMode::Passive, "passive"), (GcMode::Concurrent, "concurrent")];

impl GcMode {
    /// The variable that selects the mode.
    pub const VAR: &'static str = "FASTPATH_GC_MODE";
    /// Every mode, in table order.
    pub const ALL: [GcMode; 2] = [GcMode::Passive, GcMode::Concurrent];
    /// The accepted names.
    pub const ACCEPTED: &'static [&'static str] = &["passive", "concurrent"];

    /// The mode's name.
    pub fn name(self) -> &'static str {
        MODES
            .iter()
            .find(|r| r.0 == self)
            .expect("every mode has a table row")
            .1
    }
}

impl fmt::Display for GcMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GcMode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        MODES
            .iter()
            .find(|r| r.1 == s.trim())
            .map(|r| r.0)
            .ok_or_else(|| ConfigError {
                setting: Self::VAR,
                value: s.to_string(),
                reason: "unknown GC mode".to_string(),
                accepted: Self::ACCEPTED,
            })
    }
}

/// Reads `FASTPATH_GC_BARRIERS` and `FASTPATH_GC_MODE` through `lookup`
/// (defaults: `shenandoah`, `passive`) and checks that the pair is usable:
/// concurrent mode with an incomplete set is refused, naming what is missing.
pub fn from_lookup(
    mut lookup: impl FnMut(&str) -> Option<String>,
) -> Result<(BarrierBits, GcMode), ConfigError> {
    let bits = match lookup(BarrierBits::VAR) {
        Some(v) => v.parse()?,
        None => BarrierBits::default(),
    };
    let mode = match lookup(GcMode::VAR) {
        Some(v) => v.parse()?,
        None => GcMode::default(),
    };
    check_pair(bits, mode)?;
    Ok((bits, mode))
}

/// [`from_lookup`] over the process environment.
pub fn from_env() -> Result<(BarrierBits, GcMode), ConfigError> {
    from_lookup(|v| std::env::var(v).ok())
}

/// Refuses concurrent mode with a barrier set that is missing a barrier.
pub fn check_pair(bits: BarrierBits, mode: GcMode) -> Result<(), ConfigError> {
    let missing = bits.missing_for_concurrent();
    if mode == GcMode::Concurrent && !missing.is_empty() {
        return Err(ConfigError {
            setting: BarrierBits::VAR,
            value: bits.to_string(),
            reason: format!("concurrent mode needs {}", missing.join(", ")),
            accepted: &["shenandoah", "shenandoah-2017"],
        });
    }
    Ok(())
}

impl Setting for BarrierBits {
    const VAR: &'static str = BarrierBits::VAR;
    fn parse_setting(value: &str) -> Result<Self, ConfigError> {
        value.parse()
    }
    /// Every set runs on every CPU; a set built in code is checked as its
    /// parser would (at most one card barrier).
    fn validate(self, _cpu: &CpuInfo) -> Result<(), ConfigError> {
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

impl Setting for GcMode {
    const VAR: &'static str = GcMode::VAR;
    fn parse_setting(value: &str) -> Result<Self, ConfigError> {
        value.parse()
    }
    fn validate(self, _cpu: &CpuInfo) -> Result<(), ConfigError> {
        Ok(())
    }
    fn variable() -> Variable {
        Variable {
            var: GcMode::VAR,
            values: GcMode::ACCEPTED.join("|"),
            default: GcMode::default().to_string(),
            about: "when the GC runs: passive (stop-the-world when full) or concurrent (fastpath::gc)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_cover_every_variant_and_bits_match() {
        for b in Barrier::ALL {
            assert_eq!(b.row().2, b.bit(), "{}", b.name());
            assert_eq!(b.name().parse::<BarrierBits>().unwrap(), BarrierBits(b.bit()));
            assert!(BarrierBits::ACCEPTED.contains(&b.name()));
        }
        for p in Preset::ALL {
            assert_eq!(p.name().parse::<BarrierBits>().unwrap(), p.bits());
            assert!(BarrierBits::ACCEPTED.contains(&p.name()));
            assert_eq!(p.bits().to_string(), p.name());
        }
        for m in GcMode::ALL {
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
        assert!("paused"
            .parse::<GcMode>()
            .unwrap_err()
            .to_string()
            .contains("concurrent"));
    }

    #[test]
    fn concurrent_refuses_incomplete_sets_naming_what_is_missing() {
        let lookup = |b: &'static str| {
            move |v: &str| match v {
                "FASTPATH_GC_BARRIERS" => Some(b.to_string()),
                "FASTPATH_GC_MODE" => Some("concurrent".to_string()),
                _ => None,
            }
        };
        assert!(from_lookup(lookup("shenandoah")).is_ok());
        assert!(from_lookup(lookup("shenandoah-2017")).is_ok());
        let e = from_lookup(lookup("g1")).unwrap_err().to_string();
        assert!(
            e.contains("lrb") && e.contains("cas") && !e.contains("satb,"),
            "{e}"
        );
        let e = from_lookup(lookup("satb,brooks-rb,cas")).unwrap_err().to_string();
        assert!(e.contains("brooks-wb"), "{e}");
        // Passive accepts any subset.
        assert!(from_lookup(|v| (v == "FASTPATH_GC_BARRIERS").then(|| "card".to_string())).is_ok());
    }
}
