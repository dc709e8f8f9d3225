// A Vitest reporter that fails a CI run on a test that passed only when tried
// again (Playwright's failOnFlakyTests; Vitest has no such option): a retry
// shows a flake in the report, it never turns one into a pass.
import type { Reporter, TestCase } from "vitest/node";

export default class FailOnFlaky implements Reporter {
  private flaky: string[] = [];

  onTestCaseResult(testCase: TestCase) {
    if (testCase.diagnostic()?.flaky) this.flaky.push(`${testCase.module.moduleId} › ${testCase.fullName}`);
  }

  onTestRunEnd() {
    if (this.flaky.length === 0) return;
    console.error(`\n${this.flaky.length} flaky test(s) (passed only on a retry): a failure on CI\n${this.flaky.map((name) => `  ${name}`).join("\n")}`);
    process.exitCode = 1;
  }
}
