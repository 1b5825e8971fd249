package dev.triage.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ResponseTokenCounterTest {

    private static OptionalLong count(String body, int piece) {
        return read(body, piece).tokens();
    }

    /** Feeds {@code body} in pieces of {@code piece} bytes, as a backend's chunks would arrive. */
    private static ResponseTokenCounter read(String body, int piece) {
        ResponseTokenCounter counter = new ResponseTokenCounter();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += piece) {
            ByteBuf chunk = Unpooled.wrappedBuffer(bytes, i, Math.min(piece, bytes.length - i));
            int reader = chunk.readerIndex();
            counter.accept(chunk);
            assertEquals(reader, chunk.readerIndex(), "the chunk is read, not consumed");
        }
        return counter;
    }

    @Test
    void readsOpenAiUsageWhateverTheChunking() {
        String body = "{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"hi \\\"completion_tokens\\\": 9\"}}],"
                + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\" : 345,\"total_tokens\":357}}";
        for (int piece : new int[] {1, 2, 3, 7, 1000}) {
            assertEquals(OptionalLong.of(345), count(body, piece), "pieces of " + piece);
        }
    }

    /**
     * Chunks longer than the block a direct buffer is copied into, with a long answer (read by the fast
     * path through strings) full of escapes and quoted keys, and the reported count across the block's end.
     */
    @Test
    void readsChunksLongerThanItsBlockWithLongStringsAndEscapes() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 3_900; i++) {
            text.append("word ").append(i).append(i % 50 == 0 ? " \\\"completion_tokens\\\": 7 \\n" : "");
        }
        String head = "{\"choices\":[{\"message\":{\"content\":\"";
        String tail = "\"}}],\"usage\":{\"completion_tokens\":4321}}";
        // The count's digits straddle byte 4096, where the first block ends.
        int fill = 4094 - head.length() - text.length() - tail.indexOf("4321");
        String body = head + text + "x".repeat(fill) + tail;
        assertEquals(4094, body.indexOf("4321"));
        for (int piece : new int[] {body.length(), 4095, 4097}) {
            assertEquals(OptionalLong.of(4321), countDirect(body, piece), "direct pieces of " + piece);
            assertEquals(OptionalLong.of(4321), count(body, piece), "heap pieces of " + piece);
        }
    }

    /** A line break inside a long string (not JSON, or out of step) starts a line whose "data:" still makes an event. */
    @Test
    void anEventAfterALineBreakInsideALongStringIsCounted() {
        String body = "\"" + "a".repeat(21) + "\ndata: x\" \"content\":\"y\"\n\n";
        for (int piece : new int[] {1, 5, 1000}) {
            assertEquals(OptionalLong.of(1), count(body, piece), "pieces of " + piece);
            assertEquals(OptionalLong.of(1), countDirect(body, piece), "direct pieces of " + piece);
        }
    }

    /** As {@link #count}, each piece in a direct buffer, as Netty reads a socket. */
    private static OptionalLong countDirect(String body, int piece) {
        ResponseTokenCounter counter = new ResponseTokenCounter();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += piece) {
            ByteBuf chunk = Unpooled.directBuffer(piece).writeBytes(bytes, i, Math.min(piece, bytes.length - i));
            try {
                counter.accept(chunk);
            } finally {
                chunk.release();
            }
        }
        return counter.tokens();
    }

    @Test
    void readsOllamasEvalCountFromTheLastStreamedLine() {
        String ndjson = "{\"message\":{\"content\":\"a\"},\"done\":false}\n"
                + "{\"message\":{\"content\":\"b\"},\"done\":false}\n"
                + "{\"done\":true,\"prompt_eval_count\":26,\"eval_count\":290}\n";
        assertEquals(OptionalLong.of(290), count(ndjson, 5));
    }

    @Test
    void countsSseEventsWhenNoUsageIsReported() {
        StringBuilder sse = new StringBuilder();
        for (int i = 0; i < 17; i++) {
            sse.append("data: {\"choices\":[{\"delta\":{\"content\":\"t").append(i).append("\"}}]}\n\n");
        }
        sse.append("data: [DONE]\n\n");
        assertEquals(OptionalLong.of(17), count(sse.toString(), 4));
        assertEquals(OptionalLong.of(17), count(sse.toString().replace("\n", "\r\n"), 9));
    }

    @Test
    void theRoleAndFinishEventsOfAChatStreamAreNotTokens() {
        StringBuilder sse = new StringBuilder("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n");
        for (int i = 0; i < 5; i++) {
            sse.append("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\n").append(i).append("\"}}]}\n\n");
        }
        sse.append("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
                .append("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":null},\"finish_reason\":\"length\"}]}\n\n")
                .append("data: [DONE]\n\n");
        for (int piece : new int[] {1, 5, 1000}) {
            assertEquals(OptionalLong.of(5), count(sse.toString(), piece), "pieces of " + piece);
        }
    }

    @Test
    void completionsAndReasoningAndToolCallStreamsCountTheirText() {
        String sse = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{\\\"x\"}}]}}]}\n\n"
                + "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\n";
        assertEquals(OptionalLong.of(3), count(sse, 3));
    }

    /** As llama-server's own /completion and /completions answer: tokens_predicted, whole or streamed. */
    @Test
    void readsLlamaServersNativeCount() {
        String whole = "{\"index\":0,\"content\":\"aei ihric\",\"tokens\":[],\"stop\":true,\"tokens_predicted\":3,"
                + "\"tokens_evaluated\":2,\"generation_settings\":{\"max_tokens\":3,\"n_predict\":3},\"timings\":{\"predicted_n\":3}}";
        String stream = "data: {\"index\":0,\"content\":\" nkq\",\"stop\":false,\"tokens_predicted\":1,\"tokens_evaluated\":2}\n\n"
                + "data: {\"index\":0,\"content\":\" djw\",\"stop\":false,\"tokens_predicted\":2,\"tokens_evaluated\":2}\n\n"
                + "data: {\"index\":0,\"content\":\"\",\"stop\":true,\"tokens_predicted\":2,\"tokens_evaluated\":2}\n\n";
        for (int piece : new int[] {1, 5, 1000}) {
            assertEquals(OptionalLong.of(3), count(whole, piece), "whole, pieces of " + piece);
            assertEquals(OptionalLong.of(2), count(stream, piece), "stream, pieces of " + piece);
        }
    }

    @Test
    void aStreamThatReportsUsageIsBelievedOverItsEventCount() {
        String sse = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":40}}\n\n"
                + "data: [DONE]\n\n";
        assertEquals(OptionalLong.of(40), count(sse, 6));
    }

    @Test
    void nothingToReadIsUnknown() {
        assertEquals(OptionalLong.empty(), count("{\"text\":\"a transcript\"}", 3));
        assertEquals(OptionalLong.empty(), count("", 1));
    }

    @Test
    void anErrorReportedInTheMiddleOfAStreamIsNoted() {
        String llamaCpp = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                + "data: {\"error\":{\"code\":500,\"message\":\"the KV cache is full\",\"type\":\"server_error\"}}\n\n";
        String ollama = "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"model runner has unexpectedly stopped\"}\n";
        for (int piece : new int[] {1, 4, 1000}) {
            assertTrue(read(llamaCpp, piece).reportedError(), "llama.cpp, pieces of " + piece);
            assertTrue(read(ollama, piece).reportedError(), "Ollama, pieces of " + piece);
        }
    }

    @Test
    void olderLlamaCppsErrorLineAndTheResponsesApisFailureEventsAreNoted() {
        String olderLlamaCpp = "data: {\"content\":\"a\",\"stop\":false}\n\n"
                + "error: {\"content\":\"slot unavailable\"}\n\n";
        String responsesError = "event: response.output_text.delta\n"
                + "data: {\"type\":\"response.output_text.delta\",\"delta\":\"a\",\"sequence_number\":4}\n\n"
                + "event: error\n"
                + "data: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"x\",\"sequence_number\":5}\n\n";
        String responsesFailed = "event: response.in_progress\r\ndata: {\"type\":\"response.in_progress\"}\r\n\r\n"
                + "event: response.failed\r\n"
                + "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\"}}\r\n\r\n";
        String withoutSpace = "event:response.failed\n"
                + "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\"}}\n\n";
        for (int piece : new int[] {1, 4, 1000}) {
            assertTrue(read(olderLlamaCpp, piece).reportedError(), "older llama.cpp, pieces of " + piece);
            assertTrue(read(responsesError, piece).reportedError(), "Responses error, pieces of " + piece);
            assertTrue(read(responsesFailed, piece).reportedError(), "Responses failed, pieces of " + piece);
            assertTrue(read(withoutSpace, piece).reportedError(), "Responses failed with no space, pieces of " + piece);
        }
    }

    @Test
    void otherEventsAndLinesAreNotErrors() {
        String stream = "event: response.created\n"
                + "data: {\"type\":\"response.created\",\"response\":{\"error\":null}}\n\n"
                + "event: response.output_text.delta\n"
                + "data: {\"type\":\"response.output_text.delta\",\"delta\":\"error: none\"}\n\n"
                + "event: errors\n"
                + "event: response.failed.not\n"
                + "event: response.completed\n"
                + "data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"output_tokens\":7}}}\n\n";
        for (int piece : new int[] {1, 3, 1000}) {
            ResponseTokenCounter counter = read(stream, piece);
            assertFalse(counter.reportedError(), "pieces of " + piece);
            assertEquals(OptionalLong.of(7), counter.tokens(), "pieces of " + piece);
        }
    }

    /** Only a top-level error object or string counts: not one inside an answer's text, a tool's arguments, or a null. */
    @Test
    void anErrorKeyElsewhereIsNotAnError() {
        String answers = "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"error\\\": \\\"x\\\"}\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"error\":null}\n\n"
                + "data: [DONE]\n\n"
                + "{\"message\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"error\":\"none\"}}}]},\"done\":true}\n"
                + "{\"error\":false}\n";
        for (int piece : new int[] {1, 3, 1000}) {
            assertFalse(read(answers, piece).reportedError(), "pieces of " + piece);
        }
    }
}
