//! Parsers of single flag values: durations, counts, kinds, zones, instants, export formats.

use super::UsageError;
use crate::config::KindFilter;
use crate::output::timeline;

/// Parses `30s`, `5m`, `2h` (also `ms` and `d`) into milliseconds.
pub(super) fn parse_duration(s: &str) -> Result<i64, String> {
    const ACCEPTED: &str = "a duration is whole numbers with units: 500ms, 30s, 5m, 2h, 1d, or several (1h30m, 1d 12h)";
    let mut rest = s.trim();
    let mut total: i64 = 0;
    if rest.is_empty() {
        return Err(ACCEPTED.to_string());
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let letters = rest[digits..]
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let (number, unit) = (&rest[..digits], &rest[digits..digits + letters]);
        let unit_ms: i64 = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(ACCEPTED.to_string()),
        };
        total = number
            .parse::<i64>()
            .ok()
            .and_then(|n| n.checked_mul(unit_ms))
            .and_then(|ms| total.checked_add(ms))
            .ok_or_else(|| ACCEPTED.to_string())?;
        rest = rest[digits + letters..].trim_start();
    }
    Ok(total)
}

pub(super) const KIND_FILTERS: &str = "ulid, uuid, uuid1 ... uuid8, nil, max, trace, span";

/// `--clump N`: one ID alone in its millisecond is no clump.
pub(super) fn parse_clump(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 2 => Ok(n),
        Ok(_) => Err("a clump is at least 2 IDs (accepted: a whole number from 2)".to_string()),
        Err(_) => Err("not a whole number (accepted: a whole number from 2)".to_string()),
    }
}

pub(super) fn parse_line_count(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| "not a number of lines (accepted: a whole number from 0)".to_string())
}

pub(super) fn parse_kind_filter(s: &str) -> Result<KindFilter, String> {
    let filter = match s.to_ascii_lowercase().as_str() {
        "ulid" => KindFilter::Ulid,
        "uuid" => KindFilter::Uuid,
        "nil" => KindFilter::Nil,
        "max" => KindFilter::Max,
        "trace" => KindFilter::Trace,
        "span" => KindFilter::Span,
        other => match other
            .strip_prefix("uuid")
            .and_then(|v| v.parse::<u8>().ok())
        {
            Some(v @ 1..=8) => KindFilter::UuidVersion(v),
            _ => return Err(format!("not a kind (accepted: {KIND_FILTERS})")),
        },
    };
    Ok(filter)
}

/// `--tz`: an IANA zone name, or a fixed offset from UTC (`+05:30`, `-0800`, `+01`).
pub(super) fn parse_zone(name: &str) -> Option<jiff::tz::TimeZone> {
    if let Ok(zone) = jiff::tz::TimeZone::get(name) {
        return Some(zone);
    }
    let (sign, digits) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let (hours, minutes) = match (digits.len(), digits.split_once(':')) {
        (_, Some((h, m))) if h.len() == 2 && m.len() == 2 => (h, m),
        (4, None) => digits.split_at(2),
        (2, None) => (digits, "00"),
        _ => return None,
    };
    if !(hours.bytes().chain(minutes.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    let offset = jiff::tz::Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).ok()?;
    Some(jiff::tz::TimeZone::fixed(offset))
}

/// The export format a file name asks for.
pub(super) fn format_of(path: &std::path::Path) -> Result<timeline::TimelineFormat, UsageError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    Ok(match ext.as_deref() {
        Some("html" | "htm") => timeline::TimelineFormat::Html,
        Some("csv") => timeline::TimelineFormat::Csv,
        Some("ndjson" | "jsonl") => timeline::TimelineFormat::Ndjson,
        Some("md" | "markdown") => timeline::TimelineFormat::Md,
        Some("json" | "trace") => timeline::TimelineFormat::Trace,
        Some("txt" | "log") => timeline::TimelineFormat::Text,
        _ => {
            return Err(UsageError(format!(
                "cannot tell the format from the name {}: give --format text, ndjson, csv, md, \
                 html or trace",
                path.display()
            )));
        }
    })
}

/// The width to cut lines to on a terminal: `COLUMNS` when set, else the terminal's own.
pub(super) fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| terminal_size::terminal_size().map(|(w, _)| w.0 as usize))
}

/// Parses `--since`/`--until`: an RFC 3339 instant, a civil date-time in `zone`, or a span of
/// time before now (`2h`, `1d 12h`, `90s`).
pub(super) fn parse_instant(
    text: &str,
    flag: &str,
    zone: &jiff::tz::TimeZone,
) -> Result<i64, UsageError> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    if let Ok(dt) = text.parse::<jiff::civil::DateTime>()
        && let Ok(zoned) = dt.to_zoned_datetime(zone.clone())
    {
        return Ok(zoned.timestamp().as_millisecond());
    }
    if let Ok(span) = text.parse::<jiff::Span>()
        && let Ok(then) = jiff::ZonedDateTime::now()
            .with_time_zone(zone.clone())
            .checked_sub(span)
    {
        return Ok(then.timestamp().as_millisecond());
    }
    Err(UsageError(format!(
        "invalid {flag} {text:?}: give an RFC 3339 time (2026-11-29T10:00:00Z), a date and time \
         without offset (2026-11-29 10:00, read in --tz, default UTC), or a time ago (2h, 30m, 1d)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_by_name_or_fixed_offset() {
        let offset = |name: &str| {
            parse_zone(name).map(|z| z.to_offset(jiff::Timestamp::UNIX_EPOCH).seconds())
        };
        assert_eq!(offset("+05:30"), Some(19_800));
        assert_eq!(offset("-0800"), Some(-28_800));
        assert_eq!(offset("+01"), Some(3_600));
        assert_eq!(offset("UTC"), Some(0));
        assert_eq!(offset("Asia/Kolkata"), Some(19_800));
        for bad in [
            "+25:00",
            "+05:60",
            "05:30",
            "+5:30",
            "+0530x",
            "Mars/Olympus",
            "",
        ] {
            assert_eq!(offset(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("5m"), Ok(300_000));
        assert_eq!(parse_duration("2h"), Ok(7_200_000));
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("1d"), Ok(86_400_000));
        // As --since accepts them: several units, with or without blanks.
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration("1d 12h"), Ok(129_600_000));
        assert_eq!(parse_duration("2m30s500ms"), Ok(150_500));
        for bad in [
            "1h30",
            "1h 30",
            "",
            "5",
            "m",
            "5 m",
            "-5m",
            "1.5h",
            "5M",
            "99999999999999999999s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
