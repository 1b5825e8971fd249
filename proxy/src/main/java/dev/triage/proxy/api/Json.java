package dev.triage.proxy.api;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The proxy's one JSON mapper: thread-safe, shared, strict about trailing garbage. */
public final class Json {

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        // Bodies are already bounded by max-body; lift Jackson's own 20 MB string cap so that the
        // configured limit, not the parser, decides.
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxStringLength(Integer.MAX_VALUE).build());
    }

    private Json() {}
}
