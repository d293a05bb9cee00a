// Published style presets. Each one is a prompt template applied after the 400-character check.
export type StylePreset = {
  name: string;
  description: string;
  /** `{prompt}` is replaced by the caller's prompt. */
  template: string;
  /** Stability AI's native `style_preset`, where one exists. */
  stabilityPreset?: string;
};

export const STYLE_PRESETS = [
  {
    name: "Photorealistic",
    description: "Natural light, true-to-life colour and fine photographic detail.",
    template: "{prompt}, photorealistic, natural lighting, sharp focus, high detail, 35mm photograph",
    stabilityPreset: "photographic",
  },
  {
    name: "Cinematic",
    description: "Widescreen film still with dramatic light and a teal-and-orange grade.",
    template:
      "cinematic film still of {prompt}, dramatic lighting, shallow depth of field, teal and orange color grade, anamorphic",
    stabilityPreset: "cinematic",
  },
  {
    name: "Illustration",
    description: "Hand-drawn editorial illustration with ink lines and flat washes.",
    template: "editorial illustration of {prompt}, ink outlines, flat color washes, hand-drawn",
  },
  {
    name: "Anime",
    description: "Cel-shaded anime look with bold outlines and flat colour.",
    template: "anime artwork of {prompt}, cel shading, bold outlines, vibrant flat colors, studio anime style",
    stabilityPreset: "anime",
  },
  {
    name: "Digital Art",
    description: "Polished digital painting with vivid colour and soft glow.",
    template: "digital art of {prompt}, highly detailed digital painting, vivid colors, artstation",
    stabilityPreset: "digital-art",
  },
  {
    name: "Fantasy",
    description: "Epic fantasy painting with magical light and rich detail.",
    template: "epic fantasy art of {prompt}, magical atmosphere, ethereal light, intricate detail",
    stabilityPreset: "fantasy-art",
  },
  {
    name: "Comic Book",
    description: "Inked comic panel with halftone shading and punchy colour.",
    template: "comic book panel of {prompt}, bold inks, halftone dots, dynamic composition, vibrant colors",
    stabilityPreset: "comic-book",
  },
  {
    name: "Line Art",
    description: "Clean black line drawing on a plain background.",
    template: "line art drawing of {prompt}, clean black lines, minimal, white background",
    stabilityPreset: "line-art",
  },
  {
    name: "Pixel Art",
    description: "Retro 16-bit pixel art with a limited palette.",
    template: "pixel art of {prompt}, 16-bit, retro game style, limited palette, crisp pixels",
    stabilityPreset: "pixel-art",
  },
  {
    name: "3D Render",
    description: "Studio-lit 3D render with soft shadows and smooth materials.",
    template: "3d render of {prompt}, octane render, studio lighting, soft shadows, smooth materials",
    stabilityPreset: "3d-model",
  },
  {
    name: "Analog Film",
    description: "Grainy analog photo with faded colour and light leaks.",
    template: "analog film photo of {prompt}, film grain, faded colors, light leaks, kodak portra",
    stabilityPreset: "analog-film",
  },
  {
    name: "Neon Punk",
    description: "Cyberpunk scene lit by magenta and cyan neon.",
    template: "neon punk style {prompt}, cyberpunk, glowing magenta and cyan neon lights, night, rain",
    stabilityPreset: "neon-punk",
  },
  {
    name: "Isometric",
    description: "Tidy isometric diorama seen from above at 30 degrees.",
    template: "isometric diorama of {prompt}, isometric view, clean geometry, soft lighting, miniature",
    stabilityPreset: "isometric",
  },
  {
    name: "Watercolor",
    description: "Loose watercolour painting with soft bleeding edges on paper.",
    template: "watercolor painting of {prompt}, soft washes, bleeding edges, textured paper",
  },
] as const satisfies readonly StylePreset[];

export type StyleName = (typeof STYLE_PRESETS)[number]["name"];
export const STYLE_NAMES = STYLE_PRESETS.map((s) => s.name) as [StyleName, ...StyleName[]];
export const DEFAULT_STYLE: StyleName = "Photorealistic";

export function findStyle(name: StyleName): StylePreset {
  const style = STYLE_PRESETS.find((s) => s.name === name);
  // Only reachable through a cast that bypassed StyleName.
  if (style === undefined) throw new Error(`unknown style: ${name}`);
  return style;
}

export function applyStyle(name: StyleName, prompt: string): string {
  // A function replacer: a string replacement would expand $&, $` and $' found in the prompt.
  return findStyle(name).template.replace("{prompt}", () => prompt);
}
