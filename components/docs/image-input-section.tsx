// The docs page's short guide to image input (contract 1.2): edit, image-to-image and inpainting through the same
// POST /api/generate as multipart, several images per call, and output formats.
import { CodeBlock } from "./code-block";
import { mono, SimpleTable } from "./simple-table";

const KEY = '-H "Authorization: Bearer $DARKROOM_API_KEY"';

const FIELDS = [
  {
    key: "image",
    cells: [mono("image"), "file", "The starting image: PNG, JPEG or WebP, within the upload limits of /api/enhance."],
  },
  {
    key: "mask",
    cells: [
      mono("mask"),
      "file",
      "Optional, only with an image. White = change, black = keep, grey = partly. A mask with transparency is read as OpenAI's are: transparent = change. Scaled to the image's size; a mask that marks nothing is 400 invalid_mask.",
    ],
  },
  {
    key: "strength",
    cells: [
      mono("strength"),
      "0 – 1",
      "Default 0.6: 0 keeps the image, 1 ignores it. Masked-out areas are kept at any strength. Without an image: 400 invalid_strength.",
    ],
  },
  {
    key: "image_id",
    cells: [mono("image_id"), "string", "Instead of uploading: an image in your own library. Anyone else's is 404."],
  },
  {
    key: "n",
    cells: [mono("n"), "1 – 4", "Images per call, each with its own seed and one unit of quota; images[] lists them."],
  },
  {
    key: "output_format",
    cells: [
      mono("output_format"),
      "png · jpeg · webp · avif",
      "Also on /api/enhance, with output_quality (1 – 100, default 90). The URL ends in the format's extension.",
    ],
  },
];

export function ImageInputSection({ origin }: { origin: string }) {
  return (
    <section aria-labelledby="image-input-h" id="image-input" className="scroll-mt-6 space-y-3">
      <h2 id="image-input-h" className="text-xl font-semibold">
        Image input: edits, image-to-image and inpainting
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Send <code className="font-mono">POST /api/generate</code> as{" "}
        <code className="font-mono">multipart/form-data</code> with the image, and optionally a mask and a strength;
        every JSON field goes along as a form field. The result keeps the image&apos;s aspect ratio. Each model&apos;s{" "}
        <code className="font-mono">inputs</code> in <code className="font-mono">GET /api/status</code> say whether its
        routes here take an image and a mask; when none does, the answer is 400{" "}
        <code className="font-mono">unsupported_input</code> before any quota is used. With no engine configured, the
        built-in preview engine answers with a labelled, deterministic transform (
        <code className="font-mono">&quot;ai&quot;: false</code>), not AI.
      </p>
      <SimpleTable
        caption="Image input fields"
        head={["Field", "Type", "Meaning"]}
        rows={FIELDS}
        testId="image-input-fields"
      />
      <CodeBlock
        label="Image-to-image: change the whole picture"
        code={`curl -s ${origin}/api/generate ${KEY} \\
  -F prompt="the same street in winter" -F image=@street.jpg -F strength=0.5`}
      />
      <CodeBlock
        label="Inpainting: change only the white part of the mask, four webp variants"
        code={`curl -s ${origin}/api/generate ${KEY} \\
  -F prompt="a red door" -F image=@house.png -F mask=@door-mask.png \\
  -F n=4 -F output_format=webp
# {"success":true,"url":"…/img_….webp",…,"images":[{"url":"…","id":"…","seed":…,"delete_token":"…"},…]}`}
      />
      <CodeBlock
        label="Edit an image already in your library"
        code={`curl -s ${origin}/api/generate ${KEY} \\
  -H "Content-Type: application/json" \\
  -d '{"prompt":"as a watercolour","image_id":"img_…","strength":0.7}'`}
      />
    </section>
  );
}
