package dev.triage.bench.load;

/**
 * What one request of a load run saw.
 *
 * @param firstTokenSeconds from sending to the first streamed event (NaN when none came)
 * @param endToEndSeconds from sending to the response's last byte
 * @param status the HTTP status, or 0 when the request failed without one
 */
public record LoadResult(String jobClass, double firstTokenSeconds, double endToEndSeconds, int status) {}
