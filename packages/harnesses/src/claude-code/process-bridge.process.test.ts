// The Claude Code process bridge on a real child: what reaches the Agent SDK's stdout (every JSON
// object line, byte for byte, in order), what is reported as garbage, the frame tap seeing every
// line, and an over-long line skipped whole and reported as a fault.
import { afterEach, describe, expect, test } from 'vitest';
import type { ProcessFault } from '../runtime/index.js';
import { liveProcessCount } from '../runtime/index.js';
import { SdkProcessBridge } from './process-bridge.js';

afterEach(() => {
  expect(liveProcessCount()).toBe(0);
});

/** Runs `script` as the child and collects what the SDK would read, the garbage and the faults. */
async function bridgeOutput(script: string) {
  const garbage: unknown[] = [];
  const faults: ProcessFault[] = [];
  const tapped: string[] = [];
  const bridge = new SdkProcessBridge(
    {
      command: process.execPath,
      args: ['-e', script],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH },
      signal: new AbortController().signal,
    },
    {
      label: 'bridge test',
      onGarbage: (line) => garbage.push(line),
      onFault: (fault) => faults.push(fault),
      tap: (direction, line) => {
        if (direction === 'out') tapped.push(line);
      },
    },
  );
  let stdout = '';
  bridge.stdout.setEncoding('utf8');
  bridge.stdout.on('data', (chunk: string) => {
    stdout += chunk;
  });
  await new Promise((resolve) => bridge.once('exit', resolve));
  await bridge.process.close();
  return { stdout, garbage, faults, tapped };
}

describe('SdkProcessBridge', () => {
  test('JSON lines reach the SDK unchanged and in order; garbage is reported, never forwarded', async () => {
    const lines = [
      '{"type":"system","subtype":"init"}',
      'this is not json {oops',
      '{ code: "ENOENT" }',
      '  {"type":"assistant","message":{"content":[]}}  ',
      '',
      '{ "type": "user" }',
      '{"type":"result","subtype":"success","result":"a}b"}',
    ];
    const { stdout, garbage, faults, tapped } = await bridgeOutput(
      `process.stdout.write(${JSON.stringify(`${lines.join('\n')}\n`)})`,
    );
    expect(stdout.split('\n')).toEqual([
      '{"type":"system","subtype":"init"}',
      '{"type":"assistant","message":{"content":[]}}',
      '{ "type": "user" }',
      '{"type":"result","subtype":"success","result":"a}b"}',
      '',
    ]);
    expect(garbage).toEqual(['this is not json {oops', '{ code: "ENOENT" }']);
    expect(faults).toEqual([]);
    // HarnessProcess hands over no empty line; the tap sees every other line, garbage included.
    expect(tapped).toEqual(lines.filter((line) => line !== ''));
  });

  test('a long line is followed by a blank one, so the SDK reader does not hold it while the session idles', async () => {
    const long = JSON.stringify({ type: 'control_response', padding: 'x'.repeat(5000) });
    const { stdout } = await bridgeOutput(
      `process.stdout.write(${JSON.stringify(`{"type":"short"}\n${long}\n{"type":"last"}\n`)})`,
    );
    expect(stdout.split('\n')).toEqual(['{"type":"short"}', long, '', '{"type":"last"}', '']);
  });

  test('a line over the limit is skipped whole and reported; the lines around it still arrive', async () => {
    // 64 MiB is HarnessProcess' limit (runtime/child-process.ts MAX_LINE_BYTES).
    const { stdout, garbage, faults } = await bridgeOutput(
      [
        `process.stdout.write('{"type":"before"}\\n');`,
        `process.stdout.write('{"type":"huge","text":"' + 'x'.repeat(64 * 1024 * 1024) + '"}\\n');`,
        `process.stdout.write('{"type":"after"}\\n');`,
      ].join(''),
    );
    expect(stdout).toBe('{"type":"before"}\n{"type":"after"}\n');
    expect(garbage).toEqual([]);
    expect(faults).toEqual([{ kind: 'oversize_line', bytes: 64 * 1024 * 1024 + 25 }]);
  });
});
