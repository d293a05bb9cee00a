// Before/after comparison; a native range input drives it, so mouse, touch and keyboard all work.
"use client";
import { useState } from "react";

type Props = { before: string; after: string; width: number; height: number };

export function CompareSlider({ before, after, width, height }: Props) {
  const [pos, setPos] = useState(50);
  return (
    <div>
      <label htmlFor="compare" className="mb-1.5 block text-sm font-semibold">
        Compare before and after{" "}
        <span className="font-normal text-stone-600 dark:text-stone-400">(drag, or use the arrow keys)</span>
      </label>
      <div
        className="bg-checker relative mx-auto w-full max-w-full overflow-hidden rounded-xl select-none"
        data-testid="compare"
      >
        {/* eslint-disable-next-line @next/next/no-img-element -- the enhanced PNG from the CDN */}
        <img
          src={after}
          alt="Enhanced result"
          width={width}
          height={height}
          className="block h-auto max-h-[70vh] w-full object-contain"
          draggable={false}
        />
        <div
          className="absolute inset-0"
          style={{ clipPath: `inset(0 ${100 - pos}% 0 0)` }}
          data-testid="compare-before"
        >
          {/* eslint-disable-next-line @next/next/no-img-element -- local object URL of the upload */}
          <img src={before} alt="Original upload" className="h-full w-full object-contain" draggable={false} />
        </div>
        <span className="pointer-events-none absolute top-2 left-2 rounded bg-black/70 px-2 py-0.5 text-xs font-semibold text-white">
          Before
        </span>
        <span className="pointer-events-none absolute top-2 right-2 rounded bg-black/70 px-2 py-0.5 text-xs font-semibold text-white">
          After
        </span>
        <input
          id="compare"
          type="range"
          min={0}
          max={100}
          step={1}
          value={pos}
          onChange={(e) => setPos(Number(e.target.value))}
          aria-valuetext={`${pos}% original, ${100 - pos}% enhanced`}
          className="peer absolute inset-0 h-full w-full cursor-ew-resize opacity-0"
        />
        <div
          className="pointer-events-none absolute inset-y-0 w-0.5 -translate-x-1/2 bg-white shadow-[0_0_0_1px_rgb(0_0_0/0.3)] peer-focus-visible:*:ring-4 peer-focus-visible:*:ring-safelight-400"
          style={{ left: `${pos}%` }}
          aria-hidden="true"
        >
          <span className="absolute top-1/2 left-1/2 flex size-10 -translate-x-1/2 -translate-y-1/2 items-center justify-center rounded-full border-2 border-white bg-stone-900/80 text-sm font-bold text-white shadow-lg">
            ⇔
          </span>
        </div>
      </div>
    </div>
  );
}
