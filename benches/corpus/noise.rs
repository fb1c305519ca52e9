//! Lines that belong to no operation: health checks, deploys, pool and GC stats, and the
//! look-alike tokens an ID scanner must not take for IDs (27-character base32 runs, IDs glued
//! to letters, sha256 and git digests, integer ids, hex with the wrong dash layout). A few
//! look-alikes are built from the query IDs themselves, so `rg -F` finds lines that a
//! token-aware search must skip; those lines are counted as `*_decoy_lines`.

use std::io;

use super::Gen;
use super::ids;
use super::sink::Svc;

const HEX: &[u8; 16] = b"0123456789abcdef";
const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

impl Gen {
    pub(super) fn noise(&mut self) -> io::Result<()> {
        let ulid_decoys = (self.hot.ulid_target / 40).max(3);
        if self.hot_due(self.hot.ulid_decoy_lines, ulid_decoys, 30, 70) {
            return self.hot_ulid_decoy();
        }
        let uuid_decoys = (self.hot.uuid_target / 40).max(3);
        // While the hot settlement (opened at 45%) is typically still running.
        if self.hot_due(self.hot.uuid_decoy_lines, uuid_decoys, 45, 55) {
            return self.hot_uuid_decoy();
        }
        match self.rng.below(100) {
            0..=29 => {
                self.access_head(b"GET");
                let path = *self.rng.pick(&[&b"/healthz"[..], b"/readyz", b"/metrics"]);
                self.s(path);
                self.access_tail(200, None)
            }
            30..=37 => {
                self.json_head(Svc::Api, b"info", b"config reloaded");
                self.json_key(b"build");
                self.s(b"\"");
                self.random_hex(40);
                self.s(b"\",\"image\":\"registry.internal/api@sha256:");
                self.random_hex(64);
                self.s(b"\"");
                let workers = self.rng.range(2, 64);
                self.json_num(b"workers", workers);
                self.json_end()
            }
            38..=51 => {
                let thread = self.rng.range(1, 8);
                self.plain_head(Svc::Worker, b"DEBUG", thread);
                self.s(b"GC pause ");
                let pause = self.rng.range(1, 80);
                self.n(pause);
                self.s(b"ms heap=");
                let heap = self.rng.range(128, 2048);
                self.n(heap);
                self.s(b"MB job_id=");
                let job = self.rng.range(1000, 1200);
                self.n(job);
                self.plain_end()
            }
            52..=61 => {
                self.kv_head(Svc::Payments, b"debug", b"db pool stats");
                let conn = self.rng.range(1000, 1100);
                self.kv_num(b"conn_id", conn);
                let open = self.rng.range(4, 40);
                self.kv_num(b"open", open);
                let idle = self.rng.below(8);
                self.kv_num(b"idle", idle);
                self.kv_end()
            }
            62..=73 => {
                self.json_head(Svc::Api, b"warn", b"reference not resolved");
                self.json_key(b"ref");
                self.s(b"\"x");
                let glued = self.rng.u128() >> 2;
                ids::write_ulid(&mut self.line, glued, false);
                self.s(b"\"");
                self.json_key(b"cursor");
                self.s(b"\"");
                let cursor = self.rng.u128();
                self.lookalike_base32(cursor);
                self.s(b"\"");
                self.json_key(b"legacy_trace");
                self.s(b"\"");
                self.wrong_dashes();
                self.s(b"\"");
                let id = self.rng.range(1000, 1010);
                self.json_num(b"id", id);
                self.json_end()
            }
            74..=83 => {
                self.cri_head(b"info", b"template cache refreshed");
                self.json_key(b"etag");
                self.s(b"\"");
                self.random_hex(64);
                self.s(b"\"");
                let n = self.rng.range(10, 90);
                self.json_num(b"templates", n);
                self.json_end()
            }
            84..=91 => {
                self.ledger_head(b"DEBUG", b"Audit");
                self.s(b"Journal 1001 checksum sha256=");
                self.random_hex(64);
                self.s(b" commit ");
                self.random_hex(40);
                self.plain_end()
            }
            _ => {
                self.billing_head(b"INFO");
                self.s(b"NIGHTLY JOB 1001 STEP ");
                let step = self.rng.range(1, 9);
                self.n(step);
                self.s(b" OK RECORDS=");
                let records = self.rng.range(100, 90_000);
                self.n(records);
                self.plain_end()
            }
        }
    }

    /// The hot ULID glued to letters, or run on into 27 characters.
    fn hot_ulid_decoy(&mut self) -> io::Result<()> {
        let hot = self.hot.ulid;
        self.json_head(Svc::Api, b"warn", b"reference not resolved");
        self.json_key(b"ref");
        self.s(b"\"");
        match self.rng.below(3) {
            0 => {
                self.s(b"x");
                ids::write_ulid(&mut self.line, hot, false);
            }
            1 => {
                ids::write_ulid(&mut self.line, hot, false);
                self.s(b"q");
            }
            _ => {
                self.s(b"usr");
                ids::write_ulid(&mut self.line, hot, true);
            }
        }
        self.s(b"\"");
        self.decoy_ulid = true;
        self.json_end()
    }

    /// The hot UUID run on into more hex, or glued to a letter.
    fn hot_uuid_decoy(&mut self) -> io::Result<()> {
        let hot = self.hot.uuid;
        self.json_head(Svc::Api, b"warn", b"checksum mismatch");
        self.json_key(b"digest");
        self.s(b"\"");
        match self.rng.below(3) {
            0 => {
                ids::write_hex(&mut self.line, hot, false, false);
                self.random_hex(32);
            }
            1 => {
                ids::write_hex(&mut self.line, hot, false, true);
                self.s(b"0");
            }
            _ => {
                self.s(b"x");
                ids::write_hex(&mut self.line, hot, false, true);
            }
        }
        self.s(b"\"");
        self.decoy_uuid = true;
        self.json_end()
    }

    /// A ULID's worth of base32 plus one more character: 27 characters, not a ULID.
    pub(super) fn lookalike_base32(&mut self, v: u128) {
        ids::write_ulid(&mut self.line, v >> 2, false);
        let extra = CROCKFORD[self.rng.below(32) as usize];
        self.line.push(extra);
    }

    fn random_hex(&mut self, n: usize) {
        for _ in 0..n {
            let d = HEX[self.rng.below(16) as usize];
            self.line.push(d);
        }
    }

    /// UUID-like hex whose dashes are in the wrong places.
    fn wrong_dashes(&mut self) {
        const LAYOUTS: [&[usize]; 4] = [
            &[8, 4, 4, 4, 13],
            &[8, 4, 4, 16],
            &[12, 4, 4, 12],
            &[8, 4, 4, 4, 11],
        ];
        let layout = *self.rng.pick(&LAYOUTS);
        for (i, &len) in layout.iter().enumerate() {
            if i > 0 {
                self.line.push(b'-');
            }
            self.random_hex(len);
        }
    }
}
