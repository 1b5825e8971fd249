package dev.triage.bench.relay;

import dev.triage.bench.TextEvents;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Counts the generated tokens of a streamed answer as its bytes go by: one per server-sent event
 * whose JSON carries generated text ({@link TextEvents}), which is one token per event on llama.cpp
 * and vLLM; {@code [DONE]} counts nothing either. An event split across chunks is counted when its
 * line ends.
 */
final class GeneratedTokenCounter {

    /** A longer line is not an event of one token; it is skipped. */
    static final int MAX_LINE = 1 << 20;

    private byte[] line = new byte[256];
    private int length;
    private boolean overflowed;

    /** Reads the readable bytes of {@code chunk}, leaving its indexes alone; returns the tokens whose events ended in it. */
    int accept(ByteBuf chunk) {
        int tokens = 0;
        for (int i = chunk.readerIndex(), end = chunk.writerIndex(); i < end; i++) {
            byte b = chunk.getByte(i);
            if (b == '\n') {
                if (!overflowed && TextEvents.lineCarriesText(line, length)) {
                    tokens++;
                }
                length = 0;
                overflowed = false;
            } else if (length < MAX_LINE) {
                if (length == line.length) {
                    line = Arrays.copyOf(line, Math.min(MAX_LINE, 2 * line.length));
                }
                line[length++] = b;
            } else {
                overflowed = true;
            }
        }
        return tokens;
    }

}
