package io.jfio.bench.suite;

import io.jfio.bench.verdict.Bootstrap;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Judge;
import io.jfio.bench.verdict.Verdict;
import io.jfio.bench.verdict.Workload;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The "What wins here" section: one verdict per {@link Workload} from the contests the experiments recorded, as
 * Markdown, HTML and plain text, with the code to use the winner. A workload whose experiment did not run (or ran
 * out of its time budget before that cell) says so.
 *
 * <p>Thread-safe; stateless.
 */
public final class WhatWins {
    /** The section's title. */
    public static final String TITLE = "What wins here";
    /** The rule, said once under the title. */
    public static final String RULE = "Each line names the contender with the best median; its margin is a ratio of "
            + "medians with a " + Math.round(Bootstrap.CONFIDENCE * 100) + "% bootstrap confidence interval ("
            + String.format(Locale.ROOT, "%,d", Bootstrap.RESAMPLES) + " resamples, seeded); both need at least "
            + Judge.MIN_SAMPLES + " repetitions. When the whole interval lies within " + Judge.band() + " either way "
            + "of 1.0 the two are equal here (a difference that small moves from one run to the next on a shared "
            + "machine and is seldom worth changing code for), and the line says which to use: the simpler, the "
            + "JDK's way first. Otherwise the best median wins when the interval excludes 1.0; when it does neither, "
            + "the interval is too wide to tell and the line says why. The contenders of a workload ran "
            + "interleaved, repetition by repetition, and their rounds are resampled as pairs; a change-detection "
            + "round is each event-driven watcher's median latency over a short window.";

    private WhatWins() {
    }

    /** Judges every contest of {@code results}, in {@link Workload} order; one entry per workload. */
    public static List<Entry> judge(List<ExperimentResult> results, long seed) {
        List<Entry> out = new ArrayList<>();
        for (Workload w : Workload.values()) {
            ExperimentResult holder = null;
            Contest c = null;
            for (ExperimentResult r : results) {
                for (Contest k : r.contests()) {
                    if (k.workload() == w && c == null) {
                        c = k;
                        holder = r;
                    }
                }
            }
            if (c != null) {
                out.add(new Entry(w, Judge.judge(c, holder.noise(), seed), ""));
                continue;
            }
            ExperimentResult e = results.stream().filter(r -> r.name().equals(w.experiment())).findFirst()
                    .orElse(null);
            String why = e == null ? "the " + w.experiment() + " experiment did not run"
                    : e.status() != ExperimentResult.Status.OK ? "the " + w.experiment() + " experiment "
                    + e.status().name().toLowerCase(Locale.ROOT) + (e.reason().isEmpty() ? "" : ": " + e.reason())
                    : "the " + w.experiment() + " experiment did not reach it within its time budget";
            out.add(new Entry(w, null, why));
        }
        return out;
    }

    /**
     * One line of the section.
     *
     * @param workload   the workload
     * @param verdict    its verdict, or null when it was not measured
     * @param notMeasured why not (empty when measured)
     */
    public record Entry(Workload workload, Verdict verdict, String notMeasured) {
        /** The line in plain text. */
        public String line() {
            return verdict == null ? workload.title() + ": not measured (" + notMeasured + ")" : verdict.line();
        }

        /**
         * The contenders whose code the line points to: the winner, the one to use of a tie, or the two it could not
         * tell apart.
         */
        public List<Contender> use() {
            if (verdict == null || verdict.winner() == null) return List.of();
            if (verdict.recommended() != null) return List.of(verdict.recommended());
            if (verdict.runnerUp() == null) return List.of(verdict.winner());
            return List.of(verdict.winner(), verdict.runnerUp());
        }

        /** The verdict as a JSON-ready map; a workload not measured has {@code measured: false} and the reason. */
        public Map<String, Object> toMap() {
            if (verdict != null) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("measured", true);
                m.putAll(verdict.toMap());
                return m;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("measured", false);
            m.put("workload", workload.key());
            m.put("title", workload.title());
            m.put("experiment", workload.experiment());
            m.put("reason", notMeasured);
            return m;
        }
    }

    /** The section for report.md. */
    public static String markdown(List<Entry> entries) {
        StringBuilder sb = new StringBuilder("## ").append(TITLE).append("\n\n").append(RULE)
                .append(" Which experiment backs each line: [bench.md](").append(docsHref("docs/bench.md"))
                .append(").\n\n");
        for (Entry e : entries) {
            sb.append("- **").append(e.workload().title()).append("** (").append(e.workload().experiment())
                    .append("): ").append(rest(e)).append('\n');
            if (!e.use().isEmpty()) {
                sb.append("  - use: ");
                List<String> links = new ArrayList<>();
                for (Contender c : e.use()) {
                    String href = href(c.link());
                    links.add(c.name() + ": " + (href == null ? "`" + c.code() + "` (" + c.link() + ")"
                            : "[`" + c.code() + "`](" + href + ")"));
                }
                sb.append(String.join("; ", links)).append('\n');
            }
            if (e.verdict() != null && e.verdict().winner() != null) {
                sb.append("  - measured: ").append(e.verdict().detailLine()).append('\n');
                if (!e.verdict().hint().isEmpty()) sb.append("  - ").append(e.verdict().hint()).append('\n');
            }
        }
        return sb.append('\n').append(tally(entries)).append("\n\n").toString();
    }

    /**
     * How many lines gave an answer: {@code Decided: 7 of 11 lines (4 with a winner, 3 equal within 10%); 3
     * undecided; 1 not measured.}
     */
    public static String tally(List<Entry> entries) {
        int win = 0;
        int tie = 0;
        int undecided = 0;
        int none = 0;
        for (Entry e : entries) {
            Verdict.Outcome o = e.verdict() == null ? Verdict.Outcome.NONE : e.verdict().outcome();
            switch (o) {
                case WIN -> win++;
                case TIE -> tie++;
                case UNDECIDED -> undecided++;
                default -> none++;
            }
        }
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "Decided: %d of %d lines (%d with a winner, "
                + "%d equal within %s)", win + tie, entries.size(), win, tie, Judge.band()));
        if (undecided > 0) sb.append("; ").append(undecided).append(" undecided");
        if (none > 0) sb.append("; ").append(none).append(" not measured or with one contender");
        return sb.append('.').toString();
    }

    /** The section for report.html. */
    public static String html(List<Entry> entries) {
        StringBuilder sb = new StringBuilder("<h2>").append(TITLE).append("</h2>\n<p>").append(esc(RULE))
                .append("</p>\n<ul>\n");
        for (Entry e : entries) {
            boolean decided = e.verdict() != null && e.verdict().decided();
            sb.append("<li").append(decided ? "" : " class=\"undecided\"").append("><b>")
                    .append(esc(e.workload().title())).append("</b> (").append(esc(e.workload().experiment()))
                    .append("): ").append(esc(rest(e)));
            sb.append("<ul>");
            for (Contender c : e.use()) {
                String href = href(c.link());
                sb.append("<li>use ").append(esc(c.name())).append(": ");
                if (href == null) {
                    sb.append("<code>").append(esc(c.code())).append("</code> (").append(esc(c.link())).append(')');
                } else {
                    sb.append("<a href=\"").append(esc(href)).append("\"><code>").append(esc(c.code()))
                            .append("</code></a>");
                }
                sb.append("</li>");
            }
            if (e.verdict() != null && e.verdict().winner() != null) {
                sb.append("<li>measured: ").append(esc(e.verdict().detailLine())).append("</li>");
                if (!e.verdict().hint().isEmpty()) sb.append("<li>").append(esc(e.verdict().hint())).append("</li>");
            }
            sb.append("</ul></li>\n");
        }
        return sb.append("</ul>\n<p>").append(esc(tally(entries))).append("</p>\n").toString();
    }

    /** The section for the console: one line per workload, the code to use and any re-run hint under it. */
    public static List<String> console(List<Entry> entries) {
        List<String> out = new ArrayList<>();
        out.add(TITLE + " (95% bootstrap intervals; equal when the interval lies within " + Judge.band()
                + " of 1.0, a winner when it excludes 1.0):");
        for (Entry e : entries) {
            out.add("  " + e.line());
            for (Contender c : e.use()) out.add("      use " + c.name() + ": " + c.code());
            if (e.verdict() != null && !e.verdict().hint().isEmpty()) out.add("      " + e.verdict().hint());
        }
        out.add("  " + tally(entries));
        return out;
    }

    private static String rest(Entry e) {
        String line = e.line();
        String prefix = e.workload().title() + ": ";
        return line.startsWith(prefix) ? line.substring(prefix.length()) : line;
    }

    /**
     * Where a contender's link leads: a URL as it is; a path in the jfio source tree as a {@code file:} URI when
     * that tree is found around the running code (a checkout that {@code bin/jfio} built), else null.
     */
    static String href(String link) {
        if (link.startsWith("https://") || link.startsWith("http://")) return link;
        Path root = sourceRoot();
        if (root == null) return null;
        Path p = root.resolve(link);
        return Files.exists(p) ? p.toUri().toString() : null;
    }

    private static String docsHref(String path) {
        String h = href(path);
        return h == null ? path : h;
    }

    /** The jfio source tree holding the running code, or null (a jar copied elsewhere). */
    static Path sourceRoot() {
        try {
            var src = WhatWins.class.getProtectionDomain().getCodeSource();
            if (src == null) return null;
            Path p = Path.of(src.getLocation().toURI()).toAbsolutePath();
            for (int i = 0; i < 5 && p != null; i++, p = p.getParent()) {
                if (Files.isDirectory(p.resolve("jfio-core/src/main/java/io/jfio/core"))) return p;
            }
            return null;
        } catch (URISyntaxException | SecurityException | java.nio.file.FileSystemNotFoundException e) {
            return null;
        }
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
