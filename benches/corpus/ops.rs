//! Operations: the orders, worker batches, settlement runs and short browsing requests
//! whose IDs recur over many lines, services and files. Each step writes one line; the
//! generation loop interleaves the steps of all running operations.

use std::io;

use super::Gen;
use super::ids::Form;
use super::sink::Svc;

#[derive(Clone, Copy)]
enum OrderStep {
    GatewayCreate,
    ApiCreated,
    ApiReserved,
    PayIntent,
    PayRetry,
    PayAuthorized,
    LedgerPosted,
    WorkerProcessing,
    WorkerPicked,
    ApiPacked,
    WorkerPacked,
    PayCaptured,
    BillingInvoice,
    NotifyEmail,
    ApiShipped,
    GatewayPoll,
}

pub struct Order {
    id: u128,
    user: u128,
    request: u128,
    trace: u128,
    payment: u128,
    /// Billing numbers invoices itself; a counter, not an ID.
    invoice: u64,
    items: u64,
    cents: u64,
    worker: u64,
    attempt: u64,
    /// Remaining steps, last first.
    script: Vec<OrderStep>,
}

pub struct Batch {
    id: u128,
    total: u64,
    done: u64,
    worker: u64,
    started: bool,
}

pub struct Settlement {
    id: u128,
    total: u64,
    done: u64,
}

pub struct Browse {
    user: u128,
    request: u128,
    trace: u128,
    search: bool,
    step: u8,
}

pub enum Op {
    Order(Order),
    Batch(Batch),
    Settlement(Settlement),
    Browse(Browse),
}

const SKUS: u64 = 5000;

impl Gen {
    /// Starts a new operation. The mix is chosen so that, with steps drawn uniformly over
    /// running operations, orders fill about 60% of the lines, batches 15%, settlements 8%
    /// and browsing 7% (noise is the rest).
    pub(super) fn spawn(&mut self) -> Op {
        match self.rng.below(100_000) {
            0..=50_999 => Op::Order(self.new_order()),
            51_000..=98_299 => {
                let search = self.rng.chance(300);
                // A profile view names the customer twice: the call and the API's record.
                let user = if search { 0 } else { self.pick_user(2) };
                Op::Browse(Browse {
                    user,
                    request: self.mint_uuid7(),
                    trace: self.mint_trace(),
                    search,
                    step: 0,
                })
            }
            98_300..=98_949 => Op::Batch(Batch {
                id: self.mint_ulid(),
                total: self.rng.log_range(40, 2000),
                done: 0,
                worker: self.rng.range(1, 8),
                started: false,
            }),
            _ => Op::Settlement(Settlement {
                id: self.mint_uuid7(),
                total: self.rng.log_range(20, 400),
                done: 0,
            }),
        }
    }

    pub(super) fn hot_settlement(&mut self) -> Op {
        Op::Settlement(Settlement {
            id: self.hot.uuid,
            total: self.hot.uuid_target,
            done: 0,
        })
    }

    fn new_order(&mut self) -> Order {
        use OrderStep::*;
        // Six steps name the customer: the create call, the API's record, the payment
        // intent, the worker's pick-up, the invoice and the e-mail.
        let user = self.pick_user(6);
        let id = self.mint_ulid();
        self.recent_orders.push(id);
        let mut script = vec![GatewayCreate, ApiCreated];
        for _ in 0..self.rng.below(3) {
            script.push(ApiReserved);
        }
        script.push(PayIntent);
        if self.rng.chance(120) {
            for _ in 0..self.rng.range(1, 3) {
                script.push(PayRetry);
            }
        }
        script.extend([PayAuthorized, LedgerPosted, WorkerProcessing]);
        for _ in 0..self.rng.range(1, 3) {
            script.push(WorkerPicked);
        }
        script.extend([
            ApiPacked,
            WorkerPacked,
            PayCaptured,
            BillingInvoice,
            NotifyEmail,
            ApiShipped,
        ]);
        // Customers poll the order while it is in flight.
        for _ in 0..self.rng.skewed(7) {
            let at = 2 + self.rng.below(script.len() as u64 - 1) as usize;
            script.insert(at, GatewayPoll);
        }
        script.reverse();
        let payment = self.mint_uuid4();
        self.recent_payments.push(payment);
        Order {
            id,
            user,
            request: self.mint_uuid7(),
            trace: self.mint_trace(),
            payment,
            invoice: self.rng.range(100_000, 999_999),
            items: self.rng.range(1, 5),
            cents: self.rng.range(199, 49_999),
            worker: self.rng.range(1, 8),
            attempt: 1,
            script,
        }
    }

    /// Writes one line of `op`; true when the operation is over.
    pub(super) fn step_op(&mut self, op: &mut Op) -> io::Result<bool> {
        match op {
            Op::Order(o) => self.order_step(o),
            Op::Batch(b) => self.batch_step(b),
            Op::Settlement(s) => self.settlement_step(s),
            Op::Browse(b) => self.browse_step(b),
        }
    }

    fn order_step(&mut self, o: &mut Order) -> io::Result<bool> {
        use OrderStep::*;
        let Some(step) = o.script.pop() else {
            return Ok(true);
        };
        match step {
            GatewayCreate => {
                self.access_head(b"POST");
                self.s(b"/v1/users/");
                self.id(o.user, Form::UlidLower);
                self.s(b"/orders");
                self.access_tail(201, Some(o.request))?;
            }
            ApiCreated => {
                self.json_head(Svc::Api, b"info", b"order created");
                self.json_id(b"order_id", o.id, Form::UlidLower);
                self.json_id(b"request_id", o.request, Form::UuidLower);
                self.json_id(b"trace_id", o.trace, Form::HexLower);
                self.s(b",\"user\":{\"id\":\"");
                self.id(o.user, Form::UlidLower);
                self.s(b"\",\"tier\":\"");
                let tier = *self.rng.pick(&[&b"free"[..], b"plus", b"pro"]);
                self.s(tier);
                self.s(b"\"},\"items\":[");
                for i in 0..o.items {
                    if i > 0 {
                        self.s(b",");
                    }
                    self.s(b"{\"sku\":\"SKU-");
                    let sku = self.rng.skewed(SKUS) + 1000;
                    self.n(sku);
                    self.s(b"\",\"qty\":");
                    let qty = self.rng.range(1, 4);
                    self.n(qty);
                    self.s(b"}");
                }
                self.s(b"],\"total\":\"");
                self.money(o.cents);
                self.s(b"\",\"currency\":\"EUR\"");
                self.json_end()?;
            }
            ApiReserved => {
                self.json_head(Svc::Api, b"debug", b"inventory reserved");
                self.json_id(b"order_id", o.id, Form::UlidLower);
                self.json_id(b"trace_id", o.trace, Form::HexLower);
                let wh = *self
                    .rng
                    .pick(&[&b"ams-1"[..], b"ams-2", b"fra-1", b"dub-3"]);
                self.json_str(b"warehouse", wh);
                // Warehouse bins are plain integers, the `id=1001` kind that is no ID.
                let bin = self.rng.range(1000, 99_999);
                self.json_num(b"bin_id", bin);
                self.json_end()?;
            }
            PayIntent => {
                // Payments keeps orders and customers as UUID columns: the same 128 bits
                // as the ULIDs the API writes.
                self.kv_head(Svc::Payments, b"info", b"payment intent created");
                self.kv_id(b"payment_id", o.payment, Form::UuidLower);
                self.kv_id(b"order_id", o.id, Form::UuidLower);
                self.kv_id(b"customer_id", o.user, Form::UuidLower);
                self.kv_key(b"amount");
                self.money(o.cents);
                self.kv_str(b"currency", b"EUR");
                self.kv_id(b"request_id", o.request, Form::UuidLower);
                self.kv_id(b"trace_id", o.trace, Form::HexLower);
                self.kv_end()?;
            }
            PayRetry => {
                o.attempt += 1;
                self.kv_head(Svc::Payments, b"warn", b"card declined, retrying");
                self.kv_id(b"payment_id", o.payment, Form::UuidLower);
                self.kv_id(b"order_id", o.id, Form::UuidLower);
                self.kv_num(b"attempt", o.attempt);
                let code = *self.rng.pick(&[
                    &b"insufficient_funds"[..],
                    b"do_not_honor",
                    b"issuer_unavailable",
                ]);
                self.kv_str(b"decline_code", code);
                self.kv_end()?;
            }
            PayAuthorized => {
                self.kv_head(Svc::Payments, b"info", b"payment authorized");
                self.kv_id(b"payment_id", o.payment, Form::UuidLower);
                self.kv_id(b"order_id", o.id, Form::UuidLower);
                self.kv_num(b"attempt", o.attempt);
                let latency = self.rng.range(40, 1900);
                self.kv_num(b"psp_latency_ms", latency);
                self.kv_end()?;
            }
            LedgerPosted => {
                self.ledger_head(b"INFO", b"Posting");
                self.s(b"Posted payment ");
                self.id(o.payment, Form::Braced);
                self.s(b" for order ");
                self.id(o.id, Form::UlidLower);
                self.s(b" to account 4000-EUR, amount ");
                self.money(o.cents);
                self.plain_end()?;
            }
            WorkerProcessing => {
                self.plain_head(Svc::Worker, b"INFO", o.worker);
                self.s(b"processing order ");
                self.id(o.id, Form::UlidLower);
                self.s(b" for user ");
                self.id(o.user, Form::UlidLower);
                self.plain_end()?;
            }
            WorkerPicked => {
                self.plain_head(Svc::Worker, b"DEBUG", o.worker);
                self.s(b"picked SKU-");
                let sku = self.rng.skewed(SKUS) + 1000;
                self.n(sku);
                self.s(b" x");
                let qty = self.rng.range(1, 4);
                self.n(qty);
                self.s(b" for order ");
                self.id(o.id, Form::UlidLower);
                self.s(b" (bin=");
                let bin = self.rng.range(1000, 99_999);
                self.n(bin);
                self.s(b")");
                self.plain_end()?;
            }
            ApiPacked | ApiShipped => {
                let (msg, from, to) = match step {
                    ApiPacked => (&b"order status changed"[..], &b"paid"[..], &b"packed"[..]),
                    _ => (
                        &b"order status changed"[..],
                        &b"packed"[..],
                        &b"shipped"[..],
                    ),
                };
                self.json_head(Svc::Api, b"info", msg);
                self.json_id(b"order_id", o.id, Form::UlidLower);
                self.json_str(b"from", from);
                self.json_str(b"to", to);
                self.json_id(b"trace_id", o.trace, Form::HexLower);
                self.json_end()?;
            }
            WorkerPacked => {
                self.plain_head(Svc::Worker, b"INFO", o.worker);
                self.s(b"order ");
                self.id(o.id, Form::UlidLower);
                self.s(b" packed: ");
                self.n(o.items);
                self.s(b" items, ");
                let grams = self.rng.range(100, 9000);
                self.n(grams);
                self.s(b" g");
                self.plain_end()?;
            }
            PayCaptured => {
                self.kv_head(Svc::Payments, b"info", b"payment captured");
                self.kv_id(b"payment_id", o.payment, Form::UuidLower);
                self.kv_id(b"order_id", o.id, Form::UuidLower);
                self.kv_key(b"amount");
                self.money(o.cents);
                self.kv_end()?;
            }
            BillingInvoice => {
                self.billing_head(b"INFO");
                self.s(b"INVOICE INV-2026-");
                self.n(o.invoice);
                self.s(b" ISSUED ORDER=");
                self.id(o.id, Form::UlidUpper);
                self.s(b" CUSTOMER=");
                self.id(o.user, Form::UlidUpper);
                self.s(b" TOTAL=");
                self.money(o.cents);
                self.s(b" EUR");
                self.plain_end()?;
            }
            NotifyEmail => {
                self.cri_head(b"info", b"email queued");
                self.json_typeid(b"order", b"order", o.id);
                self.json_typeid(b"user", b"user", o.user);
                self.json_str(b"template", b"order_shipped");
                self.json_end()?;
            }
            GatewayPoll => {
                self.access_head(b"GET");
                self.s(b"/v1/orders/");
                self.id(o.id, Form::UlidLower);
                if self.rng.chance(500) {
                    self.s(b"/items");
                }
                let request = self.mint_uuid4();
                self.access_tail(200, Some(request))?;
            }
        }
        Ok(o.script.is_empty())
    }

    fn batch_step(&mut self, b: &mut Batch) -> io::Result<bool> {
        if !b.started {
            b.started = true;
            self.plain_head(Svc::Worker, b"INFO", b.worker);
            self.s(b"batch ");
            self.id(b.id, Form::UlidLower);
            self.s(b" started with ");
            self.n(b.total);
            self.s(b" orders");
            self.plain_end()?;
            return Ok(false);
        }
        if b.done == b.total {
            self.kv_head(Svc::Worker, b"info", b"batch finished");
            self.kv_id(b"batch", b.id, Form::UlidLower);
            self.kv_num(b"orders", b.total);
            let duration = self.rng.range(1000, 900_000);
            self.kv_num(b"duration_ms", duration);
            self.kv_end()?;
            return Ok(true);
        }
        b.done += 1;
        if b.done.is_multiple_of(100) {
            self.kv_head(Svc::Worker, b"info", b"batch progress");
            self.kv_id(b"batch", b.id, Form::UlidLower);
            self.kv_num(b"done", b.done);
            self.kv_num(b"total", b.total);
            return self.kv_end().map(|()| false);
        }
        let order = self.recent_order();
        self.kv_head(Svc::Worker, b"debug", b"batch item merged");
        self.kv_id(b"batch", b.id, Form::UlidLower);
        self.kv_id(b"order_id", order, Form::UlidLower);
        self.s(b" sources=\"[");
        for i in 0..self.rng.range(1, 3) {
            if i > 0 {
                self.s(b" ");
            }
            let source = self.recent_order();
            self.id(source, Form::UlidLower);
        }
        self.s(b"]\"");
        self.kv_num(b"item", b.done);
        self.kv_end()?;
        Ok(false)
    }

    /// A settlement run names its UUIDv7 in every written form, one per service: how each
    /// system happens to store it.
    fn settlement_step(&mut self, s: &mut Settlement) -> io::Result<bool> {
        s.done += 1;
        let payment = self.recent_payment();
        let cents = self.rng.range(199, 49_999);
        let pick = if s.done == 1 || s.done == s.total {
            0
        } else {
            self.rng.below(100)
        };
        match pick {
            0..=51 => {
                let msg: &[u8] = if s.done == 1 {
                    b"settlement opened"
                } else if s.done == s.total {
                    b"settlement closed"
                } else {
                    b"settlement entry added"
                };
                self.kv_head(Svc::Payments, b"info", msg);
                self.kv_id(b"settlement_id", s.id, Form::UuidLower);
                self.kv_id(b"payment_id", payment, Form::UuidLower);
                self.kv_key(b"amount");
                self.money(cents);
                self.kv_num(b"entry", s.done);
                self.kv_end()?;
            }
            52..=61 => {
                self.billing_head(b"INFO");
                self.s(b"SETTLEMENT ");
                self.id(s.id, Form::UuidUpper);
                self.s(b" LINE ");
                self.n(s.done);
                self.s(b" PAYMENT ");
                self.id(payment, Form::UuidUpper);
                self.s(b" AMOUNT ");
                self.money(cents);
                self.s(b" EUR");
                self.plain_end()?;
            }
            62..=64 => {
                self.billing_head(b"INFO");
                self.s(b"EXPORT SETTLEMENT_REF=");
                self.id(s.id, Form::HexUpper);
                self.s(b" ROWS=");
                self.n(s.done);
                self.plain_end()?;
            }
            65..=76 => {
                let worker = self.rng.range(1, 8);
                self.plain_head(Svc::Worker, b"INFO", worker);
                self.s(b"reconciled payment ");
                self.id(payment, Form::HexLower);
                self.s(b" in settlement=");
                self.id(s.id, Form::HexLower);
                self.plain_end()?;
            }
            77..=88 => {
                self.ledger_head(b"INFO", b"Settlement");
                self.s(b"Journal line ");
                self.n(s.done);
                self.s(b" booked under settlement ");
                self.id(s.id, Form::Braced);
                self.s(b", payment ");
                self.id(payment, Form::Braced);
                self.plain_end()?;
            }
            89..=94 => {
                // CloudEvents name their source with a URN.
                self.json_head(Svc::Api, b"info", b"event published");
                self.json_str(b"type", b"com.example.settlement.entry");
                self.json_key(b"source");
                self.s(b"\"");
                self.id(s.id, Form::Urn);
                self.s(b"\"");
                self.json_id(b"payment_id", payment, Form::UuidLower);
                self.json_end()?;
            }
            _ => {
                // The notifier keys settlements by TypeID: the UUID's bits as a ULID.
                self.cri_head(b"info", b"payout notice queued");
                self.json_typeid(b"settlement", b"stl", s.id);
                self.json_id(b"payment", payment, Form::UuidLower);
                self.json_end()?;
            }
        }
        Ok(s.done >= s.total)
    }

    fn browse_step(&mut self, b: &mut Browse) -> io::Result<bool> {
        b.step += 1;
        if b.search {
            // A search paged with opaque 27-character cursors: base32, but no ULID.
            let cursor = self.rng.u128();
            if b.step == 1 {
                self.access_head(b"GET");
                self.s(b"/v1/search?q=");
                let q = *self
                    .rng
                    .pick(&[&b"shoes"[..], b"lamp", b"usb-c+cable", b"desk"]);
                self.s(q);
                self.s(b"&cursor=");
                self.lookalike_base32(cursor);
                return self.access_tail(200, Some(b.request)).map(|()| false);
            }
            self.json_head(Svc::Api, b"info", b"search served");
            self.json_id(b"request_id", b.request, Form::UuidLower);
            self.json_key(b"next_cursor");
            self.s(b"\"");
            self.lookalike_base32(cursor);
            self.s(b"\"");
            let hits = self.rng.below(400);
            self.json_num(b"hits", hits);
            self.json_end()?;
            return Ok(true);
        }
        if b.step == 1 {
            self.access_head(b"GET");
            self.s(b"/v1/users/");
            self.id(b.user, Form::UlidLower);
            self.s(b"/profile");
            return self.access_tail(200, Some(b.request)).map(|()| false);
        }
        self.json_head(Svc::Api, b"info", b"profile fetched");
        self.json_id(b"user_id", b.user, Form::UlidLower);
        self.json_id(b"request_id", b.request, Form::UuidLower);
        self.json_id(b"trace_id", b.trace, Form::HexLower);
        self.json_end()?;
        Ok(true)
    }
}
