//! Loom models of monitor churn: inflation and freeing without a process-wide lock per inflation.
