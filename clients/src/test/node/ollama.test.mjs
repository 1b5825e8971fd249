// The npm ollama package, Ollama's own client, against Triage in front of a backend that speaks Ollama's API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { HOLDING_TOKENS, metric, roomy, slotFree } from './triage.mjs';

const ollama = new Ollama({ host: roomy });
const user = (content) => [{ role: 'user', content }];

test('a streamed /api/chat is scheduled, and Triage counts its eval_count', async () => {
  const tokensBefore = await metric(roomy, 'triage_actual_tokens_sum');
  const requestsBefore = await metric(roomy, 'triage_request_seconds_count');
  const stream = await ollama.chat({ model: 'replay', messages: user('List six fruits.'), stream: true, options: { num_predict: 6 } });
  const parts = [];
  for await (const part of stream) parts.push(part);
  const last = parts.at(-1);
  assert.equal(parts.length, 7, 'a line per token, then the last');
  assert.ok(parts.slice(0, -1).every((part) => !part.done && part.message.role === 'assistant'));
  assert.equal(last.done, true);
  assert.equal(last.done_reason, 'length');
  assert.equal(last.eval_count, 6);
  const text = parts.map((part) => part.message.content).join('').trim();
  assert.equal(text.split(' ').length, 6);
  // Triage records a request just after its last byte went out.
  const deadline = Date.now() + 20000;
  while ((await metric(roomy, 'triage_request_seconds_count')) < requestsBefore + 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(await metric(roomy, 'triage_actual_tokens_sum'), tokensBefore + 6, "Triage read eval_count from the stream's last line");
});

test('/api/generate in one body, and /api/tags passed through', async () => {
  const answer = await ollama.generate({ model: 'replay', prompt: 'Why is the sky blue?', stream: false, options: { num_predict: 4 } });
  assert.equal(answer.done, true);
  assert.equal(answer.eval_count, 4);
  assert.equal(answer.response.split(' ').length, 4);
  const { models } = await ollama.list();
  assert.deepEqual(models.map((model) => model.name), ['replay']);
});

test('aborting a streamed /api/generate frees the slot', async () => {
  const client = new Ollama({ host: roomy });
  const stream = await client.generate({ model: 'replay', prompt: 'Tell me everything.', stream: true, options: { num_predict: HOLDING_TOKENS } });
  const parts = stream[Symbol.asyncIterator]();
  assert.equal((await parts.next()).done, false, 'the stream started');
  stream.abort();
  await slotFree(roomy);
  const answer = await client.generate({ model: 'replay', prompt: 'Still there?', stream: false, options: { num_predict: 2 } });
  assert.equal(answer.eval_count, 2);
});
