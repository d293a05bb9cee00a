// int8 or fp32 per embedded model: ENHANCE_PRECISION when set, else int8 only where it holds quality.
// Worker and bench code import it by relative path.
import fs from "node:fs";
import type { EnhancePackage } from "../catalog/enhance-modes";
import heldOut from "./int8-held-out.json";
import type { Precision } from "./neural/protocol";

/** The bar int8 must clear on the held-out photos (assets/photos/held-out) at strength 1, against fp32. */
export const INT8_MAX_PSNR_LOSS_DB = 0.1;

type Model = `${EnhancePackage}-x${2 | 4}`;

/** lib/enhance/int8-held-out.json: measured and written by scripts/measure-int8.ts, never typed by hand. */
export type HeldOutTable = {
  written_by: string;
  measured_on: {
    cpu: string;
    int8_dot_product: string;
    onnxruntime: string;
    date: string;
    weights: Record<"7" | "8", string>;
  };
  /** The enhanced output's loss at strength 1 (network, resize, sharpen): what decides. */
  loss_db: Record<"7" | "8", Record<Model, number>>;
  /** The network's own output's loss, for reference. */
  network_loss_db: Record<"7" | "8", Record<Model, number>>;
};

/**
 * Mean PSNR loss of int8 against fp32 on the held-out photos in the enhanced output at strength 1 (2× and 4× from
 * an HR crop, PSNR against it; the sharpen after the network makes it larger than the network's own), by the
 * weights' bits: 8 on CPUs with an int8 dot product that cannot saturate (x86 VNNI/AMX, Arm), 7 on other x86 CPUs
 * (see int8WeightBits). The figures come from scripts/measure-int8.ts; `tests/unit/neural-int8.test.ts` re-measures
 * them on the CPU it runs on and fails when the file no longer matches; flat areas (sky, skin) are compared in its
 * crops artefact.
 */
export const INT8_HELD_OUT: HeldOutTable = heldOut;
export const INT8_HELD_OUT_LOSS_DB: Record<7 | 8, Record<Model, number>> = {
  8: heldOut.loss_db["8"],
  7: heldOut.loss_db["7"],
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
  return int8DotProduct(cpuinfo) ? 8 : 7;
}

/** The x86 flag that gives a non-saturating int8 dot product (VNNI, AMX), if the CPU has one. */
export function int8DotProduct(cpuinfo = readCpuinfo()): string | undefined {
  return /\b(avx512_vnni|avx_vnni|amx_int8)\b/.exec(cpuinfo)?.[1];
}

function readCpuinfo(): string {
  try {
    return fs.readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return "";
  }
}
