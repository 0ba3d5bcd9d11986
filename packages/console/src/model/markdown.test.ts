import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown.js';

describe('markdown', () => {
  it('reads the blocks models write', () => {
    const blocks = parseMarkdown(
      [
        '## Result',
        '',
        'All **3** tests pass.',
        '',
        '```sh',
        'npm test',
        '```',
        '- one',
        '- two',
        '1. first',
        '> note',
      ].join('\n'),
    );
    expect(blocks.map((block) => block.type)).toEqual(['heading', 'paragraph', 'code', 'list', 'list', 'quote']);
    expect(blocks[2]).toEqual({ type: 'code', lang: 'sh', text: 'npm test' });
    expect(blocks[3]).toMatchObject({ ordered: false, items: [[{ text: 'one' }], [{ text: 'two' }]] });
    expect(blocks[4]).toMatchObject({ ordered: true });
  });

  it('keeps an unclosed fence (text still streaming) as code', () => {
    expect(parseMarkdown('Look:\n```ts\nconst a = 1;')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'Look:' }] },
      { type: 'code', lang: 'ts', text: 'const a = 1;' },
    ]);
  });

  it('reads inline code, bold and italics, and leaves markup characters as text', () => {
    expect(parseInline('run `npm test` **now**, *please* <b>x</b> 2*3*4')).toEqual([
      { type: 'text', text: 'run ' },
      { type: 'code', text: 'npm test' },
      { type: 'text', text: ' ' },
      { type: 'strong', children: [{ type: 'text', text: 'now' }] },
      { type: 'text', text: ', ' },
      { type: 'em', children: [{ type: 'text', text: 'please' }] },
      { type: 'text', text: ' <b>x</b> 2*3*4' },
    ]);
  });
});
