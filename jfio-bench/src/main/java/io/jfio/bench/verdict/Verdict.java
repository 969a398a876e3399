package io.jfio.bench.verdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one workload's contest says: the best contender, its margin over the runner-up and over the JDK's default
 * way, each with its bootstrap interval, and the outcome ({@link Judge}): a win (the interval over the runner-up
 * lies above 1.0), a tie (it lies inside the band of {@link Judge#EQUAL_WITHIN}: equal here, use the simpler), or
 * undecided (with the reasons from the data and a re-run hint). Margins are "times better": throughput over
 * throughput, or latency of the other over latency of the winner.
 *
 * <p>Immutable.
 *
 * @param contest      what was judged
 * @param noise        the experiment's steal and load
 * @param outcome      win, tie, undecided, or none (fewer than two contenders measured)
 * @param winner       the contender with the best median (null when none was measured)
 * @param runnerUp     the second best (null with fewer than two measured)
 * @param overRunnerUp the winner's margin over the runner-up
 * @param jdk          the JDK's default way (null when it was not measured)
 * @param overJdk      the winner's margin over it ({@link RatioInterval#NONE} when the winner is the JDK's way)
 * @param recommended  the contender to use: the winner of a win, the simplest of the equal ones of a tie, null when
 *                     undecided
 * @param overRecommended the winner's margin over {@code recommended} ({@link RatioInterval#NONE} when it is the
 *                     winner)
 * @param reasons      why the contest is undecided (empty when decided)
 * @param hint         the re-run hint of an undecided line ("" otherwise)
 */
public record Verdict(Contest contest, Noise noise, Outcome outcome, Contender winner, Contender runnerUp,
                      RatioInterval overRunnerUp, Contender jdk, RatioInterval overJdk, Contender recommended,
                      RatioInterval overRecommended, List<String> reasons, String hint) {
    /** What the contest decided. */
    public enum Outcome {
        /** The best median is better beyond the interval. */
        WIN,
        /** The best two are equal within {@link Judge#EQUAL_WITHIN}. */
        TIE,
        /** The interval is too wide to say either. */
        UNDECIDED,
        /** Fewer than two contenders were measured. */
        NONE;

        /** The name in results.json. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Verdict {
        reasons = List.copyOf(reasons);
    }

    /** True for a win or a tie: the line gives an answer to act on. */
    public boolean decided() {
        return outcome == Outcome.WIN || outcome == Outcome.TIE;
    }

    /** The workload's line name. */
    public String title() {
        return contest.workload().title();
    }

    /** The verdict in one line of plain text. */
    public String line() {
        String t = title() + ": ";
        if (winner == null) return t + "not measured (" + String.join("; ", reasons) + ")";
        if (runnerUp == null) return t + "only " + winner.name() + " was measured, nothing to compare";
        StringBuilder sb = new StringBuilder(t);
        if (outcome == Outcome.WIN) {
            sb.append(winner.name()).append(jdkMark(winner)).append(" wins by ").append(overRunnerUp.text())
                    .append(" over ").append(runnerUp.name()).append(jdkMark(runnerUp));
        } else if (outcome == Outcome.TIE) {
            sb.append(winner.name()).append(jdkMark(winner)).append(" and ").append(runnerUp.name())
                    .append(jdkMark(runnerUp)).append(" are equal within ").append(Judge.band()).append(" here, ")
                    .append(overRunnerUp.text());
            if (overRunnerUp.above1()) {
                sb.append(" (").append(winner.name()).append(" is ahead, by less than ").append(Judge.band())
                        .append(')');
            }
        } else {
            sb.append("no difference measurable here between ").append(winner.name()).append(" and ")
                    .append(runnerUp.name()).append(", ").append(overRunnerUp.text()).append(": ")
                    .append(String.join(", ", reasons));
        }
        if (jdk != null && jdk != winner && jdk != runnerUp) {
            sb.append("; ").append(winner.name()).append(" vs ").append(jdk.name()).append(" (the JDK's way): ")
                    .append(overJdk.text());
            if (Judge.withinBand(overJdk)) {
                sb.append(", equal within ").append(Judge.band());
            } else if (!overJdk.excludes1()) {
                sb.append(", no difference measurable");
            }
        }
        if (outcome == Outcome.TIE) sb.append("; ").append(advice());
        return sb.toString();
    }

    /** For a tie: which to use and why ({@code use FileChannel, the JDK's way}). */
    public String advice() {
        if (outcome != Outcome.TIE || recommended == null) return "";
        if (recommended == winner) {
            return recommended.jdkDefault() ? "use " + recommended.name() + ", the JDK's way and the better median"
                    : "either will do; use " + recommended.name() + ", the better median";
        }
        int simplest = Judge.simplicity(recommended);
        String s = "use the simpler: " + recommended.name() + (recommended.jdkDefault() ? ", the JDK's way"
                : simplest == 1 ? ", plain JDK" : "");
        if (recommended != runnerUp && recommended != jdk) {
            s += ", equal within " + Judge.band() + " too (" + winner.name() + " vs it: " + overRecommended.text()
                    + ")";
        }
        return s;
    }

    private static String jdkMark(Contender c) {
        return c.jdkDefault() ? " (the JDK's way)" : "";
    }

    /** Median and spread of every contender, best first. */
    public String detailLine() {
        List<Contender> c = ranked();
        StringBuilder sb = new StringBuilder(contest.detail()).append(", ").append(noise.text()).append(": ");
        for (int i = 0; i < c.size(); i++) {
            Contender k = c.get(i);
            if (i > 0) sb.append(", ");
            if (contest.events()) {
                sb.append(String.format(Locale.ROOT, "%s %s %s (%d events, p25-p75 %s-%s)", k.name(),
                        value(k.median()), contest.unit(), k.samples().length, value(k.quantile(0.25)),
                        value(k.quantile(0.75))));
            } else {
                sb.append(String.format(Locale.ROOT, "%s %s %s (n=%d, spread %.0f%%)", k.name(),
                        value(k.median()), contest.unit(), k.samples().length, k.relativeSpread() * 100));
            }
        }
        return sb.toString();
    }

    /** A measured value to three significant digits ({@code 0.0362}, {@code 17,400}); {@code -} when not finite. */
    static String value(double v) {
        if (!Double.isFinite(v)) return "-";
        if (Math.abs(v) >= 1000) return String.format(Locale.ROOT, "%,.0f", v);
        return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }

    /** The measured contenders, best median first. */
    public List<Contender> ranked() {
        return Judge.ranked(contest);
    }

    /** The verdict as a JSON-ready map (docs/BENCH-RESULTS.md). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", contest.workload().key());
        m.put("title", title());
        m.put("experiment", contest.workload().experiment());
        m.put("detail", contest.detail());
        m.put("unit", contest.unit());
        m.put("higher_is_better", contest.higherIsBetter());
        m.put("paired", contest.paired());
        m.put("outcome", outcome.key());
        m.put("decided", decided());
        m.put("equal_within", Judge.EQUAL_WITHIN);
        m.put("winner", winner == null ? null : winner.name());
        m.put("runner_up", runnerUp == null ? null : runnerUp.name());
        m.put("over_runner_up", interval(overRunnerUp));
        m.put("jdk_default", jdk == null ? null : jdk.name());
        m.put("over_jdk_default", interval(overJdk));
        m.put("reasons", new ArrayList<Object>(reasons));
        m.put("hint", hint);
        m.put("line", line());
        m.put("use", recommended == null ? null : recommended.name());
        m.put("over_use", interval(overRecommended));
        m.put("code", recommended == null ? null : recommended.code());
        m.put("link", recommended == null ? null : recommended.link());
        m.put("noise", noise.toMap());
        List<Object> cs = new ArrayList<>();
        for (Contender c : contest.contenders()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("name", c.name());
            cm.put("jdk_default", c.jdkDefault());
            cm.put("code", c.code());
            cm.put("link", c.link());
            cm.put("median", c.median());
            cm.put("samples", c.samples());
            cs.add(cm);
        }
        m.put("contenders", cs);
        return m;
    }

    private static Map<String, Object> interval(RatioInterval r) {
        if (!r.defined()) return null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ratio", r.ratio());
        m.put("ci_low", r.low());
        m.put("ci_high", r.high());
        return m;
    }
}
