//! Object monitors with fast-locking (seed 001). Built by the object-monitor
//! issue.
