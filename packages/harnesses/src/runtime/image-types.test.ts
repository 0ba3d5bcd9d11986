// The media type of an image read by path, shared by the Claude Code, ACP and Pi adapters.
import { describe, expect, it } from 'vitest';
import { imageTypeOfPath } from './image-types.js';

describe('imageTypeOfPath', () => {
  it('reads the type from the extension, any case, and knows nothing else', () => {
    expect(imageTypeOfPath('/tmp/shot.PNG')).toBe('image/png');
    expect(imageTypeOfPath('a/b.jpeg')).toBe('image/jpeg');
    expect(imageTypeOfPath('b.jpg')).toBe('image/jpeg');
    expect(imageTypeOfPath('c.gif')).toBe('image/gif');
    expect(imageTypeOfPath('d.webp')).toBe('image/webp');
    expect(imageTypeOfPath('notes.txt')).toBeUndefined();
    expect(imageTypeOfPath('jpg')).toBeUndefined();
  });
});
