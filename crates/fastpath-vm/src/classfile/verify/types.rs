//! Verification types (JVMS 4.10.1.2) and the assignability relation
//! between them.
//!
//! Where it sits: the values in [`super::frame::Frame`]'s locals and stack.
//! The lattice, as JVMS draws it and HotSpot's `VerificationType`
//! implements it:
//!
//! ```text
//!                        top
//!        ┌────────┬───────┴────┬──────────────┐
//!     oneWord   twoWord     (second halves: long2, double2)
//!   ┌───┬──┴──────┐   ┌──┴──┐
//!  int float reference long double
//!             ┌───┴───────────────┐
//!       uninitialized         Object ─ classes ─ arrays ─ … ─ null
//!      ┌──────┴──────┐
//! uninitializedThis uninitialized(Offset)
//! ```
//!
//! Assignability (HotSpot's `is_assignable_from`, JVMS `isAssignable`):
//! equal types; anything to top; int to boolean/byte/char/short (which
//! appear only as a method's return type: values on the stack are int);
//! null to any reference; any reference to `java/lang/Object`; a
//! reference to an interface (interfaces are treated as `Object`, except
//! that an array goes only to `Cloneable` and `Serializable`); a class to
//! a superclass; an array to an array whose component it is assignable to
//! (primitive components only to themselves). Uninitialized types are
//! assignable only to themselves and top. Deciding the class cases may
//! load classes through [`ClassHierarchy`].

use std::rc::Rc;

use super::error::VerifyError;
use super::hierarchy::ClassHierarchy;
use crate::classfile::descriptor::FieldType;

/// `java/lang/Object`.
pub const OBJECT: &str = "java/lang/Object";

/// A verification type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `top`: unusable (HotSpot's bogus type).
    Top,
    /// `int` (also boolean, byte, char and short values).
    Integer,
    /// `float`.
    Float,
    /// `long`, first slot.
    Long,
    /// `double`, first slot.
    Double,
    /// The second slot of a `long`.
    Long2,
    /// The second slot of a `double`.
    Double2,
    /// The type of `null`.
    Null,
    /// `this` in a constructor before `super()`/`this()` returned.
    UninitializedThis,
    /// The object a `new` at this offset created, before its `<init>` ran.
    Uninitialized(u16),
    /// A class or interface (internal name) or an array type (its
    /// descriptor), spelled as `CONSTANT_Class` spells it.
    Reference(Rc<str>),
    /// `boolean`, only as a method's return type.
    Boolean,
    /// `byte`, only as a method's return type.
    Byte,
    /// `char`, only as a method's return type.
    Char,
    /// `short`, only as a method's return type.
    Short,
}

impl Type {
    /// A reference type named `name` (internal name or array descriptor).
    pub fn reference(name: &str) -> Type {
        Type::Reference(Rc::from(name))
    }

    /// Whether the value takes one slot and can be used as one value
    /// (HotSpot's `is_category1`: not top, not long/double or their halves).
    pub fn is_category1(&self) -> bool {
        !matches!(
            self,
            Type::Top | Type::Long | Type::Double | Type::Long2 | Type::Double2
        )
    }

    /// The first slot of a long or double.
    pub fn is_category2(&self) -> bool {
        matches!(self, Type::Long | Type::Double)
    }

    /// The second slot of a long or double.
    pub fn is_category2_2nd(&self) -> bool {
        matches!(self, Type::Long2 | Type::Double2)
    }

    /// The second slot that goes with this first slot.
    pub fn second_half(&self) -> Option<Type> {
        match self {
            Type::Long => Some(Type::Long2),
            Type::Double => Some(Type::Double2),
            _ => None,
        }
    }

    /// A reference to an object, an array or null (not an uninitialized
    /// object).
    pub fn is_reference(&self) -> bool {
        matches!(self, Type::Null | Type::Reference(_))
    }

    /// `uninitializedThis` or `uninitialized(Offset)`.
    pub fn is_uninitialized(&self) -> bool {
        matches!(self, Type::UninitializedThis | Type::Uninitialized(_))
    }

    /// The name of a reference type.
    pub fn name(&self) -> Option<&str> {
        match self {
            Type::Reference(n) => Some(n),
            _ => None,
        }
    }

    /// An array type.
    pub fn is_array(&self) -> bool {
        self.name().is_some_and(|n| n.starts_with('['))
    }

    /// A class or interface type.
    pub fn is_object(&self) -> bool {
        self.name().is_some_and(|n| !n.starts_with('['))
    }

    /// Null or an array whose element descriptor is `element` (`I` for
    /// `[I`): what `iaload` and friends accept.
    pub fn is_array_of(&self, element: u8) -> bool {
        match self {
            Type::Null => true,
            Type::Reference(n) => n.len() >= 2 && n.as_bytes()[0] == b'[' && n.as_bytes()[1] == element,
            _ => false,
        }
    }

    /// Null or an array of references (`aaload`, `aastore`).
    pub fn is_reference_array(&self) -> bool {
        self.is_array_of(b'L') || self.is_array_of(b'[')
    }

    /// An array type's number of dimensions (0 for other types).
    pub fn dimensions(&self) -> usize {
        self.name()
            .map_or(0, |n| n.bytes().take_while(|&b| b == b'[').count())
    }

    /// An array type's component type (`None` for other types).
    pub fn component(&self) -> Option<Type> {
        let n = self.name()?.strip_prefix('[')?;
        Some(match n.as_bytes().first()? {
            b'Z' => Type::Boolean,
            b'B' => Type::Byte,
            b'C' => Type::Char,
            b'S' => Type::Short,
            b'I' => Type::Integer,
            b'J' => Type::Long,
            b'F' => Type::Float,
            b'D' => Type::Double,
            b'[' => Type::reference(n),
            b'L' => Type::reference(n.strip_prefix('L')?.strip_suffix(';')?),
            _ => return None,
        })
    }

    /// The array type whose components are this class or array type
    /// (`anewarray`).
    pub fn array_of(&self) -> Option<Type> {
        let n = self.name()?;
        Some(if n.starts_with('[') {
            Type::reference(&format!("[{n}"))
        } else {
            Type::reference(&format!("[L{n};"))
        })
    }
}

impl std::fmt::Display for Type {
    /// HotSpot's spelling (`VerificationType::print_on`): `integer`,
    /// `'java/lang/String'`, `uninitialized 7`, `top`...
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Top => f.write_str("top"),
            Type::Integer => f.write_str("integer"),
            Type::Float => f.write_str("float"),
            Type::Long => f.write_str("long"),
            Type::Double => f.write_str("double"),
            Type::Long2 => f.write_str("long_2nd"),
            Type::Double2 => f.write_str("double_2nd"),
            Type::Null => f.write_str("null"),
            Type::UninitializedThis => f.write_str("uninitializedThis"),
            Type::Uninitialized(bci) => write!(f, "uninitialized {bci}"),
            Type::Reference(name) => write!(f, "'{name}'"),
            Type::Boolean => f.write_str("boolean"),
            Type::Byte => f.write_str("byte"),
            Type::Char => f.write_str("char"),
            Type::Short => f.write_str("short"),
        }
    }
}

/// Appends the slots of a value of field type `t` as the operand stack
/// and locals hold it: boolean, byte, char, short and int are `int`; long
/// and double are two slots (HotSpot's `change_sig_to_verificationType`).
pub fn push_field_type(t: &FieldType, out: &mut Vec<Type>) {
    match t {
        FieldType::Boolean | FieldType::Byte | FieldType::Char | FieldType::Short | FieldType::Int => {
            out.push(Type::Integer)
        }
        FieldType::Float => out.push(Type::Float),
        FieldType::Long => out.extend([Type::Long, Type::Long2]),
        FieldType::Double => out.extend([Type::Double, Type::Double2]),
        FieldType::Object(name) => out.push(Type::reference(name)),
        FieldType::Array(_) => out.push(Type::reference(&t.descriptor())),
    }
}

/// A method's return type as `ireturn` and friends check it: boolean,
/// byte, char and short keep their identity (an int is assignable to
/// each); `None` for void.
pub fn return_type(t: Option<&FieldType>) -> Option<Type> {
    Some(match t? {
        FieldType::Boolean => Type::Boolean,
        FieldType::Byte => Type::Byte,
        FieldType::Char => Type::Char,
        FieldType::Short => Type::Short,
        FieldType::Int => Type::Integer,
        FieldType::Float => Type::Float,
        FieldType::Long => Type::Long,
        FieldType::Double => Type::Double,
        FieldType::Object(name) => Type::reference(name),
        t @ FieldType::Array(_) => Type::reference(&t.descriptor()),
    })
}

/// Assignability, with the class hierarchy at hand.
pub struct Assignability<'h> {
    /// Where class questions go.
    pub hierarchy: &'h mut dyn ClassHierarchy,
}

impl Assignability<'_> {
    /// Whether a value of type `from` may be used where `to` is expected.
    #[inline]
    pub fn is_assignable(&mut self, to: &Type, from: &Type) -> Result<bool, VerifyError> {
        if to == from || *to == Type::Top {
            return Ok(true);
        }
        self.is_assignable_slow(to, from, false)
    }

    /// As [`Self::is_assignable`], for the protected-access check: a
    /// reference to `java/lang/Object` is not taken by an interface target
    /// (HotSpot's `from_field_is_protected`).
    pub fn is_assignable_protected(&mut self, to: &Type, from: &Type) -> Result<bool, VerifyError> {
        if to == from || *to == Type::Top {
            return Ok(true);
        }
        self.is_assignable_slow(to, from, true)
    }

    #[cold]
    fn is_assignable_slow(&mut self, to: &Type, from: &Type, protected: bool) -> Result<bool, VerifyError> {
        match to {
            Type::Boolean | Type::Byte | Type::Char | Type::Short => Ok(*from == Type::Integer),
            Type::Reference(_) | Type::Null if from.is_reference() => {
                self.is_reference_assignable(to, from, protected)
            }
            _ => Ok(false),
        }
    }

    fn is_reference_assignable(
        &mut self,
        to: &Type,
        from: &Type,
        protected: bool,
    ) -> Result<bool, VerifyError> {
        let (to_name, from_name) = match (to, from) {
            (_, Type::Null) => return Ok(true),
            (Type::Null, _) => return Ok(false),
            (Type::Reference(t), Type::Reference(f)) => (t, f),
            _ => return Ok(false),
        };
        if to_name == from_name {
            return Ok(true);
        }
        if to.is_object() {
            if &**to_name == OBJECT {
                return Ok(true);
            }
            if self.hierarchy.is_interface(to_name)? && (!protected || &**from_name != OBJECT) {
                // Interfaces are treated as Object, but an array is only a
                // Cloneable and a Serializable.
                return Ok(!from.is_array()
                    || &**to_name == "java/lang/Cloneable"
                    || &**to_name == "java/io/Serializable");
            }
            if from.is_object() {
                return Ok(self.hierarchy.is_subclass_of(from_name, to_name)?);
            }
            return Ok(false);
        }
        if from.is_array() {
            if let (Some(to_c), Some(from_c)) = (to.component(), from.component()) {
                if to_c == from_c {
                    return Ok(true);
                }
                return match to_c {
                    Type::Boolean | Type::Byte | Type::Char | Type::Short => Ok(false),
                    _ => self.is_assignable_slow(&to_c, &from_c, protected),
                };
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::verify::error::LinkageError;
    use crate::classfile::verify::hierarchy::Member;

    /// A -> Object, B -> A, I an interface, C missing.
    struct Tiny;
    impl ClassHierarchy for Tiny {
        fn is_interface(&mut self, class: &str) -> Result<bool, LinkageError> {
            match class {
                "I" | "java/lang/Cloneable" | "java/io/Serializable" => Ok(true),
                "A" | "B" | OBJECT => Ok(false),
                other => Err(LinkageError::no_class_def_found(other)),
            }
        }
        fn is_subclass_of(&mut self, class: &str, ancestor: &str) -> Result<bool, LinkageError> {
            match class {
                "B" => Ok(matches!(ancestor, "B" | "A" | OBJECT)),
                "A" => Ok(matches!(ancestor, "A" | OBJECT)),
                other => Err(LinkageError::no_class_def_found(other)),
            }
        }
        fn superclass(&mut self, _: &str) -> Result<Option<String>, LinkageError> {
            unreachable!()
        }
        fn find_field(&mut self, _: &str, _: &str, _: &str) -> Result<Option<Member>, LinkageError> {
            unreachable!()
        }
        fn find_method(&mut self, _: &str, _: &str, _: &str) -> Result<Option<Member>, LinkageError> {
            unreachable!()
        }
    }

    fn ok(to: &str, from: &str) -> bool {
        Assignability { hierarchy: &mut Tiny }
            .is_assignable(&Type::reference(to), &Type::reference(from))
            .unwrap()
    }

    #[test]
    fn the_lattice() {
        let mut a = Assignability { hierarchy: &mut Tiny };
        assert!(a.is_assignable(&Type::Top, &Type::Long2).unwrap());
        assert!(a.is_assignable(&Type::Byte, &Type::Integer).unwrap());
        assert!(!a.is_assignable(&Type::Integer, &Type::Float).unwrap());
        assert!(a.is_assignable(&Type::reference("A"), &Type::Null).unwrap());
        assert!(!a.is_assignable(&Type::Null, &Type::reference("A")).unwrap());
        assert!(!a
            .is_assignable(&Type::reference(OBJECT), &Type::Uninitialized(3))
            .unwrap());
        assert!(!a
            .is_assignable(&Type::Uninitialized(3), &Type::Uninitialized(4))
            .unwrap());
        assert!(ok("A", "B"));
        assert!(!ok("B", "A"));
        assert!(ok("I", "B"), "interfaces take any object");
        assert!(!ok("I", "[I"), "but not arrays");
        assert!(ok("java/lang/Cloneable", "[I"));
        assert!(ok(OBJECT, "[[I"));
        assert!(ok("[Ljava/lang/Object;", "[[I"));
        assert!(ok("[LA;", "[LB;"));
        assert!(!ok("[LB;", "[LA;"));
        assert!(!ok("[Z", "[B"), "primitive components only to themselves");
        assert!(!ok("[I", "[J"));
        assert!(!ok("A", "[I"));
        // A class that cannot be loaded is the hierarchy's error.
        let e = a
            .is_assignable(&Type::reference("C"), &Type::reference("A"))
            .unwrap_err();
        assert_eq!(e.java_class(), "java/lang/NoClassDefFoundError");
    }

    #[test]
    fn components_and_dimensions() {
        assert_eq!(Type::reference("[[I").component(), Some(Type::reference("[I")));
        assert_eq!(
            Type::reference("[Ljava/lang/String;").component(),
            Some(Type::reference("java/lang/String"))
        );
        assert_eq!(Type::reference("[C").component(), Some(Type::Char));
        assert_eq!(Type::reference("[[J").dimensions(), 2);
        assert_eq!(Type::reference("A").array_of(), Some(Type::reference("[LA;")));
        assert_eq!(Type::reference("[I").array_of(), Some(Type::reference("[[I")));
        assert!(Type::Null.is_array_of(b'I') && Type::reference("[I").is_array_of(b'I'));
        assert!(!Type::reference("[J").is_array_of(b'I'));
    }
}
