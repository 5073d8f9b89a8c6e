//! The `fastpath-vm` command: runs a Java program as `java` does
//! (`fastpath_vm::cli` has the options), on the barrier set
//! `FASTPATH_GC_BARRIERS` names: the interpreter is monomorphised for each
//! preset on full-width reference slots and for `shenandoah` (the default)
//! on compressed ones (every barrier's fast path and reference access
//! compiled for exactly that set and width), and any other set or width
//! runs the run-time-checked `Dynamic` set.

use fastpath::gc::layout::RefWidth;
use fastpath::gc::{
    BarrierBits, BarrierSet, Dynamic, G1Barriers, NoBarriers, NoBarriersUnscaled, SerialBarriers,
    Shenandoah2017Barriers, ShenandoahBarriers, ShenandoahUnscaledBarriers,
};
use fastpath_vm::runtime::Vm;

fn run<B: BarrierSet>(vm: &'static Vm, main: &str, args: &[String]) -> i32 {
    fastpath_vm::runtime::launch::run_main::<B>(vm, main, args)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = match fastpath_vm::cli::parse(&args) {
        Ok(c) => c,
        Err(msg) => {
            fastpath_vm::diag!("{msg}");
            std::process::exit(1);
        }
    };
    use fastpath_vm::cli::Version;
    let text = fastpath_vm::cli::version_text(cmd.options.jit);
    match cmd.version {
        Some(Version::Exit) => {
            fastpath_vm::diag_text!("{text}");
            std::process::exit(0);
        }
        Some(Version::ExitStdout) => {
            print!("{text}");
            std::process::exit(0);
        }
        Some(Version::Show) => fastpath_vm::diag_text!("{text}"),
        Some(Version::ShowStdout) => print!("{text}"),
        None => {}
    }
    let vm = match Vm::boot(cmd.options, Some(fastpath_vm::CLASSLIB)) {
        Ok(vm) => vm,
        Err(msg) => {
            fastpath_vm::diag!("{msg}");
            std::process::exit(1);
        }
    };
    let (main, a) = (cmd.main_class.as_str(), cmd.args.as_slice());
    let status = match (vm.heap.config().barriers, vm.heap.ref_width()) {
        (BarrierBits::SHENANDOAH, RefWidth::Unscaled) => run::<ShenandoahUnscaledBarriers>(vm, main, a),
        (BarrierBits::NONE, RefWidth::Unscaled) => run::<NoBarriersUnscaled>(vm, main, a),
        (_, RefWidth::Compressed | RefWidth::Unscaled) => run::<Dynamic>(vm, main, a),
        (BarrierBits::NONE, _) => run::<NoBarriers>(vm, main, a),
        (BarrierBits::SERIAL, _) => run::<SerialBarriers>(vm, main, a),
        (BarrierBits::G1, _) => run::<G1Barriers>(vm, main, a),
        (BarrierBits::SHENANDOAH_2017, _) => run::<Shenandoah2017Barriers>(vm, main, a),
        (BarrierBits::SHENANDOAH, _) => run::<ShenandoahBarriers>(vm, main, a),
        _ => run::<Dynamic>(vm, main, a),
    };
    std::process::exit(status);
}
