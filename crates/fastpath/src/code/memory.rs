//! Executable memory that is never writable and executable at the same
//! address: one memfd mapped twice, a read-write view to write code through
//! and a read-execute view to run it from.
//!
//! Where it sits: the bottom of `code`. [`CodeCache`](super::CodeCache) owns
//! one [`CodeMemory`], copies and patches bytes through [`CodeMemory::rw`],
//! syncs and hands out addresses of [`CodeMemory::rx`].
//!
//! Why two views rather than RW→RX `mprotect` transitions:
//! - a patch must not stop the world. With transitions, making a page
//!   writable again removes execute permission from every other function on
//!   that page, so a thread running one of them faults in the middle of
//!   someone else's patch. With two views the RX view never changes, so
//!   threads keep running while the RW view is written (the multi-threaded
//!   patch test depends on this);
//! - no page-table change per install: `mprotect` on a page that other
//!   threads have touched costs a TLB shootdown (an IPI to every core running
//!   the process) each time, which would dominate the install storm;
//! - the price: the same physical page is writable at another address, so a
//!   memory-corruption bug that learns the RW address can still plant code.
//!   That is the usual trade of dual-mapped JITs (e.g. V8's and .NET's
//!   double mapping); W^X per *address* is what the test checks, and what
//!   SELinux's `execmem` and PaX MPROTECT look at.
//!
//! The file is created with `MFD_EXEC` where the kernel knows the flag
//! (Linux ≥ 6.3 otherwise applies `vm.memfd_noexec` and may refuse
//! `PROT_EXEC`), and without it on older kernels. The descriptor is closed
//! after mapping: the two mappings keep the file alive, and nothing else can
//! map it afterwards. Where policy forbids executable memfds
//! (`vm.memfd_noexec = 2`, an SELinux `execmem` denial), [`CodeMemory::new`]
//! returns the OS error; there is no fallback to RW→RX transitions.
//!
//! On x86 and AArch64 data caches are physically tagged, so flushing or
//! cleaning lines through either view reaches the same lines; the sync
//! strategies use the RX addresses, which is also what AArch64's `IC IVAU`
//! (virtually indexed instruction caches) needs.

use std::io;
use std::ptr::NonNull;

use rustix::fs::{ftruncate, memfd_create, MemfdFlags};
use rustix::mm::{mmap, munmap, MapFlags, ProtFlags};

/// A page-aligned region mapped twice: [`rw`](Self::rw) (read-write) and
/// [`rx`](Self::rx) (read-execute), never one view with both.
#[derive(Debug)]
pub struct CodeMemory {
    rw: NonNull<u8>,
    rx: NonNull<u8>,
    len: usize,
}

// SAFETY: the struct owns two mappings of process memory; the raw pointers
// are addresses, not thread-bound resources. Writers synchronize through the
// owner (the code cache's lock); reading code bytes through `rx` races only
// with instruction fetch, which is not a Rust memory access.
unsafe impl Send for CodeMemory {}
// SAFETY: as for Send; shared references expose only addresses.
unsafe impl Sync for CodeMemory {}

impl CodeMemory {
    /// Maps at least `len` bytes (rounded up to whole pages; at least one).
    pub fn new(len: usize) -> io::Result<CodeMemory> {
        let page = rustix::param::page_size();
        let len = len
            .max(1)
            .checked_next_multiple_of(page)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "code memory size overflows"))?;
        let fd = match memfd_create("fastpath-code", MemfdFlags::CLOEXEC | MemfdFlags::EXEC) {
            Ok(fd) => fd,
            // Kernels before 6.3 reject the unknown MFD_EXEC flag.
            Err(rustix::io::Errno::INVAL) => memfd_create("fastpath-code", MemfdFlags::CLOEXEC)?,
            Err(e) => return Err(e.into()),
        };
        ftruncate(&fd, len as u64)?;
        // SAFETY: a fresh shared mapping of our own memfd at an address the
        // kernel chooses; it aliases no Rust object.
        let rw = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }?;
        // SAFETY: as above, with read and execute permission only.
        let rx = match unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::EXEC,
                MapFlags::SHARED,
                &fd,
                0,
            )
        } {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: `rw` was mapped just above with this length and is
                // not referenced anywhere else.
                let _ = unsafe { munmap(rw, len) };
                return Err(e.into());
            }
        };
        // The mappings hold the file; the descriptor closes here.
        drop(fd);
        Ok(CodeMemory {
            rw: NonNull::new(rw.cast()).expect("mmap returned null"),
            rx: NonNull::new(rx.cast()).expect("mmap returned null"),
            len,
        })
    }

    /// Size in bytes of each view.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a mapping has at least one page.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Start of the writable view. Write code here, never execute it.
    #[inline]
    pub fn rw(&self) -> *mut u8 {
        self.rw.as_ptr()
    }

    /// Start of the executable view: the addresses that are called, synced
    /// and read back. Never writable.
    #[inline]
    pub fn rx(&self) -> *const u8 {
        self.rx.as_ptr()
    }

    /// The executable address of the byte at `offset`.
    #[inline]
    pub fn rx_at(&self, offset: usize) -> *const u8 {
        debug_assert!(offset <= self.len);
        self.rx().wrapping_add(offset)
    }

    /// The writable address of the byte at `offset`.
    #[inline]
    pub fn rw_at(&self, offset: usize) -> *mut u8 {
        debug_assert!(offset <= self.len);
        self.rw().wrapping_add(offset)
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        // SAFETY: both views were mapped by `new` with `self.len` bytes and
        // are unmapped exactly once, here. Addresses handed out earlier die
        // with the cache that owns this memory.
        unsafe {
            let _ = munmap(self.rw.as_ptr().cast(), self.len);
            let _ = munmap(self.rx.as_ptr().cast(), self.len);
        }
    }
}

/// One line of `/proc/self/maps` that is both writable and executable, if
/// any mapping of the process is: what the W^X test looks for.
#[cfg(test)]
pub(crate) fn find_writable_executable_mapping() -> io::Result<Option<String>> {
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    Ok(maps
        .lines()
        .find(|l| {
            let perms = l.split_whitespace().nth(1).unwrap_or("");
            perms.as_bytes().get(1) == Some(&b'w') && perms.as_bytes().get(2) == Some(&b'x')
        })
        .map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_alias_the_same_bytes_and_are_never_wx() {
        let m = CodeMemory::new(100).unwrap();
        assert_eq!(m.len() % rustix::param::page_size(), 0);
        assert_ne!(m.rw() as usize, m.rx() as usize);
        // SAFETY: offset 10 is inside both views; the RW view is writable
        // and the RX view readable.
        unsafe {
            m.rw_at(10).write(0xAB);
            assert_eq!(m.rx_at(10).read_volatile(), 0xAB);
        }
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let perms_of = |addr: usize| {
            maps.lines()
                .find(|l| {
                    let (range, _) = l.split_once(' ').unwrap();
                    let (lo, hi) = range.split_once('-').unwrap();
                    let (lo, hi) = (
                        usize::from_str_radix(lo, 16).unwrap(),
                        usize::from_str_radix(hi, 16).unwrap(),
                    );
                    (lo..hi).contains(&addr)
                })
                .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
                .unwrap()
        };
        assert_eq!(perms_of(m.rw() as usize), "rw-s");
        assert_eq!(perms_of(m.rx() as usize), "r-xs");
        assert_eq!(find_writable_executable_mapping().unwrap(), None);
    }
}
