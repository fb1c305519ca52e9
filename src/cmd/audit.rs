//! `idgrep audit`: the inputs audited by [`crate::audit`], the report printed by
//! [`crate::output::audit`], and the exit status, which `--deny` turns into a CI gate.

use crate::audit::{self, Rule};
use crate::config::AuditConfig;
use crate::exit::Exit;
use crate::output::audit as printer;
use crate::par;
use crate::writer;

pub fn run(config: AuditConfig) -> Exit {
    let inputs = match super::distinct_inputs(&config.input) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    // A gate that read nothing has judged nothing: an error, not a pass.
    if inputs.is_empty() && !config.deny.is_empty() {
        return Exit::Error;
    }
    let settings = config.input.scan_settings(config.progress);
    let (report, notices) = audit::audit(&inputs, &settings, config.skew_ms, config.clump);
    let errored = par::report_notices(&inputs, &notices);
    let found = report.totals.occurrences > 0
        || report.totals.integer_values > 0
        || report.totals.trace_values > 0
        || report.rule(Rule::NilId).count > 0;
    let denied = config.deny.iter().any(|&r| report.rule(r).count > 0);

    let clock = config.input.clock();
    let written = writer::write_stdout(|out| {
        if config.json {
            printer::write_json(out, &report)
        } else {
            printer::write_text(out, &report, &clock, config.input.color)
        }
    });
    match written {
        Err(exit) => exit,
        Ok(()) if errored => Exit::Error,
        // With --deny the exit code is the gate: 1 when a denied rule has findings.
        Ok(()) if !config.deny.is_empty() => {
            if denied {
                Exit::NotFound
            } else {
                Exit::Found
            }
        }
        Ok(()) if found => Exit::Found,
        Ok(()) => Exit::NotFound,
    }
}
