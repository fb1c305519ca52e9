//! Calendar and clock. The calendar: proleptic Gregorian arithmetic both ways, a civil date
//! to days since 1970-01-01 (for [`crate::record`], which reads a time on every matching
//! line) and days back to a date (for writing times). The clock: rendering instants (unix
//! milliseconds) as text, RFC 3339 with milliseconds, in UTC by default or in the zone of
//! `--tz` / `--local`. Line times are kept in microseconds and shown to the microsecond when
//! a log wrote them so finely ([`Precision`]). The inventory prints three times per ID for millions of IDs, so the
//! UTC path formats by hand instead of through jiff (which the tests use as the oracle, and
//! which renders the other zones).

use jiff::tz::TimeZone;

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: RFC 3339 has four-digit years, and a
/// ULID can encode times up to the year 10889.
const MIN_MS: i64 = -62_167_219_200_000;
const MAX_MS: i64 = 253_402_300_799_999;

/// How times are shown.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// `None` for UTC.
    zone: Option<TimeZone>,
}

impl Clock {
    pub fn utc() -> Clock {
        Clock { zone: None }
    }

    pub fn in_zone(zone: TimeZone) -> Clock {
        Clock { zone: Some(zone) }
    }

    /// Appends `ms` as `2026-11-29T10:00:00.123Z` (UTC) or `2026-11-29T11:00:00.123+01:00`.
    /// A time RFC 3339 cannot write (outside the years 0000-9999) appears as
    /// `unix_ms 253402300800000 (after 9999)`: text for people; machine output uses
    /// [`Clock::rfc3339`] and writes none.
    #[inline(always)]
    pub fn write(&self, ms: i64, out: &mut Vec<u8>) {
        // UTC without a jiff timestamp, and inline: three times per ID, checking one cost more
        // than writing the text, and the call a fifth of the writing.
        if self.zone.is_none() && self.writes_rfc3339(ms) {
            return write_utc(ms, out);
        }
        self.write_zoned_or_out_of_range(ms, out);
    }

    fn write_zoned_or_out_of_range(&self, ms: i64, out: &mut Vec<u8>) {
        match (&self.zone, jiff::Timestamp::from_millisecond(ms)) {
            (Some(zone), Ok(ts)) if self.writes_rfc3339(ms) => {
                let zoned = ts.to_zoned_datetime(zone.clone());
                out.extend_from_slice(
                    format!("{}", zoned.strftime("%Y-%m-%dT%H:%M:%S%.3f%:z")).as_bytes(),
                );
            }
            _ => {
                let side = if ms < 0 { "before 0000" } else { "after 9999" };
                out.extend_from_slice(format!("unix_ms {ms} ({side})").as_bytes());
            }
        }
    }

    /// Whether `ms` has an RFC 3339 form on this clock.
    pub fn writes_rfc3339(&self, ms: i64) -> bool {
        match &self.zone {
            None => (MIN_MS..=MAX_MS).contains(&ms),
            // jiff stops a day short of the ends of 0000-9999, to leave room for any offset.
            Some(_) => {
                (MIN_MS..=MAX_MS).contains(&ms) && jiff::Timestamp::from_millisecond(ms).is_ok()
            }
        }
    }

    /// `ms` in RFC 3339, for JSON and CSV: `None` (null) for a time it cannot write, beside
    /// which the output gives the Unix milliseconds where it has them.
    pub fn rfc3339(&self, ms: i64) -> Option<String> {
        self.writes_rfc3339(ms).then(|| self.format(ms))
    }

    pub fn format(&self, ms: i64) -> String {
        let mut out = Vec::with_capacity(29);
        self.write(ms, &mut out);
        String::from_utf8(out).expect("times render as ASCII")
    }
}

/// How finely line times are shown: to the millisecond, or to the microsecond when some
/// line gave one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    Millis,
    Micros,
}

impl Precision {
    /// The precision that shows every one of `micros` exactly.
    pub fn of(micros: impl IntoIterator<Item = i64>) -> Precision {
        if micros.into_iter().any(|t| t.rem_euclid(1000) != 0) {
            Precision::Micros
        } else {
            Precision::Millis
        }
    }

    /// Digits after the second's point.
    pub fn digits(self) -> usize {
        match self {
            Precision::Millis => 3,
            Precision::Micros => 6,
        }
    }
}

impl Clock {
    /// Appends a time of `micros` Unix microseconds, as [`Clock::write`] does, with six
    /// fraction digits at [`Precision::Micros`].
    pub fn write_micros(&self, micros: i64, precision: Precision, out: &mut Vec<u8>) {
        let ms = micros.div_euclid(1000);
        let start = out.len();
        self.write(ms, out);
        // `YYYY-MM-DDTHH:MM:SS.mmm`: the microseconds go after the milliseconds.
        if precision == Precision::Micros && self.writes_rfc3339(ms) {
            let sub_milli = micros.rem_euclid(1000) as usize;
            let digits = [
                b'0' + (sub_milli / 100) as u8,
                TWO_DIGITS[sub_milli % 100][0],
                TWO_DIGITS[sub_milli % 100][1],
            ];
            out.splice(start + 23..start + 23, digits);
        }
    }

    pub fn format_micros(&self, micros: i64, precision: Precision) -> String {
        let mut out = Vec::with_capacity(32);
        self.write_micros(micros, precision, &mut out);
        String::from_utf8(out).expect("times render as ASCII")
    }

    /// [`Clock::rfc3339`] of a time in microseconds.
    pub fn rfc3339_micros(&self, micros: i64, precision: Precision) -> Option<String> {
        self.writes_rfc3339(micros.div_euclid(1000))
            .then(|| self.format_micros(micros, precision))
    }
}

/// `"00"` to `"99"`.
const TWO_DIGITS: [[u8; 2]; 100] = {
    let mut table = [[0; 2]; 100];
    let mut i = 0;
    while i < 100 {
        table[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    table
};

thread_local! {
    /// The day last written by this thread and its `YYYY-MM-DDT`: the inventory writes three
    /// times per ID, mostly of a few days.
    static LAST_DAY: std::cell::Cell<(i64, [u8; 11])> = const { std::cell::Cell::new((i64::MIN, [0; 11])) };
}

/// RFC 3339 UTC with milliseconds, e.g. `2022-02-22T19:22:22.000Z`, for a time already known
/// to be in range.
#[inline(always)]
fn write_utc(ms: i64, out: &mut Vec<u8>) {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000) as usize;
    let (last_day, mut date) = LAST_DAY.get();
    if days != last_day {
        date = civil_date(days);
        LAST_DAY.set((days, date));
    }
    let mut text = [0u8; 24];
    text[..11].copy_from_slice(&date);
    let (hour, minute) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (second, milli) = (in_day / 1000 % 60, in_day % 1000);
    text[11..13].copy_from_slice(&TWO_DIGITS[hour]);
    text[13] = b':';
    text[14..16].copy_from_slice(&TWO_DIGITS[minute]);
    text[16] = b':';
    text[17..19].copy_from_slice(&TWO_DIGITS[second]);
    text[19] = b'.';
    text[20] = b'0' + (milli / 100) as u8;
    text[21..23].copy_from_slice(&TWO_DIGITS[milli % 100]);
    text[23] = b'Z';
    out.extend_from_slice(&text);
}

/// `YYYY-MM-DDT` of a day counted from 1970-01-01, in the years 0000-9999.
fn civil_date(days: i64) -> [u8; 11] {
    let (year, month, day) = civil_from_days(days);
    let (year, month, day) = (year as usize, usize::from(month), usize::from(day));
    let mut date = *b"0000-00-00T";
    date[..2].copy_from_slice(&TWO_DIGITS[year / 100]);
    date[2..4].copy_from_slice(&TWO_DIGITS[year % 100]);
    date[5..7].copy_from_slice(&TWO_DIGITS[month]);
    date[8..10].copy_from_slice(&TWO_DIGITS[day]);
    date
}

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The length of `month` (1 to 12) in `year`. Inline: line times check every date against it,
/// from another module.
#[inline]
pub(crate) fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a valid proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i32, month: u8, day: u8) -> i64 {
    let y = i64::from(if month <= 2 { year - 1 } else { year });
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year, month and day of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = (if mp < 10 { mp + 3 } else { mp - 9 }) as u8;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

thread_local! {
    /// The date this thread converted last, packed as `year << 9 | month << 5 | day`, and
    /// its days: a log's consecutive lines mostly share their date.
    static LAST_DATE: std::cell::Cell<(i32, i64)> = const { std::cell::Cell::new((-1, 0)) };
}

/// A valid date (years 1 to 9999) as one positive number, distinct for each date.
fn pack_date(year: i32, month: u8, day: u8) -> i32 {
    year << 9 | i32::from(month) << 5 | i32::from(day)
}

/// [`days_from_civil`] through [`LAST_DATE`], for a valid date in the years 1 to 9999. Inline:
/// line times call it for every matching line, from another module.
#[inline]
pub(crate) fn days_from_civil_cached(year: i32, month: u8, day: u8) -> i64 {
    let packed = pack_date(year, month, day);
    let (last, days) = LAST_DATE.get();
    if last == packed {
        return days;
    }
    let days = days_from_civil(year, month, day);
    LAST_DATE.set((packed, days));
    days
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_matches_jiff_across_the_range() {
        let mut state = 0x1234_5678u64;
        let jiff_max = jiff::Timestamp::MAX.as_second() * 1000;
        let mut samples = vec![MIN_MS, jiff_max, 0, -1, 1_645_557_742_000, 951_782_400_000];
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            samples.push(MIN_MS + (state >> 1) as i64 % (jiff_max - MIN_MS));
        }
        for ms in samples {
            let want = format!("{:.3}", jiff::Timestamp::from_millisecond(ms).unwrap());
            assert_eq!(Clock::utc().format(ms), want, "{ms}");
        }
    }

    #[test]
    fn out_of_range_is_raw_and_zones_show_their_offset() {
        assert_eq!(Clock::utc().format(MAX_MS), "9999-12-31T23:59:59.999Z");
        assert_eq!(
            Clock::utc().format(MAX_MS + 1),
            format!("unix_ms {} (after 9999)", MAX_MS + 1)
        );
        assert_eq!(
            Clock::utc().format(MIN_MS - 1),
            format!("unix_ms {} (before 0000)", MIN_MS - 1)
        );
        assert_eq!(Clock::utc().rfc3339(MAX_MS + 1), None);
        assert_eq!(
            Clock::utc().rfc3339(MAX_MS).as_deref(),
            Some("9999-12-31T23:59:59.999Z")
        );
        let paris = Clock::in_zone(TimeZone::get("Europe/Paris").unwrap());
        assert_eq!(
            paris.format(1_645_557_742_000),
            "2022-02-22T20:22:22.000+01:00"
        );
    }

    #[test]
    fn microseconds_match_jiff_in_utc_and_in_a_zone() {
        let paris = TimeZone::get("Europe/Paris").unwrap();
        let mut state = 0x9e37_79b9u64;
        for _ in 0..5_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            // 1900 to 2100, either side of the epoch.
            let micros = (state >> 1) as i64 % 6_311_390_400_000_000 - 2_208_988_800_000_000;
            let ts = jiff::Timestamp::from_microsecond(micros).unwrap();
            assert_eq!(
                Clock::utc().format_micros(micros, Precision::Micros),
                format!("{ts:.6}")
            );
            assert_eq!(
                Clock::in_zone(paris.clone()).format_micros(micros, Precision::Micros),
                ts.to_zoned_datetime(paris.clone())
                    .strftime("%Y-%m-%dT%H:%M:%S%.6f%:z")
                    .to_string()
            );
            assert_eq!(
                Clock::utc().format_micros(micros, Precision::Millis),
                Clock::utc().format(micros.div_euclid(1000))
            );
        }
        assert_eq!(Precision::of([1_000, -2_000]), Precision::Millis);
        assert_eq!(Precision::of([1_000, -1_999]), Precision::Micros);
        assert_eq!(
            Clock::utc().rfc3339_micros((MAX_MS + 1) * 1000, Precision::Micros),
            None
        );
    }

    /// Two dates never share a cache key, and none is the empty cache's.
    #[test]
    fn packed_dates_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        let years = (1..=9999)
            .step_by(97)
            .chain([1, 2, 1970, 2024, 2026, 9998, 9999]);
        for year in years.collect::<std::collections::BTreeSet<_>>() {
            for month in 1..=12 {
                for day in 1..=31 {
                    let packed = pack_date(year, month, day);
                    assert!(packed > 0, "{year}-{month}-{day}");
                    assert!(seen.insert(packed), "{year}-{month}-{day}");
                }
            }
        }
    }

    /// The cached conversion gives the plain one's days whatever date came before.
    #[test]
    fn cached_days_follow_the_date() {
        let dates = [
            (2026, 11, 29),
            (2026, 11, 29),
            (2026, 11, 30),
            (2024, 2, 29),
            (2026, 11, 29),
            (1, 1, 1),
            (9999, 12, 31),
            (9999, 12, 31),
            (1970, 1, 1),
        ];
        for (y, m, d) in dates {
            assert_eq!(
                days_from_civil_cached(y, m, d),
                days_from_civil(y, m, d),
                "{y}-{m}-{d}"
            );
        }
    }
}
