//! Compiling a function built with the emitters and installing it in
//! fastpath's W^X `CodeCache`: cranelift-jit cannot install into a
//! dual-mapped cache (it runs code where it wrote it), so [`install`] does
//! the linking, cranelift's relocations becoming
//! [`fastpath::code::Reloc`]s applied at the executable address, as
//! wasmtime installs its own code memory.

use cranelift_codegen::binemit::Reloc as ClifReloc;
use cranelift_codegen::ir::{self, ExternalName};
use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, FinalizedRelocTarget};
use fastpath::code::{Blob, CodeCache, Entry, Reloc, RelocKind, RelocTarget};

/// Why a function could not be compiled or installed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// cranelift-codegen refused the function.
    Compile(String),
    /// A relocation this installer does not map (named in the message).
    Unsupported(String),
    /// The code cache refused the code.
    Install(fastpath::code::CodeCacheError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Compile(e) => write!(f, "cranelift: {e}"),
            Error::Unsupported(e) => write!(f, "unsupported relocation: {e}"),
            Error::Install(e) => write!(f, "code cache: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// An ISA for the host with `opt_level=speed`.
pub fn host_isa() -> OwnedTargetIsa {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").expect("a known setting");
    let triple = if cfg!(target_arch = "aarch64") {
        "aarch64-unknown-linux-gnu"
    } else {
        "x86_64-unknown-linux-gnu"
    };
    cranelift_codegen::isa::lookup_by_name(triple)
        .expect("cranelift built with host-arch")
        .finish(settings::Flags::new(flags))
        .expect("valid flags")
}

/// Compiles `func` for `isa` and installs it in `cache`, linking every call
/// to an imported user function `(1, index)` to `resolve(index)`, and a call
/// to an import named as `func` itself to the installed code's own start
/// (a self-recursive call, which needs no address known before
/// installation; import it `colocated` for a PC-relative call): Cranelift's
/// `Abs8` becomes [`RelocKind::Abs64`], `X86CallPCRel4`/`X86CallPLTRel4`
/// [`RelocKind::X86Branch32`] (veneer when far), `Arm64Call`
/// [`RelocKind::Aarch64Branch26`].
pub fn install(
    cache: &CodeCache,
    isa: &dyn TargetIsa,
    func: ir::Function,
    resolve: impl Fn(u32) -> usize,
) -> Result<Entry, Error> {
    let names = func.params.user_named_funcs().clone();
    // A call to the function's own name is a call to its own start (a
    // self-recursive call): a reference inside the blob being installed.
    let own = match &func.name {
        ir::UserFuncName::User(u) => Some(u.clone()),
        ir::UserFuncName::Testcase(_) => None,
    };
    let mut ctx = Context::for_function(func);
    let code = crate::compile::compile(&mut ctx, isa).map_err(Error::Compile)?;
    let bytes = code.code_buffer().to_vec();
    let mut relocs = Vec::new();
    for r in code.buffer.relocs() {
        let target = match &r.target {
            FinalizedRelocTarget::ExternalName(ExternalName::User(name)) => {
                let user = &names[*name];
                if own.as_ref() == Some(user) {
                    RelocTarget::Blob { index: 0, offset: 0 }
                } else {
                    RelocTarget::Addr(resolve(user.index))
                }
            }
            FinalizedRelocTarget::Func(off) => RelocTarget::Blob {
                index: 0,
                offset: *off as usize,
            },
            other => return Err(Error::Unsupported(format!("{other:?}"))),
        };
        // Cranelift: value = S + A − P. fastpath's rel32: S + A' − (P + 4).
        let (kind, addend) = match r.kind {
            ClifReloc::Abs8 => (RelocKind::Abs64, r.addend),
            ClifReloc::X86CallPCRel4 | ClifReloc::X86CallPLTRel4 => (RelocKind::X86Branch32, r.addend + 4),
            ClifReloc::X86PCRel4 => (RelocKind::X86PcRel32, r.addend + 4),
            ClifReloc::Arm64Call => (RelocKind::Aarch64Branch26, r.addend),
            k => return Err(Error::Unsupported(format!("{k:?}"))),
        };
        relocs.push(Reloc {
            offset: r.offset as usize,
            kind,
            target,
            addend,
        });
    }
    cache
        .install_relocated(&[Blob {
            code: &bytes,
            relocs: &relocs,
        }])
        .map(|mut v| v.remove(0))
        .map_err(Error::Install)
}
