// A Vitest reporter that lists, at the end of a CI run, every test that passed
// only when tried again, so a flake is seen in the report. It does not fail the
// run: one flake of a fault test on a busy shared machine would sink a whole
// landing (seen: simulator/lifecycle's pendingMs test at load 4).
import type { Reporter, TestCase } from "vitest/node";

export default class FailOnFlaky implements Reporter {
  private flaky: string[] = [];

  onTestCaseResult(testCase: TestCase) {
    if (testCase.diagnostic()?.flaky) this.flaky.push(`${testCase.module.moduleId} › ${testCase.fullName}`);
  }

  onTestRunEnd() {
    if (this.flaky.length === 0) return;
    console.error(`\n${this.flaky.length} flaky test(s) (passed only on a retry):\n${this.flaky.map((name) => `  ${name}`).join("\n")}`);
  }
}
