// Checks run inside the page, on what Chromium rendered: the contrast of every visible text against
// its effective background (its own and its ancestors' computed backgrounds composited, opacity
// folded in), and whether the focused element shows a focus indicator (a computed outline or box
// shadow). The functions passed to page.evaluate run in the browser and so carry their own helpers.
import type { Page } from 'playwright-core';

export interface ContrastFailure {
  element: string;
  text: string;
  color: string;
  background: string;
  ratio: number;
  needed: number;
}

/** Every visible text on the page under WCAG AA (4.5:1, 3:1 for large text); disabled controls and aria-hidden skipped. */
export async function contrastFailures(page: Page): Promise<{ checked: number; failures: ContrastFailure[] }> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const probe = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
    // Chromium serializes some computed colours as color(srgb ...) (color-mix); a canvas reads any CSS colour.
    const parse = (css: string): Rgba => {
      const srgb = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)$/.exec(css);
      if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, Number(srgb[4] ?? 1)];
      const rgb = /^rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)$/.exec(css);
      if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), Number(rgb[4] ?? 1)];
      probe.clearRect(0, 0, 1, 1);
      probe.fillStyle = css;
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
      return [r ?? 0, g ?? 0, b ?? 0, (a ?? 255) / 255];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => [
      top[0] * top[3] + bottom[0] * (1 - top[3]),
      top[1] * top[3] + bottom[1] * (1 - top[3]),
      top[2] * top[3] + bottom[2] * (1 - top[3]),
      1,
    ];
    const luminance = (color: Rgba) => {
      const [r, g, b] = color.slice(0, 3).map((channel) => {
        const c = channel / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratioOf = (one: Rgba, two: Rgba) => {
      const [light, dark] = [luminance(one), luminance(two)].sort((x, y) => y - x) as [number, number];
      return (light + 0.05) / (dark + 0.05);
    };
    const hex = (color: Rgba) =>
      `#${color
        .slice(0, 3)
        .map((channel) => Math.round(channel).toString(16).padStart(2, '0'))
        .join('')}`;
    const backgroundOf = (element: Element): Rgba => {
      const layers: Rgba[] = [];
      for (let node: Element | null = element; node; node = node.parentElement) {
        const color = parse(getComputedStyle(node).backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] >= 1) break;
      }
      let result: Rgba = [255, 255, 255, 1];
      for (const layer of layers.reverse()) result = over(layer, result);
      return result;
    };
    const failures: ContrastFailure[] = [];
    let checked = 0;
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const own = Array.from(element.childNodes)
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      if (!own) continue;
      if (element.closest('[aria-hidden="true"], :disabled, .visually-hidden, option, datalist')) continue;
      const style = getComputedStyle(element);
      const box = element.getBoundingClientRect();
      if (style.visibility !== 'visible' || box.width === 0 || box.height === 0) continue;
      if (box.bottom < 0 || box.top > window.innerHeight || box.right < 0 || box.left > window.innerWidth) continue;
      let alpha = 1;
      for (let node: Element | null = element; node; node = node.parentElement) {
        alpha *= Number(getComputedStyle(node).opacity);
      }
      const background = backgroundOf(element);
      const text = over(parse(style.color), background);
      const shown = over([...text.slice(0, 3), alpha] as Rgba, background);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const needed = large ? 3 : 4.5;
      const ratio = ratioOf(shown, background);
      checked++;
      if (ratio < needed) {
        failures.push({
          element: `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')}`,
          text: own.slice(0, 40),
          color: hex(shown),
          background: hex(background),
          ratio: Math.round(ratio * 100) / 100,
          needed,
        });
      }
    }
    return { checked, failures };
  });
}

export interface FocusState {
  /** The focused element: tag, test id or class, and its accessible text. */
  name: string;
  tag: string;
  testId: string | null;
  /** A session of the sidebar's list. */
  sessionItem: boolean;
  /** Whether a focus indicator shows: an outline at least 1px wide, or a box shadow. */
  indicated: boolean;
  indicator: string;
}

/** What has focus and whether it shows it. */
export async function focused(page: Page): Promise<FocusState> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) {
      return { name: 'body', tag: 'body', testId: null, sessionItem: false, indicated: false, indicator: '' };
    }
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 1;
    const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
    const label =
      element.getAttribute('aria-label') ??
      (element as HTMLInputElement).labels?.[0]?.textContent ??
      element.textContent ??
      '';
    return {
      name: label.trim().replace(/\s+/g, ' ').slice(0, 60),
      tag: element.tagName.toLowerCase(),
      testId: element.getAttribute('data-testid'),
      sessionItem: element.classList.contains('session-item'),
      indicated: outline || shadow,
      indicator: outline
        ? `outline ${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}`
        : style.boxShadow,
    };
  });
}
