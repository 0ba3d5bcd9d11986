// ANSI styling that turns itself off when color is off.
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

export function makeStyle(color: boolean): Style {
  if (!color) return { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
