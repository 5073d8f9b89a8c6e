//! Loom models of `try_enter`: one attempt that never blocks, racing with deflation.
