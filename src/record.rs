//! Placeholder until the record parser lands: no fields, no times.

pub struct TimeContext;

impl TimeContext {
    pub fn new(
        _zone: Option<jiff::tz::TimeZone>,
        _modified: Option<std::time::SystemTime>,
    ) -> TimeContext {
        TimeContext
    }
}

#[derive(Default)]
pub struct Analysis;

impl Analysis {
    pub fn field(&self, _i: usize) -> Option<&[u8]> {
        None
    }
    pub fn time_ms(&self) -> Option<i64> {
        None
    }
}

pub fn analyse(
    _line: &[u8],
    _spans: &[(usize, usize)],
    _want_time: bool,
    _ctx: &TimeContext,
    _out: &mut Analysis,
) {
}
