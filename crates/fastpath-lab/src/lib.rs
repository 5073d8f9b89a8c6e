//! The fastpath lab as a library: the `fastpath` binary is a thin `main`
//! over it, and the integration tests drive the same code.
//!
//! Data flow: [`cli`] parses a subcommand → an [`experiments`] entry drives
//! a `fastpath` subsystem through the [`harness`] → [`report`] prints tables
//! and writes JMH-format JSON and SVG.

#![warn(missing_docs)]

pub mod cli;
pub mod cpu_command;
pub mod experiment;
pub mod experiments;
pub mod harness;
pub mod interrupt;
pub mod output;
pub mod report;
pub mod stats;
