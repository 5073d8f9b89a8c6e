//! Natives of `java.lang`: identity, monitors, class metadata, arrays,
//! time, exit, stack traces.

use std::sync::atomic::Ordering;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fastpath::gc::{BarrierSet, Obj};
use fastpath::sync::SyncError;

use crate::interp::{Args, NativeFn};
use crate::link::{Class, ClassKind, Kind};
use crate::runtime::{JResult, JThread, Thrown};

fn field_offset(c: &Class, name: &str, desc: &str) -> usize {
    c.declared_field(name, desc)
        .unwrap_or_else(|| panic!("the class library's {} has no field {name} {desc}", c.name))
        .offset as usize
}

impl<B: BarrierSet> JThread<B> {
    /// The `java.lang.Class` object of `c`, made on first use (a global
    /// root, shared by every thread).
    pub fn mirror_of(&mut self, c: &'static Class) -> JResult<usize> {
        if let Some(slot) = c.mirror.get() {
            // Acquire: the mirror's initialization.
            return Ok(slot.load(Ordering::Acquire));
        }
        let cc = self
            .vm
            .class("java/lang/Class")
            .map_err(|e| self.throw_error(&e))?;
        let m = self.alloc_object(cc)?;
        let off = field_offset(cc, "vmClass", "J") as u32;
        self.put_prim(m, off, Kind::Long, c as *const Class as u64);
        let slot = self
            .vm
            .globals
            .alloc(m)
            .expect("the VM's global roots are exhausted");
        if c.mirror.set(slot).is_err() {
            // Another thread made it first: ours is garbage.
            self.vm.globals.free(slot);
        }
        // Acquire: as above.
        Ok(c.mirror.get().expect("set above").load(Ordering::Acquire))
    }

    /// The VM class of a `java.lang.Class` object.
    pub fn class_of_mirror(&self, mirror: usize) -> &'static Class {
        let cc = self.class_of(mirror);
        let off = field_offset(cc, "vmClass", "J") as u32;
        let p = self.get_prim(mirror, off, Kind::Long) as usize;
        // SAFETY: `vmClass` holds the address of a leaked, never freed
        // `Class`, written when the mirror was made.
        unsafe { &*(p as *const Class) }
    }

    /// Throws `NullPointerException` (no message).
    #[cold]
    pub fn throw_npe_plain(&mut self) -> Thrown {
        self.throw_new("java/lang/NullPointerException", None)
    }
}

fn get_class<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of(a.obj(0));
    Ok(t.mirror_of(c)? as u64)
}

fn hash_code<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let o = a.obj(0);
    if o == 0 {
        return Ok(0);
    }
    // SAFETY: a live object of this heap.
    Ok(unsafe { t.m.identity_hash_unchecked(Obj::from_addr(o)) } as u64)
}

fn clone<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let o = a.obj(0);
    let c = t.class_of(o);
    let cloneable = t.vm.class("java/lang/Cloneable").map_err(|e| t.throw_error(&e))?;
    if !c.is_array() && !c.is_subclass_of(cloneable) {
        return Err(t.throw_new("java/lang/CloneNotSupportedException", Some(&c.java_name())));
    }
    Ok(t.clone_object(o)? as u64)
}

fn monitor_error<B: BarrierSet>(t: &mut JThread<B>, e: SyncError) -> Thrown {
    match e {
        SyncError::Interrupted => t.throw_new("java/lang/InterruptedException", None),
        _ => t.throw_new(
            "java/lang/IllegalMonitorStateException",
            Some("current thread is not owner"),
        ),
    }
}

fn notify<B: BarrierSet>(t: &mut JThread<B>, a: Args, all: bool) -> JResult<u64> {
    let o = a.obj(0);
    // SAFETY: a live object of this heap.
    match unsafe { t.m.monitor_notify_unchecked(Obj::from_addr(o), all) } {
        Ok(_) => Ok(0),
        Err(e) => Err(monitor_error(t, e)),
    }
}

fn wait<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (o, ms) = (a.obj(0), a.long(1));
    if ms < 0 {
        return Err(t.throw_new(
            "java/lang/IllegalArgumentException",
            Some("timeout value is negative"),
        ));
    }
    let timeout = (ms > 0).then(|| Duration::from_millis(ms as u64));
    // SAFETY: a live object of this heap (the receiver, a root).
    match unsafe { t.m.monitor_wait_unchecked(o, timeout) } {
        Ok(()) | Err(SyncError::TimedOut) => Ok(0),
        Err(e) => Err(monitor_error(t, e)),
    }
}

fn arraycopy<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (src, sp, dst, dp, len) = (a.obj(0), a.int(1), a.obj(2), a.int(3), a.int(4));
    if src == 0 || dst == 0 {
        return Err(t.throw_npe_plain());
    }
    let (sc, dc) = (t.class_of(src), t.class_of(dst));
    let (Some(sk), Some(dk)) = (sc.elem_kind(), dc.elem_kind()) else {
        let which = if sc.is_array() {
            ("destination", dc)
        } else {
            ("source", sc)
        };
        return Err(t.throw_new(
            "java/lang/ArrayStoreException",
            Some(&format!(
                "arraycopy: {} type {} is not an array",
                which.0,
                which.1.java_name()
            )),
        ));
    };
    let type_name = |c: &Class| {
        if c.elem_kind() == Some(Kind::Ref) {
            "object array[]".to_string()
        } else {
            format!("{}[]", c.elem_kind().map_or("", |k| k.java_name()))
        }
    };
    if sk != dk {
        return Err(t.throw_new(
            "java/lang/ArrayStoreException",
            Some(&format!(
                "arraycopy: type mismatch: can not copy {} into {}",
                type_name(sc),
                type_name(dc)
            )),
        ));
    }
    let (sl, dl) = (t.array_len(src), t.array_len(dst));
    let bad = |what: &str, idx: i64, n: i32, c: &Class| {
        format!("arraycopy: {what} {idx} out of bounds for {}", {
            let k = c.elem_kind().unwrap_or(Kind::Ref);
            if k == Kind::Ref {
                format!("object array[{n}]")
            } else {
                format!("{}[{n}]", k.java_name())
            }
        })
    };
    let msg = if len < 0 {
        Some(format!("arraycopy: length {len} is negative"))
    } else if sp < 0 {
        Some(bad("source index", sp as i64, sl, sc))
    } else if dp < 0 {
        Some(bad("destination index", dp as i64, dl, dc))
    } else if sp as i64 + len as i64 > sl as i64 {
        Some(bad("last source index", sp as i64 + len as i64, sl, sc))
    } else if dp as i64 + len as i64 > dl as i64 {
        Some(bad("last destination index", dp as i64 + len as i64, dl, dc))
    } else {
        None
    };
    if let Some(m) = msg {
        return Err(t.throw_new("java/lang/ArrayIndexOutOfBoundsException", Some(&m)));
    }
    let (sp, dp, len) = (sp as usize, dp as usize, len as usize);
    if sk == Kind::Ref {
        let dcomp = dc.component.expect("an array class");
        let check = !sc.component.is_some_and(|s| s.is_subclass_of(dcomp));
        let backwards = src == dst && sp < dp;
        for k in 0..len {
            let i = if backwards { len - 1 - k } else { k };
            let v = t.load_ref(src, sp + i);
            if check && v != 0 && !t.class_of(v).is_subclass_of(dcomp) {
                // HotSpot's `ObjArrayKlass::do_copy`: component types that
                // are unrelated either way are a type mismatch; a
                // destination component below the source's, an element's.
                let scomp = sc.component.map_or(String::new(), |c| c.java_name());
                let msg = if sc.component.is_some_and(|s| dcomp.is_subclass_of(s)) {
                    format!(
                        "arraycopy: element type mismatch: can not cast one of the elements of {scomp}[] to the type of the destination array, {}",
                        dcomp.java_name()
                    )
                } else {
                    format!(
                        "arraycopy: type mismatch: can not copy {scomp}[] into {}[]",
                        dcomp.java_name()
                    )
                };
                return Err(t.throw_new("java/lang/ArrayStoreException", Some(&msg)));
            }
            t.store_ref(dst, dp + i, v);
        }
    } else {
        let size = sk.size();
        let from = t.elem_ptr(src, sk, sp);
        let to = t.elem_ptr_mut(dst, sk, dp);
        // SAFETY: both ranges are in bounds (checked); `copy` allows
        // overlap (the same array).
        unsafe { std::ptr::copy(from, to, len * size) };
    }
    Ok(0)
}

fn process_start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

fn nano_time<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(process_start().elapsed().as_nanos() as i64 as u64)
}

fn current_time_millis<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64))
}

fn halt<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    crate::runtime::natives::io::flush_stdout();
    // No compilation runs while the process exits (the wait for the one
    // under way in a safe region: a pause need not wait for it).
    let vm = t.vm;
    t.m.safe_region(|| vm.jit.shutdown());
    std::process::exit(a.int(0));
}

fn available_processors<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(fastpath::cpu::info().logical_cpus.max(1) as u64)
}

fn max_memory<B: BarrierSet>(t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(t.vm.options.heap_bytes as u64)
}

/// `Runtime.totalMemory`: the heap's soft capacity (what the collector
/// keeps the program within; it grows with the live data).
fn total_memory<B: BarrierSet>(t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(t.vm.heap.capacity_bytes() as u64)
}

/// `Runtime.freeMemory`: the free part of `totalMemory` (free regions past
/// the soft capacity are not counted).
fn free_memory<B: BarrierSet>(t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    let past = t.vm.options.heap_bytes.saturating_sub(t.vm.heap.capacity_bytes());
    Ok(t.vm.heap.free_bytes().saturating_sub(past) as u64)
}

fn gc<B: BarrierSet>(t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    let _ = t.m.collect();
    Ok(0)
}

fn intern<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    Ok(t.intern(a.obj(0))? as u64)
}

fn class_name<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    let name = c.java_name();
    Ok(t.new_string_from(&name)? as u64)
}

fn class_flag<B: BarrierSet>(t: &mut JThread<B>, a: Args, f: fn(&Class) -> bool) -> JResult<u64> {
    Ok(f(t.class_of_mirror(a.obj(0))) as u64)
}

fn is_array<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    class_flag(t, a, Class::is_array)
}
fn is_interface<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    class_flag(t, a, Class::is_interface)
}
fn is_primitive<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    class_flag(t, a, |c| matches!(c.kind, ClassKind::Primitive(_)))
}
fn modifiers<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    Ok(t.class_of_mirror(a.obj(0)).flags as u64)
}

fn superclass<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    match c.super_class {
        Some(s) if !c.is_interface() => Ok(t.mirror_of(s)? as u64),
        _ => Ok(0),
    }
}

fn component_type<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    match t.class_of_mirror(a.obj(0)).component {
        Some(c) => Ok(t.mirror_of(c)? as u64),
        None => Ok(0),
    }
}

fn is_instance<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    let o = a.obj(1);
    Ok((o != 0 && t.class_of(o).is_subclass_of(c)) as u64)
}

fn is_assignable_from<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    let other = a.obj(1);
    if other == 0 {
        return Err(t.throw_npe_plain());
    }
    let o = t.class_of_mirror(other);
    Ok((std::ptr::eq(c, o) || (!matches!(o.kind, ClassKind::Primitive(_)) && o.is_subclass_of(c))) as u64)
}

fn primitive_class<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let name = t.string_text(a.obj(0));
    if !matches!(
        name.as_str(),
        "boolean" | "byte" | "char" | "short" | "int" | "float" | "long" | "double"
    ) {
        return Ok(0);
    }
    let c = t.vm.loader.load(&name).map_err(|e| t.throw_error(&e))?;
    Ok(t.mirror_of(c)? as u64)
}

fn for_name<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let name = t.string_text(a.obj(0));
    let internal = name.replace('.', "/");
    match t.vm.loader.load(&internal) {
        Ok(c) if !matches!(c.kind, ClassKind::Primitive(_)) => {
            t.ensure_initialized(c)?;
            Ok(t.mirror_of(c)? as u64)
        }
        _ => Err(t.throw_new("java/lang/ClassNotFoundException", Some(&name))),
    }
}

fn enum_constants<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let c = t.class_of_mirror(a.obj(0));
    let desc = format!("()[L{};", c.name);
    let Some(values) = c.declared_method("values", &desc) else {
        return Ok(0);
    };
    t.ensure_initialized(c)?;
    t.call(values, &[])
}

/// Frames from the top of a throwable's construction to skip: its
/// `fillInStackTrace` and the constructors of its class and superclasses
/// (HotSpot `java_lang_Throwable::fill_in_stack_trace`).
fn fill_in_stack_trace<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let frames = t.backtrace();
    let this_class = t.class_of(a.obj(0));
    let mut skip = 0;
    while skip < frames.len()
        && (&*frames[skip].0.name == "fillInStackTrace" || &*frames[skip].0.name == "fillInStackTrace0")
    {
        skip += 1;
    }
    while skip < frames.len()
        && &*frames[skip].0.name == "<init>"
        && this_class.is_subclass_of(frames[skip].0.class)
    {
        skip += 1;
    }
    // Hidden classes' frames are left out; at most 1024 frames are kept
    // (HotSpot's MaxJavaStackTraceDepth).
    let words: Vec<u64> = frames[skip..]
        .iter()
        .filter(|(m, _)| !m.class.hidden)
        .take(1024)
        .map(|(m, bci)| ((m.id as u64) << 32) | *bci as u64)
        .collect();
    let ac = t.vm.loader.load("[J").map_err(|e| t.throw_error(&e))?;
    let arr = t.alloc_array(ac, words.len() as i32)?;
    for (i, w) in words.iter().enumerate() {
        // SAFETY: in bounds of the fresh array.
        unsafe { (t.elem_ptr_mut(arr, Kind::Long, i) as *mut u64).write(*w) };
    }
    let this = a.obj(0);
    let tc = t.vm.class("java/lang/Throwable").map_err(|e| t.throw_error(&e))?;
    let off = field_offset(tc, "backtrace", "Ljava/lang/Object;");
    t.store_ref(this, off, arr);
    Ok(this as u64)
}

/// Builds the `StackTraceElement[]` of a throwable's backtrace.
fn stack_trace<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let tc = t.vm.class("java/lang/Throwable").map_err(|e| t.throw_error(&e))?;
    let off = field_offset(tc, "backtrace", "Ljava/lang/Object;");
    let bt = t.load_ref(a.obj(0), off);
    let words: Vec<u64> = if bt == 0 {
        Vec::new()
    } else {
        let n = t.array_len(bt) as usize;
        // SAFETY: `n` longs of the backtrace array.
        (0..n)
            .map(|i| unsafe { (t.elem_ptr(bt, Kind::Long, i) as *const u64).read() })
            .collect()
    };
    let ste =
        t.vm.class("java/lang/StackTraceElement")
            .map_err(|e| t.throw_error(&e))?;
    t.ensure_initialized(ste)?;
    let ctor = ste
        .declared_method(
            "<init>",
            "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;IZ)V",
        )
        .expect("StackTraceElement's VM constructor");
    let ac = t.vm.loader.array_of(ste).map_err(|e| t.throw_error(&e))?;
    let arr = t.alloc_array(ac, words.len() as i32)?;
    let mark = t.stack.temps_len();
    let at = t.stack.push_temp(arr);
    for (i, w) in words.iter().enumerate() {
        let Some(m) = t.vm.loader.method((w >> 32) as u32) else {
            continue;
        };
        let bci = *w as u32;
        let line = if m.is_native() {
            -2
        } else {
            m.code
                .as_ref()
                .and_then(|c| c.line_of(bci))
                .map_or(-1, |l| l as i32)
        };
        let mut strs = Vec::new();
        for s in [
            Some(m.class.java_name()),
            Some(m.name.to_string()),
            m.class.source_file.as_deref().map(str::to_string),
        ] {
            let v = match s {
                Some(s) => t.new_string_from(&s),
                None => Ok(0),
            };
            match v {
                Ok(v) => strs.push(t.stack.push_temp(v)),
                Err(e) => {
                    t.stack.truncate_temps(mark);
                    return Err(e);
                }
            }
        }
        let e = match t.alloc_object(ste) {
            Ok(e) => e,
            Err(x) => {
                t.stack.truncate_temps(mark);
                return Err(x);
            }
        };
        let et = t.stack.push_temp(e);
        let args = [
            t.stack.temp(et) as u64,
            t.stack.temp(strs[0]) as u64,
            t.stack.temp(strs[1]) as u64,
            t.stack.temp(strs[2]) as u64,
            line as i64 as u64,
            m.class.is_boot as u64,
        ];
        if let Err(x) = t.call(ctor, &args) {
            t.stack.truncate_temps(mark);
            return Err(x);
        }
        let (arr, e) = (t.stack.temp(at), t.stack.temp(et));
        t.store_ref(arr, i, e);
        t.stack.truncate_temps(mark + 1);
    }
    let arr = t.stack.temp(at);
    t.stack.truncate_temps(mark);
    Ok(arr as u64)
}

fn identity_hash<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    hash_code(t, a)
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    Some(match (class, name, desc) {
        ("java/lang/Object", "getClass", "()Ljava/lang/Class;") => get_class::<B>,
        ("java/lang/Object", "hashCode", "()I") => hash_code::<B>,
        ("java/lang/Object", "clone", "()Ljava/lang/Object;") => clone::<B>,
        ("java/lang/Object", "notify", "()V") => |t, a| notify::<B>(t, a, false),
        ("java/lang/Object", "notifyAll", "()V") => |t, a| notify::<B>(t, a, true),
        ("java/lang/Object", "wait0", "(J)V") => wait::<B>,
        ("java/lang/System", "arraycopy", "(Ljava/lang/Object;ILjava/lang/Object;II)V") => arraycopy::<B>,
        ("java/lang/System", "nanoTime", "()J") => nano_time::<B>,
        ("java/lang/System", "currentTimeMillis", "()J") => current_time_millis::<B>,
        ("java/lang/System", "identityHashCode", "(Ljava/lang/Object;)I") => identity_hash::<B>,
        ("java/lang/Runtime", "halt0", "(I)V") => halt::<B>,
        ("java/lang/Runtime", "availableProcessors", "()I") => available_processors::<B>,
        ("java/lang/Runtime", "maxMemory", "()J") => max_memory::<B>,
        ("java/lang/Runtime", "totalMemory", "()J") => total_memory::<B>,
        ("java/lang/Runtime", "freeMemory", "()J") => free_memory::<B>,
        ("java/lang/Runtime", "gc", "()V") => gc::<B>,
        ("java/lang/String", "intern", "()Ljava/lang/String;") => intern::<B>,
        ("java/lang/Class", "initName", "()Ljava/lang/String;") => class_name::<B>,
        ("java/lang/Class", "isArray", "()Z") => is_array::<B>,
        ("java/lang/Class", "isInterface", "()Z") => is_interface::<B>,
        ("java/lang/Class", "isPrimitive", "()Z") => is_primitive::<B>,
        ("java/lang/Class", "getModifiers", "()I") => modifiers::<B>,
        ("java/lang/Class", "getSuperclass", "()Ljava/lang/Class;") => superclass::<B>,
        ("java/lang/Class", "getComponentType", "()Ljava/lang/Class;") => component_type::<B>,
        ("java/lang/Class", "isInstance", "(Ljava/lang/Object;)Z") => is_instance::<B>,
        ("java/lang/Class", "isAssignableFrom", "(Ljava/lang/Class;)Z") => is_assignable_from::<B>,
        ("java/lang/Class", "getPrimitiveClass", "(Ljava/lang/String;)Ljava/lang/Class;") => {
            primitive_class::<B>
        }
        ("java/lang/Class", "forName", "(Ljava/lang/String;)Ljava/lang/Class;") => for_name::<B>,
        ("java/lang/Class", "getEnumConstants0", "()[Ljava/lang/Object;") => enum_constants::<B>,
        ("java/lang/Throwable", "fillInStackTrace0", "()Ljava/lang/Throwable;") => fill_in_stack_trace::<B>,
        ("java/lang/Throwable", "getStackTrace0", "()[Ljava/lang/StackTraceElement;") => stack_trace::<B>,
        _ => return None,
    })
}
