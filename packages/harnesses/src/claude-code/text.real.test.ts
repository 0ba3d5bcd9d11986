// Real Claude Code (the pinned CLI; the version is read from harness-clis): a plain text turn streams deltas, ends with one agent message, usage,
// context window and the provider's cost; the binary that ran is the discovered one.
import { createRequire } from 'node:module';
import { pinnedVersion, reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: text turn', () => {
  test('text turn with deltas, usage and provider cost', async () => {
    rig = await claudeRig('text-turn');
    rig.server.enqueue(
      reply().reasoning('Thinking it over.').text('Hello from the scripted model!').usage({ input: 120, output: 9 }),
    );
    const { session, recorder } = await rig.open();
    const sent = await session.send('Say hello');
    expect(sent.delivery).toBe('started');
    const done = await recorder.terminalOf(sent);
    expect(done.outcome).toEqual({ status: 'completed' });

    const events = recorder.turnEvents(sent.turnId);
    const message = events.find((event) => event.type === 'item.completed' && event.item.kind === 'agent_message');
    expect(message?.type === 'item.completed' && message.item).toMatchObject({
      kind: 'agent_message',
      status: 'completed',
      text: 'Hello from the scripted model!',
    });
    const textDeltas = events.filter((event) => event.type === 'item.delta' && event.kind === 'text');
    expect(textDeltas.length).toBeGreaterThan(1);
    expect(textDeltas.map((event) => (event.type === 'item.delta' ? event.text : '')).join('')).toBe(
      'Hello from the scripted model!',
    );
    expect(events.some((event) => event.type === 'item.delta' && event.kind === 'reasoning')).toBe(true);
    const reasoning = events.find((event) => event.type === 'item.completed' && event.item.kind === 'reasoning');
    expect(reasoning?.type === 'item.completed' && reasoning.item).toMatchObject({ text: 'Thinking it over.' });

    // Usage of this turn as the server reported it, the model's window, and the CLI's own cost figure.
    expect(done.usage?.turn).toMatchObject({ input: 120, output: 9 });
    expect(done.usage?.context?.window).toBeGreaterThan(0);
    expect(done.usage?.costUsd?.source).toBe('provider');
    expect(done.usage?.costUsd?.currency).toBe('USD');
    expect(done.usage?.costUsd?.amount).toBeGreaterThan(0);

    // The conversation id is fixed up front and init confirms it; the metered test key is flagged.
    const updates = recorder.ofType('session.updated');
    expect(updates[0]?.nativeSessionId).toBe(session.nativeSessionId);
    expect(updates.some((event) => event.apiKeySource === 'ANTHROPIC_API_KEY')).toBe(true);
    expect(recorder.ofType('notice').some((event) => event.kind === 'metered_key')).toBe(true);

    // What the model server received: Claude Code's own system prompt, and our prompt.
    const request = rig.server.requests.find((entry) => entry.path === '/v1/messages');
    const body = (request?.body ?? {}) as { system?: unknown; messages?: unknown };
    expect(JSON.stringify(body.system)).toContain('Claude Code');
    expect(JSON.stringify(body.messages)).toContain('Say hello');

    await recorder.close();
  });

  test('the binary that ran is the discovered one, not a bundled CLI', async () => {
    rig = await claudeRig('binary-identity');
    const found = await rig.harness.discover();
    expect(found.found && found.binary.path).toBe(rig.binary.command);
    expect(found.found && found.binary.version).toBe(pinnedVersion('claude-code'));
    // health reads `claude auth status` (local, no request): the hermetic fake key counts as logged in.
    const health = await rig.harness.health();
    expect(health).toMatchObject({ status: 'ready', authMethods: ['api_key'] });
    const models = await rig.harness.models?.();
    expect(models?.length).toBeGreaterThan(0);
    expect(rig.server.requests.filter((entry) => entry.path === '/v1/messages')).toEqual([]);
    const require_ = createRequire(import.meta.url);
    expect(() => require_.resolve('@anthropic-ai/claude-agent-sdk-linux-x64')).toThrow();
    const { session, recorder } = await rig.open();
    const turn = await session.send('hi');
    await recorder.terminalOf(turn);
    const started = recorder.ofType('session.started')[0];
    expect(started?.binaryPath).toBe(rig.binary.command);
    expect(started?.harnessVersion).toBe(pinnedVersion('claude-code'));
    const init = recorder.events.find((event) => event.native?.method === 'system/init');
    expect((init?.native?.frame as { claude_code_version?: string } | undefined)?.claude_code_version).toBe(
      pinnedVersion('claude-code'),
    );
    await recorder.close();
  });

  test('system prompt append reaches the model; an ephemeral session leaves no transcript', async () => {
    rig = await claudeRig('ephemeral');
    rig.server.enqueue(reply().text('ok'));
    const { session, recorder } = await rig.open({
      ephemeral: true,
      systemPrompt: { append: 'Always answer in haiku.' },
    });
    const turn = await session.send('hi');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    const body = rig.server.requests.find((entry) => entry.path === '/v1/messages')?.body as { system?: unknown };
    expect(JSON.stringify(body.system)).toContain('Always answer in haiku.');
    expect(JSON.stringify(body.system)).toContain('Claude Code');
    const listed = await rig.harness.listSessions?.({ cwd: rig.workdir });
    expect(listed?.map((entry) => entry.nativeSessionId)).not.toContain(session.nativeSessionId);
    await recorder.close();
  });
});
