// GET /enhance – upload, enhance and compare.
import type { Metadata } from "next";
import { EnhanceStudio } from "@/components/enhance/enhance-studio";

export const metadata: Metadata = { title: "Enhance" };

export default function EnhancePage() {
  return <EnhanceStudio />;
}
