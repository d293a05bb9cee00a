// The output format picker (png, jpeg, webp, avif), shared by the studio and the enhance page.
"use client";
import { DEFAULT_OUTPUT_FORMAT, FORMAT_HINTS, OUTPUT_FORMATS, type OutputFormat } from "@/lib/client/output-format";
import { ChoiceGroup } from "./choice-group";

type Props = { value: OutputFormat; onChange: (v: OutputFormat) => void };

const OPTIONS = OUTPUT_FORMATS.map((f) => ({ value: f, label: f.toUpperCase(), title: FORMAT_HINTS[f] }));

export function FormatPicker({ value, onChange }: Props) {
  return (
    <ChoiceGroup
      legend="Format"
      name="output_format"
      options={OPTIONS}
      value={value}
      onChange={onChange}
      hint={`${FORMAT_HINTS[value]}${value === DEFAULT_OUTPUT_FORMAT ? "" : " · quality 90"}`}
    />
  );
}
