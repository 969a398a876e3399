package io.jfio.bench.suite;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

/**
 * Draws a {@link Plot} as a PNG with XChart, headless ({@code java.awt.headless=true} is set before the first
 * chart). Points a log axis cannot show (zero, negative, NaN) are left out.
 *
 * <p>Thread-safe; stateless.
 */
public final class Charts {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;
    /** Taller when the category labels are slanted, so the plot keeps its height. */
    private static final int HEIGHT_ROTATED = 720;
    /** Characters of the longest label times the number of categories above which labels would overlap. */
    private static final int LABEL_ROOM = 90;

    private Charts() {
    }

    /** The PNG bytes of {@code plot}. */
    public static byte[] png(Plot plot) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Chart<?, ?> chart = plot.kind() == Plot.Kind.LINE ? xy(plot) : bars(plot);
        return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
    }

    private static XYChart xy(Plot plot) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(plot.title()).xAxisTitle(plot.xLabel())
                .yAxisTitle(plot.yLabel()).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setXAxisLogarithmic(plot.logX());
        c.getStyler().setYAxisLogarithmic(plot.logY());
        c.getStyler().setDecimalPattern("#,##0.###");
        boolean any = false;
        for (var e : plot.series().entrySet()) {
            double[] x = e.getValue()[0];
            double[] y = e.getValue()[1];
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int i = 0; i < x.length; i++) {
                if (!Double.isFinite(x[i]) || !Double.isFinite(y[i])) continue;
                if ((plot.logX() && x[i] <= 0) || (plot.logY() && y[i] <= 0)) continue;
                xs.add(x[i]);
                ys.add(y[i]);
            }
            if (xs.isEmpty()) continue;
            c.addSeries(e.getKey(), xs, ys);
            any = true;
        }
        if (!any) {
            c.getStyler().setXAxisLogarithmic(false);
            c.getStyler().setYAxisLogarithmic(false);
            c.addSeries("no data", new double[] {0}, new double[] {0});
        }
        return c;
    }

    /** True when the category labels, written level, would run into each other. */
    static boolean crowded(List<String> categories) {
        return longest(categories) * categories.size() > LABEL_ROOM;
    }

    /** True when even labels slanted at 45 degrees would run into each other. */
    static boolean veryCrowded(List<String> categories) {
        return longest(categories) * categories.size() > 3 * LABEL_ROOM;
    }

    private static int longest(List<String> categories) {
        int longest = 0;
        for (String s : categories) longest = Math.max(longest, s.length());
        return longest;
    }

    private static CategoryChart bars(Plot plot) {
        boolean rotate = plot.kind() == Plot.Kind.BAR && crowded(plot.categories());
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(rotate ? HEIGHT_ROTATED : HEIGHT)
                .title(plot.title()).xAxisTitle(plot.xLabel()).yAxisTitle(plot.yLabel()).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setYAxisLogarithmic(plot.logY());
        if (rotate) {
            // Slanted, each label ending at its own tick (centred slanted labels sit between two bars); upright when
            // even slanted ones would run into their neighbours.
            c.getStyler().setXAxisLabelRotation(veryCrowded(plot.categories()) ? 90 : 45);
            c.getStyler().setXAxisLabelAlignmentVertical(AxesChartStyler.TextAlignment.Right);
        }
        if (plot.kind() == Plot.Kind.CATEGORY_LINE) {
            c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        }
        c.getStyler().setDecimalPattern("#,##0.###");
        boolean any = false;
        for (var e : plot.series().entrySet()) {
            double[] y = e.getValue()[1];
            List<Number> ys = new ArrayList<>();
            boolean some = false;
            for (double v : y) {
                boolean drop = !Double.isFinite(v) || (plot.logY() && v <= 0);
                ys.add(drop ? null : v);
                some |= !drop;
            }
            if (!some) continue;
            c.addSeries(e.getKey(), plot.categories(), ys);
            any = true;
        }
        if (!any) {
            c.getStyler().setYAxisLogarithmic(false);
            c.addSeries("no data", List.of("-"), List.of(0));
        }
        return c;
    }
}
