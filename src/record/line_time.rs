//! A line's own time, in Unix microseconds (the finest a log writes that two lines need to be
//! told apart by; nanoseconds are cut), read only when asked. A time without an offset is
//! in the context's zone, and says so ([`LineTime::zone_guessed`]) when that zone is only the
//! default; in a zone with a daylight saving gap or fold, the later offset of a
//! gap and the earlier of a fold apply (jiff's "compatible" rule). An impossible date or time
//! (Feb 30, 24:00) gives none. The formats, with an example each, are tabled in
//! docs/records.md.
//! - JSON: the first top-level key, in any case, among `ts`, `time`, `timestamp`,
//!   `@timestamp`, `t`, `date`, `@t`, `eventTime`, `datetime`, `asctime`, `time_local`,
//!   `time_iso8601`, `timeMillis`, `__REALTIME_TIMESTAMP` whose value is a time, or MongoDB's
//!   `{"t":{"$date":...}}`. For JSON after a prefix this wins over a time in the prefix.
//! - logfmt: the first of the same keys whose value is a time.
//! - Values of those keys: RFC 3339 / ISO 8601 (below, the whole value), the access-log
//!   form (`01/Dec/2026:10:00:00 +0000`, the whole value), or an epoch number (also as a
//!   string of digits) in seconds, milliseconds, microseconds or nanoseconds told apart by the
//!   count of integer digits (up to 11, 12 to 14, 15 to 17, 18 or 19), with an optional
//!   fraction (`1732874400.123`). Negative numbers and exponents are not times.
//! - Plain text, the first that matches, after an optional syslog `<PRI>` (and RFC 5424's
//!   version `1`):
//!   - klog at the start: `I1129 10:00:00.123456` (letter I, W, E or F);
//!   - syslog at the start: `Nov 29 10:00:00`, `Jul  1 09:00:55`;
//!   - java.util.logging at the start: `Dec 01, 2026 10:00:15 AM` (12-hour clock);
//!   - `ctime` at the start, optionally after `[` (the Apache error log):
//!     `[Tue Dec 01 10:00:00.123456 2026]`;
//!   - ISO at the start of one of the first four blank-separated tokens, optionally after `[`
//!     (`nova-api.log 2017-05-16 00:00:00.008 ...`): `2026-11-29T10:00:00Z`,
//!     `2026-11-29 10:00:00,123`, `2026/11/29 10:00:00` (Go's `log`, nginx's error log),
//!     seconds optional (`2026-11-29T10:00Z`), any fraction length after `.` or `,`, an
//!     offset `Z`, `+01:00`, `+0100`, `+01`, or after a blank `+0000`, `UTC`, `GMT` or a
//!     common zone abbreviation (`PST`, `CET`; not the ambiguous `CST`, `IST`); an impossible
//!     offset (`+25:00`) gives no time;
//!   - the value of a time key written `key=value` or `key="value"` as one of the first four
//!     tokens, where the rest of the line is not logfmt (`ts=2026-11-29T10:00:00Z msg="x"
//!     user_id: 01kb...`): a value of the forms above;
//!   - anywhere, the first `[...]` group in access-log form: `[29/Nov/2026:10:00:00 +0000]`.
//!
//! A leap second (`23:59:60`) reads as the second before it. klog and syslog give no year:
//! it is the year of the context's reference time (the file's modification time), or the
//! year before when the line's month is later than the reference month, since a file holds
//! no lines from after its last write (a December line in a file written in January is from
//! the previous year). The calendar arithmetic is [`crate::time`]'s.

use std::cell::Cell;

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use memchr::memchr;

use super::logfmt::{blank_at_or_after, pair_at};
use super::{is_time_key, skip_blank};
use crate::time::{days_from_civil_cached, days_in_month};

/// A line's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTime {
    /// Unix microseconds.
    pub micros: i64,
    /// Written without an offset and read in UTC only because the user named no zone
    /// (`--tz`): a log written in local time is hours off, so the time is good for order
    /// within a file but not for comparing with a clock elsewhere.
    pub zone_guessed: bool,
}

impl LineTime {
    /// The time in Unix milliseconds, rounded down.
    pub fn millis(self) -> i64 {
        self.micros.div_euclid(1000)
    }

    /// A time the line wrote with its offset, or as an epoch number.
    fn absolute(micros: i64) -> LineTime {
        LineTime {
            micros,
            zone_guessed: false,
        }
    }
}

/// What a time needs that the line does not say.
#[derive(Clone, Debug)]
pub struct TimeContext {
    zone: TimeZone,
    /// Whether the user named the zone, rather than UTC applying by default.
    zone_given: bool,
    /// The zone's offset in seconds when it never changes, so that most lines need no zone
    /// lookup.
    fixed_offset: Option<i32>,
    year: i16,
    month: i8,
}

impl TimeContext {
    /// `zone` is for times written without an offset (UTC unless the user gives `--tz`);
    /// `reference` is the file's modification time (or now, for standard input), which dates
    /// the lines of year-less formats.
    pub fn new(zone: TimeZone, reference: Timestamp) -> TimeContext {
        TimeContext::with_zone(Some(zone), reference)
    }

    fn with_zone(zone: Option<TimeZone>, reference: Timestamp) -> TimeContext {
        let zone_given = zone.is_some();
        let zone = zone.unwrap_or(TimeZone::UTC);
        let fixed_offset = zone.to_fixed_offset().ok().map(|o| o.seconds());
        let date = zone.to_datetime(reference).date();
        TimeContext {
            zone,
            zone_given,
            fixed_offset,
            year: date.year(),
            month: date.month(),
        }
    }

    /// The context of a file: zone-less times in `zone` (UTC when `None`), year-less ones
    /// dated by its modification time (now, for standard input, which has none).
    pub fn for_file(
        zone: Option<&TimeZone>,
        modified: Option<std::time::SystemTime>,
    ) -> TimeContext {
        let reference = modified
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or_else(Timestamp::now);
        TimeContext::with_zone(zone.cloned(), reference)
    }

    fn year_for_month(&self, month: u8) -> i32 {
        let year = i32::from(self.year);
        if i32::from(month) > i32::from(self.month) {
            year - 1
        } else {
            year
        }
    }
}

/// A civil date and time as written, checked for range but not for the month's length.
#[derive(Clone, Copy, Debug)]
struct Civil {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    /// Microseconds into the second.
    micro: i64,
}

fn digit(line: &[u8], i: usize) -> Option<u32> {
    let b = *line.get(i)?;
    b.is_ascii_digit().then(|| u32::from(b - b'0'))
}

fn d2(line: &[u8], i: usize) -> Option<u8> {
    Some((digit(line, i)? * 10 + digit(line, i + 1)?) as u8)
}

fn d4(line: &[u8], i: usize) -> Option<i32> {
    Some((u32::from(d2(line, i)?) * 100 + u32::from(d2(line, i + 2)?)) as i32)
}

fn byte_is(line: &[u8], i: usize, b: u8) -> bool {
    line.get(i) == Some(&b)
}

/// Two digits at the start of `s`.
fn two(s: &[u8; 2]) -> Option<u8> {
    let (a, b) = (s[0].wrapping_sub(b'0'), s[1].wrapping_sub(b'0'));
    (a < 10 && b < 10).then(|| a * 10 + b)
}

/// `HH:MM:SS` and an optional fraction after `.` or `,`: hour, minute, second, microsecond
/// and the end.
fn clock_at(line: &[u8], i: usize) -> Option<(u8, u8, u8, i64, usize)> {
    let s: &[u8; 3] = line.get(i..)?.first_chunk()?;
    if s[2] != b':' {
        return None;
    }
    let hour = two(s[0..].first_chunk()?)?;
    let (minute, second, micro, end) = minutes_at(line, i + 3)?;
    Some((hour, minute, second, micro, end))
}

/// The `MM:SS` and optional fraction of a clock: minute, second, microsecond and the end.
fn minutes_at(line: &[u8], i: usize) -> Option<(u8, u8, i64, usize)> {
    let s: &[u8; 5] = line.get(i..)?.first_chunk()?;
    if s[2] != b':' {
        return None;
    }
    let minute = two(s[0..].first_chunk()?)?;
    let second = two(s[3..].first_chunk()?)?;
    let (micro, end) = fraction_at(line, i + 5);
    Some((minute, second, micro, end))
}

/// An optional fraction of a second at `j`, after `.` or `,`: its microseconds and the end.
/// Digits past the microsecond are read over and dropped.
fn fraction_at(line: &[u8], mut j: usize) -> (i64, usize) {
    let mut micro = 0;
    if matches!(line.get(j), Some(b'.' | b',')) && digit(line, j + 1).is_some() {
        j += 1;
        let mut scale = 100_000;
        while let Some(d) = digit(line, j) {
            micro += i64::from(d) * scale;
            scale /= 10;
            j += 1;
        }
    }
    (micro, j)
}

/// Whether a time may end at `i`: not in the middle of a word.
fn ends_token(line: &[u8], i: usize) -> bool {
    line.get(i).is_none_or(|b| !b.is_ascii_alphanumeric())
}

/// A date and a minute as [`iso_at`] reads them, from the 16 bytes `2026-11-29T10:00`.
#[derive(Clone, Copy)]
struct Minute {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
}

thread_local! {
    /// The 16 bytes [`date_and_minute`] read last, and what they read as: a log's lines
    /// share them for a minute at a time, and reading them was a third of reading a time.
    static LAST_MINUTE: Cell<Option<([u8; 16], Minute)>> = const { Cell::new(None) };
}

/// The date and minute at `i`: `YYYY-MM-DD` (or with `/`), `T`, `t` or a blank, `HH:MM`,
/// digits checked but not their ranges.
fn date_and_minute(line: &[u8], i: usize) -> Option<Minute> {
    let s: &[u8; 16] = line.get(i..)?.first_chunk()?;
    if let Some((bytes, minute)) = LAST_MINUTE.get()
        && bytes == *s
    {
        return Some(minute);
    }
    if !matches!(s[4], b'-' | b'/') || s[7] != s[4] || !matches!(s[10], b'T' | b't' | b' ') {
        return None;
    }
    if s[13] != b':' {
        return None;
    }
    let minute = Minute {
        year: i32::from(two(s[0..].first_chunk()?)?) * 100 + i32::from(two(s[2..].first_chunk()?)?),
        month: two(s[5..].first_chunk()?)?,
        day: two(s[8..].first_chunk()?)?,
        hour: two(s[11..].first_chunk()?)?,
        minute: two(s[14..].first_chunk()?)?,
    };
    LAST_MINUTE.set(Some((*s, minute)));
    Some(minute)
}

/// An ISO 8601 / RFC 3339 date and time at `i`, with its offset in seconds if written.
fn iso_at(line: &[u8], i: usize) -> Option<(Civil, Option<i32>, usize)> {
    let Minute {
        year,
        month,
        day,
        hour,
        minute,
    } = date_and_minute(line, i)?;
    let (second, micro, mut j) = if byte_is(line, i + 16, b':') {
        let second = two(line.get(i + 17..)?.first_chunk()?)?;
        let (micro, end) = fraction_at(line, i + 19);
        (second, micro, end)
    } else {
        // ISO 8601 allows a time without seconds: `2026-12-01T10:00Z`.
        (0, 0, i + 16)
    };
    let mut offset = None;
    match line.get(j) {
        Some(b'Z' | b'z') => {
            offset = Some(0);
            j += 1;
        }
        Some(&sign @ (b'+' | b'-')) => {
            if let Some((o, end)) = offset_at(line, j + 1, sign, true) {
                offset = Some(o);
                j = end;
            } else if offset_shaped(line, j + 1, true) {
                // `+25:00`: an offset no place has, so no time rather than a guess.
                return None;
            }
        }
        Some(b' ') => {
            if let Some((o, end)) = zone_abbreviation(line, j + 1) {
                offset = Some(o);
                j = end;
            } else if let Some(&sign @ (b'+' | b'-')) = line.get(j + 1) {
                if let Some((o, end)) = offset_at(line, j + 2, sign, false) {
                    offset = Some(o);
                    j = end;
                } else if offset_shaped(line, j + 2, false) {
                    return None;
                }
            }
        }
        _ => {}
    }
    if !ends_token(line, j) {
        return None;
    }
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
    };
    Some((civil, offset, j))
}

/// Whether the bytes at `i` have the shape of an offset after its sign (`HH:MM`, `HHMM`, or
/// if `short` `HH`), in range or not.
fn offset_shaped(line: &[u8], i: usize, short: bool) -> bool {
    let digits = |at: usize| d2(line, at).is_some();
    let end = if digits(i) && byte_is(line, i + 2, b':') && digits(i + 3) {
        i + 5
    } else if digits(i) && digits(i + 2) {
        i + 4
    } else if short && digits(i) {
        i + 2
    } else {
        return false;
    };
    ends_token(line, end)
}

/// Zone abbreviations written after a time (`2026-11-29 10:00:00 PST`), with their offsets
/// in seconds. Only unambiguous ones: `CST` (US Central or China) and `IST` (India, Ireland or
/// Israel) are left out, and such a time is read in the context's zone.
const ZONE_ABBREVIATIONS: [(&[u8], i32); 30] = [
    (b"UTC", 0),
    (b"GMT", 0),
    (b"WET", 0),
    (b"WEST", 3600),
    (b"BST", 3600),
    (b"CET", 3600),
    (b"CEST", 7200),
    (b"EET", 7200),
    (b"EEST", 10_800),
    (b"MSK", 10_800),
    (b"SGT", 28_800),
    (b"HKT", 28_800),
    (b"AWST", 28_800),
    (b"JST", 32_400),
    (b"KST", 32_400),
    (b"ACST", 34_200),
    (b"AEST", 36_000),
    (b"AEDT", 39_600),
    (b"NZST", 43_200),
    (b"NZDT", 46_800),
    (b"HST", -36_000),
    (b"AKST", -32_400),
    (b"AKDT", -28_800),
    (b"PST", -28_800),
    (b"PDT", -25_200),
    (b"MST", -25_200),
    (b"MDT", -21_600),
    (b"CDT", -18_000),
    (b"EST", -18_000),
    (b"EDT", -14_400),
];

/// A zone abbreviation at `i` ([`ZONE_ABBREVIATIONS`]) ending a token: its offset and end.
fn zone_abbreviation(line: &[u8], i: usize) -> Option<(i32, usize)> {
    let len = line
        .get(i..)?
        .iter()
        .take(5)
        .take_while(|b| b.is_ascii_uppercase())
        .count();
    if !(3..=4).contains(&len) || !ends_token(line, i + len) {
        return None;
    }
    let name = packed(&line[i..i + len]);
    ZONE_NAMES
        .iter()
        .position(|&abbreviation| abbreviation == name)
        .map(|k| (ZONE_ABBREVIATIONS[k].1, i + len))
}

/// A name of up to four bytes as one number, for [`ZONE_NAMES`]: comparing slices one by one
/// made the look-up of a word that is no zone (`INFO` after a time) cost more than reading
/// the time.
const fn packed(name: &[u8]) -> u32 {
    let mut bytes = [0u8; 4];
    let mut k = 0;
    while k < name.len() {
        bytes[k] = name[k];
        k += 1;
    }
    u32::from_le_bytes(bytes)
}

/// [`ZONE_ABBREVIATIONS`]' names, [`packed`].
const ZONE_NAMES: [u32; ZONE_ABBREVIATIONS.len()] = {
    let mut names = [0; ZONE_ABBREVIATIONS.len()];
    let mut k = 0;
    while k < names.len() {
        names[k] = packed(ZONE_ABBREVIATIONS[k].0);
        k += 1;
    }
    names
};

/// An offset after its sign: `HH:MM`, `HHMM`, or (if `short`) `HH`.
fn offset_at(line: &[u8], i: usize, sign: u8, short: bool) -> Option<(i32, usize)> {
    let hours = i32::from(d2(line, i)?);
    let (minutes, end) = if byte_is(line, i + 2, b':') {
        (i32::from(d2(line, i + 3)?), i + 5)
    } else if let Some(m) = d2(line, i + 2) {
        (i32::from(m), i + 4)
    } else if short {
        (0, i + 2)
    } else {
        return None;
    };
    if hours > 23 || minutes > 59 || !ends_token(line, end) {
        return None;
    }
    let seconds = hours * 3600 + minutes * 60;
    Some((if sign == b'-' { -seconds } else { seconds }, end))
}

const MONTHS: [&[u8; 3]; 12] = [
    b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov", b"dec",
];

fn month_at(line: &[u8], i: usize) -> Option<u8> {
    let name = line.get(i..i + 3)?;
    let lower = [
        name[0].to_ascii_lowercase(),
        name[1].to_ascii_lowercase(),
        name[2].to_ascii_lowercase(),
    ];
    MONTHS
        .iter()
        .position(|m| **m == lower)
        .map(|m| m as u8 + 1)
}

/// Syslog `Nov 29 10:00:00` (or `Jul  1 09:00:55`) at `i`, or java.util.logging's
/// `Dec 01, 2026 10:00:15 AM`.
fn syslog_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<LineTime> {
    // The blank first: it turns most lines away before the month names are tried.
    if !byte_is(line, i + 3, b' ') {
        return None;
    }
    let month = month_at(line, i)?;
    let mut j = i + 4;
    if byte_is(line, j, b' ') {
        j += 1;
    }
    let day = if let Some(d) = d2(line, j) {
        j += 2;
        d
    } else {
        j += 1;
        digit(line, j - 1)? as u8
    };
    if byte_is(line, j, b',') {
        return jul_at(line, j + 1, month, day, ctx);
    }
    if !byte_is(line, j, b' ') {
        return None;
    }
    year_less_at(line, j + 1, month, day, ctx)
}

/// The rest of a java.util.logging time after `Dec 01,`: ` 2026 10:00:15 AM` (a 12-hour
/// clock whose hour may have one digit).
fn jul_at(line: &[u8], i: usize, month: u8, day: u8, ctx: &TimeContext) -> Option<LineTime> {
    if !byte_is(line, i, b' ') || !byte_is(line, i + 5, b' ') {
        return None;
    }
    let year = d4(line, i + 1)?;
    let mut at = i + 6;
    let mut hour = digit(line, at)? as u8;
    if let Some(d) = digit(line, at + 1) {
        hour = hour * 10 + d as u8;
        at += 1;
    }
    if !byte_is(line, at + 1, b':') {
        return None;
    }
    let (minute, second, micro, end) = minutes_at(line, at + 2)?;
    if !byte_is(line, end, b' ') || !matches!(line.get(end + 2), Some(b'M' | b'm')) {
        return None;
    }
    let pm = match line.get(end + 1) {
        Some(b'A' | b'a') => false,
        Some(b'P' | b'p') => true,
        _ => return None,
    };
    if !(1..=12).contains(&hour) || !ends_token(line, end + 3) {
        return None;
    }
    let civil = Civil {
        year,
        month,
        day,
        hour: hour % 12 + if pm { 12 } else { 0 },
        minute,
        second,
        micro,
    };
    civil_time(civil, None, ctx)
}

/// klog `I1129 10:00:00.123456` at `i`.
fn klog_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<LineTime> {
    if !matches!(line.get(i), Some(b'I' | b'W' | b'E' | b'F')) || !byte_is(line, i + 5, b' ') {
        return None;
    }
    let month = d2(line, i + 1)?;
    let day = d2(line, i + 3)?;
    year_less_at(line, i + 6, month, day, ctx)
}

/// The clock at `at` of a syslog or klog time, dated `month`/`day` of the year the context
/// gives such lines.
fn year_less_at(line: &[u8], at: usize, month: u8, day: u8, ctx: &TimeContext) -> Option<LineTime> {
    let (hour, minute, second, micro, end) = clock_at(line, at)?;
    if !ends_token(line, end) {
        return None;
    }
    let civil = Civil {
        year: ctx.year_for_month(month),
        month,
        day,
        hour,
        minute,
        second,
        micro,
    };
    civil_time(civil, None, ctx)
}

/// Access-log `29/Nov/2026:10:00:00 +0000` at `i` (just after the `[`), and its end.
fn access_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<(LineTime, usize)> {
    let text: Option<&[u8; ACCESS_LEN]> = line.get(i..).and_then(<[u8]>::first_chunk);
    // The same bytes and a token end after them read as the same time, whatever the
    // context: the offset is written.
    if let (Some(text), Some((last, time))) = (text, LAST_ACCESS.get())
        && same_access_text(text, &last)
        && ends_token(line, i + ACCESS_LEN)
    {
        return Some((time, i + ACCESS_LEN));
    }
    let day = d2(line, i)?;
    if !byte_is(line, i + 2, b'/') || !byte_is(line, i + 6, b'/') || !byte_is(line, i + 11, b':') {
        return None;
    }
    let month = month_at(line, i + 3)?;
    let year = d4(line, i + 7)?;
    let (hour, minute, second, micro, mut end) = clock_at(line, i + 12)?;
    let mut offset = None;
    if byte_is(line, end, b' ')
        && let Some(&sign @ (b'+' | b'-')) = line.get(end + 1)
    {
        let (o, offset_end) = offset_at(line, end + 2, sign, false)?;
        offset = Some(o);
        end = offset_end;
    }
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
    };
    let time = civil_time(civil, offset, ctx)?;
    if let Some(text) = text
        && offset.is_some()
        && end == i + ACCESS_LEN
    {
        LAST_ACCESS.set(Some((*text, time)));
    }
    Some((time, end))
}

/// The length of an access-log time with its offset, `29/Nov/2026:00:00:02 +0000`.
const ACCESS_LEN: usize = 26;

thread_local! {
    /// The access-log time [`access_at`] read last, of [`ACCESS_LEN`] bytes with an offset,
    /// and its time: an access log writes each second on many lines in a row, and reading
    /// one took about 450 instructions.
    static LAST_ACCESS: Cell<Option<([u8; ACCESS_LEN], LineTime)>> = const { Cell::new(None) };
}

/// Whether two access-log times are the same bytes: two overlapping 16-byte words, where a
/// comparison of the arrays called `memcmp`.
fn same_access_text(a: &[u8; ACCESS_LEN], b: &[u8; ACCESS_LEN]) -> bool {
    let word = |s: &[u8; ACCESS_LEN], at: usize| {
        u128::from_le_bytes(s[at..at + 16].try_into().expect("16 bytes"))
    };
    word(a, 0) == word(b, 0) && word(a, ACCESS_LEN - 16) == word(b, ACCESS_LEN - 16)
}

/// The C library's `ctime` form, `Tue Dec 01 10:00:00.123456 2026` (the Apache error log
/// writes it in brackets), at `i`.
fn ctime_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<LineTime> {
    // The blanks first: they turn most lines away before any name is read.
    if !byte_is(line, i + 3, b' ') || !byte_is(line, i + 7, b' ') {
        return None;
    }
    if !line.get(i..i + 3)?.iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    let month = month_at(line, i + 4)?;
    let day = match (digit(line, i + 8), digit(line, i + 9)) {
        (Some(tens), Some(ones)) => (tens * 10 + ones) as u8,
        (None, Some(ones)) if byte_is(line, i + 8, b' ') => ones as u8,
        _ => return None,
    };
    if !byte_is(line, i + 10, b' ') {
        return None;
    }
    let (hour, minute, second, micro, end) = clock_at(line, i + 11)?;
    if !byte_is(line, end, b' ') || !ends_token(line, end + 5) {
        return None;
    }
    let year = d4(line, end + 1)?;
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
    };
    civil_time(civil, None, ctx)
}

/// The time of a plain text line (or of the text before a JSON object).
pub(super) fn plain_time(line: &[u8], ctx: &TimeContext) -> Option<LineTime> {
    let mut i = skip_blank(line, 0);
    // A syslog priority, and the version of RFC 5424.
    if byte_is(line, i, b'<') {
        let digits = i + 1;
        let mut j = digits;
        while digit(line, j).is_some() && j - digits < 3 {
            j += 1;
        }
        if j > digits && byte_is(line, j, b'>') {
            i = j + 1;
            if byte_is(line, i, b'1') && byte_is(line, i + 1, b' ') {
                i += 2;
            }
        }
    }
    let bracket = usize::from(byte_is(line, i, b'['));
    if let Some(ms) = klog_at(line, i, ctx)
        .or_else(|| syslog_at(line, i, ctx))
        .or_else(|| ctime_at(line, i + bracket, ctx))
    {
        return Some(ms);
    }
    for _ in 0..4 {
        if i >= line.len() {
            break;
        }
        let at = if line[i] == b'[' { i + 1 } else { i };
        if let Some((civil, offset, _)) = iso_at(line, at) {
            return civil_time(civil, offset, ctx);
        }
        // A logfmt pair of a time key, on a line that is not all logfmt.
        if let Some((pair, _)) = pair_at(line, i)
            && is_time_key(&line[pair.key.0..pair.key.1])
            && let Some(time) = time_value(&line[pair.value.0..pair.value.1], ctx)
        {
            return Some(time);
        }
        // Sixteen bytes a step: the words before an access log's time are skipped on every
        // line.
        i = skip_blank(line, blank_at_or_after(line, i));
    }
    let mut from = 0;
    while let Some(k) = memchr(b'[', &line[from..]) {
        let k = from + k;
        if let Some((ms, _)) = access_at(line, k + 1, ctx) {
            return Some(ms);
        }
        from = k + 1;
    }
    None
}

/// The value of a time key: ISO 8601 (all of it), the access-log form
/// `01/Dec/2026:10:00:00 +0000` (nginx's `time_local`), or an epoch number.
pub(super) fn time_value(value: &[u8], ctx: &TimeContext) -> Option<LineTime> {
    let value = value.trim_ascii();
    if value.len() >= 16 && matches!(value[4], b'-' | b'/') {
        let (civil, offset, end) = iso_at(value, 0)?;
        return (end == value.len())
            .then(|| civil_time(civil, offset, ctx))
            .flatten();
    }
    if byte_is(value, 2, b'/') {
        return access_at(value, 0, ctx)
            .filter(|&(_, end)| end == value.len())
            .map(|(time, _)| time);
    }
    epoch_time(value)
}

/// An epoch number, its unit told by the count of integer digits.
pub(super) fn epoch_time(raw: &[u8]) -> Option<LineTime> {
    // The integer part runs to the first byte that is no digit, which must be the `.`.
    let dot = raw
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(raw.len());
    let (int, frac) = (&raw[..dot], raw.get(dot + 1..).unwrap_or(b""));
    if int.is_empty()
        || int.len() > 19
        || (dot < raw.len() && (raw[dot] != b'.' || frac.is_empty()))
        || !frac.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    // 19 digits stay below `u64::MAX`: no check per digit.
    let n = int.iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
    let n = i64::try_from(n).ok()?;
    let micros = match int.len() {
        0..=11 => {
            let mut micro = 0;
            let mut scale = 100_000;
            for &b in frac.iter().take(6) {
                micro += i64::from(b - b'0') * scale;
                scale /= 10;
            }
            n * 1_000_000 + micro
        }
        12..=14 => n * 1000,
        15..=17 => n,
        _ => n / 1000,
    };
    Some(LineTime::absolute(micros))
}

/// The time of a civil date and time, at `offset` seconds east of UTC if written, else in
/// the context's zone. None for a date or time that does not exist.
fn civil_time(c: Civil, offset: Option<i32>, ctx: &TimeContext) -> Option<LineTime> {
    if !(1..=12).contains(&c.month)
        || c.day == 0
        || c.day > days_in_month(c.year, c.month)
        || c.hour > 23
        || c.minute > 59
        || c.second > 60
        || !(1..=9999).contains(&c.year)
    {
        return None;
    }
    let zone_guessed = offset.is_none() && !ctx.zone_given;
    // A leap second is read as the last second of its minute.
    let second = c.second.min(59);
    let seconds = if let Some(offset) = offset.or(ctx.fixed_offset) {
        let local = days_from_civil_cached(c.year, c.month, c.day) * 86_400
            + i64::from(c.hour) * 3600
            + i64::from(c.minute) * 60
            + i64::from(second);
        local - i64::from(offset)
    } else {
        let dt = DateTime::new(
            c.year as i16,
            c.month as i8,
            c.day as i8,
            c.hour as i8,
            c.minute as i8,
            second as i8,
            0,
        )
        .ok()?;
        ctx.zone
            .to_ambiguous_timestamp(dt)
            .compatible()
            .ok()?
            .as_second()
    };
    Some(LineTime {
        micros: seconds * 1_000_000 + c.micro,
        zone_guessed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remembered access-log time gives what reading the bytes gives: times written
    /// with and without an offset, with fractions, broken ones and ones glued to more text,
    /// each read with the memory as the lines before left it and again with it emptied, in
    /// two contexts (a fixed offset, and none).
    #[test]
    fn the_remembered_access_time_never_changes_a_time() {
        let times: [&[u8]; 7] = [
            b"29/Nov/2026:00:00:02 +0000",
            b"29/Nov/2026:00:00:03 +0000",
            b"29/Nov/2026:00:00:02 -0130",
            b"29/Nov/2026:00:00:02.5 +0000",
            b"29/Nov/2026:00:00:02 +00:00",
            b"31/Feb/2026:00:00:02 +0000",
            b"29/Nov/2026:00:00:02",
        ];
        let afters: [&[u8]; 4] = [b"", b"] \"GET /\"", b"0", b"x"];
        let contexts = [
            TimeContext::for_file(None, None),
            TimeContext::for_file(Some(&jiff::tz::TimeZone::fixed(jiff::tz::offset(5))), None),
        ];
        let mut rng = crate::testing::Rng(0x9e37_79b9_7f4a_7c15);
        let mut remembered = 0;
        for _ in 0..20_000 {
            let line = [*rng.pick(&times), *rng.pick(&afters)].concat();
            let ctx = rng.pick(&contexts);
            remembered += usize::from(
                LAST_ACCESS
                    .get()
                    .is_some_and(|(bytes, _)| line.starts_with(&bytes)),
            );
            let kept = format!("{:?}", access_at(&line, 0, ctx));
            LAST_ACCESS.set(None);
            let fresh = format!("{:?}", access_at(&line, 0, ctx));
            assert_eq!(kept, fresh, "{}", String::from_utf8_lossy(&line));
        }
        assert!(remembered > 300, "{remembered}");
    }

    /// Epoch numbers read as the plain rule reads them: the integer part up to a `.`, all
    /// digits, at most 19 of them and within `i64`, then a fraction of digits; generated
    /// numbers and near misses, each against that rule spelled out with `str::parse`.
    #[test]
    fn epoch_numbers_read_as_the_rule_says() {
        let rule = |raw: &[u8]| -> Option<LineTime> {
            let text = std::str::from_utf8(raw).ok()?;
            let (int, frac) = match text.split_once('.') {
                Some((int, frac)) => (int, Some(frac)),
                None => (text, None),
            };
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !digits(int) || int.len() > 19 || frac.is_some_and(|f| !digits(f)) {
                return None;
            }
            let n: i64 = int.parse().ok()?;
            let frac = frac.unwrap_or("");
            let micros = match int.len() {
                0..=11 => {
                    let six: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
                    n * 1_000_000 + six.parse::<i64>().ok()?
                }
                12..=14 => n * 1000,
                15..=17 => n,
                _ => n / 1000,
            };
            Some(LineTime::absolute(micros))
        };
        let mut rng = crate::testing::Rng(0x5eed);
        const PARTS: [&str; 9] = ["1", "9", "0", ".", "5", "x", "-", "17950131487", "99999"];
        for _ in 0..50_000 {
            let len = 1 + rng.below(8);
            let raw: String = (0..len).map(|_| *rng.pick(&PARTS)).collect();
            assert_eq!(epoch_time(raw.as_bytes()), rule(raw.as_bytes()), "{raw}");
        }
        for raw in [
            "1795013148742000000",
            "9223372036854775807",
            "9223372036854775808",
            "9999999999999999999",
            "1795013148.5",
            "1795013148.",
            ".5",
            "",
        ] {
            assert_eq!(epoch_time(raw.as_bytes()), rule(raw.as_bytes()), "{raw}");
        }
    }

    /// What [`date_and_minute`] remembers never changes what a time reads as: times put
    /// together at random from a few dates and minutes (some broken, one all NUL) and the
    /// rest of a time (seconds, fractions, offsets, some broken), each read with the memory
    /// as the lines before left it and again with it emptied.
    #[test]
    fn the_remembered_minute_never_changes_a_time() {
        let minutes: [&[u8]; 8] = [
            b"2026-11-29T10:00",
            b"2026-11-29T10:01",
            b"2026/11/29 10:00",
            b"2026-11-29t23:59",
            b"2026-13-40T25:61",
            b"2026-11-29X10:00",
            b"2026-1a-29T10:00",
            &[0; 16],
        ];
        let rests: [&[u8]; 12] = [
            b":05.334Z",
            b":05",
            b"Z",
            b"",
            b":5",
            b":60+01:00",
            b":05,123456789 PST",
            b"+0100 x",
            b":",
            b":0a",
            b":59.000001-25:00",
            b" INFO x",
        ];
        let mut rng = crate::testing::Rng(0x2545_f491_4f6c_dd1d);
        let mut hits = 0;
        for _ in 0..20_000 {
            let line = [*rng.pick(&minutes), *rng.pick(&rests)].concat();
            let cut = line.len() - rng.below(3).min(line.len());
            let line = &line[..cut];
            let remembered = LAST_MINUTE
                .get()
                .is_some_and(|(bytes, _)| line.starts_with(&bytes));
            let kept = format!("{:?}", iso_at(line, 0));
            LAST_MINUTE.set(None);
            let fresh = format!("{:?}", iso_at(line, 0));
            assert_eq!(kept, fresh, "{}", String::from_utf8_lossy(line));
            hits += usize::from(remembered);
        }
        assert!(hits > 1000, "the memory was used {hits} times");
    }

    /// Every abbreviation of the table is found by its name, with its offset, and other words
    /// of three or four capitals are not, nor a name inside a longer word.
    #[test]
    fn zone_abbreviations_are_found_by_name_only() {
        for (name, offset) in ZONE_ABBREVIATIONS {
            let line = [name, b" x"].concat();
            assert_eq!(
                zone_abbreviation(&line, 0),
                Some((offset, name.len())),
                "{}",
                String::from_utf8_lossy(name)
            );
            let longer = [name, b"X x"].concat();
            assert_eq!(zone_abbreviation(&longer, 0), None);
        }
        for word in ["INFO", "WARN", "CST", "IST", "UT", "PSTX", "pst"] {
            assert_eq!(zone_abbreviation(word.as_bytes(), 0), None, "{word}");
        }
    }
}
