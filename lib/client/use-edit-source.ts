// The studio's image to edit: picked from a file (upload, paste, drop) with the enhance page's checks and resizing,
// or fetched from a result's URL for "Edit"; a newer pick wins over an older one still loading.
"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { fetchAsFile, type PickedImage, pickImage } from "./picked-image";
import type { UploadLimits } from "./upload-rules";

export type EditSource = { image: PickedImage; label: string };

const UNREADABLE =
  "Your browser can't display this image, so no mask can be painted on it. Convert it to PNG, JPEG or WebP and try again.";

export function useEditSource(limits: UploadLimits, announce: (text: string) => void) {
  const [source, setSource] = useState<EditSource | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);
  const limitsRef = useRef(limits);
  useEffect(() => {
    limitsRef.current = limits;
  }, [limits]);

  const replace = useCallback((next: EditSource | null) => {
    setSource((old) => {
      if (old) URL.revokeObjectURL(old.image.previewUrl);
      return next;
    });
  }, []);

  const fromFile = useCallback(
    async (file: File, label?: string): Promise<boolean> => {
      const mine = ++seq.current;
      setError(null);
      setLoading(true);
      const picked = await pickImage(file, limitsRef.current, () =>
        announce(`Resizing ${file.name || "your image"} to fit the upload limit…`),
      );
      if (mine !== seq.current) {
        if (picked.ok) URL.revokeObjectURL(picked.image.previewUrl);
        return false;
      }
      setLoading(false);
      const problem = !picked.ok ? picked.message : picked.image.width === 0 ? UNREADABLE : null;
      if (problem || !picked.ok) {
        if (picked.ok) URL.revokeObjectURL(picked.image.previewUrl);
        setError(problem);
        announce(problem ?? "");
        return false;
      }
      const name = label ?? (file.name || "Pasted image");
      replace({ image: picked.image, label: name });
      announce(
        `${picked.image.resized ? `${picked.image.resized.message} ` : ""}${name} is ready to edit. Paint over what should change, or leave it unpainted to change the whole image.`,
      );
      return true;
    },
    [announce, replace],
  );

  const fromUrl = useCallback(
    async (url: string, label: string): Promise<boolean> => {
      const mine = ++seq.current;
      setError(null);
      setLoading(true);
      const file = await fetchAsFile(url);
      if (mine !== seq.current) return false;
      if (!file) {
        setLoading(false);
        const message = "Couldn't load that image (it may have expired). Download it and upload it here instead.";
        setError(message);
        announce(message);
        return false;
      }
      return fromFile(file, label);
    },
    [announce, fromFile],
  );

  const clear = useCallback(() => {
    seq.current++;
    setLoading(false);
    setError(null);
    replace(null);
  }, [replace]);

  return { source, loading, error, fromFile, fromUrl, clear };
}
