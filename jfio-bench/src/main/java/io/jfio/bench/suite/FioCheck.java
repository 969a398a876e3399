package io.jfio.bench.suite;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A Java path measured beside its fio equivalent on the same file with the same parameters (FileChannel vs fio
 * psync, jfio io_uring vs fio io_uring).
 *
 * <p>Immutable.
 *
 * @param cell      which cell, e.g. {@code "random read 4 KiB, cold"}
 * @param java      the Java path, e.g. {@code "FileChannel"}
 * @param fio       the fio job, e.g. {@code "fio psync"}
 * @param unit      unit of both values, e.g. {@code "GB/s"}
 * @param javaValue the Java path's median
 * @param fioValue  fio's median
 * @param higherIsBetter true for throughput, false for latency
 * @param javaMin   the Java path's slowest..fastest repetitions: {@code javaMin}..{@code javaMax} (NaN: unknown)
 * @param javaMax   see {@code javaMin}
 * @param fioMin    fio's runs' range, like {@code javaMin}
 * @param fioMax    see {@code fioMin}
 */
public record FioCheck(String cell, String java, String fio, String unit, double javaValue, double fioValue,
                       boolean higherIsBetter, double javaMin, double javaMax, double fioMin, double fioMax) {
    /** A check without the runs' ranges (one fio run, or a value that has no per-run range). */
    public FioCheck(String cell, String java, String fio, String unit, double javaValue, double fioValue,
                    boolean higherIsBetter) {
        this(cell, java, fio, unit, javaValue, fioValue, higherIsBetter, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN);
    }

    /**
     * True when the ranges of the two sides' repetitions overlap: then a flagged difference of the medians is
     * within what this machine varies from run to run, not a difference between the two paths.
     */
    public boolean withinSpread() {
        if (Double.isNaN(javaMin) || Double.isNaN(fioMin)) return false;
        return javaMin <= fioMax && fioMin <= javaMax;
    }

    /** Beyond this relative difference the two should have agreed and the report says they did not. */
    public static final double AGREEMENT = 0.10;

    /** jfio / fio. */
    public double ratio() {
        return javaValue / fioValue;
    }

    /** True when the two differ by more than {@link #AGREEMENT} either way. */
    public boolean flagged() {
        double r = ratio();
        return !(r >= 1 - AGREEMENT && r <= 1 + AGREEMENT);
    }

    /** One line for the report. */
    public String line() {
        String ranges = Double.isNaN(javaMin) || Double.isNaN(fioMin) ? "" : String.format(Locale.ROOT,
                " (runs: ours %s–%s, fio %s–%s)", Table.format(javaMin), Table.format(javaMax), Table.format(fioMin),
                Table.format(fioMax));
        String verdict = !flagged() ? " (agree)" : " — DIFFERS by more than " + Math.round(AGREEMENT * 100) + "%"
                + (withinSpread() ? ", within the run-to-run spread (the two ranges overlap): this machine's noise, "
                + "not a difference of the paths" : Double.isNaN(javaMin) ? "" : ", beyond the run-to-run spread");
        return String.format(Locale.ROOT, "%s: %s %s vs %s %s %s: ratio %.2f%s%s", cell, java,
                Table.format(javaValue), fio, Table.format(fioValue), unit, ratio(), ranges, verdict);
    }

    /** The check as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cell", cell);
        m.put("java", java);
        m.put("fio", fio);
        m.put("unit", unit);
        m.put("java_value", javaValue);
        m.put("fio_value", fioValue);
        m.put("ratio", Double.isFinite(ratio()) ? ratio() : null);
        m.put("higher_is_better", higherIsBetter);
        m.put("flagged", flagged());
        m.put("java_min", Double.isFinite(javaMin) ? javaMin : null);
        m.put("java_max", Double.isFinite(javaMax) ? javaMax : null);
        m.put("fio_min", Double.isFinite(fioMin) ? fioMin : null);
        m.put("fio_max", Double.isFinite(fioMax) ? fioMax : null);
        m.put("within_spread", withinSpread());
        return m;
    }
}
