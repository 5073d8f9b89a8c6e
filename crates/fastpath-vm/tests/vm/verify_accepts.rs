//! The verifier accepts what javac writes: every class of the Java corpus
//! (compiled with each program's release) and every class of a JDK's
//! `java.base` (the scale check: thousands of classes, every javac idiom
//! and a few hand-written ones).
//!
//! Both need a JDK (javac for the corpus, `lib/modules` for `java.base`):
//! without one they fail under CI and say so elsewhere.

use crate::classfile_support;

use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use classfile_support::class_path::ClassPath;
use classfile_support::corpus;
use classfile_support::jimage::{find_modules, Jimage};
use fastpath_vm::classfile::verify::verify_class;
use fastpath_vm::classfile::ClassFile;

fn java_base() -> Option<Rc<Jimage>> {
    let Some(path) = find_modules() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "a JDK's lib/modules is needed under CI"
        );
        eprintln!("no JDK lib/modules found (set FASTPATH_VM_JDK): nothing checked");
        return None;
    };
    Some(Rc::new(Jimage::open(&path, &["java.base"]).unwrap()))
}

#[test]
fn accepts_every_class_of_the_corpus() {
    let programs = match corpus::compiled() {
        Ok(p) => p,
        Err(why) => return corpus::unavailable(&why),
    };
    let Some(jdk) = java_base() else { return };
    let started = Instant::now();
    let (mut classes, mut methods) = (0, 0);
    let mut failures = Vec::new();
    for p in programs {
        let program: HashMap<String, Rc<[u8]>> = p
            .classes
            .iter()
            .map(|(n, b)| (n.clone(), Rc::from(b.as_slice())))
            .collect();
        let mut path = ClassPath::new(program, Some(jdk.clone()));
        for (name, bytes) in &p.classes {
            let class = ClassFile::parse(bytes).unwrap();
            classes += 1;
            methods += class.methods.iter().filter(|m| m.code.is_some()).count();
            if let Err(e) = verify_class(&class, &mut path) {
                failures.push(format!(
                    "{} (release {}): {name}: {}: {e}",
                    p.name,
                    p.release,
                    e.java_class()
                ));
            }
        }
    }
    eprintln!(
        "verified {classes} classes ({methods} methods with code) of {} programs in {:.2?}",
        programs.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(classes >= programs.len());
}

/// Every class of `java.base`; `FASTPATH_VM_JAVA_BASE_STRIDE=n` checks
/// every n-th class instead (1, all of them, is the default).
#[test]
fn accepts_every_class_of_java_base() {
    let Some(jdk) = java_base() else { return };
    let stride: usize = std::env::var("FASTPATH_VM_JAVA_BASE_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    let names = jdk.class_names();
    assert!(names.len() > 5000, "java.base has {} classes?", names.len());
    let mut path = ClassPath::new(HashMap::new(), Some(jdk.clone()));
    let started = Instant::now();
    let (mut classes, mut methods, mut code_bytes) = (0, 0, 0);
    let mut failures = Vec::new();
    for name in names.iter().step_by(stride) {
        let class = ClassFile::parse(jdk.class(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        classes += 1;
        for m in &class.methods {
            if let Some(c) = &m.code {
                methods += 1;
                code_bytes += c.code.len();
            }
        }
        if let Err(e) = verify_class(&class, &mut path) {
            failures.push(format!("{name}: {}: {e}", e.java_class()));
        }
    }
    eprintln!(
        "verified {classes} classes of java.base ({methods} methods, {code_bytes} bytes of code) in {:.2?}",
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every class of the VM's own class library (`classlib/`, embedded in
/// the crate): the linker trusts it as HotSpot trusts the boot loader's
/// classes, and this checks the trust is deserved. The archive's format is
/// `link/archive.rs`'s: "FPVMCL01", a count, then (name offset, name
/// length, data offset, data length) per class, little-endian u32s.
#[test]
fn accepts_every_class_of_the_vm_class_library() {
    let a = fastpath_vm::CLASSLIB;
    assert_eq!(&a[..8], b"FPVMCL01");
    let word = |at: usize| u32::from_le_bytes(a[at..at + 4].try_into().unwrap()) as usize;
    let count = word(8);
    let mut classes: HashMap<String, Rc<[u8]>> = HashMap::new();
    for i in 0..count {
        let e = 12 + 16 * i;
        let name = std::str::from_utf8(&a[word(e)..word(e) + word(e + 4)])
            .unwrap()
            .to_string();
        classes.insert(name, Rc::from(&a[word(e + 8)..word(e + 8) + word(e + 12)]));
    }
    let mut path = ClassPath::new(classes.clone(), None);
    let mut failures = Vec::new();
    let mut names: Vec<&String> = classes.keys().collect();
    names.sort();
    for name in names {
        let class = ClassFile::parse(&classes[name]).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = verify_class(&class, &mut path) {
            failures.push(format!("{name}: {}: {e}", e.java_class()));
        }
    }
    eprintln!("verified {count} classes of the class library");
    assert!(count > 100);
    assert!(
        failures.is_empty(),
        "{} rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
