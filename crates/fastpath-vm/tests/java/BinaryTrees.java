// tags: gc
// release: 8
// The binary-trees allocation pattern: a long-lived tree stays reachable for the whole run
// while many short-lived trees of increasing depth are built, walked and dropped; then the
// long-lived tree is walked again to prove that collections (and, on a moving collector,
// relocations) left it intact. Prints node counts and checksums.
public class BinaryTrees {
    static final class Node {
        final Node left;
        final Node right;
        final int item;

        Node(Node left, Node right, int item) {
            this.left = left;
            this.right = right;
            this.item = item;
        }

        int count() {
            return 1 + (left == null ? 0 : left.count() + right.count());
        }

        long check() {
            long c = item;
            if (left != null) {
                c += 3 * left.check() - right.check();
            }
            return c;
        }
    }

    static Node build(int depth, int item) {
        if (depth == 0) {
            return new Node(null, null, item);
        }
        return new Node(build(depth - 1, 2 * item - 1), build(depth - 1, 2 * item), item);
    }

    public static void main(String[] args) {
        int maxDepth = 14;
        Node longLived = build(maxDepth, 1);
        long longCheck = longLived.check();
        System.out.println("long-lived tree of depth " + maxDepth + ": " + longLived.count() + " nodes, check " + longCheck);
        long total = 0;
        for (int depth = 4; depth <= maxDepth - 2; depth += 2) {
            int iterations = 1 << (maxDepth - depth + 2);
            long check = 0;
            int nodes = 0;
            for (int i = 1; i <= iterations; i++) {
                Node a = build(depth, i);
                Node b = build(depth, -i);
                check += a.check() + b.check();
                nodes += a.count() + b.count();
            }
            total += nodes;
            System.out.println(iterations * 2 + " trees of depth " + depth + ": " + nodes + " nodes, check " + check);
        }
        System.out.println("short-lived nodes " + total);
        System.out.println("long-lived tree still " + longLived.count() + " nodes, check unchanged "
            + (longLived.check() == longCheck));
    }
}
