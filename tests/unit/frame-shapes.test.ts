// When the form calls two frames' shapes different, and how it names a shape.
import { describe, expect, test } from "vitest";
import { describeShape, shapesDiffer } from "@/app/_components/frame-shapes";

describe("shapesDiffer", () => {
  test.each([
    [{ width: 1280, height: 720 }, { width: 720, height: 1280 }, true],
    [{ width: 1280, height: 720 }, { width: 854, height: 480 }, false],
    [{ width: 640, height: 480 }, { width: 800, height: 600 }, false],
    [{ width: 640, height: 480 }, { width: 1280, height: 720 }, true],
    [{ width: 512, height: 512 }, { width: 520, height: 512 }, false],
    [{ width: 512, height: 512 }, { width: 600, height: 512 }, true],
  ])("%o and %o: %s", (a, b, differ) => {
    expect(shapesDiffer(a, b)).toBe(differ);
  });
});

describe("describeShape", () => {
  test.each([
    [{ width: 1280, height: 720 }, "16:9"],
    [{ width: 854, height: 480 }, "16:9"],
    [{ width: 720, height: 1280 }, "9:16"],
    [{ width: 640, height: 480 }, "4:3"],
    [{ width: 512, height: 512 }, "1:1"],
    [{ width: 1000, height: 300 }, "1000 × 300 px"],
  ])("%o is %s", (size, name) => {
    expect(describeShape(size)).toBe(name);
  });
});
