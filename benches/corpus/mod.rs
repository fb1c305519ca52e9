//! The corpus generator proper: the generation loop, the per-line state (which IDs a line
//! holds, in which forms), the line formats every service writes (JSON, logfmt, plain
//! text, access log, container-runtime JSON) and the summary behind `DIR.query.json`.
//! Operations live in `ops.rs`, untied noise and look-alikes in `noise.rs`.

mod clock;
mod ids;
mod noise;
mod ops;
mod rng;
mod sink;

use std::io;
use std::path::PathBuf;

use clock::{Clock, DAY_START_MS, digits};
use ids::{FORM_COUNT, FORM_NAMES, Form, Registry};
use ops::Op;
use rng::Rng;
pub use sink::SERVICES;
use sink::{Sink, Svc};

pub struct Config {
    pub out: PathBuf,
    pub total: u64,
    pub seed: u64,
    pub distinct_ids: Option<u64>,
}

/// The two query IDs and how often each occurs, as counted while writing.
struct Hot {
    ulid: u128,
    uuid: u128,
    /// Lines the hot ULID (a busy customer) should appear on; its orders are budgeted
    /// against this as they start.
    ulid_target: u64,
    /// Lines of the hot settlement, each naming the hot UUIDv7 once.
    uuid_target: u64,
    user_expected: u64,
    ulid_lines: u64,
    uuid_lines: u64,
    ulid_form_lines: [u64; FORM_COUNT],
    uuid_form_lines: [u64; FORM_COUNT],
    ulid_decoy_lines: u64,
    uuid_decoy_lines: u64,
    settlement_started: bool,
}

/// Operations running at once; each step advances a random one, which interleaves their
/// lines the way concurrent traffic does.
const ACTIVE: usize = 192;

/// Caps the one-off IDs added to one line when `--distinct-ids` asks for more IDs than the
/// operations mint on their own.
const MAX_EXTRAS: u64 = 8;

const EXTRA_KEYS: [&[u8]; MAX_EXTRAS as usize] = [
    b"event_id",
    b"message_id",
    b"causation_id",
    b"outbox_id",
    b"dedup_id",
    b"audit_id",
    b"span_link",
    b"replay_of",
];

const GIB: u64 = 1 << 30;

pub struct Gen {
    rng: Rng,
    clock: Clock,
    ids: Registry,
    sink: Sink,
    total: u64,
    hot: Hot,
    /// The customer pool; 0 marks a customer not yet minted.
    users: Vec<u128>,
    /// Recently created orders, which worker batches pick up.
    recent_orders: Recent,
    /// Recently created payments, which settlement runs book.
    recent_payments: Recent,
    active: Vec<Op>,
    lines: u64,
    // The line being built.
    line: Vec<u8>,
    svc: Svc,
    hot_ulid_forms: u16,
    hot_uuid_forms: u16,
    decoy_ulid: bool,
    decoy_uuid: bool,
}

/// A bounded window of recently created entities that later operations refer back to.
#[derive(Default)]
struct Recent {
    items: Vec<u128>,
    next: usize,
}

impl Recent {
    const CAP: usize = 4096;

    fn push(&mut self, v: u128) {
        if self.items.len() < Self::CAP {
            self.items.push(v);
        } else {
            self.items[self.next] = v;
            self.next = (self.next + 1) % Self::CAP;
        }
    }

    fn pick(&self, rng: &mut Rng) -> Option<u128> {
        (!self.items.is_empty()).then(|| *rng.pick(&self.items))
    }
}

pub struct Summary {
    pub json: String,
}

pub fn generate(cfg: &Config) -> io::Result<Summary> {
    let mut rng = Rng::new(cfg.seed);
    let total = cfg.total.max(1);
    let scale = |per_gib: u64, lo: u64, hi: u64| {
        ((per_gib as u128 * total as u128 / GIB as u128) as u64).clamp(lo, hi)
    };
    // The hot customer signed up months before the simulated day; the hot settlement
    // batch is opened when the corpus is 45% written, so its UUIDv7 carries that time.
    let signup = DAY_START_MS - 40 * 86_400_000 - rng.below(86_400_000);
    let hot_ulid = ids::ulid(signup, &mut rng);
    let hot_uuid = ids::uuid_v7(DAY_START_MS + 86_400_000 * 45 / 100, &mut rng);
    let mut generator = Gen {
        clock: Clock::new(total),
        ids: Registry::new(cfg.distinct_ids),
        sink: Sink::new(&cfg.out, total)?,
        total,
        hot: Hot {
            ulid: hot_ulid,
            uuid: hot_uuid,
            ulid_target: scale(2000, 200, 3000),
            uuid_target: scale(500, 100, 800),
            user_expected: 0,
            ulid_lines: 0,
            uuid_lines: 0,
            ulid_form_lines: [0; FORM_COUNT],
            uuid_form_lines: [0; FORM_COUNT],
            ulid_decoy_lines: 0,
            uuid_decoy_lines: 0,
            settlement_started: false,
        },
        users: vec![0; scale(50_000, 1_000, 5_000_000) as usize],
        recent_orders: Recent::default(),
        recent_payments: Recent::default(),
        active: Vec::with_capacity(ACTIVE + 1),
        lines: 0,
        line: Vec::with_capacity(4096),
        svc: Svc::Api,
        hot_ulid_forms: 0,
        hot_uuid_forms: 0,
        decoy_ulid: false,
        decoy_uuid: false,
        rng,
    };
    generator.run()?;
    Ok(Summary {
        json: generator.summary_json(cfg),
    })
}

impl Gen {
    fn run(&mut self) -> io::Result<()> {
        while self.sink.bytes < self.total {
            self.step()?;
        }
        self.sink.finish()
    }

    fn step(&mut self) -> io::Result<()> {
        if !self.hot.settlement_started && self.sink.bytes >= self.total / 100 * 45 {
            self.hot.settlement_started = true;
            let op = self.hot_settlement();
            self.active.push(op);
        }
        if self.rng.chance(90) {
            return self.noise();
        }
        while self.active.len() < ACTIVE {
            let op = self.spawn();
            self.active.push(op);
        }
        let i = self.rng.below(self.active.len() as u64) as usize;
        let mut op = self.active.swap_remove(i);
        if !self.step_op(&mut op)? {
            self.active.push(op);
        }
        Ok(())
    }

    /// True while the window from `from_pct` to `to_pct` percent of the corpus is open and
    /// `done` lags behind `target` spread evenly over it.
    fn hot_due(&self, done: u64, target: u64, from_pct: u64, to_pct: u64) -> bool {
        let start = self.total / 100 * from_pct;
        let end = self.total / 100 * to_pct;
        let at = self.sink.bytes;
        at >= start
            && at < end
            && (done as u128) * ((end - start) as u128) < (target as u128) * ((at - start) as u128)
    }

    /// A customer for a new operation that will name them on about `lines` lines.
    fn pick_user(&mut self, lines: u64) -> u128 {
        // The hot customer is active from 30% to 70% of the simulated day.
        if self.hot_due(self.hot.user_expected, self.hot.ulid_target, 30, 70) {
            self.hot.user_expected += lines;
            return self.hot.ulid;
        }
        let i = self.rng.skewed(self.users.len() as u64) as usize;
        if self.users[i] == 0 {
            // Customers signed up during the year before the simulated day.
            let signup = DAY_START_MS - 86_400_000 - self.rng.below(365 * 86_400_000);
            self.users[i] = self.ids.mint(&mut self.rng, |r| ids::ulid(signup, r));
        }
        self.users[i]
    }

    fn mint_ulid(&mut self) -> u128 {
        let ms = self.clock.now_ms();
        self.ids.mint(&mut self.rng, |r| ids::ulid(ms, r))
    }

    fn mint_uuid7(&mut self) -> u128 {
        let ms = self.clock.now_ms();
        self.ids.mint(&mut self.rng, |r| ids::uuid_v7(ms, r))
    }

    fn mint_uuid4(&mut self) -> u128 {
        self.ids.mint(&mut self.rng, ids::uuid_v4)
    }

    /// A W3C trace id: 128 random bits, written as 32 hex digits.
    fn mint_trace(&mut self) -> u128 {
        self.ids.mint(&mut self.rng, Rng::u128)
    }

    fn recent_order(&mut self) -> u128 {
        match self.recent_orders.pick(&mut self.rng) {
            Some(order) => order,
            None => {
                let order = self.mint_ulid();
                self.recent_orders.push(order);
                order
            }
        }
    }

    fn recent_payment(&mut self) -> u128 {
        match self.recent_payments.pick(&mut self.rng) {
            Some(payment) => payment,
            None => {
                let payment = self.mint_uuid4();
                self.recent_payments.push(payment);
                payment
            }
        }
    }

    // ---- building one line ----

    fn begin(&mut self, svc: Svc) {
        self.line.clear();
        self.svc = svc;
        self.hot_ulid_forms = 0;
        self.hot_uuid_forms = 0;
        self.decoy_ulid = false;
        self.decoy_uuid = false;
    }

    fn s(&mut self, bytes: &[u8]) {
        self.line.extend_from_slice(bytes);
    }

    fn n(&mut self, v: u64) {
        digits(&mut self.line, v, 1);
    }

    /// Cents as `12.30`.
    fn money(&mut self, cents: u64) {
        digits(&mut self.line, cents / 100, 1);
        self.line.push(b'.');
        digits(&mut self.line, cents % 100, 2);
    }

    /// Writes an ID and records it: for the distinct count and, if it is a query ID, for
    /// that query's per-line tally.
    fn id(&mut self, v: u128, form: Form) {
        ids::write(&mut self.line, v, form);
        self.ids.note(v);
        if v == self.hot.ulid {
            self.hot_ulid_forms |= 1 << form as u16;
        }
        if v == self.hot.uuid {
            self.hot_uuid_forms |= 1 << form as u16;
        }
    }

    fn typeid(&mut self, prefix: &[u8], v: u128) {
        self.s(prefix);
        self.s(b"_");
        self.id(v, Form::TypeId);
    }

    /// One-off IDs that keep the distinct count on course for `--distinct-ids`.
    fn extras(&mut self, json: bool) {
        let k = self.ids.deficit().min(MAX_EXTRAS) as usize;
        for key in &EXTRA_KEYS[..k] {
            let (v, form) = match self.rng.below(20) {
                0 => (self.mint_ulid(), Form::UlidUpper),
                1..=4 => (self.mint_uuid7(), Form::UuidLower),
                5..=6 => (self.mint_uuid4(), Form::UuidLower),
                _ => (self.mint_ulid(), Form::UlidLower),
            };
            if json {
                self.s(b",\"");
                self.s(key);
                self.s(b"\":\"");
                self.id(v, form);
                self.s(b"\"");
            } else {
                self.s(b" ");
                self.s(key);
                self.s(b"=");
                self.id(v, form);
            }
        }
    }

    fn end(&mut self) -> io::Result<()> {
        self.line.push(b'\n');
        let hot_ulid = self.hot_ulid_forms != 0;
        let hot_uuid = self.hot_uuid_forms != 0;
        self.sink
            .write(self.svc, &self.line, hot_ulid, hot_uuid, &mut self.rng)?;
        tally(
            self.hot_ulid_forms,
            self.decoy_ulid,
            &mut self.hot.ulid_lines,
            &mut self.hot.ulid_form_lines,
            &mut self.hot.ulid_decoy_lines,
        );
        tally(
            self.hot_uuid_forms,
            self.decoy_uuid,
            &mut self.hot.uuid_lines,
            &mut self.hot.uuid_form_lines,
            &mut self.hot.uuid_decoy_lines,
        );
        self.lines += 1;
        self.clock.set_progress(self.sink.bytes);
        self.ids.set_progress(self.sink.bytes, self.total);
        Ok(())
    }

    // ---- line formats ----

    /// `{"ts":"…","level":"info","svc":"api","msg":"order created"`; fields follow.
    fn json_head(&mut self, svc: Svc, level: &[u8], msg: &[u8]) {
        self.begin(svc);
        self.json_body(svc, level, msg);
    }

    fn json_body(&mut self, svc: Svc, level: &[u8], msg: &[u8]) {
        self.s(b"{\"ts\":\"");
        self.clock.iso_ms(&mut self.line);
        self.s(b"\",\"level\":\"");
        self.s(level);
        self.s(b"\",\"svc\":\"");
        self.s(svc.name().as_bytes());
        self.s(b"\",\"msg\":\"");
        self.s(msg);
        self.s(b"\"");
    }

    /// A JSON line as a container runtime stores it:
    /// `2026-11-29T10:00:00.123456789Z stdout F {…}`.
    fn cri_head(&mut self, level: &[u8], msg: &[u8]) {
        self.begin(Svc::Notifier);
        self.clock.iso_ns(&mut self.line);
        if level == b"info" || level == b"debug" {
            self.s(b" stdout F ");
        } else {
            self.s(b" stderr F ");
        }
        self.json_body(Svc::Notifier, level, msg);
    }

    fn json_id(&mut self, key: &[u8], v: u128, form: Form) {
        self.json_key(key);
        self.s(b"\"");
        self.id(v, form);
        self.s(b"\"");
    }

    fn json_typeid(&mut self, key: &[u8], prefix: &[u8], v: u128) {
        self.json_key(key);
        self.s(b"\"");
        self.typeid(prefix, v);
        self.s(b"\"");
    }

    fn json_key(&mut self, key: &[u8]) {
        self.s(b",\"");
        self.s(key);
        self.s(b"\":");
    }

    fn json_str(&mut self, key: &[u8], value: &[u8]) {
        self.json_key(key);
        self.s(b"\"");
        self.s(value);
        self.s(b"\"");
    }

    fn json_num(&mut self, key: &[u8], v: u64) {
        self.json_key(key);
        self.n(v);
    }

    fn json_end(&mut self) -> io::Result<()> {
        self.extras(true);
        self.s(b"}");
        self.end()
    }

    /// `ts=… level=info svc=payments msg="payment authorized"`; fields follow.
    fn kv_head(&mut self, svc: Svc, level: &[u8], msg: &[u8]) {
        self.begin(svc);
        self.s(b"ts=");
        self.clock.iso_ms(&mut self.line);
        self.s(b" level=");
        self.s(level);
        self.s(b" svc=");
        self.s(svc.name().as_bytes());
        self.s(b" msg=\"");
        self.s(msg);
        self.s(b"\"");
    }

    fn kv_id(&mut self, key: &[u8], v: u128, form: Form) {
        self.kv_key(key);
        self.id(v, form);
    }

    fn kv_key(&mut self, key: &[u8]) {
        self.s(b" ");
        self.s(key);
        self.s(b"=");
    }

    fn kv_num(&mut self, key: &[u8], v: u64) {
        self.kv_key(key);
        self.n(v);
    }

    fn kv_str(&mut self, key: &[u8], value: &[u8]) {
        self.kv_key(key);
        self.s(value);
    }

    fn kv_end(&mut self) -> io::Result<()> {
        self.extras(false);
        self.end()
    }

    /// `2026-11-29 10:00:00,123 INFO  [worker-3] `; free text follows.
    fn plain_head(&mut self, svc: Svc, level: &[u8], thread: u64) {
        self.begin(svc);
        self.clock.plain(&mut self.line, b',');
        self.s(b" ");
        self.s(level);
        self.s(&b"     "[..6 - level.len().min(5)]);
        self.s(b"[");
        self.s(svc.name().as_bytes());
        self.s(b"-");
        self.n(thread);
        self.s(b"] ");
    }

    /// The legacy billing system: upper-case everything, IDs included.
    fn billing_head(&mut self, level: &[u8]) {
        self.begin(Svc::Billing);
        self.clock.plain(&mut self.line, b'.');
        self.s(b" [BILLING-");
        let node = self.rng.range(1, 4);
        self.n(node);
        self.s(b"] ");
        self.s(level);
        self.s(b" ");
    }

    /// A .NET-style ledger: `2026-11-29T10:00:00.123Z | INFO | Ledger.Posting | `.
    fn ledger_head(&mut self, level: &[u8], category: &[u8]) {
        self.begin(Svc::Ledger);
        self.clock.iso_ms(&mut self.line);
        self.s(b" | ");
        self.s(level);
        self.s(b" | Ledger.");
        self.s(category);
        self.s(b" | ");
    }

    fn plain_end(&mut self) -> io::Result<()> {
        self.extras(false);
        self.end()
    }

    /// `10.0.3.7 - - [29/Nov/2026:10:00:00 +0000] "GET `; the path follows.
    fn access_head(&mut self, method: &[u8]) {
        self.begin(Svc::Gateway);
        self.s(b"10.");
        let (a, b, c) = (
            self.rng.below(4),
            self.rng.below(256),
            self.rng.range(1, 254),
        );
        self.n(a);
        self.s(b".");
        self.n(b);
        self.s(b".");
        self.n(c);
        self.s(b" - - [");
        self.clock.clf(&mut self.line);
        self.s(b"] \"");
        self.s(method);
        self.s(b" ");
    }

    /// ` HTTP/1.1" 200 512 "-" "curl/8.5.0" 0.012 <request id>` and the line's end.
    fn access_tail(&mut self, status: u64, request: Option<u128>) -> io::Result<()> {
        const AGENTS: [&[u8]; 6] = [
            b"curl/8.5.0",
            b"okhttp/4.12.0",
            b"Go-http-client/2.0",
            b"python-requests/2.32.3",
            b"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            b"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15",
        ];
        self.s(b" HTTP/1.1\" ");
        self.n(status);
        self.s(b" ");
        let size = self.rng.range(2, 9000);
        self.n(size);
        self.s(b" \"-\" \"");
        let agent = *self.rng.pick(&AGENTS);
        self.s(agent);
        self.s(b"\" 0.");
        let ms = self.rng.skewed(900) + 1;
        digits(&mut self.line, ms, 3);
        self.s(b" ");
        match request {
            Some(v) => self.id(v, Form::UuidLower),
            None => self.s(b"-"),
        }
        self.extras(false);
        self.end()
    }

    fn summary_json(&self, cfg: &Config) -> String {
        let forms = |counts: &[u64; FORM_COUNT]| {
            let fields: Vec<String> = FORM_NAMES
                .iter()
                .zip(counts)
                .map(|(name, n)| format!("\"{name}\":{n}"))
                .collect();
            format!("{{{}}}", fields.join(","))
        };
        let target = match cfg.distinct_ids {
            Some(n) => n.to_string(),
            None => "null".to_string(),
        };
        let h = &self.hot;
        format!(
            concat!(
                "{{\"version\":1,\"seed\":{},\"target_bytes\":{},\"distinct_ids_target\":{},",
                "\"ulid\":\"{}\",\"ulid_upper\":\"{}\",\"ulid_as_uuid\":\"{}\",",
                "\"ulid_lines\":{},\"ulid_files\":{},\"ulid_decoy_lines\":{},\"ulid_forms\":{},",
                "\"uuid\":\"{}\",\"uuid_as_ulid\":\"{}\",",
                "\"uuid_lines\":{},\"uuid_files\":{},\"uuid_decoy_lines\":{},\"uuid_forms\":{},",
                "\"bytes\":{},\"files\":{},\"lines\":{},\"distinct_ids\":{}}}"
            ),
            cfg.seed,
            cfg.total,
            target,
            ids::to_string(h.ulid, Form::UlidLower),
            ids::to_string(h.ulid, Form::UlidUpper),
            ids::to_string(h.ulid, Form::UuidLower),
            h.ulid_lines,
            self.sink.hot_ulid_files,
            h.ulid_decoy_lines,
            forms(&h.ulid_form_lines),
            ids::to_string(h.uuid, Form::UuidLower),
            ids::to_string(h.uuid, Form::UlidLower),
            h.uuid_lines,
            self.sink.hot_uuid_files,
            h.uuid_decoy_lines,
            forms(&h.uuid_form_lines),
            self.sink.bytes,
            self.sink.files,
            self.lines,
            self.ids.distinct(),
        )
    }
}

/// Counts a finished line for one query ID: once if any form named it, per form for the
/// breakdown, and as a decoy line if only look-alikes did.
fn tally(
    forms: u16,
    decoy: bool,
    lines: &mut u64,
    per_form: &mut [u64; FORM_COUNT],
    decoys: &mut u64,
) {
    if forms != 0 {
        *lines += 1;
        for (f, n) in per_form.iter_mut().enumerate() {
            if forms & (1 << f) != 0 {
                *n += 1;
            }
        }
    } else if decoy {
        *decoys += 1;
    }
}
