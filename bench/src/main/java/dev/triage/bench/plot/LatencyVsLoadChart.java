package dev.triage.bench.plot;

import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.stats.SummaryRow;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTitleAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.block.RectangleConstraint;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.Size2D;
import org.jfree.data.Range;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws latency against load the way the papers' figures look: a 2 × 2 grid (short and long jobs
 * by row, P50 and P95 by column), utilisation ρ on the x axis, sojourn seconds on the y axis, one line
 * per policy with markers at the simulated points, one legend for all four panels. Policies keep
 * their colour in every figure; a starvation timeout draws the line dashed, an oracle dotted.
 *
 * <pre>{@code
 * LatencyVsLoadChart.write(Path.of("latency-vs-load.png"), "Clairvoyant workload, 1 slot", points, policies);
 * }</pre>
 */
public final class LatencyVsLoadChart {

    private static final int PANEL_WIDTH = 640;
    private static final int PANEL_HEIGHT = 440;
    private static final int TITLE_HEIGHT = 72;
    private static final int LEGEND_HEIGHT = 56;
    private static final int SCALE = 2;
    private static final String FONT = Font.SANS_SERIF;
    private static final double LOG_SCALE_SPREAD = 40;
    private static final List<String> CLASSES = List.of("short", "long");
    private static final List<Statistic> STATISTICS = List.of(Statistic.P50, Statistic.P95);

    private LatencyVsLoadChart() {}

    /** Writes the figure as a PNG, at twice its nominal size so it stays sharp when scaled. */
    public static void write(Path png, String title, List<LoadPoint> points, List<String> policies) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int width = 2 * PANEL_WIDTH;
        int height = TITLE_HEIGHT + 2 * PANEL_HEIGHT + LEGEND_HEIGHT;
        BufferedImage image = new BufferedImage(width * SCALE, height * SCALE, BufferedImage.TYPE_INT_RGB);
        Graphics2D g2 = image.createGraphics();
        try {
            g2.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g2.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g2.scale(SCALE, SCALE);
            g2.setColor(Color.WHITE);
            g2.fillRect(0, 0, width, height);
            TextTitle heading = new TextTitle(title, new Font(FONT, Font.BOLD, 19));
            drawTitle(g2, heading, new Rectangle2D.Double(0, 12, width, TITLE_HEIGHT - 12));
            XYPlot legendSource = null;
            for (int row = 0; row < CLASSES.size(); row++) {
                for (int column = 0; column < STATISTICS.size(); column++) {
                    XYPlot plot = panel(points, policies, CLASSES.get(row), STATISTICS.get(column));
                    JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
                    chart.setBackgroundPaint(Color.WHITE);
                    chart.setPadding(new RectangleInsets(4, 8, 4, 16));
                    chart.draw(g2, new Rectangle2D.Double(column * PANEL_WIDTH, TITLE_HEIGHT + row * PANEL_HEIGHT,
                            PANEL_WIDTH, PANEL_HEIGHT));
                    legendSource = plot;
                }
            }
            // Every panel has the same series in the same styles, so any one of them can stand for all.
            LegendTitle legend = new LegendTitle(legendSource);
            legend.setItemFont(new Font(FONT, Font.PLAIN, 16));
            legend.setFrame(BlockBorder.NONE);
            legend.setPosition(RectangleEdge.BOTTOM);
            legend.setItemLabelPadding(new RectangleInsets(2, 4, 2, 18));
            drawTitle(g2, legend, new Rectangle2D.Double(0, TITLE_HEIGHT + 2 * PANEL_HEIGHT + 8, width, LEGEND_HEIGHT - 8));
        } finally {
            g2.dispose();
        }
        ImageIO.write(image, "png", png.toFile());
    }

    /**
     * Draws a title centred at the top of an area. Titles lay out their content in {@code arrange},
     * which a chart normally calls (and aligns the result) before drawing them.
     */
    private static void drawTitle(Graphics2D g2, Title title, Rectangle2D area) {
        Size2D size = title.arrange(g2, RectangleConstraint.NONE.toRangeWidth(new Range(0, area.getWidth())));
        double x = area.getX() + (area.getWidth() - size.getWidth()) / 2;
        title.draw(g2, new Rectangle2D.Double(x, area.getY(), size.getWidth(), size.getHeight()));
    }

    private static XYPlot panel(List<LoadPoint> points, List<String> policies, String jobClass, Statistic statistic) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (String policy : policies) {
            XYSeries series = new XYSeries(policy, false, false);
            for (LoadPoint point : points) {
                for (SummaryRow row : point.rows()) {
                    if (row.policy().equals(policy) && row.jobClass().equals(jobClass) && !Double.isNaN(row.seconds(statistic))) {
                        series.add(point.rho(), row.seconds(statistic));
                    }
                }
            }
            dataset.addSeries(series);
        }
        NumberAxis rho = new NumberAxis("utilisation ρ");
        rho.setAutoRangeIncludesZero(false);
        ValueAxis seconds = secondsAxis(dataset);
        for (ValueAxis axis : List.of(rho, seconds)) {
            axis.setLabelFont(new Font(FONT, Font.PLAIN, 15));
            axis.setTickLabelFont(new Font(FONT, Font.PLAIN, 13));
            axis.setAxisLinePaint(Color.BLACK);
            axis.setTickMarkPaint(Color.BLACK);
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setLegendLine(new Line2D.Double(-18, 0, 18, 0));
        for (int i = 0; i < policies.size(); i++) {
            PolicyStyle style = PolicyStyle.of(policies.get(i));
            renderer.setSeriesPaint(i, style.color());
            renderer.setSeriesStroke(i, style.stroke());
            renderer.setSeriesShape(i, style.marker());
        }
        XYPlot plot = new XYPlot(dataset, rho, seconds, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xDDDDDD));
        plot.setRangeGridlinePaint(new Color(0xDDDDDD));
        plot.setDomainGridlineStroke(new BasicStroke(0.8f));
        plot.setRangeGridlineStroke(new BasicStroke(0.8f));
        plot.setRangeMinorGridlinesVisible(seconds instanceof LogAxis);
        plot.setRangeMinorGridlinePaint(new Color(0xEEEEEE));
        plot.setOutlineVisible(false);
        plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
        TextTitle panelTitle = new TextTitle(String.format(Locale.ROOT, "%s requests, %s", jobClass, statistic.name()),
                new Font(FONT, Font.BOLD, 16));
        plot.addAnnotation(new XYTitleAnnotation(0.02, 0.98, panelTitle, RectangleAnchor.TOP_LEFT));
        return plot;
    }

    /**
     * Seconds from 0 on a linear axis, unless the panel spans more than {@link #LOG_SCALE_SPREAD} times
     * from its smallest to its largest value: then a log axis, or the small values would be a flat line.
     */
    private static ValueAxis secondsAxis(XYSeriesCollection dataset) {
        String label = "sojourn time (s)";
        double smallest = dataset.getRangeLowerBound(false);
        double largest = dataset.getRangeUpperBound(false);
        if (smallest > 0 && largest / smallest > LOG_SCALE_SPREAD) {
            LogAxis axis = new LogAxis(label + ", log scale");
            axis.setBase(10);
            axis.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
            axis.setSmallestValue(smallest / 2);
            // Ticks at whole decades (1, 10, 100 s), with minor ticks between them.
            axis.setTickUnit(new NumberTickUnit(1), false, true);
            axis.setMinorTickCount(9);
            return axis;
        }
        NumberAxis axis = new NumberAxis(label);
        axis.setAutoRangeIncludesZero(true);
        return axis;
    }

    /** How one policy is drawn: colour by policy, dashes for τ, dots for an oracle. */
    record PolicyStyle(Color color, BasicStroke stroke, Shape marker) {

        // Okabe and Ito's palette, distinguishable with the common colour-vision deficiencies.
        private static final Color BLACK = new Color(0x000000);
        private static final Color BLUE = new Color(0x0072B2);
        private static final Color VERMILLION = new Color(0xD55E00);
        private static final Color GREEN = new Color(0x009E73);
        private static final Color PURPLE = new Color(0xCC79A7);

        static PolicyStyle of(String policy) {
            boolean oracle = policy.startsWith("oracle-");
            boolean tau = policy.contains("-tau");
            String base = policy.replace("oracle-", "").replaceAll("-tau.*", "");
            Color color = oracle ? GREEN : switch (base) {
                case "fcfs" -> BLACK;
                case "sjf" -> BLUE;
                case "hrrn" -> VERMILLION;
                default -> PURPLE;
            };
            float[] pattern = oracle ? new float[] {2, 4} : tau ? new float[] {9, 5} : null;
            BasicStroke stroke = new BasicStroke(2.2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10, pattern, 0);
            Shape marker = tau ? new Rectangle2D.Double(-4, -4, 8, 8) : new Ellipse2D.Double(-4, -4, 8, 8);
            return new PolicyStyle(color, stroke, marker);
        }
    }
}
