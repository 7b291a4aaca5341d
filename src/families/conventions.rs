//! The ops family's conventions, written once: the pagination envelope, the TTL
//! cache with `force_refresh`, the `_metadata` every answer outside the campaign family
//! carries, and the seed's error shape.
//!
//! The server adds `_metadata` (`latency_ms`, `cached`,
//! `cache_ttl_remaining`, `source`) to every structured answer of the
//! events, traces, graph and ops families; a tool that answered from its
//! cache says so through [`Cached`]. The campaign tools keep their
//! exact schemas and get none. Errors of the ops family have the ops envelope's
//! shape (`{"error": {code, message, details}, "_metadata": {latency_ms}}`);
//! the other families keep the campaign tools'.

use super::errors::ToolError;
use parking_lot::Mutex;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The envelope of every list answer.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Pagination {
    pub offset: u64,
    pub limit: u64,
    /// Items matching, over every page.
    pub total: u64,
    pub has_more: bool,
}

/// `all[offset..offset + limit]` and its envelope.
pub fn page<T>(all: Vec<T>, offset: u64, limit: u64) -> (Vec<T>, Pagination) {
    let total = all.len() as u64;
    let items: Vec<T> = all
        .into_iter()
        .skip(offset.min(total) as usize)
        .take(limit as usize)
        .collect();
    let has_more = offset.saturating_add(items.len() as u64) < total;
    (
        items,
        Pagination {
            offset,
            limit,
            total,
            has_more,
        },
    )
}

/// What the server reads from an answer to fill `_metadata`: whether it
/// came from the cache and for how long it stays there.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cached {
    pub hit: bool,
    pub ttl_remaining: Option<Duration>,
}

/// The key a tool puts in its answer for the server (removed before the
/// answer leaves).
pub const CACHE_KEY: &str = "__rudder_cache";

/// Marks `answer` as served from the cache (or not).
pub fn mark(answer: &mut Value, c: Cached) {
    if let Value::Object(m) = answer {
        m.insert(
            CACHE_KEY.into(),
            json!({
                "hit": c.hit,
                "ttlMs": c.ttl_remaining.map(|d| d.as_millis() as u64),
            }),
        );
    }
}

/// Adds `_metadata` to a structured answer (taking the cache marker out).
pub fn add_metadata(answer: &mut Value, latency: Duration, source: &str) {
    let Value::Object(m) = answer else { return };
    let cache = m.remove(CACHE_KEY);
    let hit = cache
        .as_ref()
        .and_then(|c| c.get("hit"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let ttl = cache
        .as_ref()
        .and_then(|c| c.get("ttlMs"))
        .and_then(Value::as_u64)
        .map(|ms| ms as f64 / 1000.0);
    m.insert(
        "_metadata".into(),
        json!({
            "latency_ms": latency.as_secs_f64() * 1000.0,
            "cached": hit,
            "cache_ttl_remaining": ttl,
            "source": source,
        }),
    );
}

/// The schema of `_metadata`, added to the answers' output schemas.
pub fn metadata_schema() -> Value {
    json!({
        "type": "object",
        "description": "How the answer was made: cache, latency, source",
        "properties": {
            "latency_ms": {"type": "number"},
            "cached": {"type": "boolean"},
            "cache_ttl_remaining": {"type": ["number", "null"], "description": "Seconds the cached answer stays fresh (null: not cached)"},
            "source": {"type": "string", "description": "The store that answered"}
        },
        "required": ["latency_ms", "cached", "cache_ttl_remaining", "source"]
    })
}

/// The ops envelope's error body.
pub fn error_body(e: &ToolError, latency: Duration) -> Value {
    let mut error = json!({ "code": e.code.envelope_code(), "message": e.message });
    if let Some(d) = &e.details {
        error["details"] = d.clone();
    }
    json!({ "error": error, "_metadata": { "latency_ms": latency.as_secs_f64() * 1000.0 } })
}

/// Answers of expensive reads, kept for a TTL per tool. A call with
/// `force_refresh` computes afresh (and refreshes the entry).
#[derive(Default)]
pub struct TtlCache {
    entries: Mutex<HashMap<String, (Instant, Value)>>,
}

/// Entries a cache keeps at most (then it starts over).
const CACHE_ENTRIES: usize = 512;

impl TtlCache {
    /// The answer for `key`: from the cache if younger than `ttl` and not
    /// `force`d, else computed by `f` (and kept when `ttl` is some).
    pub fn get_or_compute(
        &self,
        key: &str,
        ttl: Option<Duration>,
        force: bool,
        f: impl FnOnce() -> Result<Value, ToolError>,
    ) -> Result<(Value, Cached), ToolError> {
        let Some(ttl) = ttl else {
            return Ok((f()?, Cached::default()));
        };
        if !force && let Some((at, v)) = self.entries.lock().get(key) {
            let age = at.elapsed();
            if age < ttl {
                return Ok((
                    v.clone(),
                    Cached {
                        hit: true,
                        ttl_remaining: Some(ttl - age),
                    },
                ));
            }
        }
        let v = f()?;
        let mut entries = self.entries.lock();
        if entries.len() >= CACHE_ENTRIES {
            entries.clear();
        }
        entries.insert(key.to_string(), (Instant::now(), v.clone()));
        Ok((
            v,
            Cached {
                hit: false,
                ttl_remaining: Some(ttl),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_without_gaps() {
        let (items, p) = page((0..25).collect::<Vec<_>>(), 10, 10);
        assert_eq!(items, (10..20).collect::<Vec<_>>());
        assert_eq!(
            p,
            Pagination {
                offset: 10,
                limit: 10,
                total: 25,
                has_more: true
            }
        );
        let (items, p) = page((0..25).collect::<Vec<_>>(), 20, 10);
        assert_eq!((items.len(), p.has_more), (5, false));
        let (items, p) = page((0..25).collect::<Vec<_>>(), 99, 10);
        assert!(items.is_empty() && !p.has_more && p.total == 25);
    }

    #[test]
    fn cache_hits_expires_and_is_forced() {
        let c = TtlCache::default();
        let mut n = 0;
        let mut get = |force: bool, ttl: u64| {
            c.get_or_compute("k", Some(Duration::from_millis(ttl)), force, || {
                n += 1;
                Ok(json!(n))
            })
            .unwrap()
        };
        let (v, m) = get(false, 10_000);
        assert_eq!((v, m.hit), (json!(1), false));
        let (v, m) = get(false, 10_000);
        assert_eq!((v, m.hit), (json!(1), true));
        assert!(m.ttl_remaining.unwrap() <= Duration::from_millis(10_000));
        let (v, m) = get(true, 10_000);
        assert_eq!((v, m.hit), (json!(2), false));
        std::thread::sleep(Duration::from_millis(20));
        let (v, m) = get(false, 10);
        assert_eq!((v, m.hit), (json!(3), false));
        // No TTL: never kept.
        let (_, m) = c
            .get_or_compute("k2", None, false, || Ok(json!(0)))
            .unwrap();
        assert_eq!(m, Cached::default());
    }

    #[test]
    fn metadata_takes_the_marker_out() {
        let mut v = json!({"a": 1});
        mark(
            &mut v,
            Cached {
                hit: true,
                ttl_remaining: Some(Duration::from_millis(1500)),
            },
        );
        add_metadata(&mut v, Duration::from_micros(2500), "stores");
        assert!(v.get(CACHE_KEY).is_none());
        assert_eq!(v["_metadata"]["cached"], true);
        assert_eq!(v["_metadata"]["cache_ttl_remaining"], 1.5);
        assert_eq!(v["_metadata"]["latency_ms"], 2.5);
        assert_eq!(v["_metadata"]["source"], "stores");
    }
}
