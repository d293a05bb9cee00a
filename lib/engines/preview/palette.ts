// Picks the colours of one picture: time of day and terrain come from the prompt, the exact hues from the seed.
import { convertHsl, lightenColor, mixColors, type Rgb, scaleColor } from "./color";
import type { Rng } from "./seed";
import type { Subject } from "./subjects";

export type TimeOfDay = "day" | "sunset" | "night";

export type Palette = {
  time: TimeOfDay;
  overcast: boolean;
  skyTop: Rgb;
  skyMid: Rgb;
  skyHorizon: Rgb;
  sun: Rgb;
  sunGlow: Rgb;
  cloud: Rgb;
  cloudShade: Rgb;
  rock: Rgb;
  snow: Rgb;
  far: Rgb;
  mid: Rgb;
  near: Rgb;
  nearShade: Rgb;
  sand: Rgb;
  water: Rgb;
  waterDeep: Rgb;
  foliage: Rgb;
  foliageShade: Rgb;
  trunk: Rgb;
  building: Rgb;
  roof: Rgb;
  window: Rgb;
  accent: Rgb;
  accent2: Rgb;
  weather: Rgb;
};

const NIGHT_VEIL: Rgb = convertHsl(232, 0.45, 0.08);
const DUSK_VEIL: Rgb = convertHsl(285, 0.35, 0.22);

export function createPalette(rng: Rng, subjects: ReadonlySet<Subject>, tintHue?: number): Palette {
  const time: TimeOfDay = subjects.has("night") ? "night" : subjects.has("sunset") ? "sunset" : "day";
  const overcast = subjects.has("rain") || subjects.has("storm");
  const baseSkyHue = rng.between(196, 226);
  // Only neighbouring hues (teal, violet) nudge the sky; "red flowers" should not turn a blue sky purple.
  const skyHue =
    tintHue === undefined || measureHueDistance(baseSkyHue, tintHue) > 70
      ? baseSkyHue
      : pullHue(baseSkyHue, tintHue, 0.4);

  const sky = pickSky(rng, time, skyHue, overcast, subjects.has("storm"));
  const veil = (color: Rgb, dayAmount = 0): Rgb =>
    time === "night"
      ? mixColors(color, NIGHT_VEIL, 0.72)
      : time === "sunset"
        ? mixColors(color, DUSK_VEIL, 0.38)
        : mixColors(color, sky.skyHorizon, dayAmount);

  const ground = veil(pickGround(rng, subjects));
  const rockHue = rng.chance(0.6) ? rng.between(205, 250) : rng.between(18, 40);
  const rock = veil(convertHsl(rockHue, rng.between(0.1, 0.24), rng.between(0.4, 0.52)), 0.25);
  const foliageHue = subjects.has("desert") ? rng.between(95, 130) : rng.between(90, 150);
  const foliage = veil(convertHsl(foliageHue, rng.between(0.35, 0.55), rng.between(0.24, 0.32)));
  const accentHue = tintHue ?? rng.between(0, 360);
  const waterBase =
    time === "sunset" ? mixColors(sky.skyMid, convertHsl(230, 0.5, 0.25), 0.5) : convertHsl(skyHue + 6, 0.6, 0.4);

  return {
    time,
    overcast,
    ...sky,
    rock,
    snow:
      time === "night"
        ? convertHsl(222, 0.25, 0.62)
        : time === "sunset"
          ? convertHsl(330, 0.45, 0.88)
          : convertHsl(208, 0.35, 0.96),
    far: mixColors(ground, sky.skyHorizon, 0.55),
    mid: mixColors(ground, sky.skyHorizon, 0.22),
    near: ground,
    // Snow in shade stays bright and turns blue; darkening it like grass would read as slush.
    nearShade: subjects.has("snow")
      ? mixColors(ground, veil(convertHsl(214, 0.4, 0.84)), 0.35)
      : scaleColor(ground, 0.74),
    sand: veil(convertHsl(rng.between(34, 44), 0.5, 0.72)),
    water: veil(waterBase),
    waterDeep: veil(scaleColor(waterBase, 0.55)),
    foliage,
    foliageShade: scaleColor(foliage, 0.68),
    trunk: veil(convertHsl(rng.between(18, 32), 0.35, 0.26)),
    building: veil(convertHsl(skyHue + rng.between(-20, 20), rng.between(0.06, 0.16), rng.between(0.34, 0.5)), 0.15),
    roof: veil(convertHsl(tintHue ?? rng.pick([6, 14, 24, 200, 215]), rng.between(0.4, 0.55), rng.between(0.34, 0.42))),
    window: time === "day" ? lightenColor(sky.skyMid, 0.35) : convertHsl(rng.between(38, 50), 0.95, 0.68),
    accent: convertHsl(accentHue, 0.78, 0.6),
    accent2: convertHsl(accentHue + rng.between(40, 180), 0.72, 0.66),
    weather: time === "night" ? convertHsl(220, 0.3, 0.7) : convertHsl(210, 0.2, 0.88),
  };
}

type Sky = Pick<Palette, "skyTop" | "skyMid" | "skyHorizon" | "sun" | "sunGlow" | "cloud" | "cloudShade">;

function pickSky(rng: Rng, time: TimeOfDay, skyHue: number, overcast: boolean, storm: boolean): Sky {
  if (time === "night") {
    const hue = rng.between(224, 250);
    return {
      skyTop: convertHsl(hue, 0.6, rng.between(0.05, 0.08)),
      skyMid: convertHsl(hue + 6, 0.48, rng.between(0.12, 0.16)),
      skyHorizon: convertHsl(hue + rng.between(-10, 30), 0.38, rng.between(0.24, 0.3)),
      sun: convertHsl(rng.between(40, 55), 0.35, 0.9),
      sunGlow: convertHsl(215, 0.45, 0.72),
      cloud: convertHsl(hue, 0.2, overcast ? 0.22 : 0.3),
      cloudShade: convertHsl(hue, 0.25, 0.16),
    };
  }
  if (time === "sunset") {
    return {
      skyTop: convertHsl(rng.between(235, 265), 0.45, rng.between(0.2, 0.28)),
      skyMid: convertHsl(rng.between(318, 350), 0.55, rng.between(0.5, 0.58)),
      skyHorizon: convertHsl(rng.between(22, 40), 0.92, rng.between(0.6, 0.68)),
      sun: convertHsl(rng.between(40, 52), 1, 0.78),
      sunGlow: convertHsl(rng.between(24, 36), 1, 0.6),
      cloud: convertHsl(rng.between(335, 355), 0.55, overcast ? 0.5 : 0.78),
      cloudShade: convertHsl(rng.between(260, 285), 0.28, 0.45),
    };
  }
  if (overcast) {
    const light = storm ? 0.3 : 0.46;
    return {
      skyTop: convertHsl(skyHue, 0.12, light),
      skyMid: convertHsl(skyHue, 0.1, light + 0.12),
      skyHorizon: convertHsl(skyHue, 0.08, light + 0.24),
      sun: convertHsl(50, 0.6, 0.9),
      sunGlow: convertHsl(45, 0.4, 0.8),
      cloud: convertHsl(skyHue, 0.08, light + 0.12),
      cloudShade: convertHsl(skyHue, 0.1, light - 0.1),
    };
  }
  return {
    skyTop: convertHsl(skyHue, rng.between(0.55, 0.75), rng.between(0.42, 0.52)),
    skyMid: convertHsl(skyHue + 4, rng.between(0.55, 0.7), rng.between(0.6, 0.68)),
    skyHorizon: convertHsl(skyHue + rng.between(-25, 10), rng.between(0.4, 0.6), rng.between(0.8, 0.87)),
    sun: convertHsl(rng.between(48, 56), 1, 0.92),
    sunGlow: convertHsl(rng.between(40, 50), 1, 0.8),
    cloud: convertHsl(skyHue, 0.3, 0.98),
    cloudShade: convertHsl(skyHue, 0.22, 0.82),
  };
}

function pickGround(rng: Rng, subjects: ReadonlySet<Subject>): Rgb {
  if (subjects.has("snow")) return convertHsl(rng.between(200, 220), 0.3, rng.between(0.88, 0.93));
  if (subjects.has("desert")) return convertHsl(rng.between(28, 40), rng.between(0.5, 0.65), rng.between(0.55, 0.64));
  if (rng.chance(0.22)) return convertHsl(rng.between(22, 45), rng.between(0.45, 0.6), rng.between(0.38, 0.46));
  return convertHsl(rng.between(78, 140), rng.between(0.35, 0.55), rng.between(0.34, 0.44));
}

// Moves along the shorter way round the colour wheel.
function pullHue(from: number, to: number, amount: number): number {
  return from + measureHueDelta(from, to) * amount;
}

function measureHueDistance(a: number, b: number): number {
  return Math.abs(measureHueDelta(a, b));
}

function measureHueDelta(from: number, to: number): number {
  return ((((to - from) % 360) + 540) % 360) - 180;
}
