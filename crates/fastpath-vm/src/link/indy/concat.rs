//! String concatenation call sites (`StringConcatFactory.makeConcat` and
//! `makeConcatWithConstants`): the linkage checks the JDK 25 factory makes,
//! in its order, with its exceptions, then the spun class.
//!
//! Where it sits: `indy.rs` links each `invokedynamic` call site once; for
//! these two bootstrap methods it calls [`link_pieces`] with the call
//! site's type and static arguments, which either refuses the site (the
//! error the instruction throws, as HotSpot's `BootstrapMethodError`
//! wrapping what the factory throws) or returns the pieces [`spin`] turns
//! into a class whose factory builds the string in one array of its
//! length (`java.lang.StringConcatHelper`).
//!
//! What HotSpot does before and inside the factory (JDK 25's
//! `StringConcatFactory.parseRecipe` and `makeConcatWithConstants`):
//! 1. The call site's type is resolved: every class it names is loaded
//!    (a missing one is a `NoClassDefFoundError`, not wrapped); then the
//!    static arguments (a missing class constant likewise).
//! 2. The bootstrap method is invoked with the static arguments:
//!    `makeConcat` takes none (`WrongMethodTypeException` "cannot convert
//!    …"), `makeConcatWithConstants` at least the recipe
//!    (`WrongMethodTypeException` "cannot build collector"), which must be
//!    a `String` (`ClassCastException`).
//! 3. The recipe is read: `\u{1}` takes the next argument, `\u{2}` the
//!    next constant (as `String.valueOf` prints it); running out of either,
//!    fewer argument tags than arguments, and constants left over are each
//!    a `StringConcatException` "Mismatched number of concat …".
//! 4. The return type must be assignable from `String`; at most 200
//!    argument slots.
//! 5. JDK 25's generator cannot make a one-argument concatenation with
//!    both a prefix and a suffix (or with a primitive argument and either)
//!    whose return type is not `String` ("Generator failed").
//!
//! Every refusal from step 2 on is a `BootstrapMethodError` "bootstrap
//! method initialization exception" caused by the factory's exception.

use super::{Arg, Error};
use crate::classfile::bytecode::op;
use crate::classfile::{access, FieldType, MethodDescriptor};
use crate::link::class::Class;
use crate::link::resolve::pretty_type;
use crate::link::synth::{Asm, ClassWriter};
use crate::runtime::natives::numbers::java_to_string;
use crate::runtime::Vm;

/// What a spun concatenation class's name has between its host's name
/// and its number.
pub const CLASS_INFIX: &str = "$$Concat$";

/// The most argument slots a concatenation takes (the factory's
/// `MAX_INDY_CONCAT_ARG_SLOTS`).
const MAX_SLOTS: usize = 200;

/// The types a `String` is assignable to.
const STRING_SUPERTYPES: &[&str] = &[
    "java/lang/String",
    "java/lang/Object",
    "java/lang/CharSequence",
    "java/lang/Comparable",
    "java/io/Serializable",
    "java/lang/constant/Constable",
    "java/lang/constant/ConstantDesc",
];

/// The recipe's tag for the next argument.
const TAG_ARG: u16 = 1;
/// The recipe's tag for the next constant.
const TAG_CONST: u16 = 2;

/// Which factory method the call site names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factory {
    /// `makeConcat(Lookup, String, MethodType)`: every argument in order.
    Plain,
    /// `makeConcatWithConstants(Lookup, String, MethodType, String, Object...)`.
    WithConstants,
}

/// A piece of the concatenation: the next argument or literal text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The next argument's text.
    Arg,
    /// Constant text (UTF-16).
    Text(Vec<u16>),
}

/// The `BootstrapMethodError` HotSpot throws when the bootstrap method
/// throws `cause`.
fn initialization_error(cause: Error) -> Error {
    Error::new(
        "java/lang/BootstrapMethodError",
        "bootstrap method initialization exception",
    )
    .caused_by(cause)
}

fn concat_exception(message: String) -> Error {
    initialization_error(Error::new("java/lang/invoke/StringConcatException", message))
}

/// A class as `Class.toString` prints it (`class java.lang.Integer`,
/// `interface java.util.List`, `int`).
fn class_to_string(c: &Class) -> String {
    if matches!(c.kind, crate::link::class::ClassKind::Primitive(_)) {
        c.java_name()
    } else if c.is_interface() {
        format!("interface {}", c.java_name())
    } else {
        format!("class {}", c.java_name())
    }
}

/// A type as `Class.getSimpleName` prints it for the classes this file
/// names (`int`, `Object`, `CharSequence`).
fn simple_name(t: &FieldType) -> String {
    match t {
        FieldType::Object(n) => n.rsplit('/').next().unwrap_or(n).to_string(),
        FieldType::Array(e) => format!("{}[]", simple_name(e)),
        other => pretty_type(other),
    }
}

/// The class named by a reference type, loaded (JVMS 5.4.3.1).
fn load_type(vm: &'static Vm, t: &FieldType) -> Result<Option<&'static Class>, Error> {
    match t {
        FieldType::Object(n) => vm.loader.load(n).map(Some),
        FieldType::Array(_) => vm.loader.load(&t.descriptor()).map(Some),
        _ => Ok(None),
    }
}

/// A static argument as `String.valueOf` prints it, or why it cannot be
/// used.
fn constant_text(vm: &'static Vm, a: &Arg) -> Result<Vec<u16>, Error> {
    let text = match a {
        Arg::Str(s) => return Ok(s.clone()),
        Arg::Int(v) => v.to_string(),
        Arg::Long(v) => v.to_string(),
        Arg::Float(v) => java_to_string(*v as f64, true),
        Arg::Double(v) => java_to_string(*v, false),
        Arg::Class(name) => class_to_string(vm.loader.load(name)?),
        _ => {
            return Err(Error::new(
                "java/lang/BootstrapMethodError",
                "fastpath-vm supports only string, number and class constants in a string concatenation",
            ))
        }
    };
    Ok(text.encode_utf16().collect())
}

/// The runtime class of a static argument, for the `ClassCastException`
/// of a recipe that is not a `String`.
fn constant_class(a: &Arg) -> Option<&'static str> {
    Some(match a {
        Arg::Str(_) => "java.lang.String",
        Arg::Int(_) => "java.lang.Integer",
        Arg::Long(_) => "java.lang.Long",
        Arg::Float(_) => "java.lang.Float",
        Arg::Double(_) => "java.lang.Double",
        Arg::Class(_) => "java.lang.Class",
        Arg::MethodType(_) => "java.lang.invoke.MethodType",
        _ => return None,
    })
}

/// Checks a concatenation call site of type `site` with static arguments
/// `args` as HotSpot and the JDK 25 factory do (the module comment's
/// steps); returns its pieces.
pub(super) fn link_pieces(
    vm: &'static Vm,
    factory: Factory,
    site: &MethodDescriptor,
    args: &[Arg],
) -> Result<Vec<Piece>, Error> {
    // 1. The call site's type, then the static arguments. (The return
    // types assignable from String are JDK classes the class library need
    // not have.)
    let ret_ok = matches!(&site.ret, Some(FieldType::Object(n)) if STRING_SUPERTYPES.contains(&n.as_str()));
    let ret = site.ret.as_ref().filter(|_| !ret_ok);
    for t in site.params.iter().chain(ret) {
        load_type(vm, t)?;
    }
    for a in args {
        if let Arg::Class(name) = a {
            vm.loader.load(name)?;
        }
    }
    // 2. The bootstrap method's invocation.
    let (recipe, constants): (Vec<u16>, &[Arg]) = match factory {
        Factory::Plain => {
            if !args.is_empty() {
                return Err(initialization_error(Error::new(
                    "java/lang/invoke/WrongMethodTypeException",
                    format!(
                        "cannot convert MethodHandle(Lookup,String,MethodType)CallSite to \
                         (Lookup,String,MethodType{})Object",
                        ",Object".repeat(args.len())
                    ),
                )));
            }
            (vec![TAG_ARG; site.params.len()], &[])
        }
        Factory::WithConstants => match args.split_first() {
            None => {
                return Err(initialization_error(
                    Error::new(
                        "java/lang/invoke/WrongMethodTypeException",
                        "cannot build collector",
                    )
                    .caused_by(Error::new(
                        "java/lang/IllegalArgumentException",
                        "array length is not legal: -1",
                    )),
                ))
            }
            Some((Arg::Str(recipe), constants)) => (recipe.clone(), constants),
            Some((other, _)) => {
                let Some(class) = constant_class(other) else {
                    return Err(Error::new(
                        "java/lang/BootstrapMethodError",
                        "fastpath-vm supports only a string constant as the concatenation recipe",
                    ));
                };
                return Err(initialization_error(Error::new(
                    "java/lang/ClassCastException",
                    format!(
                        "class {class} cannot be cast to class java.lang.String ({class} and \
                         java.lang.String are in module java.base of loader 'bootstrap')"
                    ),
                )));
            }
        },
    };
    // 3. The recipe.
    let pieces = parse_recipe(vm, site.params.len(), &recipe, constants)?;
    // 4. The return type and the slots.
    if !ret_ok {
        let shown = match &site.ret {
            None => "void".to_string(),
            Some(t) => match load_type(vm, t)? {
                Some(c) => class_to_string(c),
                None => pretty_type(t),
            },
        };
        return Err(concat_exception(format!(
            "The return type should be compatible with String, but it is {shown}"
        )));
    }
    let slots: usize = site.params.iter().map(FieldType::slots).sum();
    if slots > MAX_SLOTS {
        return Err(concat_exception(format!(
            "Too many concat argument slots: {slots}, can only accept {MAX_SLOTS}"
        )));
    }
    // 5. JDK 25's generator.
    if let (Some(FieldType::Object(ret)), [param]) = (&site.ret, site.params.as_slice()) {
        if ret != "java/lang/String" && !simple_one_argument(param, &pieces) {
            return Err(generator_failed(param, site.ret.as_ref().unwrap()));
        }
    }
    Ok(pieces)
}

/// JDK 25's `parseRecipe`: the recipe's pieces (constants folded into the
/// text around them), or its mismatch exception.
fn parse_recipe(
    vm: &'static Vm,
    params: usize,
    recipe: &[u16],
    constants: &[Arg],
) -> Result<Vec<Piece>, Error> {
    let arguments_mismatch = |wanted: usize| {
        concat_exception(format!(
            "Mismatched number of concat arguments: recipe wants {wanted} arguments, but signature \
             provides {params}"
        ))
    };
    let constants_mismatch = |wanted: usize| {
        concat_exception(format!(
            "Mismatched number of concat constants: recipe wants {wanted} constants, but only {} are \
             passed",
            constants.len()
        ))
    };
    let mut pieces = Vec::new();
    let mut text: Vec<u16> = Vec::new();
    let (mut args_used, mut constants_used) = (0usize, 0usize);
    for &unit in recipe {
        match unit {
            TAG_CONST => {
                let Some(c) = constants.get(constants_used) else {
                    return Err(constants_mismatch(constants_used));
                };
                text.extend(constant_text(vm, c)?);
                constants_used += 1;
            }
            TAG_ARG => {
                if args_used >= params {
                    return Err(arguments_mismatch(args_used));
                }
                pieces.push(Piece::Text(std::mem::take(&mut text)));
                pieces.push(Piece::Arg);
                args_used += 1;
            }
            _ => text.push(unit),
        }
    }
    if args_used != params {
        return Err(arguments_mismatch(args_used));
    }
    if constants_used < constants.len() {
        return Err(constants_mismatch(constants_used));
    }
    pieces.push(Piece::Text(text));
    Ok(pieces)
}

/// Whether JDK 25's `makeConcatWithConstants` links a one-argument
/// concatenation of `param` without its generator
/// (`StringConcatFactory.makeSimpleConcat`): no text on either side, or
/// text on one side of a reference argument.
fn simple_one_argument(param: &FieldType, pieces: &[Piece]) -> bool {
    let text = |p: Option<&Piece>| match p {
        Some(Piece::Text(t)) => t.is_empty(),
        _ => true,
    };
    let (prefix_empty, suffix_empty) = (text(pieces.first()), text(pieces.last()));
    let reference = matches!(param, FieldType::Object(_) | FieldType::Array(_));
    (prefix_empty && suffix_empty) || (reference && (prefix_empty || suffix_empty))
}

/// What JDK 25's generator throws for a one-argument concatenation it
/// cannot make: it looks up a `concat` method of its one-argument helper
/// class with the call site's return type, which has none. (HotSpot's
/// innermost message is "method resolution failed" instead when no class
/// it has loaded uses the looked-up descriptor, a state of the whole JVM.)
fn generator_failed(param: &FieldType, ret: &FieldType) -> Error {
    // The helper's parameter: int for the subword integers, Object for
    // every reference.
    let param = match param {
        FieldType::Byte | FieldType::Short => FieldType::Int,
        FieldType::Object(_) | FieldType::Array(_) => FieldType::Object("java/lang/Object".into()),
        other => other.clone(),
    };
    let helper = "java.lang.StringConcatHelper$Concat1";
    initialization_error(
        Error::new("java/lang/invoke/StringConcatException", "Generator failed").caused_by(
            Error::new(
                "java/lang/NoSuchMethodException",
                format!(
                    "no such method: {helper}.concat({}){}/invokeVirtual",
                    simple_name(&param),
                    simple_name(ret)
                ),
            )
            .caused_by(Error::new(
                "java/lang/NoSuchMethodError",
                format!("'{} {helper}.concat({})'", pretty_type(ret), pretty_type(&param)),
            )),
        ),
    )
}

/// Appends a value of `t` on the stack to the `StringBuilder` below it
/// (`String.valueOf`'s text).
pub(super) fn sb_append(w: &mut ClassWriter, a: &mut Asm, t: &FieldType) {
    let d = match t {
        FieldType::Boolean => "(Z)",
        FieldType::Char => "(C)",
        FieldType::Byte | FieldType::Short | FieldType::Int => "(I)",
        FieldType::Long => "(J)",
        FieldType::Float => "(F)",
        FieldType::Double => "(D)",
        FieldType::Object(n) if n == "java/lang/String" => "(Ljava/lang/String;)",
        _ => "(Ljava/lang/Object;)",
    };
    let m = w.method_ref(
        "java/lang/StringBuilder",
        "append",
        &format!("{d}Ljava/lang/StringBuilder;"),
        false,
    );
    a.emit_cp(op::INVOKEVIRTUAL, m, -(t.slots() as i32));
}

/// How the spun method handles an argument of a type: which
/// `StringConcatHelper` overloads take it (their descriptor letter) once
/// it is in its local, and whether it is first converted to a `String`.
fn helper_type(t: &FieldType) -> (&'static str, Option<&'static str>) {
    match t {
        FieldType::Boolean => ("Z", None),
        FieldType::Char => ("C", None),
        FieldType::Byte | FieldType::Short | FieldType::Int => ("I", None),
        FieldType::Long => ("J", None),
        FieldType::Float => ("Ljava/lang/String;", Some("(F)Ljava/lang/String;")),
        FieldType::Double => ("Ljava/lang/String;", Some("(D)Ljava/lang/String;")),
        _ => (
            "Ljava/lang/String;",
            Some("(Ljava/lang/Object;)Ljava/lang/String;"),
        ),
    }
}

/// The class for a checked call site: a static `get` of the site's type
/// that builds the string as JDK 25's generated code does, with
/// `StringConcatHelper` (`classlib/java/lang/StringConcatHelper.java`):
/// every reference, float and double argument converted by
/// `String.valueOf` first, in order (the factory's stringifiers), the
/// pieces' lengths summed, one `char[]` of that length filled from its
/// end backwards and made the new string's. Straight-line code: locals
/// after the arguments hold the converted arguments, then the length,
/// which becomes the fill position, then the array.
pub(super) fn spin(
    host: &Class,
    n: usize,
    site_desc: &str,
    site: &MethodDescriptor,
    pieces: &[Piece],
) -> Result<crate::classfile::ClassFile, Error> {
    use crate::link::resolve::CONCAT_HELPER;
    let name = format!("{}{CLASS_INFIX}{n}", host.name);
    let mut w = ClassWriter::new(&name, "java/lang/Object", Vec::new());
    let mut a = Asm::default();
    let string = FieldType::Object("java/lang/String".into());
    let int = FieldType::Int;
    let chars = FieldType::Array(Box::new(FieldType::Char));
    // Each argument's slot, the type the helper takes it as, and where
    // its value is once converted.
    let mut next = site.params.iter().map(FieldType::slots).sum::<usize>() as u16;
    let mut args: Vec<(&'static str, FieldType, u16)> = Vec::with_capacity(site.params.len());
    let mut slot = 0u16;
    for t in &site.params {
        let (letter, convert) = helper_type(t);
        match convert {
            Some(d) => {
                a.load(t, slot);
                let m = w.method_ref("java/lang/String", "valueOf", d, false);
                a.emit_cp(op::INVOKESTATIC, m, 1 - t.slots() as i32);
                a.store(&string, next);
                args.push((letter, string.clone(), next));
                next += 1;
            }
            None => args.push((letter, t.clone(), slot)),
        }
        slot += t.slots() as u16;
    }
    let (len, buf) = (next, next + 1);
    // The length: the text's, then each argument's.
    let text: usize = pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.len(),
            Piece::Arg => 0,
        })
        .sum();
    let text = i32::try_from(text).map_err(|_| {
        Error::new(
            "java/lang/BootstrapMethodError",
            "fastpath-vm: a concatenation's constant text is too long",
        )
    })?;
    let c = w.int(text);
    a.emit_cp(op::LDC_W, c, 1);
    a.store(&int, len);
    for (letter, t, at) in &args {
        a.load(&int, len);
        a.load(t, *at);
        let m = w.method_ref(CONCAT_HELPER, "mix", &format!("(I{letter})I"), false);
        a.emit_cp(op::INVOKESTATIC, m, -(t.slots() as i32));
        a.store(&int, len);
    }
    a.load(&int, len);
    let m = w.method_ref(CONCAT_HELPER, "newArray", "(I)[C", false);
    a.emit_cp(op::INVOKESTATIC, m, 0);
    a.store(&chars, buf);
    // The pieces from the last to the first, each before the one after it;
    // a one-char text as a char (one store, where a string is a copy).
    let mut arg = args.len();
    for piece in pieces.iter().rev() {
        if matches!(piece, Piece::Text(t) if t.is_empty()) {
            continue;
        }
        a.load(&int, len);
        a.load(&chars, buf);
        // The piece pushed: its descriptor letter and its slots.
        let (letter, slots) = match piece {
            Piece::Text(t) if t.len() == 1 => {
                let c = w.int(i32::from(t[0]));
                a.emit_cp(op::LDC_W, c, 1);
                ("C", 1)
            }
            Piece::Text(t) => {
                let s = w.string_utf16(t);
                a.emit_cp(op::LDC_W, s, 1);
                ("Ljava/lang/String;", 1)
            }
            Piece::Arg => {
                arg -= 1;
                let (letter, t, at) = &args[arg];
                a.load(t, *at);
                (*letter, t.slots() as i32)
            }
        };
        let m = w.method_ref(CONCAT_HELPER, "prepend", &format!("(I[C{letter})I"), false);
        a.emit_cp(op::INVOKESTATIC, m, -1 - slots);
        a.store(&int, len);
    }
    a.load(&chars, buf);
    let m = w.method_ref(CONCAT_HELPER, "newString", "([C)Ljava/lang/String;", false);
    a.emit_cp(op::INVOKESTATIC, m, 0);
    a.ret(Some(&string));
    w.method(access::PUBLIC | access::STATIC, "get", site_desc, a, buf + 1)?;
    w.finish()
}
