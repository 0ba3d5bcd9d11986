// Agent text as readable blocks: fenced code, headings, lists, quotes and paragraphs, with inline
// code, bold and italics. A small reader of the Markdown models write, producing plain data that the
// view turns into elements (never HTML: nothing the model writes can become markup or script).

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] };

export type Block =
  | { type: 'code'; lang?: string; text: string }
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'list'; ordered: boolean; items: Inline[][] }
  | { type: 'quote'; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] };

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)\s*$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d+[.)]\s+(.*)$/;

export function parseMarkdown(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n')) });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      index++;
      // An unclosed fence (still streaming) runs to the end.
      while (index < lines.length && !(lines[index] as string).trim().startsWith(fence[1] as string)) {
        body.push(lines[index] as string);
        index++;
      }
      blocks.push({ type: 'code', ...(fence[2] ? { lang: fence[2] } : {}), text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({
        type: 'heading',
        level: (heading[1] as string).length,
        children: parseInline(heading[2] as string),
      });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? undefined : NUMBERED.exec(line);
    if (bullet || numbered) {
      flush();
      const ordered = Boolean(numbered);
      const pattern = ordered ? NUMBERED : BULLET;
      const items: Inline[][] = [];
      let current: RegExpExecArray | null = bullet ?? numbered ?? null;
      while (current) {
        items.push(parseInline(current[1] as string));
        const following = lines[index + 1];
        current = following === undefined ? null : pattern.exec(following);
        if (current) index++;
      }
      blocks.push({ type: 'list', ordered, items });
      continue;
    }
    if (line.startsWith('>')) {
      flush();
      blocks.push({ type: 'quote', children: parseInline(line.replace(/^>\s?/, '')) });
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return blocks;
}

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  const pattern =
    /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])|(?<!\w)_([^_\s][^_]*?)_(?!\w)/;
  while (rest.length > 0) {
    const match = pattern.exec(rest);
    if (!match) {
      out.push({ type: 'text', text: rest });
      break;
    }
    if (match.index > 0) out.push({ type: 'text', text: rest.slice(0, match.index) });
    if (match[2] !== undefined) out.push({ type: 'code', text: match[2] });
    else if (match[3] !== undefined) out.push({ type: 'strong', children: parseInline(match[3]) });
    else out.push({ type: 'em', children: parseInline((match[4] ?? match[5]) as string) });
    rest = rest.slice(match.index + match[0].length);
  }
  return out;
}
