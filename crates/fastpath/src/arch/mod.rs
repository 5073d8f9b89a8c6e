//! The ISA layer: the only module that contains `asm!`.
//!
//! Everything above it (`spin`, `code`, `sync`, `cpu`, `gc`) names
//! instructions through these wrappers, so that an audit of what the project
//! executes on the CPU is an audit of two files. One file per architecture;
//! only the one for the target is compiled.
//!
//! | x86-64 | gate | aarch64 (run under QEMU only) | gate |
//! |---|---|---|---|
//! | `cpuid`, `xgetbv` | -, OSXSAVE | `ctr_el0`, `cntvct_el0`, `cntfrq_el0` | - |
//! | | | `midr_el1` | HWCAP_CPUID |
//! | `pause` | - | `isb`, `yield_hint`, `nop` | - |
//! | `tpause` | WAITPKG | `sb` | HWCAP_SB |
//! | `serialize` | SERIALIZE | `dsb_ish`, `dmb_ish` | - |
//! | `iret_to_self`, `rdssp` | no user shadow stack, - | | |
//! | `clflush`, `clflushopt`, `clwb` | CLFSH, CLFLUSHOPT, CLWB | `dc_cvau`, `ic_ivau` | - |
//! | `mfence`, `sfence`, `lfence` | - | | |
//! | `prefetch_read` (`prefetcht0`) | - | `prefetch_read` (`prfm pldl1keep`) | - |
//! | `rdtsc`, `rdtscp` | -, RDTSCP | | |

#[cfg(target_arch = "x86_64")]
pub mod x86_64;

#[cfg(target_arch = "aarch64")]
pub mod aarch64;
