// classifyLine: which Claude Code stdout lines the process bridge hands the Agent SDK, which it
// reports as garbage (passthrough), judged against JSON.parse on every line that is not the
// JSON.stringify shape the bridge forwards unparsed.
import { describe, expect, test } from 'vitest';
import { classifyLine } from './process-bridge.js';

describe('classifyLine', () => {
  test('stream-json lines as Claude Code writes them go to the SDK unchanged', () => {
    for (const line of [
      '{"type":"system","subtype":"init","session_id":"s"}',
      '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"}"}}}',
      '{}',
    ])
      expect(classifyLine(line)).toBe('object');
  });

  test('JSON objects in another layout are parsed here and still reach the SDK', () => {
    expect(classifyLine('{ "type": "result" }')).toBe('object');
    expect(classifyLine('  {"type":"result"}  ')).toBe('padded-object');
    expect(classifyLine('{"type":"result"}\r')).toBe('padded-object');
    expect(classifyLine('{ }')).toBe('object');
  });

  test('a long line nesting past the depth limit never reaches the SDK (its parse would hold the event loop)', () => {
    const deep = `{"type":"assistant","content":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(classifyLine(deep)).toBe('too-deep');
    expect(classifyLine(`{"type":"assistant","text":"${'['.repeat(20_000)}"}`)).toBe('object');
  });

  test('the JSON.stringify shape is not parsed here: the SDK judges it (and skips it when broken)', () => {
    expect(classifyLine('{"type":"result",}')).toBe('object');
    expect(classifyLine('{"type":"ass{"type":"result"}')).toBe('object');
  });

  test('what is not a JSON object is garbage; blank lines are dropped', () => {
    for (const line of [
      'this is not json {oops',
      '{ code: "ENOENT", errno: -2 }', // util.inspect, what a stray console.log prints
      '{ a: 1 }',
      '{"type":"result"',
      '{"type":"result"}x',
      '[{"type":"result"}]',
      '"text"',
      '{',
      '}',
      'panic: runtime error',
    ])
      expect(classifyLine(line), line).toBe('garbage');
    expect(classifyLine('')).toBe('blank');
    expect(classifyLine('   \t')).toBe('blank');
  });

  test('off the JSON.stringify shape the verdict is exactly JSON.parse on the trimmed line', () => {
    // Mutations of a real frame, each led by a space so that none has the unparsed shape: each must
    // be forwarded iff JSON.parse takes it.
    const base =
      '{"type":"assistant","message":{"content":[{"type":"text","text":"a \\"b\\""}],"n":[1,2.5e3,null,true]}}';
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['{', '}', '"', ' ', ',', ':', '[', ']', '\\', 'x', '1', '\n', '\t'];
    for (let index = 0; index < 2000; index++) {
      const at = random(base.length);
      const line = ` ${base.slice(0, at)}${alphabet[random(alphabet.length)]}${base.slice(at + random(3))}`;
      let parses = true;
      try {
        JSON.parse(line.trim());
      } catch {
        parses = false;
      }
      const verdict = classifyLine(line);
      if (verdict === 'blank') continue;
      expect(verdict === 'garbage', line).toBe(!(parses && line.trim().startsWith('{')));
    }
  });
});
