package dev.triage.bench.stats;

/** The mean of a statistic over seeds and its sample standard deviation (0 for one seed). */
public record MeanSd(double mean, double sd) {

    public static MeanSd of(double[] values) {
        double sum = 0;
        for (double value : values) {
            sum += value;
        }
        double mean = sum / values.length;
        if (values.length < 2) {
            return new MeanSd(mean, 0);
        }
        double squares = 0;
        for (double value : values) {
            squares += (value - mean) * (value - mean);
        }
        return new MeanSd(mean, Math.sqrt(squares / (values.length - 1)));
    }
}
