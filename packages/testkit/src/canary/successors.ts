// The canary follows packages, not names: for each pinned package, whether it has a successor that the
// newest-version check of its own name cannot see (claude-agent-acp and codex-acp moved from
// @zed-industries to @agentclientprotocol and the old names simply stopped: docs/architecture/acp.md).
// Evidence, from the package's own registry document only (never a search of the registry):
// - a `deprecated` message on its newest version that names a package;
// - a README that says it moved ("moved to", "now published as", "has a new home", "renamed to") and names a
//   package.
// A named package counts only when the registry has it and it is not the package itself; it is "confirmed"
// when it points at the same source repository. The registry is read over plain HTTP(S) GET of
// `<registry>/<name>` (the npm registry API), so a test can serve it from 127.0.0.1.
import { asRecord, asString } from '../model-server/json.js';

export interface Successor {
  /** The pinned package. */
  name: string;
  successor: string;
  /** Where the evidence came from. */
  evidence: 'deprecated' | 'readme';
  /** The sentence that names the successor (trimmed). */
  says: string;
  /** Both name the same source repository. */
  sameRepository: boolean;
  /** The successor's newest version (its `latest` tag). */
  newest?: string;
}

/** Fetches a package's registry document; undefined when the registry has no such package. */
export type RegistryFetch = (name: string) => Promise<Record<string, unknown> | undefined>;

/** A RegistryFetch over the npm registry API at `registry` (e.g. https://registry.npmjs.org). */
export function registryFetch(registry: string): RegistryFetch {
  const base = registry.replace(/\/+$/, '');
  return async (name) => {
    const response = await fetch(`${base}/${name.replace('/', '%2F')}`, { headers: { accept: 'application/json' } });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`the registry answered ${response.status} for ${name}`);
    return asRecord(await response.json());
  };
}

/** npm package names a text mentions (scoped, or backticked unscoped). */
function namesIn(text: string): string[] {
  const scoped = [...text.matchAll(/@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*/gi)].map((match) => match[0]);
  const quoted = [...text.matchAll(/`([a-z0-9][\w.-]*)`/gi)].map((match) => match[1] as string);
  return [...new Set([...scoped, ...quoted].map((name) => name.replace(/[.,;:)]+$/, '')))];
}

const MOVED =
  /\b(moved to|has moved|now (?:published|lives|maintained) (?:as|at|under)|new home|renamed to|superseded by|successor)\b/i;

/** The sentences of a text that say the package moved. */
function movedSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => MOVED.test(sentence));
}

function repositoryOf(document: Record<string, unknown> | undefined): string | undefined {
  const latest = asString(asRecord(document?.['dist-tags'])?.latest);
  const version = latest ? asRecord(asRecord(document?.versions)?.[latest]) : undefined;
  const repository = document?.repository ?? version?.repository;
  const url = typeof repository === 'string' ? repository : asString(asRecord(repository)?.url);
  // git+https://github.com/a/b.git, github:a/b, https://github.com/a/b -> github.com/a/b
  return url
    ?.toLowerCase()
    .replace(/^git\+/, '')
    .replace(/^github:/, 'github.com/')
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^git@github\.com:/, 'github.com/')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}

/** The successor of one package, if its registry document names one. */
export async function successorOf(name: string, fetchDocument: RegistryFetch): Promise<Successor | undefined> {
  const document = await fetchDocument(name);
  if (!document) return undefined;
  const latest = asString(asRecord(document['dist-tags'])?.latest);
  const newestVersion = latest ? asRecord(asRecord(document.versions)?.[latest]) : undefined;
  const deprecated = asString(newestVersion?.deprecated);
  const readme = asString(document.readme) ?? asString(newestVersion?.readme) ?? '';
  const claims: { evidence: Successor['evidence']; says: string }[] = [
    ...(deprecated ? [{ evidence: 'deprecated' as const, says: deprecated }] : []),
    ...movedSentences(readme).map((says) => ({ evidence: 'readme' as const, says })),
  ];
  const repository = repositoryOf(document);
  for (const claim of claims) {
    for (const candidate of namesIn(claim.says)) {
      if (candidate === name) continue;
      const other = await fetchDocument(candidate);
      if (!other) continue;
      const otherLatest = asString(asRecord(other['dist-tags'])?.latest);
      return {
        name,
        successor: candidate,
        evidence: claim.evidence,
        says: claim.says.slice(0, 300),
        sameRepository: repository !== undefined && repository === repositoryOf(other),
        ...(otherLatest ? { newest: otherLatest } : {}),
      };
    }
  }
  return undefined;
}

/** The successors of the pinned packages (those that have one). */
export async function findSuccessors(names: readonly string[], fetchDocument: RegistryFetch): Promise<Successor[]> {
  const found: Successor[] = [];
  for (const name of names) {
    const successor = await successorOf(name, fetchDocument);
    if (successor) found.push(successor);
  }
  return found;
}
