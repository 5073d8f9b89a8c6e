//! Strategy selection from C: the locking mode, icache sync and spin pause
//! by name, before first use, with HotSpot-style error text (over
//! `fastpath::config`).
//!
//! Where it sits: the first call a runtime makes, at start-up. Every
//! subsystem bakes the configuration into its fast paths on first use, so
//! it is fixed from then on: a later, different choice is
//! `FASTPATH_ERR_ALREADY_CONFIGURED`.

use core::ffi::c_char;

use fastpath_core::code::ICacheSync;
use fastpath_core::config::{self, Config, ConfigError};
use fastpath_core::cpu;
use fastpath_core::spin::SpinPause;
use fastpath_core::sync::LockingMode;

use crate::status::fastpath_status::{self, *};
use crate::status::{copy_out, fail, ffi, opt_str};

/// A value that is not one of the accepted spellings (or a malformed
/// repeat count): `FASTPATH_ERR_UNKNOWN_NAME`, the text stored as the last
/// error.
pub(crate) fn unknown_name(e: ConfigError) -> fastpath_status {
    fail(FASTPATH_ERR_UNKNOWN_NAME, e)
}

/// A known strategy that this CPU cannot run: `FASTPATH_ERR_UNSUPPORTED`.
pub(crate) fn unsupported(e: ConfigError) -> fastpath_status {
    fail(FASTPATH_ERR_UNSUPPORTED, e)
}

/// Validates `wanted` against this CPU, then installs it: the three
/// refusals get their own status (parsing, the caller's step, is the
/// first).
fn install(wanted: Config) -> Result<(), fastpath_status> {
    wanted.validate(cpu::info()).map_err(unsupported)?;
    // Valid on this CPU, so the only refusal left is a configuration
    // already in force.
    config::set(wanted)
        .map(drop)
        .map_err(|e| fail(FASTPATH_ERR_ALREADY_CONFIGURED, e))
}

/// Reads `FASTPATH_LOCKING_MODE`, `FASTPATH_ICACHE_SYNC` and
/// `FASTPATH_SPIN_PAUSE` from the environment, validates them against this
/// CPU and installs them (strict: a bad value is an error, not a fallback).
/// Succeeds without change if a configuration is already in force.
#[no_mangle]
pub extern "C" fn fastpath_config_init() -> fastpath_status {
    ffi(|| {
        let wanted = Config::from_env().map_err(unknown_name)?;
        wanted.validate(cpu::info()).map_err(unsupported)?;
        // The environment's choice is valid; `init` installs it, or keeps
        // the one already in force.
        config::init().map(drop).map_err(unsupported)
    })
}

/// Installs a configuration by name; NULL leaves a setting at its default
/// (`"lightweight"`, `"auto"`, `"auto"`). Spellings are the environment
/// variables': see `FASTPATH_LOCKING_MODE` etc. in the README.
/// `FASTPATH_ERR_UNKNOWN_NAME` / `FASTPATH_ERR_UNSUPPORTED` /
/// `FASTPATH_ERR_ALREADY_CONFIGURED`, with `fastpath_last_error()` naming
/// the setting, the value and the accepted values. Call it before any other
/// fastpath function (the environment is not read then). Thread-safe.
#[no_mangle]
pub extern "C" fn fastpath_config_set(
    locking_mode: *const c_char,
    icache_sync: *const c_char,
    spin_pause: *const c_char,
) -> fastpath_status {
    ffi(|| {
        let given = [
            (LockingMode::VAR, opt_str(locking_mode, "the locking mode")?),
            (ICacheSync::VAR, opt_str(icache_sync, "the icache sync strategy")?),
            (SpinPause::VAR, opt_str(spin_pause, "the spin pause")?),
        ];
        let wanted = Config::from_lookup(|var| {
            given
                .iter()
                .find(|(v, _)| *v == var)
                .and_then(|(_, value)| value.map(str::to_string))
        })
        .map_err(unknown_name)?;
        install(wanted)
    })
}

/// The configuration in force (installing the environment's, or the
/// defaults, if none is yet), as `locking_mode icache_sync spin_pause`
/// names separated by spaces, e.g. `"lightweight auto pause"`, copied into
/// `buf` with the `snprintf` convention (`*needed` gets the size).
#[no_mangle]
pub extern "C" fn fastpath_config_get(buf: *mut c_char, cap: usize, needed: *mut usize) -> fastpath_status {
    ffi(|| {
        let c = config::global();
        let text = format!("{} {} {}", c.locking_mode, c.icache_sync.name(), c.spin_pause);
        copy_out(&text, buf, cap, needed)
    })
}
