package io.jfio.bench.verdict;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The verdict rule: the contender with the best median wins only when the {@link Bootstrap#CONFIDENCE} bootstrap
 * interval of its ratio of medians over the runner-up excludes 1.0 (rounds resampled as pairs when the contest's
 * contenders ran interleaved), and both have at least {@link #MIN_SAMPLES}
 * repetitions; otherwise the workload reads "no difference measurable here" with the reasons: too few
 * repetitions, the spread of either side, CPU steal or load during the experiment, or, when none of those stands
 * out, that the medians are closer than the repetitions resolve.
 *
 * <p>Thread-safe; stateless.
 */
public final class Judge {
    /** Fewer repetitions than this decide nothing: the bootstrap of two or three values is mostly their range. */
    public static final int MIN_SAMPLES = 3;
    /** A relative spread ((max - min) / median) above this is named as a reason. */
    public static final double WIDE_SPREAD = 0.5;

    private Judge() {
    }

    /** Judges {@code contest}; {@code seed} makes its intervals reproducible. */
    public static Verdict judge(Contest contest, Noise noise, long seed) {
        List<Contender> ranked = ranked(contest);
        Contender jdk = contest.contenders().stream().filter(Contender::jdkDefault).filter(Contender::measured)
                .findFirst().orElse(null);
        if (ranked.isEmpty()) {
            return new Verdict(contest, noise, false, null, null, RatioInterval.NONE, jdk, RatioInterval.NONE,
                    List.of("no contender has measurements"));
        }
        Contender winner = ranked.get(0);
        if (ranked.size() == 1) {
            return new Verdict(contest, noise, false, winner, null, RatioInterval.NONE, jdk, RatioInterval.NONE,
                    List.of("one contender measured"));
        }
        Contender runnerUp = ranked.get(1);
        long s = seed * 0x9E3779B97F4A7C15L + contest.workload().ordinal();
        RatioInterval over = margin(contest, winner, runnerUp, s);
        RatioInterval overJdk = jdk == null || jdk == winner ? RatioInterval.NONE
                : jdk == runnerUp ? over : margin(contest, winner, jdk, s + 1);
        List<String> reasons = new ArrayList<>();
        int n = Math.min(winner.samples().length, runnerUp.samples().length);
        boolean enough = n >= MIN_SAMPLES;
        boolean decided = enough && over.above1();
        if (!decided) {
            if (!enough) {
                reasons.add(String.format(Locale.ROOT, "too few repetitions (%d; at least %d needed)", n,
                        MIN_SAMPLES));
            }
            if (!over.defined()) reasons.add("no ratio: a median is zero");
            List<String> wide = new ArrayList<>();
            for (Contender c : List.of(winner, runnerUp)) {
                if (c.relativeSpread() > WIDE_SPREAD) {
                    wide.add(String.format(Locale.ROOT, "%.0f%% for %s", c.relativeSpread() * 100, c.name()));
                }
            }
            if (!wide.isEmpty()) reasons.add("spread " + String.join(" and ", wide));
            if (noise.stealing()) {
                reasons.add(String.format(Locale.ROOT, "CPU steal %.1f%% during the experiment", noise.stealPct()));
            }
            if (noise.overloaded()) {
                reasons.add(String.format(Locale.ROOT, "load average %s on %d CPUs",
                        RatioInterval.fmt(Math.max(noise.loadStart(), noise.loadEnd())), noise.cpus()));
            }
            if (reasons.isEmpty()) {
                reasons.add(String.format(Locale.ROOT, "the medians are %.0f%% apart, within what the %d "
                        + "repetitions vary", (over.ratio() - 1) * 100, n));
            }
        }
        return new Verdict(contest, noise, decided, winner, runnerUp, over, jdk, overJdk, reasons);
    }

    /** How many times better {@code a} is than {@code b}, with its interval. */
    static RatioInterval margin(Contest c, Contender a, Contender b, long seed) {
        double[] num = c.higherIsBetter() ? a.samples() : b.samples();
        double[] den = c.higherIsBetter() ? b.samples() : a.samples();
        return c.paired() ? Bootstrap.pairedRatioOfMedians(num, den, seed, Bootstrap.RESAMPLES)
                : Bootstrap.ratioOfMedians(num, den, seed);
    }

    /** The measured contenders, best median first (ties keep the contest's order). */
    static List<Contender> ranked(Contest c) {
        Comparator<Contender> byMedian = Comparator.comparingDouble(Contender::median);
        return c.contenders().stream().filter(Contender::measured)
                .sorted(c.higherIsBetter() ? byMedian.reversed() : byMedian).toList();
    }
}
