// Pure: the command line of `codex exec` 0.171.0 as far as the bridge runs it (what
// @openai/codex-sdk passes, and the human form): `exec [OPTIONS] [PROMPT]` and
// `exec [OPTIONS] resume SESSION_ID [PROMPT]`; options may stand before or after `resume`. A prompt
// of `-` or none is read from stdin. Options with nothing to act on in front of another harness are
// taken and named in the log; any other is refused by name.
import { ParamsError } from './requests.js';

export interface ExecRequest {
  json: boolean;
  model?: string;
  cwd?: string;
  sandbox?: string;
  outputSchemaFile?: string;
  outputLastMessage?: string;
  images: string[];
  config: string[];
  /** The thread to continue (`resume <id>`). */
  resume?: string;
  /** undefined or `-`: read stdin. */
  prompt?: string;
  /** Options taken and ignored (for the log). */
  ignored: string[];
}

/** Options taking a value: the request field they fill, or `ignored`. */
const VALUED: Record<string, keyof ExecRequest | 'ignored'> = {
  '--model': 'model',
  '-m': 'model',
  '--cd': 'cwd',
  '-C': 'cwd',
  '--sandbox': 'sandbox',
  '-s': 'sandbox',
  '--output-schema': 'outputSchemaFile',
  '--output-last-message': 'outputLastMessage',
  '-o': 'outputLastMessage',
  '--image': 'images',
  '-i': 'images',
  '--config': 'config',
  '-c': 'config',
  // Codex's own bookkeeping and sandbox extras: nothing to act on behind another harness.
  '--add-dir': 'ignored',
  '--thread-source': 'ignored',
  '--cyber-access-program': 'ignored',
  '--color': 'ignored',
  '--enable': 'ignored',
  '--disable': 'ignored',
};

const FLAGS: Record<string, 'json' | 'ignored'> = {
  '--experimental-json': 'json',
  '--json': 'json',
  '--skip-git-repo-check': 'ignored',
  '--full-auto': 'ignored',
  '--strict-config': 'ignored',
};

export function execRequestOf(args: readonly string[]): ExecRequest {
  const request: ExecRequest = { json: false, images: [], config: [], ignored: [] };
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    // Own names only: a one-word prompt such as "constructor" is a prompt, not an inherited flag.
    if (Object.hasOwn(FLAGS, name)) {
      if (FLAGS[name] === 'json') request.json = true;
      else request.ignored.push(name);
      continue;
    }
    const field = Object.hasOwn(VALUED, name) ? VALUED[name] : undefined;
    if (field) {
      const value = equals > 0 ? arg.slice(equals + 1) : args[++index];
      if (value === undefined) throw new ParamsError(name, 'needs a value.');
      if (field === 'ignored') request.ignored.push(name);
      else if (field === 'images') request.images.push(...value.split(','));
      else if (field === 'config') request.config.push(value);
      else (request as unknown as Record<string, string>)[field] = value;
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      throw new ParamsError(arg, 'is not an option of `codex exec` the Reins bridge serves.');
    }
    positionals.push(arg);
  }
  if (positionals[0] === 'resume') {
    const [, threadId, prompt, ...rest] = positionals;
    if (!threadId)
      throw new ParamsError('resume', 'names the thread to continue (`exec resume <id>`); --last is not served.');
    if (rest.length > 0) throw new ParamsError('resume', `takes one prompt (got "${rest.join(' ')}" after it).`);
    request.resume = threadId;
    if (prompt !== undefined) request.prompt = prompt;
    return request;
  }
  if (positionals.length > 1) throw new ParamsError('exec', `takes one prompt (got ${positionals.length} arguments).`);
  if (positionals[0] !== undefined) request.prompt = positionals[0];
  return request;
}
