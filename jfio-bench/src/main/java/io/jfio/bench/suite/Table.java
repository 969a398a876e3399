package io.jfio.bench.suite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One result table: a title, column names (with units in them, e.g. {@code median_gb_per_s}) and rows of numbers
 * and strings. Rendered as Markdown by {@link #markdown()} and as JSON by {@link #toMap()}.
 *
 * <p>Not thread-safe; filled by one experiment.
 */
public final class Table {
    private final String title;
    private final List<String> columns;
    private final List<List<Object>> rows = new ArrayList<>();

    public Table(String title, String... columns) {
        this.title = title;
        this.columns = List.of(columns);
    }

    /** Adds a row; it must have one cell per column. */
    public Table add(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + columns.size()
                    + " columns: table=" + title);
        }
        rows.add(new ArrayList<>(java.util.Arrays.asList(cells)));
        return this;
    }

    public String title() {
        return title;
    }

    public List<String> columns() {
        return columns;
    }

    public List<List<Object>> rows() {
        return rows;
    }

    /** The cell at {@code row} in the column named {@code column}. */
    public Object cell(int row, String column) {
        int c = columns.indexOf(column);
        if (c < 0) throw new IllegalArgumentException("no column " + column + " in table " + title);
        return rows.get(row).get(c);
    }

    /** A GitHub-flavoured Markdown table with a {@code ####} title line. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("#### ").append(title).append("\n\n|");
        for (String c : columns) sb.append(' ').append(c).append(" |");
        sb.append("\n|");
        for (int i = 0; i < columns.size(); i++) sb.append("---|");
        sb.append('\n');
        for (List<Object> r : rows) {
            sb.append('|');
            for (Object o : r) sb.append(' ').append(format(o).replace("|", "\\|")).append(" |");
            sb.append('\n');
        }
        return sb.append('\n').toString();
    }

    /** Numbers with three significant digits (at least), integers grouped, NaN and null as "-". */
    public static String format(Object o) {
        if (o == null) return "-";
        if (o instanceof Double || o instanceof Float) {
            double d = ((Number) o).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) return "-";
            double a = Math.abs(d);
            if (a == 0) return "0";
            if (a >= 1000) return String.format(Locale.ROOT, "%,.0f", d);
            if (a >= 100) return String.format(Locale.ROOT, "%.1f", d);
            if (a >= 1) return String.format(Locale.ROOT, "%.2f", d);
            if (a >= 0.01) return String.format(Locale.ROOT, "%.3f", d);
            return String.format(Locale.ROOT, "%.2e", d);
        }
        if (o instanceof Long || o instanceof Integer) {
            return String.format(Locale.ROOT, "%,d", ((Number) o).longValue());
        }
        return o.toString();
    }

    /** The table as a JSON-ready map: title, columns, rows (numbers stay numbers; NaN becomes null). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("columns", new ArrayList<Object>(columns));
        List<Object> rs = new ArrayList<>();
        for (List<Object> r : rows) {
            List<Object> cells = new ArrayList<>();
            for (Object o : r) {
                if (o instanceof Double d && (d.isNaN() || d.isInfinite())) cells.add(null);
                else cells.add(o);
            }
            rs.add(cells);
        }
        m.put("rows", rs);
        return m;
    }
}
