package io.jfio.bench.suite;

import io.jfio.bench.Stats;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Judge;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * The contenders of one workload measured repetition by repetition, in turn (A B C A B C ...), so that a drift of
 * the machine (another job starting, the host's cache of a virtual disk filling) weighs on all of them alike. A
 * round runs every arm once, each after its untimed setup; the first round is an unmeasured warm-up, then
 * {@code reps} measured rounds follow. Arms are contenders (judged) or references (fio: measured the same way,
 * never judged). Under {@code --repeat-until-stable} a group that backs a workload's verdict keeps adding rounds
 * while that verdict is undecided, up to {@link SuiteOptions#MAX_REPS} repetitions and while the run's budget for
 * extra repetitions lasts.
 *
 * <p>Not thread-safe; owned by the experiment thread.
 */
public final class Interleave {
    private final SuiteContext ctx;
    private final int reps;
    private final List<Arm> arms = new ArrayList<>();
    private Workload workload;
    private boolean higherIsBetter = true;
    private int rounds;
    private int extraRounds;

    private record Arm(String name, boolean contender, Measure.Setup setup, Measure.Rep rep, List<Double> values) {
    }

    Interleave(SuiteContext ctx, int reps) {
        if (reps < 1) throw new IllegalArgumentException("reps must be at least 1: reps=" + reps);
        this.ctx = ctx;
        this.reps = reps;
    }

    /** Adds a contender; returns its index for {@link #samples(int)}. */
    public int arm(String name, Measure.Setup setup, Measure.Rep rep) {
        arms.add(new Arm(name, true, setup, rep, new ArrayList<>()));
        return arms.size() - 1;
    }

    /** Adds a reference (fio): measured in the same rounds, never judged. */
    public int reference(String name, Measure.Setup setup, Measure.Rep rep) {
        arms.add(new Arm(name, false, setup, rep, new ArrayList<>()));
        return arms.size() - 1;
    }

    /**
     * Marks the group as the one that decides {@code w}: under {@code --repeat-until-stable} it keeps adding rounds
     * until the verdict over its contenders is decided.
     */
    public Interleave decides(Workload w, boolean higherIsBetterValues) {
        this.workload = w;
        this.higherIsBetter = higherIsBetterValues;
        return this;
    }

    /** Runs the warm-up round, the measured rounds, and any extra ones; returns this. */
    public Interleave run() throws Exception {
        if (arms.isEmpty()) return this;
        round(false);
        for (int r = 0; r < reps; r++) round(true);
        if (workload != null && ctx.options().untilStable()) {
            while (rounds < SuiteOptions.MAX_REPS && !decided()) {
                long t0 = System.nanoTime();
                if (ctx.stableNanosLeft() <= 0) break;
                ctx.status("--repeat-until-stable: " + workload.title() + ", repetition " + (rounds + 1));
                round(true);
                extraRounds++;
                ctx.spendStable(System.nanoTime() - t0);
            }
        }
        return this;
    }

    private void round(boolean measured) throws Exception {
        for (Arm a : arms) {
            ctx.checkStopping();
            a.setup.run();
            double v = a.rep.run();
            if (measured) a.values.add(v);
        }
        if (measured) rounds++;
    }

    private boolean decided() {
        List<Contender> cs = new ArrayList<>();
        for (int i = 0; i < arms.size(); i++) {
            if (arms.get(i).contender) cs.add(new Contender(arms.get(i).name, "", "", false, samples(i)));
        }
        if (cs.size() < 2) return true;
        return Judge.judge(new Contest(workload, "", "", higherIsBetter, cs), Noise.UNKNOWN, ctx.options().seed())
                .decided();
    }

    /** The measured values of arm {@code i}, one per round, in order. */
    public double[] samples(int i) {
        return arms.get(i).values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Median and spread of arm {@code i}. */
    public Stats.Summary summary(int i) {
        return Stats.summarize(samples(i));
    }

    /** Measured rounds so far. */
    public int rounds() {
        return rounds;
    }

    /** Rounds added by {@code --repeat-until-stable}. */
    public int extraRounds() {
        return extraRounds;
    }
}
