import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RestartQueue } from '../src/restartQueue';

/** A restart that finishes when the test says so, recording overlaps. */
function controlled() {
  const log: string[] = [];
  const finishers: Array<(err?: Error) => void> = [];
  let active = 0;
  let maxActive = 0;
  const queue = new RestartQueue(
    () =>
      new Promise<void>((resolve, reject) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        const n = finishers.length + 1;
        log.push(`start ${n}`);
        finishers.push((err) => {
          active -= 1;
          log.push(`end ${n}`);
          if (err) {
            reject(err);
          } else {
            resolve();
          }
        });
      }),
  );
  const tick = () => new Promise((r) => setImmediate(r));
  return { queue, log, finishers, tick, maxActive: () => maxActive };
}

test('an idle queue restarts at once', async () => {
  const c = controlled();
  const p = c.queue.request();
  assert.deepEqual(c.log, ['start 1']);
  c.finishers[0]();
  await p;
  assert.equal(c.queue.busy, false);
  assert.equal(c.queue.started, 1);
});

test('requests during a restart coalesce into exactly one more, run after it', async () => {
  const c = controlled();
  const first = c.queue.request();
  const second = c.queue.request();
  const third = c.queue.request();
  const fourth = c.queue.request();
  assert.equal(second, third);
  assert.equal(third, fourth);
  await c.tick();
  assert.deepEqual(c.log, ['start 1']); // nothing overlaps the running restart
  c.finishers[0]();
  await first;
  await c.tick();
  assert.deepEqual(c.log, ['start 1', 'end 1', 'start 2']);
  c.finishers[1]();
  await second;
  assert.equal(c.queue.started, 2);
  assert.equal(c.maxActive(), 1);
});

test('a request during the queued restart waits for another one', async () => {
  const c = controlled();
  c.queue.request();
  const queued = c.queue.request();
  c.finishers[0]();
  await c.tick();
  await c.tick();
  assert.deepEqual(c.log, ['start 1', 'end 1', 'start 2']);
  const later = c.queue.request(); // 2 is running: this one must see the newest settings
  assert.notEqual(later, queued);
  c.finishers[1]();
  await queued;
  await c.tick();
  assert.deepEqual(c.log, ['start 1', 'end 1', 'start 2', 'end 2', 'start 3']);
  c.finishers[2]();
  await later;
  assert.equal(c.maxActive(), 1);
});

test('a failed restart rejects its callers but does not block the queue', async () => {
  const c = controlled();
  const first = c.queue.request();
  const second = c.queue.request();
  c.finishers[0](new Error('python missing'));
  await assert.rejects(first, /python missing/);
  await c.tick();
  assert.deepEqual(c.log, ['start 1', 'end 1', 'start 2']);
  c.finishers[1]();
  await second;
  const third = c.queue.request();
  assert.deepEqual(c.log.at(-1), 'start 3');
  c.finishers[2]();
  await third;
});

test('a restart that throws synchronously is a rejected promise, not an exception', async () => {
  const q = new RestartQueue(() => {
    throw new Error('boom');
  });
  await assert.rejects(q.request(), /boom/);
  assert.equal(q.busy, false);
});
