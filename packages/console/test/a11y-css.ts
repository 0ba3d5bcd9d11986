// What the console's contrast checks read from its stylesheets: a small CSS reader (rules with
// their selectors, declarations and media; custom properties per colour scheme, the light theme
// being the dark one overridden under `prefers-color-scheme: light`), colour parsing (hex, rgb(),
// named, `color-mix(in srgb, ...)`, `var()` with fallbacks) and WCAG 2.x relative luminance and
// contrast ratio. Only as much CSS as the console's own files use: a construct it does not know
// fails loudly instead of passing unseen.
import { readFileSync } from 'node:fs';

export type Rgba = { r: number; g: number; b: number; a: number };
export type Scheme = 'dark' | 'light';

export interface CssRule {
  /** One selector of the rule's list. */
  selector: string;
  declarations: Map<string, string>;
  /** The enclosing @media condition, if any. */
  media: string | undefined;
  file: string;
}

export interface Stylesheets {
  rules: CssRule[];
  /** The custom properties of each scheme. */
  variables: Record<Scheme, Map<string, string>>;
  /** Comments, for the annotations beside the theme (see `annotation`). */
  comments: string[];
}

const LIGHT_MEDIA = /prefers-color-scheme:\s*light/;

export function readStylesheets(paths: string[]): Stylesheets {
  const rules: CssRule[] = [];
  const comments: string[] = [];
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    const stripped = text.replace(/\/\*[\s\S]*?\*\//g, (comment) => {
      comments.push(comment.slice(2, -2));
      return ' ';
    });
    parseBlock(stripped, undefined, path, rules);
  }
  const dark = new Map<string, string>();
  const light = new Map<string, string>();
  for (const rule of rules) {
    if (rule.selector !== ':root') continue;
    for (const [name, value] of rule.declarations) {
      if (!name.startsWith('--')) continue;
      if (rule.media && LIGHT_MEDIA.test(rule.media)) light.set(name, value);
      else if (!rule.media) dark.set(name, value);
    }
  }
  return { rules, variables: { dark, light: new Map([...dark, ...light]) }, comments };
}

/** Whether a rule applies in a scheme (rules under the light media apply only in the light one). */
export function appliesIn(rule: CssRule, scheme: Scheme): boolean {
  if (rule.media && LIGHT_MEDIA.test(rule.media)) return scheme === 'light';
  if (rule.media && /prefers-color-scheme:\s*dark/.test(rule.media)) return scheme === 'dark';
  return true;
}

function parseBlock(text: string, media: string | undefined, file: string, into: CssRule[]): void {
  let position = 0;
  while (position < text.length) {
    const open = text.indexOf('{', position);
    if (open < 0) {
      if (text.slice(position).trim()) throw new Error(`${file}: text after the last rule: ${text.slice(position)}`);
      return;
    }
    const prelude = text.slice(position, open).trim();
    const close = matchingBrace(text, open, file);
    const body = text.slice(open + 1, close);
    position = close + 1;
    if (prelude.startsWith('@media')) {
      parseBlock(body, prelude.slice('@media'.length).trim(), file, into);
    } else if (prelude.startsWith('@keyframes')) {
      // Animations change opacity only (checked where it matters: the states they end in).
    } else if (prelude.startsWith('@')) {
      throw new Error(`${file}: an at-rule the contrast check does not read: ${prelude}`);
    } else {
      const declarations = parseDeclarations(body);
      for (const selector of splitTopLevel(prelude, ',')) {
        into.push({ selector: selector.trim().replace(/\s+/g, ' '), declarations, media, file });
      }
    }
  }
}

function matchingBrace(text: string, open: number, file: string): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return index;
  }
  throw new Error(`${file}: unbalanced braces`);
}

function parseDeclarations(body: string): Map<string, string> {
  const declarations = new Map<string, string>();
  for (const part of splitTopLevel(body, ';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const name = part.slice(0, colon).trim();
    const value = part
      .slice(colon + 1)
      .trim()
      .replace(/\s+/g, ' ');
    if (name) declarations.set(name, value);
  }
  return declarations;
}

/** Splits on `separator` outside parentheses, brackets and quotes. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth--;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.filter((part) => part.trim() !== '');
}

/** The words after `contrast-<name>:` in the stylesheets' comments (the small mapping beside the theme). */
export function annotation(sheets: Stylesheets, name: string): string[] {
  const pattern = new RegExp(`contrast-${name}:\\s*([^.]*)`);
  for (const comment of sheets.comments) {
    const match = pattern.exec(comment);
    if (match?.[1]) return match[1].trim().split(/\s+/);
  }
  throw new Error(`No "contrast-${name}:" annotation in the stylesheets' comments.`);
}

// ---- colours -----------------------------------------------------------------------------------

const NAMED: Record<string, Rgba> = {
  white: { r: 255, g: 255, b: 255, a: 1 },
  black: { r: 0, g: 0, b: 0, a: 1 },
  transparent: { r: 0, g: 0, b: 0, a: 0 },
};

/** Replaces every var() in a value with the scheme's value (its fallback when the variable is not set). */
export function resolveVariables(value: string, variables: Map<string, string>, depth = 0): string {
  if (depth > 20) throw new Error(`var() nesting too deep in ${value}`);
  const start = value.indexOf('var(');
  if (start < 0) return value;
  let depthCount = 0;
  let end = start + 3;
  for (; end < value.length; end++) {
    if (value[end] === '(') depthCount++;
    else if (value[end] === ')' && --depthCount === 0) break;
  }
  const inner = value.slice(start + 4, end);
  const [name, ...fallback] = splitTopLevel(inner, ',');
  const found = variables.get((name ?? '').trim()) ?? (fallback.length ? fallback.join(',').trim() : undefined);
  if (found === undefined) throw new Error(`Unknown custom property ${name} in ${value}`);
  const replaced = `${value.slice(0, start)}${resolveVariables(found, variables, depth + 1)}${value.slice(end + 1)}`;
  return resolveVariables(replaced, variables, depth + 1);
}

/** Parses one colour; undefined for what is not one (a length, a keyword like none). */
export function parseColor(text: string): Rgba | undefined {
  const value = text.trim().toLowerCase();
  if (NAMED[value]) return { ...NAMED[value] };
  const hex = /^#([0-9a-f]{3,8})$/.exec(value);
  if (hex?.[1]) {
    let digits = hex[1];
    if (digits.length === 3 || digits.length === 4) digits = [...digits].map((digit) => digit + digit).join('');
    if (digits.length !== 6 && digits.length !== 8) throw new Error(`Bad hex colour ${text}`);
    const channel = (at: number) => Number.parseInt(digits.slice(at, at + 2), 16);
    return { r: channel(0), g: channel(2), b: channel(4), a: digits.length === 8 ? channel(6) / 255 : 1 };
  }
  const rgb = /^rgba?\((.*)\)$/.exec(value);
  if (rgb?.[1]) {
    const parts = rgb[1].split(/[\s,/]+/).filter(Boolean);
    const [r, g, b] = parts.slice(0, 3).map(Number);
    const alpha =
      parts[3] === undefined ? 1 : parts[3].endsWith('%') ? Number.parseFloat(parts[3]) / 100 : Number(parts[3]);
    return { r: r ?? 0, g: g ?? 0, b: b ?? 0, a: alpha };
  }
  const mix = /^color-mix\(in srgb,(.*)\)$/.exec(value);
  if (mix?.[1]) {
    const [first, second] = splitTopLevel(mix[1], ',').map((part) => part.trim());
    const one = colorWithShare(first ?? '');
    const two = colorWithShare(second ?? '');
    const p1 = one.share ?? (two.share !== undefined ? 1 - two.share : 0.5);
    const p2 = two.share ?? 1 - p1;
    const sum = p1 + p2;
    return mixPremultiplied(one.color, two.color, p1 / sum, p2 / sum, Math.min(1, sum));
  }
  return undefined;
}

function colorWithShare(text: string): { color: Rgba; share: number | undefined } {
  const match = /^(.*?)\s+(\d+(?:\.\d+)?)%$/.exec(text);
  const color = parseColor(match ? (match[1] ?? '') : text);
  if (!color) throw new Error(`Not a colour in color-mix(): ${text}`);
  return { color, share: match ? Number(match[2]) / 100 : undefined };
}

function mixPremultiplied(one: Rgba, two: Rgba, p1: number, p2: number, scale: number): Rgba {
  const a = one.a * p1 + two.a * p2;
  if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
  const channel = (key: 'r' | 'g' | 'b') => (one[key] * one.a * p1 + two[key] * two.a * p2) / a;
  return { r: channel('r'), g: channel('g'), b: channel('b'), a: a * scale };
}

/** The first colour among the space-separated parts of a shorthand (background, border, outline, box-shadow). */
export function colorIn(value: string): Rgba | undefined {
  for (const part of splitTopLevel(value, ' ')) {
    const color = parseColor(part);
    if (color) return color;
  }
  return undefined;
}

/** `top` painted over an opaque `bottom` (alpha compositing). */
export function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top.a;
  return {
    r: top.r * a + bottom.r * (1 - a),
    g: top.g * a + bottom.g * (1 - a),
    b: top.b * a + bottom.b * (1 - a),
    a: 1,
  };
}

/** WCAG 2.x relative luminance of an opaque colour. */
export function luminance({ r, g, b }: Rgba): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG 2.x contrast ratio of two opaque colours, 1 to 21. */
export function contrast(one: Rgba, two: Rgba): number {
  const [light, dark] = [luminance(one), luminance(two)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

export function hex({ r, g, b, a }: Rgba): string {
  const part = (value: number) => Math.round(value).toString(16).padStart(2, '0');
  return `#${part(r)}${part(g)}${part(b)}${a < 1 ? part(a * 255) : ''}`;
}
