// Blocks mode's input: blocks checked, attachments assembled from their pieces, user blocks turned
// into turn input.
import { describe, expect, it } from 'vitest';
import { Attachments, BlockError, blockEffortOf, blockInputOf, type ChunkBlock, parseBlock } from './blocks-input.js';

const written: string[] = [];
const writeFile = async (attachment: { id: string; bytes: Buffer }) => {
  written.push(attachment.bytes.toString('utf8'));
  return `/tmp/attachments/${attachment.id}`;
};

function chunks(id: string, bytes: Buffer, size: number, extra: Partial<ChunkBlock> = {}): ChunkBlock[] {
  const out: ChunkBlock[] = [];
  for (let offset = 0, index = 0; offset < bytes.length; offset += size, index++) {
    out.push({
      type: 'attachment.chunk',
      id,
      index,
      data: bytes.subarray(offset, offset + size).toString('base64'),
      ...extra,
    });
  }
  return out;
}

describe('parseBlock', () => {
  it('takes the three kinds of block and refuses the rest with a sentence', () => {
    expect(parseBlock('{"type":"interrupt"}')).toEqual({ type: 'interrupt' });
    expect(parseBlock('{"type":"user","text":"hi","model":"haiku","reasoningEffort":"low"}')).toMatchObject({
      type: 'user',
      model: 'haiku',
    });
    expect(() => parseBlock('{"type":"shout"}')).toThrow(BlockError);
    expect(() => parseBlock('not json')).toThrow(/not JSON/);
    expect(() => parseBlock('{"type":"attachment.chunk","id":"a","index":-1,"data":""}')).toThrow(/index/);
  });

  it('reads the effort a user block asks for', () => {
    expect(blockEffortOf({ type: 'user', reasoningEffort: 'high' })).toBe('high');
    expect(blockEffortOf({ type: 'user', effort: 'default' })).toBeUndefined();
    expect(() => blockEffortOf({ type: 'user', reasoningEffort: 'turbo' })).toThrow(/must be one of/);
  });
});

describe('attachments', () => {
  it('assembles an image from pieces in any order, once the last one is in', async () => {
    const attachments = new Attachments();
    const image = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const pieces = chunks('img', image, 128, { total: 8, mediaType: 'image/png' }).reverse();
    for (const piece of pieces.slice(0, -1)) expect(attachments.add(piece)).toBeUndefined();
    expect(attachments.add(pieces.at(-1) as ChunkBlock)?.bytes.equals(image)).toBe(true);
    const input = await blockInputOf(
      {
        type: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', attachmentId: 'img' },
        ],
      },
      attachments,
      writeFile,
    );
    expect(input).toEqual({
      text: 'What is this?',
      images: [{ source: 'data', mediaType: 'image/png', data: image.toString('base64') }],
    });
    // Used once.
    await expect(blockInputOf({ type: 'user', attachments: ['img'] }, attachments, writeFile)).rejects.toThrow(
      /No attachment img/,
    );
  });

  it('writes a file attachment where the harness can read it (final marks the last piece)', async () => {
    const attachments = new Attachments();
    const pieces = chunks('notes', Buffer.from('line one\nline two\n'), 5, { kind: 'file', name: 'notes.txt' });
    for (const piece of pieces.slice(0, -1)) attachments.add(piece);
    attachments.add({ ...(pieces.at(-1) as ChunkBlock), final: true });
    const input = await blockInputOf({ type: 'user', text: 'Read it', attachments: ['notes'] }, attachments, writeFile);
    expect(input).toEqual({ text: 'Read it', files: [{ path: '/tmp/attachments/notes' }] });
    expect(written.at(-1)).toBe('line one\nline two\n');
  });

  it('says what is missing, and refuses bad or repeated pieces', async () => {
    const attachments = new Attachments();
    attachments.add({ type: 'attachment.chunk', id: 'x', index: 0, total: 2, data: 'AAAA' });
    await expect(blockInputOf({ type: 'user', attachments: ['x'] }, attachments, writeFile)).rejects.toThrow(
      'Attachment x is not complete: 1 of 2 pieces arrived.',
    );
    expect(() => attachments.add({ type: 'attachment.chunk', id: 'x', index: 0, data: 'AAAA' })).toThrow(/came twice/);
    expect(() => attachments.add({ type: 'attachment.chunk', id: 'x', index: 5, data: 'AAAA' })).toThrow(
      /past its total/,
    );
    expect(() => attachments.add({ type: 'attachment.chunk', id: 'y', index: 0, data: '!!!' })).toThrow(/not base64/);
    await expect(blockInputOf({ type: 'user' }, attachments, writeFile)).rejects.toThrow(
      /needs text, content or attachments/,
    );
  });
});
