import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;

// CD: collision detection for simulated aircraft, after Titzer and Vitek's CD_j: every
// frame each aircraft moves along a straight segment; segments are hashed into a grid of
// voxels (each registered in every voxel its bounding box, grown by the collision radius,
// touches), and only segments sharing a voxel are tested. Two aircraft collide in a frame
// if their closest approach during the frame is within the radius (a quadratic solved
// exactly; only + - * / on doubles, so results are bit-identical on every JVM). Exercises
// double arithmetic, HashMap/HashSet/ArrayList and boxing.
//
// The check: the last frame's collisions are recounted by brute force over all pairs, and the
// total over the default 100 frames must be the value found when the benchmark was written
// (622; a brute-force count of every frame, and an independent implementation, gave the same).
final class CD extends Benchmark {
    static final int AIRCRAFT = 400;
    static final double AREA = 400.0;
    static final double RADIUS = 1.0;
    static final double VOXEL = 10.0;
    static final long TOTAL_FOR_100_FRAMES = 622;

    static final class Motion {
        final int id;
        final double x0;
        final double y0;
        final double z;
        final double x1;
        final double y1;

        Motion(int id, double x0, double y0, double z, double x1, double y1) {
            this.id = id;
            this.x0 = x0;
            this.y0 = y0;
            this.z = z;
            this.x1 = x1;
            this.y1 = y1;
        }

        boolean collidesWith(Motion o) {
            double dz = z - o.z;
            double dx = x0 - o.x0;
            double dy = y0 - o.y0;
            double vx = (x1 - x0) - (o.x1 - o.x0);
            double vy = (y1 - y0) - (o.y1 - o.y0);
            double vv = vx * vx + vy * vy;
            double s = 0;
            if (vv > 0) {
                s = -(dx * vx + dy * vy) / vv;
                if (s < 0) {
                    s = 0;
                } else if (s > 1) {
                    s = 1;
                }
            }
            double cx = dx + s * vx;
            double cy = dy + s * vy;
            return cx * cx + cy * cy + dz * dz <= RADIUS * RADIUS;
        }
    }

    static final class Aircraft {
        double x;
        double y;
        final double z;
        final double vx;
        final double vy;

        Aircraft(Lcg random) {
            x = random.next(40000) / 100.0;
            y = random.next(40000) / 100.0;
            z = random.next(3) * 0.5;
            vx = (random.next(1601) - 800) / 100.0;
            vy = (random.next(1601) - 800) / 100.0;
        }

        Motion step(int id) {
            if (x < 0) {
                x += AREA;
            } else if (x >= AREA) {
                x -= AREA;
            }
            if (y < 0) {
                y += AREA;
            } else if (y >= AREA) {
                y -= AREA;
            }
            Motion m = new Motion(id, x, y, z, x + vx, y + vy);
            x += vx;
            y += vy;
            return m;
        }
    }

    static int detect(ArrayList<Motion> motions) {
        HashMap<Long, ArrayList<Motion>> voxels = new HashMap<>();
        for (Motion m : motions) {
            int minX = (int) Math.floor((Math.min(m.x0, m.x1) - RADIUS) / VOXEL);
            int maxX = (int) Math.floor((Math.max(m.x0, m.x1) + RADIUS) / VOXEL);
            int minY = (int) Math.floor((Math.min(m.y0, m.y1) - RADIUS) / VOXEL);
            int maxY = (int) Math.floor((Math.max(m.y0, m.y1) + RADIUS) / VOXEL);
            for (int vx = minX; vx <= maxX; vx++) {
                for (int vy = minY; vy <= maxY; vy++) {
                    Long key = (long) vx * 1_000_003L + vy;
                    ArrayList<Motion> list = voxels.get(key);
                    if (list == null) {
                        list = new ArrayList<>();
                        voxels.put(key, list);
                    }
                    list.add(m);
                }
            }
        }
        HashSet<Long> collisions = new HashSet<>();
        for (ArrayList<Motion> list : voxels.values()) {
            for (int i = 0; i < list.size(); i++) {
                Motion a = list.get(i);
                for (int j = i + 1; j < list.size(); j++) {
                    Motion b = list.get(j);
                    if (a.collidesWith(b)) {
                        int lo = Math.min(a.id, b.id);
                        int hi = Math.max(a.id, b.id);
                        collisions.add((long) lo * AIRCRAFT + hi);
                    }
                }
            }
        }
        return collisions.size();
    }

    static int bruteForce(ArrayList<Motion> motions) {
        int count = 0;
        for (int i = 0; i < motions.size(); i++) {
            for (int j = i + 1; j < motions.size(); j++) {
                if (motions.get(i).collidesWith(motions.get(j))) {
                    count++;
                }
            }
        }
        return count;
    }

    static final class Result {
        long total;
        int lastFrame;
        ArrayList<Motion> lastMotions;
    }

    @Override
    Object run(int inner, int threads) {
        Lcg random = new Lcg(1313);
        Aircraft[] aircraft = new Aircraft[AIRCRAFT];
        for (int i = 0; i < AIRCRAFT; i++) {
            aircraft[i] = new Aircraft(random);
        }
        Result r = new Result();
        for (int frame = 0; frame < inner; frame++) {
            ArrayList<Motion> motions = new ArrayList<>(AIRCRAFT);
            for (int i = 0; i < AIRCRAFT; i++) {
                motions.add(aircraft[i].step(i));
            }
            r.lastFrame = detect(motions);
            r.total += r.lastFrame;
            r.lastMotions = motions;
        }
        return r;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        Result r = (Result) result;
        String e = expect("collisions in the last frame (voxels vs all pairs)", r.lastFrame, bruteForce(r.lastMotions));
        if (e == null && inner == 100) {
            e = expect("collisions over 100 frames", r.total, TOTAL_FOR_100_FRAMES);
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 100;
    }
}
