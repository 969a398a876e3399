package io.jfio.bench.verdict;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The verdict rule. The contender with the best median is compared with the runner-up by the
 * {@link Bootstrap#CONFIDENCE} bootstrap interval of their ratio of medians (rounds resampled as pairs when the
 * contest's contenders ran interleaved); both need at least {@link #MIN_SAMPLES} repetitions. Then:
 * <ul>
 * <li>the whole interval inside the band of {@link #EQUAL_WITHIN} either way: a <b>tie</b>, decided: the two are
 * equal within that margin here, and the one to use is the simplest ({@link #simplicity}) of every contender whose
 * interval against the best lies inside the band (the better median between equally simple ones);</li>
 * <li>else the interval above 1.0: the best median <b>wins</b>;</li>
 * <li>else <b>undecided</b>, with the reason the data gives: too few repetitions, or how far apart the rounds are
 * (the per-round ratio for paired contests, each side's spread otherwise), naming CPU steal and load only when the
 * rounds do vary widely, and otherwise that the repetitions are too few for so small a difference.</li>
 * </ul>
 * A tie takes precedence over a win: an interval of 1.02-1.06 is a real difference, but one smaller than the band,
 * and the answer a user can act on is that either will do.
 *
 * <p>Thread-safe; stateless.
 */
public final class Judge {
    /** Fewer repetitions than this decide nothing: the bootstrap of two or three values is mostly their range. */
    public static final int MIN_SAMPLES = 3;
    /**
     * Rounds whose ratio varies by more than this ({@code max / min - 1}), or a side whose relative spread exceeds it,
     * vary widely: the steal and load of the experiment are then named beside them.
     */
    public static final double WIDE_SPREAD = 0.5;
    /**
     * The practical-equivalence band: two contenders whose whole interval lies within {@code 1 / (1 + x)} and
     * {@code 1 + x} are equal here. 10%: on a shared machine the same contender's median moves by 10-20% between
     * two runs minutes apart, so a smaller difference would not be the same answer in the next run, and a change of
     * I/O code for less than that is seldom worth its cost.
     */
    public static final double EQUAL_WITHIN = 0.10;

    private Judge() {
    }

    /** True when the whole interval lies inside the band of {@link #EQUAL_WITHIN} around 1.0. */
    public static boolean withinBand(RatioInterval r) {
        return r.defined() && r.low() >= 1 / (1 + EQUAL_WITHIN) && r.high() <= 1 + EQUAL_WITHIN;
    }

    /** The band as users read it: {@code 10%}. */
    public static String band() {
        return String.format(Locale.ROOT, "%.0f%%", EQUAL_WITHIN * 100);
    }

    /** Judges {@code contest}; {@code seed} makes its intervals reproducible. */
    public static Verdict judge(Contest contest, Noise noise, long seed) {
        List<Contender> ranked = ranked(contest);
        Contender jdk = contest.contenders().stream().filter(Contender::jdkDefault).filter(Contender::measured)
                .findFirst().orElse(null);
        if (ranked.isEmpty()) {
            return new Verdict(contest, noise, Verdict.Outcome.NONE, null, null, RatioInterval.NONE, jdk,
                    RatioInterval.NONE, null, RatioInterval.NONE, List.of("no contender has measurements"), "");
        }
        Contender winner = ranked.get(0);
        if (ranked.size() == 1) {
            return new Verdict(contest, noise, Verdict.Outcome.NONE, winner, null, RatioInterval.NONE, jdk,
                    RatioInterval.NONE, winner, RatioInterval.NONE, List.of("one contender measured"), "");
        }
        Contender runnerUp = ranked.get(1);
        long s = seed * 0x9E3779B97F4A7C15L + contest.workload().ordinal();
        RatioInterval over = margin(contest, winner, runnerUp, s);
        RatioInterval overJdk = jdk == null || jdk == winner ? RatioInterval.NONE
                : jdk == runnerUp ? over : margin(contest, winner, jdk, s + 1);
        int n = Math.min(winner.samples().length, runnerUp.samples().length);
        boolean enough = n >= MIN_SAMPLES;
        if (enough && withinBand(over)) {
            // every contender equal to the winner within the band is a candidate; the simplest of them is the answer
            Contender use = runnerUp;
            RatioInterval overUse = over;
            if (simplicity(winner) < simplicity(use)) {
                use = winner;
                overUse = RatioInterval.NONE;
            }
            for (int i = 2; i < ranked.size(); i++) {
                Contender c = ranked.get(i);
                if (simplicity(c) >= simplicity(use) || c.samples().length < MIN_SAMPLES) continue;
                RatioInterval r = c == jdk ? overJdk : margin(contest, winner, c, s + 1 + i);
                if (withinBand(r)) {
                    use = c;
                    overUse = r;
                }
            }
            if (simplicity(use) == simplicity(winner)) {
                use = winner;
                overUse = RatioInterval.NONE;
            }
            return new Verdict(contest, noise, Verdict.Outcome.TIE, winner, runnerUp, over, jdk, overJdk, use,
                    overUse, List.of(), "");
        }
        if (enough && over.above1()) {
            return new Verdict(contest, noise, Verdict.Outcome.WIN, winner, runnerUp, over, jdk, overJdk, winner,
                    RatioInterval.NONE, List.of(), "");
        }
        List<String> reasons = new ArrayList<>();
        String hint;
        String again = contest.events()
                ? "re-run: change detection's samples come from one window per watcher, which "
                        + "--repeat-until-stable does not extend"
                : "re-run with --repeat-until-stable to add repetitions until this is decided";
        if (!enough) {
            reasons.add(String.format(Locale.ROOT, "too few repetitions (%d; at least %d needed)", n, MIN_SAMPLES));
            hint = again;
        } else if (!over.defined()) {
            reasons.add("no ratio: a median is zero");
            hint = "";
        } else {
            boolean wide = varies(contest, winner, runnerUp, reasons);
            List<String> noisy = new ArrayList<>();
            if (wide && noise.stealing()) {
                noisy.add(String.format(Locale.ROOT, "CPU steal %.1f%% during the experiment", noise.stealPct()));
            }
            if (wide && noise.overloaded()) noisy.add(noise.overloadText());
            if (!noisy.isEmpty()) {
                reasons.add("while " + String.join(" and ", noisy));
                hint = contest.events() ? "re-run when the machine is quieter"
                        : "re-run when the machine is quieter, or with --repeat-until-stable";
            } else {
                if (!wide) {
                    reasons.add(String.format(Locale.ROOT, "the medians are %.0f%% apart, too close for %d %s to "
                            + "tell apart or to call equal within %s", (over.ratio() - 1) * 100, n,
                            contest.events() ? "events" : "repetitions", band()));
                }
                hint = again;
            }
        }
        return new Verdict(contest, noise, Verdict.Outcome.UNDECIDED, winner, runnerUp, over, jdk, overJdk, null,
                RatioInterval.NONE, reasons, hint);
    }

    /**
     * Adds to {@code reasons} how much the measurements vary, and says whether that is wide: for paired contests the
     * range of the per-round ratio (what the paired bootstrap resamples), otherwise each side's spread
     * (interquartile for events).
     */
    private static boolean varies(Contest c, Contender winner, Contender runnerUp, List<String> reasons) {
        double[] a = winner.samples();
        double[] b = runnerUp.samples();
        if (c.paired() && a.length == b.length) {
            double min = Double.POSITIVE_INFINITY;
            double max = 0;
            for (int i = 0; i < a.length; i++) {
                double r = c.higherIsBetter() ? a[i] / b[i] : b[i] / a[i];
                if (!Double.isFinite(r)) continue;
                min = Math.min(min, r);
                max = Math.max(max, r);
            }
            if (max > 0 && Double.isFinite(min)) {
                reasons.add(String.format(Locale.ROOT, "round by round %s was %sx to %sx as fast as %s", winner.name(),
                        RatioInterval.fmt(min), RatioInterval.fmt(max), runnerUp.name()));
                return min <= 0 || max / min > 1 + WIDE_SPREAD;
            }
        }
        List<String> wide = new ArrayList<>();
        boolean isWide = false;
        for (Contender k : List.of(winner, runnerUp)) {
            double sp = c.events() ? k.interquartileSpread() : k.relativeSpread();
            wide.add(String.format(Locale.ROOT, "%.0f%% for %s", sp * 100, k.name()));
            isWide |= sp > WIDE_SPREAD;
        }
        reasons.add((c.events() ? "interquartile spread " : "spread ") + String.join(" and ", wide));
        // events are hundreds of draws from one distribution: its width is theirs, not the machine's, and what
        // narrows the interval is their number
        return isWide && !c.events();
    }

    /**
     * How simple a contender is to adopt, lower first: the JDK's default way (0), another JDK call, its link the
     * JDK's javadoc (1), jfio's public API, a source file of jfio-core other than its system-call bindings (2),
     * anything else: a direct system call, code that lives in jfio-bench (3).
     */
    public static int simplicity(Contender c) {
        if (c.jdkDefault()) return 0;
        if (c.link().startsWith("https://docs.oracle.com/")) return 1;
        if (c.link().startsWith("jfio-core/") && !c.link().contains("/sys/")) return 2;
        return 3;
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
