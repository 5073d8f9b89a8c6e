use super::*;
use core::mem::{offset_of, size_of};

/// The layout promise in [`Monitor`]'s docs: the contenders' fields
/// start at least 128 bytes after the owner's end, whatever the cold
/// fields' sizes in this std.
#[test]
fn contenders_fields_are_two_lines_away_from_the_owners() {
    let owner_end = offset_of!(Monitor, guard_held) + size_of::<AtomicUsize>();
    assert!(offset_of!(Monitor, owner) < owner_end);
    assert!(offset_of!(Monitor, recursions) < owner_end);
    assert!(offset_of!(Monitor, hand_off_to) < owner_end);
    let contenders = [
        offset_of!(Monitor, entry_list),
        offset_of!(Monitor, succ),
        offset_of!(Monitor, contentions),
        offset_of!(Monitor, next_fair),
        offset_of!(Monitor, spin_duration),
    ];
    for c in contenders {
        assert!(
            c >= owner_end + 128,
            "a contender field at {c}, the owner's end at {owner_end}"
        );
    }
    assert!(size_of::<Monitor>() <= 256, "{} bytes", size_of::<Monitor>());
    println!(
        "Monitor: {} bytes, contenders from byte {}",
        size_of::<Monitor>(),
        contenders[0]
    );
}

/// The entry list from the head (newest) down, by `next`, checking every
/// `prev` link that is filled in against it.
fn entries(m: &Monitor, nodes: &[Node]) -> Vec<usize> {
    let index = |p: *const Node| {
        nodes
            .iter()
            .position(|n| core::ptr::eq(n, p))
            .expect("a foreign node")
    };
    let mut out = Vec::new();
    let mut above: *mut Node = core::ptr::null_mut();
    let mut p = m.entry_list.load(Ordering::Acquire);
    while !p.is_null() {
        // SAFETY: every node on the list is an element of `nodes`.
        let n = unsafe { &*p };
        let prev = n.prev.load(Ordering::Relaxed);
        assert!(
            prev.is_null() || prev == above,
            "node {} has a stale prev link",
            index(p)
        );
        out.push(index(p));
        above = p;
        p = n.next.load(Ordering::Relaxed);
    }
    out
}

fn tail_index(m: &Monitor, nodes: &[Node]) -> Option<usize> {
    let t = m.tail();
    (!t.is_null()).then(|| nodes.iter().position(|n| core::ptr::eq(n, t)).unwrap())
}

/// The lazily doubly linked entry list, single-threaded (the owner's
/// view): pushes at the head, the tail found once and then kept,
/// unlinks of the tail, of a middle node, of the head, and of the head
/// after a push made it a middle node; the list and the tail stay right
/// at every step.
#[test]
fn entry_list_keeps_its_tail_and_links_through_every_unlink() {
    {
        let me = &Arc::new(ThreadState::new_for_current_thread());
        let m = Monitor::new(Mark(0), me.id, 0);
        let nodes: Vec<Node> = (0..6).map(|_| Node::new(me, ENTERING)).collect();
        for n in &nodes[..4] {
            m.enqueue(n);
        }
        assert_eq!(entries(&m, &nodes), [3, 2, 1, 0]);
        assert_eq!(tail_index(&m, &nodes), Some(0));
        m.unlink(&nodes[0]); // the tail
        assert_eq!(entries(&m, &nodes), [3, 2, 1]);
        assert_eq!(tail_index(&m, &nodes), Some(1));
        m.enqueue(&nodes[4]);
        m.unlink(&nodes[2]); // a middle node, above the linked part
        assert_eq!(entries(&m, &nodes), [4, 3, 1]);
        assert_eq!(tail_index(&m, &nodes), Some(1));
        m.unlink(&nodes[4]); // the head
        assert_eq!(entries(&m, &nodes), [3, 1]);
        m.enqueue(&nodes[5]);
        m.unlink(&nodes[3]); // was the head, a push came first
        assert_eq!(entries(&m, &nodes), [5, 1]);
        assert_eq!(tail_index(&m, &nodes), Some(1));
        m.unlink(&nodes[1]); // the tail again
        assert_eq!(entries(&m, &nodes), [5]);
        assert_eq!(tail_index(&m, &nodes), Some(5));
        m.unlink(&nodes[5]); // the last one
        assert!(entries(&m, &nodes).is_empty());
        assert_eq!(tail_index(&m, &nodes), None);
        // A wait node comes back to the list: its old links are gone.
        m.enqueue(&nodes[2]);
        assert_eq!(entries(&m, &nodes), [2]);
        assert_eq!(tail_index(&m, &nodes), Some(2));
        m.unlink(&nodes[2]);
        m.exit(me);
    }
}
