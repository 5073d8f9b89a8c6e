//! The two VMs and their execution tiers, as command lines.
//!
//! Where it sits: between the tables and [`launch`](super::launch). A
//! table names what it varies as [`RunConfig`]s (a VM, a tier, the
//! `-XX:` flags or `FASTPATH_*` variables of one strategy); this file
//! turns one into a process for a program.
//!
//! Tiers are java's switches, the same on both VMs: `-Xint` (the
//! interpreter only), no switch (the default tiers: HotSpot's C1 and C2;
//! fastpath-vm's JIT when it has one) and `-Xcomp` (every method compiled
//! before it first runs). fastpath-vm without a JIT refuses `-Xcomp`
//! ([`Setup::jit`](super::setup::Setup::jit)), and its default is its
//! interpreter: the tables ask for [`Tier::Jit`] only when the JIT is
//! there, so an interpreter figure never stands under a JIT heading. Where
//! fastpath-vm takes `-Xmixed`, its default tiers are named by that switch
//! ([`Setup::mixed_switch`](super::setup::Setup::mixed_switch)), so an
//! environment that selects its interpreter cannot either.

use std::ffi::OsString;
use std::time::Duration;

use super::launch::Launch;
use super::setup::Setup;

/// Which VM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `fastpath-vm`.
    Fastpath,
    /// HotSpot's `java`.
    HotSpot,
}

impl Engine {
    /// The name in tables and results.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Fastpath => "fastpath-vm",
            Engine::HotSpot => "hotspot",
        }
    }
}

/// Which execution tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// `-Xint`.
    Interpreter,
    /// The default tiers (HotSpot: C1 then C2).
    Jit,
    /// `-Xcomp`.
    Xcomp,
}

impl Tier {
    /// The name in results (`tier=` parameter).
    pub fn name(self) -> &'static str {
        match self {
            Tier::Interpreter => "interpreter",
            Tier::Jit => "jit",
            Tier::Xcomp => "xcomp",
        }
    }

    /// java's switch for it.
    pub fn switch(self) -> Option<&'static str> {
        match self {
            Tier::Interpreter => Some("-Xint"),
            Tier::Jit => None,
            Tier::Xcomp => Some("-Xcomp"),
        }
    }

    /// How a table heads it for `engine`: fastpath-vm's interpreter and
    /// JIT, HotSpot's `-Xint` and C2 (the seeds' names).
    pub fn heading(self, engine: Engine) -> &'static str {
        match (engine, self) {
            (Engine::Fastpath, Tier::Interpreter) => "fastpath-vm interpreter",
            (Engine::Fastpath, Tier::Jit) => "fastpath-vm JIT",
            (Engine::Fastpath, Tier::Xcomp) => "fastpath-vm -Xcomp",
            (Engine::HotSpot, Tier::Interpreter) => "HotSpot -Xint",
            (Engine::HotSpot, Tier::Jit) => "HotSpot C2",
            (Engine::HotSpot, Tier::Xcomp) => "HotSpot -Xcomp",
        }
    }

    /// Whether the tier compiles: its first iterations warm it up.
    pub fn compiles(self) -> bool {
        self != Tier::Interpreter
    }
}

/// One configuration of one VM: what a row (or a column) of a table runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// The VM.
    pub engine: Engine,
    /// The tier.
    pub tier: Tier,
    /// The strategy's name in the table (`legacy`, `LockingMode=1`, …).
    pub label: String,
    /// VM options before the class path (`-XX:…`, `-Xmx…`).
    pub flags: Vec<String>,
    /// Variables for the child (`FASTPATH_*`).
    pub env: Vec<(String, String)>,
}

impl RunConfig {
    /// `engine` at `tier` with no strategy of its own.
    pub fn new(engine: Engine, tier: Tier, label: impl Into<String>) -> RunConfig {
        RunConfig {
            engine,
            tier,
            label: label.into(),
            flags: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Adds VM options.
    pub fn flags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, flags: I) -> RunConfig {
        self.flags.extend(flags.into_iter().map(Into::into));
        self
    }

    /// Adds a variable.
    pub fn env(mut self, key: &str, value: &str) -> RunConfig {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The VM options as a HotSpot probe asks about them (tier switch
    /// included).
    pub fn vm_options(&self) -> Vec<String> {
        self.tier
            .switch()
            .map(String::from)
            .into_iter()
            .chain(self.flags.iter().cloned())
            .collect()
    }

    /// Whether `setup` can run it, or why not (no HotSpot, a flag this
    /// JDK refuses, no JIT in fastpath-vm).
    pub fn runnable(&self, setup: &Setup) -> Result<(), String> {
        match self.engine {
            Engine::Fastpath => match (self.tier, &setup.jit) {
                (Tier::Interpreter, _) | (_, Ok(())) => Ok(()),
                (_, Err(why)) => Err(format!("fastpath-vm JIT: not in this build ({why})")),
            },
            Engine::HotSpot => match &setup.hotspot {
                Err(e) => Err(e.clone()),
                Ok(h) => h.accepts(&self.vm_options()),
            },
        }
    }

    /// The process that runs `main` with `args` on this configuration.
    /// `extra` VM options go after the configuration's own (a log flag of
    /// one counting run).
    pub fn launch(
        &self,
        setup: &Setup,
        extra: &[String],
        main: &str,
        args: &[String],
        deadline: Duration,
    ) -> Launch {
        let program = match (self.engine, &setup.hotspot) {
            (Engine::Fastpath, _) => setup.vm.clone(),
            (Engine::HotSpot, Ok(h)) => h.java.clone(),
            // `runnable` said no; the launch then fails naming the VM.
            (Engine::HotSpot, Err(_)) => "java".into(),
        };
        let mixed = (self.engine == Engine::Fastpath && self.tier == Tier::Jit && setup.mixed_switch)
            .then_some("-Xmixed".to_string());
        let mut l = Launch::new(program)
            .args(mixed)
            .args(self.vm_options())
            .args(extra.iter().cloned())
            .args([
                OsString::from("-cp"),
                setup.classes.dir.clone().into_os_string(),
                main.into(),
            ])
            .args(args.iter().cloned())
            .deadline(deadline);
        for (k, v) in &self.env {
            l = l.env(k, v);
        }
        l
    }

    /// The row's name: `fastpath-vm interpreter legacy`.
    pub fn describe(&self) -> String {
        format!("{} {}", self.tier.heading(self.engine), self.label)
    }
}

/// The values of the `FASTPATH_*` setting `var` among `names` that this
/// CPU can run, each checked as the library checks a configuration
/// (`Config::validate`), with the refusal of each other one.
pub fn values_here(var: &str, names: &[&'static str]) -> (Vec<&'static str>, Vec<String>) {
    let cpu = fastpath::cpu::info();
    let mut ok = Vec::new();
    let mut refused = Vec::new();
    for &name in names {
        let checked = fastpath::config::Config::from_lookup(|k| (k == var).then(|| name.to_string()))
            .and_then(|c| c.validate(cpu));
        match checked {
            Ok(()) => ok.push(name),
            Err(e) => refused.push(format!("{name}: {}", e.reason)),
        }
    }
    (ok, refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_and_none_run_everywhere_and_a_foreign_value_is_refused() {
        let (ok, _) = values_here(
            fastpath::code::ICacheSync::VAR,
            fastpath::code::ICacheSync::ACCEPTED,
        );
        assert!(ok.contains(&"auto") && ok.contains(&"none"), "{ok:?}");
        let (ok, refused) = values_here(fastpath::spin::SpinPause::VAR, &["none", "no-such-pause"]);
        assert_eq!(ok, ["none"]);
        assert!(refused[0].starts_with("no-such-pause"), "{refused:?}");
    }

    #[test]
    fn the_tier_switch_comes_first_then_the_flags() {
        let c = RunConfig::new(Engine::HotSpot, Tier::Interpreter, "LockingMode=1")
            .flags(["-XX:LockingMode=1"])
            .env("X", "1");
        assert_eq!(c.vm_options(), ["-Xint", "-XX:LockingMode=1"]);
        let d = RunConfig::new(Engine::HotSpot, Tier::Jit, "default");
        assert!(d.vm_options().is_empty());
        assert_eq!(d.describe(), "HotSpot C2 default");
    }
}
