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
 */
public record FioCheck(String cell, String java, String fio, String unit, double javaValue, double fioValue,
                       boolean higherIsBetter) {
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
        return String.format(Locale.ROOT, "%s: %s %s vs %s %s %s: ratio %.2f%s", cell, java, Table.format(javaValue),
                fio, Table.format(fioValue), unit, ratio(), flagged()
                        ? " — DIFFERS by more than " + Math.round(AGREEMENT * 100) + "%" : " (agree)");
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
        return m;
    }
}
