// WCAG 2.x AA contrast of the console's colours, read from the stylesheets its entry imports
// (theme, layout, transcript, pages), in the dark scheme and the light one:
// - text: every rule that sets a colour or a background, paired with what it sits on as the CSS says
//   (its own background, else the rules of the same element with fewer classes, including their
//   hover states, else the rules of its ancestors in the selector, else every surface named by the
//   `contrast-surfaces:` annotation beside the theme), 4.5:1, 3:1 for large text; opacity folded in;
// - a focus indicator (`:focus-visible`), 3:1 against every surface and every container background;
// - a form field's border (input, select, textarea, .field), 3:1 against every surface (WCAG 1.4.11);
// - a pressed or current state ([aria-pressed="true"], [aria-current]): one of the colours it adds
//   (background, border, box-shadow) 3:1 against the element's background without the state.
// Disabled controls are exempt (WCAG 1.4.3); decorative boxes (a `content: ""` pseudo-element, a box
// under 11px tall: dots, bars) hold no text. The rendered page is checked in Chromium too
// (test/a11y.real.test.ts): nesting the CSS cannot show.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  annotation,
  appliesIn,
  type CssRule,
  colorIn,
  contrast,
  hex,
  over,
  parseColor,
  type Rgba,
  readStylesheets,
  resolveVariables,
  type Scheme,
  splitTopLevel,
} from '../../test/a11y-css.js';

// The stylesheets the console loads, as its entry imports them (a new one is checked as it lands).
const ENTRY = readFileSync(fileURLToPath(new URL('../main.tsx', import.meta.url)), 'utf8');
const NAMES = [...ENTRY.matchAll(/import '\.\/ui\/([\w-]+\.css)';/g)].map((match) => match[1] as string);
const FILES = NAMES.map((name) => fileURLToPath(new URL(`./${name}`, import.meta.url)));
const sheets = readStylesheets(FILES);
const SCHEMES: Scheme[] = ['dark', 'light'];
/** States an element of a rule can be in while its text shows (disabled is exempt). */
const INTERACTIVE = new Set([':hover', ':focus', ':focus-visible', ':active', ':not(:disabled)']);

interface Compound {
  simple: Set<string>;
  states: string[];
  pseudoElement: string | undefined;
}
interface Parsed {
  rule: CssRule;
  ancestors: Compound[];
  last: Compound;
}

function parseCompound(text: string): Compound {
  const simple = new Set<string>();
  const states: string[] = [];
  let pseudoElement: string | undefined;
  const pattern = /(::[\w-]+)|(:[\w-]+(?:\([^)]*\)+)?)|(\.[\w-]+)|(\[[^\]]+\])|(^[\w-]+|\*)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[1]) pseudoElement = match[1];
    else if (match[2]) states.push(match[2]);
    else if (match[3] || match[4] || match[5]) simple.add((match[3] ?? match[4] ?? match[5]) as string);
  }
  return { simple, states, pseudoElement };
}

function parseSelector(rule: CssRule): Parsed {
  const parts = rule.selector.replace(/\s*([>+~])\s*/g, ' $1 ').split(' ');
  let ancestors: Compound[] = [];
  let pending: Compound | undefined;
  for (const part of parts) {
    if (part === '>') continue;
    if (part === '+' || part === '~') {
      pending = undefined; // a sibling shares the parent: it is no ancestor
      continue;
    }
    if (pending) ancestors = [...ancestors, pending];
    pending = parseCompound(part);
  }
  if (!pending) throw new Error(`Empty selector in ${rule.file}`);
  return { rule, ancestors, last: pending };
}

const subset = (small: Set<string>, large: Set<string>) => [...small].every((part) => large.has(part));
const parsed = sheets.rules.map(parseSelector);

function value(rule: CssRule, scheme: Scheme, ...names: string[]): string | undefined {
  for (const name of names) {
    const raw = rule.declarations.get(name);
    if (raw !== undefined) return resolveVariables(raw, sheets.variables[scheme]);
  }
  return undefined;
}

/** A rule's background: a colour, 'none' for none or transparent, undefined when it sets none. */
function background(rule: CssRule, scheme: Scheme): Rgba | 'none' | undefined {
  const raw = value(rule, scheme, 'background-color', 'background');
  if (raw === undefined) return undefined;
  const color = raw === 'none' ? undefined : (parseColor(raw) ?? colorIn(raw));
  if (!color) {
    if (raw === 'none' || raw === 'inherit') return 'none';
    throw new Error(`${rule.selector}: a background the check does not read: ${raw}`);
  }
  return color.a === 0 ? 'none' : color;
}

function foreground(rule: CssRule, scheme: Scheme): Rgba | undefined {
  const raw = value(rule, scheme, 'color');
  if (raw === undefined || raw === 'inherit') return undefined;
  const color = parseColor(raw);
  if (!color) throw new Error(`${rule.selector}: a colour the check does not read: ${raw}`);
  return color;
}

/** Rules for the same element with fewer or the same classes (and its interactive states). */
function bases(target: Parsed, scheme: Scheme): Parsed[] {
  const key = target.ancestors.map((compound) => [...compound.simple].join('')).join(' ');
  return parsed.filter(
    (other) =>
      other !== target &&
      appliesIn(other.rule, scheme) &&
      other.last.pseudoElement === target.last.pseudoElement &&
      other.ancestors.map((compound) => [...compound.simple].join('')).join(' ') === key &&
      subset(other.last.simple, target.last.simple) &&
      other.last.states.every((state) => target.last.states.includes(state) || INTERACTIVE.has(state)),
  );
}

/** Rules that can style the ancestor `compound` of a selector whose chain before it is `chain`. */
function ancestorRules(compound: Compound, chain: Compound[], scheme: Scheme): Parsed[] {
  return parsed.filter(
    (other) =>
      appliesIn(other.rule, scheme) &&
      !other.last.pseudoElement &&
      subset(compound.simple, other.last.simple) &&
      other.last.states.every((state) => INTERACTIVE.has(state)) &&
      other.ancestors.every((needed) => chain.some((present) => subset(needed.simple, present.simple))),
  );
}

function surfaces(scheme: Scheme): Rgba[] {
  return annotation(sheets, 'surfaces').map((name) => {
    const color = parseColor(resolveVariables(`var(${name})`, sheets.variables[scheme]));
    if (!color) throw new Error(`The surface ${name} is not a colour`);
    return color;
  });
}

/** Each level's rules, nearest first: the same element's bases, then each ancestor, nearest first. */
function levels(target: Parsed, scheme: Scheme): Parsed[][] {
  const result = [bases(target, scheme)];
  for (let index = target.ancestors.length - 1; index >= 0; index--) {
    result.push(ancestorRules(target.ancestors[index] as Compound, target.ancestors.slice(0, index), scheme));
  }
  return result;
}

/** Every opaque background the rule's element can show behind its text. */
function backgroundsBehind(target: Parsed, scheme: Scheme, fromLevel = -1): Rgba[] {
  const all = levels(target, scheme);
  const resolve = (level: number): Rgba[] => {
    if (level >= all.length) return surfaces(scheme);
    let setting = (level < 0 ? [target] : (all[level] as Parsed[])).filter(
      (entry) => background(entry.rule, scheme) !== undefined,
    );
    if (level === 0) {
      // Of the rules for the element itself, the most specific ones win (and their hover states).
      const most = Math.max(...setting.map((entry) => entry.last.simple.size));
      setting = setting.filter((entry) => entry.last.simple.size === most);
    }
    const values = setting.map((entry) => background(entry.rule, scheme) as Rgba | 'none');
    if (values.length === 0) return resolve(level + 1);
    const result: Rgba[] = [];
    const below = values.some((entry) => entry === 'none' || entry.a < 1) ? resolve(level + 1) : [];
    for (const entry of values) {
      if (entry === 'none') result.push(...below);
      else if (entry.a < 1) result.push(...below.map((bottom) => over(entry, bottom)));
      else result.push(entry);
    }
    return unique(result);
  };
  return resolve(fromLevel);
}

function foregrounds(target: Parsed, scheme: Scheme): Rgba[] {
  const own = foreground(target.rule, scheme);
  if (own) return [own];
  for (const [index, level] of levels(target, scheme).entries()) {
    const setting = level.filter((entry) => foreground(entry.rule, scheme) !== undefined);
    // Of the rules for the element itself, the most specific ones win (.button.primary over .button).
    const most = Math.max(...setting.map((entry) => entry.last.simple.size));
    const found = index === 0 ? setting.filter((entry) => entry.last.simple.size === most) : setting;
    if (found.length > 0) return unique(found.map((entry) => foreground(entry.rule, scheme) as Rgba));
  }
  const body = parsed.find((entry) => entry.rule.selector === 'body' && entry.rule.declarations.has('color'));
  if (!body) throw new Error('No body rule with a colour');
  return [foreground(body.rule, scheme) as Rgba];
}

function unique(colors: Rgba[]): Rgba[] {
  return [...new Map(colors.map((color) => [hex(color), color])).values()];
}

const px = (raw: string | undefined) => (raw && /^\d+(\.\d+)?px$/.test(raw) ? Number.parseFloat(raw) : undefined);

function decorative(target: Parsed, scheme: Scheme): boolean {
  const own = (entry: Parsed) =>
    entry.rule.declarations.get('content') === '""' || (px(entry.rule.declarations.get('height')) ?? 99) < 11;
  if (own(target)) return true;
  if (bases(target, scheme).some(own)) return true;
  const shapes = parsed.filter((other) => other.ancestors.length === 0 && !other.last.pseudoElement);
  if (shapes.some((other) => subset(other.last.simple, target.last.simple) && own(other))) return true;
  return target.ancestors.some((compound, index) =>
    ancestorRules(compound, target.ancestors.slice(0, index), scheme).some(own),
  );
}

function exempt(target: Parsed): boolean {
  const states = [...target.last.states, ...target.ancestors.flatMap((compound) => compound.states)];
  return states.some((state) => state === ':disabled') || target.last.pseudoElement === '::placeholder';
}

function large(target: Parsed, scheme: Scheme): boolean {
  const chain = [target, ...bases(target, scheme)];
  const size = chain.map((entry) => px(entry.rule.declarations.get('font-size'))).find((entry) => entry !== undefined);
  const weight = chain.map((entry) => entry.rule.declarations.get('font-weight')).find((entry) => entry !== undefined);
  const heading = [...target.last.simple].some((part) => /^h[1-3]$/.test(part));
  const bold = weight !== undefined ? Number(weight) >= 700 || weight === 'bold' : heading;
  return size !== undefined && (size >= 24 || (size >= 18.66 && bold));
}

function opacity(target: Parsed, scheme: Scheme): number {
  for (const entry of [target, ...bases(target, scheme)]) {
    const raw = entry.rule.declarations.get('opacity');
    if (raw !== undefined) return Number(raw);
  }
  return 1;
}

interface Failure {
  scheme: Scheme;
  what: string;
  selector: string;
  file: string;
  fg: string;
  bg: string;
  ratio: number;
  needed: number;
}

const round = (ratio: number) => Math.round(ratio * 100) / 100;
/** One line per failure, each once: what a reader fixes. */
const lines = (failures: Failure[]) => [
  ...new Set(
    failures.map(
      (failure) =>
        `${failure.scheme} ${failure.what} ${failure.selector} (${failure.file}): ${failure.fg} on ${failure.bg} is ${failure.ratio}:1, needs ${failure.needed}:1`,
    ),
  ),
];
const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

function textFailures(scheme: Scheme): { checked: number; failures: Failure[] } {
  const failures: Failure[] = [];
  let checked = 0;
  for (const target of parsed) {
    const { rule } = target;
    if (!appliesIn(rule, scheme) || rule.selector === ':root' || exempt(target) || decorative(target, scheme)) continue;
    if (!rule.declarations.has('color') && background(rule, scheme) === undefined) continue;
    if (target.last.states.some((state) => state.startsWith(':focus'))) continue; // the focus check's
    const needed = large(target, scheme) ? 3 : 4.5;
    const alpha = opacity(target, scheme);
    const ownBackground = [target, ...bases(target, scheme)].some((entry) => {
      const color = background(entry.rule, scheme);
      return color !== undefined && color !== 'none';
    });
    for (const fg of foregrounds(target, scheme)) {
      for (const bg of backgroundsBehind(target, scheme)) {
        // The element painted at `alpha` over what is behind it: text and background alike.
        const behind = alpha < 1 && ownBackground ? surfaces(scheme) : [bg];
        for (const under of behind) {
          const shownBg = alpha < 1 ? over({ ...bg, a: alpha }, under) : bg;
          const text = over(fg, bg);
          const shownFg = alpha < 1 ? over({ ...text, a: alpha }, under) : text;
          const ratio = contrast(shownFg, shownBg);
          checked++;
          if (ratio < needed) {
            failures.push({
              scheme,
              what: 'text',
              selector: rule.selector,
              file: fileName(rule.file),
              fg: hex(shownFg),
              bg: hex(shownBg),
              ratio: round(ratio),
              needed,
            });
          }
        }
      }
    }
  }
  return { checked, failures };
}

/** Shadow and outline colours of a rule. */
function indicatorColors(rule: CssRule, scheme: Scheme, names: string[]): Rgba[] {
  const colors: Rgba[] = [];
  for (const name of names) {
    const raw = value(rule, scheme, name);
    if (raw === undefined) continue;
    for (const layer of splitTopLevel(raw, ',')) {
      const color = colorIn(layer.trim());
      if (color && color.a > 0) colors.push(color);
    }
  }
  return colors;
}

/** Backgrounds other rules' text sits inside (a rule named as an ancestor), and the surfaces. */
function containerBackgrounds(scheme: Scheme): Rgba[] {
  const result = [...surfaces(scheme)];
  for (const target of parsed) {
    if (!appliesIn(target.rule, scheme) || exempt(target)) continue;
    const isAncestor = parsed.some((other) =>
      other.ancestors.some((compound) => subset(compound.simple, target.last.simple) && compound.simple.size > 0),
    );
    if (isAncestor && background(target.rule, scheme) !== undefined && !decorative(target, scheme)) {
      result.push(...backgroundsBehind(target, scheme));
    }
  }
  return unique(result);
}

function nonTextFailures(scheme: Scheme): { checked: Record<string, number>; failures: Failure[] } {
  const failures: Failure[] = [];
  const checked = { focus: 0, field: 0, state: 0 };
  const fail = (what: string, target: Parsed, fg: Rgba, bg: Rgba, ratio: number) =>
    failures.push({
      scheme,
      what,
      selector: target.rule.selector,
      file: fileName(target.rule.file),
      fg: hex(fg),
      bg: hex(bg),
      ratio: round(ratio),
      needed: 3,
    });
  const containers = containerBackgrounds(scheme);
  for (const target of parsed) {
    if (!appliesIn(target.rule, scheme) || exempt(target)) continue;
    const { rule } = target;
    if (target.last.states.some((state) => state.startsWith(':focus'))) {
      const rings = indicatorColors(rule, scheme, ['outline', 'outline-color', 'box-shadow']);
      if (rings.length === 0) continue;
      // A ring drawn inside the element (a negative offset) sits on the element's own background.
      const offset = [target, ...bases(target, scheme)]
        .map((entry) => entry.rule.declarations.get('outline-offset'))
        .find((entry) => entry !== undefined);
      const behind = offset?.startsWith('-') ? backgroundsBehind(target, scheme) : containers;
      for (const bg of behind) {
        checked.focus++;
        const best = Math.max(...rings.map((ring) => contrast(over(ring, bg), bg)));
        if (best < 3) fail('focus indicator', target, rings[0] as Rgba, bg, best);
      }
    }
    const field = [...target.last.simple].some((part) => /^(input|select|textarea|\.field)$/.test(part));
    if (field && (rule.declarations.has('border') || rule.declarations.has('border-color'))) {
      const border = indicatorColors(rule, scheme, ['border-color', 'border'])[0];
      if (!border) continue;
      for (const bg of surfaces(scheme)) {
        checked.field++;
        const ratio = contrast(over(border, bg), bg);
        if (ratio < 3) fail('field border', target, border, bg, ratio);
      }
    }
    const state =
      [...target.last.simple].some((part) => /^\[aria-(pressed="true"|current)/.test(part)) &&
      !target.last.states.some((entry) => entry.startsWith(':focus'));
    if (state) {
      // Every rule of this selector adds to the state's look.
      const added = parsed
        .filter((other) => other.rule.selector === rule.selector && appliesIn(other.rule, scheme))
        .flatMap((other) =>
          indicatorColors(other.rule, scheme, ['background', 'background-color', 'border-color', 'box-shadow']),
        );
      const stateless = parsed.find(
        (other) =>
          other.rule.selector === rule.selector.replace(/\[aria-[^\]]+\]/g, '') && appliesIn(other.rule, scheme),
      );
      const without = stateless ? backgroundsBehind(stateless, scheme) : surfaces(scheme);
      for (const bg of without) {
        checked.state++;
        const best = Math.max(0, ...added.map((color) => contrast(over(color, bg), bg)));
        if (best < 3) fail('state indicator', target, added[0] ?? bg, bg, best);
      }
    }
  }
  return { checked, failures };
}

describe('console colours meet WCAG AA contrast', () => {
  it('reads both schemes and every stylesheet', () => {
    expect(sheets.variables.dark.get('--text')).toBeDefined();
    expect(sheets.variables.light.get('--text')).not.toBe(sheets.variables.dark.get('--text'));
    const here = readdirSync(fileURLToPath(new URL('.', import.meta.url))).filter((name) => name.endsWith('.css'));
    expect(new Set(NAMES)).toEqual(new Set(here));
    expect(new Set(sheets.rules.map((rule) => fileName(rule.file)))).toEqual(new Set(here));
    expect(surfaces('dark').length).toBeGreaterThanOrEqual(3);
  });

  it('the contrast arithmetic is WCAG 2.x', () => {
    const white = parseColor('#fff') as Rgba;
    const black = parseColor('black') as Rgba;
    expect(round(contrast(white, black))).toBe(21);
    expect(round(contrast(parseColor('#767676') as Rgba, white))).toBe(4.54);
    expect(hex(parseColor('color-mix(in srgb, #ffffff 50%, #000000)') as Rgba)).toBe('#808080');
    expect(hex(over({ ...white, a: 0.5 }, black))).toBe('#808080');
  });

  for (const scheme of SCHEMES) {
    it(`${scheme}: text on what it sits on, 4.5:1 (3:1 large)`, () => {
      const { checked, failures } = textFailures(scheme);
      expect(checked).toBeGreaterThan(100);
      expect(lines(failures)).toEqual([]);
    });

    it(`${scheme}: focus indicators, field borders and pressed or current states, 3:1`, () => {
      const { checked, failures } = nonTextFailures(scheme);
      expect(checked.focus).toBeGreaterThan(0);
      expect(checked.field).toBeGreaterThan(0);
      expect(checked.state).toBeGreaterThan(0);
      expect(lines(failures)).toEqual([]);
    });
  }

  it('fails a colour set too low (the check can fail)', () => {
    const dark = sheets.variables.dark;
    const saved = dark.get('--muted') as string;
    dark.set('--muted', '#4a5361');
    try {
      const failing = textFailures('dark').failures.filter((failure) => failure.fg === '#4a5361');
      expect(failing.length).toBeGreaterThan(0);
    } finally {
      dark.set('--muted', saved);
    }
  });
});
