//! Loom models of the contention protocol (spinning, parking, hand-off, fairness).
