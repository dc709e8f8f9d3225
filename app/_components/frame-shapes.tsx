// A first and a last frame of different shapes (16:9 then 9:16): a video has
// one shape, so one of them is cropped or stretched; the form says so before
// submitting.

/** Frames whose width/height ratios are this close (relative) have the same shape: 854 × 480 is 16:9. */
const SAME_SHAPE_TOLERANCE = 0.03;
const NAMED_RATIOS = [
  [16, 9],
  [9, 16],
  [4, 3],
  [3, 4],
  [1, 1],
  [3, 2],
  [2, 3],
  [21, 9],
  [5, 4],
  [4, 5],
] as const;

type Size = { width: number; height: number };

const closeTo = (a: number, b: number) => Math.abs(a - b) / b <= SAME_SHAPE_TOLERANCE;

/** "16:9" where the size is close to a usual ratio, else "1000 × 300 px". */
export function describeShape({ width, height }: Size): string {
  const named = NAMED_RATIOS.find(([w, h]) => closeTo(width / height, w / h));
  return named ? `${named[0]}:${named[1]}` : `${width} × ${height} px`;
}

export function shapesDiffer(a: Size, b: Size): boolean {
  return !closeTo(a.width / a.height, b.width / b.height);
}

/** The warning under the frames, or nothing while they have the same shape (or one is missing). */
export function FrameShapeWarning({ first, last }: { first?: Size; last?: Size }) {
  const differ = first && last && shapesDiffer(first, last);
  return (
    // Always in the page, so that a screen reader hears the warning when it appears.
    <p role="status" aria-live="polite" className={differ ? "rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800" : "sr-only"} data-testid="frame-shape-warning">
      {differ
        ? `The first frame is ${describeShape(first)} and the last frame ${describeShape(last)}: a video has one shape, so one of them will be cropped or stretched. Use two frames of the same shape to keep both whole.`
        : ""}
    </p>
  );
}
