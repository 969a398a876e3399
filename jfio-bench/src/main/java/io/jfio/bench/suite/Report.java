package io.jfio.bench.suite;

import io.jfio.bench.JsonText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a run's report directory: {@code report.md} (every table), {@code <experiment>.png} (one per experiment
 * with a plot), {@code report.html} (the tables with the PNGs embedded as data URIs) and {@code results.json} (the
 * schema is docs/BENCH-RESULTS.md; {@link #SCHEMA_VERSION} changes when a field changes meaning or goes away).
 *
 * <p>Thread-safe; stateless.
 */
public final class Report {
    /** The results.json schema version. */
    public static final int SCHEMA_VERSION = 5;

    private Report() {
    }

    /** Writes everything into {@code dir} (created if missing) and returns the PNG file names by experiment. */
    public static Map<String, String> write(SuiteResult r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> pngs = new LinkedHashMap<>();
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        if (r.options().plots()) {
            for (ExperimentResult e : r.results()) {
                if (e.plot() == null) continue;
                byte[] png = Charts.png(e.plot());
                String name = e.name() + ".png";
                Files.write(dir.resolve(name), png);
                pngs.put(e.name(), name);
                bytes.put(e.name(), png);
            }
        }
        Files.writeString(dir.resolve("results.json"), json(r, pngs), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("report.md"), markdown(r, pngs), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("report.html"), html(r, bytes), StandardCharsets.UTF_8);
        return pngs;
    }

    /** results.json. */
    public static String json(SuiteResult r, Map<String, String> pngs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("schema_version", SCHEMA_VERSION);
        m.put("tool", "jfio bench");
        m.put("started", r.started());
        m.put("seconds", r.seconds());
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("scale", r.options().scaleName());
        o.put("dir", r.options().dir().toAbsolutePath().toString());
        o.put("only", new ArrayList<Object>(r.options().only()));
        o.put("fio", r.options().fio());
        o.put("seed", r.options().seed());
        o.put("reps", SuiteOptions.REPS);
        o.put("repeat_until_stable_s", r.options().stableBudget().toMillis() / 1e3);
        m.put("options", o);
        m.put("system", r.system().toMap());
        m.put("setup", new ArrayList<Object>(r.setup()));
        m.put("warnings", new ArrayList<Object>(r.warnings()));
        List<Object> vs = new ArrayList<>();
        for (WhatWins.Entry v : r.verdicts()) vs.add(v.toMap());
        m.put("verdicts", vs);
        List<Object> es = new ArrayList<>();
        for (ExperimentResult e : r.results()) es.add(e.toMap(pngs.get(e.name())));
        m.put("experiments", es);
        return JsonText.write(m) + "\n";
    }

    /** report.md. */
    public static String markdown(SuiteResult r, Map<String, String> pngs) {
        StringBuilder sb = new StringBuilder();
        sb.append("# jfio bench report\n\n");
        sb.append(String.format(Locale.ROOT, "Started %s, %s scale, %.0f s in all.%n%n", r.started(),
                r.options().scaleName(), r.seconds()));
        sb.append(WhatWins.markdown(r.verdicts()));
        sb.append("## Machine\n\n");
        for (String l : r.system().lines()) sb.append("- ").append(l).append('\n');
        for (String l : r.setup()) sb.append("- ").append(l).append('\n');
        sb.append('\n');
        if (!r.warnings().isEmpty()) {
            sb.append("## Warnings\n\n");
            for (String w : r.warnings()) sb.append("- ").append(w).append('\n');
            sb.append('\n');
        }
        sb.append("## Summary\n\n| experiment | status | seconds | CPU steal and load meanwhile | fio checks (flagged) "
                + "|\n|---|---|---|---|---|\n");
        for (ExperimentResult e : r.results()) {
            long flagged = e.fioChecks().stream().filter(FioCheck::flagged).count();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %s | %s |%n", e.name(),
                    e.status().name().toLowerCase(Locale.ROOT) + (e.reason().isEmpty() ? "" : ": " + e.reason()),
                    e.seconds(), e.noise().text(), e.fioChecks().isEmpty() ? "-" : e.fioChecks().size() + " ("
                    + flagged + ")"));
        }
        sb.append('\n');
        for (ExperimentResult e : r.results()) sb.append(section(e, pngs.get(e.name())));
        return sb.toString();
    }

    private static String section(ExperimentResult e, String png) {
        StringBuilder sb = new StringBuilder();
        sb.append("## ").append(e.name()).append("\n\n").append(e.description()).append("\n\n");
        sb.append("CPU meanwhile: ").append(e.noise().text()).append(".\n\n");
        if (e.status() != ExperimentResult.Status.OK) {
            sb.append("**").append(e.status().name().toLowerCase(Locale.ROOT)).append("**: ").append(e.reason())
                    .append("\n\n");
        }
        for (Table t : e.tables()) sb.append(t.markdown());
        if (!e.fioChecks().isEmpty()) {
            sb.append("#### fio cross-checks (jfio/fio; agreement expected within ")
                    .append(Math.round(FioCheck.AGREEMENT * 100)).append("%)\n\n");
            for (FioCheck c : e.fioChecks()) sb.append("- ").append(c.line()).append('\n');
            sb.append('\n');
        }
        if (!e.notes().isEmpty()) {
            sb.append("#### Notes\n\n");
            for (String n : e.notes()) sb.append("- ").append(n).append('\n');
            sb.append('\n');
        }
        if (png != null) sb.append("![").append(e.name()).append("](").append(png).append(")\n\n");
        return sb.toString();
    }

    /** report.html: the Markdown's content as HTML, with each PNG embedded as a base64 data URI. */
    public static String html(SuiteResult r, Map<String, byte[]> pngs) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>jfio bench report</title><style>"
                + "body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;"
                + "margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
                + "td:first-child,th:first-child{text-align:left}.flag{color:#b00}.undecided{color:#666}"
                + "</style></head><body>\n");
        sb.append("<h1>jfio bench report</h1>\n<p>Started ").append(esc(r.started())).append(", ")
                .append(r.options().scaleName()).append(" scale, ")
                .append(String.format(Locale.ROOT, "%.0f", r.seconds())).append(" s.</p>\n");
        sb.append(WhatWins.html(r.verdicts()));
        sb.append("<h2>Machine</h2><ul>\n");
        for (String l : r.system().lines()) sb.append("<li>").append(esc(l)).append("</li>\n");
        for (String l : r.setup()) sb.append("<li>").append(esc(l)).append("</li>\n");
        sb.append("</ul>\n");
        if (!r.warnings().isEmpty()) {
            sb.append("<h2>Warnings</h2><ul>\n");
            for (String w : r.warnings()) sb.append("<li class=\"flag\">").append(esc(w)).append("</li>\n");
            sb.append("</ul>\n");
        }
        for (ExperimentResult e : r.results()) {
            sb.append("<h2>").append(esc(e.name())).append("</h2>\n<p>").append(esc(e.description())).append("</p>\n");
            sb.append("<p>CPU meanwhile: ").append(esc(e.noise().text())).append("</p>\n");
            if (e.status() != ExperimentResult.Status.OK) {
                sb.append("<p><b>").append(e.status().name().toLowerCase(Locale.ROOT)).append("</b>: ")
                        .append(esc(e.reason())).append("</p>\n");
            }
            byte[] png = pngs.get(e.name());
            if (png != null) {
                sb.append("<img alt=\"").append(esc(e.name())).append("\" src=\"data:image/png;base64,")
                        .append(Base64.getEncoder().encodeToString(png)).append("\">\n");
            }
            for (Table t : e.tables()) {
                sb.append("<h4>").append(esc(t.title())).append("</h4>\n<table><tr>");
                for (String c : t.columns()) sb.append("<th>").append(esc(c)).append("</th>");
                sb.append("</tr>\n");
                for (List<Object> row : t.rows()) {
                    sb.append("<tr>");
                    for (Object o : row) sb.append("<td>").append(esc(Table.format(o))).append("</td>");
                    sb.append("</tr>\n");
                }
                sb.append("</table>\n");
            }
            if (!e.fioChecks().isEmpty()) {
                sb.append("<h4>fio cross-checks</h4><ul>\n");
                for (FioCheck c : e.fioChecks()) {
                    sb.append(c.flagged() ? "<li class=\"flag\">" : "<li>").append(esc(c.line())).append("</li>\n");
                }
                sb.append("</ul>\n");
            }
            if (!e.notes().isEmpty()) {
                sb.append("<h4>Notes</h4><ul>\n");
                for (String n : e.notes()) sb.append("<li>").append(esc(n)).append("</li>\n");
                sb.append("</ul>\n");
            }
        }
        return sb.append("</body></html>\n").toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
