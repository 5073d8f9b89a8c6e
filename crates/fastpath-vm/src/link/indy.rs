//! `invokedynamic` (JVMS 6.5, 5.4.3.6) for the bootstrap methods javac
//! emits: `LambdaMetafactory` (lambdas, method references),
//! `StringConcatFactory` (string `+` since Java 9) and `ObjectMethods`
//! (records' `toString`/`equals`/`hashCode`). Each call site is linked
//! once, when its method is first decoded, to a static factory method of a
//! class spun for it (`synth.rs`), so the instruction becomes an
//! `invokestatic`; any other bootstrap method is a `BootstrapMethodError`
//! naming it, thrown where the instruction runs.
//!
//! The spun classes do what OpenJDK's do: a lambda class implements the
//! functional interface with one field per captured value, its method
//! loads them and its arguments, converts each (cast, unbox, box, widen)
//! from the interface's erased type through the instantiated type to the
//! implementation's, and calls the implementation (a non-capturing lambda
//! is one instance, as OpenJDK's constant call site); a concatenation class
//! converts its arguments with `String.valueOf`, as the factory's
//! stringifiers, and writes them and the constants into one array of the
//! result's length (`concat.rs`, `java.lang.StringConcatHelper`).

mod concat;

pub use concat::Piece;

use std::sync::atomic::{AtomicUsize, Ordering};

use super::class::{Class, Method};
use super::resolve::Resolved;
use super::synth::{Asm, ClassWriter};
use crate::classfile::bytecode::op;
use crate::classfile::{access, Constant, FieldType, MethodDescriptor};
use crate::runtime::{Error, Vm};
use concat::sb_append;

static SPUN: AtomicUsize = AtomicUsize::new(0);

/// Whether `c` is a class spun for a string concatenation call site.
pub fn is_concat_class(c: &Class) -> bool {
    c.hidden && c.name.contains(concat::CLASS_INFIX)
}

fn bme(msg: impl Into<String>) -> Error {
    Error::new("java/lang/BootstrapMethodError", msg)
}

/// A bootstrap argument as the VM understands it.
enum Arg {
    Str(Vec<u16>),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Class(String),
    MethodType(String),
    Handle {
        kind: u8,
        class: String,
        name: String,
        desc: String,
        interface: bool,
    },
    /// `ClassDesc.of("a.b.C")` as a dynamic constant (internal name).
    ClassDesc(String),
    /// `EnumDesc.of(ClassDesc, "NAME")` as a dynamic constant.
    EnumConst {
        class: String,
        name: String,
    },
    Other,
}

fn arg(host: &Class, index: u16) -> Result<Arg, Error> {
    let cp = host.cp();
    Ok(match cp.get(index).map_err(Error::from)? {
        Constant::String { utf8 } => Arg::Str(cp.utf8_entry(*utf8).map_err(Error::from)?.to_utf16()),
        Constant::Integer(v) => Arg::Int(*v),
        Constant::Long(v) => Arg::Long(*v),
        Constant::Float(v) => Arg::Float(*v),
        Constant::Double(v) => Arg::Double(*v),
        Constant::Class { name } => Arg::Class(cp.utf8(*name).map_err(Error::from)?.to_string()),
        Constant::MethodType { descriptor } => {
            Arg::MethodType(cp.utf8(*descriptor).map_err(Error::from)?.to_string())
        }
        Constant::MethodHandle { kind, reference } => {
            let (t, m) = cp.member_ref(*reference).map_err(Error::from)?;
            Arg::Handle {
                kind: *kind,
                class: m.class.to_string(),
                name: m.name.to_string(),
                desc: m.descriptor.to_string(),
                interface: t == crate::classfile::constant_pool::tag::INTERFACE_METHODREF,
            }
        }
        Constant::Dynamic(d) => dynamic_arg(host, d.bootstrap, 0)?,
        _ => Arg::Other,
    })
}

/// A dynamic constant javac emits for pattern labels: `ConstantBootstraps.invoke`
/// of `ClassDesc.of(name)` or `EnumDesc.of(classDesc, name)`.
fn dynamic_arg(host: &Class, bootstrap: u16, depth: u32) -> Result<Arg, Error> {
    if depth > 4 {
        return Ok(Arg::Other);
    }
    let file = host.file.as_ref().expect("an instance class");
    let Some(bsm) = file.bootstrap_methods.get(bootstrap as usize) else {
        return Ok(Arg::Other);
    };
    let Arg::Handle { class, name, .. } = arg(host, bsm.method_ref)? else {
        return Ok(Arg::Other);
    };
    if class != "java/lang/invoke/ConstantBootstraps" || name != "invoke" {
        return Ok(Arg::Other);
    }
    let cp = host.cp();
    let mut args = Vec::new();
    for &a in &bsm.arguments {
        args.push(match cp.get(a).map_err(Error::from)? {
            Constant::Dynamic(d) => dynamic_arg(host, d.bootstrap, depth + 1)?,
            _ => arg(host, a)?,
        });
    }
    Ok(match args.as_slice() {
        [Arg::Handle { class, name, .. }, Arg::Str(s)]
            if class == "java/lang/constant/ClassDesc" && name == "of" =>
        {
            Arg::ClassDesc(String::from_utf16_lossy(s).replace('.', "/"))
        }
        [Arg::Handle { class, name, .. }, Arg::ClassDesc(c), Arg::Str(n)]
            if class == "java/lang/Enum$EnumDesc" && name == "of" =>
        {
            Arg::EnumConst {
                class: c.clone(),
                name: String::from_utf16_lossy(n),
            }
        }
        _ => Arg::Other,
    })
}

/// Links the `InvokeDynamic` entry `index` of `host`: the factory method
/// the call site invokes.
pub fn link(vm: &'static Vm, host: &'static Class, index: u16) -> Result<&'static Method, Error> {
    let slot = host
        .resolved
        .get(index as usize)
        .ok_or_else(|| Error::verify("bad invokedynamic index"))?;
    match slot.get_or_init(|| link_uncached(vm, host, index).map_or_else(Resolved::Failed, Resolved::Method))
    {
        Resolved::Method(m) => Ok(m),
        Resolved::Failed(e) => Err(e.clone()),
        _ => Err(Error::verify("bad invokedynamic entry")),
    }
}

fn link_uncached(vm: &'static Vm, host: &'static Class, index: u16) -> Result<&'static Method, Error> {
    let cp = host.cp();
    let Constant::InvokeDynamic(d) = cp.get(index).map_err(Error::from)? else {
        return Err(Error::verify("invokedynamic needs an InvokeDynamic constant"));
    };
    let (name, desc) = cp.name_and_type(d.name_and_type).map_err(Error::from)?;
    let file = host.file.as_ref().expect("an instance class");
    let bsm = file
        .bootstrap_methods
        .get(d.bootstrap as usize)
        .ok_or_else(|| bme("bad bootstrap method index"))?;
    let Arg::Handle {
        kind,
        class: bclass,
        name: bname,
        desc: bdesc,
        interface,
    } = arg(host, bsm.method_ref)?
    else {
        return Err(bme("bootstrap method is not a method handle"));
    };
    check_bootstrap_handle(kind, &bclass, &bname, &bdesc, interface)?;
    let args: Vec<Arg> = bsm
        .arguments
        .iter()
        .map(|&a| arg(host, a))
        .collect::<Result<_, _>>()?;
    let md = MethodDescriptor::parse(desc).map_err(Error::from)?;
    let n = spun_number();
    let file = match (bclass.as_str(), bname.as_str()) {
        ("java/lang/invoke/LambdaMetafactory", "metafactory" | "altMetafactory") => {
            lambda_class(host, n, name, desc, &md, &args, bname == "altMetafactory")?
        }
        ("java/lang/invoke/StringConcatFactory", "makeConcatWithConstants") => {
            let pieces = concat::link_pieces(vm, concat::Factory::WithConstants, &md, &args)?;
            concat::spin(host, n, desc, &md, &pieces)?
        }
        ("java/lang/invoke/StringConcatFactory", "makeConcat") => {
            let pieces = concat::link_pieces(vm, concat::Factory::Plain, &md, &args)?;
            concat::spin(host, n, desc, &md, &pieces)?
        }
        ("java/lang/runtime/ObjectMethods", "bootstrap") => record_class(host, n, name, desc, &md, &args)?,
        ("java/lang/runtime/SwitchBootstraps", "typeSwitch") => type_switch_class(host, n, desc, &args)?,
        _ => {
            return Err(bme(format!(
                "bootstrap method {}.{} is not supported by fastpath-vm",
                bclass.replace('/', "."),
                bname
            )))
        }
    };
    define_spun(vm, host, file, desc)
}

/// The number of the next spun class (its name's suffix). Relaxed: only
/// the numbers' uniqueness matters, which the atomic increment gives.
fn spun_number() -> usize {
    SPUN.fetch_add(1, Ordering::Relaxed)
}

/// Defines the hidden class spun for `host` and returns its static factory
/// `get` of descriptor `desc`.
fn define_spun(
    vm: &'static Vm,
    host: &'static Class,
    file: crate::classfile::ClassFile,
    desc: &str,
) -> Result<&'static Method, Error> {
    let class_name = file.this_class.clone();
    let c = vm.loader.define(file, host.is_boot, true)?;
    c.declared_method("get", desc)
        .ok_or_else(|| bme(format!("spun class {class_name} lacks its factory")))
}

/// The static factory, of descriptor `desc` (its arguments, returning a
/// `String`), of a concatenation class spun for `host` from pieces the VM
/// chose itself: a `StringBuilder` chain the pre-decoder fused
/// (`interp/builder_fusion.rs`).
pub fn spin_concat(
    vm: &'static Vm,
    host: &'static Class,
    desc: &str,
    pieces: &[Piece],
) -> Result<&'static Method, Error> {
    let md = MethodDescriptor::parse(desc).map_err(Error::from)?;
    let file = concat::spin(host, spun_number(), desc, &md, pieces)?;
    define_spun(vm, host, file, desc)
}

/// The bootstrap methods the VM links, with their JDK descriptors.
const BOOTSTRAPS: &[(&str, &str, &str)] = &[
    (
        "java/lang/invoke/LambdaMetafactory",
        "metafactory",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;\
         Ljava/lang/invoke/MethodType;Ljava/lang/invoke/MethodHandle;Ljava/lang/invoke/MethodType;)\
         Ljava/lang/invoke/CallSite;",
    ),
    (
        "java/lang/invoke/LambdaMetafactory",
        "altMetafactory",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;\
         [Ljava/lang/Object;)Ljava/lang/invoke/CallSite;",
    ),
    (
        "java/lang/invoke/StringConcatFactory",
        "makeConcatWithConstants",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;\
         Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;",
    ),
    (
        "java/lang/invoke/StringConcatFactory",
        "makeConcat",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;)\
         Ljava/lang/invoke/CallSite;",
    ),
    (
        "java/lang/runtime/ObjectMethods",
        "bootstrap",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/TypeDescriptor;\
         Ljava/lang/Class;Ljava/lang/String;[Ljava/lang/invoke/MethodHandle;)Ljava/lang/Object;",
    ),
    (
        "java/lang/runtime/SwitchBootstraps",
        "typeSwitch",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;\
         [Ljava/lang/Object;)Ljava/lang/invoke/CallSite;",
    ),
];

/// Resolves the bootstrap method handle of a method the VM links as
/// HotSpot would (JVMS 5.4.3.5): the method must exist with the
/// descriptor named (`NoSuchMethodError`), in a class referenced as a
/// class, and, being static, be invoked by `REF_invokeStatic`
/// (`IncompatibleClassChangeError`). Other bootstrap methods are refused
/// later, by name.
fn check_bootstrap_handle(
    kind: u8,
    class: &str,
    name: &str,
    desc: &str,
    interface: bool,
) -> Result<(), Error> {
    let Some(&(_, _, real)) = BOOTSTRAPS.iter().find(|(c, n, _)| *c == class && *n == name) else {
        return Ok(());
    };
    let shown = |d: &str| {
        let c = class.replace('/', ".");
        match MethodDescriptor::parse(d) {
            Ok(md) => format!(
                "'{} {c}.{name}({})'",
                md.ret
                    .as_ref()
                    .map_or("void".to_string(), super::resolve::pretty_type),
                md.params
                    .iter()
                    .map(super::resolve::pretty_type)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(_) => format!("'{c}.{name}{d}'"),
        }
    };
    if interface {
        return Err(Error::incompatible(format!(
            "Found class {}, but interface was expected",
            class.replace('/', ".")
        )));
    }
    if desc != real {
        return Err(Error::new("java/lang/NoSuchMethodError", shown(desc)));
    }
    if kind != REF_INVOKE_STATIC {
        return Err(Error::incompatible(format!(
            "Expecting non-static method {}",
            shown(desc)
        )));
    }
    Ok(())
}

/// `REF_invokeStatic` (JVMS 4.4.8).
const REF_INVOKE_STATIC: u8 = 6;

fn box_class(t: &FieldType) -> Option<(&'static str, &'static str)> {
    Some(match t {
        FieldType::Boolean => ("java/lang/Boolean", "booleanValue"),
        FieldType::Byte => ("java/lang/Byte", "byteValue"),
        FieldType::Char => ("java/lang/Character", "charValue"),
        FieldType::Short => ("java/lang/Short", "shortValue"),
        FieldType::Int => ("java/lang/Integer", "intValue"),
        FieldType::Long => ("java/lang/Long", "longValue"),
        FieldType::Float => ("java/lang/Float", "floatValue"),
        FieldType::Double => ("java/lang/Double", "doubleValue"),
        _ => return None,
    })
}

fn prim_of_box(name: &str) -> Option<FieldType> {
    Some(match name {
        "java/lang/Boolean" => FieldType::Boolean,
        "java/lang/Byte" => FieldType::Byte,
        "java/lang/Character" => FieldType::Char,
        "java/lang/Short" => FieldType::Short,
        "java/lang/Integer" => FieldType::Int,
        "java/lang/Long" => FieldType::Long,
        "java/lang/Float" => FieldType::Float,
        "java/lang/Double" => FieldType::Double,
        _ => return None,
    })
}

fn internal_name(t: &FieldType) -> String {
    match t {
        FieldType::Object(n) => n.clone(),
        other => other.descriptor(),
    }
}

fn widen(asm: &mut Asm, from: &FieldType, to: &FieldType) {
    use FieldType as F;
    let int_like = |t: &F| matches!(t, F::Int | F::Short | F::Byte | F::Char | F::Boolean);
    let code = match (from, to) {
        (f, F::Long) if int_like(f) => Some((op::I2L, 1)),
        (f, F::Float) if int_like(f) => Some((op::I2F, 0)),
        (f, F::Double) if int_like(f) => Some((op::I2D, 1)),
        (F::Long, F::Float) => Some((op::L2F, -1)),
        (F::Long, F::Double) => Some((op::L2D, 0)),
        (F::Float, F::Double) => Some((op::F2D, 1)),
        _ => None,
    };
    if let Some((c, d)) = code {
        asm.emit(&[c], d);
    }
}

/// Converts the value on the stack from `from` to `to` (JLS method
/// invocation conversion as the lambda metafactory applies it).
fn convert(w: &mut ClassWriter, asm: &mut Asm, from: &FieldType, to: &FieldType) {
    if from == to {
        return;
    }
    match (from.is_reference(), to.is_reference()) {
        (true, true) => {
            if internal_name(to) != "java/lang/Object" {
                let c = w.class(&internal_name(to));
                asm.emit_cp(op::CHECKCAST, c, 0);
            }
        }
        (true, false) => {
            // Unbox: by the source's own box type if it names one (then
            // widen), else cast to the target's box.
            let src_prim = match from {
                FieldType::Object(n) => prim_of_box(n),
                _ => None,
            };
            let prim = src_prim.clone().unwrap_or_else(|| to.clone());
            let (bc, unbox) = box_class(&prim).expect("a primitive");
            if src_prim.is_none() {
                let c = w.class(bc);
                asm.emit_cp(op::CHECKCAST, c, 0);
            }
            let m = w.method_ref(bc, unbox, &format!("(){}", prim.descriptor()), false);
            asm.emit_cp(op::INVOKEVIRTUAL, m, prim.slots() as i32 - 1);
            widen(asm, &prim, to);
        }
        (false, true) => {
            let (bc, _) = box_class(from).expect("a primitive");
            let m = w.method_ref(bc, "valueOf", &format!("({})L{bc};", from.descriptor()), false);
            asm.emit_cp(op::INVOKESTATIC, m, 1 - from.slots() as i32);
            if !matches!(
                internal_name(to).as_str(),
                "java/lang/Object" | "java/lang/Number" | "java/lang/Comparable" | "java/io/Serializable"
            ) && internal_name(to) != bc
            {
                let c = w.class(&internal_name(to));
                asm.emit_cp(op::CHECKCAST, c, 0);
            }
        }
        (false, false) => widen(asm, from, to),
    }
}

fn parse_md(d: &str) -> Result<MethodDescriptor, Error> {
    MethodDescriptor::parse(d).map_err(Error::from)
}

#[allow(clippy::too_many_arguments)]
fn lambda_class(
    host: &Class,
    n: usize,
    sam_name: &str,
    site_desc: &str,
    site: &MethodDescriptor,
    args: &[Arg],
    alt: bool,
) -> Result<crate::classfile::ClassFile, Error> {
    let (
        Some(Arg::MethodType(sam)),
        Some(Arg::Handle {
            kind,
            class: iclass,
            name: iname,
            desc: idesc,
            interface: iiface,
        }),
        Some(Arg::MethodType(inst)),
    ) = (args.first(), args.get(1), args.get(2))
    else {
        return Err(bme(
            "LambdaMetafactory needs (MethodType, MethodHandle, MethodType)",
        ));
    };
    let Some(FieldType::Object(iface)) = &site.ret else {
        return Err(bme("a lambda call site returns its interface"));
    };
    let mut interfaces = vec![iface.clone()];
    let mut bridges: Vec<String> = Vec::new();
    if alt {
        let flags = match args.get(3) {
            Some(Arg::Int(f)) => *f,
            _ => 0,
        };
        let mut k = 4;
        if flags & 2 != 0 {
            let count = match args.get(k) {
                Some(Arg::Int(c)) => *c as usize,
                _ => 0,
            };
            k += 1;
            for a in args.iter().skip(k).take(count) {
                if let Arg::Class(c) = a {
                    interfaces.push(c.clone());
                }
            }
            k += count;
        }
        if flags & 4 != 0 {
            let count = match args.get(k) {
                Some(Arg::Int(c)) => *c as usize,
                _ => 0,
            };
            k += 1;
            for a in args.iter().skip(k).take(count) {
                if let Arg::MethodType(m) = a {
                    bridges.push(m.clone());
                }
            }
        }
    }
    let name = format!("{}$$Lambda${n}", host.name);
    let mut w = ClassWriter::new(&name, "java/lang/Object", interfaces);
    let captured = &site.params;
    for (i, t) in captured.iter().enumerate() {
        w.field(
            access::PRIVATE | access::FINAL,
            &format!("arg${}", i + 1),
            &t.descriptor(),
        )?;
    }
    // <init>(captured)
    let ctor_desc = format!(
        "({})V",
        captured.iter().map(FieldType::descriptor).collect::<String>()
    );
    {
        let mut a = Asm::default();
        a.emit(&[op::ALOAD_0], 1);
        let oi = w.method_ref("java/lang/Object", "<init>", "()V", false);
        a.emit_cp(op::INVOKESPECIAL, oi, -1);
        let mut slot = 1u16;
        for (i, t) in captured.iter().enumerate() {
            a.emit(&[op::ALOAD_0], 1);
            a.load(t, slot);
            let f = w.field_ref(&name, &format!("arg${}", i + 1), &t.descriptor());
            a.emit_cp(op::PUTFIELD, f, -1 - t.slots() as i32);
            slot += t.slots() as u16;
        }
        a.ret(None);
        w.method(access::PRIVATE, "<init>", &ctor_desc, a, 0)?;
    }
    // The factory (a single instance when nothing is captured).
    {
        let mut a = Asm::default();
        if captured.is_empty() {
            w.field(
                access::PRIVATE | access::STATIC | access::FINAL,
                "INSTANCE",
                &format!("L{name};"),
            )?;
            let f = w.field_ref(&name, "INSTANCE", &format!("L{name};"));
            let mut c = Asm::default();
            let cls = w.class(&name);
            c.emit_cp(op::NEW, cls, 1);
            c.emit(&[op::DUP], 1);
            let init = w.method_ref(&name, "<init>", "()V", false);
            c.emit_cp(op::INVOKESPECIAL, init, -1);
            c.emit_cp(op::PUTSTATIC, f, -1);
            c.ret(None);
            w.method(access::STATIC, "<clinit>", "()V", c, 0)?;
            a.emit_cp(op::GETSTATIC, f, 1);
        } else {
            let cls = w.class(&name);
            a.emit_cp(op::NEW, cls, 1);
            a.emit(&[op::DUP], 1);
            let mut slot = 0u16;
            for t in captured {
                a.load(t, slot);
                slot += t.slots() as u16;
            }
            let init = w.method_ref(&name, "<init>", &ctor_desc, false);
            a.emit_cp(op::INVOKESPECIAL, init, -1 - site.arg_slots() as i32);
        }
        a.ret(site.ret.as_ref());
        w.method(access::PUBLIC | access::STATIC, "get", site_desc, a, 0)?;
    }
    // The interface method, and its bridges.
    let inst_md = parse_md(inst)?;
    let impl_md = parse_md(idesc)?;
    let instance_impl = matches!(kind, 5 | 7 | 9);
    let mut impl_params: Vec<FieldType> = Vec::new();
    if instance_impl {
        impl_params.push(FieldType::Object(iclass.clone()));
    }
    impl_params.extend(impl_md.params.iter().cloned());
    let mut descs = vec![sam.clone()];
    descs.extend(bridges.into_iter().filter(|b| b != sam));
    for sdesc in descs {
        let sam_md = parse_md(&sdesc)?;
        if captured.len() + sam_md.params.len() != impl_params.len() {
            return Err(bme(format!(
                "lambda {}.{}{} does not fit the interface method {sam_name}{sdesc}",
                iclass, iname, idesc
            )));
        }
        let mut a = Asm::default();
        if *kind == 8 {
            let c = w.class(iclass);
            a.emit_cp(op::NEW, c, 1);
            a.emit(&[op::DUP], 1);
        }
        for (i, t) in captured.iter().enumerate() {
            a.emit(&[op::ALOAD_0], 1);
            let f = w.field_ref(&name, &format!("arg${}", i + 1), &t.descriptor());
            a.emit_cp(op::GETFIELD, f, t.slots() as i32 - 1);
            convert(&mut w, &mut a, t, &impl_params[i]);
        }
        let mut slot = 1u16;
        for (j, p) in sam_md.params.iter().enumerate() {
            a.load(p, slot);
            slot += p.slots() as u16;
            let inst_p = inst_md.params.get(j).unwrap_or(p);
            convert(&mut w, &mut a, p, inst_p);
            convert(&mut w, &mut a, inst_p, &impl_params[captured.len() + j]);
        }
        let nargs: i32 = impl_params.iter().map(|t| t.slots() as i32).sum();
        let ret_slots = impl_md.ret.as_ref().map_or(0, |t| t.slots() as i32);
        match kind {
            6 => {
                let m = w.method_ref(iclass, iname, idesc, *iiface);
                a.emit_cp(op::INVOKESTATIC, m, ret_slots - nargs);
            }
            5 => {
                let m = w.method_ref(iclass, iname, idesc, false);
                a.emit_cp(op::INVOKEVIRTUAL, m, ret_slots - nargs);
            }
            9 => {
                let m = w.method_ref(iclass, iname, idesc, true);
                let [hi, lo] = m.to_be_bytes();
                a.emit(&[op::INVOKEINTERFACE, hi, lo, nargs as u8, 0], ret_slots - nargs);
            }
            7 | 8 => {
                let m = w.method_ref(iclass, iname, idesc, *iiface);
                a.emit_cp(op::INVOKESPECIAL, m, ret_slots - nargs - i32::from(*kind == 8));
            }
            _ => return Err(bme(format!("unsupported method handle kind {kind}"))),
        }
        // The value produced: the new object, or the method's result.
        let produced = if *kind == 8 {
            Some(FieldType::Object(iclass.clone()))
        } else {
            impl_md.ret.clone()
        };
        match (&produced, &sam_md.ret) {
            (Some(p), None) => a.emit(
                &[if p.slots() == 2 { op::POP2 } else { op::POP }],
                -(p.slots() as i32),
            ),
            (Some(p), Some(r)) => {
                let inst_r = inst_md.ret.as_ref().unwrap_or(r);
                convert(&mut w, &mut a, p, inst_r);
                convert(&mut w, &mut a, inst_r, r);
            }
            _ => {}
        }
        a.ret(sam_md.ret.as_ref());
        let flags = access::PUBLIC
            | if sdesc == *sam {
                0
            } else {
                access::BRIDGE | access::SYNTHETIC
            };
        w.method(flags, sam_name, &sdesc, a, slot)?;
    }
    w.finish()
}

/// `SwitchBootstraps.typeSwitch(lookup, name, (T, int)int, labels...)`: a
/// class whose `<clinit>` builds the label array (classes, strings,
/// integers, enum constants by class and name) and whose factory calls
/// the class library's `SwitchBootstraps.typeSwitch(target, restart,
/// labels)`.
fn type_switch_class(
    host: &Class,
    n: usize,
    site_desc: &str,
    labels: &[Arg],
) -> Result<crate::classfile::ClassFile, Error> {
    let name = format!("{}$$Switch${n}", host.name);
    let mut w = ClassWriter::new(&name, "java/lang/Object", Vec::new());
    w.field(
        access::PRIVATE | access::STATIC | access::FINAL,
        "LABELS",
        "[Ljava/lang/Object;",
    )?;
    let labels_ref = w.field_ref(&name, "LABELS", "[Ljava/lang/Object;");
    let mut c = Asm::default();
    let count = labels.len() as u16;
    let [hi, lo] = count.to_be_bytes();
    c.emit(&[op::SIPUSH, hi, lo], 1);
    let object = w.class("java/lang/Object");
    c.emit_cp(op::ANEWARRAY, object, 0);
    for (i, label) in labels.iter().enumerate() {
        c.emit(&[op::DUP], 1);
        let [hi, lo] = (i as u16).to_be_bytes();
        c.emit(&[op::SIPUSH, hi, lo], 1);
        match label {
            Arg::Class(cn) => {
                let k = w.class(cn);
                c.emit_cp(op::LDC_W, k, 1);
            }
            Arg::Str(s) => {
                let k = w.string_utf16(s);
                c.emit_cp(op::LDC_W, k, 1);
            }
            Arg::Int(v) => {
                let k = w.int(*v);
                c.emit_cp(op::LDC_W, k, 1);
                let m = w.method_ref("java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;", false);
                c.emit_cp(op::INVOKESTATIC, m, 0);
            }
            Arg::EnumConst { class, name: cname } => {
                let el = "java/lang/runtime/SwitchBootstraps$EnumLabel";
                let k = w.class(el);
                c.emit_cp(op::NEW, k, 1);
                c.emit(&[op::DUP], 1);
                let ec = w.class(class);
                c.emit_cp(op::LDC_W, ec, 1);
                let units: Vec<u16> = cname.encode_utf16().collect();
                let sn = w.string_utf16(&units);
                c.emit_cp(op::LDC_W, sn, 1);
                let init = w.method_ref(el, "<init>", "(Ljava/lang/Class;Ljava/lang/String;)V", false);
                c.emit_cp(op::INVOKESPECIAL, init, -3);
            }
            _ => return Err(bme("unsupported typeSwitch label")),
        }
        c.emit(&[op::AASTORE], -3);
    }
    c.emit_cp(op::PUTSTATIC, labels_ref, -1);
    c.ret(None);
    w.method(access::STATIC, "<clinit>", "()V", c, 0)?;
    let mut a = Asm::default();
    a.emit(&[op::ALOAD_0], 1);
    a.emit(&[op::ILOAD_1], 1);
    a.emit_cp(op::GETSTATIC, labels_ref, 1);
    let ts = w.method_ref(
        "java/lang/runtime/SwitchBootstraps",
        "typeSwitch",
        "(Ljava/lang/Object;I[Ljava/lang/Object;)I",
        false,
    );
    a.emit_cp(op::INVOKESTATIC, ts, -2);
    a.ret(Some(&FieldType::Int));
    w.method(access::PUBLIC | access::STATIC, "get", site_desc, a, 2)?;
    w.finish()
}

/// `ObjectMethods.bootstrap(lookup, name, type, recordClass, "a;b", getters...)`:
/// the record's `toString` (`R[a=1, b=x]`), `equals` (same class, each
/// component equal: primitives by their box's `compare`/`==`, references
/// by `Objects.equals`) and `hashCode` (`31 * h + hash(component)`), as
/// `java.lang.runtime.ObjectMethods` builds them.
fn record_class(
    host: &Class,
    n: usize,
    method: &str,
    site_desc: &str,
    _site: &MethodDescriptor,
    args: &[Arg],
) -> Result<crate::classfile::ClassFile, Error> {
    let (Some(Arg::Class(rec)), Some(Arg::Str(names))) = (args.first(), args.get(1)) else {
        return Err(bme("ObjectMethods.bootstrap needs (Class, String, getters...)"));
    };
    let names = String::from_utf16_lossy(names);
    let names: Vec<&str> = if names.is_empty() {
        Vec::new()
    } else {
        names.split(';').collect()
    };
    let mut getters: Vec<(String, FieldType)> = Vec::new();
    for g in &args[2..] {
        if let Arg::Handle { name, desc, .. } = g {
            getters.push((name.clone(), FieldType::parse(desc).map_err(Error::from)?));
        }
    }
    let class_name = format!("{}$$Record${n}", host.name);
    let mut w = ClassWriter::new(&class_name, "java/lang/Object", Vec::new());
    let mut a = Asm::default();
    let simple = rec.rsplit(['/', '$']).next().unwrap_or(rec).to_string();
    let string = FieldType::Object("java/lang/String".into());
    let get = |w: &mut ClassWriter, a: &mut Asm, local: u16, (fname, t): &(String, FieldType)| {
        a.load(&FieldType::Object(rec.clone()), local);
        let f = w.field_ref(rec, fname, &t.descriptor());
        a.emit_cp(op::GETFIELD, f, t.slots() as i32 - 1);
    };
    match method {
        "toString" => {
            let sb = w.class("java/lang/StringBuilder");
            a.emit_cp(op::NEW, sb, 1);
            a.emit(&[op::DUP], 1);
            let init = w.method_ref("java/lang/StringBuilder", "<init>", "()V", false);
            a.emit_cp(op::INVOKESPECIAL, init, -1);
            let mut text = format!("{simple}[");
            for (i, g) in getters.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                text.push_str(names.get(i).copied().unwrap_or(""));
                text.push('=');
                let units: Vec<u16> = text.encode_utf16().collect();
                let s = w.string_utf16(&units);
                a.emit_cp(op::LDC_W, s, 1);
                sb_append(&mut w, &mut a, &string);
                text.clear();
                get(&mut w, &mut a, 0, g);
                sb_append(&mut w, &mut a, &g.1);
            }
            text.push(']');
            let units: Vec<u16> = text.encode_utf16().collect();
            let s = w.string_utf16(&units);
            a.emit_cp(op::LDC_W, s, 1);
            sb_append(&mut w, &mut a, &string);
            let ts = w.method_ref(
                "java/lang/StringBuilder",
                "toString",
                "()Ljava/lang/String;",
                false,
            );
            a.emit_cp(op::INVOKEVIRTUAL, ts, 0);
            a.ret(Some(&string));
        }
        "hashCode" => {
            a.emit(&[op::ICONST_0], 1);
            for g in &getters {
                a.emit(&[op::BIPUSH, 31], 1);
                a.emit(&[op::IMUL], -1);
                get(&mut w, &mut a, 0, g);
                let (cls, d) = match &g.1 {
                    FieldType::Object(_) | FieldType::Array(_) => {
                        ("java/util/Objects", "(Ljava/lang/Object;)I")
                    }
                    t => (
                        box_class(t).expect("a primitive").0,
                        match t {
                            FieldType::Boolean => "(Z)I",
                            FieldType::Byte => "(B)I",
                            FieldType::Char => "(C)I",
                            FieldType::Short => "(S)I",
                            FieldType::Int => "(I)I",
                            FieldType::Long => "(J)I",
                            FieldType::Float => "(F)I",
                            _ => "(D)I",
                        },
                    ),
                };
                let m = w.method_ref(cls, "hashCode", d, false);
                a.emit_cp(op::INVOKESTATIC, m, 1 - g.1.slots() as i32);
                a.emit(&[op::IADD], -1);
            }
            a.ret(Some(&FieldType::Int));
        }
        "equals" => {
            // (R this, Object o): a static helper on the record class does
            // the work, as a branch-free method cannot.
            let m = w.method_ref(
                "java/lang/Record",
                "equalsByComponents",
                "(Ljava/lang/Object;Ljava/lang/Object;)Z",
                false,
            );
            a.emit(&[op::ALOAD_0], 1);
            a.emit(&[op::ALOAD_1], 1);
            a.emit_cp(op::INVOKESTATIC, m, -1);
            a.ret(Some(&FieldType::Boolean));
        }
        other => return Err(bme(format!("ObjectMethods.bootstrap for {other}"))),
    }
    w.method(access::PUBLIC | access::STATIC, "get", site_desc, a, 2)?;
    w.finish()
}

/// The `Method` of a spun class's factory (tests).
pub fn factory_name() -> &'static str {
    "get"
}
