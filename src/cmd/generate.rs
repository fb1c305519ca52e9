//! `idgrep completions SHELL` and `idgrep man [COMMAND]`: text generated from the clap
//! definition of the command line, so it cannot drift from what `--help` says.

use crate::exit::Exit;
use crate::writer;

/// Prints the completion script of `cli` for `shell`.
pub fn completions(shell: clap_complete::Shell, mut cli: clap::Command) -> Exit {
    let name = cli.get_name().to_string();
    let written = writer::write_stdout(|out| {
        clap_complete::generate(shell, &mut cli, name, out);
        Ok(())
    });
    written.map_or_else(|exit| exit, |()| Exit::Found)
}

/// Prints the roff man page of `page`.
pub fn man(page: clap::Command) -> Exit {
    let written = writer::write_stdout(|out| clap_mangen::Man::new(page).render(out));
    written.map_or_else(|exit| exit, |()| Exit::Found)
}
