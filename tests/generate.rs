//! `idgrep completions` and `idgrep man`: the generated scripts and pages work in the tools
//! that read them.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::idgrep;

fn generated(args: &[&str]) -> String {
    let o = idgrep().args(args).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `bash -c script` with `input` on standard input; returns stdout, asserting success.
fn bash(script: &str, input: &str) -> String {
    let mut child = Command::new("bash")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "bash -c {script:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// What bash's completion function offers for the words typed so far.
fn bash_completes(script: &str, words: &[&str]) -> Vec<String> {
    let words_quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let driver = format!(
        "source /dev/stdin\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\n\
         COMP_POINT={}\n_idgrep idgrep '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words_quoted.join(" "),
        words.len() - 1,
        line.len(),
        words[words.len() - 1],
        words[words.len().saturating_sub(2)],
    );
    bash(&driver, script)
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn the_bash_completion_parses_and_completes_commands_and_flags() {
    let script = generated(&["completions", "bash"]);
    bash("bash -n /dev/stdin", &script);
    assert_eq!(bash_completes(&script, &["idgrep", "ti"]), ["timeline"]);
    let all = bash_completes(&script, &["idgrep", ""]);
    for command in ["decode", "ids", "audit", "timeline", "completions", "man"] {
        assert!(all.iter().any(|w| w == command), "{command} in {all:?}");
    }
    let flags = bash_completes(&script, &["idgrep", "timeline", "--ho"]);
    assert_eq!(flags, ["--hops"]);
}

#[test]
fn every_shell_gets_a_script_that_knows_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = generated(&["completions", shell]);
        for command in ["decode", "ids", "audit", "timeline", "max-fanout"] {
            assert!(script.contains(command), "{shell}: {command}");
        }
    }
    let o = idgrep().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("accepted: bash, elvish, fish, powershell, zsh"),
        "{err}"
    );
}

/// Renders a roff page with `man -l`, asking groff for its warnings; returns the text.
fn man_renders(page: &str) -> String {
    let mut child = Command::new("man")
        .args(["--warnings", "-l", "-"])
        .env("LC_ALL", "C.UTF-8")
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the man page test needs man-db's man (scripts/test installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "man warned");
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn the_man_pages_render_without_warnings() {
    let main = man_renders(&generated(&["man"]));
    assert!(
        main.contains("NAME") && main.contains("Follow one entity"),
        "{main}"
    );
    for see in ["idgrep-ids(1)", "idgrep-timeline(1)", "idgrep-audit(1)"] {
        assert!(main.contains(see), "{see} in {main}");
    }
    let timeline = man_renders(&generated(&["man", "timeline"]));
    assert!(timeline.contains("idgrep-timeline"), "{timeline}");
    assert!(timeline.contains("--max-fanout"), "{timeline}");
    let footer = timeline.trim_end().lines().last().unwrap_or_default();
    assert!(
        footer.contains(env!("CARGO_PKG_VERSION")),
        "a command's page names the version: {footer}"
    );
    let o = idgrep().args(["man", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("accepted: decode, ids"));
}
