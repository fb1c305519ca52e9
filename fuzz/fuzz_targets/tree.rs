//! `ids` and `audit` over small trees against a naive count: see `checks/tree.rs`.
#![no_main]

// Each target calls one of the shared checks.
#[allow(dead_code)]
#[path = "../checks/mod.rs"]
mod checks;
#[path = "../in_process.rs"]
mod in_process;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tree::check(data, &mut in_process::run));
