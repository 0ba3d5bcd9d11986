// A bounded tail of a text stream (stderr), kept for error messages without growing forever.

export class TextRing {
  private chunks: string[] = [];
  private size = 0;

  constructor(private readonly capacity = 16 * 1024) {}

  push(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.capacity && this.chunks.length > 1) {
      this.size -= (this.chunks.shift() as string).length;
    }
    if (this.size > this.capacity && this.chunks.length === 1) {
      const only = this.chunks[0] as string;
      this.chunks[0] = only.slice(only.length - this.capacity);
      this.size = this.capacity;
    }
  }

  text(): string {
    return this.chunks.join('');
  }

  /** The last `lines` non-empty lines, for a one-paragraph error message. */
  tail(lines = 20): string {
    return this.text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-lines)
      .join('\n');
  }
}
