// int8 or fp32 per embedded model: ENHANCE_PRECISION when set, else int8 only where it holds quality.
// Worker and bench code import it by relative path.
import fs from "node:fs";
import type { EnhancePackage } from "../catalog/enhance-modes";
import type { Precision } from "./neural/protocol";

/** The bar int8 must clear on the held-out photos (assets/photos/held-out) at strength 1, against fp32. */
export const INT8_MAX_PSNR_LOSS_DB = 0.1;

/**
 * Mean PSNR loss of int8 against fp32 on the held-out photos (2× and 4× from an HR crop, PSNR against it), by the
 * weights' bits: 8 on CPUs with an int8 dot product that cannot saturate (x86 VNNI/AMX, Arm), 7 on other x86 CPUs
 * (see int8WeightBits). `tests/unit/neural-int8.test.ts` re-measures each entry the table defaults to int8 and
 * fails if it no longer clears the bar; flat areas (sky, skin) are compared in its crops artefact.
 */
export const INT8_HELD_OUT_LOSS_DB: Record<7 | 8, Record<`${EnhancePackage}-x${2 | 4}`, number>> = {
  8: { "esrgan-slim-x2": 0.07, "esrgan-slim-x4": 0.05, "esrgan-medium-x2": 0.12, "esrgan-medium-x4": 0.04 },
  7: { "esrgan-slim-x2": 0.11, "esrgan-slim-x4": 0.03, "esrgan-medium-x2": 0.17, "esrgan-medium-x4": 0.04 },
};

/** The precision a packaged model runs at: the operator's choice, else int8 where it loses at most 0.1 dB. */
export function choosePrecision(
  pkg: EnhancePackage,
  scale: 2 | 4,
  weightBits: 7 | 8,
  configured: Precision | undefined,
): Precision {
  if (configured) return configured;
  return INT8_HELD_OUT_LOSS_DB[weightBits][`${pkg}-x${scale}`] <= INT8_MAX_PSNR_LOSS_DB ? "int8" : "fp32";
}

/**
 * 8-bit weights where the CPU's int8 dot product cannot saturate (VNNI, AMX, Arm's dot product); 7-bit on other
 * x86 CPUs, whose vpmaddubsw adds u8×s8 pairs into saturating 16-bit sums (ONNX Runtime's reduce_range advice).
 * Measured on an AVX2-only EPYC: 8-bit weights there cost 6.4 dB on the astronaut photo.
 */
export function int8WeightBits(arch = process.arch, cpuinfo = readCpuinfo()): 7 | 8 {
  if (arch !== "x64" && arch !== "ia32") return 8;
  return /\b(avx512_vnni|avx_vnni|amx_int8)\b/.test(cpuinfo) ? 8 : 7;
}

function readCpuinfo(): string {
  try {
    return fs.readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return "";
  }
}
