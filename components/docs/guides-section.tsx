// The docs page's list of operator guides (docs/*.md, served as text by /docs/guides/<slug>).
import { textLink } from "@/components/ui/styles";
import { GUIDES } from "@/lib/catalog/guides";

export function GuidesSection() {
  return (
    <section aria-labelledby="guides-h" id="guides" className="scroll-mt-6 space-y-3">
      <h2 id="guides-h" className="text-xl font-semibold">
        Operator guides
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Running Darkroom yourself: the guides in the repository&apos;s <code className="font-mono">docs/</code> folder.
      </p>
      <ul className="list-disc space-y-1 pl-5 text-stone-700 dark:text-stone-300">
        {GUIDES.map((g) => (
          <li key={g.slug}>
            <a href={`/docs/guides/${g.slug}`} className={textLink}>
              {g.title}
            </a>
            : {g.covers}
          </li>
        ))}
      </ul>
    </section>
  );
}
