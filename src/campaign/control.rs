//! The control handle: how an agent or an embedding program steers the
//! workers. Inject a sequence into every worker, change the priority set,
//! stop. Every command is appended to `{corpusDir}/mcp-commands.jsonl` with
//! its arguments and result, so a session can be replayed
//! (`rudder fuzz … --replay-commands FILE`).
//!
//! Nothing here waits for a worker: an injection is a channel send per
//! worker; workers pick it up between two calls.

use super::Stores;
use crate::eventlog::now_ms;
use crate::ids::InjectionId;
use crate::priority::Priorities;
use crate::tx::Tx;
use crossbeam::channel::Sender;
use parking_lot::Mutex;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// Most calls one injection may carry (seed 002).
pub const MAX_INJECTED_CALLS: usize = 100;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ControlError {
    /// Bad input, naming the field and the value.
    #[error("{field}: {message}")]
    InvalidInput { field: String, message: String },
}

impl ControlError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ControlError::InvalidInput {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A sequence delivered to every worker.
#[derive(Debug)]
pub struct Injection {
    pub id: InjectionId,
    pub txs: Vec<Tx>,
    pub requested_ms: u64,
}

/// What an injection was handed to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InjectReceipt {
    pub id: InjectionId,
    pub calls: usize,
    pub workers: usize,
}

/// A cloneable handle on the campaign's control path.
#[derive(Clone)]
pub struct Control {
    stores: Arc<Stores>,
    workers: Arc<Vec<Sender<Arc<Injection>>>>,
    next_injection: Arc<AtomicU64>,
    log: Arc<Mutex<Option<std::fs::File>>>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("workers", &self.workers.len())
            .finish()
    }
}

impl Control {
    pub(crate) fn new(stores: Arc<Stores>, workers: Vec<Sender<Arc<Injection>>>) -> Self {
        Control {
            stores,
            workers: Arc::new(workers),
            next_injection: Arc::new(AtomicU64::new(1)),
            log: Arc::new(Mutex::new(None)),
        }
    }

    pub fn stores(&self) -> &Arc<Stores> {
        &self.stores
    }

    /// Sends `txs` to every worker; each runs it from the deployed state at
    /// its next call boundary.
    pub fn inject(&self, txs: Vec<Tx>) -> Result<InjectReceipt, ControlError> {
        if txs.is_empty() {
            return Err(ControlError::invalid("sequence", "needs at least one call"));
        }
        if txs.len() > MAX_INJECTED_CALLS {
            return Err(ControlError::invalid(
                "sequence",
                format!(
                    "has {} calls; at most {MAX_INJECTED_CALLS} may be injected at once",
                    txs.len()
                ),
            ));
        }
        let id = InjectionId(self.next_injection.fetch_add(1, Ordering::Relaxed));
        let calls = txs.len();
        let inj = Arc::new(Injection {
            id,
            txs,
            requested_ms: now_ms(),
        });
        let mut delivered = 0;
        for w in self.workers.iter() {
            if w.send(inj.clone()).is_ok() {
                delivered += 1;
            }
        }
        Ok(InjectReceipt {
            id,
            calls,
            workers: delivered,
        })
    }

    /// The callable function with this canonical signature.
    pub fn resolve_signature(&self, signature: &str) -> Result<usize, ControlError> {
        let s = &self.stores;
        if let Some(i) = s
            .callable
            .iter()
            .position(|c| c.function.signature() == signature)
        {
            return Ok(i);
        }
        let name = signature.split('(').next().unwrap_or("");
        let same_name: Vec<String> = s
            .callable
            .iter()
            .filter(|c| c.function.name == name)
            .map(|c| c.function.signature())
            .collect();
        let message = if same_name.is_empty() {
            let all: Vec<String> = s.callable.iter().map(|c| c.function.signature()).collect();
            format!(
                "{signature:?} is not a callable function of {}; callable: {}",
                s.target.contract.name,
                all.join(", ")
            )
        } else {
            format!(
                "{signature:?} does not match the parameter types of {name}; candidates: {}",
                same_name.join(", ")
            )
        };
        Err(ControlError::invalid("functionSignature", message))
    }

    /// Adds `weight` to a function's priority (adding it to the set).
    pub fn prioritize(
        &self,
        signature: &str,
        weight: u32,
    ) -> Result<Arc<Priorities>, ControlError> {
        if weight == 0 {
            return Err(ControlError::invalid("weight", "must be at least 1"));
        }
        let i = self.resolve_signature(signature)?;
        Ok(self.stores.priorities.add(i, signature, weight))
    }

    /// Empties the priority set; returns how many functions it held.
    pub fn clear_priorities(&self) -> usize {
        self.stores.priorities.clear()
    }

    /// Asks the workers to stop.
    pub fn stop(&self) {
        self.stores.stop.store(true, Ordering::Release);
    }

    /// Appends one command to `{corpusDir}/mcp-commands.jsonl` (fsynced).
    pub fn log_command(&self, command: &str, arguments: &Value, result: &Value) {
        let line = json!({
            "timestamp": super::rfc3339(now_ms()),
            "runId": self.stores.run_id,
            "command": command,
            "arguments": arguments,
            "result": result,
        });
        let mut guard = self.log.lock();
        if guard.is_none() {
            let path = self.stores.corpus_dir.join("mcp-commands.jsonl");
            if let Some(d) = path.parent() {
                let _ = std::fs::create_dir_all(d);
            }
            *guard = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| tracing::error!("command log {}: {e}", path.display()))
                .ok();
        }
        if let Some(f) = guard.as_mut() {
            let _ = writeln!(f, "{line}");
            let _ = f.sync_data();
        }
    }
}
