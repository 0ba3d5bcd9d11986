// The client side of ACP's fs/read_text_file and fs/write_text_file, confined to the session's
// working directory: a path outside it (also through a symlink) is refused with a clear error.
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { RPC } from './wire.js';

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `path`, resolving symlinks of the deepest existing ancestor. */
async function realTarget(path: string): Promise<string> {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(current);
      return rest.length === 0 ? real : resolve(real, ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

export class ConfinedFs {
  private realRoot: Promise<string>;

  constructor(
    readonly root: string,
    private readonly options: { missingFileReadsEmpty?: boolean } = {},
  ) {
    this.realRoot = realpath(root).catch(() => resolve(root));
  }

  /** Resolves the agent's path, or throws invalid params when it leaves the session's cwd. */
  async check(path: unknown): Promise<string> {
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw RequestError.invalidParams({ path }, 'ACP file paths must be absolute');
    }
    const root = await this.realRoot;
    const lexical = resolve(path);
    if (!inside(resolve(this.root), lexical) && !inside(root, lexical)) {
      throw RequestError.invalidParams(
        { path, cwd: this.root },
        `${path} is outside the session's working directory ${this.root}; Reins only serves files inside it`,
      );
    }
    const target = await realTarget(lexical);
    if (!inside(root, target)) {
      throw RequestError.invalidParams(
        { path, cwd: this.root },
        `${path} leads outside the session's working directory ${this.root} through a symlink`,
      );
    }
    return target;
  }

  async read(params: Record<string, unknown>): Promise<{ content: string }> {
    const path = await this.check(params.path);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.options.missingFileReadsEmpty) return { content: '' };
        throw new RequestError(RPC.resourceNotFound, `Resource not found: ${params.path}`, { uri: params.path });
      }
      throw RequestError.internalError({ path: params.path }, (error as Error).message);
    }
    const line = typeof params.line === 'number' && params.line > 0 ? params.line : undefined;
    const limit = typeof params.limit === 'number' && params.limit >= 0 ? params.limit : undefined;
    if (line === undefined && limit === undefined) return { content: text };
    const lines = text.split('\n');
    const start = (line ?? 1) - 1;
    return { content: lines.slice(start, limit === undefined ? undefined : start + limit).join('\n') };
  }

  async write(params: Record<string, unknown>): Promise<Record<string, never>> {
    const path = await this.check(params.path);
    if (typeof params.content !== 'string')
      throw RequestError.invalidParams({ path: params.path }, 'content must be a string');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, params.content, 'utf8');
    return {};
  }
}
