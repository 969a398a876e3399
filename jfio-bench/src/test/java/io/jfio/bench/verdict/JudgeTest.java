package io.jfio.bench.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The verdict rule on synthetic samples: known differences are decided with the right winner and margin, known
 * ties are not, the spread of the quick run's cold random reads is not, and the reasons name what stood in the way.
 */
class JudgeTest {
    private static final Noise QUIET = new Noise(0.1, 30, 0.2, 0.3, 2);

    private static Contender c(String name, boolean jdk, double... samples) {
        return new Contender(name, name + ".call()", "https://example.invalid/" + name, jdk, samples);
    }

    private static Contest contest(boolean higherIsBetter, Contender... cs) {
        return new Contest(Workload.SEQUENTIAL_READ_COLD, "64 MiB file", "GB/s", higherIsBetter, List.of(cs));
    }

    /** {@code n} values around {@code center}, spread +-{@code pct}%, seeded. */
    private static double[] around(long seed, int n, double center, double pct) {
        SplittableRandom rnd = new SplittableRandom(seed);
        return rnd.doubles(n, center * (1 - pct / 100), center * (1 + pct / 100)).toArray();
    }

    @Test
    void aClearThroughputDifferenceIsDecidedForTheFaster() {
        Contender fast = c("jfio io_uring", false, around(1, 5, 2.0, 5));
        Contender slow = c("FileChannel", true, around(2, 5, 1.0, 5));
        Verdict v = Judge.judge(contest(true, slow, fast), QUIET, 42);
        assertTrue(v.decided(), v.line());
        assertSame(fast, v.winner());
        assertSame(slow, v.runnerUp());
        assertEquals(2.0, v.overRunnerUp().ratio(), 0.15);
        assertTrue(v.overRunnerUp().low() > 1.0);
        assertTrue(v.line().contains("jfio io_uring wins by"), v.line());
        assertTrue(v.line().contains("over FileChannel (the JDK's way)"), v.line());
        assertTrue(v.reasons().isEmpty());
        assertEquals("", v.hint());
    }

    @Test
    void aLatencyDifferenceIsDecidedForTheLowerAndTheMarginIsTimesBetter() {
        Contender inotify = c("inotify+epoll", false, around(3, 200, 0.1, 30));
        Contender jdk = c("WatchService", true, around(4, 200, 2.0, 30));
        Verdict v = Judge.judge(contest(false, jdk, inotify), QUIET, 1);
        assertTrue(v.decided(), v.line());
        assertSame(inotify, v.winner());
        assertEquals(20, v.overRunnerUp().ratio(), 3);
    }

    @Test
    void aFivePercentDifferenceWithTightRepetitionsIsDecided() {
        Contender a = c("a", false, 1.05, 1.051, 1.049, 1.052, 1.048);
        Contender b = c("b", true, 1.0, 1.001, 0.999, 1.002, 0.998);
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 9);
        assertTrue(v.decided(), v.line());
        assertSame(a, v.winner());
    }

    @Test
    void aKnownTieIsNotDecided() {
        Contender a = c("a", false, around(5, 5, 1.0, 10));
        Contender b = c("b", true, around(6, 5, 1.0, 10));
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 3);
        assertFalse(v.decided(), v.line());
        assertTrue(v.line().contains("no difference measurable here"), v.line());
        assertFalse(v.reasons().isEmpty());
        assertTrue(v.hint().contains("--repeat-until-stable"), v.hint());
    }

    @Test
    void theQuickRunsColdRandomReadSpreadDecidesNothingAndSaysSo() {
        // the shape of the quick run's cold random reads: 112% and 543% relative spread, medians 1.26x apart
        Contender a = c("jfio io_uring", false, 1260, 700, 2100, 1300, 1150);
        Contender b = c("FileChannel", true, 1000, 400, 5830, 1100, 900);
        assertTrue(a.relativeSpread() > 1.0 && b.relativeSpread() > 5.0);
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 11);
        assertFalse(v.decided(), v.line());
        assertEquals(1.26, v.overRunnerUp().ratio(), 0.001);
        assertTrue(v.overRunnerUp().low() < 1.0, v.overRunnerUp().text());
        assertTrue(v.reasons().stream().anyMatch(r -> r.startsWith("spread ")), v.reasons().toString());
    }

    @Test
    void aDriftThatHitsBothSidesAlikeDoesNotHideAPairedDifference() {
        // each round the machine is 0.5x to 2x as fast, for both contenders alike; a is 10% faster in every round
        double[] drift = {1.0, 0.5, 2.0, 0.7, 1.6, 0.9, 1.3};
        double[] b = new double[drift.length];
        double[] a = new double[drift.length];
        for (int i = 0; i < drift.length; i++) {
            b[i] = drift[i];
            a[i] = drift[i] * 1.1;
        }
        Contender ca = c("a", false, a);
        Contender cb = c("b", true, b);
        Verdict paired = Judge.judge(new Contest(Workload.SEQUENTIAL_READ_COLD, "x", "GB/s", true, List.of(ca, cb),
                true), QUIET, 3);
        assertTrue(paired.decided(), paired.line());
        assertEquals(1.1, paired.overRunnerUp().low(), 1e-9);
        Verdict unpaired = Judge.judge(new Contest(Workload.SEQUENTIAL_READ_COLD, "x", "GB/s", true, List.of(ca, cb),
                false), QUIET, 3);
        assertFalse(unpaired.decided(), unpaired.line());
    }

    @Test
    void stealAndLoadAreNamedAsReasons() {
        Contender a = c("a", false, around(7, 5, 1.0, 40));
        Contender b = c("b", true, around(8, 5, 1.0, 40));
        Verdict v = Judge.judge(contest(true, a, b), new Noise(7.5, 90, 3.1, 4.2, 2), 3);
        assertFalse(v.decided());
        String all = String.join("; ", v.reasons());
        assertTrue(all.contains("CPU steal 7.5%"), all);
        assertTrue(all.contains("load average 4.20 on 2 CPUs"), all);
        assertTrue(v.hint().contains("quieter"), v.hint());
    }

    @Test
    void twoRepetitionsAreTooFewEvenForAHugeDifference() {
        Contender a = c("a", false, 10, 10.1);
        Contender b = c("b", true, 1, 1.01);
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 3);
        assertFalse(v.decided(), v.line());
        assertTrue(v.reasons().get(0).startsWith("too few repetitions (2"), v.reasons().toString());
    }

    @Test
    void oneSampleEachIsTooFew() {
        Verdict v = Judge.judge(contest(true, c("a", false, 2), c("b", true, 1)), QUIET, 3);
        assertFalse(v.decided());
        assertEquals(2.0, v.overRunnerUp().ratio());
        assertTrue(v.reasons().get(0).startsWith("too few repetitions (1"), v.reasons().toString());
    }

    @Test
    void identicalSamplesAreATie() {
        double[] s = {3, 3, 3, 3, 3};
        Verdict v = Judge.judge(contest(true, c("a", false, s), c("b", true, s.clone())), QUIET, 3);
        assertFalse(v.decided(), v.line());
        assertEquals(1.0, v.overRunnerUp().ratio());
        assertTrue(v.reasons().get(0).contains("0% apart"), v.reasons().toString());
    }

    @Test
    void zerosGiveNoRatioAndNoVerdict() {
        Verdict v = Judge.judge(contest(true, c("a", false, 0, 0, 0), c("b", true, 0, 0, 0)), QUIET, 3);
        assertFalse(v.decided());
        assertTrue(v.reasons().contains("no ratio: a median is zero"), v.reasons().toString());
    }

    @Test
    void theJdkMarginIsReportedWhenTheJdkIsThirdAndIsNotWhenItWins() {
        Contender a = c("a", false, around(9, 5, 3.0, 3));
        Contender b = c("b", false, around(10, 5, 2.0, 3));
        Contender jdk = c("FileChannel", true, around(11, 5, 1.0, 3));
        Verdict v = Judge.judge(contest(true, jdk, b, a), QUIET, 3);
        assertSame(a, v.winner());
        assertSame(jdk, v.jdk());
        assertEquals(3.0, v.overJdk().ratio(), 0.2);
        assertTrue(v.overJdk().above1());
        assertTrue(v.line().contains("vs FileChannel (the JDK's way)"), v.line());
        Verdict w = Judge.judge(contest(false, jdk, b, a), QUIET, 3); // lower is better: the JDK's way wins
        assertSame(jdk, w.winner());
        assertFalse(w.overJdk().defined());
        assertTrue(w.line().startsWith("sequential read, cold: FileChannel (the JDK's way) wins by"), w.line());
    }

    @Test
    void unmeasuredContendersAreLeftOut() {
        Contender failed = c("failed", false, Double.NaN, Double.NaN, Double.NaN);
        Contender only = c("only", true, 1, 1, 1);
        Verdict v = Judge.judge(contest(true, failed, only), QUIET, 3);
        assertSame(only, v.winner());
        assertNull(v.runnerUp());
        assertFalse(v.decided());
        assertTrue(v.line().contains("only only was measured"), v.line());
    }

    @Test
    void theSameSeedGivesTheSameVerdict() {
        Contest c = contest(true, c("a", false, around(12, 5, 1.1, 10)), c("b", true, around(13, 5, 1.0, 10)));
        assertEquals(Judge.judge(c, QUIET, 5).overRunnerUp(), Judge.judge(c, QUIET, 5).overRunnerUp());
    }
}
