//! `idgrep merge`: the results of runs over disjoint inputs (other hosts, Spark tasks) made
//! into what one run over all those inputs prints, byte for byte, given in the order that run
//! would read the inputs.
//!
//! Three kinds of result merge: `ids --partial` ([`partial`]), whose counts are added into
//! one inventory that the `ids` views then filter, sort and print; search `--json` and the
//! timeline's NDJSON ([`lines`]). What a result holds is told by its first line.

pub mod lines;
pub mod partial;

use crate::inventory::{Inventory, Tallies};

/// What a result holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    Ids,
    Search,
    Timeline,
}

impl ResultKind {
    /// As messages name it.
    pub fn describe(self) -> &'static str {
        match self {
            ResultKind::Ids => "an ids --partial result",
            ResultKind::Search => "a search --json result",
            ResultKind::Timeline => "a timeline NDJSON result",
        }
    }
}

/// The kind of the result `text`, from its first line; `None` when it is empty (a search or a
/// timeline that found nothing).
pub fn kind_of(text: &[u8]) -> Result<Option<ResultKind>, String> {
    let Some(first) = text.split(|&b| b == b'\n').find(|l| !l.is_empty()) else {
        return Ok(None);
    };
    let value: serde_json::Value = serde_json::from_slice(first).map_err(|_| {
        "not JSON: merge takes `idgrep ids --partial`, search `--json` and `timeline --format \
         ndjson` results"
            .to_string()
    })?;
    if partial::is_header(&value) {
        Ok(Some(ResultKind::Ids))
    } else if lines::is_search(&value) {
        Ok(Some(ResultKind::Search))
    } else if lines::is_timeline(&value) {
        Ok(Some(ResultKind::Timeline))
    } else if value.get("occurrences").is_some() && value.get("forms").is_some() {
        Err(
            "an `idgrep ids --json` result, which cannot be merged exactly (it leaves out the \
             values written only as 32 hex digits and the inputs without an ID): give \
             `idgrep ids --partial` results"
                .to_string(),
        )
    } else {
        Err(
            "JSON, but no idgrep result that merges: merge takes `idgrep ids --partial`, \
             search `--json` and `timeline --format ndjson` results"
                .to_string(),
        )
    }
}

/// The inventory of `partials`, in order, with every input they name; `all_hex`: values
/// written only undashed count too.
pub fn inventory(
    partials: Vec<partial::Partial>,
    all_hex: bool,
    threads: usize,
) -> (Inventory, Vec<crate::text::Name>) {
    let tallies = Tallies::new(all_hex);
    let mut tally = tallies.tally();
    let mut paths = Vec::new();
    for partial in partials {
        let first_file = paths.len() as u32;
        paths.extend(partial.inputs.iter().cloned());
        partial.add_to(&mut tally, first_file);
    }
    tally.done();
    (tallies.finish(threads), paths)
}
