//! The journal thread: records rendered into rows with their parent links,
//! batched into transactions, with the kept counts and rollups.

use super::*;

/// One row to insert.
#[derive(Default)]
pub(super) struct Row {
    pub(super) kind: Kind,
    pub(super) ts_ms: u64,
    pub(super) severity: Option<Severity>,
    pub(super) worker: Option<u32>,
    pub(super) parent: Option<i64>,
    pub(super) function: Option<String>,
    pub(super) sender: Option<String>,
    pub(super) property: Option<String>,
    pub(super) injection: Option<u64>,
    pub(super) gas: Option<u64>,
    pub(super) duration_us: Option<u64>,
    pub(super) coverage_delta: Option<u64>,
    pub(super) corpus_size: Option<u64>,
    pub(super) properties: Value,
    pub(super) validation_errors: Option<Value>,
}

// The kind a `Row` starts from before the writer sets it (the macro's
// enum cannot carry `#[default]` on one arm).
#[allow(clippy::derivable_impls)]
impl Default for Kind {
    fn default() -> Self {
        Kind::RunStarted
    }
}

/// The journal thread's state: parent links and the last timestamp.
pub(super) struct Writer {
    pub(super) render: Arc<dyn Render>,
    pub(super) run_id: String,
    pub(super) last_ts: u64,
    pub(super) root: Option<i64>,
    /// Worker → its WorkerStarted row.
    pub(super) workers: HashMap<u32, i64>,
    /// (worker, sequence number) → its SequenceStarted row.
    pub(super) sequences: HashMap<(u32, u64), i64>,
    /// Worker → its last journaled call row.
    pub(super) last_call: HashMap<u32, i64>,
    /// Test → its PropertyFalsified row.
    pub(super) falsified: HashMap<u32, i64>,
    /// Injection id → its ControlCommand row.
    pub(super) commands: HashMap<u64, i64>,
    /// Rows per kind inserted in the open batch.
    pub(super) pending: HashMap<Kind, u64>,
    /// Rollup cells touched by the open batch.
    pub(super) rollups: Rollups,
    /// Links between traces.
    pub(super) traces: traces::TraceWriter,
    pub(super) shared: Arc<Shared>,
}

pub(super) fn i(v: Option<u64>) -> Option<i64> {
    v.map(|v| v.min(i64::MAX as u64) as i64)
}

impl Writer {
    pub(super) fn run(mut self, mut conn: Connection, rx: Receiver<Record>, path: &Path) {
        let mut batch: Vec<Record> = Vec::with_capacity(BATCH_ROWS);
        loop {
            // A flush (`save_decision` waits on one) commits at once: what
            // came before it is in the batch already (one channel, in order).
            let mut flush = match rx.recv_timeout(BATCH_INTERVAL) {
                Ok(r) => {
                    let flush = matches!(r, Record::Flush(_));
                    batch.push(r);
                    flush
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let deadline = Instant::now() + BATCH_INTERVAL;
            while !flush && batch.len() < BATCH_ROWS {
                match rx.try_recv() {
                    Ok(r) => {
                        flush = matches!(r, Record::Flush(_));
                        batch.push(r);
                    }
                    Err(_) if Instant::now() >= deadline => break,
                    Err(_) => {
                        // Briefly let more records arrive: fewer, larger
                        // transactions.
                        match rx.recv_timeout(Duration::from_millis(2)) {
                            Ok(r) => {
                                flush = matches!(r, Record::Flush(_));
                                batch.push(r);
                            }
                            Err(_) => break,
                        }
                    }
                }
            }
            if let Err(e) = self.commit(&mut conn, &mut batch) {
                tracing::error!("journal {}: {e}", path.display());
            }
        }
        if !batch.is_empty()
            && let Err(e) = self.commit(&mut conn, &mut batch)
        {
            tracing::error!("journal {}: {e}", path.display());
        }
    }

    pub(super) fn commit(
        &mut self,
        conn: &mut Connection,
        batch: &mut Vec<Record>,
    ) -> rusqlite::Result<()> {
        let mut acks = Vec::new();
        let tx = conn.transaction()?;
        for record in batch.drain(..) {
            match record {
                Record::Flush(ack) => acks.push(ack),
                other => self.record(&tx, other)?,
            }
        }
        self.rollups.flush(&tx)?;
        tx.commit()?;
        self.shared.version.fetch_add(1, Ordering::Release);
        self.publish_counts();
        for a in acks {
            let _ = a.send(());
        }
        Ok(())
    }

    pub(super) fn publish_counts(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut counts = self.shared.counts.write();
        let mut total = 0;
        for (k, n) in self.pending.drain() {
            *counts.entry((self.run_id.clone(), k)).or_insert(0) += n;
            total += n;
        }
        self.shared.written.fetch_add(total, Ordering::Relaxed);
    }

    pub(super) fn insert(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        row: Row,
    ) -> rusqlite::Result<i64> {
        // Non-decreasing timestamps in id order (see the module doc).
        let ts = row.ts_ms.max(self.last_ts);
        self.last_ts = ts;
        let severity = row.severity.unwrap_or(row.kind.severity());
        let mut stmt = tx.prepare_cached(
            "INSERT INTO events (run_id, ts_ms, kind, severity, category, worker, parent_id,
               function, sender, property, injection, gas, duration_us, coverage_delta,
               corpus_size, properties, validation_errors)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        )?;
        stmt.execute(params![
            self.run_id,
            ts as i64,
            row.kind.as_str(),
            severity.as_str(),
            row.kind.category().as_str(),
            row.worker,
            row.parent,
            row.function,
            row.sender,
            row.property,
            i(row.injection),
            i(row.gas),
            i(row.duration_us),
            i(row.coverage_delta),
            i(row.corpus_size),
            row.properties.to_string(),
            row.validation_errors.map(|v| v.to_string()),
        ])?;
        let id = tx.last_insert_rowid();
        *self.pending.entry(row.kind).or_insert(0) += 1;
        self.rollups.add_row(
            &self.run_id,
            row.kind,
            severity,
            ts,
            id,
            &row.properties,
            &[
                ("worker", row.worker.map(|w| EntityValue::Int(w.into()))),
                ("function", row.function.map(EntityValue::Text)),
                ("sender", row.sender.map(EntityValue::Text)),
                ("property", row.property.map(EntityValue::Text)),
                ("injection", i(row.injection).map(EntityValue::Int)),
            ],
        );
        Ok(id)
    }

    pub(super) fn worker_row(&self, worker: u32) -> Option<i64> {
        self.workers.get(&worker).copied().or(self.root)
    }

    pub(super) fn record(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        record: Record,
    ) -> rusqlite::Result<()> {
        match record {
            Record::Event(e) => self.event(tx, &e),
            Record::Call(c) => self.call(tx, *c),
            Record::Family(rows) => rows.insert(tx),
            Record::Command {
                ts_ms,
                logged,
                injection,
            } => {
                let function = logged.command.function().map(str::to_string);
                let id = self.insert(
                    tx,
                    Row {
                        kind: Kind::ControlCommand,
                        ts_ms,
                        parent: self.root,
                        function,
                        injection,
                        properties: serde_json::to_value(&logged).expect("commands serialize"),
                        ..Row::default()
                    },
                )?;
                if let Some(inj) = injection {
                    self.commands.insert(inj, id);
                }
                Ok(())
            }
            Record::Rejected {
                ts_ms,
                tool,
                field,
                message,
            } => self
                .insert(
                    tx,
                    Row {
                        kind: Kind::InputRejected,
                        ts_ms,
                        parent: self.root,
                        properties: json!({ "tool": tool, "field": field, "message": message }),
                        validation_errors: Some(json!([{
                            "Field": field, "Error": message, "Severity": "Error"
                        }])),
                        severity: Some(Severity::Error),
                        ..Row::default()
                    },
                )
                .map(drop),
            Record::Trace(t) => self
                .traces
                .insert(tx, &*self.render, &self.run_id, *t)
                .map(drop),
            Record::Flush(_) => Ok(()),
        }
    }

    pub(super) fn event(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        e: &Event,
    ) -> rusqlite::Result<()> {
        let kind = Kind::from(e.kind());
        let worker = e.worker.0;
        let data = self.render.data(e);
        let mut row = Row {
            kind,
            ts_ms: e.timestamp_ms,
            worker: Some(worker),
            parent: self.worker_row(worker),
            properties: data,
            ..Row::default()
        };
        match e.payload {
            Payload::WorkerStarted { .. } => row.parent = self.root,
            Payload::TransactionExecuted {
                gas_used, calls, ..
            } => {
                row.gas = Some(gas_used);
                row.properties["calls"] = json!(calls);
            }
            Payload::CoverageIncreased {
                new_points, entry, ..
            } => {
                row.coverage_delta = Some(new_points as u64);
                row.corpus_size = Some(entry.0 + 1);
                row.properties["corpusSize"] = json!(entry.0 + 1);
            }
            Payload::PropertyFalsified { test, gas_used, .. } => {
                row.gas = Some(gas_used);
                row.property = row.properties["property"].as_str().map(str::to_string);
                if let Some(call) = self.last_call.get(&worker) {
                    row.parent = Some(*call);
                }
                let _ = test;
            }
            Payload::TestShrunk { test, .. } => {
                row.property = row.properties["property"].as_str().map(str::to_string);
                row.parent = self.falsified.get(&test.0).copied().or(row.parent);
            }
            Payload::OptimizationImproved { .. } => {
                row.property = row.properties["test"].as_str().map(str::to_string);
            }
            Payload::InjectionExecuted {
                injection,
                new_points,
                ..
            } => {
                row.injection = Some(injection.0);
                row.coverage_delta = Some(new_points as u64);
                row.parent = self.commands.get(&injection.0).copied().or(row.parent);
            }
            // The sum of the runs above: its points are not counted again.
            Payload::InjectionSummary { injection, .. } => {
                row.injection = Some(injection.0);
                row.parent = self.commands.get(&injection.0).copied().or(row.parent);
            }
            Payload::WorkerStopped { .. } | Payload::WorkerPanicked { .. } => {}
        }
        let id = self.insert(tx, row)?;
        match e.payload {
            Payload::WorkerStarted { .. } => {
                self.workers.insert(worker, id);
            }
            Payload::PropertyFalsified { test, .. } => {
                self.falsified.insert(test.0, id);
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn call(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        c: CallRecord,
    ) -> rusqlite::Result<()> {
        let worker = c.worker.0;
        let key = (worker, c.sequence);
        let seq_row = match self.sequences.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.insert(
                    tx,
                    Row {
                        kind: Kind::SequenceStarted,
                        ts_ms: c.ts_ms,
                        worker: Some(worker),
                        parent: self.worker_row(worker),
                        injection: c.injection,
                        properties: json!({
                            "worker": worker, "sequence": c.sequence,
                            "source": format!("{:?}", c.source).to_lowercase(),
                        }),
                        ..Row::default()
                    },
                )?;
                // Only the newest sequence per worker gets more calls.
                self.sequences.retain(|(w, _), _| *w != worker);
                self.sequences.insert(key, id);
                id
            }
        };
        let (outcome, reason, invalid) = describe(&c.outcome);
        let severity = if c.falsified {
            Severity::Error
        } else if invalid.is_some() {
            Severity::Warning
        } else {
            Severity::Info
        };
        let sender = format!("{:#x}", c.tx.sender);
        let id = self.insert(
            tx,
            Row {
                kind: Kind::CallExecuted,
                ts_ms: c.ts_ms,
                severity: Some(severity),
                worker: Some(worker),
                parent: Some(seq_row),
                function: Some(c.tx.signature()),
                sender: Some(sender.clone()),
                injection: c.injection,
                gas: Some(c.gas),
                duration_us: Some(c.duration_ns / 1000),
                coverage_delta: Some(c.new_points as u64),
                properties: json!({
                    "call": self.render.call(&c.tx),
                    "function": c.tx.signature(),
                    "sender": sender,
                    "value": c.tx.value.to_string(),
                    "delaySeconds": c.tx.delay.seconds,
                    "delayBlocks": c.tx.delay.blocks,
                    "position": c.position,
                    "outcome": outcome,
                    "reason": reason,
                    "gasUsed": c.gas,
                    "durationUs": c.duration_ns / 1000,
                    "newPoints": c.new_points,
                    "falsified": c.falsified,
                }),
                validation_errors: invalid,
                ..Row::default()
            },
        )?;
        self.last_call.insert(worker, id);
        Ok(())
    }
}

/// (outcome word, reason, validation errors for a revert).
pub(super) fn describe(o: &Outcome) -> (&'static str, Option<String>, Option<Value>) {
    match o {
        Outcome::Success { .. } => ("success", None, None),
        Outcome::Revert { .. } => {
            let word = o.word();
            let text = o.to_string();
            let errors = json!([{ "Field": "call", "Error": text, "Severity": "Warning" }]);
            (word, Some(text), Some(errors))
        }
        Outcome::Halt { .. } => {
            let text = o.to_string();
            let errors = json!([{ "Field": "call", "Error": text, "Severity": "Warning" }]);
            ("halt", Some(text), Some(errors))
        }
    }
}
