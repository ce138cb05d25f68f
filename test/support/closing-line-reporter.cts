// Mocha's spec reporter, plus one plain closing line ("N passed, N failed, N skipped") that
// CI systems read to tell a run that executed tests from one that executed none. A passed
// test is marked ✓, not the ✔ of Node's own test runner, whose output this is not.
//
// Under CI a passed test gets no line of its own: suites, pending and failed tests, the
// tests' own lines and the summary stay. The whole listing is over 100 KB and growing, and
// a reader that looks at only the start of a long log would never reach the closing line.
// A CommonJS file because mocha loads a reporter with require().
import Mocha = require('mocha');
import { inCi } from './in-ci.cjs';

const { Base } = Mocha.reporters;
const { EVENT_RUN_BEGIN, EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING } =
  Mocha.Runner.constants;

class ClosingLineReporter extends Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    Base.symbols.ok = '✓';
    const listPasses = !inCi;
    const color = Base.color;
    let depth = 0;
    let failed = 0;
    const indent = () => '  '.repeat(Math.max(depth - 1, 0));
    runner.on(EVENT_RUN_BEGIN, () => Base.consoleLog());
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      depth++;
      Base.consoleLog(color('suite', '%s%s'), indent(), suite.title);
    });
    runner.on(EVENT_SUITE_END, () => {
      depth--;
      if (depth === 1) Base.consoleLog();
    });
    runner.on(EVENT_TEST_PENDING, (test) => Base.consoleLog(indent() + color('pending', '  - %s'), test.title));
    runner.on(EVENT_TEST_PASS, (test) => {
      if (!listPasses) return;
      const line = indent() + color('checkmark', `  ${Base.symbols.ok}`) + color('pass', ' %s');
      if (test.speed === 'fast') Base.consoleLog(line, test.title);
      else Base.consoleLog(line + color(test.speed ?? 'medium', ' (%dms)'), test.title, test.duration);
    });
    runner.on(EVENT_TEST_FAIL, (test) => Base.consoleLog(indent() + color('fail', '  %d) %s'), ++failed, test.title));
    runner.once(EVENT_RUN_END, () => {
      this.epilogue();
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

export = ClosingLineReporter;
