package io.jfio.bench.verdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one workload's contest says: the best contender, its margin over the runner-up and over the JDK's default
 * way, each with its bootstrap interval, and whether the margin over the runner-up is real (the interval excludes
 * 1.0). Margins are "times better": throughput over throughput, or latency of the other over latency of the winner.
 *
 * <p>Immutable.
 *
 * @param contest   what was judged
 * @param noise     the experiment's steal and load
 * @param decided   true when the winner beats the runner-up beyond the interval
 * @param winner    the contender with the best median (null when none was measured)
 * @param runnerUp  the second best (null with fewer than two measured)
 * @param overRunnerUp the winner's margin over the runner-up
 * @param jdk       the JDK's default way (null when it was not measured)
 * @param overJdk   the winner's margin over it ({@link RatioInterval#NONE} when the winner is the JDK's way)
 * @param reasons   why the contest is undecided (empty when decided)
 */
public record Verdict(Contest contest, Noise noise, boolean decided, Contender winner, Contender runnerUp,
                      RatioInterval overRunnerUp, Contender jdk, RatioInterval overJdk, List<String> reasons) {
    public Verdict {
        reasons = List.copyOf(reasons);
    }

    /** The workload's line name. */
    public String title() {
        return contest.workload().title();
    }

    /** The hint printed under an undecided line. */
    public String hint() {
        if (decided) return "";
        if (winner == null || runnerUp == null) return "";
        if (noise.stealing() || noise.overloaded()) {
            return "re-run when the machine is quieter, or with --repeat-until-stable";
        }
        return "re-run with --repeat-until-stable to add repetitions until this is decided";
    }

    /** The verdict in one line of plain text. */
    public String line() {
        String t = title() + ": ";
        if (winner == null) return t + "not measured (" + String.join("; ", reasons) + ")";
        if (runnerUp == null) return t + "only " + winner.name() + " was measured, nothing to compare";
        StringBuilder sb = new StringBuilder(t);
        if (decided) {
            sb.append(winner.name()).append(winner.jdkDefault() ? " (the JDK's way)" : "").append(" wins by ")
                    .append(overRunnerUp.text()).append(" over ").append(runnerUp.name())
                    .append(runnerUp.jdkDefault() ? " (the JDK's way)" : "");
        } else {
            sb.append("no difference measurable here between ").append(winner.name()).append(" and ")
                    .append(runnerUp.name()).append(", ").append(overRunnerUp.text()).append(": ")
                    .append(String.join(", ", reasons));
        }
        if (jdk != null && jdk != winner && jdk != runnerUp) {
            sb.append("; ").append(winner.name()).append(" vs ").append(jdk.name()).append(" (the JDK's way): ")
                    .append(overJdk.text());
            if (!overJdk.excludes1()) sb.append(", no difference measurable");
        }
        return sb.toString();
    }

    /** Median and spread of every contender, best first. */
    public String detailLine() {
        List<Contender> c = ranked();
        StringBuilder sb = new StringBuilder(contest.detail()).append(", ").append(noise.text()).append(": ");
        for (int i = 0; i < c.size(); i++) {
            Contender k = c.get(i);
            if (i > 0) sb.append(", ");
            sb.append(String.format(Locale.ROOT, "%s %s %s (n=%d, spread %.0f%%)", k.name(),
                    RatioInterval.fmt(k.median()), contest.unit(), k.samples().length, k.relativeSpread() * 100));
        }
        return sb.toString();
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
        m.put("decided", decided);
        m.put("winner", winner == null ? null : winner.name());
        m.put("runner_up", runnerUp == null ? null : runnerUp.name());
        m.put("over_runner_up", interval(overRunnerUp));
        m.put("jdk_default", jdk == null ? null : jdk.name());
        m.put("over_jdk_default", interval(overJdk));
        m.put("reasons", new ArrayList<Object>(reasons));
        m.put("hint", hint());
        m.put("line", line());
        m.put("code", winner == null ? null : winner.code());
        m.put("link", winner == null ? null : winner.link());
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
