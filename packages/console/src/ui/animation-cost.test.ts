// The console's stylesheets run no endless animation: where Chromium composites in software (no GPU,
// headless), every step of one redraws the whole page, and while sessions stream that took most of
// the frames (bench/README.md, figure 10b). A one-off animation (a pulse as a state begins) is fine.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const UI_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Each `animation` / `animation-iteration-count` declaration of the console's CSS, with its file. */
function animationDeclarations(): Array<{ file: string; value: string }> {
  const found: Array<{ file: string; value: string }> = [];
  for (const file of readdirSync(UI_DIR).filter((name) => name.endsWith('.css'))) {
    const css = readFileSync(`${UI_DIR}/${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const match of css.matchAll(/animation(?:-iteration-count)?\s*:\s*([^;}]+)/g))
      found.push({ file, value: (match[1] as string).trim() });
  }
  return found;
}

describe('console CSS: animations', () => {
  it('finds the declarations it checks (the status pulse)', () => {
    expect(animationDeclarations().some((declaration) => declaration.value.startsWith('pulse'))).toBe(true);
  });

  it('has no animation that repeats forever', () => {
    const endless = animationDeclarations().filter((declaration) => /\binfinite\b/.test(declaration.value));
    expect(endless).toEqual([]);
  });
});
