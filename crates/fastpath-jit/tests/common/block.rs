//! A plain `#[repr(C)]` thread block for the thread-block templates (poll,
//! SATB/LRB idle tests, card, reference CAS, TLAB), and its layout: the
//! real block publishes its offsets the same way.

use std::mem::offset_of;

use fastpath_jit::ThreadLayout;

#[repr(C)]
#[derive(Default)]
pub struct TestThread {
    pub gc_state: u8,
    pub poll: u8,
    pub card_base: usize,
    pub tlab_top: usize,
    pub tlab_end: usize,
}

pub const MARKING: u8 = 1;
pub const HAS_FORWARDED: u8 = 4;

pub fn layout() -> ThreadLayout {
    ThreadLayout {
        gc_state: offset_of!(TestThread, gc_state) as i32,
        marking_bit: MARKING,
        has_forwarded_bit: HAS_FORWARDED,
        poll: offset_of!(TestThread, poll) as i32,
        poll_bit: 1,
        card_table_base: offset_of!(TestThread, card_base) as i32,
        card_shift: 9,
        dirty_card: 0,
        tlab_top: offset_of!(TestThread, tlab_top) as i32,
        tlab_end: offset_of!(TestThread, tlab_end) as i32,
    }
}
