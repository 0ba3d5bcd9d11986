// claude-agent-acp 0.23.1 (pinned in harness-clis) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentText, of } from '../../../test/support/acp-real.js';
import { liveProcessCount } from '../../runtime/index.js';
import { assertStreamRules } from '../testing.js';

let server: ModelServer;
let rig: AcpRig;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async (context) => {
  server.reset();
  rig = await acpRig('claude-agent-acp', server, { scenario: context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase(), extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('claude-agent-acp', () => {
  it('text turn', async () => {
    server.enqueue(reply().reasoning('Thinking about a greeting.').text('Hello from the fake model.').usage({ input: 100, output: 20 }));
    const { session, reader } = await rig.open();
    await session.send('Say hello please.');
    const { events, completed } = await reader.turn(60_000);
    expect(of(events, 'item.delta').filter((e) => e.kind === 'text').length).toBeGreaterThan(0);
    expect(agentText(events)).toBe('Hello from the fake model.');
    expect(completed.outcome).toEqual({ status: 'completed' });
    expect(completed.stopReason).toBe('end_turn');
    assertStreamRules(reader.all);
  });
});
