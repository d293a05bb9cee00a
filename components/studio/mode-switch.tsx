// Text to image, or Edit an image: the studio's two modes.
"use client";
import { ChoiceGroup } from "@/components/ui/choice-group";

export type StudioMode = "text" | "edit";

const OPTIONS = [
  { value: "text" as StudioMode, label: "Create from text" },
  { value: "edit" as StudioMode, label: "Edit an image" },
];

export function ModeSwitch({ value, onChange }: { value: StudioMode; onChange: (v: StudioMode) => void }) {
  return <ChoiceGroup legend="Mode" name="mode" options={OPTIONS} value={value} onChange={onChange} />;
}
