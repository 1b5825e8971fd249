// What the tests share: the three Triages the Java side started, and ways to watch their queues.
import assert from 'node:assert/strict';

export const roomy = process.env.TRIAGE_URL;
export const tight = process.env.TRIAGE_TIGHT_URL;
export const preemptive = process.env.TRIAGE_PREEMPTIVE_URL;
assert.ok(roomy && tight && preemptive,
  'TRIAGE_URL, TRIAGE_TIGHT_URL and TRIAGE_PREEMPTIVE_URL name the Triages under test (NodeClientsTest sets them)');

/** A max_tokens that keeps the only slot busy for minutes: long enough for any test to let go first. */
export const HOLDING_TOKENS = 200000;

/** The chat backend's queue as Triage's admin API shows it. */
export async function queue(base) {
  const response = await fetch(`${base}/triage/queue`);
  assert.equal(response.status, 200);
  return (await response.json()).backends[0];
}

/** Waits for condition() to hold, checking every 5 ms, failing after 20 s. */
export async function until(what, condition) {
  const deadline = Date.now() + 20000;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      assert.fail(`timed out after 20000 ms waiting for: ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const waiting = (base, requests) =>
  until(`${requests} request(s) waiting in Triage's queue`, async () => (await queue(base)).waiting.length === requests);

export const slotFree = (base) => until("the backend's slot to be free", async () => (await queue(base)).busySlots === 0);

/** The sum of a metric's samples whose labels include these, from Triage's /metrics. */
export async function metric(base, name, labels = {}) {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const present = Object.fromEntries([...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) total += Number(sample[3]);
  }
  return total;
}
