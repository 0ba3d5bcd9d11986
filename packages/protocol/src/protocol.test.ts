// The wire protocol's schemas accept what the daemon and clients send and refuse malformed params
// with a sentence naming the field.
import { describe, expect, it } from 'vitest';
import {
  DaemonInfoSchema,
  describeInvalidParams,
  HOSTED_SESSION_STATES,
  isMethodName,
  METHODS,
  type MethodName,
  negotiateCapabilities,
  negotiateProtocolVersion,
  RPC_ERROR,
  RpcIncomingSchema,
  RpcResponseSchema,
  readSessionEventParams,
  readSessionEventsParams,
  rpcErrorNumber,
  SessionEventParamsSchema,
  SessionEventsParamsSchema,
  SessionsChangedParamsSchema,
  StatusSnapshotParamsSchema,
  v1Status,
} from './index.js';

const good: Record<MethodName, unknown[]> = {
  initialize: [
    { token: 't0k' },
    { token: 't0k', client: { name: 'web', version: '1.0.0' } },
    { token: 't0k', protocolVersion: 2 },
    { token: 't0k', protocolVersion: 2, capabilities: { eventBatches: true } },
    { token: 't0k', protocolVersion: 2, capabilities: {} },
  ],
  'harness/list': [undefined, {}],
  'session/create': [
    { harness: 'codex', spec: { cwd: '/w' } },
    {
      harness: 'claude-code',
      spec: { cwd: '/w', posture: 'ask', effort: 'high', resume: { nativeSessionId: 'abc' } },
      harnessOptions: {
        binaryPath: '/bin/fake',
        baseEnv: { PATH: '/bin' },
        requestTimeoutMs: 500,
        interruptGraceMs: 10,
      },
    },
  ],
  'session/list': [undefined],
  'session/subscribe': [{ sessionId: 's1' }, { sessionId: 's1', afterSeq: 0 }, { sessionId: 's1', afterSeq: 42 }],
  'session/unsubscribe': [{ sessionId: 's1' }],
  'session/send': [
    { sessionId: 's1', input: 'hello' },
    { sessionId: 's1', input: { text: 'hi', files: [{ path: 'a.ts' }] }, options: { mode: 'steer' } },
    { sessionId: 's1', input: 'hi', options: { clientMessageId: 'bubble-1' } },
  ],
  'session/interrupt': [{ sessionId: 's1' }],
  'session/setModel': [{ sessionId: 's1', model: 'gpt-5' }],
  'session/setEffort': [{ sessionId: 's1', effort: 'low' }],
  'session/respondToPermission': [{ sessionId: 's1', requestId: 'r1', decision: { behavior: 'allow', scope: 'once' } }],
  'session/close': [{ sessionId: 's1' }],
  'session/delete': [{ sessionId: 's1' }],
  'harness/models': [{ harness: 'codex' }],
  'harness/capabilities': [{ harness: 'claude-code' }],
  'harness/sessions': [{ harness: 'pi' }, { harness: 'codex', cwd: '/w', limit: 20, offset: 40 }],
  'harness/history': [
    { harness: 'codex', nativeSessionId: 'thr_1' },
    { harness: 'claude-code', nativeSessionId: 'x', cwd: '/w' },
  ],
  'harness/auth/status': [{ harness: 'codex' }],
  'harness/auth/login': [{ harness: 'codex' }, { harness: 'gemini', method: 'oauth-personal' }],
  'harness/auth/cancel': [{ ceremonyId: 'c1' }],
  'session/fork': [{ sessionId: 's1' }],
  'session/mcpStatus': [{ sessionId: 's1' }],
  'session/compact': [{ sessionId: 's1' }],
  'session/diff': [{ sessionId: 's1' }, { sessionId: 's1', turnId: 'r1.turn_2' }],
  'session/nativeFrames': [
    { sessionId: 's1', afterSeq: 0 },
    { sessionId: 's1', afterSeq: 40, limit: 512 },
  ],
  'session/revert': [
    { sessionId: 's1', turnId: 'turn_1' },
    { sessionId: 's1', turnId: 'turn_1', force: true },
  ],
};

const bad: Array<[MethodName, unknown, RegExp]> = [
  ['initialize', {}, /params\.token/],
  ['initialize', { token: '' }, /params\.token: Too small/],
  ['initialize', { token: 't', client: { name: 'x' } }, /params\.client\.version/],
  ['initialize', { token: 't', protocolVersion: 0 }, /params\.protocolVersion/],
  [
    'session/send',
    { sessionId: 's1', input: 'hi', options: { clientMessageId: '' } },
    /params\.options\.clientMessageId/,
  ],
  ['session/delete', {}, /params\.sessionId/],
  ['harness/models', {}, /params\.harness/],
  ['harness/sessions', { harness: 'codex', limit: 501 }, /params\.limit/],
  ['harness/sessions', { harness: 'codex', offset: -1 }, /params\.offset/],
  ['harness/history', { harness: 'codex' }, /params\.nativeSessionId/],
  ['harness/auth/login', { harness: 'codex', method: '' }, /params\.method/],
  ['harness/auth/cancel', {}, /params\.ceremonyId/],
  ['session/fork', {}, /params\.sessionId/],
  ['session/revert', { sessionId: 's1' }, /params\.turnId/],
  ['session/diff', { sessionId: 's1', turnId: '' }, /params\.turnId/],
  ['session/nativeFrames', { sessionId: 's1' }, /params\.afterSeq/],
  ['session/nativeFrames', { sessionId: 's1', afterSeq: 0, limit: 513 }, /params\.limit/],
  ['session/nativeFrames', { sessionId: 's1', afterSeq: -1 }, /params\.afterSeq/],
  ['session/create', { harness: 'cursor', spec: { cwd: '/w' } }, /params\.harness/],
  ['session/create', { harness: 'codex', spec: { cwd: '' } }, /params\.spec\.cwd/],
  ['session/create', { harness: 'codex', spec: { cwd: '/w', posture: 'yolo' } }, /params\.spec\.posture/],
  [
    'session/create',
    { harness: 'codex', spec: { cwd: '/w' }, harnessOptions: { requestTimeoutMs: -1 } },
    /requestTimeoutMs/,
  ],
  ['session/subscribe', { sessionId: 's1', afterSeq: -1 }, /params\.afterSeq/],
  ['session/subscribe', { sessionId: 's1', afterSeq: 1.5 }, /params\.afterSeq/],
  ['session/subscribe', undefined, /params: /],
  ['session/send', { sessionId: 's1' }, /params\.input/],
  ['session/send', { sessionId: 's1', input: 'x', options: { mode: 'shout' } }, /params\.options\.mode/],
  ['session/setEffort', { sessionId: 's1', effort: 'extreme' }, /params\.effort/],
  ['session/setModel', { sessionId: 's1', model: '' }, /params\.model/],
  [
    'session/respondToPermission',
    { sessionId: 's1', requestId: 'r', decision: { behavior: 'maybe' } },
    /decision\.behavior/,
  ],
  ['session/close', { sessionId: '' }, /params\.sessionId/],
  ['session/close', {}, /params\.sessionId/],
];

describe('protocol params', () => {
  it('accepts well-formed params of every method', () => {
    for (const [method, samples] of Object.entries(good) as Array<[MethodName, unknown[]]>) {
      for (const params of samples) {
        const result = METHODS[method].params.safeParse(params);
        expect(result.success, `${method} ${JSON.stringify(params)}`).toBe(true);
      }
    }
  });

  it('refuses bad params with a sentence naming the field', () => {
    for (const [method, params, field] of bad) {
      const result = METHODS[method].params.safeParse(params);
      expect(result.success, `${method} ${JSON.stringify(params)}`).toBe(false);
      if (result.success) continue;
      const sentence = describeInvalidParams(result.error, method);
      expect(sentence).toMatch(new RegExp(`^Invalid params for ${method.replace('/', '\\/')}: `));
      expect(sentence).toMatch(field);
    }
  });

  it('keeps harness-specific options (they ride along to the adapter)', () => {
    const parsed = METHODS['session/create'].params.parse({
      harness: 'codex',
      spec: { cwd: '/w' },
      harnessOptions: { interruptGraceMs: 5 },
    });
    expect(parsed.harnessOptions).toEqual({ interruptGraceMs: 5 });
  });

  it('knows its methods and maps error codes to JSON-RPC numbers', () => {
    expect(isMethodName('session/send')).toBe(true);
    expect(isMethodName('session/explode')).toBe(false);
    expect(isMethodName('toString')).toBe(false);
    expect(rpcErrorNumber('auth_required')).toBe(RPC_ERROR.authRequired);
    expect(rpcErrorNumber('invalid_input')).toBe(RPC_ERROR.invalidParams);
    expect(rpcErrorNumber('timeout')).toBe(RPC_ERROR.reins);
  });
});

describe('protocol results and envelopes', () => {
  it('validates answers a client receives', () => {
    expect(
      METHODS.initialize.result.safeParse({ protocolVersion: 1, reinsVersion: '0.1.0', harnesses: ['codex'] }).success,
    ).toBe(true);
    expect(
      METHODS.initialize.result.safeParse({ protocolVersion: 1, reinsVersion: '0.1.0', harnesses: ['cursor'] }).success,
    ).toBe(false);
    expect(METHODS['session/send'].result.safeParse({ turnId: 't1', delivery: 'started' }).success).toBe(true);
    expect(METHODS['session/send'].result.safeParse({ turnId: 't1', delivery: 'maybe' }).success).toBe(false);
    expect(
      METHODS['session/list'].result.safeParse([
        { sessionId: 's', harness: 'codex', cwd: '/w', status: 'dormant', lastSeq: 3, createdAt: 1, updatedAt: 2 },
      ]).success,
    ).toBe(true);
    // A version 1 listing (no cwd, no updatedAt) is not a version 2 one.
    expect(
      METHODS['session/list'].result.safeParse([
        { sessionId: 's', harness: 'codex', status: 'closed', lastSeq: 3, createdAt: 1 },
      ]).success,
    ).toBe(false);
    expect(
      METHODS['session/list'].result.safeParse([
        { sessionId: 's', harness: 'codex', cwd: '/w', status: 'asleep', lastSeq: 3, createdAt: 1, updatedAt: 2 },
      ]).success,
    ).toBe(false);
    expect(
      METHODS['harness/list'].result.safeParse([
        {
          id: 'codex',
          displayName: 'Codex',
          discovery: { found: true, path: '/bin/codex', version: '0.169.0', source: 'path' },
          health: { status: 'ready' },
        },
      ]).success,
    ).toBe(true);
    expect(
      METHODS['session/subscribe'].result.safeParse({ lastSeq: -1, harness: 'codex', status: 'idle' }).success,
    ).toBe(false);
  });

  it('tells requests, responses and event notifications apart', () => {
    expect(RpcIncomingSchema.safeParse({ jsonrpc: '2.0', id: 1, method: 'session/list' }).success).toBe(true);
    expect(RpcIncomingSchema.safeParse({ jsonrpc: '1.0', id: 1, method: 'session/list' }).success).toBe(false);
    expect(RpcIncomingSchema.safeParse({ jsonrpc: '2.0', id: {}, method: 'x' }).success).toBe(false);
    expect(RpcResponseSchema.safeParse({ jsonrpc: '2.0', id: 1, result: null }).success).toBe(true);
    expect(
      RpcResponseSchema.safeParse({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'no', data: {} } })
        .success,
    ).toBe(true);
    // JSON-RPC 2.0: a success response must carry `result`.
    expect(RpcResponseSchema.safeParse({ jsonrpc: '2.0', id: 1 }).success).toBe(false);
    const event = {
      type: 'session.status',
      seq: 3,
      harness: 'codex',
      sessionId: 's',
      turnId: null,
      at: 1,
      status: 'idle',
    };
    expect(SessionEventParamsSchema.safeParse({ sessionId: 's', event }).success).toBe(true);
    expect(SessionEventParamsSchema.safeParse({ sessionId: 's', event: { ...event, seq: 0 } }).success).toBe(false);
    // A newer daemon's event type still passes: the client hands it on instead of dropping the link.
    expect(
      SessionEventParamsSchema.safeParse({ sessionId: 's', event: { ...event, type: 'future.thing' } }).success,
    ).toBe(true);
  });

  it('reads session/event params like the schema does, without copying what fits', () => {
    const event = { type: 'item.delta', seq: 7, harness: 'codex', sessionId: 's', turnId: 't', at: 1, text: 'x' };
    const params = { sessionId: 's', event };
    const read = readSessionEventParams(params);
    // The fast path hands on the very object, in the daemon's key order.
    expect(read).toBe(params);
    expect(Object.keys(read?.event ?? {})).toEqual(Object.keys(event));
    // Every variation is accepted exactly when the schema accepts it, and the event then carries the
    // same fields (whether it came through the fast check or the schema).
    const values: unknown[] = [undefined, null, 0, -1, 1.5, 2 ** 60, Number.NaN, '', 's', 'item.delta', [], {}, true];
    const cases: unknown[] = [undefined, null, 'x', [], [params], { ...params, extra: 1 }];
    for (const value of values) {
      cases.push({ ...params, sessionId: value }, { ...params, event: value });
      for (const field of ['type', 'seq', 'sessionId']) cases.push({ ...params, event: { ...event, [field]: value } });
      cases.push({ ...params, event: { type: 'x', seq: 1 } }, { event });
    }
    for (const candidate of cases) {
      const schema = SessionEventParamsSchema.safeParse(candidate);
      const fast = readSessionEventParams(candidate);
      expect(fast !== undefined, JSON.stringify(candidate) ?? String(candidate)).toBe(schema.success);
      if (schema.success) {
        expect(fast?.sessionId).toBe(schema.data.sessionId);
        expect(fast?.event).toEqual(schema.data.event);
      }
    }
  });

  it('reads session/events params like the schema does, without copying what fits', () => {
    const event = { type: 'item.delta', seq: 7, harness: 'codex', sessionId: 's', turnId: 't', at: 1, text: 'x' };
    const next = { ...event, seq: 8 };
    const params = { sessionId: 's', events: [event, next] };
    const read = readSessionEventsParams(params);
    expect(read).toBe(params);
    expect(read?.events[0]).toBe(event);
    const values: unknown[] = [undefined, null, 0, -1, 1.5, 2 ** 60, Number.NaN, '', 's', 'item.delta', [], {}, true];
    const cases: unknown[] = [undefined, null, 'x', [], [params], { ...params, extra: 1 }, { ...params, events: [] }];
    for (const value of values) {
      cases.push({ ...params, sessionId: value }, { ...params, events: value }, { ...params, events: [event, value] });
      for (const field of ['type', 'seq', 'sessionId']) {
        cases.push({ ...params, events: [event, { ...next, [field]: value }] });
        cases.push({ ...params, events: [{ ...event, [field]: value }] });
      }
    }
    for (const candidate of cases) {
      const schema = SessionEventsParamsSchema.safeParse(candidate);
      const fast = readSessionEventsParams(candidate);
      expect(fast !== undefined, JSON.stringify(candidate) ?? String(candidate)).toBe(schema.success);
      if (schema.success) expect(fast?.events).toEqual(schema.data.events);
    }
  });

  it('grants event batches, event parts and omitted native frames only to a version 2 connection that asked for them', () => {
    const none = { eventBatches: false, eventParts: false, omitNative: false };
    expect(negotiateCapabilities(2, { eventBatches: true })).toEqual({ ...none, eventBatches: true });
    expect(negotiateCapabilities(2, { eventParts: true })).toEqual({ ...none, eventParts: true });
    expect(negotiateCapabilities(2, { omitNative: true })).toEqual({ ...none, omitNative: true });
    expect(negotiateCapabilities(2, {})).toEqual(none);
    expect(negotiateCapabilities(2, undefined)).toEqual(none);
    expect(negotiateCapabilities(1, { eventBatches: true, eventParts: true, omitNative: true })).toEqual(none);
    // A newer client's unknown capability is ignored, not refused.
    expect(METHODS.initialize.params.safeParse({ token: 't', capabilities: { eventBatches: true, later: 1 } })).toEqual(
      { success: true, data: { token: 't', capabilities: { eventBatches: true } } },
    );
  });

  it('describes daemon.json', () => {
    const info = { url: 'ws://127.0.0.1:1234', pid: 10, token: 'x', protocolVersion: 1, startedAt: 5 };
    expect(DaemonInfoSchema.safeParse(info).success).toBe(true);
    expect(DaemonInfoSchema.safeParse({ ...info, token: '' }).success).toBe(false);
  });
});

describe('version negotiation and version 1 shapes', () => {
  it('serves version 1 to a client that asks for none (or for 1), version 2 to one that asks for 2 or more', () => {
    expect(negotiateProtocolVersion(undefined)).toBe(1);
    expect(negotiateProtocolVersion(1)).toBe(1);
    expect(negotiateProtocolVersion(2)).toBe(2);
    expect(negotiateProtocolVersion(7)).toBe(2);
  });

  it('maps the seven states onto the four a version 1 client knows', () => {
    expect(HOSTED_SESSION_STATES).toEqual([
      'starting',
      'idle',
      'running',
      'requires_action',
      'dormant',
      'closed',
      'lost',
    ]);
    expect(HOSTED_SESSION_STATES.map(v1Status)).toEqual([
      'idle',
      'idle',
      'running',
      'requires_action',
      'idle',
      'closed',
      'closed',
    ]);
  });

  it('checks the notifications', () => {
    expect(
      StatusSnapshotParamsSchema.safeParse({
        sessions: [{ sessionId: 's', status: 'dormant', lastSeq: 3, updatedAt: 1 }],
      }).success,
    ).toBe(true);
    expect(
      StatusSnapshotParamsSchema.safeParse({
        sessions: [{ sessionId: 's', status: 'asleep', lastSeq: 3, updatedAt: 1 }],
      }).success,
    ).toBe(false);
    expect(SessionsChangedParamsSchema.safeParse({ sessionId: 's', change: 'deleted' }).success).toBe(true);
    expect(SessionsChangedParamsSchema.safeParse({ sessionId: 's', change: 'renamed' }).success).toBe(false);
  });
});

describe('the UI-backend answers and notification', () => {
  it('checks what the daemon answers', async () => {
    const { HarnessAuthChangedParamsSchema } = await import('./index.js');
    expect(
      METHODS['harness/models'].result.safeParse([{ id: 'm', efforts: ['low'], defaultEffort: 'low' }]).success,
    ).toBe(true);
    expect(METHODS['harness/models'].result.safeParse([{ id: 'm', efforts: ['turbo'] }]).success).toBe(false);
    expect(
      METHODS['harness/auth/login'].result.safeParse({
        ceremonyId: 'c',
        url: 'http://127.0.0.1/x',
        instructions: 'Open it.',
      }).success,
    ).toBe(true);
    expect(METHODS['harness/auth/login'].result.safeParse({ ceremonyId: 'c' }).success).toBe(false);
    expect(
      METHODS['session/mcpStatus'].result.safeParse([{ name: 'n', status: 'failed', error: 'ENOENT' }]).success,
    ).toBe(true);
    expect(METHODS['session/mcpStatus'].result.safeParse([{ name: 'n', status: 'broken' }]).success).toBe(false);
    expect(
      METHODS['harness/history'].result.safeParse([
        { kind: 'user_message', id: 'u', status: 'completed', text: 'x', origin: 'synthetic' },
      ]).success,
    ).toBe(true);
    expect(HarnessAuthChangedParamsSchema.safeParse({ harness: 'codex', status: 'signed_in' }).success).toBe(true);
    expect(HarnessAuthChangedParamsSchema.safeParse({ harness: 'codex', status: 'maybe' }).success).toBe(false);
    const listing = METHODS['harness/list'].result.safeParse([
      {
        id: 'codex',
        displayName: 'Codex',
        discovery: { found: true },
        health: { status: 'ready' },
        auth: { status: 'signed_out', command: 'codex login' },
      },
    ]);
    expect(listing.success).toBe(true);
  });
});
