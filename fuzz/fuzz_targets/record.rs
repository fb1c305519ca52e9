//! See `checks/record.rs`.
#![no_main]

// Each target calls one of the shared checks.
#[allow(dead_code)]
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::record::check(data));
