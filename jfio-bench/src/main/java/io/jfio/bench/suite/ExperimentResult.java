package io.jfio.bench.suite;

import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Noise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one experiment produced: tables, one plot (or none), fio cross-checks and notes, with its status.
 *
 * <p>Not thread-safe; filled by one experiment, then read by the report.
 */
public final class ExperimentResult {
    /** How the experiment ended. */
    public enum Status { OK, SKIPPED, FAILED }

    private final String name;
    private final String description;
    private Status status = Status.OK;
    private String reason = "";
    private final List<Table> tables = new ArrayList<>();
    private Plot plot;
    private final List<FioCheck> fioChecks = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private double seconds;
    private final List<Contest> contests = new ArrayList<>();
    private Noise noise = Noise.UNKNOWN;

    public ExperimentResult(String name, String description) {
        this.name = name;
        this.description = description;
    }

    /** A result saying the experiment did not run, and why. */
    public static ExperimentResult skipped(Experiment e, String reason) {
        ExperimentResult r = new ExperimentResult(e.name(), e.description());
        r.status = Status.SKIPPED;
        r.reason = reason;
        return r;
    }

    /** A result saying the experiment failed, and how. */
    public static ExperimentResult failed(Experiment e, String reason) {
        ExperimentResult r = new ExperimentResult(e.name(), e.description());
        r.status = Status.FAILED;
        r.reason = reason;
        return r;
    }

    public Table table(Table t) {
        tables.add(t);
        return t;
    }

    public void plot(Plot p) {
        plot = p;
    }

    public void fio(FioCheck c) {
        fioChecks.add(c);
    }

    public void note(String n) {
        if (!notes.contains(n)) notes.add(n);
    }

    /** Records the contenders of a workload this experiment measured, for "What wins here". */
    public void contest(Contest c) {
        contests.add(c);
    }

    public List<Contest> contests() {
        return contests;
    }

    /** Steal and load while the experiment ran. */
    public Noise noise() {
        return noise;
    }

    void noise(Noise n) {
        noise = n;
    }

    void seconds(double s) {
        seconds = s;
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    public Status status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    public List<Table> tables() {
        return tables;
    }

    public Plot plot() {
        return plot;
    }

    public List<FioCheck> fioChecks() {
        return fioChecks;
    }

    public List<String> notes() {
        return notes;
    }

    public double seconds() {
        return seconds;
    }

    /** The result as a JSON-ready map (see docs/BENCH-RESULTS.md). */
    public Map<String, Object> toMap(String png) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("description", description);
        m.put("status", status.name().toLowerCase(java.util.Locale.ROOT));
        m.put("reason", reason);
        m.put("seconds", seconds);
        m.put("noise", noise.toMap());
        List<Object> ts = new ArrayList<>();
        for (Table t : tables) ts.add(t.toMap());
        m.put("tables", ts);
        m.put("plot", plot == null ? null : plot.toMap());
        m.put("png", png);
        List<Object> fs = new ArrayList<>();
        for (FioCheck c : fioChecks) fs.add(c.toMap());
        m.put("fio_checks", fs);
        m.put("notes", new ArrayList<Object>(notes));
        return m;
    }
}
