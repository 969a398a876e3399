package io.jfio.bench.suite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data of one experiment's figure: lines over a numeric x axis ({@link Kind#LINE}), grouped bars over named
 * categories ({@link Kind#BAR}), or lines over named, evenly spaced categories ({@link Kind#CATEGORY_LINE}: for x
 * values that are labels rather than quantities, such as percentiles). Drawn by {@link Charts}.
 *
 * <p>Not thread-safe; filled by one experiment.
 *
 * @param title  chart title
 * @param xLabel x axis label with unit
 * @param yLabel y axis label with unit
 * @param kind   lines or bars
 * @param logX   logarithmic x axis (lines only)
 * @param logY   logarithmic y axis
 * @param categories the categories (bars and category lines only)
 * @param series name to (x values, y values) for lines, or to y values per category for bars and category lines
 *               (x ignored)
 */
public record Plot(String title, String xLabel, String yLabel, Kind kind, boolean logX, boolean logY,
                   List<String> categories, Map<String, double[][]> series) {
    /** Lines over numbers, bars over categories, or lines over categories. */
    public enum Kind { LINE, BAR, CATEGORY_LINE }

    /** A line chart; add series with {@link #line}. */
    public static Plot lines(String title, String xLabel, String yLabel, boolean logX, boolean logY) {
        return new Plot(title, xLabel, yLabel, Kind.LINE, logX, logY, List.of(), new LinkedHashMap<>());
    }

    /** A bar chart over {@code categories}; add series with {@link #bars}. */
    public static Plot bars(String title, String yLabel, boolean logY, List<String> categories) {
        return new Plot(title, "", yLabel, Kind.BAR, false, logY, List.copyOf(categories), new LinkedHashMap<>());
    }

    /** A line chart over evenly spaced {@code categories}; add series with {@link #bars}. */
    public static Plot categoryLines(String title, String xLabel, String yLabel, boolean logY,
                                     List<String> categories) {
        return new Plot(title, xLabel, yLabel, Kind.CATEGORY_LINE, false, logY, List.copyOf(categories),
                new LinkedHashMap<>());
    }

    /** Adds a line (NaN points are dropped when drawing). */
    public Plot line(String name, double[] x, double[] y) {
        if (x.length != y.length) throw new IllegalArgumentException("x and y differ in length: series=" + name);
        series.put(name, new double[][] {x.clone(), y.clone()});
        return this;
    }

    /** Adds one value per category (a bar, or a point of a category line). */
    public Plot bars(String name, double[] y) {
        if (y.length != categories.size()) {
            throw new IllegalArgumentException("need one value per category: series=" + name);
        }
        series.put(name, new double[][] {new double[0], y.clone()});
        return this;
    }

    /** The plot data as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT));
        m.put("x_label", xLabel);
        m.put("y_label", yLabel);
        m.put("log_x", logX);
        m.put("log_y", logY);
        if (kind != Kind.LINE) m.put("categories", new ArrayList<Object>(categories));
        List<Object> ss = new ArrayList<>();
        for (var e : series.entrySet()) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", e.getKey());
            if (kind == Kind.LINE) s.put("x", list(e.getValue()[0]));
            s.put("y", list(e.getValue()[1]));
            ss.add(s);
        }
        m.put("series", ss);
        return m;
    }

    private static List<Object> list(double[] v) {
        List<Object> l = new ArrayList<>();
        for (double d : v) l.add(Double.isNaN(d) || Double.isInfinite(d) ? null : d);
        return l;
    }
}
