//! Code cache and instruction-cache synchronization (seed 000). Built by the
//! code-cache issue.
