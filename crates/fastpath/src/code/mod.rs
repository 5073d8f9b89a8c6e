//! Code cache and instruction-cache synchronization (seed 000: HotSpot
//! JDK-8353558, `X86ICacheSync` — CLFLUSH, CLFLUSHOPT, CLWB or one CPUID).
//!
//! Where it sits: a runtime that generates machine code (a JIT, an AOT
//! loader, a stub generator) hands the bytes to a [`CodeCache`]; the cache
//! copies them into [`CodeMemory`] through its writable view, makes
//! them visible to instruction fetch with the configured
//! [`ICacheStrategy`], and returns an [`Entry`] whose address is callable
//! through the executable view. Later rewrites go through
//! [`CodeCache::patch`]. Code assembled for no particular address comes with
//! [`Reloc`]s; [`CodeCache::install_relocated`] links it at the executable
//! address it gets (veneers for far branches) before copying. When other threads may be running the bytes that
//! changed, the writer calls [`publish()`] (every thread of the process) or the
//! running thread calls [`cross_modify_fence`] (itself).
//!
//! ```text
//!  ICacheSync ──resolve──▶ ICacheStrategy ─┐
//!                                          ▼
//!  bytes ─▶ CodeCache::install ─▶ RW view ─ sync(RX range) ─▶ Entry (RX address)
//!                     patch ───▶ RW view ─ sync ─▶ publish() ─▶ other threads
//! ```
//!
//! | file (private; every item is re-exported here) | concept |
//! |---|---|
//! | `memory.rs` | [`CodeMemory`]: executable memory that is never writable and executable at once (memfd, two views) |
//! | `icache/` | the sync strategies ([`ICacheSync`] → [`ICacheStrategy`]), `auto`, [`cross_modify_fence`]; one file per architecture, the setting in `settings.rs` |
//! | `cache.rs` | [`CodeCache`]: allocation with a coalescing free list, install, batch install, patch, free |
//! | `reloc.rs` | relocations a JIT hands over with its bytes ([`Reloc`]: x86-64 rel32, abs64, AArch64 B/BL imm26), veneers for far branches |
//! | `publish.rs` | [`publish()`]: membarrier `PRIVATE_EXPEDITED_SYNC_CORE`, registered on first use, with fallbacks |
//! | [`testing`] | what a resolved strategy executes, for the lab and tests |
//!
//! Theory in one paragraph. x86 keeps its instruction caches coherent with
//! stores, and a core notices a store to an instruction it has already
//! fetched (self-modifying code detection), so for the thread that wrote the
//! code nothing is architecturally required; HotSpot's historical CLFLUSH
//! loop is belt and braces, and the seed measured what cheaper variants cost.
//! What the hardware does *not* do for free is cross-modification: a core
//! that may have fetched the old bytes must execute a serializing instruction
//! before it runs the new ones (Intel SDM vol. 3, 9.1.3). AArch64 needs both
//! halves explicitly: clean D-cache and invalidate I-cache to the point of
//! unification on the writer, and an ISB on every core that runs the code.
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use fastpath::code::CodeCache;
//! let cache = CodeCache::new(64 * 1024).unwrap();
//! // mov eax, 42 ; ret
//! let entry = cache.install(&[0xB8, 42, 0, 0, 0, 0xC3]).unwrap();
//! // SAFETY: the bytes are a complete function with the C ABI's signature.
//! let f: extern "C" fn() -> u32 = unsafe { entry.as_fn() };
//! assert_eq!(f(), 42);
//! cache.patch(&entry, 1, &7u32.to_le_bytes()).unwrap();
//! assert_eq!(f(), 7);
//! # }
//! ```

mod cache;
mod icache;
mod memory;
mod publish;
mod reloc;

use std::fmt;

pub use cache::{CodeCache, Entry};
pub use icache::{cross_modify_fence, CacheGeometry, ICacheStrategy, ICacheSync};
pub use memory::CodeMemory;
pub use publish::{publish, publish_guarantee, PublishGuarantee};
pub use reloc::{Blob, Reloc, RelocError, RelocKind, RelocProblem, RelocTarget};

pub(crate) use icache::ICACHE_SYNC;

/// What the lab and tests look at below the code cache's API: the
/// instruction sequence an [`ICacheStrategy`] resolved to, and the rules
/// that pick it. A runtime needs none of it ([`ICacheStrategy::describe`]
/// says the same in words).
pub mod testing {
    use crate::config::ConfigError;
    use crate::cpu::CpuInfo;

    #[cfg(target_arch = "x86_64")]
    pub use super::icache::{cross_modify_serializer, resolve_auto};
    pub use super::icache::{LineFlush, Method, Serializer};
    use super::{ICacheStrategy, ICacheSync};

    /// What `strategy` executes.
    pub fn icache_method(strategy: &ICacheStrategy) -> Method {
        strategy.method()
    }

    /// What `requested` would resolve to on `cpu` (any machine, recorded or
    /// real), or why it is refused there. Executes nothing.
    pub fn icache_method_for(requested: ICacheSync, cpu: &CpuInfo) -> Result<Method, ConfigError> {
        ICacheStrategy::method_for(requested, cpu)
    }
}

/// Why a code-cache operation was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum CodeCacheError {
    /// An empty code blob: there is nothing to call.
    Empty,
    /// The blob is larger than the whole cache can ever hold.
    Oversized {
        /// Bytes asked for.
        requested: usize,
        /// The cache's capacity.
        capacity: usize,
    },
    /// Not enough contiguous free space now (free or grow the cache).
    OutOfSpace {
        /// Bytes asked for (after alignment).
        requested: usize,
        /// The largest free block.
        largest_free: usize,
    },
    /// A patch that does not lie inside its entry.
    OutOfBounds {
        /// Offset of the patch within the entry.
        offset: usize,
        /// Bytes of the patch.
        len: usize,
        /// Size of the entry.
        entry_len: usize,
    },
    /// The entry is not installed in this cache (freed, or from another cache).
    NotInstalled,
    /// The operating system refused to create the executable memory.
    Os(std::io::Error),
    /// The configured sync strategy cannot run on this CPU.
    Config(crate::setting::ConfigError),
    /// A relocation that cannot be applied (bad field, bad target, data
    /// reference out of range).
    Relocation(reloc::RelocError),
}

impl fmt::Display for CodeCacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeCacheError::Empty => f.write_str("empty code blob"),
            CodeCacheError::Oversized { requested, capacity } => write!(
                f,
                "code blob of {requested} bytes exceeds the cache capacity of {capacity} bytes"
            ),
            CodeCacheError::OutOfSpace {
                requested,
                largest_free,
            } => write!(
                f,
                "code cache full: {requested} bytes requested, largest free block {largest_free} bytes"
            ),
            CodeCacheError::OutOfBounds {
                offset,
                len,
                entry_len,
            } => write!(
                f,
                "patch of {len} bytes at offset {offset} does not fit an entry of {entry_len} bytes"
            ),
            CodeCacheError::NotInstalled => f.write_str("entry is not installed in this code cache"),
            CodeCacheError::Os(e) => write!(f, "executable memory: {e}"),
            CodeCacheError::Config(e) => write!(f, "icache sync: {e}"),
            CodeCacheError::Relocation(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CodeCacheError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CodeCacheError::Os(e) => Some(e),
            CodeCacheError::Config(e) => Some(e),
            CodeCacheError::Relocation(e) => Some(e),
            _ => None,
        }
    }
}

impl From<crate::setting::ConfigError> for CodeCacheError {
    fn from(e: crate::setting::ConfigError) -> CodeCacheError {
        CodeCacheError::Config(e)
    }
}

/// `Result` with the code cache's [`CodeCacheError`].
pub type Result<T> = std::result::Result<T, CodeCacheError>;
