import { describe, expect, it } from 'vitest';
import { parsePart, splitRequest, UPLOAD_IDLE_MS, UploadAssembler } from './request-parts.js';

const bytes = (length: number) => Uint8Array.from({ length }, (_, index) => index % 251);

describe('requests in parts', () => {
  it('split then taken in order gives back the same bytes', () => {
    const data = new TextEncoder().encode(JSON.stringify({ method: 'session/send', params: { x: 'é'.repeat(5_000) } }));
    const parts = splitRequest(data, 1_000);
    expect(parts.length).toBe(Math.ceil(data.length / 1_000));
    const uploads = new UploadAssembler();
    const steps = parts.map((part, at) => uploads.take('u1', { index: at + 1, of: parts.length }, part));
    expect(steps.slice(0, -1).every((step) => step.kind === 'more')).toBe(true);
    const last = steps.at(-1);
    expect(last?.kind === 'whole' && Buffer.from(last.data).equals(Buffer.from(data))).toBe(true);
    expect(uploads.size).toBe(0);
  });

  it('two uploads at once do not mix', () => {
    const uploads = new UploadAssembler();
    const a = new TextEncoder().encode('"aaaa"');
    const b = new TextEncoder().encode('"bbbb"');
    expect(uploads.take('a', { index: 1, of: 2 }, a.subarray(0, 3)).kind).toBe('more');
    expect(uploads.take('b', { index: 1, of: 2 }, b.subarray(0, 3)).kind).toBe('more');
    const endA = uploads.take('a', { index: 2, of: 2 }, a.subarray(3));
    const endB = uploads.take('b', { index: 2, of: 2 }, b.subarray(3));
    expect(endA.kind === 'whole' && new TextDecoder().decode(endA.data)).toBe('"aaaa"');
    expect(endB.kind === 'whole' && new TextDecoder().decode(endB.data)).toBe('"bbbb"');
  });

  it('a part out of order, or of an unknown upload, breaks the upload', () => {
    const uploads = new UploadAssembler();
    expect(uploads.take('u', { index: 2, of: 3 }, bytes(10)).kind).toBe('broken');
    expect(uploads.take('u', { index: 1, of: 3 }, bytes(10)).kind).toBe('more');
    expect(uploads.take('u', { index: 3, of: 3 }, bytes(10)).kind).toBe('broken');
    expect(uploads.size).toBe(0);
  });

  it('an upload whose parts stop coming is forgotten', () => {
    let now = 0;
    const uploads = new UploadAssembler(() => now);
    uploads.take('stale', { index: 1, of: 2 }, bytes(10));
    now += UPLOAD_IDLE_MS + 1;
    uploads.take('fresh', { index: 1, of: 2 }, bytes(10));
    expect(uploads.size).toBe(1);
    expect(uploads.take('stale', { index: 2, of: 2 }, bytes(10)).kind).toBe('broken');
  });

  it('reads only sane part headers', () => {
    expect(parsePart('2/3')).toEqual({ index: 2, of: 3 });
    for (const bad of ['0/3', '4/3', 'x', '', undefined]) expect(parsePart(bad)).toBeUndefined();
  });
});
