// Names every test that failed and then passed on a retry (the real tier retries once: vitest.config.ts), with
// what the failed attempt said, so a flaky real test is seen in the run's output and can be looked into,
// never passed over in silence. A test that fails on its retry too fails the run as always.
export default class RetriedTestsReporter {
  retried = [];

  onTestCaseResult(testCase) {
    const { retryCount } = testCase.diagnostic() ?? {};
    if (!retryCount || testCase.result().state !== 'passed') return;
    const errors = testCase.result().errors ?? [];
    const said = errors[0]?.message?.split('\n')[0] ?? '(the failed attempt left no error)';
    this.retried.push(`${testCase.module.moduleId.replace(`${process.cwd()}/`, '')} > ${testCase.fullName}: ${said}`);
  }

  onTestRunEnd() {
    if (this.retried.length === 0) return;
    console.log(`\nPassed only on a retry (${this.retried.length}; each failed once first):`);
    for (const line of this.retried) console.log(`  RETRIED ${line}`);
  }
}
