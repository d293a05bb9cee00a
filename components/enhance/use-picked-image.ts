// The photo chosen for enhancement: checked and, when over the limits, resized in the browser; a newer pick wins
// over an older one still resizing; "Enhance this" from the studio hands one over with ?src=.
"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { fetchAsFile, type PickedImage, pickImage } from "@/lib/client/picked-image";
import type { UploadLimits } from "@/lib/client/upload-rules";

/** `onPicked` runs once a pick settles (to clear the last result); `announce` speaks to screen readers. */
export function usePickedImage(limits: UploadLimits, onPicked: () => void, announce: (text: string) => void) {
  const [image, setImage] = useState<PickedImage | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [resizing, setResizing] = useState(false);
  // Read through refs so onFile stays stable (the ?src hand-off runs once) yet always sees the latest values.
  const latest = useRef({ limits, onPicked, announce });
  useEffect(() => {
    latest.current = { limits, onPicked, announce };
  }, [limits, onPicked, announce]);
  // A resize takes a moment; a newer pick in the meantime wins over the older one's late result.
  const pickSeq = useRef(0);

  const onFile = useCallback(async (file: File) => {
    const seq = ++pickSeq.current;
    const picked = await pickImage(file, latest.current.limits, () => {
      setResizing(true);
      setFileError(null);
      latest.current.announce(`Resizing ${file.name || "your image"} to fit the upload limit…`);
    });
    if (seq !== pickSeq.current) {
      if (picked.ok) URL.revokeObjectURL(picked.image.previewUrl);
      return;
    }
    setResizing(false);
    latest.current.onPicked();
    if (!picked.ok) {
      setFileError(picked.message);
      latest.current.announce(picked.message);
      return;
    }
    setFileError(null);
    setImage((old) => {
      if (old) URL.revokeObjectURL(old.previewUrl);
      return picked.image;
    });
    latest.current.announce(
      picked.image.resized
        ? `${picked.image.resized.message} Ready to enhance.`
        : `${file.name || "Image"} ready to enhance.`,
    );
  }, []);

  useEffect(() => {
    // "Enhance this" from the studio passes the generated image's URL.
    const src = new URLSearchParams(window.location.search).get("src");
    if (!src) return;
    void fetchAsFile(src).then((file) => {
      if (file) void onFile(file);
      else setFileError("Couldn't load that image. Download it and upload it here instead.");
    });
  }, [onFile]);

  return { image, fileError, resizing, onFile };
}
