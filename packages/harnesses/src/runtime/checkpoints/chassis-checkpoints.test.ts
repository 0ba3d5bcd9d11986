import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ReinsEvent, ReinsEventSchema } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { assertStreamInvariants } from '../../../../testkit/src/conformance/invariants.js';
import { until } from '../../../../testkit/src/polling/until.js';
import { type ChassisTurn, SessionChassis, type TurnHost } from '../chassis/session-chassis.js';
import { filesOnly, sessionDiff, sessionRevert } from './session-methods.js';
import { makeTestRepo, type TestRepo } from './test-repo.js';

/** A harness whose every turn runs a shell command in the cwd, the way an agent's shell tool does. */
class ShellHarness implements TurnHost {
  chassis!: SessionChassis;
  constructor(private readonly cwd: string) {}
  beginTurn(turn: ChassisTurn): void {
    execFileSync('sh', ['-c', turn.input.text], { cwd: this.cwd });
    setImmediate(() => this.chassis.complete(turn, { outcome: { status: 'completed' } }));
  }
}

function start(cwd: string, { checkpoints }: { checkpoints?: boolean } = { checkpoints: true }) {
  const harness = new ShellHarness(cwd);
  const chassis = new SessionChassis(harness, {
    harness: 'codex',
    displayName: 'Fake',
    sessionId: 'rs_chassis',
    structuredOutput: 'emulated',
    spec: { cwd, ...(checkpoints === undefined ? {} : { checkpoints }) },
  });
  harness.chassis = chassis;
  const events: ReinsEvent[] = [];
  void (async () => {
    for await (const event of chassis.events) events.push(event);
  })();
  return { chassis, events };
}

/** Waits for `done` over the events so far; a failure lists the event types seen. */
const untilEvents = (events: ReinsEvent[], done: (events: ReinsEvent[]) => boolean) =>
  until(
    () => done(events),
    () => `the events; saw ${events.map((event) => event.type).join(', ')}`,
    15_000,
  );

const checkpoints = (events: ReinsEvent[]) => events.filter((event) => event.type === 'checkpoint');

let repo: TestRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

describe('the chassis takes a checkpoint around every turn', () => {
  it('keeps none when the spec says false, or says nothing and REINS_CHECKPOINTS=off (as in these test tiers)', () => {
    repo = makeTestRepo();
    expect(process.env.REINS_CHECKPOINTS).toBe('off');
    expect(start(repo.dir, { checkpoints: false }).chassis.checkpoints).toBeUndefined();
    expect(start(repo.dir, {}).chassis.checkpoints).toBeUndefined();
    expect(start(repo.dir, { checkpoints: true }).chassis.checkpoints).toBeDefined();
  });

  it("emits each turn's checkpoint after its turn.completed, stamped with that turn, queued turns included", async () => {
    repo = makeTestRepo();
    const { chassis, events } = start(repo.dir);
    await chassis.send('echo one >> a.txt');
    await chassis.send('echo two > two.txt'); // queued: its "before" must follow turn_1's "after"
    await untilEvents(events, (seen) => checkpoints(seen).length === 2);
    const [first, second] = checkpoints(events);
    expect(first).toMatchObject({ turnId: 'turn_1', changes: [{ path: 'a.txt', kind: 'modified' }] });
    expect(second).toMatchObject({ turnId: 'turn_2', changes: [{ path: 'two.txt', kind: 'added' }] });
    const completedAt = events.findIndex((event) => event.type === 'turn.completed' && event.turnId === 'turn_1');
    expect(events.indexOf(first as ReinsEvent)).toBeGreaterThan(completedAt);
    for (const event of checkpoints(events)) expect(ReinsEventSchema.safeParse(event).success).toBe(true);
    chassis.stream.close('requested');
    assertStreamInvariants(events);
  });

  it('diffs and reverts through the session methods, refusing while a turn is queued', async () => {
    repo = makeTestRepo();
    const { chassis, events } = start(repo.dir);
    await chassis.send('echo agent > b.txt');
    await untilEvents(events, (seen) => checkpoints(seen).length === 1);
    expect((await sessionDiff(chassis, 'codex', 'turn_1')).changes[0]?.diff).toContain('+agent');
    const result = await sessionRevert(chassis, 'codex', 'turn_1', {}, filesOnly);
    expect(result).toEqual({ turnId: 'turn_1', files: ['b.txt'], conversation: 'unchanged' });
    expect(repo.read('b.txt')).toBe('bravo\n');
    await chassis.send('sleep 1');
    await expect(sessionRevert(chassis, 'codex', 'turn_2', {}, filesOnly)).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'turn_running' },
    });
  });

  it('keeps no checkpoints outside a git work tree unless asked by name, and says so', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-chassis-plain-'));
    // The default (no spec.checkpoints, REINS_CHECKPOINTS not off): on only in a git work tree.
    const before = process.env.REINS_CHECKPOINTS;
    delete process.env.REINS_CHECKPOINTS;
    try {
      const { chassis, events } = start(dir, {});
      await chassis.send('echo x > x.txt');
      await untilEvents(events, (seen) => seen.some((event) => event.type === 'turn.completed'));
      await chassis.checkpoints?.settled();
      expect(checkpoints(events)).toEqual([]);
      await expect(sessionDiff(chassis, 'codex')).rejects.toMatchObject({ code: 'unsupported_capability' });
    } finally {
      if (before !== undefined) process.env.REINS_CHECKPOINTS = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
