//! `idgrep decode`: what each ID holds, from the arguments or from the words of standard
//! input, as text blocks or JSON objects rendered by [`crate::output::decode::Decoded`].

use std::io::{self, BufRead, Write};

use crate::exit::{Exit, report};
use crate::output::decode::Decoded;
use crate::source;
use crate::writer;

/// `idgrep decode`: one block (or JSON object) per ID, from the arguments or, with none, from
/// standard input; an invalid one is reported and makes the exit code 2, the others are still
/// decoded.
pub fn run(inputs: &[String], json: bool, color: bool) -> Exit {
    let mut decoder = Decoder {
        json,
        color,
        text: Vec::new(),
        decoded: 0,
        errored: false,
    };
    let written = writer::write_stdout(|out| {
        if inputs.is_empty() {
            decoder.stdin_words(out)
        } else {
            inputs.iter().try_for_each(|input| decoder.one(input, out))
        }
    });
    if let Err(exit) = written {
        return exit;
    }
    match (decoder.errored, decoder.decoded) {
        (true, _) => Exit::Error,
        // Standard input held no word: nothing decoded, as a search that finds nothing.
        (false, 0) => Exit::NotFound,
        (false, _) => Exit::Found,
    }
}

/// `decode`'s settings and what it has met so far.
struct Decoder {
    json: bool,
    color: bool,
    /// One ID's output, reused.
    text: Vec<u8>,
    decoded: usize,
    errored: bool,
}

impl Decoder {
    /// Decodes the blank-separated words of standard input as they come, a line at a time,
    /// so that a pipe that stays open (`tail -f`) gets its answers and memory stays flat.
    /// A word that is not UTF-8 is reported like any other invalid ID, and a failed read
    /// like an unreadable input.
    fn stdin_words(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) => {
                    report(&format!("standard input: {}", source::io_reason(&e)));
                    self.errored = true;
                    return Ok(());
                }
            }
            for word in line
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty())
            {
                self.one(&String::from_utf8_lossy(word), out)?;
            }
            out.flush()?;
        }
    }

    /// Prints what `input` holds, or reports why it is not an ID.
    fn one(&mut self, input: &str, out: &mut dyn Write) -> io::Result<()> {
        let decoded = match crate::id::parse(input) {
            Ok(parsed) => Decoded::new(input, parsed),
            Err(e) => {
                self.errored = true;
                report(&format!(
                    "{input:?}: {e}; accepted forms: {}",
                    crate::id::ACCEPTED_FORMS
                ));
                return Ok(());
            }
        };
        let text = &mut self.text;
        text.clear();
        if self.json {
            serde_json::to_writer(&mut *text, &decoded)
                .expect("writing JSON to memory cannot fail");
            text.push(b'\n');
        } else {
            if self.decoded > 0 {
                text.push(b'\n');
            }
            decoded.write_text(text, self.color);
        }
        self.decoded += 1;
        out.write_all(text)
    }
}
