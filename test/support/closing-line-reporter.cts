// Mocha's spec reporter, plus one plain closing line ("N passed, N failed, N skipped") that
// CI systems read to tell a run that executed tests from one that executed none. A passed
// test is marked ✓, not the ✔ of Node's own test runner, whose output this is not.
// A CommonJS file because mocha loads a reporter with require().
import Mocha = require('mocha');

class ClosingLineReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    Mocha.reporters.Base.symbols.ok = '✓';
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      // After the spec reporter's own summary, which it prints on the same event.
      process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

export = ClosingLineReporter;
