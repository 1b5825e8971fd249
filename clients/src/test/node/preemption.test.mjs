// The npm openai package reading a stream that Triage paused and resumed on the backend (laps, --preemption).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { metric, preemptive, until } from './triage.mjs';

const openai = new OpenAI({ baseURL: `${preemptive}/v1`, apiKey: 'unused', timeout: 60000, maxRetries: 0 });
const streamed = (content, maxTokens) => ({
  model: 'fake', messages: [{ role: 'user', content }], max_tokens: maxTokens,
  stream: true, stream_options: { include_usage: true },
});

/** Every chunk of a stream, as the SDK parsed them. */
async function chunksOf(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

// 3 s of tokens at 15 ms: the short request is sent, queued and the pause made well before the long one could end.
const LONG = 200;

test('a paused and resumed stream parses as one stream: one id, one finish reason, usage as delivered', async () => {
  const chat = { backend: 'chat' };
  const resumesBefore = await metric(preemptive, 'triage_resumes_total', chat);
  const long = await openai.chat.completions.create(streamed('Write at length.', LONG));
  const chunks = long[Symbol.asyncIterator]();
  const first = await chunks.next();
  assert.equal(first.done, false, 'the long stream started');
  // Level 1 ends after 0.3 s of service: the short request pauses the long one once it has had that.
  const short = openai.chat.completions.create(streamed('A short one.', 5)).then(chunksOf);
  const rest = [first.value];
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest.push(next.value);
  await short;
  await until('the long stream was resumed', async () => (await metric(preemptive, 'triage_resumes_total', chat)) === resumesBefore + 1);

  assert.deepEqual([...new Set(rest.map((chunk) => chunk.id))], [rest[0].id], 'one id');
  assert.equal(new Set(rest.map((chunk) => chunk.created)).size, 1, 'one created');
  const choices = rest.flatMap((chunk) => chunk.choices);
  assert.equal(choices.filter((choice) => choice.delta?.role).length, 1, 'one role delta');
  assert.deepEqual(choices.filter((choice) => choice.finish_reason).map((choice) => choice.finish_reason), ['length'], 'one finish reason');
  const delivered = choices.filter((choice) => choice.delta?.content).map((choice) => choice.delta.content);
  assert.equal(delivered.join(''), Array.from({ length: LONG }, (_, i) => `w${i} `).join(''), 'the answer, in order, once');
  const usage = rest.at(-1).usage;
  assert.equal(usage.completion_tokens, delivered.length, 'usage counts the tokens delivered, both runs');
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
});
