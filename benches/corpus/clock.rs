//! The corpus's simulated clock and its timestamp spellings. Time is a pure function of the
//! bytes written so far, so it advances monotonically through the corpus and spans one day
//! whatever `--size` is.

/// 2026-11-29T00:00:00Z, the simulated day.
pub const DAY_START_MS: u64 = 1_795_910_400_000;
const DAY_NS: u64 = 86_400 * 1_000_000_000;

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

pub struct Clock {
    total: u64,
    /// Nanoseconds since the start of the simulated day.
    now_ns: u64,
    /// The second that `date`, `hms` and `clf_date` spell; recomputed only when it changes.
    cached_sec: u64,
    date: [u8; 10],
    hms: [u8; 8],
    clf_date: [u8; 11],
}

impl Clock {
    pub fn new(total: u64) -> Clock {
        let mut clock = Clock {
            total: total.max(1),
            now_ns: 0,
            cached_sec: u64::MAX,
            date: [0; 10],
            hms: [0; 8],
            clf_date: [0; 11],
        };
        clock.set_progress(0);
        clock
    }

    pub fn set_progress(&mut self, done: u64) {
        self.now_ns = (DAY_NS as u128 * done as u128 / self.total as u128) as u64;
        let sec = DAY_START_MS / 1000 + self.now_ns / 1_000_000_000;
        if sec != self.cached_sec {
            self.cached_sec = sec;
            self.spell(sec);
        }
    }

    pub fn now_ms(&self) -> u64 {
        DAY_START_MS + self.now_ns / 1_000_000
    }

    fn spell(&mut self, unix_sec: u64) {
        let (y, m, d) = civil_from_days((unix_sec / 86_400) as i64);
        let secs = unix_sec % 86_400;
        let mut date = Vec::with_capacity(10);
        digits(&mut date, y as u64, 4);
        date.push(b'-');
        digits(&mut date, m as u64, 2);
        date.push(b'-');
        digits(&mut date, d as u64, 2);
        self.date.copy_from_slice(&date);

        let mut hms = Vec::with_capacity(8);
        digits(&mut hms, secs / 3600, 2);
        hms.push(b':');
        digits(&mut hms, secs / 60 % 60, 2);
        hms.push(b':');
        digits(&mut hms, secs % 60, 2);
        self.hms.copy_from_slice(&hms);

        let mut clf = Vec::with_capacity(11);
        digits(&mut clf, d as u64, 2);
        clf.push(b'/');
        clf.extend_from_slice(MONTHS[m as usize - 1]);
        clf.push(b'/');
        digits(&mut clf, y as u64, 4);
        self.clf_date.copy_from_slice(&clf);
    }

    fn frac_ms(&self) -> u64 {
        self.now_ns / 1_000_000 % 1000
    }

    /// `2026-11-29T10:00:00.123Z`
    pub fn iso_ms(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.date);
        out.push(b'T');
        out.extend_from_slice(&self.hms);
        out.push(b'.');
        digits(out, self.frac_ms(), 3);
        out.push(b'Z');
    }

    /// `2026-11-29T10:00:00.123456789Z`, as container runtimes stamp each line.
    pub fn iso_ns(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.date);
        out.push(b'T');
        out.extend_from_slice(&self.hms);
        out.push(b'.');
        digits(out, self.now_ns % 1_000_000_000, 9);
        out.push(b'Z');
    }

    /// `2026-11-29 10:00:00,123` (log4j) or with `.` before the milliseconds.
    pub fn plain(&self, out: &mut Vec<u8>, frac_sep: u8) {
        out.extend_from_slice(&self.date);
        out.push(b' ');
        out.extend_from_slice(&self.hms);
        out.push(frac_sep);
        digits(out, self.frac_ms(), 3);
    }

    /// `29/Nov/2026:10:00:00 +0000`, the common log format's stamp.
    pub fn clf(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.clf_date);
        out.push(b':');
        out.extend_from_slice(&self.hms);
        out.extend_from_slice(b" +0000");
    }
}

/// Writes `n` in decimal, zero-padded to at least `width` digits.
pub fn digits(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(buf.len() - width.min(buf.len()));
    out.extend_from_slice(&buf[start..]);
}

/// Days since 1970-01-01 to (year, month, day), after Howard Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
