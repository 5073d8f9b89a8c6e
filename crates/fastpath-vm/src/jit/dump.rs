//! `FASTPATH_VM_JIT_DUMP=Class.method`: the compiled code of the named
//! methods on stderr, to see where compiled code spends its time.
//!
//! Where it sits: `mod.rs` hands every translated function here just
//! before installing it. When the variable names the method (`Class` is
//! the class's binary name with slashes or dots, `method` its name; a
//! comma separates several; `*` names every method), the function is
//! compiled a second time, beside the installed copy, with Cranelift's
//! disassembly on, and printed: the IR after Cranelift's optimisations
//! (what the egraph pass, alias analysis and GVN left) and the machine
//! instructions (VCode text, with the blocks' labels), then the code's
//! bytes in hex, for a disassembler with offsets. The installed code
//! is the same compilation of the same function, so offsets and sizes
//! match the log's, and the address it is installed at is printed after
//! it: perf's samples in the code cache (`perf script`'s addresses) map
//! to the dump's offsets from there.

use std::sync::OnceLock;

use cranelift_codegen::ir::Function;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;

use crate::link::Method;

/// The environment variable naming the methods to dump.
pub const DUMP_VAR: &str = "FASTPATH_VM_JIT_DUMP";

/// The patterns `FASTPATH_VM_JIT_DUMP` names (read once), `Class.method`
/// each; empty when unset.
fn patterns() -> &'static [(String, String)] {
    static P: OnceLock<Vec<(String, String)>> = OnceLock::new();
    P.get_or_init(|| {
        let Ok(v) = std::env::var(DUMP_VAR) else {
            return Vec::new();
        };
        parse(&v)
    })
}

/// `Class.method,...` as (class, method) pairs; `*` alone matches every
/// method, `Class.*` every method of a class. The class part uses
/// slashes (a binary name's dots become slashes); an entry without a dot
/// names a method of any class.
pub fn parse(v: &str) -> Vec<(String, String)> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match s.rsplit_once('.') {
            Some((c, m)) => (c.replace('.', "/"), m.to_string()),
            None if s == "*" => ("*".into(), "*".into()),
            None => ("*".into(), s.to_string()),
        })
        .collect()
}

/// Whether (class, method) names `m`.
pub fn matches(patterns: &[(String, String)], class: &str, method: &str) -> bool {
    patterns
        .iter()
        .any(|(c, n)| (c == "*" || c == class) && (n == "*" || n == method))
}

/// Prints `func`, the translation of `m` (`what` says which entry), if
/// `FASTPATH_VM_JIT_DUMP` names `m`.
pub fn maybe_dump(m: &Method, what: &str, func: &Function, isa: &dyn TargetIsa) {
    let p = patterns();
    if p.is_empty() || !matches(p, &m.class.name, &m.name) {
        return;
    }
    let mut ctx = Context::for_function(func.clone());
    ctx.set_disasm(true);
    let text = match fastpath_cranelift::compile::compile(&mut ctx, isa) {
        Ok(code) => {
            let bytes = code.code_buffer();
            let len = bytes.len();
            let vcode = code.vcode.clone().unwrap_or_default();
            let mut hex = String::with_capacity(len * 2 + len / 32);
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 && i % 32 == 0 {
                    hex.push('\n');
                }
                hex.push_str(&format!("{b:02x}"));
            }
            format!(
                "; {len} bytes\n; ---- IR after optimisation\n{}\n; ---- machine code\n{vcode}\n\
                 ; ---- code bytes (before relocation; `xxd -r -p | objdump -D -b binary -m i386:x86-64`)\n{hex}\n\
                 ; ---- end",
                ctx.func.display()
            )
        }
        Err(e) => format!("; not compiled: {e}"),
    };
    crate::diag!("jit dump: {m:?} {what}\n{text}");
}

/// Names the code of `m` (`what`), `code` where it was installed, for
/// perf (`perfmap.rs`), and prints where it is if `FASTPATH_VM_JIT_DUMP`
/// names `m`: perf's samples in the code cache map to the dump's offsets
/// from there.
pub fn installed(m: &Method, what: &str, code: &[u8]) {
    super::perfmap::record(code, || format!("{m:?} {what}"));
    let (addr, len) = (code.as_ptr() as usize, code.len());
    let p = patterns();
    if p.is_empty() || !matches(p, &m.class.name, &m.name) {
        return;
    }
    crate::diag!("jit dump: {m:?} {what} installed at {addr:#x}..{:#x}", addr + len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_name_classes_and_methods() {
        let p = parse("Permute.swap, java.util.ArrayList.get,run");
        assert!(matches(&p, "Permute", "swap"));
        assert!(!matches(&p, "Permute", "permute"));
        assert!(matches(&p, "java/util/ArrayList", "get"));
        assert!(matches(&p, "Towers", "run"));
        let all = parse("*");
        assert!(matches(&all, "A", "b"));
        let class = parse("Towers.*");
        assert!(matches(&class, "Towers", "moveDisks"));
        assert!(!matches(&class, "Permute", "swap"));
        assert!(parse("").is_empty());
    }
}
