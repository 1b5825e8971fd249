package dev.triage.bench.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws a meta-optimizer's learning curve, the way the EWSJF paper's Figure 5 shows it: the reward of
 * each trial against the trial's index, one colour per run, each trial a thin line with markers and a
 * summary of the trials so far a thick one.
 *
 * <pre>{@code
 * ConvergenceChart.write(Path.of("convergence.png"), "reward per trial", Map.of("azure, serial", rewards), Summary.MOVING_MEAN);
 * }</pre>
 */
public final class ConvergenceChart {

    /** The thick line. */
    public enum Summary {
        /** The mean of the latest five trials: for rewards measured on traffic that changes. */
        MOVING_MEAN,
        /** The best reward so far: for trials that replay the same workload. */
        BEST_SO_FAR
    }

    static final int SMOOTHING = 5;
    private static final int WIDTH = 1100;
    private static final int HEIGHT = 620;
    private static final String FONT = Font.SANS_SERIF;
    // Okabe and Ito's palette, as in the latency charts.
    private static final Color[] COLORS = {new Color(0x0072B2), new Color(0xD55E00), new Color(0x009E73), new Color(0xCC79A7),
            new Color(0xE69F00), new Color(0x56B4E9), new Color(0x000000)};

    private ConvergenceChart() {}

    /** Writes the chart as a PNG at twice its nominal size; runs with no trial are left out. */
    public static void write(Path png, String title, Map<String, List<Double>> rewardsByRun, Summary summary) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection dataset = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        int run = 0;
        for (Map.Entry<String, List<Double>> entry : rewardsByRun.entrySet()) {
            List<Double> rewards = entry.getValue();
            if (rewards.isEmpty()) {
                continue;
            }
            Color color = COLORS[run % COLORS.length];
            XYSeries trials = new XYSeries(entry.getKey() + ", each trial", false, true);
            XYSeries smoothed = new XYSeries(entry.getKey() + (summary == Summary.MOVING_MEAN ? ", mean of " + SMOOTHING : ", best so far"),
                    false, true);
            double sum = 0;
            double best = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < rewards.size(); i++) {
                trials.add(i + 1, rewards.get(i));
                sum += rewards.get(i) - (i >= SMOOTHING ? rewards.get(i - SMOOTHING) : 0);
                best = Math.max(best, rewards.get(i));
                smoothed.add(i + 1, summary == Summary.MOVING_MEAN ? sum / Math.min(i + 1, SMOOTHING) : best);
            }
            int thin = dataset.getSeriesCount();
            dataset.addSeries(trials);
            renderer.setSeriesPaint(thin, new Color(color.getRed(), color.getGreen(), color.getBlue(), 110));
            renderer.setSeriesStroke(thin, new BasicStroke(0.8f));
            renderer.setSeriesShapesVisible(thin, true);
            renderer.setSeriesVisibleInLegend(thin, false);
            int thick = dataset.getSeriesCount();
            dataset.addSeries(smoothed);
            renderer.setSeriesPaint(thick, color);
            renderer.setSeriesStroke(thick, new BasicStroke(2.6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
            renderer.setSeriesShapesVisible(thick, false);
            run++;
        }
        NumberAxis trial = new NumberAxis("trial");
        trial.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        NumberAxis reward = new NumberAxis("reward R = λ1·C + λ2·L − λ3·S − λ4·U");
        reward.setAutoRangeIncludesZero(false);
        for (NumberAxis axis : List.of(trial, reward)) {
            axis.setLabelFont(new Font(FONT, Font.PLAIN, 15));
            axis.setTickLabelFont(new Font(FONT, Font.PLAIN, 13));
        }
        XYPlot plot = new XYPlot(dataset, trial, reward, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xDDDDDD));
        plot.setRangeGridlinePaint(new Color(0xDDDDDD));
        plot.setOutlineVisible(false);
        JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setTitle(new TextTitle(title, new Font(FONT, Font.BOLD, 18)));
        chart.setBackgroundPaint(Color.WHITE);
        chart.getLegend().setItemFont(new Font(FONT, Font.PLAIN, 14));
        chart.getLegend().setFrame(BlockBorder.NONE);
        chart.getLegend().setPosition(RectangleEdge.BOTTOM);
        try (OutputStream file = Files.newOutputStream(png)) {
            ChartUtils.writeScaledChartAsPNG(file, chart, WIDTH, HEIGHT, 2, 2);
        }
    }
}
