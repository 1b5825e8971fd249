package dev.triage.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;

/**
 * Triage's backends at a moment, as {@code /triage/queue} shows them: busy slots and waiting requests
 * summed over every backend.
 */
record QueueState(int busySlots, int waiting) {

    private static final ObjectMapper JSON = new ObjectMapper();

    boolean idle() {
        return busySlots == 0 && waiting == 0;
    }

    static QueueState read(int port, Duration timeout) throws IOException {
        try (HttpConnection connection = HttpConnection.open(port, timeout)) {
            connection.write("GET /triage/queue HTTP/1.1\r\nhost: 127.0.0.1:" + port + "\r\n\r\n");
            HttpConnection.Response response = connection.readResponse();
            if (response == null || response.status() != 200) {
                throw new IOException("/triage/queue: " + (response == null ? "no answer" : response.status()));
            }
            int busy = 0;
            int waiting = 0;
            for (JsonNode backend : JSON.readTree(response.body()).path("backends")) {
                busy += backend.path("busySlots").asInt();
                waiting += backend.path("waiting").size();
            }
            return new QueueState(busy, waiting);
        }
    }
}
