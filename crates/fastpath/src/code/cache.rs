//! The code cache: where generated machine code lives (HotSpot's CodeCache,
//! reduced to one heap and one allocator).
//!
//! Where it sits: the API of `code`. [`CodeCache::install`] allocates a
//! block, copies the bytes through the RW view of its
//! [`CodeMemory`], runs the [`ICacheStrategy`] over the RX addresses and returns an
//! [`Entry`]; [`CodeCache::install_batch`] does the same for many blobs with
//! one sync; [`CodeCache::patch`] rewrites bytes of a live entry in place and
//! syncs; [`CodeCache::free`] returns the block to the free list, where the
//! next install of a fitting size reuses it.
//!
//! Allocation: blocks are multiples of the strategy's line size and start on
//! a line, so syncing one entry never touches a neighbour's lines (nor shares
//! a line with a concurrent install) and a line loop's count is the entry's
//! size in lines. The free list is a map from offset to length, searched
//! first-fit (linear in the number of free blocks, like HotSpot's CodeHeap
//! free list) and coalesced with both neighbours on free, so a cache that was filled and emptied can hold one blob of its
//! whole capacity again. The tail of a block past the code, and every freed
//! block, is filled with a trapping pattern (x86 INT3 `0xCC`, AArch64
//! `UDF #0`): a stale call into it traps instead of
//! running leftover code.
//!
//! Concurrency: one mutex guards the free list and the set of live entries;
//! it is held for allocation, for `free` and for the write and sync of a
//! `patch` (so a patch cannot race with the block being freed and reused).
//! Copying and syncing a fresh install happen outside it: the block belongs
//! to the installer until the entry is returned. Nothing inside the lock can
//! panic except allocation failure of the bookkeeping maps.
//!
//! Visibility to other threads: `install` and `patch` make the bytes
//! coherent with instruction fetch on the calling core. A thread that may
//! have fetched the *old* bytes at the same addresses (a patched entry, or a
//! reused block) needs [`publish`](super::publish()) from the writer, or a
//! [`cross_modify_fence`](super::cross_modify_fence) of its own, before it
//! runs them. Freeing an entry that a thread may still be executing is the
//! caller's bug (HotSpot frees nmethods only after a safepoint or handshake
//! proves no frame uses them); calling code is already `unsafe`.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

// Under `--cfg loom` the lock is loom's, so the models below explore every
// interleaving of allocation, rollback and free.
#[cfg(loom)]
use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
use std::sync::{Mutex, MutexGuard};

use super::icache::ICacheStrategy;
use super::memory::CodeMemory;
use super::reloc::{self, Blob};
use super::{CodeCacheError, Result};

/// What unused and freed code memory holds, repeated: a byte whose
/// repetition traps when executed. x86: INT3 (`CC`). AArch64: zero bytes,
/// whose 32-bit words are `UDF #0` (permanently undefined); `0xCC` repeated
/// would be `0xCCCCCCCC`, in the load/store encoding class, not a trap.
#[cfg(not(target_arch = "aarch64"))]
const TRAP: u8 = 0xCC;
#[cfg(target_arch = "aarch64")]
const TRAP: u8 = 0x00;

static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(1);

/// A region of executable memory with an allocator, a sync strategy and
/// in-place patching.
pub struct CodeCache {
    memory: CodeMemory,
    strategy: ICacheStrategy,
    align: usize,
    id: u64,
    state: Mutex<State>,
}

struct State {
    /// Free blocks: offset → length; disjoint, never adjacent (coalesced).
    free: BTreeMap<usize, usize>,
    /// Live blocks: offset → length (aligned).
    live: HashMap<usize, usize>,
}

/// Installed code: an executable address and a length. Not `Clone`, so
/// [`CodeCache::free`], which takes it by value, cannot free it twice.
///
/// Dropping an `Entry` does **not** free its block, by design: another
/// thread may still be executing the code (a runtime knows when none can,
/// after a safepoint or handshake, as HotSpot frees nmethods; the entry does
/// not), so freeing is an explicit, synchronised act: pass the entry to
/// [`CodeCache::free`] once no thread can be running it. An entry dropped
/// instead leaves its block allocated (and its code in place) until the
/// whole `CodeCache` is dropped, which unmaps everything; hence
/// `#[must_use]`.
///
/// ```
/// # fn main() -> Result<(), fastpath::code::CodeCacheError> {
/// use fastpath::code::CodeCache;
/// let cache = CodeCache::new(64 * 1024)?;
/// let entry = cache.install(&[0xC3])?; // x86 RET
/// // ... publish it, run it, and later, once no thread can be in it:
/// cache.free(entry)?;
/// # Ok(()) }
/// ```
#[must_use = "dropping an Entry keeps its block allocated until the CodeCache is dropped; \
              free it with CodeCache::free once no thread can execute it"]
pub struct Entry {
    cache: u64,
    offset: usize,
    len: usize,
    addr: *const u8,
}

// SAFETY: an entry is an address and bookkeeping numbers; it owns nothing
// thread-bound. Executing or freeing it goes through `unsafe` or the cache's
// lock.
unsafe impl Send for Entry {}
// SAFETY: as for Send: `&Entry` exposes only the address.
unsafe impl Sync for Entry {}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("addr", &self.addr)
            .field("len", &self.len)
            .finish()
    }
}

impl Entry {
    /// The executable address of the first byte.
    #[inline]
    pub fn addr(&self) -> *const u8 {
        self.addr
    }

    /// Bytes of code installed (not counting alignment padding).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: empty blobs are refused.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry as a function pointer type `F`, such as
    /// `extern "C" fn() -> u32`.
    ///
    /// # Safety
    /// `F` must be a function pointer type whose signature and ABI match the
    /// installed code, and the entry must stay installed (not freed, cache
    /// not dropped) while the pointer is called. [`CodeCache::patch`] is a
    /// safe call, so this contract covers patches too: every patch applied
    /// while the pointer may be called must leave a complete function of
    /// that signature, and a patch racing a call must be one of the
    /// single-store sizes `patch` documents (1, 2, 4 or 8 aligned bytes),
    /// followed by [`publish`](super::publish()) before other threads rely
    /// on the new bytes.
    ///
    /// # Panics
    /// If `F` is not pointer-sized (a programming error, caught on first use).
    #[inline]
    pub unsafe fn as_fn<F: Copy>(&self) -> F {
        assert_eq!(
            std::mem::size_of::<F>(),
            std::mem::size_of::<*const u8>(),
            "Entry::as_fn needs a function pointer type"
        );
        // SAFETY: sizes are equal (checked above); the caller guarantees `F`
        // is a function pointer type for this code.
        unsafe { std::mem::transmute_copy::<*const u8, F>(&self.addr) }
    }
}

impl CodeCache {
    /// A cache of at least `capacity` bytes using the process-wide
    /// `FASTPATH_ICACHE_SYNC` strategy.
    pub fn new(capacity: usize) -> Result<CodeCache> {
        CodeCache::with_strategy(capacity, ICacheStrategy::from_config()?)
    }

    /// A cache of at least `capacity` bytes (rounded up to pages) syncing
    /// with `strategy`.
    pub fn with_strategy(capacity: usize, strategy: ICacheStrategy) -> Result<CodeCache> {
        // The memory is left as the OS maps it (zero pages, committed at
        // first touch): a block is written whole when it is allocated (its
        // code, then `TRAP` to its end) and refilled with `TRAP` when freed,
        // so no byte that ever belonged to an entry is left to run, and a
        // large cache costs nothing until code goes in (HotSpot's code heap
        // commits as it grows).
        let memory = CodeMemory::new(capacity).map_err(CodeCacheError::Os)?;
        let align = (strategy.geometry().dline.max(strategy.geometry().iline) as usize).clamp(16, 4096);
        let mut free = BTreeMap::new();
        free.insert(0, memory.len());
        Ok(CodeCache {
            id: NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed), // uniqueness only
            state: Mutex::new(State {
                free,
                live: HashMap::new(),
            }),
            memory,
            strategy,
            align,
        })
    }

    /// The strategy every install and patch runs.
    pub fn strategy(&self) -> &ICacheStrategy {
        &self.strategy
    }

    /// Capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.memory.len()
    }

    /// Allocation granule and entry alignment in bytes (the cache line).
    pub fn alignment(&self) -> usize {
        self.align
    }

    /// Bytes in live blocks (including alignment padding).
    pub fn used(&self) -> usize {
        self.lock().live.values().sum()
    }

    /// Number of live entries.
    pub fn live_entries(&self) -> usize {
        self.lock().live.len()
    }

    /// Copies `code` into the cache, syncs it, and returns its entry.
    pub fn install(&self, code: &[u8]) -> Result<Entry> {
        let size = self.block_size(code.len())?;
        let offset = {
            let mut st = self.lock();
            st.allocate(size)?
        };
        let entry = self.fill(offset, size, code);
        // SAFETY: the range lies inside the RX view, mapped readable.
        unsafe { self.strategy.sync_range(entry.addr, code.len()) };
        Ok(entry)
    }

    /// Installs every blob and syncs once over all of them. All or nothing:
    /// if one blob is refused or space runs out, nothing is installed.
    pub fn install_batch(&self, blobs: &[&[u8]]) -> Result<Vec<Entry>> {
        let sizes = blobs
            .iter()
            .map(|b| self.block_size(b.len()))
            .collect::<Result<Vec<usize>>>()?;
        let offsets = self.allocate_all(&sizes)?;
        let entries: Vec<Entry> = offsets
            .iter()
            .zip(&sizes)
            .zip(blobs)
            .map(|((&o, &s), b)| self.fill(o, s, b))
            .collect();
        let ranges: Vec<(*const u8, usize)> = entries.iter().map(|e| (e.addr, e.len)).collect();
        // SAFETY: every range lies inside the RX view, mapped readable.
        unsafe { self.strategy.sync_ranges(&ranges) };
        Ok(entries)
    }

    /// Installs code a JIT assembled for no particular address: every blob
    /// is placed, its [`Reloc`](super::Reloc)s are computed against the blocks'
    /// executable addresses (see [`RelocKind`](super::RelocKind) for each kind's
    /// patch, and the veneers that carry branches out of range), the linked
    /// images are copied through the RW view and the whole batch is synced
    /// once. A [`RelocTarget::Blob`](super::reloc::RelocTarget::Blob) refers to
    /// another blob of the same batch, so mutually calling functions install
    /// together. All or nothing: a refused relocation
    /// ([`CodeCacheError::Relocation`]) or a full cache installs nothing.
    ///
    /// Each entry's length covers its code and the veneers it uses.
    ///
    /// ```
    /// # #[cfg(target_arch = "x86_64")] {
    /// use fastpath::code::{Blob, CodeCache, Reloc, RelocKind, RelocTarget};
    /// extern "C" fn twice(x: u64) -> u64 { 2 * x }
    /// // sub rsp,8 ; call rel32 (field at 5) ; add rsp,8 ; ret
    /// let code = [0x48, 0x83, 0xEC, 0x08, 0xE8, 0, 0, 0, 0, 0x48, 0x83, 0xC4, 0x08, 0xC3];
    /// let target = RelocTarget::Addr(twice as *const () as usize);
    /// let relocs = [Reloc::new(5, RelocKind::X86Branch32, target)];
    /// let cache = CodeCache::new(64 * 1024).unwrap();
    /// let entry = cache.install_relocated(&[Blob { code: &code, relocs: &relocs }]).unwrap().remove(0);
    /// // SAFETY: the code is a complete `extern "C" fn(u64) -> u64`.
    /// let f: extern "C" fn(u64) -> u64 = unsafe { entry.as_fn() };
    /// assert_eq!(f(21), 42);
    /// # }
    /// ```
    pub fn install_relocated(&self, blobs: &[Blob<'_>]) -> Result<Vec<Entry>> {
        reloc::validate(blobs).map_err(CodeCacheError::Relocation)?;
        let sizes = blobs
            .iter()
            .map(|b| self.block_size(reloc::reserved_len(b)))
            .collect::<Result<Vec<usize>>>()?;
        let offsets = self.allocate_all(&sizes)?;
        let rx = |index: usize, offset: usize| self.memory.rx_at(offsets[index]) as u64 + offset as u64;
        let images = blobs
            .iter()
            .enumerate()
            .map(|(i, b)| reloc::link(i, b, rx(i, 0), rx))
            .collect::<std::result::Result<Vec<Vec<u8>>, _>>();
        let images = match images {
            Ok(images) => images,
            Err(e) => {
                // Nothing was written: the blocks hold what they held free.
                let mut st = self.lock();
                for (&o, &s) in offsets.iter().zip(&sizes) {
                    st.release(o, s);
                }
                return Err(CodeCacheError::Relocation(e));
            }
        };
        let entries: Vec<Entry> = offsets
            .iter()
            .zip(&sizes)
            .zip(&images)
            .map(|((&o, &s), image)| self.fill(o, s, image))
            .collect();
        let ranges: Vec<(*const u8, usize)> = entries.iter().map(|e| (e.addr, e.len)).collect();
        // SAFETY: every range lies inside the RX view, mapped readable.
        unsafe { self.strategy.sync_ranges(&ranges) };
        Ok(entries)
    }

    /// Overwrites `bytes.len()` bytes of `entry` at `offset` and syncs them.
    ///
    /// A patch of 1, 2, 4 or 8 bytes at an address aligned to its size is one
    /// store, so a thread executing the entry concurrently fetches either the
    /// old or the new bytes, never a mix (the aligned-immediate patching that
    /// HotSpot's call-site patching relies on); longer patches are copied
    /// byte-wise and must not race with execution. Other threads that may
    /// run the entry need [`publish`](super::publish()) afterwards.
    pub fn patch(&self, entry: &Entry, offset: usize, bytes: &[u8]) -> Result<()> {
        if offset
            .checked_add(bytes.len())
            .filter(|&end| end <= entry.len)
            .is_none()
        {
            return Err(CodeCacheError::OutOfBounds {
                offset,
                len: bytes.len(),
                entry_len: entry.len,
            });
        }
        let st = self.lock();
        self.check_live(&st, entry)?;
        let at = entry.offset + offset;
        let dst = self.memory.rw_at(at);
        // SAFETY: `at..at + len` lies inside a live block of the RW view
        // (bounds and liveness checked above, under the lock that `free`
        // takes, so the block cannot be released meanwhile); the atomic
        // views are used only when `dst` is aligned to their size.
        unsafe { store_patch(dst, bytes) };
        // SAFETY: the same range in the RX view, mapped readable.
        unsafe { self.strategy.sync_range(self.memory.rx_at(at), bytes.len()) };
        drop(st);
        Ok(())
    }

    /// Returns `entry`'s block to the free list (filled with the trapping
    /// pattern of the module docs).
    ///
    /// No thread may still be executing the entry, or be about to: after
    /// this returns the block can hold other code.
    pub fn free(&self, entry: Entry) -> Result<()> {
        let mut st = self.lock();
        let size = self.check_live(&st, &entry)?;
        st.live.remove(&entry.offset);
        // SAFETY: the block lies inside the RW view and is no longer live,
        // so no other writer touches it.
        unsafe { self.memory.rw_at(entry.offset).write_bytes(TRAP, size) };
        st.release(entry.offset, size);
        Ok(())
    }

    /// Allocates one block per size, all or none.
    fn allocate_all(&self, sizes: &[usize]) -> Result<Vec<usize>> {
        let mut st = self.lock();
        let mut offsets = Vec::with_capacity(sizes.len());
        for &size in sizes {
            match st.allocate(size) {
                Ok(o) => offsets.push(o),
                Err(e) => {
                    for (&o, &s) in offsets.iter().zip(sizes) {
                        st.release(o, s);
                    }
                    return Err(e);
                }
            }
        }
        Ok(offsets)
    }

    fn block_size(&self, len: usize) -> Result<usize> {
        if len == 0 {
            return Err(CodeCacheError::Empty);
        }
        if len > self.memory.len() {
            return Err(CodeCacheError::Oversized {
                requested: len,
                capacity: self.memory.len(),
            });
        }
        // Cannot overflow: len ≤ capacity, which is page-aligned.
        Ok(len.next_multiple_of(self.align))
    }

    /// Copies `code` into the freshly allocated block and pads it with `TRAP`.
    fn fill(&self, offset: usize, size: usize, code: &[u8]) -> Entry {
        // SAFETY: the block `offset..offset + size` was just allocated to
        // this caller and lies inside the RW view; `code.len() ≤ size`.
        unsafe {
            let dst = self.memory.rw_at(offset);
            std::ptr::copy_nonoverlapping(code.as_ptr(), dst, code.len());
            dst.add(code.len()).write_bytes(TRAP, size - code.len());
        }
        Entry {
            cache: self.id,
            offset,
            len: code.len(),
            addr: self.memory.rx_at(offset),
        }
    }

    fn check_live(&self, st: &State, entry: &Entry) -> Result<usize> {
        if entry.cache != self.id {
            return Err(CodeCacheError::NotInstalled);
        }
        match st.live.get(&entry.offset) {
            Some(&size) if size >= entry.len => Ok(size),
            _ => Err(CodeCacheError::NotInstalled),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is consistent at every point a panic could leave it
        // (maps are updated in single calls), so a poisoned lock is usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for CodeCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeCache")
            .field("capacity", &self.capacity())
            .field("strategy", &self.strategy)
            .finish_non_exhaustive()
    }
}

impl State {
    /// First fit; splits the block it takes.
    fn allocate(&mut self, size: usize) -> Result<usize> {
        let found = self
            .free
            .iter()
            .find(|(_, &len)| len >= size)
            .map(|(&o, &l)| (o, l));
        let Some((offset, len)) = found else {
            return Err(CodeCacheError::OutOfSpace {
                requested: size,
                largest_free: self.free.values().copied().max().unwrap_or(0),
            });
        };
        self.free.remove(&offset);
        if len > size {
            self.free.insert(offset + size, len - size);
        }
        self.live.insert(offset, size);
        Ok(offset)
    }

    /// Returns a block to the free list, merging it with free neighbours.
    fn release(&mut self, mut offset: usize, mut size: usize) {
        self.live.remove(&offset);
        if let Some((&prev, &prev_len)) = self.free.range(..offset).next_back() {
            if prev + prev_len == offset {
                self.free.remove(&prev);
                offset = prev;
                size += prev_len;
            }
        }
        if let Some(next_len) = self.free.remove(&(offset + size)) {
            size += next_len;
        }
        self.free.insert(offset, size);
    }
}

/// Writes `bytes` at `dst`, as one store when the size is 1, 2, 4 or 8 bytes
/// and `dst` is aligned to it.
///
/// # Safety
/// `dst..dst + bytes.len()` must be writable and not referenced by Rust code
/// elsewhere (concurrent instruction fetch is fine).
unsafe fn store_patch(dst: *mut u8, bytes: &[u8]) {
    // Relaxed suffices: the stores are ordered against instruction fetch by
    // the sync strategy and `publish`, not by the Rust memory model; no Rust
    // thread reads these bytes through the RW view concurrently.
    let aligned = dst as usize % bytes.len().max(1) == 0;
    // SAFETY: (all arms) the caller guarantees `dst` is writable for the
    // length; the atomic views are formed only when `dst` is aligned.
    unsafe {
        match (bytes.len(), aligned) {
            (1, _) => AtomicU8::from_ptr(dst).store(bytes[0], Ordering::Relaxed),
            (2, true) => AtomicU16::from_ptr(dst.cast())
                .store(u16::from_ne_bytes([bytes[0], bytes[1]]), Ordering::Relaxed),
            (4, true) => AtomicU32::from_ptr(dst.cast()).store(
                u32::from_ne_bytes(bytes.try_into().expect("length 4")),
                Ordering::Relaxed,
            ),
            (8, true) => AtomicU64::from_ptr(dst.cast()).store(
                u64::from_ne_bytes(bytes.try_into().expect("length 8")),
                Ordering::Relaxed,
            ),
            _ => std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()),
        }
    }
}

#[cfg(all(test, not(loom), target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::code::memory::find_writable_executable_mapping;
    use crate::code::ICacheSync;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// The resident bytes of the mapping that contains `addr`, from
    /// `/proc/self/smaps` (this mapping's own pages: other tests' memory does
    /// not count).
    fn resident_bytes_of_mapping(addr: usize) -> Option<usize> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = first.split_once('-') {
                if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("Rss:") {
                    return kb
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<usize>()
                        .ok()
                        .map(|k| k * 1024);
                }
            }
        }
        None
    }

    #[test]
    fn a_new_cache_commits_no_memory_until_code_goes_in() {
        let cache =
            CodeCache::with_strategy(64 << 20, ICacheStrategy::new(ICacheSync::None).unwrap()).unwrap();
        let rw = cache.memory.rw() as usize;
        let Some(before) = resident_bytes_of_mapping(rw) else {
            panic!("no /proc/self/smaps entry for the cache's RW view");
        };
        assert!(
            before <= 64 << 10,
            "a fresh 64 MiB cache has {before} bytes resident"
        );
        let e = cache.install(&ret_imm(7)).unwrap();
        // SAFETY: `ret_imm` is a complete x86-64 function of this type.
        #[cfg(target_arch = "x86_64")]
        assert_eq!(unsafe { e.as_fn::<extern "C" fn() -> u32>() }(), 7);
        let after = resident_bytes_of_mapping(rw).unwrap();
        assert!(after <= 1 << 20, "one entry made {after} bytes resident");
        cache.free(e).unwrap();
    }

    /// `nop; nop; nop; mov eax, imm32; ret`: the immediate sits at offset 4,
    /// 4-byte aligned, so a patch of it is one store.
    fn ret_imm(v: u32) -> Vec<u8> {
        let mut c = vec![0x90, 0x90, 0x90, 0xB8];
        c.extend_from_slice(&v.to_le_bytes());
        c.push(0xC3);
        c
    }
    const IMM: usize = 4;

    fn call(e: &Entry) -> u32 {
        // SAFETY: `ret_imm` is a complete `extern "C" fn() -> u32`, and the
        // entry stays installed while called here.
        let f: extern "C" fn() -> u32 = unsafe { e.as_fn() };
        f()
    }

    fn cache(strategy: ICacheSync, capacity: usize) -> CodeCache {
        CodeCache::with_strategy(capacity, ICacheStrategy::new(strategy).unwrap()).unwrap()
    }

    #[test]
    fn install_call_patch_call_under_every_supported_strategy() {
        let supported = ICacheStrategy::supported();
        assert!(supported.contains(&ICacheSync::Clflush) && supported.contains(&ICacheSync::Auto));
        for s in ICacheSync::ACCEPTED {
            let s: ICacheSync = s.parse().unwrap();
            if !supported.contains(&s) {
                // e.g. `serialize` on the project's Zen 5: refused, never run.
                let err = ICacheStrategy::new(s).unwrap_err();
                assert!(err.to_string().contains("FASTPATH_ICACHE_SYNC"), "{err}");
                continue;
            }
            let c = cache(s, 4096);
            let e = c.install(&ret_imm(41)).unwrap();
            assert_eq!(call(&e), 41, "{s}");
            assert_eq!(e.addr() as usize % c.alignment(), 0);
            c.patch(&e, IMM, &1234u32.to_le_bytes()).unwrap();
            assert_eq!(call(&e), 1234, "{s}");
            // A byte-wise (unaligned, 3-byte) patch: imm becomes 0x00_07_08_09.
            c.patch(&e, IMM, &[9, 8, 7]).unwrap();
            assert_eq!(call(&e), 0x0007_0809, "{s}");
            c.free(e).unwrap();
        }
    }

    #[test]
    fn batch_installs_all_and_each_is_callable() {
        let c = cache(ICacheSync::Auto, 64 * 1024);
        let blobs: Vec<Vec<u8>> = (0..100).map(ret_imm).collect();
        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        let entries = c.install_batch(&refs).unwrap();
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(call(e), i as u32);
        }
        assert_eq!(c.live_entries(), 100);
        // All or nothing: a batch that does not fit installs nothing.
        let big = vec![0xC3u8; 40 * 1024];
        let before = c.used();
        let err = c.install_batch(&[&big, &big]).unwrap_err();
        assert!(matches!(err, CodeCacheError::OutOfSpace { .. }), "{err}");
        assert_eq!(c.used(), before);
        assert!(matches!(
            c.install_batch(&[&big, &[]]),
            Err(CodeCacheError::Empty)
        ));
    }

    #[test]
    fn freed_code_is_reused_and_coalesced() {
        let c = cache(ICacheSync::Auto, 4096);
        let a = c.install(&ret_imm(1)).unwrap();
        let b = c.install(&ret_imm(2)).unwrap();
        let a_addr = a.addr();
        c.free(a).unwrap();
        let a2 = c.install(&ret_imm(3)).unwrap();
        assert_eq!(a2.addr(), a_addr, "first fit reuses the freed block");
        assert_eq!(call(&a2), 3);
        assert_eq!(call(&b), 2);
        // Fill the cache with small entries, free them all in an interleaved
        // order, and check the free list merged back into one block.
        c.free(a2).unwrap();
        c.free(b).unwrap();
        let mut all = Vec::new();
        while let Ok(e) = c.install(&ret_imm(7)) {
            all.push(e);
        }
        assert_eq!(all.len(), c.capacity() / c.alignment());
        let (even, odd): (Vec<_>, Vec<_>) = all.into_iter().enumerate().partition(|(i, _)| i % 2 == 0);
        for (_, e) in odd.into_iter().chain(even) {
            c.free(e).unwrap();
        }
        let whole = vec![0xC3u8; c.capacity()];
        let e = c.install(&whole).unwrap();
        assert_eq!(e.len(), c.capacity());
    }

    #[test]
    fn errors_are_values() {
        let c = cache(ICacheSync::Auto, 4096);
        assert!(matches!(c.install(&[]), Err(CodeCacheError::Empty)));
        let huge = vec![0u8; c.capacity() + 1];
        assert!(matches!(c.install(&huge), Err(CodeCacheError::Oversized { .. })));
        let half = vec![0xC3u8; c.capacity() / 2 + 1];
        let _first = c.install(&half).unwrap();
        let e = c.install(&half).unwrap_err();
        assert!(
            matches!(e, CodeCacheError::OutOfSpace { requested, largest_free } if largest_free < requested),
            "{e}"
        );
        assert!(e.to_string().contains("full"));

        let small = c.install(&ret_imm(5)).unwrap();
        for (off, len) in [(small.len(), 1), (small.len() - 1, 2), (usize::MAX, 2)] {
            assert!(matches!(
                c.patch(&small, off, &vec![0; len]),
                Err(CodeCacheError::OutOfBounds { .. })
            ));
        }
        let other = cache(ICacheSync::Auto, 4096);
        assert!(matches!(
            other.patch(&small, IMM, &[1]),
            Err(CodeCacheError::NotInstalled)
        ));
        let other_entry = other.install(&ret_imm(1)).unwrap();
        assert!(matches!(c.free(other_entry), Err(CodeCacheError::NotInstalled)));
        assert_eq!(call(&small), 5);
    }

    #[test]
    fn no_mapping_is_ever_writable_and_executable() {
        let c = cache(ICacheSync::Auto, 64 * 1024);
        let mut entries = Vec::new();
        for i in 0..50 {
            entries.push(c.install(&ret_imm(i)).unwrap());
            c.patch(&entries[i as usize], IMM, &(i + 1).to_le_bytes())
                .unwrap();
            assert_eq!(find_writable_executable_mapping().unwrap(), None);
        }
        assert_eq!(call(&entries[10]), 11);
    }

    /// Several threads install, call, patch, call and free their own stubs
    /// (single and batched) in one small cache for a bounded time; every
    /// call must return what its own thread installed or patched, and the
    /// free list must end as one block. Space runs out now and then on
    /// purpose (stubs are padded to 300 bytes, 320 with alignment: the
    /// cache holds 12, the three threads want up to 15); that must be an
    /// error value, and the thread carries on with what it got.
    #[test]
    fn stress_concurrent_install_patch_free() {
        let c = Arc::new(cache(ICacheSync::Auto, 4096));
        let deadline = Instant::now() + Duration::from_millis(600);
        let threads: Vec<_> = (0..3u32)
            .map(|t| {
                let c = c.clone();
                std::thread::spawn(move || {
                    let (mut checked, mut full) = (0u64, 0u64);
                    let mut i = 0u32;
                    while Instant::now() < deadline {
                        i += 1;
                        let tag = (t << 24) | (i & 0xFF_FFFF);
                        let mut mine = Vec::new();
                        let stub = |v: u32| {
                            let mut b = ret_imm(v);
                            b.resize(300, TRAP);
                            b
                        };
                        match c.install(&stub(tag)) {
                            Ok(e) => mine.push((e, tag)),
                            Err(CodeCacheError::OutOfSpace { .. }) => full += 1,
                            Err(e) => panic!("{e}"),
                        }
                        let blobs: Vec<Vec<u8>> = (0..4).map(|k| stub(tag ^ (k << 20))).collect();
                        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
                        match c.install_batch(&refs) {
                            Ok(es) => mine.extend(es.into_iter().zip((0..4).map(|k| tag ^ (k << 20)))),
                            Err(CodeCacheError::OutOfSpace { .. }) => full += 1,
                            Err(e) => panic!("{e}"),
                        }
                        for (e, v) in &mine {
                            assert_eq!(call(e), *v);
                            c.patch(e, IMM, &(!v).to_le_bytes()).unwrap();
                            assert_eq!(call(e), !v);
                            checked += 2;
                        }
                        for (e, _) in mine {
                            c.free(e).unwrap();
                        }
                    }
                    (checked, full)
                })
            })
            .collect();
        let (mut checked, mut full) = (0, 0);
        for t in threads {
            let (c, f) = t.join().unwrap();
            checked += c;
            full += f;
        }
        println!(
            "stress_concurrent_install_patch_free: {checked} calls checked, {full} out-of-space refusals"
        );
        assert!(checked > 0);
        assert_eq!(c.used(), 0);
        let whole = vec![0xC3u8; c.capacity()];
        let all = c.install(&whole).unwrap();
        c.free(all).unwrap();
    }

    /// One thread calls the entry in a loop while this one patches its
    /// immediate to 1, 2, 3, ... and publishes each change. A call that
    /// starts after the caller saw publication `k` must return at least `k`,
    /// and every value must be one that was written (no torn immediate).
    /// Where the kernel gives less than SYNC_CORE, the caller adds its own
    /// `cross_modify_fence`, as the `publish` docs tell runners to.
    #[test]
    fn patch_while_calling_with_publish() {
        let c = Arc::new(cache(ICacheSync::Auto, 4096));
        let e = Arc::new(c.install(&ret_imm(0)).unwrap());
        let guarantee = crate::code::publish_guarantee();
        let published = Arc::new(AtomicU32::new(0));
        let written = Arc::new(AtomicU32::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let caller = {
            let (e, published, written, stop) = (e.clone(), published.clone(), written.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut calls = 0u64;
                // Relaxed on `stop`: it only ends the loop, ordering nothing.
                while !stop.load(Ordering::Relaxed) {
                    // Acquire pairs with the Release after `publish`: the
                    // call below starts after that publish returned.
                    let floor = published.load(Ordering::Acquire);
                    if !guarantee.serializes_all_threads() {
                        crate::code::cross_modify_fence();
                    }
                    let v = call(&e);
                    // Acquire pairs with the Release before each patch, so
                    // any value the call could fetch is at most this.
                    let ceiling = written.load(Ordering::Acquire);
                    assert!(v >= floor, "call saw {v} after publication {floor}");
                    assert!(v <= ceiling, "call saw {v}, only {ceiling} written");
                    calls += 1;
                }
                calls
            })
        };
        let deadline = Instant::now() + Duration::from_millis(800);
        let mut patches = 0u32;
        let mut wx_checks = 0;
        while Instant::now() < deadline {
            patches += 1;
            // Release: a caller that fetches the new immediate and then
            // loads `written` sees at least this value.
            written.store(patches, Ordering::Release);
            c.patch(&e, IMM, &patches.to_le_bytes()).unwrap();
            assert_eq!(crate::code::publish(), guarantee);
            published.store(patches, Ordering::Release);
            if patches % 64 == 0 {
                assert_eq!(find_writable_executable_mapping().unwrap(), None);
                wx_checks += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
        let calls = caller.join().unwrap();
        println!(
            "patch_while_calling: {patches} patches published ({guarantee:?}), {calls} calls checked, {wx_checks} W^X scans"
        );
        assert!(patches > 10 && calls > 0);
        assert_eq!(call(&e), patches);
    }
}

/// Relocated installs that really run: calls from installed code into Rust
/// through rel32 (with a veneer when the Rust function is out of ±2 GiB)
/// and through an absolute 64-bit address, and calls between functions of
/// one batch and into an entry installed before.
#[cfg(all(test, not(loom), target_arch = "x86_64"))]
mod reloc_tests {
    use super::*;
    use crate::code::reloc::{x86_rel32, Reloc, RelocKind, RelocProblem, RelocTarget};
    use crate::code::ICacheSync;

    extern "C" fn add7(x: u64) -> u64 {
        x + 7
    }

    fn cache() -> CodeCache {
        CodeCache::with_strategy(64 * 1024, ICacheStrategy::new(ICacheSync::Auto).unwrap()).unwrap()
    }

    fn call(e: &Entry, x: u64) -> u64 {
        // SAFETY: every blob below is a complete `extern "C" fn(u64) -> u64`
        // (SysV: argument in rdi, result in rax, stack re-aligned before
        // each call) and stays installed while called.
        let f: extern "C" fn(u64) -> u64 = unsafe { e.as_fn() };
        f(x)
    }

    /// `sub rsp,8; call rel32; add rsp,8; ret`: the field is at 5.
    const CALL_REL32: [u8; 14] = [
        0x48, 0x83, 0xEC, 0x08, 0xE8, 0, 0, 0, 0, 0x48, 0x83, 0xC4, 0x08, 0xC3,
    ];
    /// `sub rsp,8; mov rax,imm64; call rax; add rsp,8; ret`: the field is at 6.
    const CALL_ABS64: [u8; 21] = [
        0x48, 0x83, 0xEC, 0x08, 0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xD0, 0x48, 0x83, 0xC4, 0x08, 0xC3,
    ];
    /// `sub rsp,8; call rel32; mov rdi,rax; call rel32; add rsp,8; ret`:
    /// fields at 5 and 13.
    const CALL_TWO: [u8; 22] = [
        0x48, 0x83, 0xEC, 0x08, 0xE8, 0, 0, 0, 0, 0x48, 0x89, 0xC7, 0xE8, 0, 0, 0, 0, 0x48, 0x83, 0xC4, 0x08,
        0xC3,
    ];

    #[test]
    fn rel32_and_abs64_calls_into_rust_run() {
        let c = cache();
        let rel = [Reloc::new(
            5,
            RelocKind::X86Branch32,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        let abs = [Reloc::new(
            6,
            RelocKind::Abs64,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        let es = c
            .install_relocated(&[
                Blob {
                    code: &CALL_REL32,
                    relocs: &rel,
                },
                Blob {
                    code: &CALL_ABS64,
                    relocs: &abs,
                },
            ])
            .unwrap();
        assert_eq!(call(&es[0], 35), 42);
        assert_eq!(call(&es[1], 1), 8);
        // Whether the rel32 needed a veneer depends on where the loader put
        // the test binary and the kernel put the cache; check it matches.
        let far = x86_rel32(es[0].addr() as u64 + 5, add7 as *const () as usize as u64).is_none();
        assert_eq!(es[0].len() > CALL_REL32.len(), far, "veneer iff out of ±2 GiB");
        assert_eq!(es[1].len(), CALL_ABS64.len());
        println!(
            "rel32 to add7: {}",
            if far { "through a veneer" } else { "direct" }
        );
        for e in es {
            c.free(e).unwrap();
        }
        assert_eq!(c.used(), 0);
    }

    #[test]
    fn relocations_resolve_against_the_batch_and_installed_entries() {
        let c = cache();
        let rel = [Reloc::new(
            5,
            RelocKind::X86Branch32,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        let first = c
            .install_relocated(&[Blob {
                code: &CALL_REL32,
                relocs: &rel,
            }])
            .unwrap();
        let abs = [Reloc::new(
            6,
            RelocKind::Abs64,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        // Blob 0 calls blob 1 (same batch) and then `first` (installed
        // before); both are in the cache, so no veneer.
        let two = [
            Reloc::new(
                5,
                RelocKind::X86Branch32,
                RelocTarget::Blob { index: 1, offset: 0 },
            ),
            Reloc::new(
                13,
                RelocKind::X86Branch32,
                RelocTarget::Addr(first[0].addr() as usize),
            ),
        ];
        let es = c
            .install_relocated(&[
                Blob {
                    code: &CALL_TWO,
                    relocs: &two,
                },
                Blob {
                    code: &CALL_ABS64,
                    relocs: &abs,
                },
            ])
            .unwrap();
        assert_eq!(call(&es[0], 100), 114);
        assert_eq!(es[0].len(), CALL_TWO.len(), "in-cache targets need no veneer");
    }

    #[test]
    fn refused_relocations_install_nothing() {
        let c = cache();
        let far = c.memory.rx() as usize + (3usize << 30);
        // lea rax, [rip+disp32]; ret
        let lea = [0x48, 0x8D, 0x05, 0, 0, 0, 0, 0xC3];
        let data = [Reloc::new(3, RelocKind::X86PcRel32, RelocTarget::Addr(far))];
        let ok = [Reloc::new(
            5,
            RelocKind::X86Branch32,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        let err = c
            .install_relocated(&[
                Blob {
                    code: &CALL_REL32,
                    relocs: &ok,
                },
                Blob {
                    code: &lea,
                    relocs: &data,
                },
            ])
            .unwrap_err();
        match &err {
            CodeCacheError::Relocation(e) => {
                assert_eq!((e.blob, e.reloc), (1, 0));
                assert!(matches!(e.problem, RelocProblem::OutOfRange { .. }));
            }
            e => panic!("{e}"),
        }
        assert!(err.to_string().contains("out of range"), "{err}");
        assert_eq!(c.used(), 0);
        let bad = [Reloc::new(12, RelocKind::X86Branch32, RelocTarget::Addr(0))];
        assert!(matches!(
            c.install_relocated(&[Blob {
                code: &CALL_REL32,
                relocs: &bad
            }]),
            Err(CodeCacheError::Relocation(_))
        ));
        assert_eq!(c.used(), 0);
    }

    /// AArch64 relocation through the cache on any host: the linked words
    /// are read back through the executable view (not run).
    #[test]
    fn aarch64_branch_linked_in_the_cache_reads_back() {
        use crate::code::reloc::{aarch64_branch26_displacement, AARCH64_BR_X16, AARCH64_LDR_X16_PC8};
        let c = cache();
        let mut code = Vec::new();
        for w in [0x9400_0000u32, 0x9400_0000, 0xD65F_03C0] {
            code.extend_from_slice(&w.to_le_bytes());
        }
        let far = c.memory.rx() as usize + (1usize << 30);
        let relocs = [
            Reloc::new(0, RelocKind::Aarch64Branch26, RelocTarget::Addr(far)),
            Reloc::new(
                4,
                RelocKind::Aarch64Branch26,
                RelocTarget::Blob { index: 0, offset: 8 },
            ),
        ];
        let e = c
            .install_relocated(&[Blob {
                code: &code,
                relocs: &relocs,
            }])
            .unwrap()
            .remove(0);
        // SAFETY: the entry's bytes are mapped readable in the RX view.
        let bytes = unsafe { std::slice::from_raw_parts(e.addr(), e.len()) };
        let w = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        assert_eq!(e.len(), 16 + 16);
        assert_eq!(aarch64_branch26_displacement(w(0)), 16);
        assert_eq!(aarch64_branch26_displacement(w(4)), 4);
        assert_eq!((w(16), w(20)), (AARCH64_LDR_X16_PC8, AARCH64_BR_X16));
        assert_eq!(&bytes[24..32], &(far as u64).to_le_bytes());
    }
}

/// Relocated installs run on AArch64: `BL` into Rust, near or through a
/// veneer, and `BL` between functions of one batch.
#[cfg(all(test, not(loom), target_arch = "aarch64"))]
mod reloc_tests_aarch64 {
    use super::*;
    use crate::code::reloc::{Reloc, RelocKind, RelocTarget};
    use crate::code::ICacheSync;

    extern "C" fn add7(x: u64) -> u64 {
        x + 7
    }

    /// `stp x29,x30,[sp,#-16]!; bl 0; ldp x29,x30,[sp],#16; ret`: the BL
    /// is at 4.
    fn call_bl() -> Vec<u8> {
        [0xA9BF_7BFDu32, 0x9400_0000, 0xA8C1_7BFD, 0xD65F_03C0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    }

    #[test]
    fn bl_into_rust_and_between_blobs_runs() {
        let c = CodeCache::with_strategy(64 * 1024, ICacheStrategy::new(ICacheSync::Auto).unwrap()).unwrap();
        let code = call_bl();
        let to_rust = [Reloc::new(
            4,
            RelocKind::Aarch64Branch26,
            RelocTarget::Addr(add7 as *const () as usize),
        )];
        let to_blob = [Reloc::new(
            4,
            RelocKind::Aarch64Branch26,
            RelocTarget::Blob { index: 0, offset: 0 },
        )];
        let es = c
            .install_relocated(&[
                Blob {
                    code: &code,
                    relocs: &to_rust,
                },
                Blob {
                    code: &code,
                    relocs: &to_blob,
                },
            ])
            .unwrap();
        // SAFETY: both blobs are complete `extern "C" fn(u64) -> u64` (x0 in
        // and out, frame record saved around the BL) and stay installed.
        let f0: extern "C" fn(u64) -> u64 = unsafe { es[0].as_fn() };
        // SAFETY: as above.
        let f1: extern "C" fn(u64) -> u64 = unsafe { es[1].as_fn() };
        assert_eq!(f0(35), 42);
        assert_eq!(f1(1), 8);
        assert_eq!(es[1].len(), code.len(), "in-cache target needs no veneer");
    }
}

/// Loom models of the allocator's locking: concurrent installs, an
/// all-or-nothing batch that must roll back, and frees, ending with the
/// free list coalesced back into one block. ICacheStrategy `none`, so no
/// instruction beyond plain stores runs inside the model.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::code::ICacheSync;
    use loom::sync::Arc;

    fn cache() -> CodeCache {
        let s = ICacheStrategy::new(ICacheSync::None).unwrap();
        CodeCache::with_strategy(4096, s).unwrap()
    }

    fn assert_coalesced(c: &CodeCache) {
        assert_eq!(c.used(), 0);
        let whole = vec![0xC3u8; c.capacity()];
        let e = c.install(&whole).unwrap();
        c.free(e).unwrap();
    }

    #[test]
    fn loom_install_and_free_race_keeps_the_free_list_consistent() {
        loom::model(|| {
            let c = Arc::new(cache());
            let c2 = c.clone();
            let t = loom::thread::spawn(move || {
                let e = c2.install(&[0xC3; 100]).unwrap();
                c2.free(e).unwrap();
            });
            let a = c.install(&[0xC3; 200]).unwrap();
            t.join().unwrap();
            assert_eq!(c.used(), 200usize.next_multiple_of(c.alignment()));
            c.free(a).unwrap();
            assert_coalesced(&c);
        });
    }

    #[test]
    fn loom_batch_rolls_back_when_a_racing_install_takes_the_space() {
        loom::model(|| {
            let c = Arc::new(cache());
            let c2 = c.clone();
            // 3008 + 1024 for the batch and 1024 for the single install:
            // whichever allocates first wins, the other must fail cleanly.
            let t = loom::thread::spawn(move || c2.install(&[0xC3; 1000]).ok());
            let batch = c.install_batch(&[&[0xC3; 3000], &[0xC3; 1000]]).ok();
            let single = t.join().unwrap();
            match (batch, single) {
                (Some(b), None) => {
                    assert_eq!(c.used(), 3008 + 1024);
                    for e in b {
                        c.free(e).unwrap();
                    }
                }
                (None, Some(e)) => {
                    assert_eq!(c.used(), 1024, "the failed batch left blocks behind");
                    c.free(e).unwrap();
                }
                (b, s) => panic!("exactly one must fit: batch {b:?}, single {s:?}"),
            }
            assert_coalesced(&c);
        });
    }
}
