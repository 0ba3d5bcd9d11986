import { describe, expect, it } from 'vitest';
import { eventMessageId, memberOfKey, processKey, sessionOfSubject } from './layout.js';
import { credentialsOf } from './nats.js';
import {
  checkHeartbeatTtl,
  heartbeatIntervalMs,
  labelsMatch,
  parseClusterUrls,
  parseLabels,
  parseRole,
  redactUrl,
} from './options.js';

describe('cluster options', () => {
  it('takes nats urls, several comma-separated, and refuses anything else with the form to use', () => {
    expect(parseClusterUrls('nats://127.0.0.1:4222')).toEqual(['nats://127.0.0.1:4222']);
    expect(parseClusterUrls('nats://a:4222, nats://b:4222')).toEqual(['nats://a:4222', 'nats://b:4222']);
    for (const bad of ['', 'http://a:4222', 'nats://a', 'nats://a:4222/x', 'a:4222']) {
      expect(() => parseClusterUrls(bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
    expect(() => parseClusterUrls('tls://a:1')).toThrow(/nats:\/\/HOST:PORT/);
  });

  it('never shows a password from the url', () => {
    expect(redactUrl('nats://reins:s3cret@nats.example:4222')).toBe('nats://reins:***@nats.example:4222');
    expect(redactUrl('nats://nats.example:4222')).toBe('nats://nats.example:4222');
    let message = '';
    try {
      parseClusterUrls('nats://reins:s3cret@host');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('s3cret');
  });

  it("hands a url's user and password (or token) to the client as options, the servers bare", () => {
    expect(credentialsOf(['nats://reins:p%40ss@a:4222', 'nats://b:4222'])).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      auth: { user: 'reins', pass: 'p@ss' },
    });
    expect(credentialsOf(['nats://s3cret@a:4222']).auth).toEqual({ token: 's3cret' });
    expect(credentialsOf(['nats://a:4222']).auth).toEqual({});
  });

  it('parses roles (default all) and labels', () => {
    expect(parseRole(undefined)).toBe('all');
    expect(parseRole('worker')).toBe('worker');
    expect(() => parseRole('leader')).toThrow(/gateway, worker, all/);
    expect(parseLabels('host=build-3, gpu=yes')).toEqual({ host: 'build-3', gpu: 'yes' });
    expect(parseLabels(undefined)).toEqual({});
    for (const bad of ['host', 'host=', '=x', 'host=a b', 'host=a,host=b', 'a=b=c']) {
      expect(() => parseLabels(bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
  });

  it('matches a session to a worker when the worker has every label the session asks for', () => {
    expect(labelsMatch({ host: 'a' }, { host: 'a', gpu: 'yes' })).toBe(true);
    expect(labelsMatch({}, { host: 'a' })).toBe(true);
    expect(labelsMatch(undefined, {})).toBe(true);
    expect(labelsMatch({ host: 'a', gpu: 'yes' }, { host: 'a' })).toBe(false);
    expect(labelsMatch({ host: 'b' }, { host: 'a' })).toBe(false);
  });

  it('beats five times per heartbeat deadline, of at least a second', () => {
    expect(heartbeatIntervalMs(10_000)).toBe(2_000);
    expect(heartbeatIntervalMs(1_000)).toBe(200);
    expect(checkHeartbeatTtl(4_000)).toBe(4_000);
    expect(() => checkHeartbeatTtl(500)).toThrow(/at least 1 s/);
  });
});

describe('cluster layout', () => {
  it('names subjects, message ids and keys', () => {
    expect(eventMessageId('s1', 42)).toBe('s1:42');
    expect(sessionOfSubject('reins.events.s1')).toBe('s1');
    expect(sessionOfSubject('reins.events.a.b')).toBeUndefined();
    expect(sessionOfSubject('other.s1')).toBeUndefined();
    expect(memberOfKey('worker.w-1')).toEqual({ role: 'worker', id: 'w-1' });
    expect(memberOfKey('leader.x')).toBeUndefined();
    expect(processKey('w1', 'boot:123:456')).toBe('w1.boot_123_456');
  });
});
