package dev.triage.proxy.preemption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StreamSplicerTest {

    private static String feed(StreamSplicer splicer, String... chunks) {
        StringBuilder sent = new StringBuilder();
        for (String chunk : chunks) {
            ByteBuf in = Unpooled.copiedBuffer(chunk, StandardCharsets.UTF_8);
            ByteBuf out = Unpooled.buffer();
            try {
                splicer.append(in, out);
                assertEquals(0, in.readerIndex(), "the input's indexes are left alone");
                sent.append(out.toString(StandardCharsets.UTF_8));
            } finally {
                in.release();
                out.release();
            }
        }
        return sent.toString();
    }

    private static String end(StreamSplicer splicer) {
        ByteBuf out = Unpooled.buffer();
        try {
            splicer.end(out);
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    private static String chat(String id, long created, String delta, String finish) {
        return "data: {\"id\":\"" + id + "\",\"created\":" + created + ",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":" + (finish == null ? "null" : "\"" + finish + "\"") + "}]}\n\n";
    }

    @Test
    void onlyWholeEventsGoOutAndTheFirstRunPassesUnchanged() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
        String role = chat("a", 1, "{\"role\":\"assistant\",\"content\":null}", null);
        String hello = chat("a", 1, "{\"content\":\"Hel\"}", null);
        assertEquals(role, feed(splicer, role + hello.substring(0, 20)));
        assertEquals(hello, feed(splicer, hello.substring(20)));
        assertEquals(1, splicer.tokens());
        assertEquals("Hel", splicer.text());
        assertTrue(splicer.pausable());
    }

    @Test
    void aResumedRunLooksLikeTheFirst() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
        feed(splicer, chat("a", 1, "{\"role\":\"assistant\",\"content\":null}", null), chat("a", 1, "{\"content\":\"Hel\"}", null),
                chat("a", 1, "{\"content\":\"lo\"}", null), "data: {\"id\":\"a\",\"choi");
        splicer.startRun();
        String resumed = feed(splicer, chat("b", 2, "{\"role\":\"assistant\",\"content\":null}", null),
                chat("b", 2, "{\"content\":\" world\"}", null), chat("b", 2, "{}", "length"),
                "data: {\"id\":\"b\",\"created\":2,\"choices\":[],\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":12,\"total_tokens\":13}}\n\n",
                "data: [DONE]\n\n");
        assertEquals("data: {\"id\":\"a\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":null}]}\n\n"
                + "data: {\"id\":\"a\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
                + "data: {\"id\":\"a\",\"created\":1,\"choices\":[],\"usage\":{\"completion_tokens\":3,\"prompt_tokens\":10,\"total_tokens\":13}}\n\n"
                + "data: [DONE]\n\n", resumed);
        assertEquals("Hello world", splicer.text());
        assertEquals(3, splicer.tokens());
        assertTrue(splicer.finished());
        assertFalse(splicer.pausable());
    }

    @Test
    void completionsCountTheirTextAndSumUsageInTheFinishEvent() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_COMPLETION, false);
        feed(splicer, "data: {\"id\":\"x\",\"choices\":[{\"text\":\"one \",\"finish_reason\":null}]}\r\n\r\n");
        splicer.startRun();
        String resumed = feed(splicer, "data: {\"id\":\"y\",\"choices\":[{\"text\":\"two\",\"finish_reason\":\"length\"}],"
                + "\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":4,\"total_tokens\":5}}\r\n\r\n");
        assertEquals("data: {\"id\":\"x\",\"choices\":[{\"text\":\"two\",\"finish_reason\":\"length\"}],"
                + "\"usage\":{\"completion_tokens\":2,\"prompt_tokens\":3,\"total_tokens\":5}}\n\n", resumed);
        assertEquals("one two", splicer.text());
    }

    private static String withId(String text, int id) {
        return "\"logprobs\":{\"content\":[{\"id\":" + id + ",\"token\":\"" + text + "\",\"logprob\":-1.0,\"top_logprobs\":[]}]}";
    }

    @Test
    void tokenIdsAreKeptAndLogprobsAskedForTheClientAreTakenOut() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, true);
        String out = feed(splicer, chat("a", 1, "{\"role\":\"assistant\",\"content\":null}", null),
                "data: {\"id\":\"a\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}," + withId("Hel", 31) + "}]}\n\n",
                "data: {\"id\":\"a\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}," + withId("lo", 4) + "}]}\n\n");
        assertFalse(out.contains("logprobs"), out);
        assertTrue(out.endsWith("data: {\"id\":\"a\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n"), out);
        assertArrayEquals(new int[] {31, 4}, splicer.tokenIds());
        assertEquals(2, splicer.tokens());

        StreamSplicer kept = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
        String event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}," + withId("Hel", 31) + "}]}\n\n";
        assertEquals(event, feed(kept, event), "logprobs the client asked for pass as they came");
        assertArrayEquals(new int[] {31}, kept.tokenIds());
    }

    @Test
    void anEventWithTextButNoIdsLeavesTheAnswerWithoutIds() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_COMPLETION, true);
        assertEquals(null, splicer.tokenIds(), "no tokens yet");
        feed(splicer, "data: {\"choices\":[{\"text\":\"a\"," + withId("a", 3) + "}]}\n\n");
        assertArrayEquals(new int[] {3}, splicer.tokenIds());
        String out = feed(splicer, "data: {\"choices\":[{\"text\":\"b\",\"logprobs\":null}]}\n\n");
        assertEquals("data: {\"choices\":[{\"text\":\"b\",\"logprobs\":null}]}\n\n", out);
        assertEquals(null, splicer.tokenIds());
        assertEquals(2, splicer.tokens());
    }

    /** "é" is two bytes, 195 and 169, each a token of its own; llama-server sends the first one's text with the second. */
    @Test
    void idsAreTheAnswersOnlyWhereTheirBytesSpellItsText() {
        String caf = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\"},\"logprobs\":{\"content\":"
                + "[{\"id\":7,\"token\":\"caf\",\"bytes\":[99,97,102],\"logprob\":-1.0,\"top_logprobs\":[]}]}}]}\n\n";
        String heldBack = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"logprobs\":{\"content\":"
                + "[{\"id\":195,\"token\":\"\",\"bytes\":[195],\"logprob\":-1.0,\"top_logprobs\":[]}]}}]}\n\n";
        String rest = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"é\"},\"logprobs\":{\"content\":"
                + "[{\"id\":169,\"token\":\"\",\"bytes\":[169],\"logprob\":-1.0,\"top_logprobs\":[]}]}}]}\n\n";

        StreamSplicer named = new StreamSplicer(StreamFormat.OPENAI_CHAT, true);
        feed(named, caf, heldBack);
        assertEquals(null, named.tokenIds(), "the ids have a byte the text has not yet: a resume would skip it");
        feed(named, rest);
        assertEquals("café", named.text());
        assertArrayEquals(new int[] {7, 195, 169}, named.tokenIds(), "every byte's token named");

        StreamSplicer unnamed = new StreamSplicer(StreamFormat.OPENAI_CHAT, true);
        feed(unnamed, caf, rest);
        assertEquals("café", unnamed.text());
        assertEquals(null, unnamed.tokenIds(), "the ids miss the first byte of é: the answer resumes by its text");
    }

    @Test
    void aStreamWithAReasoningModelsThoughtsHasNoIdsToResumeBy() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, true);
        feed(splicer, "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Hm\"}," + withId("Hm", 8) + "}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Yes\"}," + withId("Yes", 9) + "}]}\n\n");
        assertEquals("Yes", splicer.text());
        assertEquals(null, splicer.tokenIds(), "the ids would continue the thoughts as text");
    }

    @Test
    void aChatResumedOnTheCompletionsRouteReachesItsClientAsChatChunks() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, true);
        feed(splicer, chat("a", 1, "{\"role\":\"assistant\",\"content\":null}", null), chat("a", 1, "{\"content\":\"Hel\"}", null));
        splicer.startRun();
        String resumed = feed(splicer,
                "data: {\"choices\":[{\"text\":\"lo\",\"index\":0," + withId("lo", 4) + ",\"finish_reason\":null}],"
                        + "\"created\":2,\"object\":\"text_completion\",\"id\":\"b\"}\n\n",
                "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}],\"created\":2,"
                        + "\"object\":\"text_completion\",\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":11,\"total_tokens\":12},\"id\":\"b\"}\n\n",
                "data: [DONE]\n\n");
        assertEquals("data: {\"choices\":[{\"index\":0,\"finish_reason\":null,\"delta\":{\"content\":\"lo\"}}],\"created\":1,"
                + "\"object\":\"chat.completion.chunk\",\"id\":\"a\"}\n\n"
                + "data: {\"choices\":[{\"index\":0,\"finish_reason\":\"length\",\"delta\":{}}],\"created\":1,"
                + "\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":2,\"prompt_tokens\":10,\"total_tokens\":12},\"id\":\"a\"}\n\n"
                + "data: [DONE]\n\n", resumed);
        assertEquals("Hello", splicer.text());
        assertTrue(splicer.finished());
    }

    @Test
    void ollamaLinesCountTheirTextAndSumTheirCounts() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OLLAMA_CHAT, false);
        String first = "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n";
        assertEquals(first, feed(splicer, first, "{\"message\":{\"role\":\"assis"));
        splicer.startRun();
        String last = feed(splicer, "{\"message\":{\"role\":\"assistant\",\"content\":\" there\"},\"done\":false}\n",
                "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"eval_count\":1,\"prompt_eval_count\":9}\n");
        assertTrue(last.endsWith("{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"eval_count\":2,\"prompt_eval_count\":8}\n"),
                last);
        assertEquals("Hi there", splicer.text());
        assertTrue(splicer.finished());

        StreamSplicer generate = new StreamSplicer(StreamFormat.OLLAMA_GENERATE, false);
        feed(generate, "{\"response\":\"a\",\"done\":false}\n{\"response\":\"b\",\"done\":false}\n");
        assertEquals("ab", generate.text());
        assertEquals(2, generate.tokens());
    }

    @Test
    void whatIsNotJsonPassesAsItCameAndTheRemainderGoesAtTheEnd() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
        assertEquals(": keep-alive\n\n", feed(splicer, ": keep-alive\n\n"));
        assertEquals("", feed(splicer, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}"));
        assertEquals("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", end(splicer));
        assertEquals(1, splicer.tokens());

        // Bytes in no encoding JSON allows are not JSON either, not an error: zero bytes make the parser read
        // UTF-32, and the next four bytes are a character above Unicode's last.
        String notUnicode = "data:" + "\0".repeat(117) + "\"o\":\"cz\"pr}\n\n";
        assertEquals(notUnicode, feed(new StreamSplicer(StreamFormat.OPENAI_CHAT, false), notUnicode));
    }

    @Test
    void anEventTooLargeToHoldIsRelayedAndEndsPausing() {
        StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
        String huge = "data: {\"choices\":[{\"delta\":{\"content\":\"" + "y".repeat(StreamSplicer.MAX_EVENT_BYTES) + "\"}}]}";
        assertEquals(huge, feed(splicer, huge));
        assertFalse(splicer.pausable());
        assertEquals("\n\n", feed(splicer, "\n\n"));
    }
}
