import { AppError } from "@/lib/errors";
import { getGenerationFresh } from "@/lib/generations/list-fresh";
import { jsonWithEtag, route } from "@/lib/http";

export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const { id } = await params;
  const generation = await getGenerationFresh({ id });
  if (!generation) throw new AppError("not_found", "No such generation.");
  return jsonWithEtag(request, generation);
});
