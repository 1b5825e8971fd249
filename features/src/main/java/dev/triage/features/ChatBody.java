package dev.triage.features;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Reads the parts of an OpenAI or Ollama generation request body that scheduling needs: the prompt
 * text and the client's own cap on the answer's length. One reader serves {@code /v1/chat/completions},
 * {@code /v1/completions}, OpenAI's {@code /v1/responses}, llama.cpp's {@code /completion},
 * {@code /api/chat} and {@code /api/generate}, whose bodies differ only in where these fields live.
 *
 * <pre>{@code
 * JsonNode body = mapper.readTree(bytes);
 * Prompt prompt = ChatBody.prompt(body);
 * OptionalInt cap = ChatBody.maxOutputTokens(body, ChatBody.Api.OPENAI);
 * }</pre>
 */
public final class ChatBody {

    private static final long NO_LIMIT = 0;
    private static final Pattern ZERO_DURATION = Pattern.compile("0+(\\.0*)?(ns|us|µs|ms|s|m|h)?");

    private ChatBody() {}

    /** The API a body is sent to: it decides which fields cap the answer, and whether {@code n} asks for several. */
    public enum Api {
        /** OpenAI's chat and completions routes, and llama-server's own: {@code max_completion_tokens}, {@code max_tokens}, {@code n_predict}. */
        OPENAI,
        /** OpenAI's Responses API ({@code /v1/responses}, llama-server's {@code /responses}): {@code max_output_tokens}. */
        RESPONSES,
        /** Ollama's own API ({@code /api/chat}, {@code /api/generate}): {@code options.num_predict}. */
        OLLAMA;

        /** The API of a route: {@code ollamaApi} for Ollama's own, else by its path (a query may follow it). */
        public static Api of(String path, boolean ollamaApi) {
            return ollamaApi ? OLLAMA : path.startsWith("/v1/responses") || path.startsWith("/responses") ? RESPONSES : OPENAI;
        }

        private List<JsonNode> capFields(JsonNode body) {
            return switch (this) {
                case OPENAI -> List.of(body.path("max_completion_tokens"), body.path("max_tokens"), body.path("n_predict"));
                case RESPONSES -> List.of(body.path("max_output_tokens"));
                case OLLAMA -> List.of(body.path("options").path("num_predict"));
            };
        }
    }

    /**
     * The prompt an estimator scores. For a {@code messages} list it is the last user message's
     * text (a string content, or the text parts of an array content joined by newlines): that is
     * the instruction the answer responds to, while the system prompt and the history set context,
     * which the prompt's shape records (user turns, system characters, every message's characters).
     * For a {@code prompt} field it is that string, or the strings of an array joined by newlines,
     * with Ollama's {@code system} field as its system prompt. The Responses API's {@code input} is
     * read as {@code messages} when it is a list and as {@code prompt} when it is a string (its
     * {@code prompt} is a stored template's reference, not text), its {@code instructions} as the
     * system prompt. The conversation's characters count what the history puts before the model: an
     * assistant's text, tool calls' arguments, tool results. Anything else gives an empty prompt.
     */
    public static Prompt prompt(JsonNode body) {
        // The Responses API's input is a string or a list of messages, its instructions a system prompt.
        JsonNode messages = body.has("messages") ? body.path("messages") : body.path("input");
        JsonNode instructions = body.has("system") ? body.path("system") : body.path("instructions");
        if (!messages.isArray()) {
            JsonNode prompt = body.path("prompt");
            String text = contentText(prompt.isTextual() || prompt.isArray() ? prompt : body.path("input"));
            int system = instructions.isTextual() ? instructions.asText().length() : 0;
            return new Prompt(text, 1, system, text.length() + system);
        }
        String last = null;
        int userTurns = 0;
        int systemChars = 0;
        int conversationChars = 0;
        if (instructions.isTextual()) {
            systemChars += instructions.asText().length();
            conversationChars += instructions.asText().length();
        }
        for (JsonNode message : messages) {
            String role = message.path("role").asText();
            String text = contentText(message.path("content"));
            conversationChars += text.length() + toolChars(message);
            if ("user".equals(role)) {
                userTurns++;
                last = text;
            } else if ("system".equals(role) || "developer".equals(role)) {
                systemChars += text.length();
            }
        }
        return last == null ? new Prompt("", 1, systemChars, conversationChars)
                : new Prompt(last, userTurns, systemChars, conversationChars);
    }

    /**
     * The bound the request sets on its answer's length, in the fields its API reads ({@link Api}): on
     * Ollama's own API {@code options.num_predict} alone, which is all Ollama reads there (a
     * {@code max_tokens} beside it would let a request that runs unbounded pass for short). A backend
     * reads only one of OpenAI's fields (vLLM {@code max_completion_tokens} before {@code max_tokens}
     * and never {@code n_predict}; llama.cpp {@code n_predict} first), so of several the largest is
     * taken: the request must not pass for shorter than the field its backend reads. Zero or a
     * negative value means "no limit" in Ollama and llama.cpp: any field that says so leaves the
     * request unbounded. A whole number written as a decimal ({@code 100.0}) counts, as the servers
     * read it.
     */
    public static OptionalInt maxOutputTokens(JsonNode body, Api api) {
        long largest = NO_LIMIT;
        for (JsonNode field : api.capFields(body)) {
            OptionalLong number = wholeNumber(field);
            if (number.isEmpty()) {
                continue;
            }
            long limit = number.getAsLong();
            if (limit <= 0) {
                return OptionalInt.empty();
            }
            largest = Math.max(largest, limit);
        }
        return largest == NO_LIMIT ? OptionalInt.empty() : OptionalInt.of((int) Math.min(largest, Integer.MAX_VALUE));
    }

    /**
     * Whether the backend's token count for this request measures one whole answer against its bound
     * ({@link #maxOutputTokens}): it asks for one answer, and the fields that cap it agree. Where they
     * differ, the field the backend reads decides where it stops, and an answer shorter than the bound
     * may still have been cut short; the tokens of several answers come summed.
     */
    public static boolean measuresOneAnswer(JsonNode body, Api api) {
        long agreed = Long.MIN_VALUE;
        for (JsonNode field : api.capFields(body)) {
            OptionalLong number = wholeNumber(field);
            if (number.isPresent()) {
                long limit = Math.max(0, number.getAsLong()); // every "no limit" alike
                if (agreed != Long.MIN_VALUE && limit != agreed) {
                    return false;
                }
                agreed = limit;
            }
        }
        return answers(body, api) == 1;
    }

    /**
     * How many answers the request asks for: OpenAI's {@code n}, times the prompts of a
     * {@code /v1/completions} prompt list (all strings, or all lists of token ids; llama.cpp's mix of
     * text and ids is one prompt); 1 otherwise, and always on Ollama's API and the Responses API, which
     * have neither.
     */
    static int answers(JsonNode body, Api api) {
        if (api != Api.OPENAI) {
            return 1;
        }
        JsonNode n = body.path("n");
        long choices = Math.max(1, wholeNumber(n).orElse(1));
        JsonNode prompt = body.path("prompt");
        long prompts = 1;
        if (prompt.isArray() && prompt.size() > 1) {
            boolean texts = true;
            boolean idLists = true;
            for (JsonNode one : prompt) {
                texts &= one.isTextual();
                idLists &= one.isArray();
            }
            prompts = texts || idLists ? prompt.size() : 1;
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.min(choices, Integer.MAX_VALUE) * prompts);
    }

    /**
     * True for a request to Ollama's own API that only loads its model: a chat with no messages, a
     * generation with no prompt, which Ollama answers once the model is in memory; its clients send one
     * before a session ({@code ollama run}). Not one with {@code keep_alive} 0, which unloads the model:
     * sent ahead of the generations waiting for it, it would evict the model they need.
     */
    public static boolean ollamaLoadsOnly(JsonNode body) {
        JsonNode messages = body.path("messages");
        boolean noMessages = !messages.isArray() || messages.isEmpty();
        return noMessages && body.path("prompt").asText("").isEmpty() && !unloads(body.path("keep_alive"));
    }

    /** {@code keep_alive} 0 in seconds or as a duration ({@code "0"}, {@code "0s"}, {@code "0m"}). */
    private static boolean unloads(JsonNode keepAlive) {
        if (keepAlive.isNumber()) {
            return keepAlive.asDouble() == 0;
        }
        return keepAlive.isTextual() && ZERO_DURATION.matcher(keepAlive.asText().trim()).matches();
    }

    /**
     * The whole number a field holds, as the servers read a limit: {@code 100}, or {@code 100.0};
     * saturated past 64 bits, where the low bits alone could read as a small limit ({@code 2^64 + 1}
     * as 1) and put a request that set no real limit at the head of the queue. Empty for anything
     * else (a fraction, a string, no field).
     */
    public static OptionalLong wholeNumber(JsonNode value) {
        if (value.isFloatingPointNumber()) {
            double number = value.asDouble();
            return number == Math.rint(number) ? OptionalLong.of((long) number) : OptionalLong.empty(); // (long) saturates
        }
        if (!value.isIntegralNumber()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(value.canConvertToLong() ? value.asLong() : value.bigIntegerValue().signum() > 0 ? Long.MAX_VALUE : -1);
    }

    /**
     * The characters a message or Responses input item carries beside its content: a chat
     * assistant's {@code tool_calls} arguments (and OpenAI's older {@code function_call}), a Responses
     * {@code function_call}'s {@code arguments}, a {@code function_call_output}'s {@code output}.
     */
    private static int toolChars(JsonNode item) {
        int chars = argumentsChars(item.path("arguments")) + argumentsChars(item.path("function_call").path("arguments"))
                + contentText(item.path("output")).length();
        for (JsonNode call : item.path("tool_calls")) {
            chars += argumentsChars(call.path("function").path("arguments"));
        }
        return chars;
    }

    /** A call's arguments: a JSON string on OpenAI's APIs, an object on Ollama's, as the model reads them. */
    private static int argumentsChars(JsonNode arguments) {
        return arguments.isTextual() ? arguments.asText().length() : arguments.isContainerNode() ? arguments.toString().length() : 0;
    }

    private static String contentText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        if (!content.isArray()) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            // Chat content parts ({"type":"text","text":...}, the Responses API's "input_text", and an
            // earlier answer's "output_text" or "refusal"), or a completions prompt array of strings.
            String type = part.path("type").asText();
            String piece = part.isTextual() ? part.asText()
                    : "text".equals(type) || "input_text".equals(type) || "output_text".equals(type) ? part.path("text").asText()
                    : "refusal".equals(type) ? part.path("refusal").asText() : null;
            if (piece != null) {
                if (text.length() > 0) {
                    text.append('\n');
                }
                text.append(piece);
            }
        }
        return text.toString();
    }
}
