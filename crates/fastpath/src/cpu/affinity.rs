//! How many logical CPUs this process may run on, without reading a file.
//!
//! Where it sits: the one system call of the identification path.
//! `std::thread::available_parallelism` would be the obvious choice, but on
//! Linux it also reads cgroup CPU quotas, which means opening
//! /proc/self/cgroup and /proc/self/mountinfo: exactly the kind of /proc
//! access this module exists to keep off the startup path (verified with
//! strace; see BENCHMARKS.md). `sched_getaffinity` answers from the
//! scheduler with no file, as HotSpot's `os::active_processor_count` does
//! before it applies container limits.
//!
//! The mask buffer starts at 1024 CPUs (glibc's `cpu_set_t`) and doubles on
//! `EINVAL`, which the kernel returns when the buffer is smaller than its
//! `nr_cpu_ids`, so machines with more CPUs than that are counted right.

/// Logical CPUs in this thread's affinity mask (at least 1).
pub fn available_cpus() -> u32 {
    let mut words = 1024 / 64;
    loop {
        let mut mask = vec![0u64; words];
        let bytes = words * std::mem::size_of::<u64>();
        // SAFETY: `mask` is a live, writable buffer of exactly `bytes`
        // bytes; pid 0 is the calling thread. The kernel writes at most
        // `bytes` bytes into it.
        let rc = unsafe { libc::sched_getaffinity(0, bytes, mask.as_mut_ptr().cast()) };
        if rc == 0 {
            let n: u32 = mask.iter().map(|w| w.count_ones()).sum();
            return n.max(1);
        }
        let einval = std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL);
        if !einval || words >= (1 << 20) / 64 {
            // Not a size problem (seccomp, an exotic kernel): one CPU is
            // the answer that can never oversubscribe.
            return 1;
        }
        words *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std_where_no_quota_applies() {
        let n = available_cpus();
        assert!(n >= 1);
        // std's answer also applies cgroup quotas, so it can only be
        // smaller or equal.
        let std_n = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        assert!(std_n <= n, "std {std_n} > affinity {n}");
    }
}
