package io.jfio.bench.suite;

import io.jfio.bench.JsonText;
import io.jfio.bench.verdict.Bootstrap;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Judge;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.RatioInterval;
import io.jfio.bench.verdict.Verdict;
import io.jfio.bench.verdict.Workload;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code jfio bench --compare}: two runs' results.json side by side (two machines, two kernels, before and after an
 * upgrade). For every workload both measured: each run's verdict, judged again from its samples with this version's
 * rule ({@link Judge}, the file's own seed), so that two files of different versions are read alike; whether the
 * answer is the same; and for every contender both ran the ratio of its medians (new over old, as "times better in
 * the new run") with the same bootstrap interval and the same rule: a change only when the interval excludes 1.0,
 * "no change" when it lies within {@link Judge#EQUAL_WITHIN} either way, undecided otherwise. Reads schema 4 and
 * newer (the versions that keep every repetition); an older file is refused with a clear message.
 *
 * <p>Immutable once built.
 */
public final class Comparison {
    /** The oldest schema --compare reads: the first with per-repetition samples. */
    public static final int MIN_SCHEMA = 4;

    private final Run old;
    private final Run neu;
    private final List<Row> rows;

    /** One run as read from its file, each workload's verdict judged again from its samples. */
    record Run(Path file, String label, Map<String, Map<?, ?>> verdicts, Map<String, Verdict> judged) {
    }

    /**
     * One workload of both runs.
     *
     * @param title      the workload's line name
     * @param oldLine    the old run's verdict line (after the title), or "not measured"
     * @param newLine    the new run's
     * @param answer     {@code same winner}, {@code different winner} and the like
     * @param contenders per contender both ran: name, old median, new median, unit, new-vs-old interval, verdict
     */
    public record Row(String title, String oldLine, String newLine, String answer, List<ContenderRow> contenders) {
    }

    /**
     * One contender in both runs.
     *
     * @param name    as both runs name it
     * @param oldMedian the old run's median
     * @param newMedian the new run's
     * @param unit    their unit
     * @param change  how many times better the new run is (new/old for throughput, old/new for latency)
     * @param outcome {@code better}, {@code worse}, {@code same} (within the band), or {@code undecided}
     * @param text    {@code 1.20x better in the new run (95% CI ...)}, {@code no change: equal within 10% (...)} or
     *                {@code cannot tell: ...}
     */
    public record ContenderRow(String name, double oldMedian, double newMedian, String unit, RatioInterval change,
                               String outcome, String text) {
    }

    private Comparison(Run old, Run neu, List<Row> rows) {
        this.old = old;
        this.neu = neu;
        this.rows = List.copyOf(rows);
    }

    /**
     * Compares two results.json files.
     *
     * @throws SuiteRunner.BadInputException when a file is missing, unreadable, not results.json of jfio bench, or of
     *                                       a schema before {@link #MIN_SCHEMA}
     */
    public static Comparison of(Path oldFile, Path newFile) {
        Run o = read(oldFile);
        Run n = read(newFile);
        List<Row> rows = new ArrayList<>();
        for (String key : n.verdicts.keySet()) {
            Map<?, ?> a = o.verdicts.get(key);
            Map<?, ?> b = n.verdicts.get(key);
            if (a == null) continue;
            rows.add(row(a, b, o.judged.get(key), n.judged.get(key)));
        }
        for (String key : o.verdicts.keySet()) {
            if (!n.verdicts.containsKey(key)) rows.add(row(o.verdicts.get(key), null, o.judged.get(key), null));
        }
        return new Comparison(o, n, rows);
    }

    /**
     * Checks that {@code file} can be compared (before a run that will be compared with it).
     *
     * @throws SuiteRunner.BadInputException as {@link #of} does
     */
    public static void check(Path file) {
        read(file);
    }

    public List<Row> rows() {
        return rows;
    }

    private static Row row(Map<?, ?> a, Map<?, ?> b, Verdict va, Verdict vb) {
        String title = String.valueOf(a.get("title"));
        String oldLine = line(a, va, title);
        String newLine = b == null ? "not in this run" : line(b, vb, title);
        List<ContenderRow> cs = new ArrayList<>();
        String answer;
        if (b == null || va == null || vb == null) {
            answer = "not measured in both runs";
        } else {
            boolean higher = Boolean.TRUE.equals(b.get("higher_is_better"));
            Map<String, Map<?, ?>> oc = contenders(a);
            for (Map.Entry<String, Map<?, ?>> e : contenders(b).entrySet()) {
                Map<?, ?> was = oc.get(e.getKey());
                if (was == null) continue;
                double[] os = samples(was);
                double[] ns = samples(e.getValue());
                RatioInterval r = higher ? Bootstrap.ratioOfMedians(ns, os, e.getKey().hashCode())
                        : Bootstrap.ratioOfMedians(os, ns, e.getKey().hashCode());
                String outcome;
                String text;
                if (!r.defined()) {
                    outcome = "undecided";
                    text = "no ratio";
                } else if (Math.min(os.length, ns.length) < Judge.MIN_SAMPLES) {
                    outcome = "undecided";
                    text = "too few repetitions to tell (" + r.text() + ")";
                } else if (Judge.withinBand(r)) {
                    outcome = "same";
                    text = "no change: equal within " + Judge.band() + " (" + r.text() + ")";
                } else if (r.above1()) {
                    outcome = "better";
                    text = r.text() + " better in the new run";
                } else if (r.below1()) {
                    outcome = "worse";
                    text = RatioInterval.fmt(1 / r.ratio()) + "x worse in the new run (95% CI "
                            + RatioInterval.fmt(1 / r.high()) + "-" + RatioInterval.fmt(1 / r.low()) + ")";
                } else {
                    outcome = "undecided";
                    text = "cannot tell: " + r.text() + ", wider than " + Judge.band() + " either way";
                }
                cs.add(new ContenderRow(e.getKey(), JsonText.number(was, "median"),
                        JsonText.number(e.getValue(), "median"), String.valueOf(b.get("unit")), r, outcome, text));
            }
            answer = answer(va, vb);
        }
        return new Row(title, oldLine, newLine, answer, cs);
    }

    private static String answer(Verdict a, Verdict b) {
        Verdict.Outcome oa = a.outcome();
        Verdict.Outcome ob = b.outcome();
        String wa = a.winner() == null ? null : a.winner().name();
        String wb = b.winner() == null ? null : b.winner().name();
        if (oa == Verdict.Outcome.WIN && ob == Verdict.Outcome.WIN) {
            return java.util.Objects.equals(wa, wb) ? "same answer: " + wa + " wins in both"
                    : "the answer changed: " + wa + " won the old run, " + wb + " wins the new one";
        }
        if (oa == Verdict.Outcome.TIE && ob == Verdict.Outcome.TIE) {
            String ua = a.recommended().name();
            String ub = b.recommended().name();
            return "same answer: the best are equal within " + Judge.band() + " in both, use "
                    + (ua.equals(ub) ? ua : ua + " (old) or " + ub + " (new)");
        }
        if (oa == Verdict.Outcome.WIN && ob == Verdict.Outcome.TIE) {
            return "the answer changed: " + wa + " won the old run; in the new one " + wb + " and "
                    + b.runnerUp().name() + " are equal within " + Judge.band();
        }
        if (oa == Verdict.Outcome.TIE && ob == Verdict.Outcome.WIN) {
            return "the answer changed: " + wa + " and " + a.runnerUp().name() + " were equal within "
                    + Judge.band() + " in the old run; " + wb + " wins the new one";
        }
        if (a.decided()) return "decided in the old run only (" + summary(a) + "); the new run could not tell";
        if (b.decided()) return "decided in the new run only (" + summary(b) + "); the old run could not tell";
        return "undecided in both runs";
    }

    private static String summary(Verdict v) {
        return v.outcome() == Verdict.Outcome.WIN ? v.winner().name() + " wins"
                : v.winner().name() + " and " + v.runnerUp().name() + " equal within " + Judge.band();
    }

    private static String line(Map<?, ?> v, Verdict judged, String title) {
        if (judged == null) return "not measured (" + v.get("reason") + ")";
        String l = judged.line();
        return l.startsWith(title + ": ") ? l.substring(title.length() + 2) : l;
    }

    /**
     * The verdict of one entry of {@code verdicts}, judged again from its samples and noise with {@code seed}; null
     * when the entry was not measured or names a workload this version does not know.
     */
    private static Verdict judge(Map<?, ?> v, long seed) {
        if (Boolean.FALSE.equals(v.get("measured")) || v.get("winner") == null) return null;
        Workload w = Workload.byKey(String.valueOf(v.get("workload")));
        if (w == null) return null;
        List<Contender> cs = new ArrayList<>();
        for (Map<?, ?> c : contenders(v).values()) {
            cs.add(new Contender(String.valueOf(c.get("name")), String.valueOf(c.get("code")),
                    String.valueOf(c.get("link")), Boolean.TRUE.equals(c.get("jdk_default")), samples(c)));
        }
        if (cs.isEmpty()) return null;
        boolean paired = !Boolean.FALSE.equals(v.get("paired"));
        // the only unpaired contest there has been, schema 4's change detection, has every write's latency as samples
        boolean events = !paired;
        Contest contest = new Contest(w, String.valueOf(v.get("detail")), String.valueOf(v.get("unit")),
                Boolean.TRUE.equals(v.get("higher_is_better")), cs, paired, events);
        Object n = v.get("noise");
        Noise noise = n instanceof Map<?, ?> m ? new Noise(JsonText.number(m, "steal_pct"),
                JsonText.number(m, "busy_pct"), JsonText.number(m, "load1_start"), JsonText.number(m, "load1_end"),
                (int) JsonText.number(m, "cpus"), JsonText.number(m, "others_pct")) : Noise.UNKNOWN;
        return Judge.judge(contest, noise, seed);
    }

    private static Map<String, Map<?, ?>> contenders(Map<?, ?> v) {
        Map<String, Map<?, ?>> m = new LinkedHashMap<>();
        if (v.get("contenders") instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> c && c.get("name") instanceof String n) m.put(n, c);
            }
        }
        return m;
    }

    private static double[] samples(Map<?, ?> c) {
        if (!(c.get("samples") instanceof List<?> l)) return new double[0];
        double[] d = new double[l.size()];
        for (int i = 0; i < d.length; i++) d[i] = l.get(i) instanceof Number n ? n.doubleValue() : Double.NaN;
        return d;
    }

    private static Run read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new SuiteRunner.BadInputException("--compare: no such file: " + file);
        } catch (MalformedInputException e) {
            throw new SuiteRunner.BadInputException("--compare: " + file + " is not UTF-8 text: not a results.json");
        } catch (IOException e) {
            throw new SuiteRunner.BadInputException("--compare: cannot read " + file + ": " + e.getMessage());
        }
        Object root;
        try {
            root = JsonText.parse(text);
        } catch (IllegalArgumentException e) {
            throw new SuiteRunner.BadInputException("--compare: " + file + " is not JSON: " + e.getMessage());
        }
        if (!"jfio bench".equals(JsonText.at(root, "tool"))) {
            throw new SuiteRunner.BadInputException("--compare: " + file + " is not the results.json of jfio bench "
                    + "(no \"tool\": \"jfio bench\")");
        }
        double schema = JsonText.number(root, "schema_version");
        if (!(schema >= MIN_SCHEMA)) {
            throw new SuiteRunner.BadInputException(String.format(Locale.ROOT, "--compare: %s has schema_version %s;"
                    + " comparing needs %d or newer, whose results.json keeps every repetition (schema 3 and older "
                    + "kept only medians). Run jfio bench of this version there again to compare", file,
                    Double.isNaN(schema) ? "none" : String.valueOf((long) schema), MIN_SCHEMA));
        }
        Map<String, Map<?, ?>> verdicts = new LinkedHashMap<>();
        Map<String, Verdict> judged = new LinkedHashMap<>();
        long seed = JsonText.at(root, "options", "seed") instanceof Number s ? s.longValue() : 0;
        if (JsonText.at(root, "verdicts") instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> v && v.get("workload") instanceof String k) {
                    verdicts.put(k, v);
                    Verdict j = judge(v, seed);
                    if (j != null) judged.put(k, j);
                }
            }
        }
        String label = String.format(Locale.ROOT, "%s (started %s, kernel %s, %s, %s scale)", file,
                JsonText.at(root, "started"), JsonText.at(root, "system", "kernel"),
                JsonText.at(root, "system", "file_system"), JsonText.at(root, "options", "scale"));
        return new Run(file, label, verdicts, judged);
    }

    /** The comparison as Markdown. */
    public String markdown() {
        StringBuilder sb = new StringBuilder("## Two runs compared\n\n");
        sb.append("- old: ").append(old.label()).append('\n');
        sb.append("- new: ").append(neu.label()).append("\n\n");
        sb.append("For each contender both runs measured, its median in the new run over the old one (for latency the "
                + "old over the new), as times better in the new run, with a " + Math.round(Bootstrap.CONFIDENCE * 100)
                + "% bootstrap interval of that ratio; a change counts only when the interval excludes 1.0, and the "
                + "two runs are the same when it lies within " + Judge.band() + " either way of 1.0. Each run's "
                + "lines are judged again from its samples with this version's rule.\n\n");
        for (Row r : rows) {
            sb.append("### ").append(r.title()).append("\n\n");
            sb.append("- old: ").append(r.oldLine()).append('\n');
            sb.append("- new: ").append(r.newLine()).append('\n');
            sb.append("- **").append(r.answer()).append("**\n\n");
            if (!r.contenders().isEmpty()) {
                sb.append("| contender | old median | new median | new vs old |\n|---|---|---|---|\n");
                for (ContenderRow c : r.contenders()) {
                    sb.append("| ").append(c.name()).append(" | ").append(Table.format(c.oldMedian())).append(' ')
                            .append(c.unit()).append(" | ").append(Table.format(c.newMedian())).append(' ')
                            .append(c.unit()).append(" | ").append(c.text()).append(" |\n");
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /** The comparison for the console: one block per workload. */
    public List<String> console() {
        List<String> out = new ArrayList<>();
        out.add("Two runs compared (new vs old, 95% intervals: a change when the interval excludes 1.0, no change when"
                + " it lies within " + Judge.band() + " of 1.0):");
        out.add("  old: " + old.label());
        out.add("  new: " + neu.label());
        for (Row r : rows) {
            out.add("  " + r.title() + ": " + r.answer());
            for (ContenderRow c : r.contenders()) {
                out.add(String.format(Locale.ROOT, "      %-40s %s -> %s %s: %s", c.name(), Table.format(c.oldMedian()),
                        Table.format(c.newMedian()), c.unit(), c.text()));
            }
        }
        return out;
    }
}
