// Richards: Martin Richards' operating-system simulation (the BCPL benchmark of 1980): an
// idle task, a worker, two handlers and two devices pass packets through a priority
// scheduler. Tasks are objects with per-kind behaviour (virtual dispatch), packets are
// linked lists. With the idle task counting down from 10000 the original's invariants are
// 23246 packets queued and 9297 tasks held; the check is those two counts.
final class Richards extends Benchmark {
    static final int IDLE = 0;
    static final int WORKER = 1;
    static final int HANDLER_A = 2;
    static final int HANDLER_B = 3;
    static final int DEVICE_A = 4;
    static final int DEVICE_B = 5;
    static final int TASKS = 6;

    static final int KIND_DEVICE = 0;
    static final int KIND_WORK = 1;
    static final int BUFFER_SIZE = 4;

    static final class Packet {
        Packet link;
        int id;
        final int kind;
        int datum;
        final int[] data = new int[BUFFER_SIZE];

        Packet(Packet link, int id, int kind) {
            this.link = link;
            this.id = id;
            this.kind = kind;
        }

        // Appends this packet at the end of `queue` and returns the queue's head.
        Packet appendTo(Packet queue) {
            link = null;
            if (queue == null) {
                return this;
            }
            Packet last = queue;
            while (last.link != null) {
                last = last.link;
            }
            last.link = this;
            return queue;
        }
    }

    // A task control block: the task's state bits, its input queue and its behaviour.
    abstract static class Task {
        final Task next;
        final int id;
        final int priority;
        Packet input;
        boolean packetPending;
        boolean waiting;
        boolean held;

        Task(Task next, int id, int priority, Packet input) {
            this.next = next;
            this.id = id;
            this.priority = priority;
            this.input = input;
            this.packetPending = input != null;
        }

        boolean heldOrSuspended() {
            return held || (!packetPending && waiting);
        }

        boolean waitingWithPacket() {
            return packetPending && waiting && !held;
        }

        Task addInput(Packet packet, Task current) {
            if (input == null) {
                input = packet;
                packetPending = true;
                if (priority > current.priority) {
                    return this;
                }
            } else {
                input = packet.appendTo(input);
            }
            return current;
        }

        abstract Task step(Scheduler s, Packet packet);
    }

    static final class IdleTask extends Task {
        private int control = 1;
        private int count;

        IdleTask(Task next, int count) {
            super(next, IDLE, 0, null);
            this.count = count;
        }

        @Override
        Task step(Scheduler s, Packet packet) {
            count--;
            if (count == 0) {
                return s.holdCurrent();
            }
            if ((control & 1) == 0) {
                control >>= 1;
                return s.release(DEVICE_A);
            }
            control = (control >> 1) ^ 0xD008;
            return s.release(DEVICE_B);
        }
    }

    static final class WorkerTask extends Task {
        private int destination = HANDLER_A;
        private int letter = 0;

        WorkerTask(Task next, Packet input) {
            super(next, WORKER, 1000, input);
            waiting = true;
        }

        @Override
        Task step(Scheduler s, Packet packet) {
            if (packet == null) {
                return s.waitCurrent();
            }
            destination = destination == HANDLER_A ? HANDLER_B : HANDLER_A;
            packet.id = destination;
            packet.datum = 0;
            for (int i = 0; i < BUFFER_SIZE; i++) {
                letter = letter == 26 ? 1 : letter + 1;
                packet.data[i] = 'A' + letter - 1;
            }
            return s.queue(packet);
        }
    }

    static final class HandlerTask extends Task {
        private Packet work;
        private Packet devices;

        HandlerTask(Task next, int id, int priority, Packet input) {
            super(next, id, priority, input);
            waiting = true;
        }

        @Override
        Task step(Scheduler s, Packet packet) {
            if (packet != null) {
                if (packet.kind == KIND_WORK) {
                    work = packet.appendTo(work);
                } else {
                    devices = packet.appendTo(devices);
                }
            }
            if (work != null) {
                Packet w = work;
                int index = w.datum;
                if (index >= BUFFER_SIZE) {
                    work = w.link;
                    return s.queue(w);
                }
                if (devices != null) {
                    Packet d = devices;
                    devices = d.link;
                    d.datum = w.data[index];
                    w.datum = index + 1;
                    return s.queue(d);
                }
            }
            return s.waitCurrent();
        }
    }

    static final class DeviceTask extends Task {
        private Packet pending;

        DeviceTask(Task next, int id, int priority) {
            super(next, id, priority, null);
            waiting = true;
        }

        @Override
        Task step(Scheduler s, Packet packet) {
            if (packet == null) {
                if (pending == null) {
                    return s.waitCurrent();
                }
                Packet p = pending;
                pending = null;
                return s.queue(p);
            }
            pending = packet;
            return s.holdCurrent();
        }
    }

    static final class Scheduler {
        final Task[] table = new Task[TASKS];
        Task list;
        Task current;
        int queueCount;
        int holdCount;

        void add(Task t) {
            table[t.id] = t;
            list = t;
        }

        Task waitCurrent() {
            current.waiting = true;
            return current;
        }

        Task holdCurrent() {
            holdCount++;
            current.held = true;
            return current.next;
        }

        Task release(int id) {
            Task t = table[id];
            t.held = false;
            return t.priority > current.priority ? t : current;
        }

        Task queue(Packet packet) {
            Task target = table[packet.id];
            queueCount++;
            packet.link = null;
            packet.id = current.id;
            return target.addInput(packet, current);
        }

        void schedule() {
            current = list;
            while (current != null) {
                if (current.heldOrSuspended()) {
                    current = current.next;
                    continue;
                }
                Packet packet = null;
                if (current.waitingWithPacket()) {
                    packet = current.input;
                    current.input = packet.link;
                    current.packetPending = current.input != null;
                    current.waiting = false;
                }
                current = current.step(this, packet);
            }
        }
    }

    static int[] simulate() {
        Scheduler s = new Scheduler();
        s.add(new IdleTask(null, 10000));
        Packet work = new Packet(null, WORKER, KIND_WORK);
        work = new Packet(work, WORKER, KIND_WORK);
        s.add(new WorkerTask(s.list, work));
        Packet a = new Packet(null, DEVICE_A, KIND_DEVICE);
        a = new Packet(a, DEVICE_A, KIND_DEVICE);
        a = new Packet(a, DEVICE_A, KIND_DEVICE);
        s.add(new HandlerTask(s.list, HANDLER_A, 2000, a));
        Packet b = new Packet(null, DEVICE_B, KIND_DEVICE);
        b = new Packet(b, DEVICE_B, KIND_DEVICE);
        b = new Packet(b, DEVICE_B, KIND_DEVICE);
        s.add(new HandlerTask(s.list, HANDLER_B, 3000, b));
        s.add(new DeviceTask(s.list, DEVICE_A, 4000));
        s.add(new DeviceTask(s.list, DEVICE_B, 5000));
        s.schedule();
        return new int[] {s.queueCount, s.holdCount};
    }

    @Override
    Object run(int inner, int threads) {
        long[] totals = new long[2];
        for (int i = 0; i < inner; i++) {
            int[] r = simulate();
            totals[0] += r[0];
            totals[1] += r[1];
        }
        return totals;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("queued packets", r[0], 23246L * inner);
        return e != null ? e : expect("holds", r[1], 9297L * inner);
    }

    @Override
    int defaultInner() {
        return 20;
    }
}
