// The tool names of an init frame (translate.ts, translateInit): whether they are the ones the session
// knows, and the list to keep, made without a joined string or a filtered copy per init frame (the
// bench's translate figure; Claude Code sends ~25 names in every init). tool-names.test.ts holds them to
// what they replace: the names filtered to strings, compared as the lists joined by newlines.

/**
 * Whether the string names in `sent` are `known`, compared as the lists joined by newlines (a name
 * holding a newline may equal two names). Names equal one by one make equal joins, so only a
 * difference needs the joined comparison.
 */
export function sameToolNames(sent: unknown[], known: string[] | undefined): boolean {
  if (known === undefined) return false;
  let at = 0;
  for (const tool of sent) {
    if (typeof tool !== 'string') continue;
    if (at >= known.length || tool !== known[at]) return joinedSameToolNames(sent, known);
    at++;
  }
  return at === known.length || joinedSameToolNames(sent, known);
}

function joinedSameToolNames(sent: unknown[], known: string[]): boolean {
  return sent.filter((tool) => typeof tool === 'string').join('\n') === known.join('\n');
}

/**
 * The string names of an init's tool list, in order: a copy of the list when all are (the usual case).
 * A hole reads as undefined, so a list with holes takes the filter (which skips them) too.
 */
export function toolNames(sent: unknown[]): string[] {
  for (let index = 0; index < sent.length; index++)
    if (typeof sent[index] !== 'string') return sent.filter((tool) => typeof tool === 'string');
  return sent.slice() as string[];
}
