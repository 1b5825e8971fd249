package dev.triage.bench.load;

/**
 * What one request of a load run saw.
 *
 * @param sentSeconds from the run's start to sending
 * @param firstTokenSeconds from sending to the first streamed event (NaN when none came)
 * @param endToEndSeconds from sending to the response's last byte
 * @param status the HTTP status, or 0 when the request failed without one
 */
public record LoadResult(String jobClass, double sentSeconds, double firstTokenSeconds, double endToEndSeconds, int status) {

    /** From the run's start to the answer's last byte. */
    public double endSeconds() {
        return sentSeconds + endToEndSeconds;
    }
}
