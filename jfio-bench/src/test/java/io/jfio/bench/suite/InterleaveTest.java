package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jfio.bench.verdict.Workload;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interleaving harness: contenders run repetition by repetition in turn after one unmeasured warm-up round, and
 * {@code --repeat-until-stable} adds rounds only to an undecided workload, only within its budget.
 */
class InterleaveTest {
    private static <T> T withContext(Path tmp, Duration stable, ContextUse<T> use) throws Exception {
        SuiteOptions o = SuiteOptions.defaults(tmp, 42).withScale(SuiteOptions.Scale.TINY).withStableBudget(stable);
        try (Scratch s = Scratch.create(tmp, new PrintStream(PrintStream.nullOutputStream()))) {
            SuiteContext ctx = new SuiteContext(o, s, new Progress(new PrintWriter(new StringWriter()), false),
                    Optional.empty(), null, null, "test", null, new long[] {stable.toNanos()});
            return use.apply(ctx);
        }
    }

    private interface ContextUse<T> {
        T apply(SuiteContext ctx) throws Exception;
    }

    @Test
    void armsRunInTurnRepetitionByRepetitionAfterAWarmUpRound(@TempDir Path tmp) throws Exception {
        List<String> log = new ArrayList<>();
        Interleave g = withContext(tmp, Duration.ZERO, ctx -> {
            Interleave i = ctx.interleave(3);
            for (String n : List.of("A", "B", "C")) {
                int[] k = {0};
                i.arm(n, () -> log.add("setup " + n), () -> {
                    log.add(n);
                    return k[0]++;
                });
            }
            return i.run();
        });
        List<String> want = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            for (String n : List.of("A", "B", "C")) {
                want.add("setup " + n);
                want.add(n);
            }
        }
        assertEquals(want, log);
        assertEquals(3, g.rounds());
        assertArrayEquals(new double[] {1, 2, 3}, g.samples(0)); // the warm-up's 0 is not a sample
        assertArrayEquals(new double[] {1, 2, 3}, g.samples(2));
    }

    @Test
    void repeatUntilStableAddsRoundsToATieUpToTheCap(@TempDir Path tmp) throws Exception {
        Interleave g = withContext(tmp, Duration.ofSeconds(30), ctx -> {
            Interleave i = ctx.interleave(5);
            SplittableRandom rnd = new SplittableRandom(7);
            i.arm("a", () -> { }, () -> 1 + rnd.nextDouble(0.5));
            i.arm("b", () -> { }, () -> 1 + rnd.nextDouble(0.5));
            i.reference("fio", () -> { }, () -> 100);
            return i.decides(Workload.SEQUENTIAL_READ_HOT, true).run();
        });
        assertEquals(SuiteOptions.MAX_REPS, g.rounds());
        assertEquals(SuiteOptions.MAX_REPS - 5, g.extraRounds());
        assertEquals(SuiteOptions.MAX_REPS, g.samples(2).length); // references run in the extra rounds too
    }

    @Test
    void repeatUntilStableStopsOnceDecided(@TempDir Path tmp) throws Exception {
        Interleave g = withContext(tmp, Duration.ofSeconds(30), ctx -> {
            Interleave i = ctx.interleave(5);
            SplittableRandom rnd = new SplittableRandom(8);
            i.arm("fast", () -> { }, () -> 2 + rnd.nextDouble(0.1));
            i.arm("slow", () -> { }, () -> 1 + rnd.nextDouble(0.1));
            return i.decides(Workload.SEQUENTIAL_READ_HOT, true).run();
        });
        assertEquals(5, g.rounds());
        assertEquals(0, g.extraRounds());
    }

    @Test
    void withoutTheOptionOrOutsideAVerdictNoRoundIsAdded(@TempDir Path tmp) throws Exception {
        Interleave off = withContext(tmp, Duration.ZERO, ctx -> {
            Interleave i = ctx.interleave(5);
            i.arm("a", () -> { }, () -> 1);
            i.arm("b", () -> { }, () -> 1);
            return i.decides(Workload.SEQUENTIAL_READ_HOT, true).run();
        });
        assertEquals(5, off.rounds());
        Interleave notAVerdict = withContext(tmp, Duration.ofSeconds(30), ctx -> {
            Interleave i = ctx.interleave(5);
            i.arm("a", () -> { }, () -> 1);
            i.arm("b", () -> { }, () -> 1);
            return i.run();
        });
        assertEquals(5, notAVerdict.rounds());
    }

    @Test
    void anExhaustedBudgetAddsNoRound(@TempDir Path tmp) throws Exception {
        Interleave g = withContext(tmp, Duration.ofNanos(1), ctx -> {
            ctx.spendStable(1);
            Interleave i = ctx.interleave(5);
            i.arm("a", () -> { }, () -> 1);
            i.arm("b", () -> { }, () -> 1);
            return i.decides(Workload.SEQUENTIAL_READ_HOT, true).run();
        });
        assertEquals(5, g.rounds());
    }
}
