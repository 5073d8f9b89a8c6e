//! Natives for the collections: what `HashMap`'s tree bins need of a key's
//! class that Java finds by reflection.
//!
//! `HashMap.selfComparable(Object)` answers OpenJDK's `comparableClassFor`
//! question: is the key a `String`, or of a class whose own declaration
//! names `Comparable<ItsClass>` among its direct superinterfaces (read from
//! the class's `Signature` attribute, as `Class.getGenericInterfaces` reads
//! it)? A tree bin orders such keys by `compareTo`; others by hash, class
//! name and identity hash.

use fastpath::gc::BarrierSet;

use crate::classfile::Constant;
use crate::interp::{Args, NativeFn};
use crate::link::{Class, ClassKind};
use crate::runtime::{JResult, JThread};

/// The class signature's text (`Signature` attribute, JVMS 4.7.9), if any.
fn class_signature(c: &Class) -> Option<String> {
    let file = c.file.as_ref()?;
    let attr = file.attributes.iter().find(|a| a.name == "Signature")?;
    let index = u16::from_be_bytes(attr.data.get(..2)?.try_into().ok()?);
    match file.constant_pool.get(index).ok()? {
        Constant::Utf8(u) => Some(u.text.to_string()),
        _ => None,
    }
}

/// The superclass and superinterface signatures of a class signature
/// (JVMS 4.7.9.1 `ClassSignature`), each as written: type parameters are
/// skipped, and a type's end is its `;` outside any type arguments.
fn supertype_signatures(signature: &str) -> Option<Vec<&str>> {
    let bytes = signature.as_bytes();
    let mut i = 0;
    if bytes.first() == Some(&b'<') {
        let mut depth = 0usize;
        loop {
            match bytes.get(i)? {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    let mut out = Vec::new();
    while i < bytes.len() {
        if bytes[i] != b'L' {
            return None;
        }
        let start = i;
        let mut depth = 0usize;
        loop {
            match bytes.get(i)? {
                b'<' => depth += 1,
                b'>' => depth = depth.checked_sub(1)?,
                b';' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        i += 1;
        out.push(&signature[start..i]);
    }
    Some(out)
}

/// Whether `c` is OpenJDK's `comparableClassFor` answer for its instances.
pub fn self_comparable(c: &Class) -> bool {
    if c.name.as_ref() == "java/lang/String" {
        return true;
    }
    if !matches!(c.kind, ClassKind::Instance) {
        return false;
    }
    let Some(signature) = class_signature(c) else {
        return false;
    };
    let wanted = format!("Ljava/lang/Comparable<L{};>;", c.name);
    supertype_signatures(&signature).is_some_and(|s| s.iter().skip(1).any(|t| *t == wanted))
}

fn self_comparable_native<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let x = a.obj(0);
    Ok((x != 0 && self_comparable(t.class_of(x))) as u64)
}

/// The native implementation of `class.name descriptor`, if this file has it.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    Some(match (class, name, desc) {
        ("java/util/HashMap", "selfComparable", "(Ljava/lang/Object;)Z") => self_comparable_native::<B>,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::supertype_signatures;

    #[test]
    fn class_signatures_split_into_their_supertypes() {
        assert_eq!(
            supertype_signatures("Ljava/lang/Object;Ljava/lang/Comparable<LKey;>;").unwrap(),
            ["Ljava/lang/Object;", "Ljava/lang/Comparable<LKey;>;"]
        );
        assert_eq!(
            supertype_signatures(
                "<K:Ljava/lang/Object;V::Ljava/lang/Comparable<TV;>;>LBase<TK;>;Ljava/lang/Comparable<LBox<TK;>;>;"
            )
            .unwrap(),
            ["LBase<TK;>;", "Ljava/lang/Comparable<LBox<TK;>;>;"]
        );
        assert_eq!(
            supertype_signatures("LOuter<TT;>.Inner<TU;>;Ljava/io/Serializable;").unwrap(),
            ["LOuter<TT;>.Inner<TU;>;", "Ljava/io/Serializable;"]
        );
        assert!(supertype_signatures("<T:Ljava/lang/Object;LBase;").is_none());
        assert!(supertype_signatures("LBase<TT;").is_none());
        assert!(supertype_signatures("I").is_none());
        assert!(supertype_signatures("LA;>;").is_none());
    }
}
