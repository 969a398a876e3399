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
 * The verdict rule on synthetic samples: known differences are decided with the right winner and margin, known ties
 * inside the band are decided as equal with the simpler contender to use, ties too wide to call and the spread of
 * the quick run's cold random reads are undecided, and the reasons name what the data shows.
 */
class JudgeTest {
    private static final Noise QUIET = new Noise(0.1, 30, 0.2, 0.3, 2);

    private static Contender c(String name, boolean jdk, double... samples) {
        return new Contender(name, name + ".call()", "https://example.invalid/" + name, jdk, samples);
    }

    private static Contender k(Call call, String name, boolean jdk, double... samples) {
        return call.contender(name, jdk, samples);
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
    void aTwentyPercentDifferenceWithTightRepetitionsIsAWin() {
        Contender a = c("a", false, 1.20, 1.201, 1.199, 1.202, 1.198);
        Contender b = c("b", true, 1.0, 1.001, 0.999, 1.002, 0.998);
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 9);
        assertEquals(Verdict.Outcome.WIN, v.outcome(), v.line());
        assertTrue(v.decided());
        assertSame(a, v.winner());
        assertSame(a, v.recommended());
    }

    @Test
    void aRealFivePercentDifferenceIsEqualWithinTheBandAndTheJdksWayIsToUse() {
        Contender a = c("a", false, 1.05, 1.051, 1.049, 1.052, 1.048);
        Contender b = c("b", true, 1.0, 1.001, 0.999, 1.002, 0.998);
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 9);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertTrue(v.decided());
        assertTrue(v.overRunnerUp().above1(), v.overRunnerUp().text());
        assertSame(b, v.recommended());
        assertTrue(v.line().startsWith("sequential read, cold: a and b (the JDK's way) are equal within 10% here, "
                + "1.05x (95% CI "), v.line());
        assertTrue(v.line().endsWith(" (a is ahead, by less than 10%); use the simpler: b, the JDK's way"), v.line());
        assertTrue(v.reasons().isEmpty());
        assertEquals("", v.hint());
    }

    @Test
    void aKnownTieInsideTheBandIsDecidedAsEqual() {
        // like a quick run's cold random reads at depth 1: 1.01x, the rounds within a few percent of each other
        Contender mmap = k(Call.FILECHANNEL_MAP, "mmap", false, 17_400, 17_000, 17_900, 16_900, 17_300);
        Contender fc = k(Call.FILECHANNEL_READ, "FileChannel 1 thread", true,
                17_200, 16_600, 18_100, 17_000, 17_100);
        Verdict v = Judge.judge(contest(true, fc, mmap), QUIET, 4);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertTrue(Judge.withinBand(v.overRunnerUp()), v.overRunnerUp().text());
        assertFalse(v.overRunnerUp().excludes1(), v.overRunnerUp().text());
        assertSame(fc, v.recommended());
        assertTrue(v.line().endsWith("; use the simpler: FileChannel 1 thread, the JDK's way"), v.line());
    }

    @Test
    void aTieBetweenTwoJfioWaysWithTheJdksWayEqualToo() {
        Contender x = k(Call.JFIO_THREADS, "jfio threads", false, 100, 101, 99, 100, 100.5);
        Contender y = k(Call.JFIO_READ_FIXED, "jfio io_uring readFixed", false, 99, 100, 98.5, 99.5, 99);
        Contender jdk = k(Call.FILECHANNEL_READ_THREADS, "FileChannel 32 threads", true, 98, 99, 97, 98, 98.5);
        Verdict v = Judge.judge(contest(true, x, y, jdk), QUIET, 4);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertSame(jdk, v.recommended(), v.line());
        assertTrue(v.line().contains("(the JDK's way): 1.02x (95% CI "), v.line());
        assertTrue(v.line().contains(", equal within 10%; use the simpler: FileChannel 32 threads, the JDK's way"),
                v.line());
    }

    @Test
    void aTieTheJdksWayLeadsSaysSo() {
        Contender fc = k(Call.FILECHANNEL_WRITE, "FileChannel", true, 1.53, 1.55, 1.50, 1.54, 1.52);
        Contender uring = k(Call.JFIO_WRITE_ASYNC, "jfio io_uring", false, 1.49, 1.50, 1.47, 1.50, 1.48);
        Verdict v = Judge.judge(contest(true, uring, fc), QUIET, 4);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertSame(fc, v.recommended());
        assertTrue(v.line().endsWith("; use FileChannel, the JDK's way and the better median"), v.line());
    }

    @Test
    void aTieOfTwoEquallySimpleWaysNamesTheBetterMedian() {
        Contender a = k(Call.JFIO_URING_COPY, "io_uring 64 KiB x depth 16", false, 33, 33.5, 32.8, 33.1, 33);
        Contender b = k(Call.JFIO_URING_COPY, "io_uring 64 KiB x depth 64", false, 32.8, 33, 32.5, 33.2, 32.6);
        Contender jdk = k(Call.FILES_COPY, "Files.copy per file", true, 22, 22.5, 21.8, 22.2, 22);
        Verdict v = Judge.judge(contest(true, jdk, b, a), QUIET, 4);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertSame(a, v.recommended());
        assertTrue(v.line().endsWith("; either will do; use io_uring 64 KiB x depth 16, the better median"), v.line());
    }

    @Test
    void aTieRecommendsTheSimplestOfEveryContenderEqualWithinTheBand() {
        Contender a = k(Call.JFIO_URING_COPY, "io_uring 64 KiB x depth 64", false, 33, 33.5, 32.8, 33.1, 33);
        Contender b = k(Call.JFIO_URING_COPY, "io_uring 64 KiB x depth 16", false, 32.8, 33, 32.5, 33.2, 32.6);
        Contender tree = k(Call.JFIO_TREE_COPY, "jfio TreeCopy", false, 31.5, 32, 31, 31.8, 31.2);
        Contender jdk = k(Call.FILES_COPY, "Files.copy per file", true, 22, 22.5, 21.8, 22.2, 22);
        Verdict v = Judge.judge(contest(true, jdk, tree, b, a), QUIET, 4);
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertSame(tree, v.recommended());
        assertTrue(Judge.withinBand(v.overRecommended()), v.overRecommended().text());
        assertTrue(v.line().endsWith("; use the simpler: jfio TreeCopy, equal within 10% too (io_uring 64 KiB x "
                + "depth 64 vs it: " + v.overRecommended().text() + ")"), v.line());
    }

    @Test
    void otherProcessesAreNamedByTheCpuTheyUsedAndOurOwnLoadIsNot() {
        Contender a = c("jfio io_uring", false, 1260, 700, 2100, 1300, 1150);
        Contender b = c("FileChannel", true, 1000, 400, 5830, 1100, 900);
        // a load average of 9.7 that this benchmark's own threads made: other processes used 0.1 of 2 CPUs
        Verdict own = Judge.judge(contest(true, a, b), new Noise(0.1, 95, 9.7, 8.1, 2, 5.0), 11);
        assertEquals(1, own.reasons().size(), own.reasons().toString());
        assertTrue(own.hint().startsWith("re-run with --repeat-until-stable"), own.hint());
        Verdict busy = Judge.judge(contest(true, a, b), new Noise(0.1, 95, 9.7, 8.1, 2, 60.0), 11);
        assertEquals("while other processes used 1.20 of 2 CPUs (load average 9.70)", busy.reasons().get(1));
        assertTrue(busy.hint().contains("quieter"), busy.hint());
    }

    @Test
    void aTieTooWideToCallIsUndecided() {
        Contender a = c("a", false, around(5, 5, 1.0, 30));
        Contender b = c("b", true, around(6, 5, 1.0, 30));
        Verdict v = Judge.judge(contest(true, a, b), QUIET, 3);
        assertEquals(Verdict.Outcome.UNDECIDED, v.outcome(), v.line());
        assertFalse(v.decided());
        assertNull(v.recommended());
        assertFalse(Judge.withinBand(v.overRunnerUp()), v.overRunnerUp().text());
        assertTrue(v.line().contains("no difference measurable here"), v.line());
        assertTrue(v.reasons().get(0).startsWith("round by round "), v.reasons().toString());
        assertTrue(v.hint().contains("--repeat-until-stable"), v.hint());
    }

    @Test
    void aSmallDifferenceOnSteadyRoundsUnderLoadBlamesTooFewRepetitionsNotTheLoad() {
        // each round b is 1.00-1.15x a: steady, but five rounds neither separate them nor fit the band
        Contender a = c("a", true, 1.00, 1.00, 1.00, 1.00, 1.00);
        Contender b = c("b", false, 1.00, 1.04, 1.07, 1.10, 1.15);
        Verdict v = Judge.judge(contest(true, a, b), new Noise(0.1, 95, 9.7, 8.1, 2), 3);
        assertEquals(Verdict.Outcome.UNDECIDED, v.outcome(), v.line());
        String all = String.join("; ", v.reasons());
        assertFalse(all.contains("load"), all);
        assertTrue(all.contains("the medians are 7% apart, too close for 5 repetitions to tell apart or to call "
                + "equal within 10%"), all);
        assertTrue(v.hint().startsWith("re-run with --repeat-until-stable"), v.hint());
    }

    @Test
    void changeDetectionsLongTailIsQuotedByItsQuartilesNotThousandsOfPercent() {
        // per-write latencies: tens of microseconds, a few writes late by milliseconds (a busy machine)
        SplittableRandom rnd = new SplittableRandom(77);
        double[] inotify = new double[600];
        double[] jdk = new double[600];
        for (int i = 0; i < 600; i++) {
            inotify[i] = 0.030 + rnd.nextDouble() * 0.012 + (i % 97 == 0 ? 3.0 : 0);
            jdk[i] = 0.031 + rnd.nextDouble() * 0.012 + (i % 89 == 0 ? 2.5 : 0);
        }
        Contender a = k(Call.JFIO_WATCHER, "inotify+epoll", false, inotify);
        Contender b = k(Call.WATCH_SERVICE, "JDK WatchService", true, jdk);
        assertTrue(a.relativeSpread() > 50, "the range of the events is thousands of percent");
        Verdict v = Judge.judge(new Contest(Workload.CHANGE_DETECTION, "latency", "ms", false, List.of(b, a), false,
                true), new Noise(0.1, 95, 9.7, 8.1, 2), 3);
        assertTrue(v.detailLine().contains("inotify+epoll 0.0359 ms (600 events, p25-p75 0.033-0.0391)"),
                v.detailLine());
        assertFalse(v.detailLine().contains("spread"), v.detailLine());
        assertFalse(v.line().matches(".*\\d{3,}%.*"), v.line());
        if (!v.decided()) {
            assertFalse(String.join("; ", v.reasons()).contains("load"), v.reasons().toString());
            assertTrue(v.hint().contains("one window per watcher"), v.hint());
        }
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
        assertTrue(all.contains("while CPU steal 7.5% during the experiment and load average 4.20 on 2 CPUs"), all);
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
        assertEquals(Verdict.Outcome.TIE, v.outcome(), v.line());
        assertEquals(1.0, v.overRunnerUp().ratio());
        assertEquals("b", v.recommended().name());
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
