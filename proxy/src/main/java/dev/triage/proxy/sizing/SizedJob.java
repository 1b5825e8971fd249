package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;

/**
 * A scheduled request once read: what it is expected to cost and the client's priority.
 *
 * @param estimate expected output tokens, already capped by the request's own limit
 * @param priority lower is sooner; 0 when the request names none
 * @param promptTokens the prompt the backend prefills, in tokens; 0 when there is none (audio)
 */
public record SizedJob(Estimate estimate, int priority, int promptTokens) {}
