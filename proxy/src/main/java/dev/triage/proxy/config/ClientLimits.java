package dev.triage.proxy.config;

import java.time.Duration;

/**
 * What Triage allows a client connection, so that a slow or silent client cannot hold a backend
 * slot or a connection indefinitely, and many cannot exhaust the process's connections.
 *
 * @param writeTimeout how long a client's socket may take no response bytes before the connection
 *     is closed (and a relay's backend connection and slot with it)
 * @param headerTimeout how long a request head may take from its first byte to its last
 * @param bodyTimeout how long a request body may stall while Triage waits to read it
 * @param maxConnections how many client connections may be open at once; one more is refused
 */
public record ClientLimits(Duration writeTimeout, Duration headerTimeout, Duration bodyTimeout, int maxConnections) {}
