// The npm openai package against Triage, changing nothing but the base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import OpenAI from 'openai';
import { HOLDING_TOKENS, metric, queue, roomy, slotFree, tight, until, waiting } from './triage.mjs';

const client = (base, options = {}) => new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', timeout: 120000, ...options });
const chat = (content, maxTokens, extra = {}) => ({
  model: 'replay', messages: [{ role: 'user', content }], max_tokens: maxTokens, ...extra,
});

/** A streamed chat that holds the only slot; resolved once its first chunk arrived. */
async function hold(openai) {
  const stream = await openai.chat.completions.create(chat('Tell me everything.', HOLDING_TOKENS, { stream: true }));
  const chunks = stream[Symbol.asyncIterator]();
  assert.equal((await chunks.next()).done, false, 'the holding stream started');
  return stream;
}

test('chat is answered and scheduled by its own cap', async () => {
  const { data, response } = await client(roomy).chat.completions.create(chat('Name three colours.', 5)).withResponse();
  assert.equal(data.usage.completion_tokens, 5);
  assert.equal(data.choices[0].message.content.split(' ').length, 5);
  assert.equal(data.choices[0].finish_reason, 'length');
  assert.equal(response.headers.get('x-triage-policy'), 'sjf');
  assert.ok(Number(response.headers.get('x-triage-estimate-tokens')) <= 5, 'max_tokens caps the estimate');
});

test('a streamed chat arrives chunk by chunk with its usage', async () => {
  const openai = client(roomy);
  const stream = await openai.chat.completions.create(
    chat('Count to seven.', 7, { stream: true, stream_options: { include_usage: true } }));
  let text = '';
  let contentChunks = 0;
  let usage;
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      if (choice.delta.content) {
        text += choice.delta.content;
        contentChunks++;
      }
    }
    usage = chunk.usage ?? usage;
  }
  assert.equal(contentChunks, 7, 'one chunk per token');
  assert.equal(usage.completion_tokens, 7);
  const whole = await openai.chat.completions.create(chat('Count to seven.', 7));
  assert.equal(text.trim(), whole.choices[0].message.content, 'streamed and whole answers agree');
});

test('completions, transcriptions and models', async () => {
  const openai = client(roomy);
  const completion = await openai.completions.create({ model: 'replay', prompt: 'Once upon a time', max_tokens: 4 });
  assert.equal(completion.choices[0].text.split(' ').length, 4);

  const { data: transcription, response } = await openai.audio.transcriptions
    .create({ file: fs.createReadStream(process.env.TRIAGE_AUDIO_FIXTURE), model: 'whisper-1' }).withResponse();
  assert.ok(transcription.text.length > 0);
  assert.ok(response.headers.get('x-triage-estimate-tokens'), 'scheduled as speech');

  const models = [];
  for await (const model of openai.models.list()) models.push(model.id);
  assert.deepEqual(models, ['replay'], 'passed through to the backend');
});

test('priority in the body goes before the policy and arrival order', async () => {
  const openai = client(roomy, { maxRetries: 0 });
  const holder = await hold(openai);
  const later = openai.chat.completions.create(chat('Same question.', 3, { priority: 5 }));
  await waiting(roomy, 1);
  const sooner = openai.chat.completions.create(chat('Same question.', 3));
  await waiting(roomy, 2);
  assert.deepEqual((await queue(roomy)).waiting.map((w) => w.priority), [0, 5], 'the later arrival with the lower priority goes first');
  holder.controller.abort();
  // The replay backend numbers its answers as requests reach it: chatcmpl-7.
  const backendOrder = async (answer) => Number((await answer).id.split('-').at(-1));
  assert.ok((await backendOrder(sooner)) < (await backendOrder(later)), 'the backend saw priority 0 first');
});

test('aborting a stream frees the slot', async () => {
  const openai = client(roomy, { maxRetries: 0 });
  (await hold(openai)).controller.abort();
  await slotFree(roomy);
  const answer = await openai.chat.completions.create(chat('Still there?', 2));
  assert.equal(answer.usage.completion_tokens, 2);
});

test('a full queue is a RateLimitError, retried; a queue timeout is not retried', async () => {
  let attempts = 0;
  const counting = (url, init) => {
    attempts++;
    return fetch(url, init);
  };
  const once = client(tight, { maxRetries: 0 });
  const holder = await hold(once);
  try {
    const timeoutsBefore = await metric(tight, 'triage_rejected_total', { reason: 'queue_timeout' });
    const waitingChat = client(tight, { maxRetries: 2, fetch: counting }).chat.completions.create(chat('Waiting.', 3));
    const waited = waitingChat.then(() => assert.fail('answered'), (error) => error);
    await waiting(tight, 1);

    const full = await once.chat.completions.create(chat('Refused.', 3)).then(() => assert.fail('answered'), (error) => error);
    assert.ok(full instanceof OpenAI.RateLimitError, String(full));
    assert.equal(full.status, 429);
    assert.equal(full.code, 'queue_full');
    assert.ok(Number(full.headers.get('retry-after')) >= 1);
    let retried = 0;
    const retryOnce = client(tight, { maxRetries: 1, fetch: (url, init) => { retried++; return fetch(url, init); } });
    await retryOnce.chat.completions.create(chat('Refused twice.', 3)).then(() => assert.fail('answered'), () => {});
    assert.equal(retried, 2, 'the SDK retries a full queue, as the README says');

    const late = await waited;
    assert.ok(late instanceof OpenAI.InternalServerError, String(late));
    assert.equal(late.status, 504);
    assert.equal(late.code, 'queue_timeout');
    assert.equal(late.headers.get('x-should-retry'), 'false');
    assert.equal(attempts, 1, 'the SDK honoured x-should-retry: no second wait');
    // Triage records a request's end as a task of its event loop, after the response went out: a
    // scrape on another connection can come first.
    await until('the queue timeout is counted',
      async () => (await metric(tight, 'triage_rejected_total', { reason: 'queue_timeout' })) === timeoutsBefore + 1);
  } finally {
    holder.controller.abort();
  }
  await slotFree(tight);
});
