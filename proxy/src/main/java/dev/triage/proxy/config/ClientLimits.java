package dev.triage.proxy.config;

import java.time.Duration;

/**
 * What Triage allows a client connection, so that a slow or silent client cannot hold a backend
 * slot or a connection indefinitely.
 *
 * @param writeTimeout how long a client's socket may take no response bytes before the connection
 *     is closed (and a relay's backend connection and slot with it)
 */
public record ClientLimits(Duration writeTimeout) {}
