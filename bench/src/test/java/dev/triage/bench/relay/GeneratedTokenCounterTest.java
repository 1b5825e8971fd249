package dev.triage.bench.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GeneratedTokenCounterTest {

    /** A llama-server chat stream of three tokens, as it sends them: a role chunk, tokens, a finish chunk, [DONE]. */
    private static final String LLAMA_CHAT = """
            data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk"}

            data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" epk"}}],"object":"chat.completion.chunk"}

            data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"tzm"}}],"object":"chat.completion.chunk"}

            data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"q\\"v\\ne"}}],"object":"chat.completion.chunk"}

            data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"object":"chat.completion.chunk","timings":{"predicted_n":3}}

            data: {"choices":[],"usage":{"completion_tokens":3}}

            data: [DONE]

            """;

    @Test
    void countsTheEventsThatCarryTextWhereverTheChunksSplitThem() {
        byte[] bytes = LLAMA_CHAT.getBytes(StandardCharsets.UTF_8);
        for (int size : new int[] {1, 2, 7, 64, bytes.length}) {
            GeneratedTokenCounter counter = new GeneratedTokenCounter();
            int tokens = 0;
            for (int from = 0; from < bytes.length; from += size) {
                ByteBuf chunk = Unpooled.wrappedBuffer(bytes, from, Math.min(size, bytes.length - from));
                tokens += counter.accept(chunk);
                assertEquals(0, chunk.readerIndex(), "the chunk's indexes are left alone");
            }
            assertEquals(3, tokens, "in chunks of " + size);
        }
    }

    @Test
    void completionsAndLlamaCppsNativeStreamCountTheirText() {
        assertEquals(2, new GeneratedTokenCounter().accept(buffer("""
                data: {"choices":[{"index":0,"text":" a"}]}\r
                \r
                data: {"choices":[{"index":0,"text":""}]}\r
                \r
                data: {"content":"b","stop":false}\r
                \r
                data: {"content":"","stop":true}\r
                \r
                """)));
    }

    @Test
    void linesThatAreNotTextEventsCountNothing() {
        GeneratedTokenCounter counter = new GeneratedTokenCounter();
        assertEquals(0, counter.accept(buffer(": a comment\nevent: ping\ndata: not json\ndata:\n{\"content\":\"x\"}\n")));
        // Zero bytes make the parser read UTF-32, and the next four bytes are a character above Unicode's last.
        assertEquals(0, counter.accept(buffer("data:" + "\0".repeat(117) + "\"o\":\"cz\"pr}\n")));
        // An unterminated event counts once its line ends.
        assertEquals(0, counter.accept(buffer("data: {\"content\":\"x\"}")));
        assertEquals(1, counter.accept(buffer("\n")));
    }

    @Test
    void aLineLongerThanTheLimitIsSkippedAndTheNextOneCounts() {
        GeneratedTokenCounter counter = new GeneratedTokenCounter();
        String huge = "data: {\"content\":\"" + "x".repeat(GeneratedTokenCounter.MAX_LINE) + "\"}\n";
        assertEquals(1, counter.accept(buffer(huge + "data: {\"content\":\"y\"}\n")));
    }

    private static ByteBuf buffer(String text) {
        return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
    }
}
