// tags: gc monitor
// release: 15
// Object identity across collections, for moving collectors and their barriers: references
// loaded at different times compare == (a Brooks or load-reference barrier must resolve both
// to one copy); identity hash codes stay fixed while objects move; objects stay lockable, and a
// lock held across allocation bursts (during which the collector may move the object) is still
// held and released properly; reference stores into long-lived objects and arrays keep young
// objects alive (the write barrier / card marking); == between an old and a freshly loaded
// reference of a HashMap-held key; and Object[] arraycopy between old and new arrays.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class GcIdentity {
    static final class Holder {
        Object ref;
        Holder next;
        int id;
    }

    static long garbage(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            int[] a = new int[8 + (i & 31)];
            a[0] = i;
            s += a.length + a[0];
        }
        return s;
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 5000;
        Holder[] old = new Holder[n];
        int[] hashes = new int[n];
        for (int i = 0; i < n; i++) {
            old[i] = new Holder();
            old[i].id = i;
            hashes[i] = System.identityHashCode(old[i]);
        }
        Object[] snapshot = old.clone();
        long g = 0;
        for (int round = 0; round < 20; round++) {
            g += garbage(20000);
            for (int i = round; i < n; i += 20) {
                // A young object stored into a long-lived one: only the store keeps it alive.
                old[i].ref = new int[] {i, round};
                old[i].next = old[(i * 7 + 1) % n];
            }
        }
        boolean same = true;
        boolean hashesStable = true;
        boolean refsIntact = true;
        for (int i = 0; i < n; i++) {
            same &= snapshot[i] == old[i];
            hashesStable &= hashes[i] == System.identityHashCode(old[i]) && hashes[i] == old[i].hashCode();
            int[] r = (int[]) old[i].ref;
            refsIntact &= r != null && r[0] == i && old[i].next == old[(i * 7 + 1) % n] && old[i].next.id == (i * 7 + 1) % n;
        }
        System.out.println("garbage " + g);
        System.out.println("identity preserved " + same + ", hashes stable " + hashesStable + ", stored refs intact "
            + refsIntact);

        Map<Object, Integer> byIdentity = new HashMap<>();
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            Object k = new Object();
            keys.add(k);
            byIdentity.put(k, i);
        }
        garbage(100000);
        int found = 0;
        for (int i = 0; i < keys.size(); i++) {
            Integer v = byIdentity.get(keys.get(i));
            if (v != null && v == i) {
                found++;
            }
        }
        System.out.println("identity-keyed HashMap lookups after allocation: " + found + " of " + keys.size());

        Object lock = new Holder();
        int lockHash = lock.hashCode();
        long inside = 0;
        synchronized (lock) {
            inside += garbage(50000);
            synchronized (lock) {
                inside += garbage(10000);
            }
        }
        boolean[] got = new boolean[1];
        Thread t = new Thread(() -> {
            synchronized (lock) {
                got[0] = true;
            }
        });
        t.start();
        t.join();
        System.out.println("lock held across allocation released: " + got[0] + ", hash kept " + (lockHash == lock.hashCode())
            + ", " + inside);

        Object[] young = new Object[1000];
        for (int i = 0; i < young.length; i++) {
            young[i] = "y" + i;
        }
        Object[] target = new Object[2000];
        System.arraycopy(young, 0, target, 500, 1000);
        young = null;
        garbage(100000);
        int ok = 0;
        for (int i = 0; i < 1000; i++) {
            if (("y" + i).equals(target[500 + i])) {
                ok++;
            }
        }
        System.out.println("arraycopied references survive: " + ok + ", untouched slots null " + (target[0] == null)
            + " " + (target[1999] == null));
        Holder ring = new Holder();
        Holder cur = ring;
        for (int i = 1; i < 10000; i++) {
            Holder h = new Holder();
            h.id = i;
            cur.next = h;
            cur = h;
        }
        cur.next = ring;
        garbage(100000);
        int length = 1;
        long idSum = 0;
        for (Holder h = ring.next; h != ring; h = h.next) {
            length++;
            idSum += h.id;
        }
        System.out.println("cycle of " + length + " holders, id sum " + idSum);
    }
}
