// tags: gc collections
// release: 21
// A mutable object graph as the live set: 4096 records-with-edges in a HashMap keyed by
// Integer, edges rewired at random (seeded java.util.Random), cycles everywhere, nodes removed
// and re-added, while garbage subgraphs are built and dropped. A breadth-first traversal
// from fixed roots and an edge checksum are computed mid-run and at the end, and compared with
// values maintained incrementally.
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

public class GcGraph {
    static final class Vertex {
        final int id;
        final List<Vertex> out = new ArrayList<>();
        final long[] payload;

        Vertex(int id) {
            this.id = id;
            this.payload = new long[4];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = (long) id * (i + 1);
            }
        }
    }

    record Edge(int from, int to) {
    }

    static long edgeSum(Map<Integer, Vertex> graph) {
        long s = 0;
        for (int id = 0; id < 4096; id++) {
            Vertex v = graph.get(id);
            if (v == null) {
                continue;
            }
            for (Vertex w : v.out) {
                s += (long) v.id * 4099 + w.id;
            }
            s += v.payload[3] - v.id * 4L;
        }
        return s;
    }

    static int reachable(Vertex root) {
        Set<Integer> seen = new HashSet<>();
        ArrayDeque<Vertex> queue = new ArrayDeque<>();
        queue.add(root);
        seen.add(root.id);
        while (!queue.isEmpty()) {
            Vertex v = queue.poll();
            for (Vertex w : v.out) {
                if (seen.add(w.id)) {
                    queue.add(w);
                }
            }
        }
        return seen.size();
    }

    public static void main(String[] args) {
        Random rnd = new Random(1234);
        Map<Integer, Vertex> graph = new HashMap<>();
        for (int i = 0; i < 4096; i++) {
            graph.put(i, new Vertex(i));
        }
        long running = 0;
        for (int i = 0; i < 4096; i++) {
            Vertex v = graph.get(i);
            for (int e = 0; e < 3; e++) {
                Vertex w = graph.get(rnd.nextInt(4096));
                v.out.add(w);
                running += (long) v.id * 4099 + w.id;
            }
        }
        List<Edge> garbageEdges = new ArrayList<>();
        for (int step = 0; step < 30000; step++) {
            Vertex v = graph.get(rnd.nextInt(4096));
            int slot = rnd.nextInt(v.out.size());
            Vertex oldTarget = v.out.get(slot);
            Vertex newTarget = graph.get(rnd.nextInt(4096));
            v.out.set(slot, newTarget);
            running += (long) newTarget.id - oldTarget.id;
            Vertex[] junk = new Vertex[8];
            for (int j = 0; j < junk.length; j++) {
                junk[j] = new Vertex(-j);
                junk[j].out.add(junk[(j + 7) % 8] == null ? junk[j] : junk[(j + 7) % 8]);
            }
            garbageEdges.add(new Edge(v.id, newTarget.id));
            if (garbageEdges.size() > 100) {
                garbageEdges.clear();
            }
            if (step == 15000) {
                System.out.println("mid-run edge checksum matches: " + (edgeSum(graph) == running) + ", reachable from 0: "
                    + reachable(graph.get(0)));
            }
        }
        System.out.println("edge checksum " + running + " matches " + (edgeSum(graph) == running));
        System.out.println("reachable from 0: " + reachable(graph.get(0)) + ", from 4095: " + reachable(graph.get(4095)));
        System.out.println("recent edges kept " + garbageEdges.size() + ", last " + garbageEdges.get(garbageEdges.size() - 1));
    }
}
