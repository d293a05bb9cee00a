// The honest label: every preview says, small and in a corner, that no AI made it.

export const CAPTION_TEXT = "Darkroom preview · not AI";

export type CaptionVariant = "dark" | "light";

type CaptionBox = { left: number; top: number; width: number; height: number; fontSize: number };

function measureCaption(width: number, height: number, unit: number): CaptionBox {
  const fontSize = Math.max(10, Math.round(unit * 0.0155));
  // A generic sans averages ~0.56 em per character; the pill centres the text, so a rough guess is enough.
  const boxWidth = Math.round(fontSize * 0.56 * CAPTION_TEXT.length + fontSize * 1.3);
  const boxHeight = Math.round(fontSize * 1.75);
  const margin = Math.round(Math.max(8, unit * 0.02));
  return {
    left: width - margin - boxWidth,
    top: height - margin - boxHeight,
    width: boxWidth,
    height: boxHeight,
    fontSize,
  };
}

function drawCaption(box: CaptionBox, x: number, y: number, variant: CaptionVariant): string {
  const pill = variant === "dark" ? `fill="#000" fill-opacity="0.4"` : `fill="#000" fill-opacity="0.06"`;
  const ink = variant === "dark" ? `fill="#fff" fill-opacity="0.88"` : `fill="#333" fill-opacity="0.9"`;
  return (
    `<rect x="${x}" y="${y}" width="${box.width}" height="${box.height}" rx="${box.height / 2}" ${pill}/>` +
    `<text x="${x + box.width / 2}" y="${y + box.height / 2 + box.fontSize * 0.36}" font-family="sans-serif" font-size="${box.fontSize}" text-anchor="middle" ${ink}>${CAPTION_TEXT}</text>`
  );
}

/** Caption markup placed in the bottom-right corner of a full-size SVG. */
export function buildCaption(width: number, height: number, unit: number, variant: CaptionVariant): string {
  const box = measureCaption(width, height, unit);
  return drawCaption(box, box.left, box.top, variant);
}

/** A standalone caption SVG and where to composite it; used when the picture itself is rendered at another size (pixel art). */
export function buildCaptionImage(
  width: number,
  height: number,
  unit: number,
  variant: CaptionVariant,
): { svg: string; left: number; top: number } {
  const box = measureCaption(width, height, unit);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${box.height}">${drawCaption(box, 0, 0, variant)}</svg>`;
  return { svg, left: box.left, top: box.top };
}
