// Colour arithmetic for palettes and style grades; plain tuples keep it cheap to call thousands of times per render.

/** Channels in 0–255, possibly fractional until formatted. */
export type Rgb = readonly [number, number, number];

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];

export function convertHsl(hue: number, saturation: number, lightness: number): Rgb {
  const h = (((hue % 360) + 360) % 360) / 360;
  const s = clamp01(saturation);
  const l = clamp01(lightness);
  if (s === 0) return [l * 255, l * 255, l * 255];
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  return [convertHue(p, q, h + 1 / 3) * 255, convertHue(p, q, h) * 255, convertHue(p, q, h - 1 / 3) * 255];
}

export function convertToHsl(color: Rgb): [number, number, number] {
  const r = color[0] / 255;
  const g = color[1] / 255;
  const b = color[2] / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === r) h = (g - b) / d + (g < b ? 6 : 0);
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return [h * 60, s, l];
}

export function mixColors(a: Rgb, b: Rgb, amount: number): Rgb {
  const t = clamp01(amount);
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

export function scaleColor(color: Rgb, factor: number): Rgb {
  return [color[0] * factor, color[1] * factor, color[2] * factor];
}

export function lightenColor(color: Rgb, amount: number): Rgb {
  return mixColors(color, WHITE, amount);
}

/** amount > 0 saturates, < 0 washes out; lightness is kept. */
export function saturateColor(color: Rgb, amount: number): Rgb {
  const [h, s, l] = convertToHsl(color);
  return convertHsl(h, s * (1 + amount), l);
}

/** Rec. 709 luma in 0–1: the brightness a viewer perceives, which is what grades and tests care about. */
export function measureLuma(color: Rgb): number {
  return (0.2126 * color[0] + 0.7152 * color[1] + 0.0722 * color[2]) / 255;
}

export function posterizeColor(color: Rgb, levels: number): Rgb {
  const step = 255 / (levels - 1);
  return [Math.round(color[0] / step) * step, Math.round(color[1] / step) * step, Math.round(color[2] / step) * step];
}

export function formatHex(color: Rgb): string {
  let out = "#";
  for (const channel of color)
    out += Math.round(Math.min(255, Math.max(0, channel)))
      .toString(16)
      .padStart(2, "0");
  return out;
}

export function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function convertHue(p: number, q: number, t: number): number {
  const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
  if (u < 1 / 6) return p + (q - p) * 6 * u;
  if (u < 1 / 2) return q;
  if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
  return p;
}
