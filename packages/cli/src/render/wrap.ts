// Help text: a long generated list (harness ids, behaviour names) broken into lines that fit a terminal.

/** Splits text at spaces into lines of at most `width` characters (a longer word gets its own line). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** wrap(), the lines after the first indented by `indent` spaces. */
export function wrapIndented(text: string, width: number, indent: number): string {
  return wrap(text, width).join(`\n${' '.repeat(indent)}`);
}
