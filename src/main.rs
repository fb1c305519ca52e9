//! The `idgrep` binary: parse the command line, run, exit 0 (found), 1 (not found) or 2
//! (an error occurred).

use std::io::IsTerminal;
use std::process::ExitCode;

use idgrep::cli::{self, Command};

/// The inventory views allocate a small side record per multi-file ID, millions of them;
/// mimalloc serves those several times faster than the system allocator (benches/ids.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use idgrep::run::{self, Exit};

fn main() -> ExitCode {
    let exit = match cli::parse_args() {
        Err(cli::UsageError(message)) => {
            run::report(&message);
            Exit::Error
        }
        Ok(Command::Search(config)) => run::search(config),
        Ok(Command::Ids(config)) => idgrep::ids::run(config),
        Ok(Command::Audit(config)) => idgrep::audit::run(config),
        Ok(Command::Timeline(config)) => idgrep::timeline::run(config),
        Ok(Command::Decode { inputs, json }) => {
            let color = std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            run::decode(&inputs, json, color)
        }
    };
    ExitCode::from(exit as u8)
}
