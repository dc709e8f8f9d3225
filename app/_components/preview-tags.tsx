// A shared video's or comparison's link preview (lib/sharing/preview-tags.ts) as <meta>
// elements; React places them in the document's <head>.
import type { PreviewTag } from "@/lib/sharing/preview-tags";

export function PreviewTags({ tags }: { tags: PreviewTag[] }) {
  return (
    <>
      {tags.map((tag, index) =>
        tag.attribute === "property" ? <meta key={index} property={tag.key} content={tag.content} /> : <meta key={index} name={tag.key} content={tag.content} />,
      )}
    </>
  );
}
