// tags: basic gc
// release: 17
// Loads and stores a JIT may keep in registers across other stores (store-to-load forwarding
// and redundant loads across stores to other fields: type-based alias analysis), where the
// store in between reaches the same memory under another name: one object or array through
// two references, a field declared in a superclass written through a subclass reference,
// byte and boolean arrays, an array copied onto itself, reference fields and elements
// (with the collector's barriers on a concurrent collector), and fields of two classes at
// the same offset. Every read must see the last write to its memory. The superclass's fields
// are also read and written in a subclass with forty more reference fields, which move its
// data words (references come first in an object).
public class AliasedFields {
    static class Base {
        int x;
        long wide;
        Object ref;
    }

    static final class Sub extends Base {
        int y;
        char ch;
        Object other;
    }

    static final class Wide extends Base {
        Object r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15;
        Object r16, r17, r18, r19, r20, r21, r22, r23, r24, r25, r26, r27, r28, r29, r30, r31;
        Object r32, r33, r34, r35, r36, r37, r38, r39;
        int z;
    }

    static final class Other {
        int x;
        long wide;
    }

    static final class Node {
        int value;
        Node next;

        Node(int value) {
            this.value = value;
        }
    }

    // a and b may be one object: the second store must reach the third load.
    static int twoNames(Base a, Base b, int i) {
        a.x = i;
        int before = a.x;
        b.x = i * 3 + 1;
        a.wide += before;
        return a.x + before;
    }

    // A field of Base written through a Sub reference and read through a Base one.
    static int subclassName(Sub s, Base b, int i) {
        b.x = i;
        s.y = s.x + 2;
        s.x = s.y * 2;
        s.ch = (char) ('a' + (i & 15));
        return b.x + s.ch;
    }

    // Fields of two classes at the same offsets, both written between reads.
    static long sameOffsets(Sub s, Other o, int i) {
        s.x = i;
        o.x = i + 7;
        s.wide = s.x;
        o.wide = o.x * 2L;
        return s.x + o.x + s.wide + o.wide;
    }

    static int arrays(int[] a, int[] b, int i) {
        int k = i & 7;
        a[k] = i;
        int first = a[k];
        b[k] = first + 5;
        a[(k + 1) & 7] = a[k] * 2;
        return a[k] + first + b[(k + 1) & 7];
    }

    static int bytesAndBooleans(byte[] bytes, boolean[] flags, byte[] again, int i) {
        int k = i & 3;
        bytes[k] = (byte) i;
        flags[k] = (i & 1) == 0;
        again[k] = (byte) (bytes[k] + 1);
        return bytes[k] + (flags[k] ? 100 : 0);
    }

    static int copiedOntoItself(int[] a, int i) {
        a[0] = i;
        a[1] = i + 1;
        a[2] = i + 2;
        a[3] = i + 3;
        int was = a[1];
        System.arraycopy(a, 0, a, 1, 3);
        int now = a[1];
        a[0] = now * 2;
        return was * 31 + now + a[0] + a[3];
    }

    static int refFields(Node a, Node b, Node p, Node q) {
        a.next = p;
        Node first = a.next;
        b.next = q;
        a.value += first.value;
        return a.next.value * 100 + first.value + a.value;
    }

    static int refElements(Object[] a, Object[] b, Node p, Node q, int i) {
        int k = i & 3;
        a[k] = p;
        Object first = a[k];
        b[k] = q;
        return ((Node) a[k]).value * 10 + ((Node) first).value;
    }

    // A chain rebuilt over and over, so that collections (forced, and on a concurrent
    // collector those the allocation starts) move the nodes while fields are reused.
    static long churn(int rounds) {
        Node head = new Node(0);
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            Node n = new Node(r);
            n.next = head;
            Node kept = n.next;
            head.value += r;
            n.next = kept.next == null ? kept : kept.next;
            n.next.next = null;
            head = n;
            head.next = kept;
            sum += head.next.value + n.value;
            if ((r & 0x3fff) == 0) {
                System.gc();
            }
        }
        return sum;
    }

    static int viaCall(Base a, int i) {
        a.x = i;
        int before = a.x;
        bump(a);
        return a.x - before;
    }

    static void bump(Base b) {
        b.x += 5;
    }

    public static void main(String[] args) {
        Sub s = new Sub();
        Other o = new Other();
        Base other = new Base();
        Wide wide = new Wide();
        int[] ints = new int[8];
        int[] moreInts = new int[8];
        byte[] bytes = new byte[4];
        boolean[] flags = new boolean[4];
        Object[] objs = new Object[4];
        Object[] moreObjs = new Object[4];
        Node a = new Node(1);
        Node b = new Node(2);
        long same = 0;
        long apart = 0;
        for (int i = 0; i < 20_000; i++) {
            same += twoNames(s, s, i);
            apart += twoNames(s, other, i);
            same += twoNames(wide, wide, i);
            apart += twoNames(wide, s, i);
            wide.z += wide.x;
            wide.r39 = wide.ref;
            same += subclassName(s, s, i);
            same += sameOffsets(s, o, i);
            same += arrays(ints, ints, i);
            apart += arrays(ints, moreInts, i);
            same += bytesAndBooleans(bytes, flags, bytes, i);
            same += copiedOntoItself(ints, i);
            Node p = new Node(i);
            Node q = new Node(-i);
            same += refFields(a, a, p, q);
            apart += refFields(a, b, p, q);
            same += refElements(objs, objs, p, q, i);
            apart += refElements(objs, moreObjs, p, q, i);
            same += viaCall(s, i);
        }
        System.out.println("one memory, two names: " + same);
        System.out.println("two memories: " + apart);
        System.out.println("fields: " + s.x + " " + s.y + " " + (int) s.ch + " " + s.wide + " " + o.x + " " + o.wide
                + " " + other.x + " " + a.value + " " + b.value + " " + wide.x + " " + wide.z + " " + wide.wide);
        System.out.println("churn: " + churn(100_000));
    }
}
