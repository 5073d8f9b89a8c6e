import java.util.ArrayList;

// Havlak: loop recognition in a control-flow graph with Havlak's algorithm ("Nesting of
// reducible and irreducible loops", TOPLAS 19(4), 1997), as in Hundt's loop-recognition
// comparison: a depth-first numbering, back and non-back predecessors, and a union-find that
// collapses each loop body into its header from the innermost loop outwards. Exercises
// ArrayList-heavy graph code, int arrays and allocation.
//
// The graph is generated with a known shape: a chain of loop nests (each loop has a header,
// a body of diamonds or inner loops, a latch with the back edge, and an exit), self-loops,
// irreducible two-entry cycles, and an unreachable region containing a cycle. The check:
// the loops found equal the loops built, the irreducible ones are recognised as such, and the
// deepest nesting equals the built depth.
final class Havlak extends Benchmark {
    static final class Block {
        final int id;
        final ArrayList<Block> in = new ArrayList<>(2);
        final ArrayList<Block> out = new ArrayList<>(2);

        Block(int id) {
            this.id = id;
        }
    }

    static final class Loop {
        final Block header;
        final boolean reducible;
        Loop parent;
        final ArrayList<Block> blocks = new ArrayList<>();
        int depth = -1;

        Loop(Block header, boolean reducible) {
            this.header = header;
            this.reducible = reducible;
        }

        int depth() {
            if (depth < 0) {
                depth = parent == null ? 1 : parent.depth() + 1;
            }
            return depth;
        }
    }

    static final class Graph {
        final ArrayList<Block> blocks = new ArrayList<>();
        int loopsBuilt;
        int irreducibleBuilt;

        Block block() {
            Block b = new Block(blocks.size());
            blocks.add(b);
            return b;
        }

        void edge(Block from, Block to) {
            from.out.add(to);
            to.in.add(from);
        }

        Block diamond(Block from) {
            Block left = block();
            Block right = block();
            Block join = block();
            edge(from, left);
            edge(from, right);
            edge(left, join);
            edge(right, join);
            return join;
        }

        // A loop nest `depth` levels deep whose non-innermost bodies hold `width` inner loops.
        Block loopNest(Block pred, int depth, int width) {
            Block header = block();
            edge(pred, header);
            Block cur = diamond(header);
            if (depth > 0) {
                for (int k = 0; k < width; k++) {
                    cur = loopNest(cur, depth - 1, width);
                }
            }
            cur = diamond(cur);
            Block latch = block();
            edge(cur, latch);
            edge(latch, header);
            Block exit = block();
            edge(latch, exit);
            loopsBuilt++;
            return exit;
        }

        Block selfLoop(Block pred) {
            Block s = block();
            edge(pred, s);
            edge(s, s);
            Block exit = block();
            edge(s, exit);
            loopsBuilt++;
            return exit;
        }

        // Two blocks entered from both sides and jumping to each other: no single header.
        Block irreducible(Block pred) {
            Block a = block();
            Block b = block();
            edge(pred, a);
            edge(pred, b);
            edge(a, b);
            edge(b, a);
            Block exit = block();
            edge(a, exit);
            edge(b, exit);
            loopsBuilt++;
            irreducibleBuilt++;
            return exit;
        }

        static Graph build(int nests, int depth, int width) {
            Graph g = new Graph();
            Block cur = g.block();
            for (int i = 0; i < nests; i++) {
                cur = g.loopNest(cur, depth, width);
                if (i % 3 == 0) {
                    cur = g.selfLoop(cur);
                }
                if (i % 5 == 0) {
                    cur = g.irreducible(cur);
                }
            }
            Block end = g.block();
            g.edge(cur, end);
            // An unreachable region with a cycle: it must not be reported.
            Block deadA = g.block();
            Block deadB = g.block();
            g.edge(deadA, deadB);
            g.edge(deadB, deadA);
            g.edge(deadB, end);
            return g;
        }
    }

    static final int NONHEADER = 0;
    static final int REDUCIBLE = 1;
    static final int SELF = 2;
    static final int IRREDUCIBLE = 3;

    static final class IntList {
        int[] items = new int[4];
        int size;

        void add(int v) {
            if (size == items.length) {
                int[] bigger = new int[size * 2];
                System.arraycopy(items, 0, bigger, 0, size);
                items = bigger;
            }
            items[size++] = v;
        }

        boolean contains(int v) {
            for (int i = 0; i < size; i++) {
                if (items[i] == v) {
                    return true;
                }
            }
            return false;
        }
    }

    static final class LoopFinder {
        final Graph graph;
        int[] number;
        int[] last;
        Block[] byNumber;
        int[] parent;

        LoopFinder(Graph graph) {
            this.graph = graph;
        }

        int find(int x) {
            int root = x;
            while (parent[root] != root) {
                root = parent[root];
            }
            while (parent[x] != root) {
                int next = parent[x];
                parent[x] = root;
                x = next;
            }
            return root;
        }

        // Iterative depth-first preorder numbering; last[n] is the last number below n.
        int numberBlocks() {
            int n = graph.blocks.size();
            number = new int[n];
            last = new int[n];
            byNumber = new Block[n];
            for (int i = 0; i < n; i++) {
                number[i] = -1;
            }
            Block[] stack = new Block[n];
            int[] nextEdge = new int[n];
            int top = 0;
            int counter = 0;
            Block start = graph.blocks.get(0);
            stack[top++] = start;
            number[start.id] = counter;
            byNumber[counter++] = start;
            while (top > 0) {
                Block b = stack[top - 1];
                int e = nextEdge[top - 1];
                if (e < b.out.size()) {
                    nextEdge[top - 1] = e + 1;
                    Block s = b.out.get(e);
                    if (number[s.id] < 0) {
                        number[s.id] = counter;
                        byNumber[counter++] = s;
                        stack[top] = s;
                        nextEdge[top] = 0;
                        top++;
                    }
                } else {
                    last[number[b.id]] = counter - 1;
                    top--;
                }
            }
            return counter;
        }

        boolean isAncestor(int w, int v) {
            return w <= v && v <= last[w];
        }

        ArrayList<Loop> findLoops() {
            int size = numberBlocks();
            IntList[] backPreds = new IntList[size];
            IntList[] nonBackPreds = new IntList[size];
            int[] type = new int[size];
            int[] headerOf = new int[size];
            Loop[] loopOf = new Loop[size];
            parent = new int[size];
            for (int w = 0; w < size; w++) {
                backPreds[w] = new IntList();
                nonBackPreds[w] = new IntList();
                parent[w] = w;
                for (Block p : byNumber[w].in) {
                    int v = number[p.id];
                    if (v < 0) {
                        continue;
                    }
                    if (isAncestor(w, v)) {
                        backPreds[w].add(v);
                    } else {
                        nonBackPreds[w].add(v);
                    }
                }
            }
            ArrayList<Loop> loops = new ArrayList<>();
            int[] poolStamp = new int[size];
            IntList pool = new IntList();
            int[] work = new int[size];
            for (int w = size - 1; w >= 0; w--) {
                pool.size = 0;
                int stamp = w + 1;
                for (int i = 0; i < backPreds[w].size; i++) {
                    int v = backPreds[w].items[i];
                    if (v == w) {
                        type[w] = SELF;
                        continue;
                    }
                    int x = find(v);
                    if (poolStamp[x] != stamp) {
                        poolStamp[x] = stamp;
                        pool.add(x);
                    }
                }
                if (pool.size > 0) {
                    type[w] = REDUCIBLE;
                }
                int workSize = 0;
                for (int i = 0; i < pool.size; i++) {
                    work[workSize++] = pool.items[i];
                }
                while (workSize > 0) {
                    int x = work[--workSize];
                    IntList preds = nonBackPreds[x];
                    for (int i = 0; i < preds.size; i++) {
                        int y = find(preds.items[i]);
                        if (!isAncestor(w, y)) {
                            type[w] = IRREDUCIBLE;
                            if (!nonBackPreds[w].contains(y)) {
                                nonBackPreds[w].add(y);
                            }
                        } else if (y != w && poolStamp[y] != stamp) {
                            poolStamp[y] = stamp;
                            pool.add(y);
                            work[workSize++] = y;
                        }
                    }
                }
                if (pool.size > 0 || type[w] == SELF) {
                    Loop loop = new Loop(byNumber[w], type[w] != IRREDUCIBLE);
                    loop.blocks.add(byNumber[w]);
                    for (int i = 0; i < pool.size; i++) {
                        int x = pool.items[i];
                        headerOf[x] = w;
                        parent[x] = w;
                        if (loopOf[x] != null) {
                            loopOf[x].parent = loop;
                        } else {
                            loop.blocks.add(byNumber[x]);
                        }
                    }
                    loopOf[w] = loop;
                    loops.add(loop);
                }
            }
            return loops;
        }
    }

    static final int NESTS = 40;
    static final int DEPTH = 3;
    static final int WIDTH = 3;

    @Override
    Object run(int inner, int threads) {
        Graph g = Graph.build(NESTS, DEPTH, WIDTH);
        long[] r = new long[5];
        for (int i = 0; i < inner; i++) {
            ArrayList<Loop> loops = new LoopFinder(g).findLoops();
            int irreducible = 0;
            int maxDepth = 0;
            long blocksInLoops = 0;
            for (Loop l : loops) {
                if (!l.reducible) {
                    irreducible++;
                }
                maxDepth = Math.max(maxDepth, l.depth());
                blocksInLoops += l.blocks.size();
            }
            r[0] += loops.size();
            r[1] += irreducible;
            r[2] = Math.max(r[2], maxDepth);
            r[3] += blocksInLoops;
        }
        r[4] = g.loopsBuilt * 1000L + g.irreducibleBuilt;
        return r;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        long built = r[4] / 1000;
        long irreducibleBuilt = r[4] % 1000;
        String e = expect("loops found", r[0], built * inner);
        if (e == null) {
            e = expect("irreducible loops found", r[1], irreducibleBuilt * inner);
        }
        if (e == null) {
            e = expect("deepest nesting", r[2], DEPTH + 1);
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 4;
    }
}
