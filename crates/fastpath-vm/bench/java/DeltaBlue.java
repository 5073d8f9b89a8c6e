import java.util.ArrayList;

// DeltaBlue: the incremental dataflow constraint solver of Freeman-Benson, Maloney and Borning
// ("An Incremental Constraint Solver", CACM 33(1), 1990). Constraints of several strengths
// (required down to weakest) connect variables; adding or removing a constraint re-plans
// incrementally by walking strengths; a plan is then executed repeatedly. Exercises
// polymorphism, ArrayList traffic and object graphs.
//
// Two workloads, each with built-in checks: a chain of `inner` equality constraints whose
// first variable is edited (the last must follow), and a projection of `inner` source/
// destination pairs through a scale-and-offset constraint, edited from both ends.
final class DeltaBlue extends Benchmark {
    // Strengths: a lower level is stronger.
    static final int REQUIRED = 0;
    static final int STRONG_PREFERRED = 1;
    static final int PREFERRED = 2;
    static final int STRONG_DEFAULT = 3;
    static final int NORMAL = 4;
    static final int WEAK_DEFAULT = 5;
    static final int WEAKEST = 6;

    static boolean stronger(int a, int b) {
        return a < b;
    }

    static boolean weaker(int a, int b) {
        return a > b;
    }

    static int weakestOf(int a, int b) {
        return weaker(a, b) ? a : b;
    }

    static final class Variable {
        int value;
        final ArrayList<Constraint> constraints = new ArrayList<>(2);
        Constraint determinedBy;
        int mark;
        int walkStrength = WEAKEST;
        boolean stay = true;

        Variable(int value) {
            this.value = value;
        }

        void addConstraint(Constraint c) {
            constraints.add(c);
        }

        void removeConstraint(Constraint c) {
            constraints.remove(c);
            if (determinedBy == c) {
                determinedBy = null;
            }
        }
    }

    abstract static class Constraint {
        final int strength;

        Constraint(int strength) {
            this.strength = strength;
        }

        abstract void addToGraph();

        abstract void removeFromGraph();

        abstract void chooseMethod(int mark);

        abstract boolean isSatisfied();

        abstract void markInputs(int mark);

        abstract Variable output();

        abstract void recalculate();

        abstract void markUnsatisfied();

        abstract boolean inputsKnown(int mark);

        abstract void execute();

        boolean isInput() {
            return false;
        }

        final void add(Planner planner) {
            addToGraph();
            planner.incrementalAdd(this);
        }

        // Satisfies this constraint if possible, returning the constraint it overrode, if any.
        final Constraint satisfy(int mark, Planner planner) {
            chooseMethod(mark);
            if (!isSatisfied()) {
                if (strength == REQUIRED) {
                    throw new IllegalStateException("could not satisfy a required constraint");
                }
                return null;
            }
            markInputs(mark);
            Variable out = output();
            Constraint overridden = out.determinedBy;
            if (overridden != null) {
                overridden.markUnsatisfied();
            }
            out.determinedBy = this;
            if (!planner.addPropagate(this, mark)) {
                throw new IllegalStateException("cycle encountered");
            }
            out.mark = mark;
            return overridden;
        }

        final void destroy(Planner planner) {
            if (isSatisfied()) {
                planner.incrementalRemove(this);
            } else {
                removeFromGraph();
            }
        }
    }

    // A constraint on one variable: keep it (stay) or set it from outside (edit).
    abstract static class UnaryConstraint extends Constraint {
        final Variable output;
        boolean satisfied;

        UnaryConstraint(Variable v, int strength, Planner planner) {
            super(strength);
            output = v;
            add(planner);
        }

        @Override
        void addToGraph() {
            output.addConstraint(this);
            satisfied = false;
        }

        @Override
        void removeFromGraph() {
            output.removeConstraint(this);
            satisfied = false;
        }

        @Override
        void chooseMethod(int mark) {
            satisfied = output.mark != mark && stronger(strength, output.walkStrength);
        }

        @Override
        boolean isSatisfied() {
            return satisfied;
        }

        @Override
        void markInputs(int mark) {
        }

        @Override
        Variable output() {
            return output;
        }

        @Override
        void recalculate() {
            output.walkStrength = strength;
            output.stay = !isInput();
            if (output.stay) {
                execute();
            }
        }

        @Override
        void markUnsatisfied() {
            satisfied = false;
        }

        @Override
        boolean inputsKnown(int mark) {
            return true;
        }

        @Override
        void execute() {
        }
    }

    static final class StayConstraint extends UnaryConstraint {
        StayConstraint(Variable v, int strength, Planner planner) {
            super(v, strength, planner);
        }
    }

    static final class EditConstraint extends UnaryConstraint {
        EditConstraint(Variable v, int strength, Planner planner) {
            super(v, strength, planner);
        }

        @Override
        boolean isInput() {
            return true;
        }
    }

    static final int NONE = 0;
    static final int FORWARD = 1;
    static final int BACKWARD = 2;

    // A constraint between two variables that can be satisfied in either direction.
    abstract static class BinaryConstraint extends Constraint {
        final Variable v1;
        final Variable v2;
        int direction = NONE;

        BinaryConstraint(Variable v1, Variable v2, int strength) {
            super(strength);
            this.v1 = v1;
            this.v2 = v2;
        }

        @Override
        void chooseMethod(int mark) {
            if (v1.mark == mark) {
                direction = v2.mark != mark && stronger(strength, v2.walkStrength) ? FORWARD : NONE;
                return;
            }
            if (v2.mark == mark) {
                direction = v1.mark != mark && stronger(strength, v1.walkStrength) ? BACKWARD : NONE;
                return;
            }
            if (weaker(v1.walkStrength, v2.walkStrength)) {
                direction = stronger(strength, v1.walkStrength) ? BACKWARD : NONE;
            } else {
                direction = stronger(strength, v2.walkStrength) ? FORWARD : BACKWARD;
            }
        }

        @Override
        void addToGraph() {
            v1.addConstraint(this);
            v2.addConstraint(this);
            direction = NONE;
        }

        @Override
        void removeFromGraph() {
            v1.removeConstraint(this);
            v2.removeConstraint(this);
            direction = NONE;
        }

        @Override
        boolean isSatisfied() {
            return direction != NONE;
        }

        @Override
        void markInputs(int mark) {
            input().mark = mark;
        }

        Variable input() {
            return direction == FORWARD ? v1 : v2;
        }

        @Override
        Variable output() {
            return direction == FORWARD ? v2 : v1;
        }

        @Override
        void recalculate() {
            Variable in = input();
            Variable out = output();
            out.walkStrength = weakestOf(strength, in.walkStrength);
            out.stay = in.stay;
            if (out.stay) {
                execute();
            }
        }

        @Override
        void markUnsatisfied() {
            direction = NONE;
        }

        @Override
        boolean inputsKnown(int mark) {
            Variable in = input();
            return in.mark == mark || in.stay || in.determinedBy == null;
        }
    }

    static final class EqualityConstraint extends BinaryConstraint {
        EqualityConstraint(Variable v1, Variable v2, int strength, Planner planner) {
            super(v1, v2, strength);
            add(planner);
        }

        @Override
        void execute() {
            output().value = input().value;
        }
    }

    // dest = src * scale + offset, or src = (dest - offset) / scale when run backward.
    static final class ScaleConstraint extends BinaryConstraint {
        final Variable scale;
        final Variable offset;

        ScaleConstraint(Variable src, Variable scale, Variable offset, Variable dest, int strength, Planner planner) {
            super(src, dest, strength);
            this.scale = scale;
            this.offset = offset;
            add(planner);
        }

        @Override
        void addToGraph() {
            super.addToGraph();
            scale.addConstraint(this);
            offset.addConstraint(this);
        }

        @Override
        void removeFromGraph() {
            super.removeFromGraph();
            scale.removeConstraint(this);
            offset.removeConstraint(this);
        }

        @Override
        void markInputs(int mark) {
            super.markInputs(mark);
            scale.mark = mark;
            offset.mark = mark;
        }

        @Override
        void execute() {
            if (direction == FORWARD) {
                v2.value = v1.value * scale.value + offset.value;
            } else {
                v1.value = (v2.value - offset.value) / scale.value;
            }
        }

        @Override
        void recalculate() {
            Variable in = input();
            Variable out = output();
            out.walkStrength = weakestOf(strength, in.walkStrength);
            out.stay = in.stay && scale.stay && offset.stay;
            if (out.stay) {
                execute();
            }
        }
    }

    static final class Planner {
        private int currentMark;

        int newMark() {
            return ++currentMark;
        }

        void incrementalAdd(Constraint c) {
            int mark = newMark();
            Constraint overridden = c.satisfy(mark, this);
            while (overridden != null) {
                overridden = overridden.satisfy(mark, this);
            }
        }

        void incrementalRemove(Constraint c) {
            Variable out = c.output();
            c.markUnsatisfied();
            c.removeFromGraph();
            ArrayList<Constraint> unsatisfied = removePropagateFrom(out);
            for (int strength = REQUIRED; strength <= WEAKEST; strength++) {
                for (Constraint u : unsatisfied) {
                    if (u.strength == strength) {
                        incrementalAdd(u);
                    }
                }
            }
        }

        ArrayList<Constraint> makePlan(ArrayList<Constraint> sources) {
            int mark = newMark();
            ArrayList<Constraint> plan = new ArrayList<>();
            ArrayList<Constraint> todo = sources;
            int next = 0;
            while (next < todo.size()) {
                Constraint c = todo.get(next++);
                Variable out = c.output();
                if (out.mark != mark && c.inputsKnown(mark)) {
                    plan.add(c);
                    out.mark = mark;
                    addConstraintsConsuming(out, todo);
                }
            }
            return plan;
        }

        ArrayList<Constraint> extractPlan(ArrayList<Constraint> constraints) {
            ArrayList<Constraint> sources = new ArrayList<>();
            for (Constraint c : constraints) {
                if (c.isInput() && c.isSatisfied()) {
                    sources.add(c);
                }
            }
            return makePlan(sources);
        }

        // Recomputes the walkabout strengths and stay flags downstream of c; false on a cycle.
        boolean addPropagate(Constraint c, int mark) {
            ArrayList<Constraint> todo = new ArrayList<>();
            todo.add(c);
            int next = 0;
            while (next < todo.size()) {
                Constraint d = todo.get(next++);
                if (d.output().mark == mark) {
                    incrementalRemove(c);
                    return false;
                }
                d.recalculate();
                addConstraintsConsuming(d.output(), todo);
            }
            return true;
        }

        ArrayList<Constraint> removePropagateFrom(Variable out) {
            out.determinedBy = null;
            out.walkStrength = WEAKEST;
            out.stay = true;
            ArrayList<Constraint> unsatisfied = new ArrayList<>();
            ArrayList<Variable> todo = new ArrayList<>();
            todo.add(out);
            int next = 0;
            while (next < todo.size()) {
                Variable v = todo.get(next++);
                for (Constraint c : v.constraints) {
                    if (!c.isSatisfied()) {
                        unsatisfied.add(c);
                    }
                }
                Constraint determining = v.determinedBy;
                for (Constraint c : v.constraints) {
                    if (c != determining && c.isSatisfied()) {
                        c.recalculate();
                        todo.add(c.output());
                    }
                }
            }
            return unsatisfied;
        }

        void addConstraintsConsuming(Variable v, ArrayList<Constraint> into) {
            Constraint determining = v.determinedBy;
            for (Constraint c : v.constraints) {
                if (c != determining && c.isSatisfied()) {
                    into.add(c);
                }
            }
        }

        // Sets v to newValue through a preferred edit constraint, running the plan 10 times.
        void change(Variable v, int newValue) {
            EditConstraint edit = new EditConstraint(v, PREFERRED, this);
            ArrayList<Constraint> edits = new ArrayList<>();
            edits.add(edit);
            ArrayList<Constraint> plan = extractPlan(edits);
            for (int i = 0; i < 10; i++) {
                v.value = newValue;
                for (Constraint c : plan) {
                    c.execute();
                }
            }
            edit.destroy(this);
        }
    }

    static String chainTest(int n) {
        Planner planner = new Planner();
        Variable[] vars = new Variable[n + 1];
        for (int i = 0; i <= n; i++) {
            vars[i] = new Variable(0);
        }
        for (int i = 0; i < n; i++) {
            new EqualityConstraint(vars[i], vars[i + 1], REQUIRED, planner);
        }
        new StayConstraint(vars[n], STRONG_DEFAULT, planner);
        EditConstraint edit = new EditConstraint(vars[0], PREFERRED, planner);
        ArrayList<Constraint> edits = new ArrayList<>();
        edits.add(edit);
        ArrayList<Constraint> plan = planner.extractPlan(edits);
        for (int i = 0; i < 100; i++) {
            vars[0].value = i;
            for (Constraint c : plan) {
                c.execute();
            }
            if (vars[n].value != i) {
                return "chain test: last variable " + vars[n].value + " after setting the first to " + i;
            }
        }
        return null;
    }

    static String projectionTest(int n) {
        Planner planner = new Planner();
        Variable scale = new Variable(10);
        Variable offset = new Variable(1000);
        Variable src = null;
        Variable dst = null;
        Variable[] dests = new Variable[n];
        for (int i = 0; i < n; i++) {
            src = new Variable(i);
            dst = new Variable(i);
            dests[i] = dst;
            new StayConstraint(src, NORMAL, planner);
            new ScaleConstraint(src, scale, offset, dst, REQUIRED, planner);
        }
        planner.change(src, 17);
        if (dst.value != 1170) {
            return "projection test 1: " + dst.value;
        }
        planner.change(dst, 1050);
        if (src.value != 5) {
            return "projection test 2: " + src.value;
        }
        planner.change(scale, 5);
        for (int i = 0; i < n - 1; i++) {
            if (dests[i].value != i * 5 + 1000) {
                return "projection test 3 at " + i + ": " + dests[i].value;
            }
        }
        planner.change(offset, 2000);
        for (int i = 0; i < n - 1; i++) {
            if (dests[i].value != i * 5 + 2000) {
                return "projection test 4 at " + i + ": " + dests[i].value;
            }
        }
        return null;
    }

    @Override
    Object run(int inner, int threads) {
        String failure = chainTest(inner);
        if (failure == null) {
            failure = projectionTest(inner);
        }
        return failure == null ? "ok" : failure;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return "ok".equals(result) ? null : (String) result;
    }

    @Override
    int defaultInner() {
        return 10000;
    }
}
